"""perp.plot: each picture renders with Agg to an image of the expected size with something drawn."""

import math

import matplotlib
import matplotlib.image
import numpy as np
import pytest

import perp
import perp.plot
from conftest import EXAMPLES


def check_png(fig, path, dpi=50):
    fig.savefig(path, dpi=dpi)
    w, h = fig.get_size_inches()
    image = matplotlib.image.imread(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.shape[:2] == (round(h * dpi), round(w * dpi))
    rgb = image[:, :, :3]
    # something drawn: a good share of pixels are neither white nor one flat colour
    not_white = np.mean(np.any(rgb < 0.95, axis=2))
    assert not_white > 0.02, not_white
    assert len(np.unique(rgb.reshape(-1, 3).round(2), axis=0)) > 10
    matplotlib.pyplot.close(fig)
    return image


def test_convergence_compares_methods(tmp_path, block):
    M, q = block
    results = [perp.solve(M, q, method=m, tol=1e-12) for m in ("pgs", "psor", "newton-fb")]
    fig = perp.plot.convergence(*results)
    ax = fig.axes[0]
    assert ax.get_yscale() == "log"
    assert [t.get_text().split()[0] for t in ax.get_legend().get_texts()] == ["pgs", "psor", "newton-fb"]
    curves = [line for line in ax.lines if not line.get_label().startswith("_")]
    assert len(curves) == 3
    for line, result in zip(curves, results):
        positive = result.history > 0
        np.testing.assert_allclose(line.get_ydata()[positive], result.history[positive])
        assert np.all(line.get_ydata() > 0)  # exact zeros are drawn at a floor, not lost
    check_png(fig, tmp_path / "convergence.png")
    with pytest.raises(ValueError, match="no history"):
        perp.plot.convergence(perp.solve(M, q, method="enum"))


def test_painleve_map_marks_the_critical_point(tmp_path):
    fig = perp.plot.painleve_map(resolution=60)
    ax = fig.axes[0]
    star = [line for line in ax.lines if line.get_marker() == "*"][0]
    assert star.get_xdata()[0] == pytest.approx(math.degrees(math.atan(2)))
    assert star.get_ydata()[0] == pytest.approx(4 / 3)
    check_png(fig, tmp_path / "painleve.png")


def test_cones_of_a_p_matrix_and_of_a_non_q_matrix(tmp_path):
    fig = perp.plot.cones([[2.0, 1.0], [1.0, 2.0]], q=[-1.0, -1.0])
    assert "1 solution(s)" in fig.axes[0].get_title()
    check_png(fig, tmp_path / "cones.png")
    fig = perp.plot.cones([[-1.0, 0.0], [0.0, -1.0]], q=[0.5, 0.5])  # -I: cones overlap, 4 solutions
    assert "4 solution(s)" in fig.axes[0].get_title()
    check_png(fig, tmp_path / "cones2.png")
    with pytest.raises(ValueError, match="2x2"):
        perp.plot.cones(np.eye(3))


def test_scene_pictures(tmp_path):
    sim = perp.simulate(EXAMPLES / "scenes" / "box_stack.json")
    fig = perp.plot.trajectory(sim)
    assert len(fig.axes[0].lines) >= 2 * len(sim.names)
    check_png(fig, tmp_path / "trajectory.png")
    fig = perp.plot.snapshots(sim, [0.0, sim.duration / 2, sim.duration])
    assert len(fig.axes) == 3
    check_png(fig, tmp_path / "snapshots.png")
    fig = perp.plot.energy(sim)
    np.testing.assert_allclose(fig.axes[0].lines[2].get_ydata(), sim.energy.total)
    check_png(fig, tmp_path / "energy.png")
