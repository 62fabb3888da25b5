"""The CLI's plots hold what they say (issue 38): the many-body simulation figure carries the
solver's iterations, criterion and time per step as steps.csv has them, and snapshots of the
configuration; the Painlevé diagram marks the point asked; the cones plot gives each cone its own
opaque colour and a legend entry. Read from the SVG's <desc>, where write_figure lists every
labelled series with its colour, point count and y range, and every marked point with its
coordinates.

Usage: plot_test.py PERP_BINARY REPOSITORY_ROOT"""

import csv
import json
import os
import re
import subprocess
import sys
import tempfile

PERP = sys.argv[1]
REPO = sys.argv[2]
failures = []


def check(name, condition, detail=""):
    if not condition:
        failures.append(f"{name}: {detail}")
        print(f"FAIL: {name}: {detail}")


def run(*args, expect=0):
    done = subprocess.run([PERP, *args], capture_output=True, text=True, timeout=300)
    if done.returncode != expect:
        raise SystemExit(f"perp {' '.join(args)} exited {done.returncode}, expected {expect}:\n"
                         f"{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def desc(path):
    text = open(path, encoding="utf-8").read()
    return text[text.index("<desc>") + 6:text.index("</desc>")]


def series(description, label):
    """(colour, points, lo, hi) of the series labelled `label` in the first panel that has one."""
    m = re.search(r"^series: " + re.escape(label) + r" \((#[0-9a-f]{6}), (\d+) points?, y from (\S+) to (\S+)\)$",
                  description, flags=re.M)
    if m is None:
        return None
    return m.group(1), int(m.group(2)), float(m.group(3)), float(m.group(4))


def steps_csv(folder):
    with open(os.path.join(folder, "steps.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


def scene(bodies, duration, timestep=1e-3):
    return {"gravity": [0, -9.81], "timestep": timestep, "duration": duration, "friction": 0.5, "restitution": 0.0,
            "ground": {"height": 0.0}, "bodies": bodies}


def disks(count, radius=0.1):
    return [{"name": f"disk{i}", "shape": {"type": "disk", "radius": radius}, "mass": 1.0,
             "position": [0.25 * (i % 6), radius + 0.01 + 0.25 * (i // 6)]} for i in range(count)]


with tempfile.TemporaryDirectory() as tmp:
    def write_scene(name, data):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            json.dump(data, f)
        return path

    # 1. Eleven bodies (a box and a rod among them) are "many": aggregates, solver panels, snapshots.
    bodies = disks(9) + [
        {"name": "crate", "shape": {"type": "box", "width": 0.3, "height": 0.2}, "mass": 2.0, "position": [0.6, 0.9],
         "angle": 0.3},
        {"name": "stick", "shape": {"type": "rod", "length": 0.5}, "mass": 0.5, "position": [0.2, 1.2], "angle": 0.2}]
    many = write_scene("many.json", scene(bodies, 0.5))
    out = os.path.join(tmp, "many")
    run("simulate", many, "--out", out, "--plot", "svg")
    d = desc(os.path.join(out, "plot.svg"))
    rows = steps_csv(out)
    for panel in ("height of the 11 bodies", "active contacts", "deepest overlap", "energy",
                  "solver iterations per step", "solver criterion per step", "time per step"):
        check(f"panel {panel}", f"panel: {panel}" in d, d[:400])
    check("no curve a body", not re.search(r"^series: disk\d", d, flags=re.M))
    snapshots = re.findall(r"^panel: configuration at t = (\S+) s$", d, flags=re.M)
    check("four snapshots, first at 0 and last at the end", len(snapshots) == 4 and float(snapshots[0]) == 0
          and close(float(snapshots[-1]), float(rows[-1]["t"])), snapshots)
    for label, column in (("iterations", "iterations"), ("residual", "residual"), ("contacts", "contacts"),
                          ("step", "step_ms"), ("solve", "solve_ms")):
        s = series(d, label)
        check(f"series {label} present", s is not None, d[:2000])
        if s is None:
            continue
        values = [float(r[column]) for r in rows]
        check(f"{label}: one point a step", s[1] == len(rows), (s, len(rows)))
        # the residual's curve is on a log axis, but the description's range is of every finite value
        check(f"{label}: maximum equals steps.csv's", close(s[3], max(values)), (s, max(values)))
        check(f"{label}: minimum equals steps.csv's", close(s[2], min(values)), (s, min(values)))
    check("iterations: some solver work", series(d, "iterations") is not None and series(d, "iterations")[3] > 0)

    # 2. A long run: the per-step samples are merged in pairs (at most 8000 kept) and keep the peaks.
    long_run = write_scene("long.json", scene(disks(11), 9.0))
    out = os.path.join(tmp, "long")
    run("simulate", long_run, "--out", out, "--plot", "svg")
    d = desc(os.path.join(out, "plot.svg"))
    rows = steps_csv(out)
    s = series(d, "iterations")
    check("long run: steps", len(rows) == 9000, len(rows))
    check("long run: samples merged", s is not None and 4000 <= s[1] <= 8000, s)
    check("long run: the note says so", "note: each point: the most of 2 steps" in d)
    if s is not None:
        check("long run: peak kept", close(s[3], max(float(r["iterations"]) for r in rows)),
              (s, max(float(r["iterations"]) for r in rows)))
    s = series(d, "step")
    if s is not None:
        check("long run: slowest step kept", close(s[3], max(float(r["step_ms"]) for r in rows)), s)

    # 3. Ten bodies are still drawn one by one (issue 38's "more than ~10"), each in its legend.
    ten = write_scene("ten.json", scene(disks(10), 0.2))
    out = os.path.join(tmp, "ten")
    run("simulate", ten, "--out", out, "--plot", "svg")
    d = desc(os.path.join(out, "plot.svg"))
    check("ten bodies: a curve a body", len(re.findall(r"^series: disk\d", d, flags=re.M)) == 30, d[:300])
    check("ten bodies: no aggregates", "solver iterations" not in d)

    # 4. The Painlevé diagram marks the point asked, with its regime as `perp painleve` gives it.
    svg = os.path.join(tmp, "painleve.svg")
    printed = run("painleve", "--theta", "0.9", "--mu", "1.5", "--diagram", svg)
    regime = json.loads(run("painleve", "--theta", "0.9", "--mu", "1.5", "--json"))["regime"]
    d = desc(svg)
    check("painleve point marked", f"point: asked: theta = 0.9, mu = 1.5 ({regime}) at (0.9, 1.5)" in d, d)
    check("painleve point printed", f"marking asked: theta = 0.9, mu = 1.5 ({regime})" in printed, printed)
    check("painleve critical point kept", "point: mu = 4/3 at theta = atan 2 at (1.10714871779" in d, d)
    svg = os.path.join(tmp, "painleve_high.svg")
    run("painleve", "--theta", "0.5", "--mu", "5", "--diagram", svg)
    check("painleve axis reaches a large mu", "at (0.5, 5)" in desc(svg))
    message = run("painleve", "--theta", "0.9", "--diagram", svg, expect=2)
    check("painleve half a point refused", "give both --theta and --mu" in message, message)

    # 5. The cones: four cones, four distinct colours, each in the legend; nothing translucent.
    problem = write_scene("three.json", {"M": [[1, 2], [2, 1]], "q": [-1, -1]})
    svg = os.path.join(tmp, "cones.svg")
    run("cones", problem, "--plot", svg)
    d = desc(svg)
    cones = re.findall(r"^region: cone (\S+ \S+)(?: \(holds q\))? \((#[0-9a-f]{6})\)$", d, flags=re.M)
    check("four cones in the legend", sorted(c[0] for c in cones) == ["w1 w2", "w1 z2", "z1 w2", "z1 z2"], cones)
    check("four distinct colours", len({c[1] for c in cones}) == 4, cones)
    opacities = [float(x) for x in re.findall(r"fill-opacity:([0-9.]+)", open(svg).read())]
    check("no translucent fill (colours never blend)", all(x == 1 for x in opacities), sorted(set(opacities)))

print(f"plot_test: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
