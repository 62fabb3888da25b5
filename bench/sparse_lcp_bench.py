"""A sparse LCP of n = 100 000 (5 nonzeros a row, symmetric positive definite) solved to 1e-8 by
each method of perp.SPARSE_LCP_METHODS, never densified (issue 38). Usage:

    PYTHONPATH=build/python /usr/bin/python3 bench/sparse_lcp_bench.py [--n 100000] [--tol 1e-8]

Prints, per method, the status, iterations, seconds (best of 3) and ‖min(z, M z + q)‖∞ recomputed
here with scipy (not the solver's own residual)."""

import argparse
import time

import numpy as np
import scipy.sparse

import perp


def problem(n, seed=0):
    M = scipy.sparse.diags([-0.5 * np.ones(n - 2), -np.ones(n - 1), 4 * np.ones(n), -np.ones(n - 1),
                            -0.5 * np.ones(n - 2)], [-2, -1, 0, 1, 2], format="csr")
    return M, np.random.default_rng(seed).uniform(-1, 1, n)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--tol", type=float, default=1e-8)
    args = parser.parse_args()
    M, q = problem(args.n)
    print(f"n = {args.n}, nnz(M) = {M.nnz}, tol = {args.tol:g}")
    print("| method | status | iterations | s (best of 3) | ‖min(z, Mz+q)‖∞ |")
    print("|---|---|---:|---:|---:|")
    for method in perp.SPARSE_LCP_METHODS:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            r = perp.solve(M, q, method=method, tol=args.tol)
            best = min(best, time.perf_counter() - start)
        natural = np.abs(np.minimum(r.z, M @ r.z + q)).max()
        print(f"| {method} | {r.status.value} | {r.iterations} | {best:.3f} | {natural:.1e} |")


if __name__ == "__main__":
    main()
