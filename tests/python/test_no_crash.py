"""Odd input of every kind raises a Python exception and never takes the interpreter down.

The calls run in a child interpreter, so that a crash (a segfault, an abort) fails this test
instead of killing pytest; the child prints one line per call with the exception's type."""

import os
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(r'''
    import itertools, math
    import numpy as np, scipy.sparse
    import perp
    from perp import _perp

    odd = [None, 0, 1.5, "M", b"x", [], [[]], [[1, 2], [3]], np.zeros(0), np.zeros((0, 3)), np.zeros((3, 0)),
           np.full((2, 2), np.nan), np.full((2, 2), np.inf), np.ones((2, 2, 2)), np.array([[1 + 2j]]),
           np.array([["a"]]), np.ones((2, 2), dtype=object), scipy.sparse.eye(3), {"a": 1}, object(),
           np.ones((3, 3))[:, ::2], np.float32([[1e39]]), -np.ones((2, 2)), np.array([[1e308, 1e308], [1e308, 1e308]])]
    vec = [None, 1.0, [1.0, 2.0], np.zeros(0), np.array([np.nan, 1.0]), np.ones((2, 1)), "q", [-1.0, -1.0],
           np.array([1e308, -1e308])]
    calls = 0

    def attempt(f, *args, **kw):
        global calls
        calls += 1
        try:
            f(*args, **kw)
        except (TypeError, ValueError, KeyError, IndexError, OverflowError, MemoryError, RuntimeError,
                ZeroDivisionError) as error:
            pass

    for M, q in itertools.product(odd, vec):
        attempt(perp.solve, M, q)
        attempt(perp.solve, M, q, method="pgs", warm_start=q)
        attempt(perp.solve_box, M, q, q, q)
        attempt(perp.solve_qp, M, q, M, q)
        attempt(perp.solve_friction_contact, M, q, q)
        attempt(perp.classify, M)
        attempt(perp.solve_many, [(M, q)] * 3, threads=2)
    for x in odd + vec:
        attempt(perp.solve_mlcp, x, x, x, x, x, x)
        attempt(perp.solve_ncp, lambda z: x, lambda z: x, [0.0, 0.0])
        attempt(perp.solve_mcp, lambda z: np.ones(2), lambda z: x, x, x)
        attempt(perp.solve, [[2.0]], [-1.0], method=x)
        attempt(perp.solve, [[2.0]], [-1.0], tol=x)
        attempt(perp.solve, [[2.0]], [-1.0], max_iter=x)
        attempt(perp.solve, [[2.0]], [-1.0], lemke=x)
        attempt(perp.solve, [[2.0]], [-1.0], lemke={"covering_vector": x})
        attempt(perp.solve, [[2.0]], [-1.0], friction_contact={"nsgs": {"permutation": x, "order": "given"}})
        attempt(perp.solve, [[2.0]], [-1.0], friction_contact={"permutation": x, "order": "given"})  # the old keys
        attempt(perp.solve, [[2.0]], [-1.0], friction_contact=x)
        attempt(perp.solve, [[2.0]], [-1.0], friction_contact={"prox": x, "prox_rho": x})
        attempt(setattr, perp.FrictionContactOptions().nsgs, "permutation", x)
        attempt(perp.read, x)
        attempt(perp.World, x, x)
        attempt(perp.Body, "b", x, x, x)
        attempt(perp.Body, "b", perp.Disk(0.1), 1.0, x)
        attempt(perp.moreau_jean_step, perp.World([perp.Body("b", perp.Disk(0.1), 1.0)]), timestep=x)
        attempt(perp.moreau_jean_step, perp.World([perp.Body("b", perp.Disk(0.1), 1.0)]), gravity=x)
        attempt(setattr, perp.World(), "state", x)
        attempt(perp.simulate, x)
        attempt(perp.painleve, x, x)
        attempt(perp.write_siconos, "/nonexistent/dir/x.dat", x)
        attempt(_perp.solve_lcp, x, x, x, x, x, x, x)
        attempt(_perp.solve_friction_contact, 2, (2, 2, x, x, x), [1.0, 1.0], [0.5], "auto", 1e-8, None, None, {})
    attempt(_perp.solve_friction_contact, 2, (2, 2, np.array([0, 5, 1]), np.array([0]), np.array([1.0])),
            np.array([1.0, 1.0]), np.array([0.5]), "auto", 1e-8, None, None, {})
    attempt(_perp.solve_friction_contact, 2, (2, 2, np.array([0, 1, 1]), np.array([7]), np.array([1.0])),
            np.array([1.0, 1.0]), np.array([0.5]), "auto", 1e-8, None, None, {})
    attempt(perp.solve, [[2.0]], [-1.0], max_iter=10 ** 30)
    attempt(perp.solve, [[2.0]], [-1.0], friction_contact={"nsgs": {"seed": -1}})
    attempt(perp.solve, [[2.0]], [-1.0], friction_contact={"automatic": {"shift_updates": -1}})
    attempt(perp.solve, [[2.0]], [-1.0], friction_contact={"auto_shift_updates": -1})  # the old key
    attempt(perp.simulate, {"bodies": [{"name": "a"}]})
    attempt(perp.simulate, {"timestep": float("nan")})
    # a callable that calls perp itself, and one that raises BaseException subclasses
    attempt(perp.solve_ncp, lambda z: perp.solve([[2.0]], [-1.0]).z * 0 + z - 1, lambda z: np.eye(1), [0.0])
    try:
        perp.solve_ncp(lambda z: (_ for _ in ()).throw(SystemExit(3)), lambda z: np.eye(1), [0.0])
    except SystemExit as e:
        assert e.code == 3
    print("calls", calls)
''')


def test_no_input_crashes_the_interpreter():
    env = dict(os.environ, MPLBACKEND="Agg")
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, (done.returncode, done.stdout[-2000:], done.stderr[-4000:])
    assert "calls" in done.stdout and int(done.stdout.split()[-1]) > 1000
