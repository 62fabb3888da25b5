"""What a planar run (:class:`perp.Simulation`) and a 3D run (:class:`perp.Simulation3`) share:
the fields read from the compiled module's dictionary, a state column by name, the contacts of one
step, the sample nearest a time. Each subclass names its state columns (``COLUMNS``) and adds its
own fields."""

from __future__ import annotations

from typing import Optional

import numpy as np


class _Run:
    COLUMNS: tuple = ()

    def __init__(self, data: dict):
        self.t: np.ndarray = data["t"]
        self.state: np.ndarray = data["state"]
        self.status: list = data["status"]
        self.method: list = data["method"]
        self.iterations: np.ndarray = data["iterations"]
        self.residual: np.ndarray = data["residual"]
        self.fallback: list = data["fallback"]
        self.solve_ms: np.ndarray = data["solve_ms"]
        self.step_ms: np.ndarray = data["step_ms"]
        self._offsets: np.ndarray = data["offsets"]
        self.contacts: dict = data["contacts"]
        self.bodies: list = data["bodies"]
        self.names: list = [b["name"] for b in self.bodies]
        self.shapes: list = [b["shape"] for b in self.bodies]
        self.ground: Optional[float] = data["ground"]
        self.timestep: float = data["timestep"]
        self.duration: float = data["duration"]
        self.steps: int = data["steps"]
        self.unsolved: int = data["unsolved"]
        self.gravity: tuple = data["gravity"]

    def __getattr__(self, name: str):
        columns = type(self).COLUMNS
        if name in columns:
            return self.state[:, :, columns.index(name)]
        raise AttributeError(name)

    def _body_index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no body {name!r}; bodies: {', '.join(self.names)}") from None

    def contacts_at(self, step: int) -> dict:
        """The active contacts of step ``step`` (0-based; geometry at its start)."""
        if not -self.steps <= step < self.steps:
            raise IndexError(f"step {step} out of range ({self.steps} steps)")
        step %= self.steps
        lo, hi = self._offsets[step], self._offsets[step + 1]
        return {key: value[lo:hi] for key, value in self.contacts.items()}

    def sample_index(self, time: float) -> int:
        """The index of the sample closest to ``time``."""
        return int(np.argmin(np.abs(self.t - time)))

    def __repr__(self) -> str:
        return (f"<perp.{type(self).__name__} {len(self.names)} bodies, {self.steps} steps of {self.timestep:g} s, "
                f"{self.contacts['gap'].size} contact-steps, {self.unsolved} unsolved>")
