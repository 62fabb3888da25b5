"""Derivatives of solutions from Python (docs/sensitivity.md): against central differences of
re-solved problems, the adjoint identity, and the degenerate and failure cases."""
import numpy as np
import pytest

import perp


def planted_lcp(rng, n):
    A = rng.uniform(-1, 1, (n, n))
    M = A.T @ A + np.eye(n)
    z = np.zeros(n)
    w = np.zeros(n)
    active = rng.random(n) < 0.5
    z[active] = rng.uniform(0.5, 2, active.sum())
    w[~active] = rng.uniform(0.5, 2, (~active).sum())
    return M, w - M @ z, z


def test_lcp_jvp_matches_central_differences():
    rng = np.random.default_rng(1)
    M, q, z = planted_lcp(rng, 6)
    r = perp.solve(M, q, method="lemke", tol=1e-13, derivatives=True)
    assert r.solved
    d = r.derivatives
    assert not d.degenerate and d.differentiable
    dM, dq = rng.uniform(-1, 1, (6, 6)), rng.uniform(-1, 1, 6)
    h = 1e-6
    plus = perp.solve(M + h * dM, q + h * dq, method="lemke", tol=1e-13).z
    minus = perp.solve(M - h * dM, q - h * dq, method="lemke", tol=1e-13).z
    fd = (plus - minus) / (2 * h)
    assert np.linalg.norm(d.jvp(dM, dq) - fd) <= 1e-6 * np.linalg.norm(fd)


def test_lcp_vjp_is_the_adjoint():
    rng = np.random.default_rng(2)
    M, q, z = planted_lcp(rng, 5)
    d = perp.LcpDerivatives(M, q, z)
    dM, dq, z_bar = rng.uniform(-1, 1, (5, 5)), rng.uniform(-1, 1, 5), rng.uniform(-1, 1, 5)
    M_bar, q_bar = d.vjp(z_bar)
    assert z_bar @ d.jvp(dM, dq) == pytest.approx(np.sum(M_bar * dM) + q_bar @ dq, rel=1e-12, abs=1e-13)


def test_degenerate_point_rule_and_directional():
    d = perp.LcpDerivatives([[1.0]], [0.0], [0.0])
    assert d.degenerate and d.states == ["degenerate-lower"]
    dz, solve = d.directional(dq=[-1.0])
    assert solve.solved and dz[0] == pytest.approx(1.0)
    assert d.jvp(dq=[-1.0])[0] == 0.0
    assert perp.LcpDerivatives([[1.0]], [0.0], [0.0], degenerate="free").jvp(dq=[-1.0])[0] == 1.0


def test_box_lcp_directional_at_a_degenerate_bound():
    # z in [0, 1], w = z - 1: z = 1 sits at its upper bound with w = 0 (degenerate). By hand: raising q
    # moves the free minimizer 1 - t inside the box (dz = -1); lowering it pushes against the bound
    # (dz = 0); raising the bound with q lowered by as much moves z with it (dz = +1).
    d = perp.BoxLcpDerivatives([[1.0]], [-1.0], [0.0], [1.0], [], [1.0])
    assert d.degenerate
    for kwargs, expected in (({"dq": [1.0]}, -1.0), ({"dq": [-1.0]}, 0.0), ({"dq": [-1.0], "dhi": [1.0]}, 1.0)):
        dz, solve = d.directional(**kwargs)
        assert solve.solved, solve.message
        assert dz[0] == pytest.approx(expected, abs=1e-12), kwargs
    # An MLCP with no free unknown is an LCP: v = 0 with w = v + 0 = 0 is degenerate; lowering b by t
    # makes v = t (dv = 1), raising it keeps v = 0.
    m = perp.MlcpDerivatives(np.zeros((0, 0)), [[1.0]], np.zeros((0, 1)), np.zeros((1, 0)), np.zeros(0), [0.0], [0.0])
    assert m.degenerate
    for db, expected in (([-1.0], 1.0), ([1.0], 0.0)):
        dz, solve = m.directional(db=db)
        assert solve.solved and dz[0] == pytest.approx(expected, abs=1e-12), db


def test_not_a_solution_and_no_derivative_are_refused():
    with pytest.raises(perp.InvalidProblem, match="not a solution"):
        perp.LcpDerivatives(np.eye(2), [-1.0, 2.0], [0.5, 0.0])
    d = perp.LcpDerivatives(np.ones((2, 2)), [-1.0, -1.0], [0.5, 0.5])
    assert not d.differentiable
    with pytest.raises(perp.InvalidProblem, match="not locally unique"):
        d.jvp(dq=[1.0, 0.0])
    with pytest.raises(perp.InvalidProblem, match="degenerate"):
        perp.LcpDerivatives([[1.0]], [-1.0], [1.0], degenerate="sideways")


def test_unsolved_result_has_no_derivatives():
    r = perp.solve([[1.0]], [-1.0], method="pgs", max_iter=0, derivatives=True)
    if not r.solved:
        assert r.derivatives is None


def test_qp_and_box_and_mlcp_and_contact_derivatives():
    # 1-D QP: x = -c/Q, dx/dc = -1/Q.
    r = perp.solve_qp([[2.0]], [-3.0], derivatives=True)
    dx, dmu = r.derivatives.jvp(dc=[1.0])
    assert dx[0] == pytest.approx(-0.5)
    # Box LCP at its upper bound moves with it.
    r = perp.solve_box(np.eye(1), [-5.0], [-1.0], [2.0], derivatives=True)
    assert r.derivatives.states == ["at-upper"]
    assert r.derivatives.jvp(dhi=[0.25])[0] == pytest.approx(0.25)
    # MLCP: A u + a = 0 alone, u = -a/A.
    r = perp.solve_mlcp([[4.0]], np.zeros((0, 0)), None, None, [2.0], np.zeros(0), derivatives=True)
    assert r.derivatives.jvp(da=[1.0])[0] == pytest.approx(-0.25)
    # A sliding contact: r_T = -mu r_N, d r_T / d mu = -r_N.
    r = perp.solve_friction_contact(np.eye(2), [-1.0, 2.0], [0.5], tol=1e-12, derivatives=True)
    assert r.solved
    assert r.derivatives.jvp(dmu=[1.0])[1] == pytest.approx(-1.0)


def test_torch_function_gradients():
    torch = pytest.importorskip("torch", reason="torch is optional (Debian: python3-torch)")
    import perp.torch as ptorch
    rng = np.random.default_rng(4)
    M, q, z = planted_lcp(rng, 5)
    Mt = torch.tensor(M, requires_grad=True)
    qt = torch.tensor(q, requires_grad=True)
    z_bar = rng.uniform(-1, 1, 5)
    loss = (ptorch.lcp(Mt, qt, method="lemke", tol=1e-13) * torch.tensor(z_bar)).sum()
    loss.backward()
    M_bar, q_bar = perp.LcpDerivatives(M, q, z).vjp(z_bar)
    np.testing.assert_allclose(qt.grad.numpy(), q_bar, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(Mt.grad.numpy(), M_bar, rtol=1e-12, atol=1e-14)
    # And against a central difference of the loss along q.
    dq = rng.uniform(-1, 1, 5)
    h = 1e-6
    lp = perp.solve(M, q + h * dq, method="lemke", tol=1e-13).z @ z_bar
    lm = perp.solve(M, q - h * dq, method="lemke", tol=1e-13).z @ z_bar
    assert (lp - lm) / (2 * h) == pytest.approx(q_bar @ dq, rel=1e-6)


def test_issue_38_vertex_of_a_segment_of_solutions_has_no_derivative():
    # docs/sensitivity.md's example: M = ones(2, 2), q = (-1, -1); every (1 - s, s), s in [0, 1], solves.
    # auto returns the vertex (1, 0), where z2 is degenerate and the Schur complement of the free
    # block on it is 1 - 1 = 0: no derivative. It used to report jvp = (-1, 0), and a directional
    # (-819.5, 819) beside "no solution found".
    r = perp.solve(np.ones((2, 2)), [-1.0, -1.0], derivatives=True)
    assert r.solved
    d = r.derivatives
    assert d.degenerate and not d.locally_unique and not d.differentiable
    assert "not locally unique" in d.rule and "not a P-matrix" in d.rule
    with pytest.raises(perp.InvalidProblem, match="not locally unique"):
        d.jvp(dq=[1.0, 0.0])
    with pytest.raises(perp.InvalidProblem, match="not locally unique"):
        d.vjp([1.0, 0.0])
    for dq in ([1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]):
        dz, result = d.directional(dq=dq)
        assert dz is None and str(result.status) == "not-applicable", (dq, result.message)
        assert "not a P-matrix" in result.message
    # a degenerate point that is strongly regular keeps its derivative: S = [[1, 3], [0, 1]] is a
    # P-matrix (its symmetric part is not definite); along q = -t (1, 1) the solution is (0, t)
    d = perp.LcpDerivatives([[1.0, 3.0], [0.0, 1.0]], [0.0, 0.0], [0.0, 0.0])
    assert d.locally_unique and d.differentiable
    dz, result = d.directional(dq=[-1.0, -1.0])
    assert result.solved
    np.testing.assert_allclose(dz, [0.0, 1.0], atol=1e-14)
