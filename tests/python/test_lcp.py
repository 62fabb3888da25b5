"""perp.solve on LCPs: values derived by hand, residuals recomputed in numpy, the Result and Status."""

import math

import numpy as np
import pytest
import scipy.sparse

import perp
from conftest import lcp_relative_residual, lcp_residual

# Methods that must solve the block exactly (every LCP method does; it is symmetric PD).
BLOCK_METHODS = ["enum", "lemke", "murty", "block-pivoting", "pgs", "psor", "newton-fb", "newton-min", "penalized-fb",
                 "smoothing", "path", "interior-point", "dantzig", "auto"]


@pytest.mark.parametrize("method", BLOCK_METHODS)
def test_block_every_method(block, method):
    M, q = block
    r = perp.solve(M, q, method=method, tol=1e-10)
    assert r.status is perp.Status.SOLVED, r.message
    assert r.solved
    np.testing.assert_allclose(r.z, [5.0, 5.0], atol=1e-8)
    # w and the residual recomputed independently of the library
    np.testing.assert_allclose(r.w, M @ r.z + q, atol=1e-12)
    assert lcp_residual(M, q, r.z) <= 1e-9
    assert r.residual == pytest.approx(lcp_residual(M, q, r.z), abs=1e-12)
    # "solved" is judged at the problem's scale: the relative residual, recomputed here.
    assert r.relative_residual <= 1e-10
    assert r.relative_residual == pytest.approx(lcp_relative_residual(M, q, r.z), rel=1e-9, abs=1e-15)
    assert r.method == method or method == "auto"


def test_block_pivoting_by_name():
    # Hand-solved (docs/solvers.md, "Block principal pivoting"): F = {0, 1, 2} gives z0 = z2 = -3/7 < 0,
    # both leave in one block exchange; F = {1}: z1 = 10/4, w0 = w2 = 2.5 - 1 = 1.5.
    M = np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]])
    q = np.array([-1.0, -10.0, -1.0])
    r = perp.solve(M, q, method="block-pivoting")
    assert r.status is perp.Status.SOLVED, r.message
    assert r.method == "block-pivoting"
    assert r.iterations == 1 and "after 1 round (block exchanges: 1)" in r.message
    np.testing.assert_array_equal(r.z, [0.0, 2.5, 0.0])
    np.testing.assert_allclose(r.w, M @ r.z + q, atol=1e-15)
    assert repr(r).startswith("<perp.Result block-pivoting: solved in 1 iteration,")
    # Started from the solution's support: no round. No solution (M = -1): declined, not solved.
    assert perp.solve(M, q, method="block-pivoting", warm_start=[0.0, 1.0, 0.0]).iterations == 0
    r = perp.solve([[-1.0]], [-1.0], method="block-pivoting")
    assert r.status is perp.Status.NOT_APPLICABLE and "not a P-matrix" in r.message
    # auto's first try at n <= 16 is the same exchange rule, and now says so.
    assert perp.solve(M, q).method == "block-pivoting"


def test_method_list_matches_the_library():
    assert set(BLOCK_METHODS) == set(perp.LCP_METHODS)
    assert "schur" not in perp.LCP_METHODS and "nsgs" in perp.METHODS


def test_result_fields_and_repr(block):
    M, q = block
    r = perp.solve(M, q, method="pgs", tol=1e-10)
    assert isinstance(r, perp.Result)
    assert r.iterations > 1 and r.iterations == len(r.history)
    assert r.history[-1] == pytest.approx(r.residual)
    assert np.all(np.diff(r.history) <= 1e-15)  # PGS on an SPD M: the residual never grows here
    assert r.time_ms >= 0 and isinstance(r.message, str) and r.message
    assert r.ray is None and r.solutions == []
    text = repr(r)
    assert text.startswith("<perp.Result pgs: solved in ") and "residual" in text
    assert r.brief_report() in text
    with pytest.raises(ValueError):
        r.z[0] = 1.0  # a read-only view


def test_status_spelling_is_the_cli_spelling():
    assert [str(s) for s in perp.Status] == ["solved", "infeasible", "ray-termination", "max-iterations",
                                             "numerical-failure", "not-applicable", "no-solution-found",
                                             "time-limit", "interrupted", "not-run"]
    assert perp.Status("ray-termination") is perp.Status.RAY_TERMINATION


def test_trivial_q_nonnegative_and_empty():
    r = perp.solve([[1.0, 2.0], [3.0, 4.0]], [1.0, 0.0])
    assert r.solved and r.z.tolist() == [0.0, 0.0] and r.iterations == 0
    r = perp.solve(np.zeros((0, 0)), np.zeros(0))
    assert r.solved and r.z.shape == (0,)


def test_all_solutions_of_a_nonunique_lcp():
    # w = -z + 1: z = 0 (w = 1) and z = 1 (w = 0) both solve it.
    r = perp.solve([[-1.0]], [1.0], method="enum", all_solutions=True)
    assert r.solved
    assert sorted(float(s[0]) for s in r.solutions) == [0.0, 1.0]


def test_infeasible_lcp_ray_and_enum_proof():
    # w = -z - 1 < 0 for every z >= 0: no solution.
    r = perp.solve([[-1.0]], [-1.0], method="lemke")
    assert r.status is perp.Status.RAY_TERMINATION and not r.solved
    assert r.ray is not None and r.ray.shape == (1,)
    e = perp.solve([[-1.0]], [-1.0], method="enum")
    assert e.status is perp.Status.INFEASIBLE


def test_max_iterations_and_warm_start(block):
    M, q = block
    r = perp.solve(M, q, method="pgs", max_iter=2, tol=1e-14)
    assert r.status is perp.Status.MAX_ITERATIONS and r.iterations == 2
    warm = perp.solve(M, q, method="pgs", warm_start=[5.0, 5.0], tol=1e-12)
    assert warm.solved and warm.iterations <= 1


def test_method_options(block):
    M, q = block
    slow = perp.solve(M, q, method="psor", relaxation=1.0, tol=1e-12)
    fast = perp.solve(M, q, method="psor", relaxation=1.1, tol=1e-12)
    assert slow.solved and fast.solved and fast.iterations != slow.iterations
    r = perp.solve(M, q, method="lemke", lemke={"covering_vector": [1.0, 2.0], "refine": False})
    np.testing.assert_allclose(r.z, [5, 5], atol=1e-9)
    r = perp.solve(M, q, method="newton-fb", newton={"line_search": False}, record_history=False)
    assert r.solved and len(r.history) == 0
    timed = perp.solve(M, q)
    untimed = perp.solve(M, q, measure_time=False)
    assert untimed.solved and untimed.time_ms == 0.0 and timed.time_ms >= 0.0
    np.testing.assert_array_equal(untimed.z, timed.z)


def test_unknown_and_mistyped_options(block):
    M, q = block
    with pytest.raises(TypeError, match="unknown option 'relax'"):
        perp.solve(M, q, relax=1.2)
    with pytest.raises(TypeError, match="unknown option 'lemke.refin'"):
        perp.solve(M, q, lemke={"refin": True})
    with pytest.raises(TypeError, match="'relaxation': expected a float, got str"):
        perp.solve(M, q, method="psor", relaxation="1.2")
    with pytest.raises(TypeError, match="'all_solutions': expected a bool"):
        perp.solve(M, q, method="enum", all_solutions=1)
    with pytest.raises(perp.InvalidProblem, match="relaxation"):
        perp.solve(M, q, method="psor", relaxation=2.5)  # the library's own check
    with pytest.raises(perp.InvalidProblem, match="lemke"):
        perp.solve(M, q, method="lemke", lemke={"covering_vector": [1.0, -1.0]})


def test_sparse_matrix_is_accepted_and_same_answer(block):
    M, q = block
    for S in (scipy.sparse.csr_matrix(M), scipy.sparse.csc_matrix(M), scipy.sparse.coo_matrix(M)):
        r = perp.solve(S, q, method="lemke")
        np.testing.assert_allclose(r.z, [5, 5], atol=1e-12)


def test_sparse_size_guard(monkeypatch):
    # Problem types whose methods are all dense refuse to densify above the limit.
    monkeypatch.setattr(perp, "DENSE_LIMIT", 10)
    S = scipy.sparse.identity(11, format="csr")
    with pytest.raises(ValueError, match="would be densified"):
        perp.solve_box(S, -np.ones(11), 0.0, 1.0)


def test_sparse_lcp_above_the_limit_is_never_densified(monkeypatch):
    # 2 I z = 2: z = 1 by hand; above the limit the LCP goes to the sparse route.
    monkeypatch.setattr(perp, "DENSE_LIMIT", 10)
    S = scipy.sparse.identity(11, format="csr") * 2.0
    for method in ("auto", "pgs", "psor", "path", "newton-fb", "newton-min"):
        r = perp.solve(S, -2 * np.ones(11), method=method, tol=1e-12)
        assert r.solved, (method, r.message)
        np.testing.assert_allclose(r.z, np.ones(11), atol=1e-12)
    with pytest.raises(ValueError, match="'lemke' needs M dense.*pgs"):
        perp.solve(S, -np.ones(11), method="lemke")
    with pytest.raises(ValueError, match="derivatives=True needs M dense"):
        perp.solve(S, -np.ones(11), derivatives=True)


def test_sparse_lcp_of_twenty_thousand_unknowns():
    # Pentadiagonal, symmetric, strictly diagonally dominant: unique solution; judged here by
    # min(z, M z + q) recomputed with scipy, never by the solver's own residual.
    n = 20000
    M = scipy.sparse.diags([-0.5 * np.ones(n - 2), -np.ones(n - 1), 4 * np.ones(n), -np.ones(n - 1),
                            -0.5 * np.ones(n - 2)], [-2, -1, 0, 1, 2], format="csr")
    q = np.random.default_rng(3).uniform(-1, 1, n)
    answers = {}
    for method in ("auto", "pgs"):
        r = perp.solve(M, q, method=method, tol=1e-10)
        assert r.solved, r.message
        w = M @ r.z + q
        assert np.abs(np.minimum(r.z, w)).max() <= 1e-9
        answers[method] = r.z
    np.testing.assert_allclose(answers["auto"], answers["pgs"], atol=1e-8)


def test_conversions_like_numpy(block):
    M, q = block
    expected = [5.0, 5.0]
    for Mx, qx in ((M.tolist(), q.tolist()), (M.astype(np.float32), q.astype(np.float32)),
                   (np.asfortranarray(M), q), (np.repeat(M, 2, axis=1)[:, ::2], np.repeat(q, 3)[::3]),
                   (np.array([[7, 1], [1, 7]]), np.array([-40, -40]))):
        r = perp.solve(Mx, qx, method="lemke")
        np.testing.assert_allclose(r.z, expected, atol=1e-5 if np.asarray(Mx).dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("M, q, error, pattern", [
    ([[1.0, 2.0]], [1.0], perp.InvalidProblem, "square|M"),
    ([[1.0, 0.0], [0.0, 1.0]], [1.0, 2.0, 3.0], perp.InvalidProblem, "q"),
    ([[np.nan, 0.0], [0.0, 1.0]], [-1.0, -1.0], perp.InvalidProblem, "M.*NaN|NaN"),
    ([[1.0, 0.0], [0.0, 1.0]], [-1.0, np.inf], perp.InvalidProblem, "q"),
    ([1.0, 2.0], [1.0], ValueError, "M: expected a 2-D array"),
    ([[1.0]], [[1.0]], ValueError, "q: expected a 1-D array"),
    ([["a", "b"], ["c", "d"]], [1.0, 2.0], TypeError, "M: expected real numbers"),
    ([[1 + 1j]], [1.0], TypeError, "dtype complex"),
    ([[1.0, 2.0], [3.0]], [1.0, 2.0], ValueError, "M: cannot be read"),
    (None, [1.0], TypeError, "M: expected an array"),
])
def test_bad_input_raises_clearly(M, q, error, pattern):
    with pytest.raises(error, match=pattern):
        perp.solve(M, q)


def test_invalid_problem_is_a_value_error_and_bad_method():
    assert issubclass(perp.InvalidProblem, ValueError)
    with pytest.raises(perp.InvalidProblem, match="lemke"):  # lists the valid names
        perp.solve([[1.0]], [-1.0], method="lemk")
    with pytest.raises(TypeError, match="method"):
        perp.solve([[1.0]], [-1.0], method=3)
    with pytest.raises(TypeError, match="tol"):
        perp.solve([[1.0]], [-1.0], tol="1e-8")
    with pytest.raises(perp.InvalidProblem, match="tolerance"):
        perp.solve([[1.0]], [-1.0], tol=-1.0)
    with pytest.raises(TypeError, match="max_iter"):
        perp.solve([[1.0]], [-1.0], max_iter=2.5)
    with pytest.raises(perp.InvalidProblem, match="initial_guess"):
        perp.solve([[1.0]], [-1.0], method="pgs", warm_start=[1.0, 2.0])


def test_corpus_lcp_from_file():
    from conftest import DATA
    p = perp.read(DATA / "lcp" / "lcp_CPS_1.dat")
    assert isinstance(p, perp.Lcp)
    r = p.solve(method="lemke")
    assert r.solved
    assert lcp_residual(p.M, p.q, r.z) <= 1e-8
    assert np.all(r.z >= -1e-12)


def test_solve_docstring_says_tol_bounds_the_relative_residual():
    # issue 38: help(perp.solve) said tol bounds the natural residual; the code judges the relative one
    # (Result.relative_residual <= tol for a solved result, checked here on a problem scaled by 1e6)
    doc = " ".join(perp.solve.__doc__.split())
    assert "``tol`` bounds the relative residual" in doc
    r = perp.solve(1e6 * np.array([[2.0, 1.0], [1.0, 2.0]]), [-1e6, -1e6], method="pgs", tol=1e-8)
    assert r.solved and r.relative_residual <= 1e-8
