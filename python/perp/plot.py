"""Pictures of perp's results with matplotlib (imported on first use of this module).

Every function returns the matplotlib Figure it drew on (a new one, or ``ax.figure`` when an
Axes is given), so that a script can ``fig.savefig("x.png")`` or show it.
"""

from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence

import numpy as np

from matplotlib import patches
from matplotlib import pyplot as plt

import perp

__all__ = ["convergence", "painleve_map", "cones", "trajectory", "snapshots", "energy", "summary"]

REGIME_COLORS = {"separating": "#9ecae1", "contact": "#a1d99b", "indeterminate": "#fdae6b", "inconsistent": "#fc9272", "degenerate": "#787878"}


def _axes(ax, figsize=(6.4, 4.8)):
    if ax is not None:
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=figsize)
    return fig, ax


def convergence(*results, labels: Optional[Sequence[str]] = None, ax=None, title: str = "convergence"):
    """The residual history of each result on a log axis, one line per result (labelled by method)."""
    if len(results) == 1 and isinstance(results[0], (list, tuple)):
        results = tuple(results[0])
    if not results:
        raise ValueError("convergence: give at least one result")
    fig, ax = _axes(ax)
    histories = [np.asarray(result.history, dtype=float) for result in results]
    for k, history in enumerate(histories):
        if history.size == 0:
            raise ValueError(f"convergence: result {k} ({results[k].method}) has no history "
                             "(record_history=False, or enum)")
    # a residual of exactly 0 cannot be drawn on a log axis: it is drawn a decade below the
    # smallest positive one (at most 1e-16), with a downward triangle
    positive = [h[h > 0].min() for h in histories if np.any(h > 0)]
    floor = min([1e-16] + [0.1 * p for p in positive])
    for k, (result, history) in enumerate(zip(results, histories)):
        label = labels[k] if labels is not None else f"{result.method} ({result.status})"
        steps = np.arange(1, history.size + 1)
        line, = ax.semilogy(steps, np.maximum(history, floor), marker=".", label=label)
        zero = history == 0
        if np.any(zero):
            ax.plot(steps[zero], np.full(zero.sum(), floor), "v", color=line.get_color())
    ax.set_xlabel("iteration")
    ax.set_ylabel("natural residual")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return fig


def painleve_map(theta_dot: float = 0.0, mass: float = 1.0, half_length: float = 1.0, gravity: float = 9.81,
                 mu_max: float = 2.0, resolution: int = 200, ax=None, theta: Optional[float] = None,
                 mu: Optional[float] = None):
    """The (θ, μ) regime map of the Painlevé rod: which of separating / contact / indeterminate /
    inconsistent holds, the curve α = 0 and the critical point μ_c = 4/3 at θ = atan 2. With
    ``theta`` (rad) and ``mu``, the point asked is marked (an open circle, labelled with its regime
    from :func:`perp.painleve`) and the μ axis reaches past it."""
    if (theta is None) != (mu is None):
        raise ValueError("painleve_map: give both theta and mu to mark a point "
                         f"(got theta={theta!r}, mu={mu!r})")
    asked = None
    if theta is not None:
        asked = perp.painleve(theta, mu, theta_dot, mass, half_length, gravity)  # validates theta and mu
        mu_max = max(mu_max, 1.1 * float(mu))
    fig, ax = _axes(ax)
    thetas = np.linspace(1e-3, math.pi / 2 - 1e-3, resolution)
    mus = np.linspace(0.0, mu_max, resolution)
    grid = perp.painleve_regimes(thetas, mus, theta_dot, mass, half_length, gravity)
    from matplotlib.colors import BoundaryNorm, ListedColormap
    cmap = ListedColormap([REGIME_COLORS[name] for name in perp.PAINLEVE_REGIMES])
    ax.pcolormesh(np.degrees(thetas), mus, grid, cmap=cmap, norm=BoundaryNorm(np.arange(-0.5, 4.5), 4),
                  shading="auto")
    t = np.tan(thetas)
    boundary = (t ** 2 + 4) / (3 * t)
    ax.plot(np.degrees(thetas), boundary, "k-", lw=1.2, label="α = 0: μ = (tan²θ + 4) / (3 tan θ)")
    critical = perp.critical_mu()
    ax.plot(math.degrees(critical.theta), critical.mu, "k*", ms=12,
            label=f"μ_c = 4/3 at θ = atan 2 ({math.degrees(critical.theta):.2f}°)")
    if asked is not None:
        ax.plot(math.degrees(theta), mu, "o", ms=10, mfc="none", mec="#1a1ad9", mew=2.5,
                label=f"asked: θ = {math.degrees(theta):.4g}°, μ = {mu:.4g} ({asked.regime})")
    handles = [patches.Patch(color=REGIME_COLORS[n], label=n) for n in perp.PAINLEVE_REGIMES]
    line_handles, _ = ax.get_legend_handles_labels()
    ax.legend(handles=line_handles + handles, loc="upper right", fontsize="small")
    ax.set_xlim(0, 90)
    ax.set_ylim(0, mu_max)
    ax.set_xlabel("θ (degrees)")
    ax.set_ylabel("μ")
    ax.set_title(f"Painlevé rod regimes, dθ/dt = {theta_dot:g} rad/s")
    return fig


def cones(M, q=None, ax=None, radius: Optional[float] = None):
    """The four complementary cones of a 2×2 M in q-space ([chapter] §1.2 in docs/references.md): cone α is spanned by
    −M[:, i] for i in α and e_i otherwise. Since q = w − M z = Σ w_i e_i + Σ z_i (−M[:, i]), LCP(q, M)
    has a solution with support α exactly when q lies in cone α: the cones covering the plane means
    M is a Q-matrix, overlapping cones mean non-uniqueness. With q, marks q and lists its solutions
    (found by enumeration).

    Each cone has its own colour (the four first of matplotlib's "tab10", named in the legend): its
    edges as arrows from the origin and an opaque band at its own radius between them (wider for a
    cone that holds q), so overlapping cones show side by side instead of blending."""
    M = np.asarray(M, dtype=float)
    if M.shape != (2, 2):
        raise ValueError(f"cones: M must be 2x2, got shape {M.shape}")
    fig, ax = _axes(ax, figsize=(6.0, 6.0))
    r = radius if radius is not None else 1.2 * max(1.0, float(np.max(np.abs(M))), 0.0 if q is None else
                                                    float(np.max(np.abs(q))))
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
    for k, alpha in enumerate([(), (0,), (1,), (0, 1)]):
        gens = [(-M[:, i] if i in alpha else np.eye(2)[i]) for i in range(2)]
        g = [v / (np.linalg.norm(v) or 1.0) * r for v in gens]
        name = "{" + ", ".join(f"z{i + 1}" for i in alpha) + "}" if alpha else "{} (w basic)"
        cross = g[0][0] * g[1][1] - g[0][1] * g[1][0]
        if abs(cross) < 1e-12 * r * r:  # a degenerate cone: a ray or a line
            for v in g:
                ax.plot([0, v[0]], [0, v[1]], color=colors[k], lw=3, alpha=0.7)
            ax.plot([], [], color=colors[k], lw=3, label=f"cone {name} (degenerate)")
            continue
        # the band from g0 to g1 through the smaller angle (a convex cone), at this cone's radius
        a0, a1 = math.atan2(g[0][1], g[0][0]), math.atan2(g[1][1], g[1][0])
        span = (a1 - a0) % (2 * math.pi)
        if span > math.pi:
            a0, span = a1, 2 * math.pi - span
        holds_q = q is not None and _in_cone(gens, np.asarray(q, dtype=float))
        inner = r * (0.3 + 0.16 * k)
        width = r * (0.12 if holds_q else 0.07)
        ax.add_patch(patches.Wedge((0, 0), inner + width, math.degrees(a0), math.degrees(a0 + span), width=width,
                                   facecolor=colors[k], edgecolor=colors[k], alpha=1.0,
                                   label=f"cone {name}" + (" (holds q)" if holds_q else "")))
        for v in g:
            ax.annotate("", xy=v, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=colors[k]))
    title = "complementary cones of M"
    if q is not None:
        q = np.asarray(q, dtype=float)
        result = perp.solve(M, q, method="enum", all_solutions=True)
        ax.plot(q[0], q[1], "ko", ms=7, label="q")
        sols = ", ".join("(" + ", ".join(f"{v:.3g}" for v in s) + ")" for s in result.solutions) or "none"
        title += f"\nq = ({q[0]:.3g}, {q[1]:.3g}): {len(result.solutions)} solution(s) z = {sols}"
    ax.axhline(0, color="0.6", lw=0.8)
    ax.axvline(0, color="0.6", lw=0.8)
    ax.set_xlim(-r, r)
    ax.set_ylim(-r, r)
    ax.set_aspect("equal")
    ax.set_xlabel("q₁")
    ax.set_ylabel("q₂")
    ax.set_title(title, fontsize="medium")
    ax.legend(loc="lower left", fontsize="small")
    return fig


def _in_cone(generators, q) -> bool:
    """q = C x with x >= 0 for the 2x2 C whose columns are ``generators`` (a cone with area)."""
    x = np.linalg.solve(np.column_stack(generators), q)
    return bool(np.min(x) >= -1e-12 * max(float(np.max(np.abs(x))), 1.0))


def _scene_limits(sim, samples: Iterable[int]):
    xs, ys = [], []
    for k in samples:
        for i, shape in enumerate(sim.shapes):
            reach = _reach(shape)
            xs += [sim.x[k, i] - reach, sim.x[k, i] + reach]
            ys += [sim.y[k, i] - reach, sim.y[k, i] + reach]
    if sim.ground is not None:
        ys.append(sim.ground)
    pad = 0.1 * max(max(xs) - min(xs), max(ys) - min(ys), 1e-3)
    return (min(xs) - pad, max(xs) + pad), (min(ys) - pad, max(ys) + pad)


def _reach(shape: dict) -> float:
    if shape["type"] == "disk":
        return shape["radius"]
    if shape["type"] == "box":
        return 0.5 * math.hypot(shape["width"], shape["height"])
    return 0.5 * shape["length"]


MANY_BODIES = 10
"""Above this many bodies a curve a body is a tangle: :func:`trajectory` leaves out its legend, and
:func:`summary` draws the run's aggregates instead (issue 38's "more than ~10 bodies")."""


def trajectory(sim, ax=None):
    """The path of every body's centre in the plane, with the ground line (named in a legend up to
    ``MANY_BODIES`` bodies; for more, see :func:`summary`)."""
    fig, ax = _axes(ax)
    for i, name in enumerate(sim.names):
        ax.plot(sim.x[:, i], sim.y[:, i], label=name)
        ax.plot(sim.x[0, i], sim.y[0, i], "o", color=ax.lines[-1].get_color())
    if sim.ground is not None:
        ax.axhline(sim.ground, color="0.3", lw=2, label="ground")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title("trajectories (o: start)")
    if len(sim.names) <= MANY_BODIES:
        ax.legend(fontsize="small")
    return fig


def _draw_body(ax, shape: dict, x: float, y: float, angle: float, color):
    c, s = math.cos(angle), math.sin(angle)
    if shape["type"] == "disk":
        ax.add_patch(patches.Circle((x, y), shape["radius"], facecolor=color, edgecolor="k", alpha=0.6))
        ax.plot([x, x + shape["radius"] * c], [y, y + shape["radius"] * s], "k-", lw=0.8)  # shows the rotation
    elif shape["type"] == "box":
        hw, hh = shape["width"] / 2, shape["height"] / 2
        corners = [(x + c * u - s * v, y + s * u + c * v) for u, v in ((-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh))]
        ax.add_patch(patches.Polygon(corners, closed=True, facecolor=color, edgecolor="k", alpha=0.6))
    else:
        hl = shape["length"] / 2
        ax.plot([x - hl * c, x + hl * c], [y - hl * s, y + hl * s], "-", color=color, lw=4, solid_capstyle="round")


def snapshots(sim, times: Sequence[float], impulse_scale: Optional[float] = None):
    """The scene at each of ``times`` (one panel each): bodies as shapes, the ground, and the
    contacts of the step starting there as points with their impulse (normal + tangential) as arrows."""
    times = list(times)
    if not times:
        raise ValueError("snapshots: give at least one time")
    samples = [sim.sample_index(t) for t in times]
    fig, axes = plt.subplots(1, len(times), figsize=(3.2 * len(times), 3.4), squeeze=False, sharex=True, sharey=True)
    xlim, ylim = _scene_limits(sim, samples)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    largest = float(np.max(np.abs(sim.contacts["normal_impulse"]))) if sim.contacts["gap"].size else 0.0
    scale = impulse_scale if impulse_scale is not None else (0.15 * (ylim[1] - ylim[0]) / largest if largest else 0)
    for ax, k in zip(axes[0], samples):
        if sim.ground is not None:
            ax.fill_between(xlim, [ylim[0]] * 2, [sim.ground] * 2, color="0.85")
            ax.axhline(sim.ground, color="0.3", lw=1.5)
        for i, shape in enumerate(sim.shapes):
            _draw_body(ax, shape, sim.x[k, i], sim.y[k, i], sim.angle[k, i], colors[i % len(colors)])
        if sim.steps:
            c = sim.contacts_at(min(k, sim.steps - 1))  # the step starting at sample k (the last one ending there)
            if c["gap"].size:
                tangent = np.column_stack([c["normal"][:, 1], -c["normal"][:, 0]])
                impulse = c["normal"] * c["normal_impulse"][:, None] + tangent * c["tangent_impulse"][:, None]
                ax.plot(c["point"][:, 0], c["point"][:, 1], "r.", ms=6)
                ax.quiver(c["point"][:, 0], c["point"][:, 1], impulse[:, 0] * scale, impulse[:, 1] * scale,
                          color="r", angles="xy", scale_units="xy", scale=1, width=0.008)
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_aspect("equal")
        ax.set_title(f"t = {sim.t[k]:.3g} s")
    axes[0][0].set_ylabel("y (m)")
    for ax in axes[0]:
        ax.set_xlabel("x (m)")
    fig.tight_layout()
    return fig


def energy(sim, ax=None):
    """Kinetic, potential and total energy against time (the total drops at plastic impacts and
    with friction, and stays flat in free flight at θ = ½)."""
    fig, ax = _axes(ax)
    ax.plot(sim.t, sim.energy.kinetic, label="kinetic")
    ax.plot(sim.t, sim.energy.potential, label="potential")
    ax.plot(sim.t, sim.energy.total, "k-", lw=1.5, label="total")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("energy (J)")
    ax.set_title("energy")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return fig


_LENGTH_UNITS = ((1.0, "m"), (1e3, "mm"), (1e6, "\u00b5m"), (1e9, "nm"), (1e12, "pm"))


def _length_unit(largest: float):
    """(factor, unit) that writes lengths up to ``largest`` metres as numbers from 1 to 1000: a
    contact's overlap is micrometres to picometres, which in metres tick as 0.0-1.0 under a
    "1e-11" offset in the corner."""
    for factor, unit in _LENGTH_UNITS:
        if largest * factor >= 1.0:
            return factor, unit
    return _LENGTH_UNITS[-1]


def _plain_ticks(ax, axis: str = "y", bins: int = 5):
    """At most ``bins`` + 1 round ticks on ``axis`` with plain labels (no offset, no exponent in
    the corner), so that labels neither crowd nor need a second number to be read."""
    from matplotlib.ticker import MaxNLocator, ScalarFormatter
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(MaxNLocator(nbins=bins))
    formatter = ScalarFormatter(useOffset=False)
    formatter.set_scientific(False)
    target.set_major_formatter(formatter)


def summary(sim, snapshots: int = 4):
    """A run at a glance, readable for any number of bodies: per step the kinetic energy, the
    deepest overlap, the active contacts, the solver's iterations, its criterion (``residual``, log
    axis; zeros not drawn) and the time (step and solve, ms), and below them ``snapshots``
    configurations (evenly spaced samples from the first to the last, bodies as outlines; 0 for
    none). The overlap is drawn in the length unit (m, mm, µm, nm or pm) that writes its largest
    value between 1 and 1000, with plain tick labels; the snapshots share their limits, and their
    heights are labelled on the first only. Each per-step curve has one point per step: the axis titled "solver iterations" holds
    ``sim.iterations`` against the steps' end times ``sim.t[1:]``."""
    snapshots = int(snapshots)
    if snapshots < 0:
        raise ValueError(f"summary: snapshots must be >= 0, got {snapshots}")
    steps = int(sim.steps)
    t_end = np.asarray(sim.t[1:steps + 1], dtype=float)
    contacts = np.diff(np.asarray(sim._offsets))[:steps]
    deepest = np.zeros(steps)
    if sim.contacts["gap"].size:
        np.minimum.at(deepest, np.asarray(sim.contacts["step"], dtype=np.int64), sim.contacts["gap"])
    rows = 3 + (1 if snapshots else 0)
    fig = plt.figure(figsize=(11, 3.0 * rows), layout="constrained")
    grid = fig.add_gridspec(rows, max(2, snapshots) if snapshots else 2)
    half = grid.ncols // 2
    panels = [fig.add_subplot(grid[r, c * half:(c + 1) * half] if c == 0 else grid[r, half:]) for r in range(3)
              for c in range(2)]
    ax = panels[0]
    ax.plot(sim.t, sim.energy.kinetic, label="kinetic")
    ax.set_ylabel("energy (J)")
    ax.set_title("kinetic energy")
    ax = panels[1]
    overlap = np.maximum(0.0, -deepest)
    factor, unit = _length_unit(float(overlap.max()) if overlap.size else 0.0)
    ax.plot(t_end, overlap * factor, color="C3")
    ax.set_ylabel(f"overlap ({unit})")
    ax.set_title("deepest overlap per step")
    _plain_ticks(ax)
    ax = panels[2]
    ax.plot(t_end, contacts, color="C0")
    ax.set_ylabel("contacts")
    ax.set_title("active contacts per step")
    ax = panels[3]
    ax.plot(t_end, np.asarray(sim.iterations, dtype=float), color="C4")
    ax.set_ylabel("iterations")
    ax.set_title("solver iterations")
    ax = panels[4]
    residual = np.asarray(sim.residual, dtype=float)
    ax.semilogy(t_end, np.where(residual > 0, residual, np.nan), color="C5")
    ax.set_ylabel("residual")
    ax.set_title("solver criterion (residual)")
    ax = panels[5]
    ax.plot(t_end, sim.step_ms, label="step")
    ax.plot(t_end, sim.solve_ms, label="solve")
    ax.set_ylabel("ms")
    ax.set_title("time per step")
    ax.legend(fontsize="small")
    for ax in panels:
        ax.set_xlabel("t (s)")
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"{len(sim.names)} bodies, {steps} steps of {sim.timestep:g} s")
    if snapshots:
        count = min(snapshots, len(sim.t))
        samples = sorted({int(round(i)) for i in np.linspace(0, len(sim.t) - 1, count)})
        xlim, ylim = _scene_limits(sim, samples)
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for j, k in enumerate(samples):
            ax = fig.add_subplot(grid[3, j])
            if sim.ground is not None:
                ax.fill_between(xlim, [ylim[0]] * 2, [sim.ground] * 2, color="0.85")
                ax.axhline(sim.ground, color="0.3", lw=1.5)
            for i, shape in enumerate(sim.shapes):
                _draw_body(ax, shape, sim.x[k, i], sim.y[k, i], sim.angle[k, i], colors[i % len(colors)])
            ax.set_xlim(*xlim)
            ax.set_ylim(*ylim)
            ax.set_aspect("equal")
            ax.set_title(f"configuration at t = {sim.t[k]:.3g} s", fontsize="medium")
            ax.set_xlabel("x (m)")
            # The same limits in every snapshot: heights labelled once, on the first, and at most
            # four ticks across each narrow panel (more overlapped on wide scenes).
            _plain_ticks(ax, "x", bins=3)
            _plain_ticks(ax, "y", bins=4)
            if j == 0:
                ax.set_ylabel("y (m)")
            else:
                ax.tick_params(axis="y", labelleft=False)
    return fig
