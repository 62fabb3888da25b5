"""Problems as objects (``Lcp``, ``BoxLcp``, ``Mlcp``, ``Qp``, ``FrictionContact``) and their files:
``read``, ``loads``, ``write_siconos``, ``write_json`` (docs/python.md). Re-exported by ``perp``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _perp
from ._perp import FrictionContactResult, MlcpResult, QpResult, Result
from ._convert import _matrix, _path, _sparse_operator, _vector, _vector_or_scalar
from .solvers import solve, solve_box, solve_friction_contact, solve_mlcp, solve_qp


@dataclass
class Lcp:
    """LCP(q, M); ``solve(**kw)`` is :func:`solve` on it."""

    M: np.ndarray
    q: np.ndarray
    type = "lcp"

    def solve(self, **kw) -> Result:
        return solve(self.M, self.q, **kw)

    def _data(self) -> dict:
        return {"type": "lcp", "M": _matrix(self.M, "M"), "q": _vector(self.q, "q")}


@dataclass
class BoxLcp:
    M: np.ndarray
    q: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    friction: list = field(default_factory=list)
    type = "box-lcp"

    def solve(self, **kw) -> Result:
        return solve_box(self.M, self.q, self.lo, self.hi, self.friction, **kw)

    def _data(self) -> dict:
        q = _vector(self.q, "q")
        return {"type": "box-lcp", "M": _matrix(self.M, "M"), "q": q, "lo": _vector_or_scalar(self.lo, "lo", q.size),
                "hi": _vector_or_scalar(self.hi, "hi", q.size), "friction": [tuple(f) for f in self.friction]}


@dataclass
class Mlcp:
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    a: np.ndarray
    b: np.ndarray
    type = "mlcp"

    def solve(self, **kw) -> MlcpResult:
        return solve_mlcp(self.A, self.B, self.C, self.D, self.a, self.b, **kw)

    def _data(self) -> dict:
        return {"type": "mlcp", **{k: _matrix(getattr(self, k), k) for k in "ABCD"},
                "a": _vector(self.a, "a"), "b": _vector(self.b, "b")}


@dataclass
class Qp:
    Q: np.ndarray
    c: np.ndarray
    A: np.ndarray
    b: np.ndarray
    type = "qp"

    def solve(self, **kw) -> QpResult:
        return solve_qp(self.Q, self.c, self.A, self.b, **kw)

    def _data(self) -> dict:
        return {"type": "qp", "Q": _matrix(self.Q, "Q"), "c": _vector(self.c, "c"), "A": _matrix(self.A, "A"),
                "b": _vector(self.b, "b")}


@dataclass
class FrictionContact:
    """W (scipy.sparse CSC when read from a file), q, mu, dimension."""

    W: Any
    q: np.ndarray
    mu: np.ndarray
    dimension: int
    type = "friction-contact"

    def solve(self, **kw) -> FrictionContactResult:
        return solve_friction_contact(self.W, self.q, self.mu, dimension=self.dimension, **kw)

    def _data(self) -> dict:
        return {"type": "friction-contact", "dimension": int(self.dimension), "W": _sparse_operator(self.W, "W"),
                "q": _vector(self.q, "q"), "mu": _vector(self.mu, "mu")}


def _problem(data: dict):
    kind = data["type"]
    if kind == "lcp":
        return Lcp(data["M"], data["q"])
    if kind == "box-lcp":
        return BoxLcp(data["M"], data["q"], data["lo"], data["hi"], list(data["friction"]))
    if kind == "mlcp":
        return Mlcp(data["A"], data["B"], data["C"], data["D"], data["a"], data["b"])
    if kind == "qp":
        return Qp(data["Q"], data["c"], data["A"], data["b"])
    import scipy.sparse
    rows, cols, indptr, indices, values = data["W"]
    W = scipy.sparse.csc_matrix((values, indices, indptr), shape=(rows, cols))
    return FrictionContact(W, data["q"], data["mu"], data["dimension"])


def read(path) -> Any:
    """Read a problem file: Siconos ``.dat`` (LCP, MLCP, FrictionContactProblem), fclib ``.hdf5``
    (:func:`read_fclib`: a FrictionContact or GlobalFrictionContact) or perp's ``.json`` (any type). Returns an :class:`Lcp`, :class:`BoxLcp`, :class:`Mlcp`, :class:`Qp` or
    :class:`FrictionContact`; an unreadable file raises :class:`InvalidProblem` naming the position."""
    from .fclib import _is_fclib, read_fclib

    if _is_fclib(_path(path)):
        return read_fclib(path)["problem"]
    return _problem(_perp.read_problem(_path(path)))


def loads(text: str, source: str = "<string>") -> Any:
    """A problem from JSON text (the format of ``read``'s .json files)."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected a str, got {type(text).__name__}")
    return _problem(_perp.parse_json(text, source))


def _data_of(problem: Any) -> dict:
    if not isinstance(problem, (Lcp, BoxLcp, Mlcp, Qp, FrictionContact)):
        raise TypeError(f"problem: expected perp.Lcp, BoxLcp, Mlcp, Qp or FrictionContact, got "
                        f"{type(problem).__name__}")
    return problem._data()


def write_siconos(path, problem) -> None:
    """Write an :class:`Lcp`, :class:`Mlcp` or :class:`FrictionContact` in Siconos' text format
    (values round-trip exactly). Box LCPs and QPs have no Siconos format: use :func:`write_json`."""
    _perp.write_siconos(_path(path), _data_of(problem))


def write_json(path, problem) -> None:
    """Write any problem as perp's JSON (values round-trip exactly)."""
    text = _perp.to_json(_data_of(problem))
    with open(_path(path), "w", encoding="utf-8") as out:
        out.write(text if text.endswith("\n") else text + "\n")
