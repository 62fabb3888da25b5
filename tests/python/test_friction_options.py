"""The frictional contact methods' options, one group a method (docs/solvers.md's option table,
docs/python.md "Method options"): perp.FrictionContactOptions with its defaults from C++, the
nested dict `friction_contact={"prox": {"rho": …}}`, and the flat keys of before the groups read
for one release with a DeprecationWarning naming the new path."""

import warnings

import numpy as np
import pytest

import perp

# One planar contact pressed into the ground and pushed sideways: it slides (|u_T| > 0, r on the
# cone's edge), so nsgs and prox need more than one sweep at ω ≠ 1.
W = np.array([[1.0, 0.3], [0.3, 0.8]])
Q = np.array([-1.0, 2.0])
MU = [0.4]


def quietly(*args, **kw):
    """perp.solve_friction_contact, failing on any warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return perp.solve_friction_contact(*args, **kw)


def test_defaults_are_the_documented_values():
    o = perp.FrictionContactOptions()
    assert (o.nsgs.relaxation, o.nsgs.order, o.nsgs.seed, o.nsgs.permutation, o.nsgs.error_every) == \
        (1.0, "natural", 0, [], 10)
    assert (o.local.tolerance, o.local.iterations) == (1e-14, 50)
    assert (o.prox.rho, o.prox.max_outer, o.prox.anderson) == (0.0, 1000, 20)
    assert (o.lemke.facets, o.lemke.lcp_max_size) == (8, 4000)
    assert (o.automatic.nsgs_sweeps, o.automatic.shift_updates) == (1000, 0)
    o.validate()
    assert repr(o.prox) == "ProxOptions(rho=0.0, max_outer=1000, anderson=20)"


def test_a_group_belongs_to_its_options():
    o = perp.FrictionContactOptions()
    o.prox.rho = 2.5
    o.nsgs.order = "random"
    o.nsgs.permutation = [1, 0]
    assert (o.prox.rho, o.nsgs.order, o.nsgs.permutation) == (2.5, "random", [1, 0])
    with pytest.raises(perp.InvalidProblem, match="'sideways' is not one of natural, random, given"):
        o.nsgs.order = "sideways"
    with pytest.raises(TypeError):
        o.prox.max_outer = 2.5


@pytest.mark.parametrize("group, field, value, message", [
    ("nsgs", "relaxation", 2.0, "friction_contact.nsgs.relaxation must be in (0, 2), got 2"),
    ("nsgs", "error_every", 0, "friction_contact.nsgs.error_every must be >= 1, got 0"),
    ("local", "tolerance", 1.0, "friction_contact.local.tolerance must be in (0, 1), got 1"),
    ("local", "iterations", 0, "friction_contact.local.iterations must be >= 1, got 0"),
    ("prox", "rho", -1.0, "friction_contact.prox.rho must be finite and >= 0 (0 = automatic), got -1"),
    ("prox", "max_outer", 0, "friction_contact.prox.max_outer must be >= 1, got 0"),
    ("prox", "anderson", 51, "friction_contact.prox.anderson must be in [0, 50], got 51"),
    ("lemke", "facets", 2, "friction_contact.lemke.facets must be >= 3, got 2"),
    ("lemke", "lcp_max_size", 0, "friction_contact.lemke.lcp_max_size must be >= 1, got 0"),
    ("automatic", "nsgs_sweeps", 0, "friction_contact.automatic.nsgs_sweeps must be >= 1, got 0"),
    ("automatic", "shift_updates", -1, "friction_contact.automatic.shift_updates must be >= 0, got -1"),
])
def test_a_bad_field_is_named_by_its_path(group, field, value, message):
    o = perp.FrictionContactOptions()
    setattr(getattr(o, group), field, value)
    with pytest.raises(perp.InvalidProblem) as caught:
        o.validate()
    assert str(caught.value) == message
    # the solve says the same, given the object or the dict
    with pytest.raises(perp.InvalidProblem) as caught:
        perp.solve_friction_contact(W, Q, MU, friction_contact=o)
    assert message in str(caught.value)
    with pytest.raises(perp.InvalidProblem) as caught:
        perp.solve_friction_contact(W, Q, MU, friction_contact={group: {field: value}})
    assert message in str(caught.value)


def test_the_given_order_is_checked_against_the_contacts():
    o = perp.FrictionContactOptions()
    o.nsgs.order = "given"
    o.nsgs.permutation = [0, 0]
    o.validate()  # no contact count: nothing to check it against
    with pytest.raises(perp.InvalidProblem, match=r"friction_contact\.nsgs\.permutation: expected 1 entries"):
        o.validate(1)
    with pytest.raises(perp.InvalidProblem, match=r"friction_contact\.nsgs\.permutation\[1\] repeats contact 0"):
        o.validate(2)


def test_the_object_the_dict_and_a_group_object_solve_alike():
    o = perp.FrictionContactOptions()
    o.nsgs.relaxation = 0.5
    o.prox.rho = 3.0
    as_object = quietly(W, Q, MU, method="prox", tol=1e-12, friction_contact=o)
    as_dict = quietly(W, Q, MU, method="prox", tol=1e-12,
                      friction_contact={"nsgs": {"relaxation": 0.5}, "prox": {"rho": 3.0}})
    as_groups = quietly(W, Q, MU, method="prox", tol=1e-12, friction_contact={"nsgs": o.nsgs, "prox": o.prox})
    plain = quietly(W, Q, MU, method="prox", tol=1e-12, friction_contact={"prox": {"rho": 3.0}})
    assert as_object.solved and as_dict.solved and as_groups.solved
    assert as_object.iterations == as_dict.iterations == as_groups.iterations
    np.testing.assert_array_equal(as_object.z, as_dict.z)
    np.testing.assert_array_equal(as_object.z, as_groups.z)
    # and the options are read: under-relaxed sweeps need more of them than plain ones
    assert as_object.iterations > plain.iterations


def test_an_option_that_stops_a_method_is_read():
    # prox with one outer iteration at a tolerance it cannot meet in one stops with the message
    # that names the limit
    r = quietly(W, Q, MU, method="prox", tol=1e-15, friction_contact={"prox": {"max_outer": 1, "rho": 100.0}})
    assert not r.solved and "outer iteration limit 1 reached" in r.message


OLD_AND_NEW = [
    ("relaxation", "nsgs", "relaxation", 0.5),
    ("order", "nsgs", "order", "random"),
    ("seed", "nsgs", "seed", 5),
    ("permutation", "nsgs", "permutation", [0]),
    ("error_every", "nsgs", "error_every", 3),
    ("local_tolerance", "local", "tolerance", 1e-12),
    ("local_iterations", "local", "iterations", 20),
    ("prox_rho", "prox", "rho", 3.0),
    ("prox_max_outer", "prox", "max_outer", 500),
    ("prox_anderson", "prox", "anderson", 0),
    ("facets", "lemke", "facets", 6),
    ("lcp_max_size", "lemke", "lcp_max_size", 100),
    ("auto_nsgs_sweeps", "automatic", "nsgs_sweeps", 7),
    ("auto_shift_updates", "automatic", "shift_updates", 1),
]


@pytest.mark.parametrize("old, group, field, value", OLD_AND_NEW)
def test_an_old_flat_key_warns_and_solves_as_its_new_path(old, group, field, value):
    new = quietly(W, Q, MU, method="prox", tol=1e-12, friction_contact={group: {field: value}})
    with pytest.warns(DeprecationWarning) as caught:
        was = perp.solve_friction_contact(W, Q, MU, method="prox", tol=1e-12, friction_contact={old: value})
    messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
    assert messages == [f"option 'friction_contact.{old}' is deprecated; use 'friction_contact.{group}.{field}' "
                        "(the old name is read until the next release)"]
    assert (was.status, was.iterations) == (new.status, new.iterations)
    np.testing.assert_array_equal(was.z, new.z)


@pytest.mark.parametrize("old, bad, message", [
    ("relaxation", 2.5, "friction_contact.nsgs.relaxation must be in (0, 2), got 2.5"),
    ("error_every", 0, "friction_contact.nsgs.error_every must be >= 1, got 0"),
    ("local_tolerance", 0.0, "friction_contact.local.tolerance must be in (0, 1), got 0"),
    ("local_iterations", 0, "friction_contact.local.iterations must be >= 1, got 0"),
    ("prox_rho", -2.0, "friction_contact.prox.rho must be finite and >= 0 (0 = automatic), got -2"),
    ("prox_max_outer", 0, "friction_contact.prox.max_outer must be >= 1, got 0"),
    ("prox_anderson", 99, "friction_contact.prox.anderson must be in [0, 50], got 99"),
    ("facets", 1, "friction_contact.lemke.facets must be >= 3, got 1"),
    ("lcp_max_size", 0, "friction_contact.lemke.lcp_max_size must be >= 1, got 0"),
    ("auto_nsgs_sweeps", 0, "friction_contact.automatic.nsgs_sweeps must be >= 1, got 0"),
    ("auto_shift_updates", -3, "friction_contact.automatic.shift_updates must be >= 0, got -3"),
])
def test_an_old_flat_key_sets_the_field_of_its_new_path(old, bad, message):
    with pytest.warns(DeprecationWarning), pytest.raises(perp.InvalidProblem) as caught:
        perp.solve_friction_contact(W, Q, MU, friction_contact={old: bad})
    assert message in str(caught.value)


def test_old_keys_join_the_groups_given_beside_them():
    new = quietly(W, Q, MU, method="nsgs", tol=1e-12,
                  friction_contact={"nsgs": {"order": "given", "permutation": [0], "relaxation": 0.5}})
    with pytest.warns(DeprecationWarning, match=r"use 'friction_contact\.nsgs\.relaxation'"):
        was = perp.solve_friction_contact(W, Q, MU, method="nsgs", tol=1e-12,
                                          friction_contact={"nsgs": {"order": "given", "permutation": [0]},
                                                            "relaxation": 0.5})
    assert was.iterations == new.iterations > 1


def test_an_old_key_beside_its_new_path_is_refused():
    with pytest.raises(ValueError, match=r"'friction_contact\.prox_rho' is the old name of "
                                         r"'friction_contact\.prox\.rho'; give it once"):
        perp.solve_friction_contact(W, Q, MU, friction_contact={"prox_rho": 1.0, "prox": {"rho": 2.0}})
    with pytest.raises(ValueError, match="give it once"):
        perp.solve_friction_contact(W, Q, MU, friction_contact={"prox_rho": 1.0,
                                                                "prox": perp.FrictionContactOptions().prox})


def test_unknown_names_and_wrong_types_are_named():
    with pytest.raises(TypeError, match=r"unknown option 'friction_contact\.prox\.roh'; valid options: "
                                        r"friction_contact\.prox\.rho, friction_contact\.prox\.max_outer"):
        perp.solve_friction_contact(W, Q, MU, friction_contact={"prox": {"roh": 1.0}})
    with pytest.raises(TypeError, match=r"unknown option 'friction_contact\.newton'"):
        perp.solve_friction_contact(W, Q, MU, friction_contact={"newton": {}})
    with pytest.raises(TypeError, match=r"option 'friction_contact\.prox': expected a dict or a ProxOptions, got list"):
        perp.solve_friction_contact(W, Q, MU, friction_contact={"prox": [1.0]})
    with pytest.raises(TypeError, match=r"option 'friction_contact': expected a dict or a FrictionContactOptions"):
        perp.solve_friction_contact(W, Q, MU, friction_contact=3)
    with pytest.raises(TypeError, match=r"option 'friction_contact\.lemke\.facets': expected an int, got float"):
        perp.solve_friction_contact(W, Q, MU, friction_contact={"lemke": {"facets": 8.0}})
