"""examples/python/trajopt_push.py (docs/trajopt.md): the box pushed to rest at a goal. The gradient
of the loss against central differences of perp.rollout, and the optimized controls checked by an
independent perp.rollout, not by the optimizer's own value."""
import importlib.util
import time

import numpy as np
import pytest
from conftest import REPO

import perp


@pytest.fixture(scope="module")
def trajopt():
    spec = importlib.util.spec_from_file_location("trajopt_push", REPO / "examples" / "python" / "trajopt_push.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rollout_loss(t, u):
    run = perp.rollout(t.SCENE, len(u), forces=t.forces_of(u))
    return t.loss_of(run.positions[-1, 0, 0], run.velocities[-1, 0, 0], u)


def test_the_start_slides_and_stops_short_of_the_goal(trajopt):
    # By hand: 5 N for 0.2 s on 1 kg against μ m g = 2.943 N, then friction alone. The implicit
    # velocity v_k = k h (F/m − μ g) while pushed; it stops after 0.2 (F/m − μ g) / (μ g) s more.
    t = trajopt
    run = perp.rollout(t.SCENE, t.STEPS, forces=t.forces_of(t.START))
    a = 5.0 / t.MASS - t.MU * 9.81
    assert run.velocities[10, 0, 0] == pytest.approx(0.2 * a, rel=1e-12)
    assert run.velocities[-1, 0, 0] == pytest.approx(0.0, abs=1e-12)
    assert 0.05 < run.positions[-1, 0, 0] < 0.1


def test_gradient_matches_central_differences_of_the_rollout(trajopt):
    t = trajopt
    u = t.START.copy()
    _, gradient = t.loss_and_gradient(u)
    delta = 1e-6
    for k in (0, 5, 9, 12, 30):  # pushed, sliding, and stuck steps
        e = np.zeros_like(u)
        e[k] = delta
        fd = (rollout_loss(t, u + e) - rollout_loss(t, u - e)) / (2 * delta)
        assert gradient[k] == pytest.approx(fd, rel=1e-6, abs=1e-9), k


def test_lbfgsb_from_the_documented_start_ends_at_rest_at_the_goal(trajopt):
    t = trajopt
    start = time.perf_counter()
    u, result, _ = t.optimize_through_gradients()
    assert time.perf_counter() - start < 10
    assert np.all(np.abs(u) <= t.FORCE_BOUND)
    error, speed, run = t.check(u)  # an independent rollout of the returned controls
    assert abs(error) < 1e-6 and abs(speed) < 1e-9, (error, speed, result.message)
    assert run.solved.all()
