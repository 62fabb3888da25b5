"""perp.VecWorld and perp.VecEnv: copies of a scene stepped together, each bit-identical to the
scene stepped alone through perp's single-world API; reset by mask; a failed world flagged while
the others go on; bad input refused by name."""

import json

import numpy as np
import pytest
from conftest import interrupt_child

import perp

TIMESTEP = 0.01


def pile_scene(disks=10):
    """Disks in two rows dropped onto the ground: contacts within a few steps."""
    bodies = []
    for k in range(disks):
        row, col = divmod(k, 5)
        bodies.append({"name": f"d{k}", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0 + 0.05 * k,
                       "position": [0.21 * col + 0.1 * row, 0.12 + 0.22 * row]})
    return {"gravity": [0, -9.81], "timestep": TIMESTEP, "duration": 1.0, "restitution": 0.1, "friction": 0.4,
            "ground": {"height": 0.0}, "bodies": bodies}


def alone(scene):
    """The scene's world as a perp.World, for perp.moreau_jean_step."""
    bodies = [perp.Body(b["name"], perp.Disk(b["shape"]["radius"]), b["mass"], position=b["position"])
              for b in scene["bodies"]]
    return perp.World(bodies, ground=scene["ground"]["height"])


def step_alone(world, scene, forces=None):
    if forces is not None:
        for b, body in enumerate(world.bodies):
            body.force = forces[b, :2]
            body.torque = forces[b, 2]
            world.set_body(b, body)
    return perp.moreau_jean_step(world, timestep=scene["timestep"], friction=scene["friction"],
                                 restitution=scene["restitution"], gravity=scene["gravity"])


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_each_world_is_bit_identical_to_stepping_it_alone(threads):
    scene = pile_scene()
    n, steps = 5, 30
    vec = perp.VecWorld(scene, n, threads=threads)
    assert vec.threads == threads and vec.n == n and len(vec) == n
    assert vec.body_names == [f"d{k}" for k in range(10)]
    worlds = [alone(scene) for _ in range(n)]
    rng = np.random.default_rng(7)
    touched = 0
    for k in range(steps):
        forces = rng.uniform(-15, 15, size=(n, 10, 3))
        vec.step(forces)
        q, v = vec.positions, vec.velocities
        assert q.shape == (n, 10, 3) and v.shape == (n, 10, 3) and q.dtype == np.float64
        for i, w in enumerate(worlds):
            report = step_alone(w, scene, forces[i])
            state = w.state
            # Bit-identical: exact equality, not a tolerance.
            assert np.array_equal(q[i], state[:, :3]), (k, i)
            assert np.array_equal(v[i], state[:, 3:]), (k, i)
            assert vec.contacts[i] == len(report.contacts["gap"])
            per_body = np.zeros(10, dtype=int)  # each contact counted on its bodies (-1: the ground)
            for a, b in zip(report.contacts["body_a"], report.contacts["body_b"]):
                per_body[a] += 1
                if b >= 0:
                    per_body[b] += 1
            assert np.array_equal(vec.body_contacts[i], per_body), (k, i)
            assert vec.status[i] == report.status and vec.fallback[i] == report.fallback
            assert vec.solved[i] == (report.status == perp.Status.SOLVED)
            assert vec.criterion[i] == (report.relative_residual if report.method else 0.0)
            touched += vec.contacts[i]
    assert touched > 0
    assert not vec.failed.any() and vec.messages == [""] * n
    assert (vec.steps == steps).all()


def test_without_forces_it_follows_perp_simulate(tmp_path):
    scene = pile_scene()
    scene["duration"] = 20 * TIMESTEP
    run = perp.simulate(scene)
    path = tmp_path / "pile.json"
    path.write_text(json.dumps(scene))
    vec = perp.VecWorld(path, 3, threads=2)  # a path works as a dict does
    for k in range(20):
        vec.step()
        for i in range(3):
            assert np.array_equal(vec.positions[i], run.state[k + 1][:, :3])
            assert np.array_equal(vec.velocities[i], run.state[k + 1][:, 3:])


def test_reset_restores_the_masked_worlds_only():
    scene = pile_scene()
    vec = perp.VecWorld(scene, 4, threads=2)
    q0 = vec.positions
    # Before any step: the scene's positions, zero velocities.
    assert np.array_equal(q0[2, :, :2], np.array([b["position"] for b in scene["bodies"]]))
    assert not vec.velocities.any()
    for _ in range(25):
        vec.step()
    moved = vec.positions
    mask = np.array([False, True, False, True])
    vec.reset(mask)
    q = vec.positions
    assert np.array_equal(q[mask], q0[mask])
    assert np.array_equal(q[~mask], moved[~mask])
    assert list(vec.steps) == [25, 0, 25, 0]
    assert not vec.velocities[mask].any()
    # A reset world starts again exactly as a fresh one (the warm start forgotten too).
    fresh = perp.VecWorld(scene, 1, threads=1)
    for _ in range(10):
        vec.step()
        fresh.step()
    assert np.array_equal(vec.positions[1], fresh.positions[0])
    vec.reset()
    assert np.array_equal(vec.positions, q0)
    with pytest.raises(perp.InvalidProblem, match=r"mask: expected shape \(4,\)"):
        vec.reset(np.array([True, False]))
    with pytest.raises(TypeError, match="mask: expected an array of 4 booleans"):
        vec.reset([1, 0, 1, 0])


def test_a_failed_world_is_flagged_and_the_others_go_on():
    scene = {"gravity": [0, -9.81], "timestep": TIMESTEP, "duration": 1.0, "restitution": 0.0,
             "friction": 0.0, "ground": {"height": 0.0},
             "bodies": [{"name": "light", "shape": {"type": "disk", "radius": 0.1}, "mass": 1e-3,
                         "position": [0.0, 1.0]},
                        {"name": "heavy", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0,
                         "position": [1.0, 1.0]}]}
    vec = perp.VecWorld(scene, 3, threads=2)
    forces = np.zeros((3, 2, 3))
    forces[1, 0, 0] = 1e308  # h f / m = 0.01 * 1e308 / 1e-3 overflows
    vec.step(forces)
    assert list(vec.failed) == [False, True, False]
    assert not vec.solved[1] and vec.solved[0] and vec.solved[2]
    assert "body 'light' x = +inf" in vec.messages[1] and vec.messages[1].startswith("step 1: ")
    vec.step()
    assert list(vec.steps) == [2, 1, 2]
    # Free fall from rest, by hand: v = -2 g h after two steps.
    assert vec.velocities[2, 1, 1] == pytest.approx(-2 * 9.81 * TIMESTEP, abs=1e-15)
    vec.reset(np.array([False, True, False]))
    vec.step()
    assert not vec.failed.any() and vec.messages == ["", "", ""]


def test_bad_input_is_refused_by_name():
    scene = pile_scene(3)
    with pytest.raises(perp.InvalidProblem, match=r"n: expected an int in \[1"):
        perp.VecWorld(scene, 0)
    with pytest.raises(TypeError, match="n: expected an int"):
        perp.VecWorld(scene, 2.5)
    with pytest.raises(perp.InvalidProblem, match="threads"):
        perp.VecWorld(scene, 2, threads=-1)
    with pytest.raises(perp.InvalidProblem, match="timestep"):
        perp.VecWorld(dict(scene, timestep=-1.0), 2)
    with pytest.raises(perp.InvalidProblem, match="dimension"):
        perp.VecWorld({"dimension": 3, "bodies": []}, 2)
    vec = perp.VecWorld(scene, 2, threads=1)
    with pytest.raises(perp.InvalidProblem, match=r"forces: expected shape \(2, 3, 3\).*got \(2, 3\)"):
        vec.step(np.zeros((2, 3)))
    forces = np.zeros((2, 3, 3))
    forces[1, 2, 1] = np.nan
    with pytest.raises(perp.InvalidProblem, match=r"forces\[1, 2, 1\] \(world 1, body 'd2', fy\) is NaN"):
        vec.step(forces)
    forces[1, 2, 1] = np.inf
    with pytest.raises(perp.InvalidProblem, match=r"body 'd2', fy\) is \+inf"):
        vec.step(forces)
    with pytest.raises(TypeError, match="forces: expected an array of real numbers"):
        vec.step("push")
    assert list(vec.steps) == [0, 0]  # refused before any world stepped
    with pytest.raises(IndexError, match="out of range"):
        vec.world(2)
    assert isinstance(vec.world(1), perp.World)


def test_vec_env_reset_step_reward_done_and_autoreset():
    scene = pile_scene(2)

    def reward(obs, actions):
        return -obs[:, :, 1].sum(axis=1)  # lower is better: minus the heights

    def done(obs):
        return obs[:, 0, 0] > 0.05  # body d0 pushed right past x = 0.05

    env = perp.VecEnv(scene, 3, reward, done=done, threads=2, max_steps=50)
    obs = env.reset()
    assert obs.shape == (3, 2, 6)
    actions = np.zeros((3, 2, 3))
    actions[0, 0, 0] = 100.0  # only world 0 is pushed
    for _ in range(10):
        obs, r, d, info = env.step(actions)
        assert r.shape == (3,) and d.shape == (3,)
        assert np.array_equal(r, -info.get("final_observation", obs)[:, :, 1].sum(axis=1))
        if d[0]:
            break
    assert d[0] and not d[1] and not d[2]
    # World 0 was done and reset: its observation is the scene's start again, its last one kept.
    assert np.array_equal(obs[0], env.reset()[0])
    assert info["final_observation"][0, 0, 0] > 0.05
    assert set(info) >= {"solved", "criterion", "contacts", "failed", "messages", "steps"}


INTERRUPTED_STEP = """
import sys
import perp
# Disks resting on the ground (contacts from the first step), each step's solve asked for a
# tolerance no step meets by nsgs alone: every world's step runs nsgs to its sweep limit.
bodies = [{"name": f"d{k}", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0, "position": [0.2 * k, 0.1]}
          for k in range(10)]
scene = {"gravity": [0, -9.81], "timestep": 0.01, "duration": 1.0, "restitution": 0.0, "friction": 0.4,
         "ground": {"height": 0.0}, "bodies": bodies, "tol": 1e-300, "method": "nsgs"}
vec = perp.VecWorld(scene, int(sys.argv[1]), threads=2)
print("go", flush=True)
try:
    vec.step()
    print("finished", flush=True)
except KeyboardInterrupt:
    steps = vec.steps
    print("interrupted", int(steps.sum()), int(steps.max()), flush=True)
"""


def test_ctrl_c_stops_a_step_between_worlds():
    n = 5000  # about 4 ms a world: 20 s if the signal were not seen
    out, err, waited = interrupt_child(INTERRUPTED_STEP, [n], after=0.5, timeout=60)
    words = out.split()
    assert words and words[0] == "interrupted", (out, err)
    stepped, most = int(words[1]), int(words[2])
    # Some worlds stepped, not all; none twice; and the step ended soon after the signal.
    assert 0 < stepped < n and most == 1
    assert waited < 2.0, f"KeyboardInterrupt took {waited:.2f} s to end the step"


def test_target_velocities_drive_a_kinematic_pusher_into_a_box():
    # No gravity, frictionless: a fixed pusher driven at 1 m/s (world 0) reaches a box 0.05 m away
    # after 5 steps of 0.01 s and carries it at its own speed (a plastic impact); in world 1 nothing
    # is driven (NaN) and both stay. A wrong shape and an infinite target are refused by name.
    scene = {"gravity": [0, 0], "timestep": 0.01, "duration": 1.0, "restitution": 0.0, "friction": 0.0,
             "bodies": [{"name": "pusher", "shape": {"type": "box", "width": 0.2, "height": 0.2}, "mass": 1.0,
                         "position": [0.0, 0.0], "fixed": True},
                        {"name": "box", "shape": {"type": "box", "width": 0.2, "height": 0.2}, "mass": 1.0,
                         "position": [0.25, 0.0]}]}
    vec = perp.VecWorld(scene, 2, threads=1)
    targets = np.full((2, 2, 3), np.nan)
    targets[0, 0] = (1.0, 0.0, 0.0)
    for _ in range(30):
        vec.step(velocities=targets)
    q, v = vec.positions, vec.velocities
    assert q[0, 0, 0] == pytest.approx(0.3, abs=1e-12)
    assert v[0, 1, 0] == pytest.approx(1.0, abs=1e-9)  # carried at the pusher's speed
    # Touching face to face: the first step in contact overlaps by up to h · 1 m/s = 1 cm, and the
    # default drift correction takes it back to its slop of 5 mm.
    assert q[0, 1, 0] - q[0, 0, 0] == pytest.approx(0.2 - 0.005, abs=1e-9)
    assert np.all(q[1] == np.array([[0.0, 0.0, 0.0], [0.25, 0.0, 0.0]]))
    with pytest.raises(perp.InvalidProblem, match=r"velocities: expected shape \(2, 2, 3\)"):
        vec.step(velocities=np.zeros((2, 3)))
    targets[1, 1, 2] = np.inf
    with pytest.raises(perp.InvalidProblem, match=r"velocities\[1, 1, 2\] \(world 1, body 'box', omega\)"):
        vec.step(velocities=targets)
