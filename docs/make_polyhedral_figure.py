"""Draws docs/images/polyhedral_friction.png (docs/contact.md, "The polyhedral cone in 3D"): a box
sliding on the ground in 3D under the exact Coulomb cone and the polyhedral (Stewart–Trinkle)
model with k = 4, 8, 16 facets, pushed (started) at angles 0..90° from x.

    PYTHONPATH=build/python MPLBACKEND=Agg /usr/bin/python3 docs/make_polyhedral_figure.py [OUTPUT.png]

Left: the direction of the friction impulse of the first step against the push (−v0). Right: the
direction of the sliding velocity against the push after T = v0 / (2 μ g), when the exact cone has
halved the speed. The lines are the hand-derived values (the pyramid's vertex nearest to the push,
and the motion it gives, derived below); the dots are perp's steps. Each angle printed is the
largest |deviation| over the push angles.
"""
import math
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import perp  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
MU = 0.5
G = 9.81
V0 = 1.0
H = 1e-3
STEPS = round(V0 / (2 * MU * G) / H)  # T = v0 / (2 μ g): 102 steps of 1 ms
MODELS = [("exact cone", "coulomb", None), ("k = 16", "stewart-trinkle", 16), ("k = 8", "stewart-trinkle", 8),
          ("k = 4", "stewart-trinkle", 4)]


def scene(phi: float) -> dict:
    """A 0.4 × 0.3 × 0.2 m box of 2 kg flat on the ground, sliding at v0 along angle phi."""
    return {"dimension": 3, "gravity": [0, 0, -G], "timestep": H, "duration": 1.0, "restitution": 0.0,
            "friction": MU, "ground": {"height": 0.0},
            "bodies": [{"name": "box", "shape": {"type": "box", "size": [0.4, 0.3, 0.2]}, "mass": 2.0,
                        "position": [0, 0, 0.1], "velocity": [V0 * math.cos(phi), V0 * math.sin(phi), 0]}]}


def wrap(angle: float) -> float:
    """The angle in (−π, π]."""
    return math.atan2(math.sin(angle), math.cos(angle))


def by_hand(phi: float, k):
    """The deviations (friction at the start, velocity at T) by hand. The ground contact's frame is
    (t1, t2) = (y, −x), so the pyramid's directions lie at the world angles 90° + 360° l / k: the
    vertices at multiples of 2π/k. Maximal dissipation picks the vertex α nearest to the push: the
    friction is μ m g along −(cos α, sin α). The velocity v0 e_φ − μ g t e_α turns away from α until
    it reaches the facet's normal ψ = α ± π/k (the side of φ), where it stays (the friction then on
    the facet, the sliding along its normal)."""
    if k is None:
        return 0.0, 0.0
    step = 2 * math.pi / k
    alpha = round(phi / step) * step
    if abs(wrap(phi - alpha)) < 1e-12 or abs(abs(wrap(phi - alpha)) - step / 2) < 1e-12:
        return 0.0, 0.0  # pushed along a vertex or a facet's normal: no turn
    psi = alpha + math.copysign(step / 2, wrap(phi - alpha))
    t = STEPS * H
    v = V0 * np.array([math.cos(phi), math.sin(phi)]) - MU * G * t * np.array([math.cos(alpha), math.sin(alpha)])
    turned = math.atan2(v[1], v[0])
    if (turned - psi) * (phi - psi) <= 0:  # crossed the facet's normal: slides along it
        turned = psi
    return wrap(alpha - phi), wrap(turned - phi)


def by_steps(phi: float, model: str, k):
    """The same from perp's steps (perp.World3)."""
    world = perp.World3(scene(phi))
    options = {"friction_model": model}
    if k is not None:
        options["facets"] = k
    first = world.step(**options)
    assert str(first.status) == "solved", first.status
    impulse = first.contacts["impulse_world"].sum(axis=0)
    friction = wrap(math.atan2(-impulse[1], -impulse[0]) - phi)
    for _ in range(STEPS - 1):
        report = world.step(**options)
        assert str(report.status) == "solved", report.status
    v = world.velocity[0]
    return friction, wrap(math.atan2(v[1], v[0]) - phi)


def main(out: pathlib.Path) -> None:
    pushes = np.radians(np.arange(0, 91, 2.5))
    fine = np.radians(np.linspace(0, 90, 721))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
    worst = 0.0
    for (label, model, k), colour in zip(MODELS, ("black", "tab:green", "tab:blue", "tab:red")):
        hand = np.degrees([by_hand(p, k) for p in fine])
        steps = np.degrees([by_steps(p, model, k) for p in pushes])
        expected = np.degrees([by_hand(p, k) for p in pushes])
        worst = max(worst, float(np.abs(steps - expected).max()))
        for panel in (0, 1):
            peak = np.abs(hand[:, panel]).max()
            axes[panel].plot(np.degrees(fine), hand[:, panel], color=colour, lw=1.2,
                             label=f"{label} (max {peak:.1f}°)")
            axes[panel].plot(np.degrees(pushes), steps[:, panel], "o", color=colour, ms=3.5)
    axes[0].set_title("friction impulse of the first step against −v0")
    axes[1].set_title(f"sliding direction after T = v0/(2μg) = {STEPS * H:.3f} s")
    for ax, corner in zip(axes, ("upper left", "upper right")):
        ax.set_xlabel("push angle from x (°)")
        ax.set_xticks(range(0, 91, 15))
        ax.axhline(0, color="grey", lw=0.5)
        ax.legend(fontsize=8, loc=corner)
    axes[0].set_ylabel("deviation (°)")
    fig.suptitle(f"box sliding on the ground, μ = {MU}, v0 = {V0} m/s, h = {H * 1e3:g} ms: "
                 "lines by hand, dots perp's steps", fontsize=10)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    print(f"{out}: largest difference between the steps and the hand values {worst:.2e}°")
    if worst > 1e-6:
        sys.exit("the steps and the hand-derived deviations differ")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "images" / "polyhedral_friction.png")
