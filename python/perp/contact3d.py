"""3D scenes from Python (issue 36): :class:`Simulation3`, what :func:`perp.simulate` returns for a
scene with ``"dimension": 3``, and :class:`World3`, such a scene stepped one step at a time.

The scene format is docs/contact3d.md's (z up, quaternions [w, x, y, z]). A body's state is the 13
numbers ``x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz`` (centre of mass, unit quaternion body →
world, linear and angular velocity in the world frame), as in trajectory.csv."""
from __future__ import annotations

import json as _json
import os
from typing import Any, NamedTuple, Optional

import numpy as np

from . import _perp
from ._run import _Run

COLUMNS = ("x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz")


class Body3Trajectory(NamedTuple):
    """One body's run: ``position`` (S, 3), ``orientation`` (S, 4) as [w, x, y, z], ``velocity`` and
    ``angular_velocity`` (S, 3), world frame."""

    name: str
    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray


class Simulation3(_Run):
    """A run of a 3D scene: samples at t = 0 and after each step.

    ``t`` (S,); ``state`` (S, bodies, 13) with the columns of :data:`COLUMNS`; ``x`` … ``wz``
    (S, bodies) one column; ``position``, ``orientation``, ``velocity``, ``angular_velocity``
    (S, bodies, 3 or 4); ``body(name)`` one body's; ``energy`` (S, 3): kinetic, potential, total;
    per step (S − 1 entries): ``status``, ``method``, ``iterations``, ``residual``, ``fallback`` (""
    or, where auto's chain left a Coulomb step unsolved, which impulses the step took: as
    :attr:`Step3Report.fallback` and steps.csv's column), ``solve_ms``, ``step_ms``; ``contacts``:
    the active contacts of every step as flat arrays (``step``,
    ``body_a``, ``body_b`` (−1: the ground, −2 − p: plane p), ``feature``, ``point``, ``normal``,
    ``tangent1``, ``tangent2`` (n, 3), ``gap``, ``impulse`` (n, 3: normal, t1, t2; N·s),
    ``impulse_world`` (n, 3)); ``contacts_at(k)`` those of step k; ``names``, ``shapes``,
    ``ground``, ``timestep``, ``steps``, ``unsolved``, ``gravity``."""

    COLUMNS = COLUMNS

    def __init__(self, data: dict):
        super().__init__(data)
        self.energy: np.ndarray = data["energy"]

    @property
    def position(self) -> np.ndarray:
        return self.state[:, :, 0:3]

    @property
    def orientation(self) -> np.ndarray:
        return self.state[:, :, 3:7]

    @property
    def velocity(self) -> np.ndarray:
        return self.state[:, :, 7:10]

    @property
    def angular_velocity(self) -> np.ndarray:
        return self.state[:, :, 10:13]

    def body(self, name: str) -> Body3Trajectory:
        s = self.state[:, self._body_index(name), :]
        return Body3Trajectory(name, s[:, 0:3], s[:, 3:7], s[:, 7:10], s[:, 10:13])


class Step3Report(NamedTuple):
    """What one :meth:`World3.step` did: the active contacts (arrays as in :class:`Simulation3`'s
    ``contacts``, geometry at the start of the step), the solve's ``status``, ``method`` ("" without
    contacts), ``iterations``, ``residual``, the physical ``criteria`` of the impulses (signorini,
    coulomb, complementarity, dissipation, absolute and relative error), ``warm_started`` (contacts
    that started from their last impulse), ``solve_ms``, ``step_ms``, ``law`` ("coulomb", or "convex"
    under the anitescu-potra model: the law the criteria measure), ``split_contacts`` and
    ``split_status`` (the drift correction's split impulse: the contacts it corrected, its solve's
    status), ``fallback`` (where auto left a Coulomb step unsolved and the packed-step chain took
    over: how, else ""), ``sleeping_bodies`` (with the scene's ``"sleeping": true``: the bodies asleep
    during the step)."""

    contacts: dict
    status: Any
    method: str
    iterations: int
    residual: float
    criteria: dict
    warm_started: int
    solve_ms: float
    step_ms: float
    law: str
    split_contacts: int
    split_status: Any
    fallback: str
    sleeping_bodies: int


def _scene_text(scene: dict) -> str:
    from . import InvalidProblem, _json_default
    try:
        return _json.dumps(scene, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as error:
        raise InvalidProblem(f"scene: cannot be written as JSON ({error})") from None


class World3:
    """A 3D scene (a dict in the format of docs/contact3d.md, or the path of a .json scene) stepped
    one step at a time: ``step()`` advances it by the scene's timestep and returns a
    :class:`Step3Report`. ``state`` (bodies, 13) reads the bodies' states and sets them (a copy;
    each row validated: finite, a unit quaternion; the warm start is then forgotten); ``position``,
    ``orientation``, ``velocity``, ``angular_velocity`` are its columns; ``t`` and ``steps`` count
    the steps taken; ``energy()`` is (kinetic, potential)."""

    def __init__(self, scene):
        from . import _path
        if isinstance(scene, dict):
            self._stepper = _perp.Stepper3.from_json(_scene_text(scene), "<scene dict>")
        else:
            self._stepper = _perp.Stepper3.from_file(_path(scene, "scene"))
        self.names: list = [b["name"] for b in self._stepper.bodies]

    @property
    def state(self) -> np.ndarray:
        return self._stepper.state

    @state.setter
    def state(self, value) -> None:
        self._stepper.state = np.asarray(value, dtype=np.float64)

    position = property(lambda self: self.state[:, 0:3])
    orientation = property(lambda self: self.state[:, 3:7])
    velocity = property(lambda self: self.state[:, 7:10])
    angular_velocity = property(lambda self: self.state[:, 10:13])
    t = property(lambda self: self._stepper.t)
    steps = property(lambda self: self._stepper.steps)
    timestep = property(lambda self: self._stepper.timestep)
    bodies = property(lambda self: self._stepper.bodies)
    ground = property(lambda self: self._stepper.ground)
    gravity = property(lambda self: self._stepper.gravity)

    def energy(self) -> tuple:
        return self._stepper.energy()

    @property
    def model_options(self) -> dict:
        """The scene's friction model, drift correction and sleeping: ``friction_model``,
        ``facets``, ``baumgarte``, ``slop``, ``split_impulse``, ``sleeping``, ``sleep_speed``,
        ``sleep_time`` (the scene keys of the same names)."""
        return self._stepper.model_options

    def step(self, friction_model: Optional[str] = None, facets: Optional[int] = None,
             baumgarte: Optional[float] = None, slop: Optional[float] = None,
             split_impulse: Optional[bool] = None) -> Step3Report:
        """One step of the scene's timestep. The friction model ("coulomb", "anitescu-potra",
        "stewart-trinkle"), its ``facets`` (k >= 3), and the drift correction (``baumgarte`` in
        [0, 1), ``slop`` >= 0, ``split_impulse``) are the scene's (:attr:`model_options`); those
        given replace them for this step, as the keywords of :func:`perp.moreau_jean_step` in 2D."""
        from ._convert import _real
        from ._perp import InvalidProblem
        from .contact import FRICTION_MODELS
        if friction_model is not None and not isinstance(friction_model, str):
            raise TypeError(f"friction_model: expected one of {', '.join(FRICTION_MODELS)}")
        if facets is not None and (isinstance(facets, bool) or not isinstance(facets, (int, np.integer))):
            raise TypeError(f"facets: expected an int, got {type(facets).__name__}")
        if facets is not None and not 3 <= facets <= 4096:
            raise InvalidProblem(f"facets: expected an int in [3, 4096], got {facets}")
        if split_impulse is not None and not isinstance(split_impulse, (bool, np.bool_)):
            raise TypeError(f"split_impulse: expected a bool, got {type(split_impulse).__name__}")
        return Step3Report(**self._stepper.step(
            friction_model, None if facets is None else int(facets),
            None if baumgarte is None else _real(baumgarte, "baumgarte"),
            None if slop is None else _real(slop, "slop"),
            None if split_impulse is None else bool(split_impulse)))

    def __repr__(self) -> str:
        return f"<perp.World3 {len(self.names)} bodies, t = {self.t:g} s after {self.steps} steps>"


def is_3d(scene) -> bool:
    """Whether a scene (dict or path) has ``"dimension": 3``."""
    if isinstance(scene, dict):
        return scene.get("dimension") == 3
    if isinstance(scene, (str, os.PathLike)):
        return _perp.scene_file_dimension(os.fspath(scene)) == 3
    return False


def simulate3d(scene, max_bytes: float) -> Simulation3:
    from . import _path
    if isinstance(scene, dict):
        return Simulation3(_perp.simulate3d_json(_scene_text(scene), "<scene dict>", max_bytes))
    return Simulation3(_perp.simulate3d_file(_path(scene, "scene"), max_bytes))
