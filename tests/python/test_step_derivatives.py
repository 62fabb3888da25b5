"""Derivatives of a Moreau–Jean step from Python: moreau_jean_step(..., derivatives=True), checked
against central differences of re-run steps, the adjoint identity, and a fit of e by Gauss–Newton."""

import numpy as np
import pytest

import perp


def two_disks():
    # A disk sliding and spinning on the ground, hit by a second one (three contacts).
    a = perp.Body("a", perp.Disk(0.2), 1.0, position=(-0.2, 0.2), velocity=(1.5, -0.3))
    b = perp.Body("b", perp.Disk(0.2), 2.0, position=(0.2005, 0.2), velocity=(-1.0, -0.2), angular_velocity=2.0)
    return perp.World([a, b], ground=0.0)


OPTIONS = dict(timestep=1e-2, friction=0.4, restitution=0.3, tol=1e-13)


def stepped_state(world, dstate=None, t=0.0, **overrides):
    w = world.copy()
    if dstate is not None:
        w.state = w.state + t * dstate
    options = dict(OPTIONS, **overrides)
    r = perp.moreau_jean_step(w, **options)
    assert r.status is perp.Status.SOLVED
    return w.state, r


def test_jvp_matches_differences_of_the_step():
    world = two_disks()
    _, report = stepped_state(world, derivatives=True)
    d = report.derivatives
    assert isinstance(d, perp.StepDerivatives) and d.geometry_exact and d.differentiable
    assert report.contacts["gap"].size == 3
    rng = np.random.default_rng(4)
    dstate = rng.normal(size=(2, 6))  # rows: x, y, angle, vx, vy, omega per body
    dq, dv = d.jvp(q=dstate[:, :3].ravel(), v=dstate[:, 3:].ravel(),
                   friction=np.full(3, 0.1), restitution=np.full(3, -0.05))
    delta = 1e-6
    plus, r_plus = stepped_state(world, dstate, delta, friction=0.4 + 0.1 * delta, restitution=0.3 - 0.05 * delta)
    minus, r_minus = stepped_state(world, dstate, -delta, friction=0.4 - 0.1 * delta, restitution=0.3 + 0.05 * delta)
    assert r_plus.contacts["gap"].size == r_minus.contacts["gap"].size == 3  # the same active set
    fd = (plus - minus) / (2 * delta)
    np.testing.assert_allclose(dq, fd[:, :3].ravel(), rtol=0, atol=1e-6 * max(1.0, np.abs(fd).max()))
    np.testing.assert_allclose(dv, fd[:, 3:].ravel(), rtol=0, atol=1e-6 * max(1.0, np.abs(fd).max()))


def test_vjp_is_the_adjoint_of_jvp():
    _, report = stepped_state(two_disks(), derivatives=True)
    d = report.derivatives
    rng = np.random.default_rng(7)
    t = dict(q=rng.normal(size=6), v=rng.normal(size=6), force=rng.normal(size=6), mass=rng.normal(size=6),
             friction=rng.normal(size=3), restitution=rng.normal(size=3))
    q_bar, v_bar = rng.normal(size=6), rng.normal(size=6)
    dq, dv = d.jvp(**t)
    g = d.vjp(q_bar, v_bar)
    assert sorted(g) == ["force", "friction", "mass", "q", "restitution", "v"]
    left = q_bar @ dq + v_bar @ dv
    right = sum(g[k] @ t[k] for k in t)
    assert left == pytest.approx(right, rel=1e-10, abs=1e-12)


def test_refusals_name_the_cause():
    w = two_disks()
    with pytest.raises(perp.InvalidProblem, match="projection"):
        perp.moreau_jean_step(w.copy(), **OPTIONS, projection=True, derivatives=True)
    with pytest.raises(perp.InvalidProblem, match="degenerate"):
        perp.moreau_jean_step(w.copy(), **OPTIONS, derivatives=True, degenerate="sideways")
    with pytest.raises(TypeError, match="derivatives"):
        perp.moreau_jean_step(w.copy(), **OPTIONS, derivatives="yes")
    _, report = stepped_state(w, derivatives=True)
    with pytest.raises(perp.InvalidProblem, match="v has 5 entries, expected 6"):
        report.derivatives.jvp(v=np.zeros(5))
    assert stepped_state(w)[1].derivatives is None  # not asked for


def test_fit_restitution_to_a_bounce_height():
    # A ball dropped from 0.5 m; its height 0.5 s later depends on e through the bounce. Gauss–Newton
    # with the rollout's gradient (vjp step by step, backwards) recovers the e of the observation.
    def run(e):
        w = perp.World([perp.Body("ball", perp.Disk(0.05), 0.2, position=(0.0, 0.55))], ground=0.0)
        reports = []
        for _ in range(250):
            reports.append(perp.moreau_jean_step(w, timestep=2e-3, restitution=e, tol=1e-13, derivatives=True))
        return w.state[0, 1], reports

    observed, _ = run(0.8)
    e = 0.6
    for _ in range(20):
        y, reports = run(e)
        if abs(y - observed) < 1e-14:
            break
        q_bar, v_bar, slope = np.array([0.0, 1.0, 0.0]), np.zeros(3), 0.0
        for r in reversed(reports):
            g = r.derivatives.vjp(q_bar, v_bar)
            slope += g["restitution"].sum()  # every contact takes the scene's e
            q_bar, v_bar = g["q"], g["v"]
        e -= (y - observed) / slope
    assert e == pytest.approx(0.8, abs=1e-6)
