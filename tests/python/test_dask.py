"""docs/scaling.md: a batch of independent LCPs on a Dask local cluster of two worker processes.

Skipped when Debian's python3-dask / python3-distributed are not installed.
"""

import numpy as np
import pytest

import perp
from conftest import lcp_relative_residual

distributed = pytest.importorskip("distributed")


def test_local_cluster_with_two_workers_solves_a_batch():
    rng = np.random.default_rng(19)
    problems = []
    for _ in range(40):
        A = rng.uniform(-1, 1, size=(12, 12))
        problems.append((A.T @ A + 0.1 * np.eye(12), rng.uniform(-1, 1, size=12)))

    def solve_chunk(chunk):
        # Runs in a worker process: perp is imported there; only arrays and strings come back.
        import perp as worker_perp

        return [(r.z.copy(), r.status.name) for r in worker_perp.solve_many(chunk, method="auto", tol=1e-10,
                                                                            threads=1)]

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        chunks = [problems[i:i + 10] for i in range(0, len(problems), 10)]
        futures = client.map(solve_chunk, chunks)
        answers = [pair for part in client.gather(futures) for pair in part]

    assert len(answers) == len(problems)
    for (M, q), (z, status) in zip(problems, answers):
        assert status == "SOLVED"
        assert lcp_relative_residual(M, q, z) <= 1e-10
        np.testing.assert_allclose(z, perp.solve(M, q, method="lemke", tol=1e-10).z, atol=1e-9)
