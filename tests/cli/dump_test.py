#!/usr/bin/env python3
"""`perp simulate --dump DIR`: the steps' frictional contact problems as fclib files, replayed by
`perp solve`.

Each replay's answer and the step's own impulses (contacts.csv) are scored by the criteria of the
file's problem recomputed here in numpy from the file's matrices (W, q, mu; or M, H, q, b), not by
perp's solver code; the file is read with the Python module (perp.read_fclib) for its matrices only.

- a sliding box, --dump-every 1: every step's local problem (solved steps: the impulses stored as
  the solution); step 12 replayed;
- the same box with dense_pivoting_max_size 4 (the packed-step chain): the global form (M, H, q, b);
- a tolerance no solver meets: only the unsolved steps are written, each with the step's impulses
  as a guess (no solution);
- refusals: an LCP friction model, --dump over --out, a folder holding another file, --dump-every
  without --dump, out-of-range --dump-every and --dump-max;
- a 3D box sliding on the ground: the local problem (d = 3) of its four corners, the stored solution
  the step's impulses, sliding on the cone with the normal impulses summing to m g h; replayed.

Usage: dump_test.py PERP_BINARY SCENES_DIR PYTHON_MODULE_DIR
Exit 0: passed; 1: failed; 77: skipped (the Python module or numpy/scipy not importable).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

perp_binary, scenes, module_dir = sys.argv[1:4]
sys.path.insert(0, module_dir)
try:
    import numpy as np
    import scipy.sparse
    import perp
except ImportError as error:  # the module is built with PERP_BUILD_PYTHON only
    print(f"skipped: {error}")
    sys.exit(77)

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def run(*args, expect=None):
    done = subprocess.run([perp_binary, *args], capture_output=True, text=True, timeout=300)
    if expect is not None and done.returncode != expect:
        failures.append(f"{' '.join(args)}: exit {done.returncode}, expected {expect}")
        print("FAIL:", args, done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    return done


def cone_projection(x, mu):
    xn, xt = x[0], x[1:]
    t = np.linalg.norm(xt)
    if t <= mu * xn:
        return x.copy()
    if mu * t <= -xn:
        return np.zeros_like(x)
    pn = (xn + mu * t) / (1.0 + mu * mu)
    return np.concatenate(([pn], mu * pn * xt / t))


def relative_error(r, u, mu, d, scale):
    """Siconos' relative error of Coulomb's law in De Saxcé's form: ‖r − P_K(r − û)‖ / max(scale, ‖r‖, ‖u‖)."""
    total = 0.0
    for i in range(r.size // d):
        ri, ui = r[i * d:(i + 1) * d], u[i * d:(i + 1) * d]
        hat = ui.copy()
        hat[0] += mu[i] * np.linalg.norm(ui[1:])
        total += float(np.sum((ri - cone_projection(ri - hat, mu[i])) ** 2))
    denominator = max(scale, np.linalg.norm(r), np.linalg.norm(u))
    return np.sqrt(total) / denominator if denominator > 0 else np.sqrt(total)


def local_error(problem, r):
    W = scipy.sparse.csc_matrix(problem.W)
    return relative_error(r, W @ r + problem.q, problem.mu, problem.dimension, np.linalg.norm(problem.q))


def global_errors(problem, v, r):
    """(relative error of (r, u = Hᵀ v + b), ‖M v − H r − q‖∞)."""
    M = scipy.sparse.csc_matrix(problem.M)
    H = scipy.sparse.csc_matrix(problem.H)
    u = H.T @ v + problem.b
    return (relative_error(r, u, problem.mu, problem.dimension, np.linalg.norm(problem.b)),
            float(np.max(np.abs(M @ v - H @ r - problem.q))))


def step_impulses(out, step, timestep):
    """The step's impulses r = (Λ_N, Λ_T) per contact, interleaved, from contacts.csv (12 digits)."""
    t = step * timestep
    r = []
    with open(os.path.join(out, "contacts.csv")) as f:
        for row in csv.DictReader(f):
            if abs(float(row["t"]) - t) <= 1e-9:
                r += [float(row["normal_impulse"]), float(row["tangent_impulse"])]
    return np.array(r)


def steps_rows(out):
    with open(os.path.join(out, "steps.csv")) as f:
        return list(csv.DictReader(f))


def write_scene(folder, name, **changes):
    with open(os.path.join(scenes, "sliding_box.json")) as f:
        scene = json.load(f)
    scene["duration"] = 0.03
    scene.update(changes)
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(scene, f)
    return path, scene["timestep"]


with tempfile.TemporaryDirectory() as tmp:
    # 1. Every step, local form; step 12 replayed.
    scene, h = write_scene(tmp, "box.json")
    out, dump = os.path.join(tmp, "out"), os.path.join(tmp, "dump")
    done = run("simulate", scene, "--out", out, "--dump", dump, "--dump-every", "1", "--plot", "none", "--contacts", expect=0)
    check("dumped 30 steps' frictional contact problems" in done.stdout, f"summary line: {done.stdout}")
    names = sorted(os.listdir(dump))
    check(names == [f"step-{k:05d}.hdf5" for k in range(30)], f"the dump holds every step: {names[:3]}...")
    file = os.path.join(dump, "step-00012.hdf5")
    stored = perp.read_fclib(file)
    problem = stored["problem"]
    check(isinstance(problem, perp.FrictionContact) and problem.dimension == 2 and problem.mu.size == 2,
          f"step 12 is the local problem of two contacts: {problem}")
    check("step 12" in stored["title"] and "status solved" in stored["description"], stored["title"])
    r_step = step_impulses(out, 12, h)
    check(stored["solution"] is not None and np.allclose(stored["solution"]["r"], r_step, atol=1e-11),
          "the stored solution is the step's impulses")
    replay = json.loads(run("solve", file, "--json", expect=0).stdout)
    r_replay = np.array(replay["r"])
    check(replay["status"] == "solved", "the replay solves")
    e_step, e_replay = local_error(problem, r_step), local_error(problem, r_replay)
    check(e_step <= 1e-9 and e_replay <= 1e-8, f"criteria recomputed: step {e_step}, replay {e_replay}")
    # Sliding: r is unique (both corners on the cone's edge); the replay finds the step's impulses.
    check(np.allclose(r_replay, r_step, atol=1e-8 * max(1.0, np.abs(r_step).max())),
          f"replay {r_replay} vs step {r_step}")
    check(np.allclose(r_step[1::2], -0.5 * r_step[0::2], atol=1e-10), "the box slides on the cone's edge")
    text = run("solve", file, expect=0).stdout
    check("the file's stored solution: relative error" in text, "perp solve prints the stored solution's error")

    # 2. The packed-step chain (dense_pivoting_max_size 4 < 4 x 2 contacts): the global form.
    scene, h = write_scene(tmp, "packed.json", dense_pivoting_max_size=4)
    out2, dump2 = os.path.join(tmp, "out2"), os.path.join(tmp, "dump2")
    run("simulate", scene, "--out", out2, "--dump", dump2, "--dump-every", "5", "--plot", "none", "--contacts", expect=0)
    check(sorted(os.listdir(dump2)) == [f"step-{k:05d}.hdf5" for k in range(0, 30, 5)], "every 5th step")
    file = os.path.join(dump2, "step-00010.hdf5")
    stored = perp.read_fclib(file)
    problem = stored["problem"]
    check(isinstance(problem, perp.GlobalFrictionContact) and problem.M.shape == (3, 3)
          and problem.H.shape == (3, 4) and not np.any(problem.q), "step 10 is the global problem")
    r_step = step_impulses(out2, 10, h)
    solution = stored["solution"]
    e_step, equilibrium = global_errors(problem, solution["v"], r_step)
    check(np.allclose(solution["r"], r_step, atol=1e-11) and e_step <= 1e-9 and equilibrium <= 1e-12,
          f"the stored (v, r) solve the global problem: {e_step}, {equilibrium}")
    replay = json.loads(run("solve", file, "--json", expect=0).stdout)
    e_replay, equilibrium = global_errors(problem, np.array(replay["v"]), np.array(replay["r"]))
    check(e_replay <= 1e-8 and equilibrium <= 1e-12, f"the replay solves it: {e_replay}, {equilibrium}")
    check(np.allclose(replay["r"], r_step, atol=1e-8 * max(1.0, np.abs(r_step).max())), "replay r = step r")

    # 3. An unreachable tolerance: only the unsolved steps, the impulses as a guess.
    scene, h = write_scene(tmp, "strict.json", tolerance=1e-300)
    out3, dump3 = os.path.join(tmp, "out3"), os.path.join(tmp, "dump3")
    done = run("simulate", scene, "--out", out3, "--dump", dump3, "--plot", "none", "--contacts", expect=1)
    unsolved = [int(row["step"]) for row in steps_rows(out3)
                if int(row["contacts"]) > 0 and (row["status"] != "solved" or row["fallback"])]
    check(len(unsolved) > 0, "the strict scene has unsolved steps")
    check(sorted(os.listdir(dump3)) == [f"step-{k:05d}.hdf5" for k in unsolved], "exactly the unsolved steps")
    stored = perp.read_fclib(os.path.join(dump3, f"step-{unsolved[0]:05d}.hdf5"))
    check(stored["solution"] is None and len(stored["guesses"]) == 1
          and np.allclose(stored["guesses"][0]["r"], step_impulses(out3, unsolved[0], h), atol=1e-11),
          "an unsolved step's impulses are its guess")
    check("not a solution" in stored["description"], stored["description"])
    text = run("solve", os.path.join(dump3, f"step-{unsolved[0]:05d}.hdf5"), expect=0).stdout
    check("the file's guess 0: relative error" in text, "perp solve prints the guess's error")

    # 4. Refusals, each naming the cause; nothing written.
    scene, _ = write_scene(tmp, "convex.json", friction_model="anitescu-potra")
    done = run("simulate", scene, "--out", os.path.join(tmp, "o4"), "--dump", os.path.join(tmp, "d4"), expect=2)
    check("frictional contact problem" in done.stderr and not os.path.exists(os.path.join(tmp, "d4")),
          f"an LCP model refused: {done.stderr}")
    done = run("simulate", scene, "--out", out, "--dump", os.path.join(out, "dump"), expect=2)
    check("overlap" in done.stderr, f"--dump inside --out refused: {done.stderr}")
    with open(os.path.join(dump, "notes.txt"), "w") as f:
        f.write("mine")
    scene, _ = write_scene(tmp, "box2.json")
    done = run("simulate", scene, "--out", out, "--dump", dump, expect=2)
    check("notes.txt" in done.stderr and os.path.exists(os.path.join(dump, "step-00012.hdf5")),
          f"a folder holding another file refused, left as it was: {done.stderr}")
    done = run("simulate", scene, "--out", out, "--dump-every", "3", expect=2)
    check("--dump-every requires --dump" in done.stderr, f"--dump-every alone refused: {done.stderr}")
    done = run("simulate", scene, "--out", out, "--dump", os.path.join(tmp, "d5"), "--dump-every", "-1", expect=2)
    check("--dump-every must be >= 0, got -1" in done.stderr, f"a negative --dump-every refused: {done.stderr}")
    done = run("simulate", scene, "--out", out, "--dump", os.path.join(tmp, "d5"), "--dump-max", "0", expect=2)
    check("--dump-max must be >= 1, got 0" in done.stderr, f"--dump-max 0 refused: {done.stderr}")

# 5. A 3D scene: a 0.4 x 0.3 x 0.2 m box of 2 kg sliding at 1 m/s along x on the ground, mu 0.5. Its
# four corners slide (on the cone's boundary, |r_T| = mu r_N, r_T against the velocity), and the ground
# holds the box up: the normal impulses sum to m g h.
with tempfile.TemporaryDirectory() as tmp:
    box3d = {"dimension": 3, "gravity": [0, 0, -9.81], "timestep": 1 / 60, "duration": 0.05, "restitution": 0.0, "friction": 0.5, "ground": {"height": 0.0},
             "bodies": [{"name": "box", "shape": {"type": "box", "size": [0.4, 0.3, 0.2]}, "mass": 2.0,
                         "position": [0, 0, 0.1], "velocity": [1.0, 0, 0]}]}
    scene = os.path.join(tmp, "box3d.json")
    with open(scene, "w") as f:
        json.dump(box3d, f)
    out, dump = os.path.join(tmp, "out"), os.path.join(tmp, "dump")
    done = run("simulate", scene, "--out", out, "--dump", dump, "--dump-every", "1", "--contacts", expect=0)
    check("dumped 3 steps' frictional contact problems" in done.stdout, f"3D summary line: {done.stdout}")
    check(sorted(os.listdir(dump)) == [f"step-{k:05d}.hdf5" for k in range(3)], f"3D dump: {os.listdir(dump)}")
    stored = perp.read_fclib(os.path.join(dump, "step-00001.hdf5"))
    problem = stored["problem"]
    check(isinstance(problem, perp.FrictionContact) and problem.dimension == 3 and problem.mu.size == 4,
          f"3D step 1 is the local problem of four corners: {problem}")
    rows = []
    with open(os.path.join(out, "contacts.csv")) as f:
        for row in csv.DictReader(f):
            if abs(float(row["t"]) - 1 / 60) <= 1e-9:
                rows += [float(row["normal_impulse"]), float(row["tangent1_impulse"]), float(row["tangent2_impulse"])]
    r_step = np.array(rows)
    check(stored["solution"] is not None and np.allclose(stored["solution"]["r"], r_step, atol=1e-11),
          "the stored 3D solution is the step's impulses")
    e_step = local_error(problem, r_step)
    check(e_step <= 1e-9, f"3D criteria recomputed from the file: {e_step}")
    normal, tangent = r_step[0::3], np.hypot(r_step[1::3], r_step[2::3])
    check(abs(normal.sum() - 2.0 * 9.81 / 60) <= 1e-9, f"the normal impulses sum to m g h: {normal.sum()}")
    check(np.allclose(tangent, 0.5 * normal, atol=1e-9), f"each corner slides on the cone: {tangent} vs {normal}")
    replay = json.loads(run("solve", os.path.join(dump, "step-00001.hdf5"), "--json", expect=0).stdout)
    check(replay["status"] == "solved" and local_error(problem, np.array(replay["r"])) <= 1e-8, "the 3D replay solves")

print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
