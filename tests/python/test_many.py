"""solve_many: a batch in parallel in C++, in input order, a failure not stopping the rest."""

import threading
import time

import numpy as np
import pytest

import perp
from conftest import lcp_residual


def random_spd(rng, n):
    A = rng.normal(size=(n, n))
    return A @ A.T + n * np.eye(n), rng.normal(size=n)


@pytest.mark.parametrize("threads", [1, 2, 4, None])
def test_batch_matches_one_by_one(threads):
    rng = np.random.default_rng(3)
    problems = [random_spd(rng, 8) for _ in range(50)]
    results = perp.solve_many(problems, method="lemke", threads=threads)
    assert len(results) == 50
    for (M, q), r in zip(problems, results):
        assert r.solved and lcp_residual(M, q, r.z) <= 1e-8
        np.testing.assert_array_equal(r.z, perp.solve(M, q, method="lemke").z)


def test_one_failure_does_not_stop_the_rest(block):
    M, q = block
    problems = [(M, q), (np.ones((2, 3)), q), perp.Lcp(M, q), ("x", q), (M, [np.nan, 1.0]), (M, q)]
    results = perp.solve_many(problems, threads=2)
    assert [type(r).__name__ for r in results] == ["Result", "InvalidProblem", "Result", "TypeError",
                                                   "InvalidProblem", "Result"]
    assert str(results[1]).startswith("problems[1]: ") and str(results[4]).startswith("problems[4]: ")
    assert all(r.solved for r in results if isinstance(r, perp.Result))
    assert perp.solve_many([]) == []
    with pytest.raises(ValueError, match="threads"):
        perp.solve_many([(M, q)], threads=0)


def test_gil_is_released_during_a_solve():
    # A Python thread counts while the main thread sleeps (GIL free), then while it runs one long
    # C++ solve: with the GIL held through the solve the counter would stall (it only moves in the
    # few milliseconds of Python around the call), with it released it keeps about the same rate.
    rng = np.random.default_rng(0)
    M, q = random_spd(rng, 300)
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        c0, t0 = count[0], time.perf_counter()
        time.sleep(0.2)
        c1, t1 = count[0], time.perf_counter()
        sweeps = 200
        while True:  # a solve of at least 0.2 s on this machine
            c2, t2 = count[0], time.perf_counter()
            perp.solve(M, q, method="pgs", tol=1e-300, max_iter=sweeps)
            c3, t3 = count[0], time.perf_counter()
            if t3 - t2 >= 0.2:
                break
            sweeps *= 4
    finally:
        stop.set()
        t.join()
    idle_rate = (c1 - c0) / (t1 - t0)
    solve_rate = (c3 - c2) / (t3 - t2)
    assert solve_rate > 0.2 * idle_rate, (solve_rate, idle_rate)


def test_stacked_arrays_give_stacked_results():
    """solve_many((Ms, qs)) with Ms of shape B x n x n and qs B x n returns stacked z, w, status,
    solved and residual, row i the same as solving problem i alone; a bad problem gives NaN rows and a
    None status without stopping the rest; shapes that do not stack are refused naming the array."""
    rng = np.random.default_rng(7)
    pairs = [random_spd(rng, 5) for _ in range(12)]
    Ms = np.stack([M for M, _ in pairs])
    qs = np.stack([q for _, q in pairs])
    batch = perp.solve_many((Ms, qs), method="lemke", threads=2)
    assert isinstance(batch, perp.BatchResult)
    assert batch.z.shape == (12, 5) and batch.w.shape == (12, 5)
    assert batch.solved.dtype == bool and batch.solved.all()
    assert all(s is perp.Status.SOLVED for s in batch.status)
    for i, (M, q) in enumerate(pairs):
        alone = perp.solve(M, q, method="lemke")
        np.testing.assert_array_equal(batch.z[i], alone.z)
        np.testing.assert_allclose(batch.w[i], M @ batch.z[i] + q, atol=1e-12)
        assert lcp_residual(M, q, batch.z[i]) <= 1e-8 and batch.residual[i] <= 1e-8
    qs_bad = qs.copy()
    qs_bad[3, 0] = np.nan
    mixed = perp.solve_many((Ms, qs_bad), threads=2)
    assert np.isnan(mixed.z[3]).all() and mixed.status[3] is None and not mixed.solved[3]
    assert isinstance(mixed.results[3], perp.InvalidProblem) and str(mixed.results[3]).startswith("problems[3]: ")
    assert mixed.solved[[i for i in range(12) if i != 3]].all()
    with pytest.raises(ValueError, match="qs: expected shape"):
        perp.solve_many((Ms, qs[:, :4]))
    with pytest.raises(ValueError, match="Ms: expected B x n x n"):
        perp.solve_many((Ms[:, :, :4], qs))
