"""Measures what issue 13 asks of the Python layer (not run by pytest: no test_ prefix).

    PYTHONPATH=build/python /usr/bin/python3 tests/python/bench_solve.py

1. the overhead of one perp.solve call over the C++ solve at n = 10: the wall time of a call from
   Python minus Result.time_ms (the C++ solve's own clock), median over many calls;
2. solve_many on 10^4 LCPs of n = 20: wall time with threads = 1 and threads = 2.
"""
import os
import statistics
import time

import numpy as np

import perp


def overhead(n=10, calls=20000, method="lemke"):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(n, n))
    M = A @ A.T + n * np.eye(n)
    q = rng.normal(size=n)
    for _ in range(1000):
        perp.solve(M, q, method=method)
    walls, inner = [], []
    for _ in range(calls):
        t0 = time.perf_counter()
        r = perp.solve(M, q, method=method)
        walls.append(time.perf_counter() - t0)
        inner.append(r.time_ms * 1e-3)
    wall, solve = statistics.median(walls), statistics.median(inner)
    touch = []
    for _ in range(calls):  # reading the result's arrays back costs a little more
        t0 = time.perf_counter()
        r = perp.solve(M, q, method=method)
        _ = (r.z, r.status, r.residual)
        touch.append(time.perf_counter() - t0)
    return wall, solve, statistics.median(touch)


def batch(count=10000, n=20, method="lemke"):
    rng = np.random.default_rng(1)
    problems = []
    for _ in range(count):
        A = rng.normal(size=(n, n))
        problems.append((A @ A.T + n * np.eye(n), rng.normal(size=n)))
    times, cpu = {}, {}
    for threads in (1, 2):
        best = float("inf")
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            results = perp.solve_many(problems, method=method, threads=threads)
            wall = time.perf_counter() - t0
            if wall < best:
                best, cpu[threads] = wall, time.process_time() - c0
        assert all(r.solved for r in results)
        times[threads] = best
    t0 = time.perf_counter()
    for M, q in problems:
        perp.solve(M, q, method=method)
    loop = time.perf_counter() - t0
    return times, cpu, loop


if __name__ == "__main__":
    wall, solve, touch = overhead()
    print(f"n = 10 lemke: call {wall * 1e6:.2f} us, C++ solve {solve * 1e6:.2f} us, "
          f"overhead {(wall - solve) * 1e6:.2f} us ({(touch - solve) * 1e6:.2f} us reading z, status, residual)")
    times, cpu, loop = batch()
    print(f"solve_many 10^4 x n = 20 lemke: threads=1 {times[1]:.3f} s ({cpu[1]:.3f} s CPU), threads=2 "
          f"{times[2]:.3f} s ({cpu[2]:.3f} s CPU), speed-up {times[1] / times[2]:.2f} on {os.cpu_count()} cores "
          f"(load average {os.getloadavg()[0]:.1f}); a Python loop of perp.solve {loop:.3f} s")
