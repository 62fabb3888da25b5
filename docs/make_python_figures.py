"""Draws the figures of docs/python.md into docs/images/python/ with perp.plot (Agg backend).

    PYTHONPATH=build/python /usr/bin/python3 docs/make_python_figures.py [OUTPUT_DIR]
"""
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import perp  # noqa: E402
import perp.plot  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]


def main(out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    A = rng.normal(size=(30, 30))
    M = A @ A.T / 30 + np.eye(30)
    q = rng.normal(size=30)
    results = [perp.solve(M, q, method=m, tol=1e-12) for m in ("pgs", "psor", "newton-fb", "interior-point", "lemke")]
    figures = {
        "convergence": perp.plot.convergence(*results),
        "painleve": perp.plot.painleve_map(theta=0.9, mu=1.5),
        "cones": perp.plot.cones([[1.0, -2.0], [-2.0, 1.0]], q=[1.0, 0.2]),
    }
    sim = perp.simulate(REPO / "examples" / "scenes" / "box_stack.json")
    figures["trajectory"] = perp.plot.trajectory(sim)
    figures["snapshots"] = perp.plot.snapshots(sim, [0.0, 0.3, 1.0])
    figures["energy"] = perp.plot.energy(perp.simulate(REPO / "examples" / "scenes" / "bouncing_ball.json"))
    heap = json.loads((REPO / "examples" / "scenes" / "heap100.json").read_text())
    heap["duration"] = 3.0
    figures["summary"] = perp.plot.summary(perp.simulate(heap))
    for name, fig in figures.items():
        fig.savefig(out / f"{name}.png", dpi=72)
        print(out / f"{name}.png")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "docs" / "images" / "python")
