"""perp: linear and nonlinear complementarity problems, frictional contact, planar contact dynamics.

A five-line LCP (the two-contact block of [chapter] §1.2, docs/references.md; lambda = (5, 5)):

>>> import perp
>>> r = perp.solve([[1.75, 0.25], [0.25, 1.75]], [-10, -10], method="lemke")
>>> r.status, r.z.tolist()
(<Status.SOLVED: 'solved'>, [5.0, 5.0])

Every solve returns a result with ``status`` (a :class:`Status`), the point, its residual recomputed
from it, and how the method got there; invalid input raises :class:`InvalidProblem` (a ValueError)
or a TypeError naming the argument. See docs/python.md.

The package's modules, each re-exported here: solvers.py (Status, the method names, every solve),
problems.py (the problem objects and their files), analysis.py (classify), contact.py (the Painlevé
rod, simulate, moreau_jean_step, step_world), contact3d.py, vec.py, rollouts.py, fclib.py, simulation_files.py;
plot.py and torch.py load on first use (``perp.plot``, ``perp.torch``).
"""

from __future__ import annotations

from . import _perp
from . import contact3d
from .contact3d import Simulation3, Step3Report, World3
from ._perp import Body, Box, Disk, FrictionContactResult, InvalidProblem, MlcpResult, Plane, QpResult, Result, Rod, World
from ._perp import (BoxLcpDerivatives, FrictionContactDerivatives, LcpDerivatives, MlcpDerivatives,
                    QpDerivatives, StepDerivatives)
# The conversions other modules of the package take from here (contact3d.py).
from ._convert import _json_default, _path  # noqa: F401
from .solvers import (BOX_LCP_METHODS, FRICTION_CONTACT_METHODS, LCP_METHODS, METHODS, MLCP_METHODS,
                      SPARSE_LCP_METHODS, BatchResult, FrictionContactOptions, QpBoundsResult, Status,
                      friction_contact_residuals, solve, solve_box, solve_factored, solve_friction_contact,
                      solve_many, solve_mcp, solve_mlcp, solve_ncp, solve_qp)
from .analysis import ClassAnswer, MatrixReport, Recommendation, classify
from .problems import BoxLcp, FrictionContact, Lcp, Mlcp, Qp, loads, read, write_json, write_siconos
from .contact import (FRICTION_MODELS, PAINLEVE_REGIMES, BodyTrajectory, CriticalFriction, Energy, PainleveAnalysis,
                      Simulation, StepOptions, StepReport, critical_mu, moreau_jean_step, painleve,
                      painleve_regimes, painleve_world, simulate, step_world)
from .vec import VecEnv, VecWorld
# fclib files (HDF5): GlobalFrictionContact, read_fclib, write (perp/fclib.py).
from .fclib import GlobalFrictionContact, GlobalFrictionContactResult, read_fclib, write
from .simulation_files import read_simulation
# Rollouts of a planar scene and their gradients (perp/rollouts.py).
from .rollouts import Rollout, RolloutGradient, rollout, rollout_gradient

__all__ = [
    "Status", "Result", "MlcpResult", "QpResult", "FrictionContactResult", "GlobalFrictionContactResult",
    "InvalidProblem",
    "solve", "solve_box", "solve_mlcp", "solve_qp", "solve_ncp", "solve_mcp", "solve_friction_contact",
    "friction_contact_residuals", "FrictionContactOptions",
    "solve_factored", "solve_many", "BatchResult", "classify", "MatrixReport", "ClassAnswer", "Recommendation",
    "Lcp", "BoxLcp", "Mlcp", "Qp", "FrictionContact", "GlobalFrictionContact", "read", "read_fclib", "write", "loads", "write_siconos",
    "write_json",
    "painleve", "critical_mu", "PainleveAnalysis", "CriticalFriction", "simulate", "Simulation", "read_simulation",
    "World", "Body", "Disk", "Box", "Rod", "Plane", "moreau_jean_step", "step_world", "StepOptions", "StepReport",
    "painleve_world",
    "Simulation3", "World3", "Step3Report", "VecWorld", "VecEnv",
    "LcpDerivatives", "BoxLcpDerivatives", "MlcpDerivatives", "QpDerivatives", "FrictionContactDerivatives",
    "StepDerivatives",
    "METHODS", "LCP_METHODS", "BOX_LCP_METHODS", "MLCP_METHODS", "FRICTION_CONTACT_METHODS", "SPARSE_LCP_METHODS",
    "DENSE_LIMIT", "QpBoundsResult",
    "rollout", "rollout_gradient", "Rollout", "RolloutGradient",
]

__version__ = "0.1.0"

#: The largest n for which a scipy.sparse M is densified for the (dense) LCP, box-LCP, MLCP, QP
#: and classify code: n^2 doubles, 128 MB at 4000. Raise it (perp.DENSE_LIMIT = ...) to go further.
DENSE_LIMIT = 4000


def __getattr__(name: str):
    """`perp.plot` (and `perp.torch`) load on first use, so that `import perp` needs neither
    matplotlib nor torch: `import perp; perp.plot.convergence(r)` works without importing perp.plot."""
    if name in ("plot", "torch"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
