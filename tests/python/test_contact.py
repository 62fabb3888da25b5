"""The Painlevé rod and scene simulation from Python."""

import math

import numpy as np
import pytest

import perp
from conftest import EXAMPLES


def test_critical_mu_is_four_thirds_at_atan_2():
    c = perp.critical_mu()
    assert c.mu == pytest.approx(4 / 3) and c.theta == pytest.approx(math.atan(2))


def test_painleve_alpha_beta_by_hand():
    theta, mu = 0.5, 0.3
    a = perp.painleve(theta, mu)
    alpha = 1 + 3 * math.cos(theta) * (math.cos(theta) - mu * math.sin(theta))
    assert a.alpha == pytest.approx(alpha) and a.beta == pytest.approx(-9.81)
    assert a.regime == "contact" and a.solutions == pytest.approx([9.81 / alpha])
    # past mu_c at theta = atan 2, alpha < 0: with beta < 0 inconsistent, with theta_dot large, beta > 0: two solutions
    assert perp.painleve(math.atan(2), 1.5).regime == "inconsistent"
    two = perp.painleve(math.atan(2), 1.5, theta_dot=10.0)
    assert two.regime == "indeterminate" and len(two.solutions) == 2 and two.solutions[0] == 0
    with pytest.raises(perp.InvalidProblem, match="theta"):
        perp.painleve(2.0, 0.5)


def test_painleve_regime_grid():
    thetas = np.linspace(0.1, 1.5, 15)
    mus = np.linspace(0.0, 2.0, 11)
    grid = perp.painleve_regimes(thetas, mus)
    assert grid.shape == (11, 15)
    for i, mu in enumerate(mus):
        for j, theta in enumerate(thetas):
            assert perp.PAINLEVE_REGIMES[grid[i, j]] == perp.painleve(theta, mu).regime
    assert np.all(grid[mus < 4 / 3] == 1)  # below mu_c: always "contact" at theta_dot = 0


def bouncing_ball(**extra):
    scene = {"gravity": [0, -9.81], "timestep": 0.001, "duration": 0.5, "restitution": 0.0, "friction": 0.0,
             "ground": {"height": 0.0},
             "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0,
                         "position": [0.0, 0.3]}]}
    scene.update(extra)
    return scene


def test_free_fall_then_rest():
    sim = perp.simulate(bouncing_ball())
    assert isinstance(sim, perp.Simulation) and sim.steps == 500 and sim.unsolved == 0
    assert sim.t.shape == (501,) and sim.state.shape == (501, 1, 6)
    ball = sim.body("ball")
    # free fall from y = 0.3: contact at y = 0.1 after sqrt(2 * 0.2 / g) = 0.202 s
    k = sim.sample_index(0.1)
    assert ball.y[k] == pytest.approx(0.3 - 0.5 * 9.81 * sim.t[k] ** 2, abs=2e-3)
    assert ball.y[-1] == pytest.approx(0.1, abs=2e-3) and abs(ball.vy[-1]) < 1e-6
    np.testing.assert_array_equal(sim.y[:, 0], ball.y)
    # energy: total conserved in free flight (theta = 1/2), lost at the plastic impact
    e = sim.energy
    assert e.total[k] == pytest.approx(e.total[0], rel=1e-9)
    assert e.dissipated[-1] == pytest.approx(9.81 * 0.2, rel=2e-2)
    assert e.kinetic[-1] < 1e-9
    # contacts: none before the impact, one per step at rest, with the weight m g h as impulse
    assert sim.contacts_at(0)["gap"].size == 0
    last = sim.contacts_at(-1)
    assert last["body_b"].tolist() == [-1] and last["normal_impulse"][0] == pytest.approx(9.81e-3, rel=1e-6)
    assert all(s is perp.Status.SOLVED for s in sim.status)
    assert "1 bodies" in repr(sim)


def test_scene_files_and_errors(tmp_path):
    sim = perp.simulate(EXAMPLES / "scenes" / "two_contact_block.json")
    assert sim.unsolved == 0 and sim.contacts["gap"].size > 0
    with pytest.raises(perp.InvalidProblem, match="radius"):
        perp.simulate(bouncing_ball(bodies=[{"name": "b", "shape": {"type": "disk", "radius": -1}, "mass": 1,
                                             "position": [0, 1]}]))
    with pytest.raises(perp.InvalidProblem, match="timestep"):
        perp.simulate(bouncing_ball(timestep="fast"))
    with pytest.raises(perp.InvalidProblem, match="cannot open|scene"):
        perp.simulate(tmp_path / "none.json")
    with pytest.raises(perp.InvalidProblem, match="max_bytes"):
        perp.simulate(bouncing_ball(duration=1e5))  # 10^8 steps: refused before it starts
    with pytest.raises(perp.InvalidProblem, match="stopped at step"):
        perp.simulate(bouncing_ball(), max_bytes=90_000)  # the contacts after the impact pass the limit
    with pytest.raises(KeyError, match="ball"):
        perp.simulate(bouncing_ball(duration=0.01)).body("bal")
