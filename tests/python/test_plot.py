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


def test_painleve_map_marks_the_point_asked(tmp_path):
    # issue 38: the map drew the regimes but not the (theta, mu) the user asked about
    theta, mu = 0.9, 2.5
    fig = perp.plot.painleve_map(resolution=40, theta=theta, mu=mu)
    ax = fig.axes[0]
    asked = [line for line in ax.lines if line.get_label().startswith("asked")]
    assert len(asked) == 1
    assert asked[0].get_xdata()[0] == pytest.approx(math.degrees(theta))
    assert asked[0].get_ydata()[0] == pytest.approx(mu)
    assert f"({perp.painleve(theta, mu).regime})" in asked[0].get_label()
    assert ax.get_ylim()[1] >= mu  # the axis reaches past the point (mu_max defaults to 2)
    assert any(t.get_text().startswith("asked") for t in ax.get_legend().get_texts())
    check_png(fig, tmp_path / "painleve_asked.png")
    with pytest.raises(ValueError, match="both theta and mu"):
        perp.plot.painleve_map(theta=0.9)


def test_cones_have_distinct_opaque_colours_and_a_legend(tmp_path):
    # issue 38: the cones were translucent fills that blended where they overlap
    fig = perp.plot.cones([[1.0, 2.0], [2.0, 1.0]], q=[-1.0, -1.0])  # three solutions: cones overlap
    ax = fig.axes[0]
    wedges = [p for p in ax.patches if p.get_label().startswith("cone")]
    assert sorted(p.get_label().split(" (")[0] for p in wedges) == ["cone {z1, z2}", "cone {z1}", "cone {z2}", "cone {}"]
    colours = {matplotlib.colors.to_hex(p.get_facecolor()) for p in wedges}
    assert len(colours) == 4
    assert all(p.get_facecolor()[3] == 1.0 for p in wedges)  # opaque: nothing blends
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert sum(text.startswith("cone") for text in legend) == 4
    # the cones holding q = (-1, -1): the three with a solution (z = (1/3, 1/3), (1, 0), (0, 1))
    assert sum("(holds q)" in p.get_label() for p in wedges) == 3
    check_png(fig, tmp_path / "cones_distinct.png")


# The overlap panel's y-label unit and its factor from metres.
OVERLAP_UNITS = {"m": 1.0, "mm": 1e3, "\u00b5m": 1e6, "nm": 1e9, "pm": 1e12}


@pytest.fixture(scope="module")
def twelve_disks():
    """Twelve disks settling on the ground for 0.3 s: past the ~10 bodies where the summary aggregates."""
    scene = {"gravity": [0, -9.81], "timestep": 0.002, "duration": 0.3, "restitution": 0.0, "friction": 0.5,
             "ground": {"height": 0.0},
             "bodies": [{"name": f"d{i}", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0,
                         "position": [0.25 * (i % 6), 0.12 + 0.25 * (i // 6)]} for i in range(12)]}
    return perp.simulate(scene)


def test_summary_reads_at_scale(tmp_path, twelve_disks):
    # issue 38: above ~10 bodies, aggregates per step and snapshots instead of a curve a body
    sim = twelve_disks
    fig = perp.plot.summary(sim)
    by_title = {ax.get_title(): ax for ax in fig.axes}
    iterations = by_title["solver iterations"].lines[0].get_ydata()
    assert iterations.size == sim.steps and iterations.max() == sim.iterations.max() > 0
    np.testing.assert_array_equal(by_title["active contacts per step"].lines[0].get_ydata(),
                                  np.diff(sim._offsets))
    residual = by_title["solver criterion (residual)"].lines[0].get_ydata()
    positive = sim.residual > 0
    np.testing.assert_array_equal(residual[positive], sim.residual[positive])
    assert by_title["solver criterion (residual)"].get_yscale() == "log"
    step, solve = by_title["time per step"].lines
    np.testing.assert_array_equal(step.get_ydata(), sim.step_ms)
    np.testing.assert_array_equal(solve.get_ydata(), sim.solve_ms)
    gaps = by_title["deepest overlap per step"].lines[0].get_ydata()
    factor = OVERLAP_UNITS[by_title["deepest overlap per step"].get_ylabel()[len("overlap ("):-1]]
    assert gaps.max() / factor == pytest.approx(max(0.0, -sim.contacts["gap"].min()))
    np.testing.assert_array_equal(by_title["kinetic energy"].lines[0].get_ydata(), sim.energy.kinetic)
    snapshots = [title for title in by_title if title.startswith("configuration at t =")]
    assert len(snapshots) == 4 and snapshots[0] == "configuration at t = 0 s"
    check_png(fig, tmp_path / "summary.png")
    fig = perp.plot.trajectory(sim)
    assert fig.axes[0].get_legend() is None  # 12 names would be a tangle
    matplotlib.pyplot.close(fig)
    with pytest.raises(ValueError, match="snapshots must be >= 0"):
        perp.plot.summary(sim, snapshots=-1)


def test_summary_ticks_read_without_an_offset(tmp_path, twelve_disks):
    # The overlap of resting disks is micrometres or less: in metres its axis ticked 0.0-1.0 under
    # a "1e-11" in the corner. Now in the unit that writes its largest value from 1 to 1000, plain
    # labels, at most 6 ticks; the snapshots' heights labelled once.
    sim = twelve_disks
    fig = perp.plot.summary(sim)
    fig.canvas.draw()
    by_title = {ax.get_title(): ax for ax in fig.axes}
    ax = by_title["deepest overlap per step"]
    largest = max(0.0, -float(sim.contacts["gap"].min()))
    assert largest > 0
    unit = ax.get_ylabel()[len("overlap ("):-1]
    factor = OVERLAP_UNITS[unit]
    # the unit chosen by hand from the largest overlap: the first where it reads >= 1 (pm below)
    expected = next((f for f in (1.0, 1e3, 1e6, 1e9, 1e12) if largest * f >= 1), 1e12)
    assert factor == expected
    assert ax.lines[0].get_ydata().max() == pytest.approx(largest * factor)
    assert ax.yaxis.get_offset_text().get_text() == ""
    low, high = ax.get_ylim()
    shown = [t for t in ax.get_yticks() if low <= t <= high]
    assert 2 <= len(shown) <= 6
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert all("e" not in label.lower() for label in labels), labels
    snapshots = [a for title, a in by_title.items() if title.startswith("configuration at t =")]
    assert snapshots[0].get_ylabel() == "y (m)"
    assert any(t.get_text() for t in snapshots[0].get_yticklabels())
    for a in snapshots[1:]:
        assert not any(t.get_text() and t.get_visible() for t in a.get_yticklabels()) or \
            not a.yaxis.get_tick_params()["labelleft"]
        assert len(a.get_xticks()) <= 5
    check_png(fig, tmp_path / "summary_ticks.png")
