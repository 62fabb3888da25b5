"""3D scenes from Python (issue 36): perp.simulate on a "dimension": 3 scene and perp.World3,
against closed forms of the Moreau–Jean step (θ = 1/2):

- free fall: v_k = −g t_k and z_k = z_0 − g t_k²/2 exactly (the trapezoidal position update of a
  velocity linear in t); the ball then rests (e = 0): v = 0, z constant, the overlap at most the
  landing step's h |v|/2;
- a box sliding on the ground in a direction φ: under the exact Coulomb cone the friction opposes
  the sliding velocity, so the speed falls at μ g a step at a time (|v| = v_0 − μ g t), the
  direction stays φ, the distance is v_0 t − μ g t²/2, and the box stops at v_0² / (2 μ g) (to
  the last step's h v_0); the normal impulses of a step sum to m g h."""
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import perp
from conftest import EXAMPLES

G = 9.81


def falling_ball(duration=1.0, h=1e-3):
    return {"dimension": 3, "gravity": [0, 0, -G], "timestep": h, "duration": duration,
            "restitution": 0.0, "friction": 0.5, "ground": {"height": 0.0},
            "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1.0,
                        "position": [0.0, 0.0, 1.0]}]}


def sliding_box(v0, phi, mu, h=1e-3):
    return {"dimension": 3, "gravity": [0, 0, -G], "timestep": h, "duration": 1.0,
            "restitution": 0.0, "friction": mu, "ground": {"height": 0.0},
            "bodies": [{"name": "box", "shape": {"type": "box", "size": [0.4, 0.3, 0.2]}, "mass": 2.0,
                        "position": [0.0, 0.0, 0.1],
                        "velocity": [v0 * math.cos(phi), v0 * math.sin(phi), 0.0]}]}


def test_ball_falls_freely_then_rests():
    h = 1e-3
    run = perp.simulate(falling_ball(h=h))
    assert isinstance(run, perp.Simulation3)
    assert run.state.shape == (1001, 1, 13) and run.t.shape == (1001,)
    assert run.unsolved == 0 and all(s == perp.Status.SOLVED for s in run.status)
    assert run.fallback == [""] * 1000  # one contact a step, solved by auto itself: no step fell back
    t, z, vz = run.t, run.z[:, 0], run.vz[:, 0]
    landing = math.sqrt(2 * 0.9 / G)  # the ball's lowest point reaches z = 0
    before = t < landing - 2 * h
    np.testing.assert_allclose(z[before], 1.0 - G * t[before] ** 2 / 2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(vz[before], -G * t[before], rtol=0, atol=1e-12)
    after = t > landing + 0.05
    assert np.abs(run.velocity[after]).max() < 1e-12
    assert np.ptp(z[after]) < 1e-12
    overlap = 0.1 - z[after][0]
    assert -1e-9 <= overlap <= h * G * landing / 2 + 1e-9
    # No friction torque on a ball falling straight: it never turns.
    assert np.abs(run.angular_velocity).max() == 0
    np.testing.assert_array_equal(run.orientation[:, 0], np.tile([1.0, 0, 0, 0], (run.t.size, 1)))
    # Resting: one contact a step with the ground (body_b −1), its normal impulse m g h.
    last = run.contacts_at(-1)
    assert list(last["body_b"]) == [-1]
    assert last["impulse"][0, 0] == pytest.approx(G * h, rel=1e-9)


@pytest.mark.parametrize("phi_degrees", [0.0, 30.0, 135.0])
def test_box_slides_decelerating_at_mu_g(phi_degrees):
    v0, mu, h = 2.0, 0.3, 1e-3
    phi = math.radians(phi_degrees)
    run = perp.simulate(sliding_box(v0, phi, mu, h))
    assert run.unsolved == 0
    t, v = run.t, run.velocity[:, 0, :]
    stop = v0 / (mu * G)
    sliding = t < stop - 2 * h
    speed = np.hypot(v[:, 0], v[:, 1])
    np.testing.assert_allclose(speed[sliding], v0 - mu * G * t[sliding], rtol=0, atol=1e-9)
    # The direction of sliding stays φ (the exact cone: friction opposes the velocity).
    np.testing.assert_allclose(v[sliding, 0] * math.sin(phi) - v[sliding, 1] * math.cos(phi), 0, atol=1e-10)
    distance = np.hypot(run.x[:, 0], run.y[:, 0])
    np.testing.assert_allclose(distance[sliding], v0 * t[sliding] - mu * G * t[sliding] ** 2 / 2, rtol=0, atol=1e-9)
    assert np.abs(v[t > stop + 2 * h]).max() < 1e-9
    assert abs(distance[-1] - v0 ** 2 / (2 * mu * G)) <= h * v0
    # Flat on the ground throughout: z, v_z and ω stay 0; the four corners carry m g h.
    assert np.abs(run.z[:, 0] - 0.1).max() < 1e-9
    assert np.abs(v[:, 2]).max() < 1e-9 and np.abs(run.angular_velocity).max() < 1e-8
    step = run.contacts_at(100)
    assert step["impulse"].shape == (4, 3)
    # To the solve's tolerance: relative error 1e-10 of ‖u‖ ~ v_0, times the mass: ~4e-10 N·s.
    assert step["impulse"][:, 0].sum() == pytest.approx(2.0 * G * h, abs=1e-9)


def test_world3_steps_as_simulate_and_free_fall():
    h = 1e-3
    world = perp.World3(falling_ball(duration=0.2, h=h))
    assert world.names == ["ball"] and world.state.shape == (1, 13)
    run = perp.simulate(falling_ball(duration=0.2, h=h))
    for k in range(200):
        report = world.step()
        assert report.status == perp.Status.SOLVED and report.method == ""  # no contact while falling
        np.testing.assert_array_equal(world.state, run.state[k + 1])
    assert world.steps == 200 and world.t == pytest.approx(0.2, abs=1e-15)
    assert world.position[0, 2] == pytest.approx(1.0 - G * 0.2 ** 2 / 2, abs=1e-12)
    kinetic, potential = world.energy()
    assert kinetic == pytest.approx(0.5 * (G * 0.2) ** 2, rel=1e-12)
    # Setting the state: the ball put back on the ground at rest stays there, one contact a step.
    state = world.state
    state[0, :] = [0.0, 0.0, 0.1, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    world.state = state
    report = world.step()
    assert report.status == perp.Status.SOLVED and report.contacts["gap"].size == 1
    assert report.contacts["impulse"][0, 0] == pytest.approx(G * h, rel=1e-9)
    assert report.criteria["signorini"] <= 1e-12 and report.criteria["coulomb"] <= 1e-12
    assert abs(world.state[0, 9]) < 1e-12


def test_example_scene_file_with_every_shape():
    run = perp.simulate(EXAMPLES / "scenes" / "shapes3d.json")
    assert isinstance(run, perp.Simulation3)
    assert run.names == ["ball", "crate", "capsule", "drum", "pedestal", "marble"]
    assert [s["type"] for s in run.shapes] == ["sphere", "box", "capsule", "cylinder", "box", "sphere"]
    assert run.unsolved == 0 and run.steps == 300 and run.state.shape == (301, 6, 13)
    # Unit quaternions throughout; the fixed pedestal does not move.
    np.testing.assert_allclose(np.linalg.norm(run.orientation, axis=2), 1.0, atol=1e-9)
    assert np.ptp(run.body("pedestal").position, axis=0).max() == 0
    # The ball, rolling at 3 m/s along x, runs into the drum standing in its path (a body-body
    # contact, body_a < body_b) and pushes it along; it stays on the ground (body_b −1) and
    # short of the wall x = 3.
    hits = run.contacts["body_b"][run.contacts["body_a"] == run.names.index("ball")]
    assert set(hits.tolist()) == {-1, run.names.index("drum")}
    assert run.body("drum").position[-1, 0] > 1.5 + 0.1
    assert run.body("ball").position[:, 0].max() < 3.0 - 0.3


def test_bad_input_is_named():
    with pytest.raises(perp.InvalidProblem, match=r"bodies\[0\]"):
        scene = falling_ball()
        scene["bodies"][0]["orientation"] = [1.0, 1.0, 0.0, 0.0]
        perp.simulate(scene)
    world = perp.World3(falling_ball())
    with pytest.raises(perp.InvalidProblem, match=r"state: expected shape \(1, 13\), got \(13,\)"):
        world.state = np.zeros(13)
    bad = world.state
    bad[0, 3] = 2.0  # not a unit quaternion
    with pytest.raises(perp.InvalidProblem, match="ball"):
        world.state = bad
    bad[0, 3] = float("nan")
    with pytest.raises(perp.InvalidProblem, match=r"state\[0, 3\].*must be finite"):
        world.state = bad
    with pytest.raises(perp.InvalidProblem, match="max_bytes"):
        perp.simulate(falling_ball(), max_bytes=1000)


def test_friction_models_from_the_scene_and_per_step():
    """The convex model lifts a sliding box at μ times its speed (one step from v0 along x:
    v_x = (v0 − μ g h) / (1 + μ²), v_z = μ v_x); the polyhedral model with k = 4 slows it along the
    pyramid's vertex −x only (after 20 steps at 30°: v = (v0 cos 30° − 20 h μ g, v0 sin 30°)); the
    scene keys and the step's keywords set the same options."""
    v0, mu, h = 1.0, 0.5, 1e-3
    scene = dict(sliding_box(v0, 0.0, mu), friction_model="anitescu-potra")
    world = perp.World3(scene)
    assert world.model_options == {"friction_model": "anitescu-potra", "facets": 8, "baumgarte": 0.2,
                                   "slop": 0.005, "split_impulse": True, "sleeping": False,
                                   "sleep_speed": 0.01, "sleep_time": 0.5}
    step = world.step()
    assert step.status is perp.Status.SOLVED and step.law == "convex" and step.method in ("interior-point", "admm")
    slide = (v0 - mu * G * h) / (1 + mu * mu)
    assert abs(world.velocity[0, 0] - slide) < 1e-9
    assert abs(world.velocity[0, 2] - mu * slide) < 1e-9
    exact = perp.World3(sliding_box(v0, 0.0, mu))
    assert exact.step().law == "coulomb" and abs(exact.velocity[0, 2]) < 1e-10
    # Per step: the same convex step by keyword on a Coulomb scene.
    keyword = perp.World3(sliding_box(v0, 0.0, mu))
    keyword.step(friction_model="anitescu-potra")
    assert abs(keyword.velocity[0, 2] - mu * slide) < 1e-9
    phi = math.radians(30)
    for world in (perp.World3(dict(sliding_box(v0, phi, mu), friction_model="stewart-trinkle", facets=4)),
                  perp.World3(sliding_box(v0, phi, mu))):
        options = {} if world.model_options["friction_model"] == "stewart-trinkle" else \
            {"friction_model": "stewart-trinkle", "facets": 4}
        for _ in range(20):
            assert world.step(**options).status is perp.Status.SOLVED
        assert abs(world.velocity[0, 0] - (v0 * math.cos(phi) - 20 * h * mu * G)) < 1e-10
        assert abs(world.velocity[0, 1] - v0 * math.sin(phi)) < 1e-10
    with pytest.raises(perp.InvalidProblem, match="friction_model must be one of"):
        perp.World3(dict(scene, friction_model="cone"))
    with pytest.raises(perp.InvalidProblem, match="facets must be an integer in"):
        perp.World3(dict(scene, facets=2))
    with pytest.raises(perp.InvalidProblem, match="unknown friction model 'cone'"):
        world.step(friction_model="cone")
    with pytest.raises(perp.InvalidProblem, match="facets: expected an int in"):
        world.step(facets=2)
    with pytest.raises(TypeError, match="split_impulse"):
        world.step(split_impulse="yes")
    with pytest.raises(perp.InvalidProblem, match="baumgarte must be in"):
        world.step(baumgarte=1.5)


def test_sleeping_from_the_scene():
    """A box at rest on the ground with "sleeping": true sleeps once at rest for sleep_time (0.1 s
    at h = 1/60: 6 steps) and then does not move; the report counts it."""
    scene = {"dimension": 3, "gravity": [0, 0, -9.81], "timestep": 1 / 60, "duration": 1.0,
             "restitution": 0.0, "friction": 0.5, "ground": {"height": 0.0}, "sleeping": True,
             "sleep_time": 0.1,
             "bodies": [{"name": "box", "shape": {"type": "box", "size": [0.4, 0.3, 0.2]}, "mass": 2.0,
                         "position": [0, 0, 0.1001]}]}
    world = perp.World3(scene)
    assert world.model_options["sleeping"] is True and world.model_options["sleep_time"] == 0.1
    reports = [world.step() for _ in range(40)]
    asleep = [k for k, r in enumerate(reports) if r.sleeping_bodies == 1]
    assert asleep and asleep == list(range(asleep[0], 40)) and 6 <= asleep[0] < 30
    where = world.position.copy()
    for _ in range(10):
        assert world.step().sleeping_bodies == 1
    assert (world.position == where).all() and (world.velocity == 0).all()
    with pytest.raises(perp.InvalidProblem, match="sleep_time"):
        perp.World3(dict(scene, sleep_time=-1.0))


def test_drift_correction_lifts_an_overlapping_ball():
    """A ball 1 cm into the ground (twice the 5 mm slop): the split impulse (default) lifts it to
    the slop with no velocity; with baumgarte 0 the overlap stays."""
    scene = falling_ball()
    scene["bodies"][0]["position"] = [0.0, 0.0, 0.09]
    corrected = perp.World3(scene)
    split_steps = sum(corrected.step().split_contacts > 0 for _ in range(500))
    assert split_steps > 0
    assert -0.005 * 1.011 < corrected.position[0, 2] - 0.1 < -0.005 * 0.99
    assert np.abs(corrected.velocity).max() < 1e-9
    plain = perp.World3(dict(scene, baumgarte=0.0))
    for _ in range(100):
        plain.step()
    assert abs(plain.position[0, 2] - 0.09) < 1e-9


ODD = textwrap.dedent(r"""
    import numpy as np, perp
    from perp import _perp
    scene = {"dimension": 3, "gravity": [0, 0, -9.81], "timestep": 1e-3, "duration": 0.01, "restitution": 0,
             "friction": 0.5, "ground": {"height": 0},
             "bodies": [{"name": "b", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1, "position": [0, 0, 0.1]}]}
    world = perp.World3(scene)
    def attempt(f):
        try:
            f()
            print("accepted")
        except (ValueError, TypeError) as error:  # perp.InvalidProblem is a ValueError
            print(type(error).__name__)
    def set_state(v):
        world.state = v
    for v in [None, 0, 1.5, "M", [], [[]], np.zeros(0), np.zeros((0, 13)), np.full((1, 13), np.nan),
              np.ones((1, 13, 1)), np.array([["a"] * 13]), np.ones((1, 13), dtype=object), {"a": 1}, object(),
              np.ones((1, 26))[:, ::2], np.zeros((1, 13)), np.float32(np.ones((1, 13))) * 1e38]:
        attempt(lambda: set_state(v))
    for key, value in [("timestep", -1), ("duration", 1e300), ("bodies", 3), ("gravity", [0, 0]), ("dimension", 3.5)]:
        attempt(lambda: perp.simulate(dict(scene, **{key: value})))
        attempt(lambda: perp.World3(dict(scene, **{key: value})))
    for text in ["", "{", "[]", '{"dimension": 3}', "null"]:
        attempt(lambda: _perp.simulate3d_json(text, "x", 1e9))
        attempt(lambda: _perp.Stepper3.from_json(text, "x"))
    attempt(lambda: _perp.simulate3d_file("/nonexistent/scene.json", 1e9))
    attempt(lambda: _perp.Stepper3.from_file("/nonexistent/scene.json"))
    world.state = np.array([[0, 0, 0.1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]], dtype=float)
    print("stepped", world.step().status)
""")


def test_odd_input_raises_and_never_crashes():
    """In a child interpreter, so that a crash fails this test instead of killing pytest."""
    done = subprocess.run([sys.executable, "-c", ODD], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "stepped solved"
    assert len(lines) == 17 + 10 + 10 + 2 + 1 and "accepted" not in lines, lines
