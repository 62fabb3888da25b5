"""fclib files (HDF5) from Python: the global frictional contact problem, reading with the stored
solution and guesses, and writing any problem by its file's extension. Re-exported by ``perp``."""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

from . import _perp
from ._perp import GlobalFrictionContactResult
from ._perp import InvalidProblem
from ._convert import (_max_iter, _method, _optional_vector, _path, _real, _sparse_operator, _vector,
                       _vector_or_scalar)
from .problems import FrictionContact, write_json, write_siconos


@dataclass
class GlobalFrictionContact:
    """fclib's global frictional contact problem: M v = H r + q, u = Hᵀ v + b, r in the cones of mu
    (fclib's f is q, its w is b). M and H scipy.sparse CSC when read from a file."""

    M: Any
    H: Any
    q: np.ndarray
    b: np.ndarray
    mu: np.ndarray
    dimension: int
    type = "global-friction-contact"

    def local(self) -> FrictionContact:
        """The local problem of the same contacts: W = Hᵀ M⁻¹ H, q_local = Hᵀ M⁻¹ q + b."""
        import scipy.sparse
        import scipy.sparse.linalg
        M = scipy.sparse.csc_matrix(self.M)
        H = scipy.sparse.csc_matrix(self.H)
        MinvH = scipy.sparse.linalg.spsolve(M, H.toarray() if H.shape[1] else H)
        MinvH = np.asarray(MinvH.toarray() if scipy.sparse.issparse(MinvH) else MinvH).reshape(H.shape)
        Minvq = scipy.sparse.linalg.spsolve(M, np.asarray(self.q, dtype=float))
        W = scipy.sparse.csc_matrix(H.T @ MinvH)
        return FrictionContact(W, H.T @ Minvq + np.asarray(self.b, dtype=float), np.asarray(self.mu, dtype=float),
                               int(self.dimension))

    def solve(self, method: str = "auto", tol: float = 1e-8, max_iter: Optional[int] = None, warm_start=None,
              law: str = "coulomb", **method_options) -> GlobalFrictionContactResult:
        """Solved in C++ by perp's ``solve(GlobalFrictionContact)`` (docs/solvers.md): M and H reach it as
        they are, scipy.sparse as its CSC arrays (never densified; a dense array is taken as dense). In
        the plane with M diagonal, on the factors (W never formed); otherwise through the local form
        W = Hᵀ M⁻¹ H with M factored once. ``law``: "coulomb" (default) or "convex" (the
        Anitescu–Potra relaxation: d = 2, M diagonal, interior-point or auto). ``warm_start`` is r
        (d·nc entries). The result's ``r``/``u``/``v`` are r, u = Hᵀ v + b and v = M⁻¹ (H r + q),
        ``criteria`` the contact's criteria of (v, r), ``equilibrium`` ‖M v − H r − q‖∞; ``solved``
        means the relative error recomputed from (v, r) is <= ``tol``."""
        if isinstance(self.dimension, bool) or not isinstance(self.dimension, numbers.Integral):
            raise TypeError(f"dimension: expected 2 or 3, got {self.dimension!r}")
        dimension = int(self.dimension)
        if dimension not in (2, 3):
            raise InvalidProblem(f"dimension: expected 2 or 3, got {dimension}")
        if not isinstance(law, str):
            raise TypeError(f"law: expected 'coulomb' or 'convex', got {law!r}")
        b = _vector(self.b, "b")
        return _perp.solve_global_friction_contact(
            dimension, _sparse_operator(self.M, "M"), _sparse_operator(self.H, "H"), _vector(self.q, "q"), b,
            _vector_or_scalar(self.mu, "mu", b.size // dimension), law, _method(method), _real(tol, "tol"),
            _max_iter(max_iter), _optional_vector(warm_start, "warm_start"), method_options)

    def velocity(self, r) -> np.ndarray:
        import scipy.sparse
        import scipy.sparse.linalg
        return scipy.sparse.linalg.spsolve(scipy.sparse.csc_matrix(self.M),
                                           scipy.sparse.csc_matrix(self.H) @ np.asarray(r, dtype=float)
                                           + np.asarray(self.q, dtype=float))

    def _fclib(self) -> dict:
        return {"kind": "global", "dimension": int(self.dimension), "M": _sparse_operator(self.M, "M"),
                "H": _sparse_operator(self.H, "H"), "q": _vector(self.q, "q"), "b": _vector(self.b, "b"),
                "mu": _vector(self.mu, "mu")}


def _csc(t):
    import scipy.sparse
    rows, cols, indptr, indices, values = t
    return scipy.sparse.csc_matrix((values, indices, indptr), shape=(rows, cols))


def _is_fclib(path: str) -> bool:
    if os.path.splitext(path)[1].lower() in (".hdf5", ".h5"):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(8) == b"\x89HDF\r\n\x1a\n"
    except OSError:
        return False


def read_fclib(path) -> dict:
    """Everything an fclib (HDF5) file holds: ``problem`` (a :class:`FrictionContact` for
    /fclib_local, a :class:`GlobalFrictionContact` for /fclib_global), ``solution`` (None or a dict
    of v, u, r arrays), ``guesses`` (a list of such dicts), ``title``, ``description``,
    ``math_info``. The rolling-friction problem, equality constraints and corrupt files raise
    :class:`InvalidProblem` naming the file and the field."""
    d = _perp.read_fclib(_path(path))
    if d["kind"] == "local":
        problem = FrictionContact(_csc(d["W"]), d["q"], d["mu"], d["dimension"])
    else:
        problem = GlobalFrictionContact(_csc(d["M"]), _csc(d["H"]), d["q"], d["b"], d["mu"], d["dimension"])
    return {"problem": problem, "solution": d["solution"], "guesses": list(d["guesses"]), "title": d["title"],
            "description": d["description"], "math_info": d["math_info"]}


def write(path, problem, solution=None) -> None:
    """Write a problem by the file's extension: ``.hdf5``/``.h5`` fclib (a :class:`FrictionContact` or
    :class:`GlobalFrictionContact`, with an optional ``solution`` dict of r, u, v arrays), ``.dat``
    Siconos (:func:`write_siconos`), ``.json`` (:func:`write_json`)."""
    p = _path(path)
    extension = os.path.splitext(p)[1].lower()
    if extension in (".hdf5", ".h5"):
        if isinstance(problem, GlobalFrictionContact):
            data = problem._fclib()
        elif isinstance(problem, FrictionContact):
            data = {"kind": "local", "dimension": int(problem.dimension), "W": _sparse_operator(problem.W, "W"),
                    "q": _vector(problem.q, "q"), "mu": _vector(problem.mu, "mu")}
        else:
            raise TypeError(f"problem: an fclib file holds a FrictionContact or GlobalFrictionContact, got "
                            f"{type(problem).__name__}")
        if solution is not None and not isinstance(solution, dict):
            solution = {"r": getattr(solution, "r", None), "u": getattr(solution, "u", None),
                        "v": getattr(solution, "v", None)}
        _perp.write_fclib(p, data, solution)
        return
    if solution is not None:
        raise ValueError("solution: only an fclib file (.hdf5) stores one")
    if extension == ".json":
        write_json(p, problem)
    else:
        write_siconos(p, problem)
