"""Status, the method names, and the solves of every problem type: ``solve`` (LCP), ``solve_factored``,
``solve_box``, ``solve_mlcp``, ``solve_qp``, ``solve_ncp``, ``solve_mcp``, ``solve_friction_contact``,
``friction_contact_residuals`` and ``solve_many`` (docs/python.md), and ``FrictionContactOptions`` (the
frictional contact methods' options, one group a method). All are re-exported by ``perp``."""

from __future__ import annotations

import enum
import numbers
import warnings
from typing import Any, Callable, Iterable, NamedTuple, Optional

import numpy as np

from . import _perp
from ._perp import FrictionContactOptions, FrictionContactResult, InvalidProblem, MlcpResult, QpResult, Result
from ._perp import (BoxLcpDerivatives, FrictionContactDerivatives, LcpDerivatives, MlcpDerivatives,
                    QpDerivatives)
from ._convert import (_callable, _dense_limit, _densify, _is_sparse, _matrix, _max_iter, _method, _optional_vector, _real,
                       _sparse_operator, _vector, _vector_or_scalar)


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
#: The LCP methods that run on a scipy.sparse M above ``DENSE_LIMIT`` without densifying it.
SPARSE_LCP_METHODS = tuple(_perp.SPARSE_LCP_METHODS)


def _with_derivatives(result, make) -> Any:
    """Sets ``result.derivatives``: the derivatives object at a solved point, None otherwise."""
    result.derivatives = make() if result.solved else None
    return result


def solve(M, q, method: str = "auto", tol: float = 1e-8, max_iter: Optional[int] = None, warm_start=None,
          derivatives: bool = False, **method_options) -> Result:
    """Solve the LCP  w = M z + q,  0 <= z ⊥ w >= 0.

    M is a 2-D array-like (n×n) or a scipy.sparse matrix, q has n entries. A scipy.sparse M is
    densified up to ``DENSE_LIMIT`` (every LCP method runs); above it, it is never densified and
    ``method`` is one of ``SPARSE_LCP_METHODS`` ("auto" is path: each linearization factored
    sparse; "pgs"/"psor" sweep its rows; docs/solvers.md, "Sparse LCPs"). Otherwise ``method`` is
    one of ``LCP_METHODS`` ("auto" picks from the structure of M). ``tol`` bounds the relative
    residual ‖min(z/Z, w/W)‖∞, Z = ‖z‖∞, W = ‖q‖∞ (``Result.relative_residual``; docs/solvers.md,
    "When a point counts as solved"; ``Result.residual`` is the plain ‖min(z, w)‖∞); ``max_iter``
    (None: the method's default) bounds pivots, sweeps or Newton steps; ``warm_start`` is the start
    z of the iterative methods. ``method_options`` are listed in docs/python.md (``relaxation``,
    ``all_solutions``, ``max_solutions``, ``time_limit``, ``record_history``, ``measure_time``,
    ``lemke={...}``, ``newton={...}``, ...). ``time_limit=S`` (seconds, every method and auto's
    whole chain) ends a longer run with status ``TIME_LIMIT`` and its last point; Ctrl-C during a
    solve raises ``KeyboardInterrupt`` within about 20 ms of an iteration (every solve of the module).

    Returns a :class:`Result`; a failure to solve is its ``status``, never an exception. With
    ``derivatives=True`` the result also has ``derivatives``: an :class:`LcpDerivatives` (``jvp``,
    ``vjp``, ``directional``; docs/sensitivity.md) when solved, else None.
    """
    if _is_sparse(M) and max(M.shape) > _dense_limit():
        if derivatives:
            raise ValueError(f"derivatives=True needs M dense; a scipy.sparse M of shape {M.shape} is above "
                             f"perp.DENSE_LIMIT = {_dense_limit()} and is solved without densifying")
        if method not in SPARSE_LCP_METHODS:
            raise ValueError(f"method: {method!r} needs M dense; a scipy.sparse M of shape {M.shape} is above "
                             f"perp.DENSE_LIMIT = {_dense_limit()}: use one of {', '.join(SPARSE_LCP_METHODS)}")
        return _perp.solve_sparse_lcp(_sparse_operator(M, "M"), _vector(q, "q"), _method(method),
                                      _real(tol, "tol"), _max_iter(max_iter),
                                      _optional_vector(warm_start, "warm_start"), method_options)
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
    (frictionless, Anitescu–Potra), singular where rows are redundant. "interior-point", "auto",
    "pgs" and "psor" work on the factors (docs/solvers.md, "LCPs given by their factors"); any
    other LCP method on the formed matrix. Returns a :class:`Result`, judged as an LCP's.
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


class QpBoundsResult(NamedTuple):
    """A QP in the form  l <= A x <= u  (x free), solved by ``solve_qp(..., l=, u=)`` through its KKT MLCP.

    ``y`` are the multipliers of the rows with the convention of OSQP: Q x + c + Aᵀ y = 0, y_i >= 0
    where the upper bound is active, <= 0 where the lower one is, 0 where neither is. ``mlcp`` is the
    KKT MLCP's result (u = x, v = the multipliers of the finite lower bounds then the finite upper
    ones), whose status and residuals are the solve's.
    """
    x: np.ndarray
    y: np.ndarray
    objective: float
    status: Any
    message: str
    mlcp: Any

    @property
    def solved(self) -> bool:
        return self.mlcp.solved


def _solve_qp_bounds(Q, c, A, l, u, method, tol, max_iter, method_options) -> QpBoundsResult:
    """min ½ xᵀQx + cᵀx  s.t.  l <= A x <= u, x free: the MLCP of its KKT conditions,
    Q x + c − A_Lᵀ λ_L + A_Uᵀ λ_U = 0,  0 <= λ_L ⊥ A_L x − l_L >= 0,  0 <= λ_U ⊥ u_U − A_U x >= 0,
    over the rows L with a finite lower bound and U with a finite upper one."""
    cv = _vector(c, "c")
    n = cv.size
    Qm = _matrix(Q, "Q")
    if A is None:
        raise ValueError("l and u bound A x: give A (k×n) with them")
    Am = _matrix(A, "A")
    k = Am.shape[0]
    if Am.shape[1] != n:
        raise ValueError(f"A: expected {n} columns (c's size), got shape {Am.shape}")
    lv = np.full(k, -np.inf) if l is None else _vector_or_scalar(l, "l", k)
    uv = np.full(k, np.inf) if u is None else _vector_or_scalar(u, "u", k)
    for name, v in (("l", lv), ("u", uv)):
        if v.size != k:
            raise ValueError(f"{name}: expected {k} entries (A's rows), got {v.size}")
    for name, v in (("l", lv), ("u", uv)):
        bad = np.flatnonzero(np.isnan(v))
        if bad.size:
            raise ValueError(f"{name}[{bad[0]}] is NaN")
    bad = np.flatnonzero(lv > uv)
    if bad.size:
        i = bad[0]
        raise ValueError(f"l[{i}] = {lv[i]!r} > u[{i}] = {uv[i]!r}: row {i} of A x has no feasible value")
    bad = np.flatnonzero(np.isposinf(lv) | np.isneginf(uv))
    if bad.size:
        i = bad[0]
        raise ValueError(f"row {i}: l[{i}] = {lv[i]!r}, u[{i}] = {uv[i]!r}: a bound at the wrong infinity")
    lower = np.flatnonzero(np.isfinite(lv))
    upper = np.flatnonzero(np.isfinite(uv))
    D = np.vstack([Am[lower], -Am[upper]])
    C = np.hstack([-Am[lower].T, Am[upper].T])
    b = np.concatenate([-lv[lower], uv[upper]])
    m = b.size
    mlcp = solve_mlcp(Qm, np.zeros((m, m)), C, D, cv, b, method=method, tol=tol, max_iter=max_iter, **method_options)
    x = np.asarray(mlcp.u, dtype=float)
    y = np.zeros(k)
    lam = np.asarray(mlcp.v, dtype=float)
    np.subtract.at(y, lower, lam[:lower.size])
    np.add.at(y, upper, lam[lower.size:])
    objective = float(0.5 * x @ Qm @ x + cv @ x)
    return QpBoundsResult(x, y, objective, mlcp.status, mlcp.message, mlcp)


def solve_qp(Q, c, A=None, b=None, method: str = "auto", tol: float = 1e-8, max_iter: Optional[int] = None,
             warm_start=None, derivatives: bool = False, *, l=None, u=None, **method_options):
    """Solve the convex QP  min ½ xᵀQx + cᵀx  s.t.  A x >= b,  x >= 0  through its KKT LCP.

    Q symmetric PSD (n×n), A k×n (None: k = 0). The result has ``x``, ``mu`` (of A x >= b), ``nu``
    (of x >= 0), ``objective`` and ``lcp`` (the KKT LCP's :class:`Result`). Methods: ``LCP_METHODS``.

    OSQP's form instead:  ``solve_qp(Q, c, A, l=l, u=u)``  solves  min ½ xᵀQx + cᵀx  s.t.
    l <= A x <= u  with x **free** (no x >= 0; l_i = u_i for an equality, ±inf for a missing side,
    scalars broadcast) through its KKT MLCP, and returns a :class:`QpBoundsResult` (``x``, ``y`` with
    Q x + c + Aᵀ y = 0, ``objective``, ``status``, ``solved``, ``mlcp``). Methods: ``MLCP_METHODS``;
    ``b``, ``warm_start`` and ``derivatives`` do not apply there and are refused.
    """
    if l is not None or u is not None:
        if b is not None:
            raise ValueError("b (A x >= b, x >= 0) and l, u (l <= A x <= u, x free) are two forms: give one")
        if warm_start is not None or derivatives:
            raise ValueError("warm_start and derivatives are not available in the l <= A x <= u form")
        return _solve_qp_bounds(Q, c, A, l, u, method, tol, max_iter, method_options)
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
    from .problems import Lcp

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
