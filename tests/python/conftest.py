"""Shared by the pytest suite of the Python module (run by `make python-test` inside `make test`)."""

import os
import pathlib

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "data" / "siconos"
EXAMPLES = REPO / "examples"


@pytest.fixture
def block():
    """The two-contact block of the chapter (§1.2): lambda = (5, 5)."""
    return np.array([[1.75, 0.25], [0.25, 1.75]]), np.array([-10.0, -10.0])


def lcp_relative_residual(M, q, z):
    """‖min(z/Z, w/W)‖∞ with Z = ‖z‖∞ (1 at z = 0) and W = ‖q‖∞ (max_i Σ_j |M_ij z_j| at q = 0):
    the library's "solved" test (docs/solvers.md), recomputed here in numpy."""
    M = M.toarray() if hasattr(M, "toarray") else np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    w = M @ z + q
    Z = float(np.max(np.abs(z))) if z.size and np.any(z) else 1.0
    W = float(np.max(np.abs(q))) if q.size and np.any(q) else float(np.max(np.abs(M) @ np.abs(z)))
    return float(np.max(np.abs(np.minimum(z / Z, w / W)))) if z.size and W > 0 else 0.0


def lcp_residual(M, q, z):
    """‖min(z, M z + q)‖∞, recomputed here in numpy."""
    M = M.toarray() if hasattr(M, "toarray") else np.asarray(M, dtype=float)
    w = M @ z + np.asarray(q, dtype=float)
    return float(np.max(np.abs(np.minimum(z, w)))) if z.size else 0.0


def interrupt_child(script, args, after, timeout):
    """Runs `python -c script *args` in a child that prints "go" when its long call starts, sends it
    SIGINT `after` seconds later, and returns (stdout, stderr, seconds from the signal to its end);
    asserts that the child exited 0. The child is killed if it outlives `timeout`."""
    import signal
    import subprocess
    import sys
    import time
    # SIGINT back to its default in the child: a test run started in the background of a shell
    # without job control inherits it ignored, and Python then installs no KeyboardInterrupt.
    child = subprocess.Popen([sys.executable, "-c", script, *[str(a) for a in args]], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert child.stdout.readline().strip() == "go"
        time.sleep(after)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=timeout)
        waited = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    return out, err, waited
