"""trace=callable (issue 17): the iterations of a solve, as dicts."""
import numpy as np
import pytest

import perp


def test_lemke_trace_is_the_chapters_hand_table():
    # Chapter §1.4: M = [[1, 0], [2, 1]], q = (-1, -3); by hand z0 enters at 3 (w2 leaves),
    # z2 enters at 2 (w1 leaves, z0 = 1), z1 enters at 1 (z0 leaves).
    events = []
    r = perp.solve([[1, 0], [2, 1]], [-1, -3], method="lemke", trace=events.append)
    assert r.status == perp.Status.SOLVED
    assert [(e["entering"], e["leaving"], e["ratio"], e["z0"]) for e in events] == [
        ("z0", "w2", 3.0, 3.0), ("z2", "w1", 2.0, 1.0), ("z1", "z0", 1.0, 0.0)]
    assert events[1]["ratios"] == [2.0, 3.0]
    assert events[2]["basis"] == ["z2", "z1"] and events[2]["values"] == [1.0, 1.0]


def test_pgs_trace_residuals_match_a_recomputation():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-1.0, -1.0])
    events = []
    r = perp.solve(M, q, method="pgs", tol=1e-12, trace=events.append)
    assert len(events) == r.iterations + 1
    z = np.zeros(2)
    for e in events:
        assert e["kind"] == "sweep"
        assert e["residual"] == pytest.approx(np.abs(np.minimum(z, M @ z + q)).max(), abs=1e-15)
        for i in range(2):  # the textbook sweep, for the next event
            z[i] = max(0.0, z[i] - (M[i] @ z + q[i]) / M[i, i])
    assert [e["residual"] for e in events[:3]] == [1.0, 0.25, 0.0625]


def test_an_exception_in_the_callback_reaches_the_caller():
    def stop(event):
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        perp.solve([[1, 0], [2, 1]], [-1, -3], method="lemke", trace=stop)


def test_trace_must_be_callable():
    with pytest.raises(TypeError, match="trace"):
        perp.solve([[1, 0], [2, 1]], [-1, -3], method="lemke", trace=3)
