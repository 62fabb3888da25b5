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
