"""moreau_jean_step's options beyond the scene basics (dense_pivoting_max_size, sleeping) and what its
StepReport says of the step's solve (method, iterations, relative_residual, message, fallback)."""

import json

import numpy as np
import pytest

import perp
from conftest import EXAMPLES

# The fields of StepReport before relative_residual and sleeping_bodies were appended: their order
# (positional unpacking, indexing) must not change.
OLD_FIELDS = ("contacts", "normal_impulse", "tangent_impulse", "status", "method", "iterations", "residual",
              "solve_ms", "step_ms", "problem_size", "criteria", "warm_started", "projected_contacts",
              "projection_status", "split_contacts", "split_status", "fallback", "message", "derivatives")


def chapter_block():
    """The block of the chapter resting on the ground on its two corners (tests/contact/test_worlds.hpp)."""
    block = perp.Body("block", perp.Box(1.0, 0.5), 1.0, position=(0.0, 0.25), inertia=1.0 / 12)
    return perp.World([block], ground=0.0)


def test_report_fields_keep_their_order_and_new_ones_come_last():
    assert perp.StepReport._fields[:len(OLD_FIELDS)] == OLD_FIELDS
    assert perp.StepReport._fields[len(OLD_FIELDS):] == ("relative_residual", "sleeping_bodies", "law")
    r = perp.moreau_jean_step(chapter_block(), friction=0.3)
    assert r[4] == r.method and r[-4] is None  # positional access as before (derivatives)


@pytest.mark.parametrize("method", ["nsgs", "lemke", "auto"])
def test_resting_block_reports_its_solve(method):
    w = chapter_block()
    tol = 1e-10
    r = w.step(friction=0.3, gravity=(0.0, -10.0), method=method, tol=tol)
    assert r.status is perp.Status.SOLVED and r.fallback == ""
    assert r.contacts["gap"].size == 2 and r.problem_size == 4
    assert 0.0 <= r.relative_residual <= tol
    if method != "auto":
        assert r.method == method
    else:
        assert r.method in perp.METHODS
    assert r.iterations >= 1 and isinstance(r.message, str) and r.message
    # the block carries its weight: m g h shared by the corners
    assert r.normal_impulse.sum() == pytest.approx(10.0 * 1e-3, rel=1e-9)


def test_nsgs_message_names_the_relative_error():
    r = chapter_block().step(friction=0.3, method="nsgs")
    assert "relative error" in r.message, r.message


def test_dense_pivoting_max_size_caps_the_stewart_trinkle_lcp():
    # As tests/contact/step_report_test.cpp: Lemke on the Stewart–Trinkle LCP (4 unknowns a contact,
    # 8 here) within the cap; below it the method is not applicable and auto answers instead.
    pivoted = chapter_block().step(friction=0.3, method="lemke")
    assert pivoted.fallback == "" and pivoted.method == "lemke" and pivoted.status is perp.Status.SOLVED
    assert "8 unknowns" in pivoted.message, pivoted.message
    capped = chapter_block().step(friction=0.3, method="lemke", dense_pivoting_max_size=7)
    assert capped.fallback == "lemke: not-applicable"
    assert capped.status is perp.Status.SOLVED
    assert capped.method != "lemke" and capped.method in perp.METHODS
    assert capped.relative_residual <= 1e-10
    np.testing.assert_allclose(capped.normal_impulse, pivoted.normal_impulse, rtol=0,
                               atol=1e-9 * np.abs(pivoted.normal_impulse).max())
    # exactly at the size the cap lets Lemke pivot
    at = chapter_block().step(friction=0.3, method="lemke", dense_pivoting_max_size=8)
    assert at.fallback == "" and at.method == "lemke"


def test_default_dense_pivoting_max_size_is_the_cpp_default():
    a, b = chapter_block(), chapter_block()
    for _ in range(5):
        ra = a.step(friction=0.3, method="lemke")
        rb = b.step(friction=0.3, method="lemke", dense_pivoting_max_size=1000)
    np.testing.assert_array_equal(a.state, b.state)
    assert ra.method == rb.method == "lemke"


def test_dense_pivoting_max_size_is_checked():
    with pytest.raises(perp.InvalidProblem, match="dense_pivoting_max_size must be >= 0"):
        chapter_block().step(dense_pivoting_max_size=-1)
    for bad in (7.0, True, "7", None):
        with pytest.raises(TypeError, match="dense_pivoting_max_size"):
            chapter_block().step(dense_pivoting_max_size=bad)
    with pytest.raises(perp.InvalidProblem, match="dense_pivoting_max_size"):
        chapter_block().step(dense_pivoting_max_size=2**70)
    with pytest.raises(perp.InvalidProblem, match="dense_pivoting_max_size"):
        chapter_block().step(dense_pivoting_max_size=-2**70)
    w = chapter_block()
    before = w.state
    with pytest.raises(perp.InvalidProblem):
        w.step(dense_pivoting_max_size=-5)
    np.testing.assert_array_equal(w.state, before)  # a refused step leaves the world alone
    # numpy integers are ints
    assert chapter_block().step(dense_pivoting_max_size=np.int64(8), method="lemke", friction=0.3).fallback == ""


def test_free_flight_reports_no_solve():
    w = perp.World([perp.Body("ball", perp.Disk(0.1), 1.0, position=(0.0, 1.0))], ground=0.0)
    r = w.step()
    assert r.problem_size == 0 and r.method == "" and r.fallback == ""
    assert r.relative_residual == 0.0 and r.iterations == 0 and r.sleeping_bodies == 0


def test_sleeping_block_sleeps_and_stays_put():
    w = chapter_block()
    reports = [w.step(friction=0.3, sleeping=True, sleep_time=0.01) for _ in range(40)]
    assert reports[0].sleeping_bodies == 0
    assert reports[-1].sleeping_bodies == 1
    asleep = w.state
    r = w.step(friction=0.3, sleeping=True, sleep_time=0.01)
    assert r.sleeping_bodies == 1 and r.problem_size == 0
    np.testing.assert_array_equal(w.state, asleep)
    # without sleeping (the default) the same block never sleeps
    v = chapter_block()
    assert all(v.step(friction=0.3).sleeping_bodies == 0 for _ in range(40))


def test_sleep_speed_decides_what_is_at_rest():
    # A block sliding at 1 m/s is not at rest under the default sleep_speed, but is under 10 m/s.
    def sliding():
        b = perp.Body("block", perp.Box(1.0, 0.5), 1.0, position=(0.0, 0.25), velocity=(1.0, 0.0))
        return perp.World([b], ground=0.0)
    w = sliding()
    assert max(w.step(sleeping=True, sleep_time=0.01).sleeping_bodies for _ in range(40)) == 0
    w = sliding()
    assert max(w.step(sleeping=True, sleep_time=0.01, sleep_speed=10.0).sleeping_bodies for _ in range(40)) == 1


@pytest.mark.parametrize("name, value", [("sleep_time", 0.0), ("sleep_time", float("nan")), ("sleep_speed", -1.0),
                                         ("sleep_speed", float("inf"))])
def test_sleep_options_are_checked(name, value):
    with pytest.raises(perp.InvalidProblem, match=name):
        chapter_block().step(sleeping=True, **{name: value})


def test_sleep_option_types():
    with pytest.raises(TypeError, match="sleeping"):
        chapter_block().step(sleeping="yes")
    with pytest.raises(TypeError, match="sleep_time"):
        chapter_block().step(sleep_time="1")


def test_speculative_contacts_catch_the_disk_behind_one_that_landed():
    # tests/contact/moreau_jean_test.cpp's column, by hand: h = 1/60; both disks fall at 20 m/s, the
    # lower 1 cm above the ground, the upper 5 cm above it. Plain: the upper one passes into the lower
    # one that landed; speculative: u_N+ >= -0.05 / (h/2) = -6 m/s binds and the gap closes to 0.
    h = 1.0 / 60
    def column():
        return perp.World([perp.Body("low", perp.Disk(0.25), 1.0, position=(0.0, 0.26), velocity=(0.0, -20.0)),
                           perp.Body("high", perp.Disk(0.25), 1.0, position=(0.0, 0.81), velocity=(0.0, -20.0))],
                          ground=0.0)
    def gap(w):
        return w.bodies[1].position[1] - w.bodies[0].position[1] - 0.5
    plain, caught = column(), column()
    assert plain.step(timestep=h).problem_size == 2
    assert gap(plain) < -0.118
    r = caught.step(timestep=h, speculative=True)
    assert r.problem_size == 4 and r.status is perp.Status.SOLVED
    assert abs(gap(caught)) < 1e-9 and abs(caught.bodies[1].velocity[1] + 6.0) < 1e-7
    assert perp.StepOptions().speculative is False and perp.StepOptions(speculative=True).speculative is True
    with pytest.raises(TypeError, match="speculative"):
        column().step(speculative="yes")
    # the step's derivative differentiates the speculative bias: jvp against central differences
    world = column()
    d = world.copy().step(timestep=h, speculative=True, tol=1e-13, derivatives=True).derivatives
    rng = np.random.default_rng(5)
    dstate = rng.normal(size=(2, 6))
    dq, dv = d.jvp(q=dstate[:, :3].ravel(), v=dstate[:, 3:].ravel())
    sides = []
    for t in (1e-6, -1e-6):
        w = world.copy()
        w.state = w.state + t * dstate
        assert w.step(timestep=h, speculative=True, tol=1e-13).problem_size == 4
        sides.append(w.state)
    fd = (sides[0] - sides[1]) / 2e-6
    np.testing.assert_allclose(np.concatenate([dq, dv]), np.concatenate([fd[:, :3].ravel(), fd[:, 3:].ravel()]),
                               rtol=0, atol=1e-6 * np.abs(fd).max())


def test_simulate_takes_dense_pivoting_max_size_from_the_scene():
    scene = json.loads((EXAMPLES / "scenes" / "two_contact_block.json").read_text())
    scene.update(duration=0.01, friction=0.3, method="lemke")
    capped = perp.simulate(dict(scene, dense_pivoting_max_size=7))
    plain = perp.simulate(scene)
    assert capped.unsolved == 0 and plain.unsolved == 0
    assert set(plain.method) == {"lemke"} and "lemke" not in capped.method
    # the per-step solve records: every step has contacts, solved within the scene's tolerance
    assert set(plain.fallback) == {""} and set(capped.fallback) == {"lemke: not-applicable"}
    assert capped.relative_residual.shape == (capped.steps,) and capped.relative_residual.max() <= 1e-10
    assert plain.relative_residual.max() <= 1e-10
    np.testing.assert_allclose(capped.state, plain.state, rtol=0, atol=1e-9)
    with pytest.raises(perp.InvalidProblem, match="dense_pivoting_max_size"):
        perp.simulate(dict(scene, dense_pivoting_max_size=-1))


def test_step_defaults_are_the_cpp_options():
    """moreau_jean_step's keyword defaults come from the C++ MoreauJeanOptions (one source): the drift
    correction on (the split impulse at beta 0.2 past a 5 mm slop), h = 1e-3, tolerance 1e-10."""
    import inspect
    defaults = {k: p.default for k, p in inspect.signature(perp.moreau_jean_step).parameters.items()}
    assert defaults["baumgarte"] == 0.2 and defaults["slop"] == 0.005 and defaults["split_impulse"] is True
    assert defaults["timestep"] == 1e-3 and defaults["tol"] == 1e-10 and defaults["method"] == "auto"
    assert defaults["gravity"] == (0.0, -9.81) and defaults["dense_pivoting_max_size"] == 1000
    # A disk sunk 1 cm into the ground: by default the split impulse lifts it by beta (1 cm - 5 mm)
    # in one step without giving it a velocity; with baumgarte=0 it stays (the plain scheme).
    def sunk():
        return perp.World([perp.Body("ball", perp.Disk(0.1), 2.0, position=(0.0, 0.09))], ground=0.0)
    w = sunk()
    r = w.step()
    assert r.split_contacts == 1 and r.split_status is perp.Status.SOLVED
    y = w.bodies[0].position[1]
    assert abs((0.1 - y) - (0.01 - 0.2 * 0.005)) < 1e-12
    assert abs(w.bodies[0].velocity[1]) < 1e-12
    plain = sunk()
    plain.step(baumgarte=0.0)
    assert abs(plain.bodies[0].position[1] - 0.09) < 1e-12


def test_step_options_defaults_are_the_documented_ones():
    # docs/python.md's list of moreau_jean_step's defaults (the C++ MoreauJeanOptions').
    o = perp.StepOptions()
    assert (o.timestep, o.theta, o.restitution, o.friction) == (1e-3, 0.5, 0.0, 0.0)
    assert (o.friction_model, o.method, o.tol, o.max_iter) == ("coulomb", "auto", 1e-10, None)
    assert (o.baumgarte, o.slop, o.split_impulse, o.projection) == (0.2, 0.005, True, False)
    assert tuple(o.gravity) == (0.0, -9.81) and o.activation_tolerance == 1e-9
    assert (o.sleeping, o.sleep_speed, o.sleep_time) == (False, 0.01, 0.5)
    assert o.dense_pivoting_max_size == 1000 and o.method_options == {}
    assert o == perp.StepOptions() and o.replace(friction=0.3).friction == 0.3 and o.friction == 0.0


def test_step_options_refuse_an_unknown_name():
    with pytest.raises(TypeError, match="'tolerance'"):
        perp.StepOptions(tolerance=1e-8)
    o = perp.StepOptions()
    with pytest.raises(AttributeError):
        o.tolerance = 1e-8
    with pytest.raises(TypeError, match="StepOptions"):
        perp.step_world(chapter_block(), {"friction": 0.3})
    with pytest.raises(TypeError, match="'tol' is a step option"):
        perp.step_world(chapter_block(), perp.StepOptions(method_options={"tol": 1e-6}))


def test_step_world_takes_the_same_step_as_moreau_jean_step():
    options = perp.StepOptions(friction=0.3, gravity=(0.0, -10.0), method="nsgs", timestep=2e-3)
    a, b = chapter_block(), chapter_block()
    for _ in range(5):
        ra = perp.step_world(a, options)
        rb = perp.moreau_jean_step(b, friction=0.3, gravity=(0.0, -10.0), method="nsgs", timestep=2e-3)
        assert ra.status is perp.Status.SOLVED and ra.method == rb.method == "nsgs"
        np.testing.assert_array_equal(ra.normal_impulse, rb.normal_impulse)
        np.testing.assert_array_equal(a.state, b.state)
    # the block carries its weight: m g h shared by the corners
    assert ra.normal_impulse.sum() == pytest.approx(10.0 * 2e-3, rel=1e-9)
    assert perp.step_world(chapter_block()).status is perp.Status.SOLVED
