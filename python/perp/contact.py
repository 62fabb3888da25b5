"""Planar contact: the Painlevé rod (``painleve``, ``critical_mu``, ``painleve_regimes``,
``painleve_world``), scene simulation (``simulate``, ``Simulation``) and one step at a time
(``moreau_jean_step``, also ``World.step``; docs/contact.md). Re-exported by ``perp``."""

from __future__ import annotations

import inspect
import numbers
from typing import NamedTuple, Optional

import numpy as np

from . import _perp
from . import contact3d as _contact3d
from ._perp import InvalidProblem, StepDerivatives, World
from ._convert import _max_iter, _method, _path, _real, _scene_json, _vector
from ._run import _Run
from .solvers import Status


class PainleveAnalysis(NamedTuple):
    """ÿ_A = alpha λ_N + beta at the contact; regime "separating", "contact", "indeterminate",
    "inconsistent" or "degenerate" (alpha = 0 within round-off); solutions: every λ_N >= 0 of the 1-D LCP, ascending."""

    alpha: float
    beta: float
    regime: str
    solutions: np.ndarray


class CriticalFriction(NamedTuple):
    mu: float
    theta: float


def _rod_arguments(theta_dot, mass, half_length, gravity) -> tuple:
    return (_real(theta_dot, "theta_dot"), _real(mass, "mass"), _real(half_length, "half_length"),
            _real(gravity, "gravity"))


def painleve(theta: float, mu: float, theta_dot: float = 0.0, mass: float = 1.0, half_length: float = 1.0,
             gravity: float = 9.81) -> PainleveAnalysis:
    """The Painlevé rod sliding on the ground at angle theta (rad, in (0, π/2)) with friction mu."""
    d = _perp.painleve(_real(theta, "theta"), _real(mu, "mu"), *_rod_arguments(theta_dot, mass, half_length, gravity))
    return PainleveAnalysis(d["alpha"], d["beta"], d["regime"], np.asarray(d["solutions"], dtype=float))


def critical_mu() -> CriticalFriction:
    """The smallest mu with an inconsistent or indeterminate regime: 4/3, at theta = atan 2."""
    mu, theta = _perp.critical_mu()
    return CriticalFriction(mu, theta)


PAINLEVE_REGIMES = ("separating", "contact", "indeterminate", "inconsistent", "degenerate")


def painleve_regimes(theta, mu, theta_dot: float = 0.0, mass: float = 1.0, half_length: float = 1.0,
                     gravity: float = 9.81) -> np.ndarray:
    """The regime index (into ``PAINLEVE_REGIMES``) at every (mu[i], theta[j]) of a grid."""
    return _perp.painleve_regimes(_vector(theta, "theta"), _vector(mu, "mu"),
                                  *_rod_arguments(theta_dot, mass, half_length, gravity))


class BodyTrajectory(NamedTuple):
    name: str
    x: np.ndarray
    y: np.ndarray
    angle: np.ndarray
    vx: np.ndarray
    vy: np.ndarray
    omega: np.ndarray


class Energy(NamedTuple):
    kinetic: np.ndarray
    potential: np.ndarray
    total: np.ndarray
    dissipated: np.ndarray  # initial total − total


class Simulation(_Run):
    """A run of :func:`simulate`: samples at t = 0 and after each step.

    ``t`` (S,); ``state`` (S, bodies, 6) with columns x, y, angle, vx, vy, omega; ``x`` … ``omega``
    (S, bodies); ``body(name)`` one body's columns; ``energy`` (kinetic, potential, total, dissipated);
    per step (S − 1 entries): ``status``, ``method``, ``iterations``, ``residual``,
    ``relative_residual``, ``fallback`` (as in :class:`StepReport`), ``solve_ms``, ``step_ms``,
    ``problem_size``; ``contacts`` the active contacts of every step as flat arrays
    (``step``, ``body_a``, ``body_b`` (-1: ground), ``point``, ``normal``, ``gap``, ``normal_impulse``,
    ``tangent_impulse``), ``contacts_at(k)`` those of step k; ``shapes``, ``names``, ``ground``."""

    COLUMNS = ("x", "y", "angle", "vx", "vy", "omega")

    def __init__(self, data: dict):
        super().__init__(data)
        e = data["energy"]
        total = e[:, 2]
        self.energy = Energy(e[:, 0], e[:, 1], total, total[0] - total if total.size else total)
        self.relative_residual: np.ndarray = data["relative_residual"]
        self.problem_size: np.ndarray = data["problem_size"]

    def body(self, name: str) -> BodyTrajectory:
        i = self._body_index(name)
        return BodyTrajectory(name, *(self.state[:, i, k] for k in range(6)))


def simulate(scene, max_bytes: float = 2e9):
    """Run a scene (a dict in the scene-file format of docs/contact.md, or the path of a .json scene).
    A scene with ``"dimension": 3`` (docs/contact3d.md) returns a :class:`Simulation3`.

    Everything is recorded in memory: a run whose recording would pass ``max_bytes`` (default 2 GB;
    estimated before it starts, checked again as contacts accumulate) raises InvalidProblem."""
    max_bytes = _real(max_bytes, "max_bytes")
    if _contact3d.is_3d(scene):
        return _contact3d.simulate3d(scene, max_bytes)
    if isinstance(scene, dict):
        return Simulation(_perp.simulate_json(_scene_json(scene), "<scene dict>", max_bytes))
    return Simulation(_perp.simulate_file(_path(scene, "scene"), max_bytes))


class StepReport(NamedTuple):
    """What one :func:`moreau_jean_step` did: the active contacts (geometry at the start of the
    step, as arrays ``body_a``, ``body_b`` (-1: ground), ``point``, ``normal``, ``gap``, ``arm_a``,
    ``arm_b``), their impulses, and how the step's problem was solved: ``method`` (the name of the
    method that answered; "" without contacts), ``iterations``, ``residual``, ``relative_residual``
    (the solve's relative residual, <= ``tol`` when solved), ``message`` (the solver's sentence),
    ``fallback`` (the chosen method's name and status, e.g. "lemke: not-applicable", when it did not
    solve and auto answered from its point, or how a packed Coulomb step fell back to the convex law;
    "" otherwise); ``sleeping_bodies`` with ``sleeping=True``; ``law`` ("coulomb" or "convex"), the
    contact law the impulses solve and ``criteria`` measure."""

    contacts: dict
    normal_impulse: np.ndarray
    tangent_impulse: np.ndarray
    status: Status
    method: str
    iterations: int
    residual: float
    solve_ms: float
    step_ms: float
    problem_size: int
    criteria: dict
    warm_started: int
    projected_contacts: int
    projection_status: Status
    split_contacts: int
    split_status: Status
    fallback: str
    message: str
    derivatives: Optional[StepDerivatives] = None
    relative_residual: float = 0.0
    sleeping_bodies: int = 0
    law: str = "coulomb"


FRICTION_MODELS = ("coulomb", "stewart-trinkle", "anitescu-potra")


# The step's defaults are a default-constructed C++ MoreauJeanOptions' (one source: its bound
# fields, docs/python.md); moreau_jean_step's signature and StepOptions take theirs from it.
_DEFAULTS = _perp.MoreauJeanOptions()


def moreau_jean_step(world: World, timestep: float = _DEFAULTS.timestep, theta: float = _DEFAULTS.theta,
                     restitution: float = _DEFAULTS.restitution, friction: float = _DEFAULTS.friction,
                     friction_model: str = _DEFAULTS.friction_model,
                     activation_tolerance: float = _DEFAULTS.activation_tolerance,
                     projection: bool = _DEFAULTS.projection, gravity=_DEFAULTS.gravity,
                     method: str = _DEFAULTS.method, tol: float = _DEFAULTS.tol,
                     max_iter: Optional[int] = _DEFAULTS.max_iter, baumgarte: float = _DEFAULTS.baumgarte,
                     slop: float = _DEFAULTS.slop, split_impulse: bool = _DEFAULTS.split_impulse,
                     speculative: bool = _DEFAULTS.speculative, derivatives: bool = False,
                     degenerate: str = "bound", minimum_norm: bool = False,
                     sleeping: bool = _DEFAULTS.sleeping, sleep_speed: float = _DEFAULTS.sleep_speed,
                     sleep_time: float = _DEFAULTS.sleep_time,
                     dense_pivoting_max_size: int = _DEFAULTS.dense_pivoting_max_size,
                     **method_options) -> StepReport:
    """Advance ``world`` (in place) by one Moreau–Jean step of size ``timestep`` (docs/contact.md):
    contact detection, the velocity-level problem of the active contacts (by default the exact
    Coulomb frictional contact problem, warm-started from the last step), the velocity and position
    updates. The options are those of a scene file; ``method``/``tol``/``max_iter``/``method_options``
    go to the step's solve; ``dense_pivoting_max_size`` (int >= 0) is the largest LCP the step
    pivots on (Lemke, sparse above 200 unknowns; for Coulomb the smaller of it and ``friction_contact={"lemke": {"lcp_max_size": …}}``, default 4000), ``sleeping``/``sleep_speed``/``sleep_time`` put islands at rest to
    sleep; ``speculative=True`` activates contacts a fast body would reach within the step, each
    allowed to close its gap but not pass it (docs/contact.md, "Speculative contacts"). A step whose
    problem is not solved still advances and says so in ``status``.

    With ``derivatives=True`` the report's ``derivatives`` is a :class:`StepDerivatives` of the
    step just taken (``jvp(q=, v=, force=, mass=, friction=, restitution=)`` gives ``(dq, dv)`` of
    the new state, ``vjp(q_bar, v_bar)`` the gradients on every input), under fixed contact
    activation; ``degenerate`` ("bound" or "free") and ``minimum_norm`` (redundant contacts whose
    impulses are not unique) choose the element at non-smooth points (docs/sensitivity.md). It
    needs the Coulomb model, no projection, no contact overlapping past
    ``slop`` while ``baumgarte`` > 0 (the split impulse, on by default, acts only there), and a solved
    step."""
    _check_step_arguments(world, derivatives, degenerate, minimum_norm)
    options = _native_options(timestep=timestep, theta=theta, restitution=restitution, friction=friction,
                              friction_model=friction_model, activation_tolerance=activation_tolerance,
                              projection=projection, gravity=gravity, method=method, tol=tol, max_iter=max_iter,
                              baumgarte=baumgarte, slop=slop, split_impulse=split_impulse,
                              speculative=speculative, sleeping=sleeping, sleep_speed=sleep_speed,
                              sleep_time=sleep_time,
                              dense_pivoting_max_size=dense_pivoting_max_size)
    return StepReport(**_perp.moreau_jean_step(world, options, method_options, bool(derivatives), degenerate,
                                               bool(minimum_norm)))


def _check_step_arguments(world, derivatives, degenerate, minimum_norm) -> None:
    if not isinstance(world, World):
        raise TypeError(f"world: expected a perp.World, got {type(world).__name__}")
    for name, flag in (("derivatives", derivatives), ("minimum_norm", minimum_norm)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name}: expected a bool, got {type(flag).__name__}")
    if not isinstance(degenerate, str):
        raise TypeError(f"degenerate: expected \"bound\" or \"free\", got {type(degenerate).__name__}")


def _native_options(*, timestep, theta, restitution, friction, friction_model, activation_tolerance, projection,
                    gravity, method, tol, max_iter, baumgarte, slop, split_impulse, speculative, sleeping, sleep_speed,
                    sleep_time, dense_pivoting_max_size) -> "_perp.MoreauJeanOptions":
    """The C++ MoreauJeanOptions of these settings, each type-checked with its name (the ranges are
    checked by the step's ``validate``)."""
    if not isinstance(friction_model, str):
        raise TypeError(f"friction_model: expected one of {', '.join(FRICTION_MODELS)}")
    for name, flag in (("projection", projection), ("split_impulse", split_impulse), ("speculative", speculative),
                       ("sleeping", sleeping)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name}: expected a bool, got {type(flag).__name__}")
    if isinstance(dense_pivoting_max_size, bool) or not isinstance(dense_pivoting_max_size, numbers.Integral):
        raise TypeError(f"dense_pivoting_max_size: expected an int, got {type(dense_pivoting_max_size).__name__}")
    if not -2**63 <= dense_pivoting_max_size < 2**63:  # past int64 (the rest: validate's message)
        raise InvalidProblem(f"dense_pivoting_max_size: expected an int in [0, 2**63), got {dense_pivoting_max_size}")
    o = _perp.MoreauJeanOptions()
    o.timestep = _real(timestep, "timestep")
    o.theta = _real(theta, "theta")
    o.restitution = _real(restitution, "restitution")
    o.friction = _real(friction, "friction")
    o.friction_model = friction_model
    o.activation_tolerance = _real(activation_tolerance, "activation_tolerance")
    o.projection = bool(projection)
    o.gravity = _vector(gravity, "gravity")
    o.method = _method(method)
    o.tol = _real(tol, "tol")
    o.max_iter = _max_iter(max_iter)
    o.baumgarte = _real(baumgarte, "baumgarte")
    o.slop = _real(slop, "slop")
    o.split_impulse = bool(split_impulse)
    o.speculative = bool(speculative)
    o.sleeping = bool(sleeping)
    o.sleep_speed = _real(sleep_speed, "sleep_speed")
    o.sleep_time = _real(sleep_time, "sleep_time")
    o.dense_pivoting_max_size = int(dense_pivoting_max_size)
    return o


World.step = moreau_jean_step
World.step.__doc__ = moreau_jean_step.__doc__

# moreau_jean_step's options and their defaults, read from its signature: the one list StepOptions
# takes its names and defaults from (those defaults are the C++ MoreauJeanOptions', above).
_STEP_OPTIONS = {name: p.default for name, p in inspect.signature(moreau_jean_step).parameters.items()
                 if name != "world" and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD}


class StepOptions:
    """The options of one Moreau–Jean step as one object, for :func:`step_world`: the keywords of
    :func:`moreau_jean_step` under the same names (``timestep``, ``theta``, ``friction``, ``tol``,
    ``max_iter``, …), each defaulting to that function's default, which is the C++
    ``MoreauJeanOptions``' (one source), and ``method_options`` (a dict: the solve's method options).
    An unknown name raises TypeError naming it, at construction and on assignment; the values are
    checked by the step, as :func:`moreau_jean_step` checks them. For example::

        options = perp.StepOptions(friction=0.3, timestep=2e-3)
        report = perp.step_world(world, options)
    """

    __slots__ = tuple(_STEP_OPTIONS) + ("method_options",)

    def __init__(self, **options):
        for name in options:
            if name not in StepOptions.__slots__:
                raise TypeError(f"StepOptions: unknown option {name!r}; the options: {', '.join(StepOptions.__slots__)}")
        for name, default in _STEP_OPTIONS.items():
            setattr(self, name, options.get(name, default))
        self.method_options = dict(options.get("method_options") or {})

    def as_dict(self) -> dict:
        """Every option by name (``method_options`` a copy)."""
        values = {name: getattr(self, name) for name in _STEP_OPTIONS}
        values["method_options"] = dict(self.method_options)
        return values

    def replace(self, **changes) -> "StepOptions":
        """A copy with ``changes`` applied (names checked as by the constructor)."""
        return StepOptions(**{**self.as_dict(), **changes})

    def __eq__(self, other) -> bool:
        return isinstance(other, StepOptions) and self.as_dict() == other.as_dict()

    __hash__ = None

    def __repr__(self) -> str:
        changed = {name: value for name, value in self.as_dict().items()
                   if value != (_STEP_OPTIONS[name] if name in _STEP_OPTIONS else {})}
        return "StepOptions(" + ", ".join(f"{name}={value!r}" for name, value in changed.items()) + ")"


def step_world(world: World, options: Optional[StepOptions] = None) -> StepReport:
    """Advance ``world`` (in place) by one Moreau–Jean step under ``options`` (a :class:`StepOptions`;
    None: every default): the same step and report as ``moreau_jean_step(world, **options)``, the
    settings passed to the C++ step as one ``MoreauJeanOptions`` object."""
    if options is None:
        options = StepOptions()
    if not isinstance(options, StepOptions):
        raise TypeError(f"options: expected a perp.StepOptions, got {type(options).__name__}")
    values = options.as_dict()
    method_options = values.pop("method_options")
    clash = sorted(set(method_options) & set(values))
    if clash:
        raise TypeError(f"options.method_options: {clash[0]!r} is a step option; set options.{clash[0]} instead")
    return moreau_jean_step(world, **values, **method_options)


def painleve_world(theta: float, mu: float, theta_dot: float = 0.0, mass: float = 1.0, half_length: float = 1.0,
                   gravity: float = 9.81, sliding_speed: float = 1.0) -> World:
    """The Painlevé rod as a :class:`World`: touching the ground at angle theta, its lower end
    sliding at ``sliding_speed`` > 0 (step it with ``friction=mu`` and ``gravity=(0, -gravity)``)."""
    return _perp.painleve_world(_real(theta, "theta"), _real(mu, "mu"),
                                *_rod_arguments(theta_dot, mass, half_length, gravity),
                                _real(sliding_speed, "sliding_speed"))
