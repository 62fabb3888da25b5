"""World, Body, shapes and moreau_jean_step from Python: one step by hand, and the same run as simulate."""

import copy
import math

import numpy as np
import pytest

import perp
from conftest import EXAMPLES

G = 9.81


def ball(y=1.0, **kw):
    return perp.Body("ball", perp.Disk(0.1), 1.0, position=(0.0, y), **kw)


def test_free_flight_step_by_hand():
    w = perp.World([ball(1.0, velocity=(2.0, 0.0))], ground=0.0)
    h = 1e-2
    r = perp.moreau_jean_step(w, timestep=h)
    # v1 = v0 + h g, q1 = q0 + h (v0 + v1) / 2 (theta = 1/2), no contact
    x, y, angle, vx, vy, omega = w.state[0]
    assert vy == pytest.approx(-G * h) and vx == pytest.approx(2.0)
    assert y == pytest.approx(1.0 - G * h * h / 2) and x == pytest.approx(2.0 * h)
    assert r.status is perp.Status.SOLVED and r.contacts["gap"].size == 0 and r.problem_size == 0


def test_resting_ball_carries_its_weight():
    w = perp.World([ball(0.1)], ground=0.0)
    for _ in range(20):
        r = w.step(timestep=1e-3)
    assert r.contacts["body_b"].tolist() == [-1] and r.contacts["normal"][0].tolist() == [0.0, 1.0]
    assert r.normal_impulse[0] == pytest.approx(G * 1e-3, rel=1e-9)  # m g h
    assert abs(w.body("ball").velocity[1]) < 1e-12
    assert r.criteria["signorini"] <= 1e-12 and r.warm_started == 1


def test_stepping_by_hand_matches_simulate():
    import json
    scene = json.loads((EXAMPLES / "scenes" / "bouncing_ball.json").read_text())
    sim = perp.simulate(scene)
    bodies = [perp.Body(b["name"], perp.Disk(b["shape"]["radius"]), b["mass"], position=b["position"],
                        velocity=b.get("velocity", [0, 0])) for b in scene["bodies"]]
    w = perp.World(bodies, ground=scene["ground"]["height"])
    options = dict(timestep=scene["timestep"], restitution=scene["restitution"], friction=scene["friction"],
                   gravity=scene["gravity"])
    impacts = 0
    for k in range(1000):  # through the first bounce at t = 0.45 s
        r = w.step(**options)
        impacts += r.contacts["gap"].size
        np.testing.assert_allclose(w.state, sim.state[k + 1], rtol=0, atol=1e-12)
    assert impacts > 0


def test_painleve_world_first_step_force():
    theta, mu = 0.5, 0.3
    w = perp.painleve_world(theta, mu)
    h = 1e-4
    r = w.step(timestep=h, friction=mu)
    a = perp.painleve(theta, mu)
    # the impulse of a short step is about the contact force of the Painlevé analysis times h
    assert r.normal_impulse[0] / h == pytest.approx(a.solutions[0], rel=0.05)
    assert r.tangent_impulse[0] == pytest.approx(-mu * r.normal_impulse[0], rel=1e-6)  # sliding: on the cone


def test_world_accessors_copy_and_errors():
    w = perp.World([ball(1.0), perp.Body("crate", perp.Box(0.4, 0.2), 2.0, position=(1.0, 0.1))], ground=0.0)
    assert len(w) == 2 and w.ground == 0.0 and "2 bodies" in repr(w)
    b = w.bodies[0]
    b.position = (5.0, 5.0)  # a copy: the world does not change
    assert w.body("ball").position.tolist() == [0.0, 1.0]
    w.set_body(0, b)
    assert w.body("ball").position.tolist() == [5.0, 5.0]
    state = w.state
    state[1, 2] = math.pi / 2
    w.state = state
    assert w.body("crate").angle == pytest.approx(math.pi / 2)
    c = w.copy()
    c.step()
    assert w.state[0, 1] == 5.0 and c.state[0, 1] < 5.0
    assert copy.deepcopy(w).state.tolist() == w.state.tolist()
    k, p, t = w.energy((0.0, -G))
    assert k == 0 and p == pytest.approx(G * (1.0 * 5.0 + 2.0 * 0.1)) and t == pytest.approx(k + p)
    assert w.contacts(margin=0.0)["gap"].size == 2  # the crate rests on the ground on a face: two points
    w.ground = None
    assert w.ground is None and w.contacts()["gap"].size == 0
    with pytest.raises(ValueError, match="state"):
        w.state = np.zeros((3, 6))
    with pytest.raises(KeyError):
        w.body("nobody")
    with pytest.raises(IndexError):
        w.set_body(5, b)
    with pytest.raises(perp.InvalidProblem, match="mass"):
        perp.Body("x", perp.Disk(0.1), -1.0)
    with pytest.raises(perp.InvalidProblem):
        perp.World([ball(), ball()])  # the same name twice
    with pytest.raises(perp.InvalidProblem, match="timestep"):
        perp.moreau_jean_step(perp.World([ball()]), timestep=-1.0)
    with pytest.raises(perp.InvalidProblem, match="friction_model"):
        perp.moreau_jean_step(perp.World([ball()]), friction_model="viscous")
    with pytest.raises(TypeError, match="world"):
        perp.moreau_jean_step({"bodies": []})
    with pytest.raises(ValueError, match="position"):
        perp.Body("x", perp.Disk(0.1), 1.0, position=(1.0, 2.0, 3.0))
    bad = perp.World([ball()])
    b = bad.bodies[0]
    b.mass = float("nan")
    bad.set_body(0, b)
    with pytest.raises(perp.InvalidProblem, match="mass"):
        bad.step()


def test_slope_plane_fixed_body_and_materials():
    # A box on a 0.3 rad slope with its own friction 0.2 (the scene's 0.3 on the slope's side):
    # mu = sqrt(0.2 * 0.3); it slides with a = g (sin a - mu cos a), exactly.
    a = 0.3
    n = (-math.sin(a), math.cos(a))
    along = np.array([math.cos(a), math.sin(a)])
    centre = 1.0 * along + 0.1 * np.array(n)
    crate = perp.Body("crate", perp.Box(0.4, 0.2), 1.0, position=tuple(centre), angle=a, friction=0.2)
    assert crate.friction == 0.2 and crate.restitution is None and not crate.fixed
    slope = perp.Plane((0.0, 0.0), n, name="slope")
    w = perp.World([crate], planes=[slope])
    assert w.planes[0].name == "slope"
    for _ in range(200):
        r = w.step(friction=0.3, tol=1e-12)
        assert r.status == perp.Status.SOLVED and r.fallback == ""
        assert "relative error" in r.message
        assert set(r.contacts["body_b"]) == {-2}  # plane 0
    mu = math.sqrt(0.2 * 0.3)
    speed = -np.dot(w.body("crate").velocity, along)
    assert speed == pytest.approx(G * (math.sin(a) - mu * math.cos(a)) * 0.2, abs=1e-9)

    # A fixed shelf holds a box; neither moves.
    shelf = perp.Body("shelf", perp.Box(2.0, 0.2), 1.0, position=(0.0, 0.0), fixed=True)
    cup = perp.Body("cup", perp.Box(0.2, 0.2), 0.5, position=(0.0, 0.2))
    w = perp.World([shelf, cup])
    for _ in range(100):
        w.step(friction=0.5)
    assert tuple(w.body("shelf").position) == (0.0, 0.0)
    assert w.body("cup").position[1] == pytest.approx(0.2, abs=1e-9)


def test_split_impulse_from_python():
    w = perp.World([perp.Body("ball", perp.Disk(0.1), 2.0, position=(0.0, 0.09))], ground=0.0)
    r = w.step(baumgarte=0.2, slop=0.0, split_impulse=True)
    assert r.split_contacts == 1 and r.split_status == perp.Status.SOLVED
    assert w.body("ball").position[1] == pytest.approx(0.09 + 0.2 * 0.01, abs=1e-12)
    assert w.body("ball").velocity[1] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(perp.InvalidProblem, match="baumgarte"):
        w.step(baumgarte=1.5)
    with pytest.raises(perp.InvalidProblem, match="normal must be finite and non-zero"):
        perp.Plane((0.0, 0.0), (0.0, 0.0))


def test_step_report_names_the_law_its_impulses_solve():
    # A ball sliding on the ground (v_x = 2, μ = 0.1): Coulomb's law keeps it on the ground; the convex
    # law (Anitescu–Potra, here on the factors by the interior point) lifts it at u_N = μ |u_T|.
    h = 1e-2
    coulomb = perp.World([ball(0.1, velocity=(2.0, 0.0))], ground=0.0)
    r = coulomb.step(timestep=h, friction=0.1)
    assert r.law == "coulomb" and r.fallback == ""
    assert coulomb.body("ball").velocity[1] == pytest.approx(0.0, abs=1e-12)
    convex = perp.World([ball(0.1, velocity=(2.0, 0.0))], ground=0.0)
    r = convex.step(timestep=h, friction=0.1, friction_model="anitescu-potra", method="interior-point")
    assert r.law == "convex" and r.status is perp.Status.SOLVED
    body = convex.body("ball")
    vx, vy = body.velocity
    slip = vx + body.angular_velocity * 0.1  # the contact point's velocity along the ground (radius 0.1)
    assert slip > 0 and vy == pytest.approx(0.1 * slip, rel=1e-6)  # the lift u_N = μ u_T
    assert r.criteria["signorini"] <= 1e-9  # measured under the convex law it is met
