"""Many copies of a planar scene stepped together (:class:`VecWorld`), and a gym-like wrapper on
top of it (:class:`VecEnv`) that needs no gym: ``reset()`` returns the observations,
``step(actions)`` returns ``(obs, reward, done, info)``."""

from __future__ import annotations

import numbers
import os
from typing import Any, Callable, Optional

import numpy as np

from . import _perp
from . import contact3d as _contact3d
from ._convert import _scene_json

__all__ = ["VecWorld", "VecEnv"]


def _count(x: Any, name: str, least: int) -> int:
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name}: expected an int, got {type(x).__name__}")
    if not least <= x < 2**31:
        raise _perp.InvalidProblem(f"{name}: expected an int in [{least}, 2**31), got {x}")
    return int(x)


class VecWorld:
    """``n`` independent copies of a planar scene (a dict in the scene-file format of
    docs/contact.md, or the path of a .json scene), stepped together by the scene's Moreau–Jean
    options on ``threads`` threads (None or 0: one per core, never more than ``n``); each step runs
    without the GIL. World ``i`` after ``k`` steps is bit-identical to the scene's world stepped
    ``k`` times alone (``perp.moreau_jean_step`` with the scene's options and the same applied
    forces), whatever ``threads``.

    State and the last step's report, as numpy arrays (copies, taken when read): ``positions`` and
    ``velocities`` (n, bodies, 3) float64 (x, y, θ and vx, vy, ω), ``solved`` (n,) bool (the step's
    problem ended solved, or had no contact), ``criterion`` (n,) (the relative residual of the
    step's solve, what the scene's ``tol`` bounds; 0 without contact), ``contacts`` (n,) and
    ``body_contacts`` (n, bodies) (active contacts of the step), ``steps`` (n,) (steps since the
    world's reset), ``status`` and ``fallback`` (lists), ``failed`` (n,) bool and ``messages`` (list
    of str: why a world failed, "" otherwise). ``body_names`` names the bodies in order."""

    def __init__(self, scene, n: int, threads: Optional[int] = None):
        n = _count(n, "n", 1)
        threads = 0 if threads is None else _count(threads, "threads", 0)
        if _contact3d.is_3d(scene):
            raise _perp.InvalidProblem("scene: VecWorld steps planar scenes; this one has \"dimension\": 3")
        if isinstance(scene, dict):
            self._vec = _perp.VecWorld(_scene_json(scene), "<scene dict>", n, threads)
        elif isinstance(scene, (str, os.PathLike)):
            self._vec = _perp.VecWorld.from_file(os.fspath(scene), n, threads)
        else:
            raise TypeError(f"scene: expected a dict or a path, got {type(scene).__name__}")

    def reset(self, mask=None) -> None:
        """Restore the scene's initial state (bodies, warm-start impulses, rest times) of the worlds
        where ``mask`` (n,) bool is True, or of all when ``mask`` is None; their failure, step count
        and last report are cleared."""
        self._vec.reset(mask)

    def step(self, forces=None, velocities=None) -> None:
        """Advance every world that has not failed by one step. ``forces`` (n, bodies, 3): fx, fy
        and torque per body, held over this step in place of the scene's own ``force``/``torque``
        (None: the scene's own, zero unless it sets one). ``velocities`` (n, bodies, 3): target
        vx, vy, omega per body, set at the start of this step where not NaN (NaN: not driven) — a
        fixed body so driven is kinematic (a pusher, a conveyor: it moves by it and pushes what it
        touches); a free body starts the step at it, and gravity, forces and contacts act after.
        A wrong shape or a non-finite force (an infinite velocity) raises InvalidProblem naming the
        world and the body, before any world steps. A world whose step raises or overflows is
        flagged in ``failed`` (reason in ``messages``) and not stepped again until reset; the others
        go on. Ctrl-C: the worlds already started finish their step, the others do not start
        (``steps`` tells which did), and KeyboardInterrupt is raised."""
        self._vec.step(self._array(forces, "forces"), self._array(velocities, "velocities"))

    def _array(self, values, name):
        if values is None:
            return None
        try:
            return np.ascontiguousarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name}: expected an array of real numbers of shape ({self.n}, "
                            f"{len(self.body_names)}, 3), got {type(values).__name__}") from None

    def world(self, i: int):
        """A copy of world ``i`` as a :class:`perp.World`."""
        return self._vec.world(_count(i, "i", 0))

    def __len__(self) -> int:
        return self._vec.n

    def __repr__(self) -> str:
        return (f"<perp.VecWorld {self._vec.n} worlds of {len(self._vec.body_names)} bodies, "
                f"{self._vec.threads} threads>")

    n = property(lambda self: self._vec.n)
    threads = property(lambda self: self._vec.threads)
    timestep = property(lambda self: self._vec.timestep)
    body_names = property(lambda self: self._vec.body_names)
    positions = property(lambda self: self._vec.positions)
    velocities = property(lambda self: self._vec.velocities)
    solved = property(lambda self: self._vec.solved)
    criterion = property(lambda self: self._vec.criterion)
    contacts = property(lambda self: self._vec.contacts)
    body_contacts = property(lambda self: self._vec.body_contacts)
    steps = property(lambda self: self._vec.steps)
    status = property(lambda self: self._vec.status)
    fallback = property(lambda self: self._vec.fallback)
    failed = property(lambda self: self._vec.failed)
    messages = property(lambda self: self._vec.messages)


class VecEnv:
    """A gym-like environment over a :class:`VecWorld`: observations (n, bodies, 6) (x, y, θ, vx,
    vy, ω per body), actions the forces of :meth:`VecWorld.step`. ``reward(obs, actions)`` returns
    (n,) rewards (``actions`` may be None); ``done(obs)``, when given, (n,) bools. A world is done
    when ``done`` says so, when it failed, or after ``max_steps`` steps; with ``autoreset`` (default)
    the done worlds are reset before ``step`` returns, their last observation kept in
    ``info["final_observation"]`` (the others' rows there are the returned ones)."""

    def __init__(self, scene, n: int, reward: Callable, done: Optional[Callable] = None,
                 threads: Optional[int] = None, max_steps: Optional[int] = None, autoreset: bool = True):
        if not callable(reward):
            raise TypeError(f"reward: expected a callable, got {type(reward).__name__}")
        if done is not None and not callable(done):
            raise TypeError(f"done: expected a callable or None, got {type(done).__name__}")
        self.world = VecWorld(scene, n, threads)
        self.reward, self.done = reward, done
        self.max_steps = None if max_steps is None else _count(max_steps, "max_steps", 1)
        self.autoreset = bool(autoreset)

    def observe(self) -> np.ndarray:
        return np.concatenate([self.world.positions, self.world.velocities], axis=2)

    def reset(self) -> np.ndarray:
        self.world.reset()
        return self.observe()

    def step(self, actions=None):
        self.world.step(actions)
        obs = self.observe()
        n = self.world.n
        reward = np.asarray(self.reward(obs, actions), dtype=float).reshape(-1)
        if reward.shape != (n,):
            raise ValueError(f"reward: expected {n} values (one per world), got {reward.size}")
        done = self.world.failed.copy()
        if self.done is not None:
            flags = np.asarray(self.done(obs), dtype=bool).reshape(-1)
            if flags.shape != (n,):
                raise ValueError(f"done: expected {n} flags (one per world), got {flags.size}")
            done |= flags
        if self.max_steps is not None:
            done |= self.world.steps >= self.max_steps
        info = {"solved": self.world.solved, "criterion": self.world.criterion, "contacts": self.world.contacts,
                "failed": self.world.failed, "messages": self.world.messages, "steps": self.world.steps}
        if self.autoreset and done.any():
            info["final_observation"] = obs
            self.world.reset(done)
            obs = self.observe()
        return obs, reward, done, info
