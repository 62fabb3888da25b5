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


def test_friction_contact_residuals_of_a_given_r():
    # One 2-D contact, W = I, q = (−1, 0.2), μ = 0.5: r = (1, −0.2) sticks (u = W r + q = 0, inside
    # the cone): every criterion 0. r = (2, 0): u = (1, 0.2), so r_N u_N = 2 and the dissipation
    # |r_T u_T + μ r_N |u_T|| = 0.5 · 2 · 0.2 = 0.2, by hand.
    W, q = np.eye(2), np.array([-1.0, 0.2])
    assert max(perp.friction_contact_residuals(W, q, [0.5], [1.0, -0.2]).values()) == 0.0
    c = perp.friction_contact_residuals(W, q, [0.5], [2.0, 0.0])
    assert c["complementarity"] == pytest.approx(2.0) and c["dissipation"] == pytest.approx(0.2)
    assert c["signorini"] == 0.0 and c["coulomb"] == 0.0
    with pytest.raises(perp.InvalidProblem, match=r"r: expected 2 entries \(the size of q\), got 3"):
        perp.friction_contact_residuals(W, q, [0.5], [1.0, 0.0, 0.0])
    with pytest.raises(perp.InvalidProblem, match="W: expected 2x2"):
        perp.friction_contact_residuals(np.eye(3), q, [0.5], [1.0, 0.0])


def test_a_rollout_meets_the_contact_implicit_constraints(trajopt):
    # The contact-implicit model is perp's step: the start's rollout, read as its unknowns, meets its
    # dynamics and its complementarity pairs exactly (to round-off).
    t = trajopt
    problem = t.ContactImplicit()
    z = problem.start(t.START)
    worst = problem.require_feasible(z, tol=1e-12)
    assert worst["complementarity"] <= 1e-12
    run = perp.rollout(t.SCENE, t.STEPS, forces=t.forces_of(t.START))
    assert problem.final_x(z) == pytest.approx(run.positions[-1, 0, 0], abs=1e-12)


def test_contact_implicit_from_the_documented_start_meets_perps_step(trajopt):
    t = trajopt
    u, problem, z, iterations, seconds = t.optimize_contact_implicit()
    assert np.all(np.abs(u) <= t.FORCE_BOUND + 1e-12)
    error, speed, _ = t.check(u)  # an independent rollout of the returned controls
    assert abs(error) < 1e-6 and abs(speed) < 1e-9, (error, speed)
    assert abs(problem.final_x(z) - t.GOAL - error) < 1e-8  # the model's final x is the rollout's
    worst = t.check_contact_implicit(problem, z)
    assert worst["perp_impulses"] <= 1e-12  # W, q rebuilt from the step are its problem
    assert worst["velocity"] <= 1e-8
    for name in ("absolute_error", "signorini", "coulomb", "complementarity", "dissipation"):
        assert worst[name] <= 1e-8, (name, worst)
