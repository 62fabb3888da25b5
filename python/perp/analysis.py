"""``classify``: the matrix classes of M with witnesses, the implications for LCP(q, M) and the
recommended method (docs/analysis.md). Re-exported by ``perp``."""

from __future__ import annotations

import numbers
from typing import NamedTuple, Optional

from . import _perp
from ._convert import _matrix, _real


class ClassAnswer(NamedTuple):
    """One class of :func:`classify`: holds (True/False/None = undecided), how it was decided
    ("exact", "sufficient-condition", "necessary-condition", "undecided"), a witness for a False
    answer (a dict of numpy arrays and numbers, with its "kind" and "text"; None otherwise) and why."""

    holds: Optional[bool]
    method: str
    witness: Optional[dict]
    reason: str


class Recommendation(NamedTuple):
    method: str
    order: list
    reason: str


class MatrixReport:
    """What :func:`classify` proved about M; ``repr()`` is the table ``perp classify`` prints."""

    def __init__(self, data: dict):
        self.n: int = data["n"]
        self.scale: float = data["scale"]
        self.tolerance: float = data["tolerance"]
        self.min_diagonal: float = data["min_diagonal"]
        self.classes: dict = {name: ClassAnswer(**answer) for name, answer in data["classes"].items()}
        self.implications: list = list(data["implications"])
        self.recommendation = Recommendation(**data["recommendation"])
        self._text: str = data["text"]

    def __getitem__(self, name: str) -> ClassAnswer:
        try:
            return self.classes[name]
        except KeyError:
            raise KeyError(f"{name!r} is not a class; classes: {', '.join(self.classes)}") from None

    def holds(self, name: str) -> Optional[bool]:
        return self[name].holds

    def __repr__(self) -> str:
        return self._text

    def __str__(self) -> str:
        return self._text


def classify(M, tol: float = 1e-10, max_minor_size: int = 20, max_copositive_size: int = 12,
             max_minor_nodes: int = 1 << 24, max_copositive_submatrices: int = 1 << 18,
             always_factorize: bool = True) -> MatrixReport:
    """The matrix classes of M (symmetric, PD, PSD, P, P0, Z, M, diagonally dominant, copositive, ...)
    with witnesses, the implications for LCP(q, M) and the recommended method (docs/analysis.md)."""
    for name, value in (("max_minor_size", max_minor_size), ("max_copositive_size", max_copositive_size),
                        ("max_minor_nodes", max_minor_nodes),
                        ("max_copositive_submatrices", max_copositive_submatrices)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name}: expected an int, got {type(value).__name__}")
    return MatrixReport(_perp.classify(_matrix(M, "M"), _real(tol, "tol"), int(max_minor_size),
                                       int(max_copositive_size), int(max_minor_nodes),
                                       int(max_copositive_submatrices), bool(always_factorize)))
