"""perp.classify: answers on matrices whose classes are known by hand, witnesses checked in numpy."""

import itertools

import numpy as np
import pytest

import perp


def test_pd_matrix(block):
    M, _ = block
    report = perp.classify(M)
    assert isinstance(report, perp.MatrixReport) and report.n == 2
    for name in ("symmetric", "positive-definite", "positive-semidefinite", "p-matrix", "p0-matrix",
                 "diagonally-dominant", "copositive", "strictly-copositive"):
        assert report[name].holds is True, name
    assert report.holds("z-matrix") is False  # M[0, 1] = 0.25 > 0
    w = report["z-matrix"].witness
    assert w["kind"] == "entry" and w["row"] != w["col"] and M[w["row"], w["col"]] == w["value"] > 0
    assert report.recommendation.method in perp.LCP_METHODS
    assert report.recommendation.order[0] == report.recommendation.method
    assert report.implications and all(isinstance(s, str) for s in report.implications)


def test_indefinite_matrix_witnesses():
    # symmetric, eigenvalues 3 and -1: not PSD, det = -3 so not P; not diagonally dominant; copositive (entries > 0)
    M = np.array([[1.0, 2.0], [2.0, 1.0]])
    report = perp.classify(M)
    psd = report["positive-semidefinite"]
    assert psd.holds is False and psd.witness["kind"] == "quadratic-form"
    x = psd.witness["x"]
    assert x @ M @ x < 0 and x @ M @ x == pytest.approx(psd.witness["value"])
    p = report["p-matrix"]
    assert p.holds is False and p.witness["kind"] == "minor"
    idx = list(p.witness["indices"])
    assert np.linalg.det(M[np.ix_(idx, idx)]) == pytest.approx(p.witness["minor"]) and p.witness["minor"] <= 0
    dd = report["diagonally-dominant"]
    assert dd.holds is False and dd.witness["kind"] == "row"
    i = dd.witness["row"]
    assert abs(M[i, i]) <= np.sum(np.abs(M[i])) - abs(M[i, i])
    assert report["copositive"].holds is True
    assert report["positive-definite"].method in ("exact", "necessary-condition", "sufficient-condition")


def test_non_copositive_witness_is_nonnegative():
    M = np.array([[1.0, -3.0], [-3.0, 1.0]])
    c = perp.classify(M)["copositive"]
    assert c.holds is False
    x = c.witness["x"]
    assert np.all(x >= 0) and x @ M @ x < 0


def test_report_repr_is_the_cli_table():
    report = perp.classify(np.array([[2.0, -1.0], [-1.0, 2.0]]))
    text = repr(report)
    for name in report.classes:
        assert name in text
    assert report["m-matrix"].holds is True
    assert "recommend" in text.lower()
    with pytest.raises(KeyError, match="not a class"):
        report["p-matrx"]


def test_classify_bad_input():
    with pytest.raises(perp.InvalidProblem):
        perp.classify(np.ones((2, 3)))
    with pytest.raises(perp.InvalidProblem):
        perp.classify(np.zeros((0, 0)))
    with pytest.raises(perp.InvalidProblem):
        perp.classify([[np.inf]])
    with pytest.raises(TypeError, match="max_minor_size"):
        perp.classify([[1.0]], max_minor_size=2.0)


def test_random_matrices_p_answer_agrees_with_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(20):
        M = rng.normal(size=(4, 4)) + 1.5 * np.eye(4)
        minors = [np.linalg.det(M[np.ix_(s, s)]) for k in range(1, 5) for s in itertools.combinations(range(4), k)]
        expected = bool(min(minors) > 1e-9)
        holds = perp.classify(M)["p-matrix"].holds
        if abs(min(minors)) > 1e-6:  # away from the tolerance band
            assert holds is expected
