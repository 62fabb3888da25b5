"""perp.rollout, perp.rollout_gradient and perp.torch.rollout (docs/python.md, "Rollouts and their
gradients"): the derivatives against central differences of the run away from contact switches,
against the one-sided difference of the documented piece at a switch, and bad input refused by name."""

import numpy as np
import pytest
from conftest import EXAMPLES, interrupt_child

import perp

DELTA = 1e-6


def scene(bodies, friction=0.3, restitution=0.0, timestep=0.01, **extra):
    """A planar scene on the ground at 0 without drift correction (its correction is not
    differentiated where it acts), solved to 1e-14."""
    return {"gravity": [0, -9.81], "timestep": timestep, "restitution": restitution, "friction": friction,
            "tol": 1e-14, "baumgarte": 0, "ground": {"height": 0}, "bodies": bodies, **extra}


def disk(name, radius, mass, position, velocity=(0, 0), angular_velocity=0.0, **extra):
    return {"name": name, "shape": {"type": "disk", "radius": radius}, "mass": mass, "position": list(position),
            "velocity": list(velocity), "angular_velocity": angular_velocity, **extra}


def final_state(run):
    return np.stack([run.positions[-1], run.velocities[-1]])


def initial_state(run):
    return np.stack([run.positions[0], run.velocities[0]])


def assert_close(derivative, difference, what):
    """Within 1e-6 relative to the difference (1e-6 absolute below 1)."""
    error = np.linalg.norm(np.ravel(derivative) - np.ravel(difference))
    assert error <= 1e-6 * max(1.0, np.linalg.norm(difference)), f"{what}: {derivative} vs {difference}"


def check_against_differences(s, steps, forces, rng, force_entries=4, restitution=True):
    """Every column of d(final state)/d(initial state), a few of d/d(forces), d/d(friction) and
    d/d(restitution) against central differences of the whole run."""
    g = perp.rollout_gradient(s, steps, forces=forces)
    assert not g.at_switch.any(), g.switches
    assert g.initial_state.shape == (2, len(s["bodies"]), 3, 2, len(s["bodies"]), 3)
    base = perp.rollout(s, steps, forces=forces)
    x0 = initial_state(base)

    def run(**kw):
        return final_state(perp.rollout(s, steps, **{"forces": forces, "initial_state": x0, **kw}))

    for index in np.ndindex(x0.shape):
        e = np.zeros_like(x0)
        e[index] = DELTA
        fd = (run(initial_state=x0 + e) - run(initial_state=x0 - e)) / (2 * DELTA)
        assert_close(g.initial_state[(...,) + index], fd, f"initial_state{index}")
    for _ in range(force_entries):
        k, i, c = rng.integers(steps), rng.integers(len(s["bodies"])), rng.integers(3)
        e = np.zeros_like(forces)
        e[k, i, c] = DELTA
        fd = (run(forces=forces + e) - run(forces=forces - e)) / (2 * DELTA)
        assert_close(g.forces[..., k, i, c], fd, f"forces[{k}, {i}, {c}]")
    direction = rng.standard_normal(forces.shape)
    fd = (run(forces=forces + DELTA * direction) - run(forces=forces - DELTA * direction)) / (2 * DELTA)
    assert_close(np.tensordot(g.forces, direction, axes=3), fd, "forces along a random direction")
    mu = s["friction"]
    fd = (run(friction=mu + DELTA) - run(friction=mu - DELTA)) / (2 * DELTA)
    assert_close(g.friction, fd, "friction")
    if restitution:
        e = s["restitution"]
        fd = (run(restitution=e + DELTA) - run(restitution=e - DELTA)) / (2 * DELTA)
        assert_close(g.restitution, fd, "restitution")
    return g


def test_rollout_records_every_state_and_the_forces_act():
    # A disk in free flight pushed by fx = 2 N for the first 5 steps: x'' = 2 / m, by hand.
    s = scene([disk("ball", 0.1, 0.5, (0, 5.0), velocity=(1, 0))])
    forces = np.zeros((10, 1, 3))
    forces[:5, 0, 0] = 2.0
    r = perp.rollout(s, 10, forces=forces)
    assert r.positions.shape == r.velocities.shape == (11, 1, 3)
    assert r.solved.shape == r.contacts.shape == (10,)
    assert r.names == ["ball"]
    h = 0.01
    assert r.velocities[5, 0, 0] == pytest.approx(1 + 5 * h * 2 / 0.5, rel=1e-14)
    assert r.velocities[10, 0, 0] == pytest.approx(r.velocities[5, 0, 0], rel=1e-14)
    # θ = ½: x_k = x_0 + h Σ (v_j + v_{j+1}) / 2.
    v = r.velocities[:, 0, 0]
    assert r.positions[10, 0, 0] == pytest.approx(h * np.sum(v[:-1] + v[1:]) / 2, rel=1e-12)
    # Without forces, the scene's own "force" acts at every step.
    pushed = scene([disk("ball", 0.1, 0.5, (0, 5.0), velocity=(1, 0), force=[2.0, 0.0])])
    both = perp.rollout(pushed, 10)
    assert both.velocities[10, 0, 0] == pytest.approx(1 + 10 * h * 2 / 0.5, rel=1e-14)


def test_rollout_matches_simulate_on_a_scene_file():
    # The same steps as perp.simulate on a scene file, its duration giving the steps.
    path = EXAMPLES / "scenes" / "bouncing_ball.json"
    sim = perp.simulate(path)
    r = perp.rollout(path, None)
    assert r.positions.shape[0] == sim.state.shape[0] == sim.steps + 1
    np.testing.assert_array_equal(r.positions, sim.state[:, :, :3])
    np.testing.assert_array_equal(r.velocities, sim.state[:, :, 3:])


def test_bouncing_ball_with_restitution_matches_central_differences():
    # Thrown down onto the ground: it bounces at step 7 with e = 0.6 and flies on; the final state
    # (step 20) is away from the bounce.
    s = scene([disk("ball", 0.1, 0.8, (0.0, 0.3), velocity=(1.0, -2.0), angular_velocity=-3.0)],
              friction=0.2, restitution=0.6)
    steps = 20
    r = perp.rollout(s, steps)
    assert r.contacts.sum() >= 1 and r.contacts[-5:].sum() == 0
    rng = np.random.default_rng(1)
    forces = 0.1 * rng.standard_normal((steps, 1, 3))
    g = check_against_differences(s, steps, forces, rng)
    assert g.restitution[1, 0, 1] > 0  # a livelier ball leaves faster


def test_sliding_box_with_friction_matches_central_differences():
    # A box sunk 0.1 mm into the ground (its corners active with room to spare) slides at 2 m/s,
    # pushed and turned; μ = 0.3 stops it only after 0.68 s, past the 30 steps.
    box = {"name": "box", "shape": {"type": "box", "width": 0.6, "height": 0.3}, "mass": 2.0,
           "position": [0.0, 0.15 - 1e-4], "velocity": [2.0, 0.0]}
    s = scene([box], friction=0.3)
    steps = 30
    rng = np.random.default_rng(2)
    forces = np.zeros((steps, 1, 3))
    forces[:, 0, 0] = 1.0 + 0.5 * np.sin(np.arange(steps))
    forces[:, 0, 2] = 0.05 * rng.standard_normal(steps)
    g = check_against_differences(s, steps, forces, rng, restitution=False)
    # By hand, while it slides flat: v_x(T) = v_0 + T (F̄ / m − μ g), so ∂v_x/∂μ = −g T and
    # ∂v_x/∂v_x(0) = 1.
    assert g.friction[1, 0, 0] == pytest.approx(-9.81 * steps * 0.01, rel=1e-9)
    assert g.initial_state[1, 0, 0, 1, 0, 0] == pytest.approx(1.0, rel=1e-9)


def pile_of_ten(seed=3):
    """Ten disks in rows of 4, 3, 2, 1, thrown down onto the ground and onto each other."""
    rng = np.random.default_rng(seed)
    bodies = []
    for row, count in enumerate([4, 3, 2, 1]):
        for c in range(count):
            x = -0.33 + 0.22 * c + 0.11 * row + 0.01 * rng.standard_normal()
            y = 0.13 + row * 0.215 + 0.01 * rng.random()
            bodies.append(disk(f"d{len(bodies)}", 0.1, 1.0 + 0.2 * rng.random(), (x, y),
                               velocity=(0.2 * rng.standard_normal(), -0.5 - 0.3 * rng.random()),
                               angular_velocity=rng.standard_normal()))
    return scene(bodies, friction=0.5)


def test_ten_disk_pile_matches_central_differences():
    s = pile_of_ten()
    steps = 30
    r = perp.rollout(s, steps)
    assert r.contacts[-10:].min() >= 10  # the pile has landed and presses
    rng = np.random.default_rng(3)
    forces = 0.5 * rng.standard_normal((steps, 10, 3))
    check_against_differences(s, steps, forces, rng, force_entries=6, restitution=False)


def box_at_rest(mu=0.5, mass=1.0):
    return scene([{"name": "box", "shape": {"type": "box", "width": 1.0, "height": 0.5}, "mass": mass,
                   "inertia": mass / 12, "position": [0.0, 0.25]}], friction=mu)


def test_push_at_the_friction_limit_returns_the_documented_one_sided_derivative():
    # A box at rest pushed at exactly μ m g sits on the stick/slip boundary at every step (and
    # rests at gap 0: at the activation switch, held active). "bound" returns the slip piece: the
    # one-sided difference of a larger push, x(T) = (F − μ m g) T² / (2 m); "free" the stick
    # piece: a smaller push does not move it.
    mu, mass, steps = 0.5, 1.0, 20
    s = box_at_rest(mu, mass)
    push = np.zeros((steps, 1, 3))
    push[:, 0, 0] = mu * mass * 9.81

    def final_x(forces):
        return perp.rollout(s, steps, forces=forces).positions[-1, 0, 0]

    weights = np.zeros((2, 1, 3))
    weights[0, 0, 0] = 1.0  # L = x(T)
    slip = perp.rollout_gradient(s, steps, forces=push, weights=weights)
    kinds = {(w["kind"], w["piece"]) for w in slip.switches}
    assert kinds == {("stick-slip", "slip"), ("activation", "active")}
    assert slip.at_switch.all()
    assert sum(w["kind"] == "stick-slip" for w in slip.switches) == 2 * steps  # both corners, every step
    t = 1e-3  # each piece is linear in the push
    larger = (final_x(push + t * (push > 0)) - final_x(push)) / t
    assert larger == pytest.approx(0.2**2 / (2 * mass), rel=1e-9)
    assert slip.forces[:, 0, 0].sum() == pytest.approx(larger, rel=1e-6)
    for k in (0, 10, 19):
        one = push.copy()
        one[k, 0, 0] += t
        assert slip.forces[k, 0, 0] == pytest.approx((final_x(one) - final_x(push)) / t, rel=1e-6)
    stick = perp.rollout_gradient(s, steps, forces=push, weights=weights, degenerate="free", minimum_norm=True)
    assert {w["piece"] for w in stick.switches if w["kind"] == "stick-slip"} == {"stick"}
    assert stick.degenerate == "free"
    smaller = (final_x(push - t * (push > 0)) - final_x(push)) / -t
    assert abs(smaller) < 1e-9
    assert abs(stick.forces[:, 0, 0].sum()) < 1e-9


@pytest.mark.parametrize("offset", [-1e-11, 1e-11])
def test_landing_at_the_end_of_a_step_returns_the_documented_one_sided_derivative(offset):
    # The ball's predicted gap reaches the activation threshold (1e-9 m) at step 10, 1e-11 m below
    # it (found active: the piece of lower starts) or above (inactive: the piece of higher starts).
    radius, h, landing, steps = 0.1, 0.01, 10, 14
    flight = perp.rollout(scene([disk("ball", radius, 1.0, (0, 1.0))], restitution=0.5), landing)
    y, vy = flight.positions[-1, 0, 1], flight.velocities[-1, 0, 1]
    s = scene([disk("ball", radius, 1.0, (0, 1.0))], restitution=0.5)
    s["ground"] = {"height": y - radius + 0.5 * h * vy - 1e-9 - offset}
    weights = np.zeros((2, 1, 3))
    weights[0, 0, 1], weights[1, 0, 1] = 1.0, 0.3  # L = y(T) + 0.3 vy(T)
    g = perp.rollout_gradient(s, steps, weights=weights)
    assert g.switches == [{"step": landing, "contact": 0 if offset < 0 else -1, "body_a": 0, "body_b": -1,
                           "kind": "activation", "piece": "active" if offset < 0 else "inactive"}]
    assert g.at_switch.tolist() == [k == landing for k in range(steps)]

    def loss(dy):
        x0 = np.array([[[0, 1.0 + dy, 0]], [[0, 0, 0]]])
        r = perp.rollout(s, steps, initial_state=x0)
        return r.positions[-1, 0, 1] + 0.3 * r.velocities[-1, 0, 1]

    t = -1e-7 if offset < 0 else 1e-7  # the piece's side
    assert g.initial_state[0, 0, 1] == pytest.approx((loss(t) - loss(0)) / t, rel=1e-6)
    other = (loss(-t) - loss(0)) / -t  # the other side jumps
    assert abs(other - g.initial_state[0, 0, 1]) > 1.0


def test_weights_give_the_jacobian_contracted():
    s = pile_of_ten()
    steps = 12
    rng = np.random.default_rng(4)
    forces = rng.standard_normal((steps, 10, 3))
    full = perp.rollout_gradient(s, steps, forces=forces)
    w = rng.standard_normal((2, 10, 3))
    g = perp.rollout_gradient(s, steps, forces=forces, weights=w)
    np.testing.assert_allclose(g.initial_state, np.tensordot(w, full.initial_state, axes=3), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g.forces, np.tensordot(w, full.forces, axes=3), rtol=1e-12, atol=1e-12)
    assert g.friction == pytest.approx(np.sum(w * full.friction), rel=1e-12, abs=1e-12)
    # Weights on every state: the initial state's own weight passes straight through.
    every = np.zeros((steps + 1, 2, 10, 3))
    every[0] = w
    g0 = perp.rollout_gradient(s, steps, forces=forces, weights=every)
    np.testing.assert_array_equal(g0.initial_state, w)
    assert not g0.forces.any()
    assert g["forces"] is g.forces and set(g.keys()) >= {"initial_state", "forces", "friction", "restitution"}


def test_bad_input_is_refused_by_name():
    s = scene([disk("ball", 0.1, 1.0, (0, 1.0))])
    with pytest.raises(ValueError, match=r"forces: expected shape \(5, 1, 3\).*got \(5, 3\)"):
        perp.rollout(s, 5, forces=np.zeros((5, 3)))
    bad = np.zeros((5, 1, 3))
    bad[2, 0, 1] = np.nan
    with pytest.raises(ValueError, match=r"forces\[2, 0, 1\] is NaN"):
        perp.rollout(s, 5, forces=bad)
    state = np.zeros((2, 1, 3))
    state[0, 0, 1] = np.inf
    with pytest.raises(ValueError, match=r"initial_state\[0, 0, 1\] is \+inf"):
        perp.rollout(s, 5, initial_state=state)
    with pytest.raises(ValueError, match=r"initial_state: expected shape \(2, 1, 3\)"):
        perp.rollout(s, 5, initial_state=np.zeros(6))
    with pytest.raises(perp.InvalidProblem, match="friction: expected a finite number >= 0, got NaN"):
        perp.rollout(s, 5, friction=float("nan"))
    with pytest.raises(perp.InvalidProblem, match="restitution: expected a number in \\[0, 1\\], got 1.5"):
        perp.rollout(s, 5, restitution=1.5)
    with pytest.raises(TypeError, match="steps: expected an int"):
        perp.rollout(s, 2.5)
    with pytest.raises(ValueError, match="steps: expected an int >= 0, got -1"):
        perp.rollout(s, -1)
    with pytest.raises(TypeError, match="friction: expected a real number"):
        perp.rollout(s, 5, friction="high")
    with pytest.raises(ValueError, match=r"weights: expected shape \(2, 1, 3\)"):
        perp.rollout_gradient(s, 5, weights=np.zeros(3))
    with pytest.raises(perp.InvalidProblem, match="degenerate"):
        perp.rollout_gradient(s, 5, degenerate="middle")
    with pytest.raises(perp.InvalidProblem, match="bodies\\[0\\].mass"):
        perp.rollout(scene([disk("ball", 0.1, -1.0, (0, 1.0))]), 5)
    with pytest.raises(perp.InvalidProblem, match="3D"):
        perp.rollout({"dimension": 3}, 5)
    with pytest.raises(TypeError, match="scene: expected a dict or the path"):
        perp.rollout(42, 5)
    # A step that is not differentiated is named.
    projected = dict(s, projection=True)
    with pytest.raises(perp.InvalidProblem, match="step 0: .*projection"):
        perp.rollout_gradient(projected, 5)


def test_no_step_is_the_identity():
    s = scene([disk("a", 0.1, 1.0, (0, 1.0)), disk("b", 0.1, 1.0, (1, 1.0))])
    g = perp.rollout_gradient(s, 0)
    np.testing.assert_array_equal(g.initial_state.reshape(12, 12), np.eye(12))
    assert g.forces.shape == (2, 2, 3, 0, 2, 3)


def test_torch_rollout_backward_matches_central_differences():
    torch = pytest.importorskip("torch")
    import perp.torch as pt

    # A loss on every state of the bouncing ball: Σ_k (y_k − 0.2)² + 0.1 Σ_k ω_k².
    s = scene([disk("ball", 0.1, 0.8, (0.0, 0.3), velocity=(1.0, -2.0), angular_velocity=-3.0)],
              friction=0.2, restitution=0.6)
    steps = 20
    rng = np.random.default_rng(5)
    x0 = np.stack([perp.rollout(s, 0).positions[0], perp.rollout(s, 0).velocities[0]])
    f0 = 0.1 * rng.standard_normal((steps, 1, 3))

    def loss_of(positions, velocities):
        return ((positions[:, 0, 1] - 0.2) ** 2).sum() + 0.1 * (velocities[:, 0, 2] ** 2).sum()

    x = torch.tensor(x0, requires_grad=True)
    f = torch.tensor(f0, requires_grad=True)
    mu = torch.tensor(0.2, dtype=torch.float64, requires_grad=True)
    e = torch.tensor(0.6, dtype=torch.float64, requires_grad=True)
    positions, velocities = pt.rollout(s, steps, x, f, friction=mu, restitution=e)
    assert positions.shape == velocities.shape == (steps + 1, 1, 3)
    loss_of(positions, velocities).backward()

    def loss(**kw):
        args = {"initial_state": x0, "forces": f0, "friction": 0.2, "restitution": 0.6, **kw}
        r = perp.rollout(s, steps, **args)
        return float(loss_of(r.positions, r.velocities))

    for index in np.ndindex(x0.shape):
        d = np.zeros_like(x0)
        d[index] = DELTA
        fd = (loss(initial_state=x0 + d) - loss(initial_state=x0 - d)) / (2 * DELTA)
        assert_close(x.grad.numpy()[index], fd, f"initial_state{index}")
    direction = rng.standard_normal(f0.shape)
    fd = (loss(forces=f0 + DELTA * direction) - loss(forces=f0 - DELTA * direction)) / (2 * DELTA)
    assert_close(np.sum(f.grad.numpy() * direction), fd, "forces")
    assert_close(mu.grad.item(), (loss(friction=0.2 + DELTA) - loss(friction=0.2 - DELTA)) / (2 * DELTA), "friction")
    assert_close(e.grad.item(), (loss(restitution=0.6 + DELTA) - loss(restitution=0.6 - DELTA)) / (2 * DELTA),
                 "restitution")
    # Inputs left out keep the scene's and need no gradient.
    p2, _ = pt.rollout(s, steps, forces=f)
    np.testing.assert_allclose(p2.detach().numpy(), perp.rollout(s, steps, forces=f0).positions, rtol=0, atol=0)


INTERRUPTED_ROLLOUT = r'''
import json, sys, time
import perp
scene = json.load(open(sys.argv[1]))
scene["tol"] = 1e-300         # no step meets it: nsgs runs its 10 000 sweeps on every contact step
scene["method"] = "nsgs"
print("go", flush=True)
start = time.monotonic()
try:
    perp.rollout(scene, 100000)
except KeyboardInterrupt:
    print("interrupted after %.3f s" % (time.monotonic() - start), flush=True)
    sys.exit(0)
print("not interrupted", flush=True)
'''


def test_ctrl_c_interrupts_a_rollout_quickly():
    out, err, waited = interrupt_child(INTERRUPTED_ROLLOUT, [EXAMPLES / "scenes" / "disk_pile.json"], after=1.0,
                                       timeout=20)
    assert out.startswith("interrupted after "), (out, err)
    assert waited < 1.0, f"KeyboardInterrupt took {waited:.2f} s to end the rollout"
