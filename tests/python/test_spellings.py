"""One spelling per setting (docs/python.md, "One spelling per setting"): the scene keys "method",
"tol" and "max_iter"; the old keys "solver" and "tolerance" read for one release with a
DeprecationWarning that names the new key, the run the same as with the new keys; and the step's
options as one C++ MoreauJeanOptions object whose defaults are Python's."""

import json
import warnings

import numpy as np
import pytest

import perp
from perp import _perp
from conftest import EXAMPLES


def pile():
    scene = json.loads((EXAMPLES / "scenes" / "two_contact_block.json").read_text())
    scene.update(duration=0.02, friction=0.3)
    for key in ("solver", "method", "tolerance", "tol"):
        scene.pop(key, None)
    return scene


def sphere3d():
    return {"dimension": 3, "gravity": [0, 0, -9.81], "timestep": 0.01, "duration": 0.05, "restitution": 0,
            "friction": 0.3, "ground": {"height": 0},
            "bodies": [{"name": "ball", "shape": {"type": "sphere", "radius": 0.1}, "mass": 1,
                        "position": [0, 0, 0.1], "velocity": [0.5, 0, 0]}]}


def quietly(run, *args):
    """`run(*args)`, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return run(*args)


OLD = {"solver": "nsgs", "tolerance": 1e-9}
NEW = {"method": "nsgs", "tol": 1e-9}


def test_old_scene_keys_warn_and_run_as_the_new_ones():
    new = quietly(perp.simulate, {**pile(), **NEW})
    with pytest.warns(DeprecationWarning) as caught:
        old = perp.simulate({**pile(), **OLD})
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert messages == ['<scene dict>: the scene key "solver" is deprecated; use "method" (the old key is read '
                        'until the next release)',
                        '<scene dict>: the scene key "tolerance" is deprecated; use "tol" (the old key is read '
                        'until the next release)']
    assert set(new.method) == set(old.method) == {"nsgs"}
    np.testing.assert_array_equal(old.state, new.state)
    np.testing.assert_array_equal(old.iterations, new.iterations)
    assert new.relative_residual.max() <= 1e-9


def test_old_scene_keys_in_a_file_warn(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({**pile(), "solver": "lemke"}))
    with pytest.warns(DeprecationWarning, match=r'old\.json: the scene key "solver" is deprecated; use "method"'):
        old = perp.simulate(path)
    new = quietly(perp.simulate, {**pile(), "method": "lemke"})
    assert set(old.method) == {"lemke"}
    np.testing.assert_array_equal(old.state, new.state)


def test_max_iter_scene_key_limits_each_step():
    # nsgs needs 20 sweeps a step here; capped at 1, it stops at max-iterations (auto then answers
    # from its point, `fallback`); 0 is the method's own limit, as without the key
    plain = quietly(perp.simulate, {**pile(), "method": "nsgs", "tol": 1e-9})
    assert set(plain.iterations) == {0, 20} and set(plain.fallback) == {""}
    capped = quietly(perp.simulate, {**pile(), "method": "nsgs", "tol": 1e-9, "max_iter": 1})
    assert set(capped.iterations) == {0, 1} and "nsgs: max-iterations" in capped.fallback
    default = quietly(perp.simulate, {**pile(), "method": "nsgs", "tol": 1e-9, "max_iter": 0})
    np.testing.assert_array_equal(default.state, plain.state)
    with pytest.raises(perp.InvalidProblem, match=r"max_iter must be an integer in \[0, 2147483647\], got -1"):
        perp.simulate({**pile(), "max_iter": -1})


def test_both_spellings_are_refused():
    with pytest.raises(perp.InvalidProblem, match='"method" and its deprecated spelling "solver" are both given'):
        perp.simulate({**pile(), "method": "nsgs", "solver": "nsgs"})
    with pytest.raises(perp.InvalidProblem, match='"tol" and its deprecated spelling "tolerance" are both given'):
        perp.simulate({**pile(), "tol": 1e-9, "tolerance": 1e-9})


def test_old_keys_warn_in_3d_vec_world_and_rollout():
    new3 = quietly(perp.simulate, {**sphere3d(), **NEW})
    with pytest.warns(DeprecationWarning, match='"tolerance" is deprecated; use "tol"'):
        old3 = perp.simulate({**sphere3d(), **OLD})
    np.testing.assert_array_equal(old3.state, new3.state)
    with pytest.warns(DeprecationWarning, match='"solver" is deprecated; use "method"'):
        world = perp.World3({**sphere3d(), **OLD})
    quietly(perp.World3, {**sphere3d(), **NEW})
    assert world.step().method == "nsgs"
    with pytest.warns(DeprecationWarning, match='"solver" is deprecated'):
        perp.VecWorld({**pile(), **OLD}, 2)
    quietly(perp.VecWorld, {**pile(), **NEW}, 2)
    with pytest.warns(DeprecationWarning, match='"tolerance" is deprecated'):
        old_run = perp.rollout({**pile(), **OLD}, 5)
    new_run = quietly(perp.rollout, {**pile(), **NEW}, 5)
    np.testing.assert_array_equal(old_run.positions, new_run.positions)


def test_the_native_options_carry_the_cpp_defaults():
    # MoreauJeanOptions' initializers (include/perp/contact/moreau_jean.hpp), written out here.
    o = _perp.MoreauJeanOptions()
    assert (o.timestep, o.theta, o.restitution, o.friction, o.friction_model) == (1e-3, 0.5, 0.0, 0.0, "coulomb")
    assert (o.method, o.tol, o.max_iter, o.activation_tolerance) == ("auto", 1e-10, None, 1e-9)
    assert (o.baumgarte, o.slop, o.split_impulse, o.projection) == (0.2, 0.005, True, False)
    assert (o.sleeping, o.sleep_speed, o.sleep_time, o.dense_pivoting_max_size) == (False, 0.01, 0.5, 1000)
    assert o.gravity == (0.0, -9.81) and o.speculative is False
    # and StepOptions' defaults are the same values, field by field
    s = perp.StepOptions()
    for name in ("timestep", "theta", "restitution", "friction", "friction_model", "method", "tol", "max_iter",
                 "activation_tolerance", "baumgarte", "slop", "split_impulse", "speculative", "projection", "sleeping",
                 "sleep_speed", "sleep_time", "dense_pivoting_max_size", "gravity"):
        assert getattr(s, name) == getattr(o, name), name
    o.max_iter = 7
    o.friction_model = "anitescu-potra"
    assert (o.max_iter, o.friction_model) == (7, "anitescu-potra")
    o.max_iter = None
    assert o.max_iter is None
    with pytest.raises(perp.InvalidProblem, match="friction_model"):
        o.friction_model = "viscous"
    with pytest.raises(TypeError, match="max_iter"):
        o.max_iter = 1.5
    o.timestep = -1.0
    with pytest.raises(perp.InvalidProblem, match="timestep"):
        o.validate()
