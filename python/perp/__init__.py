"""perp: linear and nonlinear complementarity problems, frictional contact, planar contact dynamics.

A five-line LCP (the two-contact block of [chapter] §1.2, docs/references.md; lambda = (5, 5)):

>>> import perp
>>> r = perp.solve([[1.75, 0.25], [0.25, 1.75]], [-10, -10], method="lemke")
>>> r.status, r.z.tolist()
(<Status.SOLVED: 'solved'>, [5.0, 5.0])

Every solve returns a result with ``status`` (a :class:`Status`), the point, its residual recomputed
from it, and how the method got there; invalid input raises :class:`InvalidProblem` (a ValueError)
or a TypeError naming the argument. See docs/python.md.
"""

from __future__ import annotations

import enum
import json as _json
import math
import numbers
import warnings
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, NamedTuple, Optional, Sequence

import numpy as np

from . import _perp
from . import contact3d as _contact3d
from .contact3d import Simulation3, Step3Report, World3
from ._perp import Body, Box, Disk, FrictionContactResult, InvalidProblem, MlcpResult, Plane, QpResult, Result, Rod, World
from ._perp import (BoxLcpDerivatives, FrictionContactDerivatives, LcpDerivatives, MlcpDerivatives,
                    QpDerivatives, StepDerivatives)
from .vec import VecEnv, VecWorld

__all__ = [
    "Status", "Result", "MlcpResult", "QpResult", "FrictionContactResult", "GlobalFrictionContactResult",
    "InvalidProblem",
    "solve", "solve_box", "solve_mlcp", "solve_qp", "solve_ncp", "solve_mcp", "solve_friction_contact",
    "friction_contact_residuals",
    "solve_factored", "solve_many", "BatchResult", "classify", "MatrixReport", "ClassAnswer", "Recommendation",
    "Lcp", "BoxLcp", "Mlcp", "Qp", "FrictionContact", "GlobalFrictionContact", "read", "read_fclib", "write", "loads", "write_siconos",
    "write_json",
    "painleve", "critical_mu", "PainleveAnalysis", "CriticalFriction", "simulate", "Simulation", "read_simulation",
    "World", "Body", "Disk", "Box", "Rod", "Plane", "moreau_jean_step", "StepReport", "painleve_world",
    "Simulation3", "World3", "Step3Report", "VecWorld", "VecEnv",
    "LcpDerivatives", "BoxLcpDerivatives", "MlcpDerivatives", "QpDerivatives", "FrictionContactDerivatives",
    "StepDerivatives",
    "METHODS", "LCP_METHODS", "BOX_LCP_METHODS", "MLCP_METHODS", "FRICTION_CONTACT_METHODS", "DENSE_LIMIT",
]

__version__ = "0.1.0"


class Status(enum.Enum):
    """The outcome of a solve; ``str(status)`` is the spelling of the CLI and of the JSON files."""

    SOLVED = "solved"
    INFEASIBLE = "infeasible"
    RAY_TERMINATION = "ray-termination"
    MAX_ITERATIONS = "max-iterations"
    NUMERICAL_FAILURE = "numerical-failure"
    NOT_APPLICABLE = "not-applicable"
    NO_SOLUTION_FOUND = "no-solution-found"
    TIME_LIMIT = "time-limit"
    INTERRUPTED = "interrupted"
    NOT_RUN = "not-run"

    def __str__(self) -> str:
        return self.value


if [s.value for s in Status] != list(_perp.STATUS_NAMES):  # pragma: no cover - a build out of step
    raise ImportError(f"perp: the compiled module's statuses {list(_perp.STATUS_NAMES)} do not match perp.Status")
_perp._register_status_type(Status)

#: Every method name, and those each problem type accepts.
METHODS = tuple(_perp.METHOD_NAMES)
LCP_METHODS = tuple(_perp.LCP_METHODS)
BOX_LCP_METHODS = tuple(_perp.BOX_LCP_METHODS)
MLCP_METHODS = tuple(_perp.MLCP_METHODS)
FRICTION_CONTACT_METHODS = tuple(_perp.FRICTION_CONTACT_METHODS)

#: The largest n for which a scipy.sparse M is densified for the (dense) LCP, box-LCP, MLCP, QP
#: and classify code: n^2 doubles, 128 MB at 4000. Raise it (perp.DENSE_LIMIT = ...) to go further.
DENSE_LIMIT = 4000


# -------------------------------------------------------------------------------------------------
# Argument conversion: lists, float32, integer and non-contiguous arrays are converted as numpy
# would; other dtypes, wrong dimensions and non-callables are refused with the argument's name.

def _is_sparse(x: Any) -> bool:
    return type(x).__module__.startswith("scipy.sparse")


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _check_compressed(x: Any, name: str, major: int, minor: int, fmt: str) -> None:
    """The arrays of a CSC/CSR (or BSR, in blocks) matrix as scipy would trust them: indptr of major + 1
    entries, starting at 0, nondecreasing, ending at nnz = len(indices) = len(data); indices in
    [0, minor). scipy's own conversions read them unchecked (an index past the shape frees twice)."""
    indptr = np.asarray(x.indptr)
    indices = np.asarray(x.indices)
    what = "column" if fmt in ("csr", "bsr") else "row"
    if indptr.ndim != 1 or indptr.shape[0] != major + 1:
        raise ValueError(f"{name}: {fmt} indptr has {indptr.size} entries, expected {major + 1} (its shape "
                         f"{x.shape} gives {major} {'rows' if fmt != 'csc' else 'columns'}, plus one)")
    if indptr[0] != 0:
        raise ValueError(f"{name}: {fmt} indptr[0] is {int(indptr[0])}, expected 0")
    steps = np.diff(indptr)
    if steps.size and (steps < 0).any():
        k = _first_bad(steps < 0)
        raise ValueError(f"{name}: {fmt} indptr decreases at position {k + 1}: indptr[{k}] = {int(indptr[k])}, "
                         f"indptr[{k + 1}] = {int(indptr[k + 1])} (it must be nondecreasing)")
    nnz = int(indptr[-1])
    data_count = np.asarray(x.data).shape[0]
    if indices.ndim != 1 or indices.shape[0] != nnz or data_count != nnz:
        raise ValueError(f"{name}: {fmt} indptr[-1] = {nnz} (the number of stored entries), but indices has "
                         f"{indices.size} and data {data_count}")
    bad = (indices < 0) | (indices >= minor)
    if bad.any():
        k = _first_bad(bad)
        raise ValueError(f"{name}: {fmt} indices[{k}] = {int(indices[k])} is out of range: a {what} index of a "
                         f"matrix of shape {x.shape} must be in [0, {minor})")


def _checked_sparse(x: Any, name: str) -> Any:
    """A scipy.sparse matrix whose index arrays are checked (a ValueError naming the array and the
    position otherwise), as CSC with sorted indices and duplicates summed."""
    shape = tuple(int(v) for v in x.shape)
    if len(shape) != 2 or min(shape) < 0:
        raise ValueError(f"{name}: expected a 2-D shape, got {x.shape}")
    rows, cols = shape
    fmt = getattr(x, "format", "")
    if fmt == "csc":
        _check_compressed(x, name, cols, rows, "csc")
    elif fmt == "csr":
        _check_compressed(x, name, rows, cols, "csr")
    elif fmt == "bsr":
        br, bc = x.blocksize
        if br <= 0 or bc <= 0 or rows % br or cols % bc:
            raise ValueError(f"{name}: bsr blocksize {x.blocksize} does not divide the shape {x.shape}")
        data = np.asarray(x.data)
        if data.ndim != 3 or data.shape[1:] != (br, bc):
            raise ValueError(f"{name}: bsr data has shape {data.shape}, expected (blocks, {br}, {bc})")
        _check_compressed(x, name, rows // br, cols // bc, "bsr")
    elif fmt == "coo":
        row, col = np.asarray(x.row), np.asarray(x.col)
        count = np.asarray(x.data).shape[0]
        if row.shape != (count,) or col.shape != (count,):
            raise ValueError(f"{name}: coo row, col and data have {row.size}, {col.size} and {count} entries; "
                             "expected the same number")
        for label, index, bound in (("row", row, rows), ("col", col, cols)):
            bad = (index < 0) | (index >= bound)
            if bad.any():
                k = _first_bad(bad)
                raise ValueError(f"{name}: coo {label}[{k}] = {int(index[k])} is out of range: must be in "
                                 f"[0, {bound}) for a matrix of shape {x.shape}")
    C = x.tocsc(copy=True)
    C.sum_duplicates()  # sorts the indices too
    return C


def _densify(x: Any, name: str) -> np.ndarray:
    x = _checked_sparse(x, name)
    rows, cols = x.shape
    if max(rows, cols) > DENSE_LIMIT:
        raise ValueError(
            f"{name}: a scipy.sparse matrix of shape {x.shape} would be densified for this problem type "
            f"({rows * cols * 8 / 1e6:.0f} MB), whose methods take a dense matrix; above perp.DENSE_LIMIT = "
            f"{DENSE_LIMIT} pass a dense array or raise perp.DENSE_LIMIT")
    return x.toarray()


def _array(x: Any, name: str, ndim: int) -> np.ndarray:
    if type(x) is np.ndarray and x.dtype == np.float64 and x.ndim == ndim:
        return x  # the fast path: the compiled side reads it as it is
    if _is_sparse(x):
        if ndim != 2:
            raise TypeError(f"{name}: expected a 1-D array, got a scipy.sparse matrix")
        x = _densify(x, name)
    if x is None:
        raise TypeError(f"{name}: expected an array of real numbers, got None")
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as error:  # ragged nested lists
        raise ValueError(f"{name}: cannot be read as a {ndim}-D array ({error})") from None
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got an array of dtype {a.dtype}")
    if a.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-D array, got shape {a.shape}")
    return np.asarray(a, dtype=np.float64, order="F")


def _matrix(x: Any, name: str) -> np.ndarray:
    return _array(x, name, 2)


def _vector(x: Any, name: str) -> np.ndarray:
    return _array(x, name, 1)


def _vector_or_scalar(x: Any, name: str, n: int) -> np.ndarray:
    """A 1-D array of n entries, or a scalar broadcast to n entries."""
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return np.full(n, float(x))
    return _vector(x, name)


def _optional_vector(x: Any, name: str) -> Optional[np.ndarray]:
    return None if x is None else _vector(x, name)


def _method(method: Any) -> str:
    if type(method) is not str:
        raise TypeError(f"method: expected a method name (str) such as 'lemke', got {type(method).__name__}")
    return method


def _real(x: Any, name: str) -> float:
    if type(x) is float:
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__}")
    return float(x)


def _max_iter(x: Any) -> Any:
    if x is None or type(x) is int:
        return x
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"max_iter: expected an int or None, got {type(x).__name__}")
    return int(x)


def _callable(f: Any, name: str) -> Callable:
    if not callable(f):
        raise TypeError(f"{name}: expected a callable taking and returning numpy arrays, got {type(f).__name__}")
    return f


# -------------------------------------------------------------------------------------------------
# Solves.

def _with_derivatives(result, make) -> Any:
    """Sets ``result.derivatives``: the derivatives object at a solved point, None otherwise."""
    result.derivatives = make() if result.solved else None
    return result


def solve(M, q, method: str = "auto", tol: float = 1e-8, max_iter: Optional[int] = None, warm_start=None,
          derivatives: bool = False, **method_options) -> Result:
    """Solve the LCP  w = M z + q,  0 <= z ⊥ w >= 0.

    M is a 2-D array-like (n×n) or a scipy.sparse matrix (densified up to ``DENSE_LIMIT``: every LCP
    method is dense), q has n entries. ``method`` is one of ``LCP_METHODS`` ("auto" picks from the
    structure of M); ``tol`` bounds the natural residual ‖min(z, w)‖∞; ``max_iter`` (None: the
    method's default) bounds pivots, sweeps or Newton steps; ``warm_start`` is the start z of the
    iterative methods. ``method_options`` are listed in docs/python.md (``relaxation``,
    ``all_solutions``, ``max_solutions``, ``time_limit``, ``record_history``, ``measure_time``,
    ``lemke={...}``, ``newton={...}``, ...). ``time_limit=S`` (seconds, every method and auto's
    whole chain) ends a longer run with status ``TIME_LIMIT`` and its last point; Ctrl-C during a
    solve raises ``KeyboardInterrupt`` within about 20 ms of an iteration (every solve of the module).

    Returns a :class:`Result`; a failure to solve is its ``status``, never an exception. With
    ``derivatives=True`` the result also has ``derivatives``: an :class:`LcpDerivatives` (``jvp``,
    ``vjp``, ``directional``; docs/sensitivity.md) when solved, else None.
    """
    Ma, qa = _matrix(M, "M"), _vector(q, "q")
    result = _perp.solve_lcp(Ma, qa, _method(method), _real(tol, "tol"),
                             _max_iter(max_iter), _optional_vector(warm_start, "warm_start"), method_options)
    if derivatives:
        _with_derivatives(result, lambda: LcpDerivatives(Ma, qa, result.z))
    return result


def solve_factored(A, inverse_mass, c, method: str = "auto", tol: float = 1e-8, max_iter: Optional[int] = None,
                   warm_start=None, **method_options) -> Result:
    """Solve the LCP  w = A diag(inverse_mass) Aᵀ z + c,  0 <= z ⊥ w >= 0,  without forming its matrix.

    ``A`` (rows × dofs) is dense or scipy.sparse, ``inverse_mass`` has dofs entries >= 0 (0: a fixed
    degree of freedom), ``c`` has rows entries: the convex contact problems of a time step
    (frictionless, Anitescu–Potra), singular where rows are redundant. "interior-point" and "auto"
    work on the factors (docs/solvers.md, "LCPs given by their factors"); any other LCP method on
    the formed matrix. Returns a :class:`Result`, judged as an LCP's.
    """
    result = _perp.solve_factored_lcp(_sparse_operator(A, "A"), _vector(inverse_mass, "inverse_mass"),
                                      _vector(c, "c"), _method(method), _real(tol, "tol"), _max_iter(max_iter),
                                      _optional_vector(warm_start, "warm_start"), method_options)
    return result


def solve_box(M, q, lo, hi, friction: Iterable[tuple] = (), method: str = "auto", tol: float = 1e-8,
              max_iter: Optional[int] = None, warm_start=None, derivatives: bool = False, **method_options) -> Result:
    """Solve the box LCP  lo <= z <= hi,  w = M z + q,  z = mid(lo, hi, z − w).

    ``lo``/``hi`` are arrays of n entries or scalars (±inf allowed); ``friction`` lists couplings
    ``(index, normal, mu)``: −mu|z[normal]| <= z[index] <= mu|z[normal]| (ODE's findex; the bounds of
    ``index`` are then ignored). Methods: ``BOX_LCP_METHODS``.
    """
    Ma = _matrix(M, "M")
    qa = _vector(q, "q")
    couplings = []
    for k, entry in enumerate(friction):
        try:
            index, normal, mu = entry
        except (TypeError, ValueError):
            raise TypeError(f"friction[{k}]: expected a tuple (index, normal, mu), got {entry!r}") from None
        couplings.append((index, normal, mu))
    lo_v, hi_v = _vector_or_scalar(lo, "lo", qa.size), _vector_or_scalar(hi, "hi", qa.size)
    result = _perp.solve_box(Ma, qa, lo_v, hi_v, couplings, _method(method), _real(tol, "tol"), _max_iter(max_iter),
                             _optional_vector(warm_start, "warm_start"), method_options)
    if derivatives:
        _with_derivatives(result, lambda: BoxLcpDerivatives(Ma, qa, lo_v, hi_v, couplings, result.z))
    return result


def solve_mlcp(A, B, C, D, a, b, method: str = "auto", tol: float = 1e-8, max_iter: Optional[int] = None,
               warm_start=None, derivatives: bool = False, **method_options) -> MlcpResult:
    """Solve the mixed LCP  A u + C v + a = 0,  0 <= v ⊥ D u + B v + b >= 0  (u free, n of them; m pairs).

    ``C``/``D`` may be None when n or m is 0. The result's ``u``, ``v`` split ``z``; ``w`` is
    (A u + C v + a, D u + B v + b). Methods: ``MLCP_METHODS``.
    """
    av = _vector(a, "a")
    bv = _vector(b, "b")
    n, m = av.size, bv.size
    Cm = np.zeros((n, m)) if C is None else _matrix(C, "C")
    Dm = np.zeros((m, n)) if D is None else _matrix(D, "D")
    Am, Bm = _matrix(A, "A"), _matrix(B, "B")
    result = _perp.solve_mlcp(Am, Bm, Cm, Dm, av, bv, _method(method), _real(tol, "tol"),
                              _max_iter(max_iter), _optional_vector(warm_start, "warm_start"), method_options)
    if derivatives:
        _with_derivatives(result, lambda: MlcpDerivatives(Am, Bm, Cm, Dm, av, bv, result.z))
    return result


def solve_qp(Q, c, A=None, b=None, method: str = "auto", tol: float = 1e-8, max_iter: Optional[int] = None,
             warm_start=None, derivatives: bool = False, **method_options) -> QpResult:
    """Solve the convex QP  min ½ xᵀQx + cᵀx  s.t.  A x >= b,  x >= 0  through its KKT LCP.

    Q symmetric PSD (n×n), A k×n (None: k = 0). The result has ``x``, ``mu`` (of A x >= b), ``nu``
    (of x >= 0), ``objective`` and ``lcp`` (the KKT LCP's :class:`Result`). Methods: ``LCP_METHODS``.
    """
    cv = _vector(c, "c")
    Am = np.zeros((0, cv.size)) if A is None else _matrix(A, "A")
    bv = np.zeros(0) if b is None else _vector(b, "b")
    if (A is None) != (b is None):
        raise ValueError("A and b: give both or neither")
    Qm = _matrix(Q, "Q")
    result = _perp.solve_qp(Qm, cv, Am, bv, _method(method), _real(tol, "tol"), _max_iter(max_iter),
                            _optional_vector(warm_start, "warm_start"), method_options)
    if derivatives:
        _with_derivatives(result, lambda: QpDerivatives(Qm, cv, Am, bv, result.x, result.mu))
    return result


def _difference_jacobian(F: Callable) -> Callable:
    def J(z: np.ndarray) -> np.ndarray:
        f0 = np.asarray(F(z), dtype=float)
        out = np.empty((f0.size, z.size))
        for j in range(z.size):
            h = 1e-7 * max(1.0, abs(z[j]))
            e = z.copy()
            e[j] += h
            out[:, j] = (np.asarray(F(e), dtype=float) - f0) / h
        return out
    return J


def _jacobian(F: Callable, J: Optional[Callable], sparse: bool):
    """J for the compiled side: as given, forward differences for None, or (sparse=True) a wrapper
    that hands the CSC arrays of the scipy.sparse matrix J returns."""
    if not isinstance(sparse, bool):
        raise TypeError(f"sparse: expected True or False, got {type(sparse).__name__}")
    if not sparse:
        return _difference_jacobian(F) if J is None else _callable(J, "J")
    if J is None:
        raise ValueError("sparse=True needs J: forward differences would form a dense Jacobian")
    _callable(J, "J")

    def sparse_J(z):
        out = J(z)
        if not _is_sparse(out):
            raise TypeError(f"J must return a scipy.sparse matrix when sparse=True, got {type(out).__name__}")
        return _sparse_operator(out, "J")
    return sparse_J


def _start(warm_start, x0, function: str):
    """The start point under its one name, ``warm_start``; ``x0`` (its old name in solve_ncp and
    solve_mcp) is accepted with a DeprecationWarning."""
    if x0 is None:
        return warm_start
    if warm_start is not None:
        raise ValueError(f"{function}: give the start once, as warm_start (x0 is its old name)")
    warnings.warn(f"{function}: x0 is now called warm_start, as in every other solve; x0 will be removed",
                  DeprecationWarning, stacklevel=3)
    return x0


def solve_ncp(F: Callable, J: Optional[Callable], warm_start=None, method: str = "auto", tol: float = 1e-8,
              max_iter: Optional[int] = None, sparse: bool = False, x0=None, **method_options) -> Result:
    """Solve the NCP  z >= 0 ⊥ F(z) >= 0  from the start point ``warm_start`` (which sets n; its old
    name ``x0`` is accepted with a DeprecationWarning).

    ``F(z)`` returns n values and ``J(z)`` the n×n Jacobian, both taking and returning numpy arrays;
    ``J=None`` uses forward differences. With ``sparse=True``, J must return a scipy.sparse matrix,
    which reaches the library sparse (never densified; docs/solvers.md, "Sparse nonlinear
    problems"). An exception raised inside F or J reaches the caller as itself. Methods: newton-fb,
    newton-min, penalized-fb, smoothing, path, auto.
    """
    start = _start(warm_start, x0, "solve_ncp")
    if start is None:
        raise ValueError("solve_ncp: warm_start is needed (the start point, which sets n)")
    x = _vector(start, "warm_start")
    _callable(F, "F")
    J = _jacobian(F, J, sparse)
    return _perp.solve_ncp(F, J, x.size, _method(method), _real(tol, "tol"), _max_iter(max_iter), x, method_options,
                           sparse)


def solve_mcp(F: Callable, J: Optional[Callable], lower, upper, warm_start=None, method: str = "auto",
              tol: float = 1e-8, max_iter: Optional[int] = None, sparse: bool = False, x0=None,
              **method_options) -> Result:
    """Solve the MCP on the box [lower, upper] (bounds may be ±inf): z = mid(lower, upper, z − F(z)).

    ``lower``/``upper`` are arrays, or scalars when ``warm_start`` gives n; ``warm_start`` (its old
    name ``x0`` is accepted with a DeprecationWarning) defaults to 0 projected on the box. F, J and
    ``sparse`` as for :func:`solve_ncp`.
    """
    x = _optional_vector(_start(warm_start, x0, "solve_mcp"), "warm_start")
    n = None
    for bound in (lower, upper, x):
        if bound is not None and not isinstance(bound, numbers.Real):
            n = _vector(bound, "bound").size
            break
    if n is None:
        raise ValueError("lower, upper, warm_start: give n, as an array for a bound or as warm_start")
    _callable(F, "F")
    J = _jacobian(F, J, sparse)
    return _perp.solve_mcp(F, J, _vector_or_scalar(lower, "lower", n), _vector_or_scalar(upper, "upper", n),
                           _method(method), _real(tol, "tol"), _max_iter(max_iter), x, method_options, sparse)


def _sparse_operator(W: Any, name: str):
    """W for the compiled side: a dense float64 array, or the CSC arrays of a scipy.sparse matrix."""
    if not _is_sparse(W):
        return _matrix(W, name)
    if W.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D matrix, got {W.ndim}-D")
    if W.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got a sparse matrix of dtype {W.dtype}")
    C = _checked_sparse(W, name)
    return (C.shape[0], C.shape[1], C.indptr.astype(np.int64), C.indices.astype(np.int64),
            np.asarray(C.data, dtype=np.float64))


def solve_friction_contact(W, q, mu, dimension: Optional[int] = None, method: str = "auto", tol: float = 1e-8,
                           max_iter: Optional[int] = None, warm_start=None, derivatives: bool = False,
                           **method_options) -> FrictionContactResult:
    """Solve the frictional contact problem  u = W r + q,  K_mu ∋ r ⊥ û ∈ K_mu*  (Coulomb, De Saxcé).

    nc contacts in dimension d ∈ {2, 3}: r, u, q have n = d·nc entries (per contact the normal slot
    first), ``mu`` nc entries (or a scalar). ``W`` is dense or scipy.sparse; sparse W reaches the
    solvers without being densified. ``dimension`` is inferred from len(q)/len(mu) when mu is an
    array. ``tol`` bounds Siconos' relative error. The result's ``r``/``u`` are ``z``/``w``, and
    ``criteria`` the physical residuals. Methods: ``FRICTION_CONTACT_METHODS``.
    """
    qv = _vector(q, "q")
    if dimension is None:
        if isinstance(mu, numbers.Real):
            raise ValueError("dimension: give it (2 or 3) when mu is a scalar")
        nc = _vector(mu, "mu").size
        if nc > 0 and qv.size == 2 * nc:
            dimension = 2
        elif nc > 0 and qv.size == 3 * nc:
            dimension = 3
        else:
            raise ValueError(f"dimension: cannot be inferred from len(q) = {qv.size} and len(mu) = {nc}; give it")
    if isinstance(dimension, bool) or not isinstance(dimension, numbers.Integral):
        raise TypeError(f"dimension: expected 2 or 3, got {dimension!r}")
    dimension = int(dimension)
    if dimension not in (2, 3):
        raise InvalidProblem(f"dimension: expected 2 or 3, got {dimension}")
    muv = _vector_or_scalar(mu, "mu", qv.size // dimension)
    if derivatives and dimension != 2:
        raise InvalidProblem("derivatives: only for dimension 2")
    result = _perp.solve_friction_contact(dimension, _sparse_operator(W, "W"), qv, muv, _method(method),
                                          _real(tol, "tol"), _max_iter(max_iter),
                                          _optional_vector(warm_start, "warm_start"), method_options)
    if derivatives:
        _with_derivatives(result, lambda: FrictionContactDerivatives(
            _densify(W, "W") if _is_sparse(W) else _matrix(W, "W"), qv, muv, result.z))
    return result


def friction_contact_residuals(W, q, mu, r, dimension: Optional[int] = None) -> dict:
    """The physical criteria of a given ``r`` in the frictional contact problem u = W r + q (the
    ``criteria`` of :func:`solve_friction_contact`'s result, recomputed from r with no solve):
    ``absolute_error``, ``relative_error`` (Siconos'), ``signorini``, ``coulomb``,
    ``complementarity``, ``dissipation``. ``dimension`` as in :func:`solve_friction_contact`."""
    qv = _vector(q, "q")
    if dimension is None:
        nc = 0 if isinstance(mu, numbers.Real) else _vector(mu, "mu").size
        if nc == 0 or qv.size not in (2 * nc, 3 * nc):
            raise ValueError(f"dimension: cannot be inferred from len(q) = {qv.size} and mu; give it")
        dimension = qv.size // nc
    if isinstance(dimension, bool) or not isinstance(dimension, numbers.Integral) or dimension not in (2, 3):
        raise InvalidProblem(f"dimension: expected 2 or 3, got {dimension!r}")
    rv = _vector(r, "r")
    if rv.size != qv.size:
        raise InvalidProblem(f"r: expected {qv.size} entries (the size of q), got {rv.size}")
    muv = _vector_or_scalar(mu, "mu", qv.size // int(dimension))
    return _perp.friction_contact_residuals(int(dimension), _sparse_operator(W, "W"), qv, muv, rv)


class BatchResult(NamedTuple):
    """:func:`solve_many` on stacked arrays: row i of each array is problem i's. ``z``, ``w`` (B × n;
    NaN rows where a problem could not be solved at all), ``status`` (B, objects: a :class:`Status`,
    or None for such a problem), ``solved`` (B, bool), ``residual`` (B, the relative residual; NaN
    there), and ``results``: the per-problem :class:`Result` objects (or the exception instances)."""

    z: np.ndarray
    w: np.ndarray
    status: np.ndarray
    solved: np.ndarray
    residual: np.ndarray
    results: list


def _stacked(problems) -> bool:
    """(Ms, qs) with Ms an array of B n×n matrices and qs of B n-vectors."""
    return (isinstance(problems, tuple) and len(problems) == 2 and isinstance(problems[0], np.ndarray)
            and problems[0].ndim == 3)


def solve_many(problems: Iterable, method: str = "auto", threads: Optional[int] = None, tol: float = 1e-8,
               max_iter: Optional[int] = None, **method_options):
    """Solve a batch of LCPs in parallel in C++: a list ``[(M, q), ...]`` (or :class:`Lcp` objects),
    returning a list; or stacked arrays ``(Ms, qs)`` with Ms of shape B × n × n and qs B × n (numpy's
    habit), returning a :class:`BatchResult` of stacked ``z``, ``w``, ``status``, ``solved``,
    ``residual``.

    Results come in input order; ``threads`` (None: one per core) C++ threads share the batch, the GIL
    released. A problem that cannot be solved at all (NaN, say) does not stop the others: its entry
    is the exception (an :class:`InvalidProblem`, TypeError or ValueError instance), not raised
    (stacked: NaN rows in z and w, status None).
    """
    if _stacked(problems):
        Ms = np.asarray(problems[0])
        qs = np.asarray(problems[1])
        B, n = Ms.shape[0], Ms.shape[1]
        if Ms.shape != (B, n, n):
            raise ValueError(f"Ms: expected B x n x n matrices, got shape {Ms.shape}")
        if qs.shape != (B, n):
            raise ValueError(f"qs: expected shape {(B, n)} (B x n, as Ms is {Ms.shape}), got {qs.shape}")
        results = solve_many([(Ms[i], qs[i]) for i in range(B)], method=method, threads=threads, tol=tol,
                             max_iter=max_iter, **method_options)
        z = np.full((B, n), np.nan)
        w = np.full((B, n), np.nan)
        status = np.empty(B, dtype=object)
        solved = np.zeros(B, dtype=bool)
        residual = np.full(B, np.nan)
        for i, r in enumerate(results):
            if isinstance(r, BaseException):
                continue
            z[i], w[i], status[i], solved[i], residual[i] = r.z, r.w, r.status, r.solved, r.relative_residual
        return BatchResult(z, w, status, solved, residual, results)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, numbers.Integral)):
        raise TypeError(f"threads: expected an int or None, got {type(threads).__name__}")
    out: list = []
    batch, where = [], []
    for i, item in enumerate(problems):
        try:
            if isinstance(item, Lcp):
                M, q = item.M, item.q
            else:
                M, q = item
            batch.append((_matrix(M, "M"), _vector(q, "q")))
            where.append(i)
            out.append(None)
        except (TypeError, ValueError) as error:
            out.append(type(error)(f"problems[{i}]: {error}"))
    solved = _perp.solve_many(batch, _method(method), threads, _real(tol, "tol"), _max_iter(max_iter),
                              method_options)
    for i, result in zip(where, solved):
        if isinstance(result, BaseException):
            result = type(result)(f"problems[{i}]: {result}")
        out[i] = result
    return out


# -------------------------------------------------------------------------------------------------
# classify.

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


# -------------------------------------------------------------------------------------------------
# Problems as objects, and their files.

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


def _path(path: Any, name: str = "path") -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: expected a str or os.PathLike, got {type(path).__name__}")
    return os.fspath(path)


def read(path) -> Any:
    """Read a problem file: Siconos ``.dat`` (LCP, MLCP, FrictionContactProblem), fclib ``.hdf5``
    (:func:`read_fclib`: a FrictionContact or GlobalFrictionContact) or perp's ``.json`` (any type). Returns an :class:`Lcp`, :class:`BoxLcp`, :class:`Mlcp`, :class:`Qp` or
    :class:`FrictionContact`; an unreadable file raises :class:`InvalidProblem` naming the position."""
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


# -------------------------------------------------------------------------------------------------
# Contact: the Painlevé rod and scene simulation.

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


class Simulation:
    """A run of :func:`simulate`: samples at t = 0 and after each step.

    ``t`` (S,); ``state`` (S, bodies, 6) with columns x, y, angle, vx, vy, omega; ``x`` … ``omega``
    (S, bodies); ``body(name)`` one body's columns; ``energy`` (kinetic, potential, total, dissipated);
    per step (S − 1 entries): ``status``, ``method``, ``iterations``, ``residual``,
    ``relative_residual``, ``fallback`` (as in :class:`StepReport`), ``solve_ms``, ``step_ms``,
    ``problem_size``; ``contacts`` the active contacts of every step as flat arrays
    (``step``, ``body_a``, ``body_b`` (-1: ground), ``point``, ``normal``, ``gap``, ``normal_impulse``,
    ``tangent_impulse``), ``contacts_at(k)`` those of step k; ``shapes``, ``names``, ``ground``."""

    _COLUMNS = ("x", "y", "angle", "vx", "vy", "omega")

    def __init__(self, data: dict):
        self.t: np.ndarray = data["t"]
        self.state: np.ndarray = data["state"]
        e = data["energy"]
        total = e[:, 2]
        self.energy = Energy(e[:, 0], e[:, 1], total, total[0] - total if total.size else total)
        self.status: list = data["status"]
        self.method: list = data["method"]
        self.iterations: np.ndarray = data["iterations"]
        self.residual: np.ndarray = data["residual"]
        self.relative_residual: np.ndarray = data["relative_residual"]
        self.fallback: list = data["fallback"]
        self.solve_ms: np.ndarray = data["solve_ms"]
        self.step_ms: np.ndarray = data["step_ms"]
        self.problem_size: np.ndarray = data["problem_size"]
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
        if name in Simulation._COLUMNS:
            return self.state[:, :, Simulation._COLUMNS.index(name)]
        raise AttributeError(name)

    def body(self, name: str) -> BodyTrajectory:
        try:
            i = self.names.index(name)
        except ValueError:
            raise KeyError(f"no body {name!r}; bodies: {', '.join(self.names)}") from None
        return BodyTrajectory(name, *(self.state[:, i, k] for k in range(6)))

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
        return (f"<perp.Simulation {len(self.names)} bodies, {self.steps} steps of {self.timestep:g} s, "
                f"{self.contacts['gap'].size} contact-steps, {self.unsolved} unsolved>")


def simulate(scene, max_bytes: float = 2e9):
    """Run a scene (a dict in the scene-file format of docs/contact.md, or the path of a .json scene).
    A scene with ``"dimension": 3`` (docs/contact3d.md) returns a :class:`Simulation3`.

    Everything is recorded in memory: a run whose recording would pass ``max_bytes`` (default 2 GB;
    estimated before it starts, checked again as contacts accumulate) raises InvalidProblem."""
    max_bytes = _real(max_bytes, "max_bytes")
    if _contact3d.is_3d(scene):
        return _contact3d.simulate3d(scene, max_bytes)
    if isinstance(scene, dict):
        try:
            text = _json.dumps(scene, allow_nan=False, default=_json_default)
        except (TypeError, ValueError) as error:
            raise InvalidProblem(f"scene: cannot be written as JSON ({error})") from None
        return Simulation(_perp.simulate_json(text, "<scene dict>", max_bytes))
    return Simulation(_perp.simulate_file(_path(scene, "scene"), max_bytes))


def _json_default(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


# -------------------------------------------------------------------------------------------------
# One step at a time: World, Body, shapes and moreau_jean_step.

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


# The step's defaults are the C++ MoreauJeanOptions' (one source: docs/contact.md).
_STEP_DEFAULTS = _perp.moreau_jean_defaults()


def moreau_jean_step(world: World, timestep: float = _STEP_DEFAULTS["timestep"],
                     theta: float = _STEP_DEFAULTS["theta"], restitution: float = _STEP_DEFAULTS["restitution"],
                     friction: float = _STEP_DEFAULTS["friction"], friction_model: str = "coulomb",
                     activation_tolerance: float = _STEP_DEFAULTS["activation_tolerance"],
                     projection: bool = _STEP_DEFAULTS["projection"], gravity=_STEP_DEFAULTS["gravity"],
                     method: str = _STEP_DEFAULTS["method"], tol: float = _STEP_DEFAULTS["tol"],
                     max_iter: Optional[int] = None, baumgarte: float = _STEP_DEFAULTS["baumgarte"],
                     slop: float = _STEP_DEFAULTS["slop"], split_impulse: bool = _STEP_DEFAULTS["split_impulse"],
                     derivatives: bool = False, degenerate: str = "bound", minimum_norm: bool = False,
                     sleeping: bool = _STEP_DEFAULTS["sleeping"], sleep_speed: float = _STEP_DEFAULTS["sleep_speed"],
                     sleep_time: float = _STEP_DEFAULTS["sleep_time"],
                     dense_pivoting_max_size: int = _STEP_DEFAULTS["dense_pivoting_max_size"],
                     **method_options) -> StepReport:
    """Advance ``world`` (in place) by one Moreau–Jean step of size ``timestep`` (docs/contact.md):
    contact detection, the velocity-level problem of the active contacts (by default the exact
    Coulomb frictional contact problem, warm-started from the last step), the velocity and position
    updates. The options are those of a scene file; ``method``/``tol``/``max_iter``/``method_options``
    go to the step's solve; ``dense_pivoting_max_size`` (int >= 0) is the largest LCP the step
    pivots on (Lemke, sparse above 200 unknowns; for Coulomb the smaller of it and ``lcp_max_size``, default 4000), ``sleeping``/``sleep_speed``/``sleep_time`` put islands at rest to
    sleep. A step whose problem is not solved still advances and says so in ``status``.

    With ``derivatives=True`` the report's ``derivatives`` is a :class:`StepDerivatives` of the
    step just taken (``jvp(q=, v=, force=, mass=, friction=, restitution=)`` gives ``(dq, dv)`` of
    the new state, ``vjp(q_bar, v_bar)`` the gradients on every input), under fixed contact
    activation; ``degenerate`` ("bound" or "free") and ``minimum_norm`` (redundant contacts whose
    impulses are not unique) choose the element at non-smooth points (docs/sensitivity.md). It
    needs the Coulomb model, no projection, no contact overlapping past ``slop`` while ``baumgarte``
    > 0 (the split impulse, on by default, acts only there), and a solved step."""
    if not isinstance(world, World):
        raise TypeError(f"world: expected a perp.World, got {type(world).__name__}")
    if not isinstance(friction_model, str):
        raise TypeError(f"friction_model: expected one of {', '.join(FRICTION_MODELS)}")
    if not isinstance(projection, (bool, np.bool_)):
        raise TypeError(f"projection: expected a bool, got {type(projection).__name__}")
    for name, flag in (("split_impulse", split_impulse), ("derivatives", derivatives),
                       ("minimum_norm", minimum_norm), ("sleeping", sleeping)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name}: expected a bool, got {type(flag).__name__}")
    if isinstance(dense_pivoting_max_size, bool) or not isinstance(dense_pivoting_max_size, numbers.Integral):
        raise TypeError(f"dense_pivoting_max_size: expected an int, got {type(dense_pivoting_max_size).__name__}")
    if not -2**63 <= dense_pivoting_max_size < 2**63:  # past int64 (the rest: validate's message)
        raise InvalidProblem(f"dense_pivoting_max_size: expected an int in [0, 2**63), got {dense_pivoting_max_size}")
    if not isinstance(degenerate, str):
        raise TypeError(f"degenerate: expected \"bound\" or \"free\", got {type(degenerate).__name__}")
    d = _perp.moreau_jean_step(world, _real(timestep, "timestep"), _real(theta, "theta"),
                               _real(restitution, "restitution"), _real(friction, "friction"), friction_model,
                               _real(activation_tolerance, "activation_tolerance"), bool(projection),
                               _vector(gravity, "gravity"), _method(method), _real(tol, "tol"), _max_iter(max_iter),
                               method_options, _real(baumgarte, "baumgarte"), _real(slop, "slop"), bool(split_impulse),
                               bool(derivatives), degenerate, bool(minimum_norm), bool(sleeping),
                               _real(sleep_speed, "sleep_speed"), _real(sleep_time, "sleep_time"),
                               int(dense_pivoting_max_size))
    return StepReport(**d)


World.step = moreau_jean_step
World.step.__doc__ = moreau_jean_step.__doc__


def painleve_world(theta: float, mu: float, theta_dot: float = 0.0, mass: float = 1.0, half_length: float = 1.0,
                   gravity: float = 9.81, sliding_speed: float = 1.0) -> World:
    """The Painlevé rod as a :class:`World`: touching the ground at angle theta, its lower end
    sliding at ``sliding_speed`` > 0 (step it with ``friction=mu`` and ``gravity=(0, -gravity)``)."""
    return _perp.painleve_world(_real(theta, "theta"), _real(mu, "mu"),
                                *_rod_arguments(theta_dot, mass, half_length, gravity),
                                _real(sliding_speed, "sliding_speed"))


def __getattr__(name: str):
    """`perp.plot` (and `perp.torch`) load on first use, so that `import perp` needs neither
    matplotlib nor torch: `import perp; perp.plot.convergence(r)` works without importing perp.plot."""
    if name in ("plot", "torch"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# fclib files (HDF5): GlobalFrictionContact, read_fclib, write (perp/fclib.py).
from .fclib import GlobalFrictionContact, GlobalFrictionContactResult, _is_fclib, read_fclib, write  # noqa: E402
from .simulation_files import read_simulation  # noqa: E402
# Rollouts of a planar scene and their gradients (perp/rollouts.py).
from .rollouts import Rollout, RolloutGradient, rollout, rollout_gradient  # noqa: E402

__all__ += ["rollout", "rollout_gradient", "Rollout", "RolloutGradient"]
