"""Box LCP, MLCP, QP, NCP/MCP and frictional contact: hand-derived solutions, residuals recomputed."""

import numpy as np
import pytest
import scipy.sparse

import perp


def box_residual(M, q, lo, hi, z):
    w = M @ z + q
    return float(np.max(np.abs(z - np.clip(z - w, lo, hi))))


@pytest.mark.parametrize("method", perp.BOX_LCP_METHODS)
def test_box_lcp_clipped_at_upper_bound(method):
    # unconstrained minimizer z = 2, clipped to hi = 1, where w = 2·1 − 4 = −2 <= 0
    r = perp.solve_box([[2.0]], [-4.0], 0.0, 1.0, method=method, tol=1e-10)
    assert r.solved, r.message
    assert r.z[0] == pytest.approx(1.0, abs=1e-9)
    assert r.w[0] == pytest.approx(-2.0, abs=1e-8)
    assert box_residual(np.array([[2.0]]), np.array([-4.0]), 0.0, 1.0, r.z) <= 1e-9


def test_box_lcp_with_friction_coupling():
    # z0 = 1 (w0 = 0); z1 in [-mu z0, mu z0] = [-0.5, 0.5]: the free value 2 is clipped to 0.5, w1 = -1.5
    M = np.eye(2)
    q = np.array([-1.0, -2.0])
    r = perp.solve_box(M, q, [0.0, -np.inf], [np.inf, np.inf], friction=[(1, 0, 0.5)], tol=1e-10)
    assert r.solved, r.message
    np.testing.assert_allclose(r.z, [1.0, 0.5], atol=1e-9)
    np.testing.assert_allclose(r.w, M @ r.z + q, atol=1e-12)
    with pytest.raises(TypeError, match=r"friction\[0\]"):
        perp.solve_box(M, q, 0, 1, friction=[(1, 0)])
    with pytest.raises(perp.InvalidProblem):
        perp.solve_box(M, q, 0, 1, friction=[(1, 1, 0.5)])  # index == normal
    with pytest.raises(perp.InvalidProblem, match="lower|lo"):
        perp.solve_box(M, q, [1.0, 0.0], [0.0, 1.0])  # lo > hi


@pytest.mark.parametrize("method", perp.MLCP_METHODS)
def test_mlcp_by_hand(method):
    # 2u + v − 2 = 0, 0 <= v ⊥ −u + v − 1 >= 0: v > 0 gives u = v − 1, 3v = 4: (u, v) = (1/3, 4/3)
    A, B, C, D = [[2.0]], [[1.0]], [[1.0]], [[-1.0]]
    a, b = [-2.0], [-1.0]
    r = perp.solve_mlcp(A, B, C, D, a, b, method=method, tol=1e-10)
    assert isinstance(r, perp.MlcpResult)
    assert r.solved, r.message
    assert r.u[0] == pytest.approx(1 / 3, abs=1e-8) and r.v[0] == pytest.approx(4 / 3, abs=1e-8)
    np.testing.assert_allclose(r.z, np.concatenate([r.u, r.v]))
    assert 2 * r.u[0] + r.v[0] - 2 == pytest.approx(0, abs=1e-8)
    assert r.equality_residual <= 1e-8 and r.complementarity_residual <= 1e-8


def test_mlcp_without_free_unknowns_is_an_lcp(block):
    M, q = block
    r = perp.solve_mlcp(np.zeros((0, 0)), M, None, None, np.zeros(0), q)
    assert r.solved and r.u.size == 0
    np.testing.assert_allclose(r.v, [5, 5], atol=1e-9)
    with pytest.raises(perp.InvalidProblem, match="C"):
        perp.solve_mlcp([[2.0]], [[1.0]], [[1.0, 2.0]], [[-1.0]], [-2.0], [-1.0])


def osqp_kkt(Q, c, A, l, u, r):
    """The KKT conditions of min ½xᵀQx + cᵀx s.t. l <= A x <= u recomputed from the data and r.x, r.y:
    stationarity, feasibility, the sign of y at each bound and complementarity (largest violation)."""
    x, y = r.x, r.y
    Ax = A @ x
    stationarity = np.abs(Q @ x + c + A.T @ y).max()
    feasibility = max(0.0, (l - Ax).max(), (Ax - u).max())
    # y_i > 0 needs a finite upper bound met with equality, y_i < 0 a finite lower one.
    up, down = np.maximum(y, 0), np.minimum(y, 0)
    upper = np.where(np.isfinite(u), up * np.where(np.isfinite(u), u - Ax, 0.0), up)
    lower = np.where(np.isfinite(l), down * np.where(np.isfinite(l), Ax - l, 0.0), down)
    complementarity = max(np.abs(upper).max(initial=0.0), np.abs(lower).max(initial=0.0))
    return max(stationarity, feasibility, complementarity)


def test_qp_in_osqp_form_by_hand():
    # min ½|x|² − x1 − x2 s.t. x1 + x2 <= 1: x = (½, ½), Q x + c + Aᵀ y = 0 gives y = ½ (upper side).
    Q, c, A = np.eye(2), np.array([-1.0, -1.0]), np.array([[1.0, 1.0]])
    for l in (-np.inf, 1.0):  # an inequality, then the equality x1 + x2 = 1: the same answer
        r = perp.solve_qp(Q, c, A, l=l, u=1.0, tol=1e-12)
        assert isinstance(r, perp.QpBoundsResult) and r.solved, r.message
        np.testing.assert_allclose(r.x, [0.5, 0.5], atol=1e-10)
        np.testing.assert_allclose(r.y, [0.5], atol=1e-10)
        assert r.objective == pytest.approx(-0.75)
    # x is free: min ½x² + 3x within [−10, 10] is x = −3 (the x >= 0 form would give 0), y = 0;
    # with x >= −1 only, x = −1 and y = −2 (lower side: x + 3 + y = 0).
    r = perp.solve_qp([[1.0]], [3.0], [[1.0]], l=-10, u=10, tol=1e-12)
    np.testing.assert_allclose([r.x[0], r.y[0]], [-3.0, 0.0], atol=1e-10)
    r = perp.solve_qp([[1.0]], [3.0], [[1.0]], l=-1, tol=1e-12)
    np.testing.assert_allclose([r.x[0], r.y[0]], [-1.0, -2.0], atol=1e-10)


def test_qp_in_osqp_form_random():
    # Random positive definite Q, box and two-sided rows: KKT recomputed here from x and y.
    rng = np.random.default_rng(5)
    n, k = 8, 6
    G = rng.standard_normal((n, n))
    Q = G @ G.T + np.eye(n)
    c = rng.standard_normal(n)
    A = rng.standard_normal((k, n))
    l = np.array([-1.0, -np.inf, -0.5, 0.2, -np.inf, -2.0])
    u = np.array([1.0, 0.3, np.inf, 0.2, 0.5, 2.0])
    r = perp.solve_qp(Q, c, A, l=l, u=u, tol=1e-10)
    assert r.solved, r.message
    assert osqp_kkt(Q, c, A, l, u, r) <= 1e-8


def test_qp_in_osqp_form_refusals():
    with pytest.raises(ValueError, match=r"l\[1\] = 2.0 > u\[1\] = 1.0"):
        perp.solve_qp(np.eye(2), [1.0, 1.0], np.eye(2), l=[0.0, 2.0], u=[1.0, 1.0])
    with pytest.raises(ValueError, match="two forms"):
        perp.solve_qp(np.eye(2), [1.0, 1.0], np.eye(2), [0.0, 0.0], l=0.0)
    with pytest.raises(ValueError, match="give A"):
        perp.solve_qp(np.eye(2), [1.0, 1.0], u=1.0)
    with pytest.raises(ValueError, match="expected 2 entries"):
        perp.solve_qp(np.eye(2), [1.0, 1.0], np.eye(2), u=[1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="derivatives"):
        perp.solve_qp(np.eye(2), [1.0, 1.0], np.eye(2), u=1.0, derivatives=True)


def test_qp_by_hand():
    # min (x1-1)^2 + (x2-2.5)^2 s.t. x1 + x2 <= 2: KKT gives mu = 1.5, x = (0.25, 1.75)
    Q = 2 * np.eye(2)
    c = np.array([-2.0, -5.0])
    A = np.array([[-1.0, -1.0]])
    b = np.array([-2.0])
    r = perp.solve_qp(Q, c, A, b, tol=1e-10)
    assert isinstance(r, perp.QpResult)
    assert r.solved and r.status is perp.Status.SOLVED, r.message
    np.testing.assert_allclose(r.x, [0.25, 1.75], atol=1e-9)
    np.testing.assert_allclose(r.mu, [1.5], atol=1e-9)
    np.testing.assert_allclose(r.nu, Q @ r.x + c - A.T @ r.mu, atol=1e-9)
    assert r.objective == pytest.approx(0.5 * r.x @ Q @ r.x + c @ r.x) == pytest.approx(-6.125)
    assert isinstance(r.lcp, perp.Result) and r.lcp.z.size == 3
    assert "objective" in repr(r)


def test_qp_without_constraints_and_not_psd():
    r = perp.solve_qp([[1.0]], [-3.0])
    assert r.solved and r.x[0] == pytest.approx(3.0)
    with pytest.raises(perp.InvalidProblem, match="positive semidefinite"):
        perp.solve_qp([[-1.0]], [1.0])
    with pytest.raises(perp.InvalidProblem, match="symmetric"):
        perp.solve_qp([[1.0, 2.0], [0.0, 1.0]], [1.0, 1.0])
    with pytest.raises(ValueError, match="both or neither"):
        perp.solve_qp([[1.0]], [1.0], A=[[1.0]])


def F(z):
    return np.array([2 * z[0] + z[1] ** 2 - 1, z[1] - z[0] + 1])


def J(z):
    return np.array([[2.0, 2 * z[1]], [-1.0, 1.0]])


@pytest.mark.parametrize("method", ["newton-fb", "newton-min", "penalized-fb", "smoothing", "path", "auto"])
def test_ncp_by_hand(method):
    # z1 = 0 with F1 = 1 - z0 >= 0 and F0 = 2 z0 - 1 = 0: z = (0.5, 0), F = (0, 0.5)
    r = perp.solve_ncp(F, J, [0.0, 0.0], method=method, tol=1e-12)
    assert r.solved, r.message
    np.testing.assert_allclose(r.z, [0.5, 0.0], atol=1e-10)
    np.testing.assert_allclose(r.w, F(r.z), atol=1e-12)
    assert float(np.max(np.abs(np.minimum(r.z, F(r.z))))) <= 1e-10


def test_ncp_numeric_jacobian():
    r = perp.solve_ncp(F, None, [1.0, 1.0], tol=1e-10)
    assert r.solved
    np.testing.assert_allclose(r.z, [0.5, 0.0], atol=1e-8)


def test_start_is_called_warm_start_everywhere():
    """solve_ncp and solve_mcp name their start warm_start, as every other solve; the old x0 still works
    with a DeprecationWarning, and giving both is refused."""
    F = lambda z: np.array([2 * z[0] + z[1] ** 2 - 1, z[1] - z[0] + 1])  # noqa: E731
    J = lambda z: np.array([[2.0, 2 * z[1]], [-1.0, 1.0]])  # noqa: E731
    r = perp.solve_ncp(F, J, warm_start=[0.0, 0.0], tol=1e-12)
    assert np.allclose(r.z, [0.5, 0.0])
    with pytest.warns(DeprecationWarning, match="warm_start"):
        old = perp.solve_ncp(F, J, x0=[0.0, 0.0], tol=1e-12)
    assert np.allclose(old.z, r.z)
    with pytest.warns(DeprecationWarning, match="warm_start"):
        boxed = perp.solve_mcp(F, J, [-0.5, -0.5], np.inf, x0=[0.0, 0.0], tol=1e-12)
    assert np.allclose(boxed.z, [0.375, -0.5])
    with pytest.raises(ValueError, match="give the start once"):
        perp.solve_ncp(F, J, warm_start=[0.0, 0.0], x0=[0.0, 0.0])
    with pytest.raises(ValueError, match="warm_start is needed"):
        perp.solve_ncp(F, J)


def test_mcp_by_hand():
    # on [-0.5, inf)^2: z1 sits at its lower bound -0.5 (F1 = 0.125 >= 0) and F0 = 2 z0 + 0.25 - 1 = 0
    r = perp.solve_mcp(F, J, [-0.5, -0.5], np.inf, method="newton-min", tol=1e-12)
    assert r.solved, r.message
    np.testing.assert_allclose(r.z, [0.375, -0.5], atol=1e-10)
    np.testing.assert_allclose(r.w, [0.0, 0.125], atol=1e-10)


@pytest.mark.parametrize("method", ["newton-fb", "newton-min", "path", "auto"])
def test_sparse_jacobian_ncp_by_hand(method):
    # The same NCP with J given as a scipy.sparse matrix (sparse=True): the same answer.
    r = perp.solve_ncp(F, lambda z: scipy.sparse.csr_matrix(J(z)), [0.0, 0.0], method=method, tol=1e-12, sparse=True)
    assert r.solved, r.message
    np.testing.assert_allclose(r.z, [0.5, 0.0], atol=1e-10)


def obstacle_1d(n=99):
    # -u'' = -8 on (0, 1), u(0) = u(1) = 0, u >= -1/4, h = 1/100: the exact discrete solution is
    # 4(x - 1/4)^2 - 1/4 on [0, 1/4], -1/4 on [1/4, 3/4], 4(x - 3/4)^2 - 1/4 on [3/4, 1] (the contact
    # ends are nodes and the second difference of a quadratic is exact).
    h = 1.0 / (n + 1)
    A = scipy.sparse.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csc") / h**2
    x = h * np.arange(1, n + 1)
    exact = np.where(x <= 0.25, 4 * (x - 0.25) ** 2 - 0.25, np.where(x >= 0.75, 4 * (x - 0.75) ** 2 - 0.25, -0.25))
    return A, exact


@pytest.mark.parametrize("method", ["path", "newton-min", "newton-fb"])
def test_sparse_mcp_obstacle(method):
    A, exact = obstacle_1d()
    r = perp.solve_mcp(lambda u: A @ u + 8.0, lambda u: A, -0.25, np.inf, warm_start=np.zeros(99), method=method,
                       tol=1e-11, sparse=True)
    assert r.solved, r.message
    np.testing.assert_allclose(r.z, exact, atol=1e-8)
    w = A @ r.z + 8.0
    assert float(np.max(np.abs(r.z - np.maximum(-0.25, r.z - w)))) <= 1e-8


def test_sparse_jacobian_errors():
    A, _ = obstacle_1d()
    with pytest.raises(TypeError, match="scipy.sparse matrix when sparse=True"):
        perp.solve_mcp(lambda u: A @ u + 8.0, lambda u: A.toarray(), -0.25, np.inf, warm_start=np.zeros(99), sparse=True)
    with pytest.raises(ValueError, match="sparse=True needs J"):
        perp.solve_mcp(lambda u: A @ u + 8.0, None, -0.25, np.inf, warm_start=np.zeros(99), sparse=True)
    with pytest.raises(ValueError, match="J_sparse returned a 98x98 matrix, expected 99x99"):
        perp.solve_mcp(lambda u: A @ u + 8.0, lambda u: A[:98, :98], -0.25, np.inf, warm_start=np.zeros(99), sparse=True)


class Boom(Exception):
    pass


def test_exception_in_F_reaches_the_caller_as_itself():
    calls = []

    def bad_F(z):
        calls.append(z.copy())
        if len(calls) == 3:
            raise Boom("raised in F")
        return F(z)

    with pytest.raises(Boom, match="raised in F") as info:
        perp.solve_ncp(bad_F, J, [0.0, 0.0])
    assert any(entry.name == "bad_F" for entry in info.traceback)  # the traceback reaches into F
    with pytest.raises(ZeroDivisionError):
        perp.solve_mcp(F, lambda z: 1 / 0, [0.0, 0.0], np.inf)
    with pytest.raises(KeyError):
        perp.solve_ncp(lambda z: {}["x"], J, [0.0, 0.0])


def test_bad_callables():
    with pytest.raises(TypeError, match="F: expected a callable"):
        perp.solve_ncp(3, J, [0.0, 0.0])
    with pytest.raises(TypeError, match="F must return an array of floats"):
        perp.solve_ncp(lambda z: "abc", J, [0.0, 0.0])
    with pytest.raises(ValueError, match="F must return a 1-D array"):
        perp.solve_ncp(lambda z: np.zeros((2, 1)), J, [0.0, 0.0])
    with pytest.raises(perp.InvalidProblem, match="F"):
        perp.solve_ncp(lambda z: np.zeros(3), J, [0.0, 0.0])  # wrong size: the library's check
    with pytest.raises(perp.InvalidProblem):
        perp.solve_ncp(lambda z: np.array([np.nan, 0.0]), J, [0.0, 0.0])
    with pytest.raises(ValueError, match="J must return a 2-D array"):
        perp.solve_ncp(F, lambda z: np.zeros(4), [1.0, 1.0])
    with pytest.raises(perp.InvalidProblem, match="lemke|method"):
        perp.solve_ncp(F, J, [0.0, 0.0], method="lemke")


def fc_check(W, q, mu, d, r, tol=1e-9):
    """Contact by contact: r in the cone, u_N >= 0 and the De Saxcé complementarity, in numpy."""
    W = W.toarray() if hasattr(W, "toarray") else np.asarray(W)
    u = W @ r + q
    for i in range(len(mu)):
        ri, ui = r[i * d:(i + 1) * d], u[i * d:(i + 1) * d]
        assert np.linalg.norm(ri[1:]) <= mu[i] * ri[0] + tol
        assert ui[0] >= -tol
        uhat = ui.copy()
        uhat[0] += mu[i] * np.linalg.norm(ui[1:])
        assert abs(ri @ uhat) <= tol
    return u


@pytest.mark.parametrize("method", perp.FRICTION_CONTACT_METHODS)
def test_friction_contact_2d_stick_and_slide(method):
    W = np.eye(4)
    # contact 0 sticks: r = -q = (1, -0.2), |r_T| <= 0.5; contact 1 slides: r = (1, -0.5), u = (0, 1.5)
    q = np.array([-1.0, 0.2, -1.0, 2.0])
    mu = np.array([0.5, 0.5])
    r = perp.solve_friction_contact(W, q, mu, method=method, tol=1e-12)
    assert isinstance(r, perp.FrictionContactResult) and r.dimension == 2
    assert r.solved, r.message
    np.testing.assert_allclose(r.r, [1.0, -0.2, 1.0, -0.5], atol=1e-8)
    np.testing.assert_allclose(r.u, [0.0, 0.0, 0.0, 1.5], atol=1e-8)
    fc_check(W, q, mu, 2, r.r)
    assert r.criteria["relative_error"] == pytest.approx(r.residual)
    assert r.criteria["signorini"] <= 1e-9 and r.criteria["coulomb"] <= 1e-9


def test_friction_contact_3d_sparse():
    W = scipy.sparse.identity(3, format="csr")
    q = np.array([-1.0, 0.3, 0.4])
    r = perp.solve_friction_contact(W, q, 1.0, dimension=3, tol=1e-12)
    assert r.solved and r.dimension == 3
    np.testing.assert_allclose(r.r, [1.0, -0.3, -0.4], atol=1e-9)
    np.testing.assert_allclose(r.u, 0.0, atol=1e-9)


def test_friction_contact_bad_input():
    with pytest.raises(ValueError, match="dimension"):
        perp.solve_friction_contact(np.eye(5), np.zeros(5), [0.5, 0.5])
    with pytest.raises(ValueError, match="dimension"):
        perp.solve_friction_contact(np.eye(4), np.zeros(4), 0.5)
    with pytest.raises(perp.InvalidProblem, match="mu"):
        perp.solve_friction_contact(np.eye(2), [-1.0, 0.0], [-0.5])
    with pytest.raises(perp.InvalidProblem, match="W"):
        perp.solve_friction_contact(np.eye(3), [-1.0, 0.0], [0.5])
    with pytest.raises(perp.InvalidProblem):
        perp.solve_friction_contact(np.eye(2), [-1.0, 0.0], [0.5], dimension=4)
    with pytest.raises(perp.InvalidProblem):
        perp.solve_friction_contact(np.eye(2), [-1.0, 0.0], [0.5], method="pgs")


def test_friction_contact_corpus_file():
    from conftest import DATA
    path = sorted((DATA / "fc2d").glob("*.dat"))[0]
    p = perp.read(path)
    assert isinstance(p, perp.FrictionContact) and scipy.sparse.issparse(p.W)
    r = p.solve(tol=1e-8)
    assert r.solved, r.message
    # solved to a relative error of 1e-8: the physical criteria hold to that scale
    scale = max(np.linalg.norm(p.q), np.linalg.norm(r.r), np.linalg.norm(r.u))
    fc_check(p.W, p.q, p.mu, p.dimension, r.r, tol=1e-7 * scale * max(1.0, scale))


def test_qp_infeasible_and_unbounded_with_certificates():
    # x >= 0 and -x >= 1 cannot both hold: the ray's multiplier part λ certifies it (Farkas)
    A, b = np.array([[-1.0]]), np.array([1.0])
    r = perp.solve_qp([[1.0]], [0.0], A=A, b=b)
    assert r.status is perp.Status.INFEASIBLE and r.lcp.message.startswith("the QP is infeasible")
    lam = r.lcp.ray[1:]
    assert np.all(lam >= 0) and np.all(A.T @ lam <= 0) and b @ lam > 0
    # min -x over x >= 0 is unbounded below: the ray's x part d has d >= 0, Q d = 0, c·d < 0
    Q, c = np.array([[0.0]]), np.array([-1.0])
    r = perp.solve_qp(Q, c)
    assert r.status is perp.Status.INFEASIBLE and "unbounded below" in r.lcp.message
    d = r.lcp.ray[:1]
    assert np.all(d >= 0) and np.allclose(Q @ d, 0) and c @ d < 0


def test_solve_factored_redundant_rows_by_hand():
    # One degree of freedom, two rows on it: M = [[1, 1], [1, 1]] (singular). c = (-1, -2): w_2 = 0
    # needs z_1 + z_2 = 2, then w_1 = 1 > 0 forces z_1 = 0.
    r = perp.solve_factored(np.ones((2, 1)), [1.0], [-1.0, -2.0], tol=1e-12)
    assert r.solved and r.method == "interior-point", r.message
    np.testing.assert_allclose(r.z, [0.0, 2.0], atol=1e-10)
    np.testing.assert_allclose(r.w, [1.0, 0.0], atol=1e-10)


def test_solve_factored_sparse_agrees_with_the_formed_lcp():
    rng = np.random.default_rng(3)
    A = scipy.sparse.random(30, 12, density=0.25, random_state=4, format="csr")  # more rows than dofs
    minv = rng.uniform(0.5, 1.5, 12)
    c = rng.uniform(-1.0, 0.6, 30)
    c[A.getnnz(axis=1) == 0] = 0.5  # an empty row has w = c: negative, the LCP would be infeasible
    r = perp.solve_factored(A, minv, c, tol=1e-10)
    assert r.solved, r.message
    M = (A @ scipy.sparse.diags(minv) @ A.T).toarray()
    np.testing.assert_allclose(r.w, M @ r.z + c, atol=1e-12)
    assert np.all(r.z >= 0) and np.all(r.w >= -1e-9) and abs(r.z @ r.w) <= 1e-8
    dense = perp.solve(M, c, method="lemke", tol=1e-10)
    assert dense.solved
    np.testing.assert_allclose(r.w, dense.w, atol=1e-7)  # w is unique, z need not be
    with pytest.raises(perp.InvalidProblem, match="inverse_mass"):
        perp.solve_factored(A, -minv, c)
    with pytest.raises(perp.InvalidProblem, match="A: expected"):
        perp.solve_factored(A, minv[:5], c)
