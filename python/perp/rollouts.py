"""Rollouts of a planar scene and their gradients (docs/python.md, "Rollouts and their gradients").

    run = perp.rollout(scene, steps, forces=None, friction=None, restitution=None)
    run.positions, run.velocities          # (steps + 1, bodies, 3): x, y, angle and their rates

    g = perp.rollout_gradient(scene, steps, forces=forces)
    g["initial_state"]  # d(final state)/d(initial state): (2, bodies, 3, 2, bodies, 3)
    g["forces"]         # d(final state)/d(each step's forces): (2, bodies, 3, steps, bodies, 3)
    g["friction"], g["restitution"]        # d(final state)/d(the scene's μ, e): (2, bodies, 3)
    g.switches          # the contacts at a switch, and the one-sided derivative returned there

The state of a body is (x, y, angle) and (vx, vy, ω); "the final state" is the array (2, bodies, 3)
of the last positions (index 0) and velocities (index 1). With ``weights`` (the same shape, or
(steps + 1, 2, bodies, 3) for a loss on every state) the gradient of the loss L = Σ weights · state
comes instead, in the inputs' shapes. The derivatives are the adjoint of each step's derivative
under fixed contact activation (include/perp/contact/step_sensitivity.hpp).
"""
from __future__ import annotations

import numbers
import os
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

import numpy as np

from . import _perp
from . import contact3d as _contact3d
from ._perp import InvalidProblem
from ._convert import _path, _real_array, _scene_json

__all__ = ["Rollout", "RolloutGradient", "rollout", "rollout_gradient"]


class Rollout(NamedTuple):
    """A run of :func:`rollout`: ``positions`` and ``velocities`` of every state (steps + 1, bodies,
    3; state 0 is the initial one), per step ``solved`` (bools) and ``contacts`` (the number of
    active contacts), and the ``names`` of the bodies, the ``timestep``, and the ``friction`` and
    ``restitution`` it ran with."""

    positions: np.ndarray
    velocities: np.ndarray
    solved: np.ndarray
    contacts: np.ndarray
    names: list
    timestep: float
    friction: float
    restitution: float


@dataclass(frozen=True)
class RolloutGradient:
    """What :func:`rollout_gradient` returns; ``g["forces"]`` and ``g.forces`` are the same array.

    ``positions``, ``velocities``: the run, as :class:`Rollout`'s. Without ``weights``, the Jacobians
    of the final state y (2, bodies, 3): ``initial_state`` (2, bodies, 3, 2, bodies, 3), ``forces``
    (2, bodies, 3, steps, bodies, 3: fx, fy, torque of each body at each step), ``friction`` and
    ``restitution`` (2, bodies, 3); with ``weights``, the gradients of L: ``initial_state`` (2,
    bodies, 3), ``forces`` (steps, bodies, 3), ``friction`` and ``restitution`` (floats).

    At a switch of a step (``at_switch``, one bool a step) the step has only one-sided derivatives,
    and the one returned is named in ``switches``: one dict a contact, with ``step``, ``contact``
    (its index among the step's active contacts; -1 for an inactive one), ``body_a``, ``body_b``
    (-1: the ground, -2 - k: plane k), ``kind`` and ``piece``:

    - ``"stick-slip"``: friction on the cone's edge without slip; piece ``"slip"`` (the default,
      ``degenerate="bound"``: the derivative seen by perturbations that ask more friction than μ
      r_N) or ``"stick"`` (``degenerate="free"``: those that ask less);
    - ``"zero-normal-impulse"``: an active contact touching without pushing; piece ``"separate"``
      (``"bound"``) or ``"touch"`` (``"free"``);
    - ``"activation"``: the predicted gap g + h/2 ġ between 0 and the activation threshold (a
      contact resting at gap 0, or landing exactly at a step's end); piece ``"active"`` (the
      contact held: perturbations that press it) or ``"inactive"`` (those that lift it).

    ``rules``: per step, the derivative's sorting of the impulses in words; ``geometry_exact``:
    False where a contact's geometric derivative came from differences (disk-box, box-box pairs);
    ``degenerate``: the element chosen at stick-slip and zero-normal-impulse switches."""

    positions: np.ndarray
    velocities: np.ndarray
    initial_state: np.ndarray
    forces: np.ndarray
    friction: Any
    restitution: Any
    at_switch: np.ndarray
    switches: list
    rules: list
    geometry_exact: bool
    degenerate: str

    def __getitem__(self, name: str) -> Any:
        if name not in self.__dataclass_fields__:
            raise KeyError(name)
        return getattr(self, name)

    def keys(self):
        return self.__dataclass_fields__.keys()


def _steps(steps: Any) -> int:
    if steps is None:
        return -1  # the scene's duration / timestep
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral):
        raise TypeError(f"steps: expected an int >= 0 or None, got {type(steps).__name__}")
    if steps < 0:
        raise ValueError(f"steps: expected an int >= 0, got {steps}")
    return int(steps)


def _optional_real(x: Any, name: str) -> Optional[float]:
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a real number or None, got {type(x).__name__}")
    return float(x)


def _optional_array(x: Any, name: str) -> Optional[np.ndarray]:
    if x is None:
        return None
    return np.ascontiguousarray(_real_array(x, name), dtype=np.float64)


def _run(scene: Any, steps: Any, forces: Any, friction: Any, restitution: Any, initial_state: Any):
    n = _steps(steps)
    arguments = (n, _optional_array(forces, "forces"), _optional_real(friction, "friction"),
                 _optional_real(restitution, "restitution"), _optional_array(initial_state, "initial_state"))
    if _contact3d.is_3d(scene):
        raise InvalidProblem("scene: a 3D scene (\"dimension\": 3) has no rollout derivatives; rollouts are planar")
    if isinstance(scene, dict):
        data = dict(scene)
        if "duration" not in data and n >= 0 and isinstance(data.get("timestep"), numbers.Real):
            data["duration"] = max(n, 1) * float(data["timestep"])  # not used: `steps` counts
        return _perp.RolloutRun(_scene_json(data), False, "<scene dict>", *arguments)
    if isinstance(scene, (str, os.PathLike)):
        return _perp.RolloutRun(_path(scene, "scene"), True, os.fspath(scene), *arguments)
    raise TypeError(f"scene: expected a dict or the path of a scene file, got {type(scene).__name__}")


def _rollout_of(run) -> Rollout:
    r = run.report()
    return Rollout(run.positions, run.velocities, r["solved"], r["contacts"], r["names"], r["timestep"],
                   r["friction"], r["restitution"])


def rollout(scene, steps: Optional[int], forces=None, friction: Optional[float] = None,
            restitution: Optional[float] = None, initial_state=None) -> Rollout:
    """Run ``steps`` Moreau–Jean steps of a planar scene (a dict in the scene format of
    docs/contact.md, or the path of a .json scene; ``steps=None``: the scene's duration) and return
    every state (:class:`Rollout`). ``forces`` (steps, bodies, 3): each body's applied fx, fy and
    torque at each step, in place of the scene's "force"/"torque" (None: those). ``friction`` and
    ``restitution`` replace the scene's μ and e; ``initial_state`` (2, bodies, 3) its positions and
    velocities. A dict scene may leave out "duration". Runs without the GIL; Ctrl-C stops it
    (KeyboardInterrupt)."""
    return _rollout_of(_run(scene, steps, forces, friction, restitution, initial_state))


def _gradient(run, weights: Any, degenerate: str, minimum_norm: bool, tol: float) -> RolloutGradient:
    if not isinstance(degenerate, str):
        raise TypeError(f"degenerate: expected \"bound\" or \"free\", got {type(degenerate).__name__}")
    if not isinstance(minimum_norm, (bool, np.bool_)):
        raise TypeError(f"minimum_norm: expected a bool, got {type(minimum_norm).__name__}")
    if isinstance(tol, bool) or not isinstance(tol, numbers.Real):
        raise TypeError(f"tol: expected a real number, got {type(tol).__name__}")
    run.differentiate(degenerate, bool(minimum_norm), float(tol))
    if weights is None:
        d = run.jacobian()
    else:
        w = _optional_array(weights, "weights")
        final_shape = (2, run.bodies, 3)
        if w.shape == final_shape:
            full = np.zeros((run.steps + 1, *final_shape))
            full[-1] = w
            w = full
        elif w.shape != (run.steps + 1, *final_shape):
            raise ValueError(f"weights: expected shape {final_shape} (the final state) or "
                             f"{(run.steps + 1, *final_shape)} (every state), got {w.shape}")
        d = run.vjp(w)
    s = run.switch_report()
    return RolloutGradient(run.positions, run.velocities, d["initial_state"], d["forces"], d["friction"],
                           d["restitution"], s["at_switch"], s["switches"], s["rules"], s["geometry_exact"],
                           s["degenerate"])


def rollout_gradient(scene, steps: Optional[int], forces=None, friction: Optional[float] = None,
                     restitution: Optional[float] = None, initial_state=None, weights=None,
                     degenerate: str = "bound", minimum_norm: bool = False, tol: float = 1e-9) -> RolloutGradient:
    """:func:`rollout` with the derivatives of its final state with respect to the initial state,
    each step's forces, ``friction`` and ``restitution`` (a :class:`RolloutGradient`: full
    Jacobians, one adjoint per output component), or with ``weights`` the gradient of L = Σ
    weights · state (weights (2, bodies, 3) on the final state, or (steps + 1, 2, bodies, 3) on
    every state; one adjoint). The derivative of each step is taken under its contact activation;
    ``degenerate`` ("bound" or "free") picks the one-sided derivative at stick/slip and
    zero-impulse switches, ``minimum_norm`` allows redundant sticking contacts (a box flat on the
    ground), ``tol`` sorts the impulses (docs/sensitivity.md). Every step must be solved, with the
    Coulomb model, no projection and no overlap past ``slop`` while ``baumgarte`` > 0 (else
    InvalidProblem naming the step). The run's switches are in the result."""
    return _gradient(_run(scene, steps, forces, friction, restitution, initial_state), weights, degenerate,
                     minimum_norm, tol)
