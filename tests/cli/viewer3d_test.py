#!/usr/bin/env python3
"""The 3D viewer (DIR/view.html of `perp simulate` on a "dimension": 3 scene) in headless chromium.

WebGL runs on chromium's software rasterizer (SwiftShader, `--enable-unsafe-swiftshader`): no GPU
is needed. For tower3d.json and shapes3d.json:
- the page is one file: three.js is written inline, verbatim from the file perp read, and nothing
  else in the page refers outside it;
- loaded at a time (view.html#t=T&contacts=0) it reports the frame it shows, a WebGL context and
  its camera (projection x view);
- a screenshot is not blank, and each body's colour (up to the shading's brightness) appears where
  this test projects a point of the body's visible surface, computed from trajectory.csv (the centre
  of the box face turned most to the camera; the point of a sphere nearest the camera; the side
  point of a capsule or cylinder at mid-length turned to the camera) with the page's camera matrix;
- coloured by contact state, the bodies the page calls touching are those of contacts.csv's rows of
  the step that led to the frame, and they are drawn in the touching colour;
- with the contacts shown, the contact colour appears; playing advances the time;
- a copy of the tower with "sleeping": true, at its last frame: every box is called asleep and drawn
  in the asleep colour where trajectory.csv puts it;
- no error: the page's own list, and no console message but chromium's notes on its software GL.
Then two ways to have no 3D view: WebGL switched off (the page says so in its errors and on the
page), and three.js absent when perp writes the page (perp writes the CSVs, no view.html, and a note
naming libjs-three).

Usage: viewer3d_test.py PERP_BINARY SCENES_DIR [--save-screenshots DIR]
Exit 0: passed; 1: failed; 77: skipped (no chromium, or no three.js where perp reads it).
"""
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewer_test import Browser, decode_png, find_chromium, hex_color  # noqa: E402

WIDTH, HEIGHT = 1000, 900
SOFTWARE_GL = ["--enable-unsafe-swiftshader"]
TOUCHING = "#d62728"
ASLEEP = "#9467bd"
# chromium's notes on its software GL ("GPU stall due to ReadPixels", the screenshot's read-back):
# not messages of the page.
GL_NOTE = re.compile(r"GL Driver Message|Automatic fallback to software WebGL")


class Browser3d(Browser):
    """viewer_test's browser, with chromium flags per call (the software GL, or WebGL off)."""

    def state(self, url, flags):
        self.flags = flags
        return super().state(url)

    def screenshot(self, url, path, flags):
        self.flags = flags
        return super().screenshot(url, path)

    def _run(self, extra, url):
        return super()._run(list(self.flags) + extra, url)


def rows_of(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def trajectory_at(path, t):
    header, rows = rows_of(path)
    best = min(rows, key=lambda r: abs(float(r[0]) - t))
    return dict(zip(header, (float(v) for v in best)))


def rotate(q, v):
    """v rotated by the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    # R(q) v = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
    u = (x, y, z)
    c1 = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    c2 = (u[1] * c1[2] - u[2] * c1[1], u[2] * c1[0] - u[0] * c1[2], u[0] * c1[1] - u[1] * c1[0])
    return tuple(v[i] + 2 * w * c1[i] + 2 * c2[i] for i in range(3))


def visible_point(shape, row, name, camera):
    """A point of the body's surface that faces the camera, from the trajectory row."""
    c = (row[name + ".x"], row[name + ".y"], row[name + ".z"])
    q = (row[name + ".qw"], row[name + ".qx"], row[name + ".qy"], row[name + ".qz"])
    to_camera = [camera[i] - c[i] for i in range(3)]
    if shape["type"] == "sphere":
        d = math.sqrt(sum(v * v for v in to_camera))
        return tuple(c[i] + shape["radius"] * to_camera[i] / d for i in range(3))
    if shape["type"] in ("capsule", "cylinder"):
        # The side's point at mid-length turned to the camera: c + r u, u the unit part of the
        # direction to the camera across the axis (the body z axis).
        axis = rotate(q, (0.0, 0.0, 1.0))
        along = sum(to_camera[i] * axis[i] for i in range(3))
        across = [to_camera[i] - along * axis[i] for i in range(3)]
        d = math.sqrt(sum(v * v for v in across))
        return tuple(c[i] + shape["radius"] * across[i] / d for i in range(3))
    assert shape["type"] == "box", shape
    best = None
    for axis in range(3):
        for sign in (-1, 1):
            e = [0.0, 0.0, 0.0]
            e[axis] = sign
            n = rotate(q, e)
            face = tuple(c[i] + 0.5 * shape["size"][axis] * n[i] for i in range(3))
            facing = sum(n[i] * (camera[i] - face[i]) for i in range(3)) / math.dist(camera, face)
            if best is None or facing > best[0]:
                best = (facing, face)
    return best[1]


def project(state, point):
    """Page pixel of a world point through the page's projection x view (column-major)."""
    m = state["view_projection"]
    x, y, z = point
    clip = [m[i] * x + m[4 + i] * y + m[8 + i] * z + m[12 + i] for i in range(4)]
    nx, ny = clip[0] / clip[3], clip[1] / clip[3]
    w, h = state["canvas_size"]
    ox, oy = state["canvas_origin"]
    return ox + (nx + 1) / 2 * w, oy + (1 - ny) / 2 * h


def shaded_like(pixel, color):
    """Whether the pixel is the colour under a white light of some brightness (Lambert: k * colour)."""
    cc = sum(c * c for c in color)
    k = sum(p * c for p, c in zip(pixel, color)) / cc
    return 0.35 <= k <= 1.3 and all(abs(p - min(255, k * c)) <= 20 for p, c in zip(pixel, color))


def main():
    perp, scenes = sys.argv[1], sys.argv[2]
    save = sys.argv[sys.argv.index("--save-screenshots") + 1] if "--save-screenshots" in sys.argv else None
    chromium = find_chromium()
    if chromium is None:
        print("SKIPPED: no chromium on PATH (Debian: apt-get install chromium); the 3D viewer is not tested")
        return 77
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)
            print("FAIL:", what)

    work = tempfile.mkdtemp(prefix="perp_viewer3d_")
    try:
        browser = Browser3d(chromium, work)
        # (scene, times, bodies expected to move between the first and the last time)
        # shapes3d at 0.5 s: before the ball reaches the drum (at about 1 s), which would hide the drum's
        # side from the camera.
        cases = [("tower3d", (0.0, 5.0), []), ("shapes3d", (0.0, 0.5), ["ball", "crate"])]
        three = None
        # contacts.csv, read below: asked for where perp simulate has --contacts (not written by default there).
        usage = subprocess.run([perp, "simulate", "--help"], capture_output=True, text=True, timeout=60).stdout
        contacts_flag = ["--contacts"] if "--contacts" in usage else []
        for scene, times, movers in cases:
            out = os.path.join(work, scene)
            source = os.path.join(scenes, scene + ".json")
            done = subprocess.run([perp, "simulate", source, "--out", out] + contacts_flag, capture_output=True, text=True,
                                  timeout=300)
            check(done.returncode == 0, f"{scene}: perp simulate exit {done.returncode}: {done.stderr}")
            page = os.path.join(out, "view.html")
            if not os.path.exists(page):
                print(f"SKIPPED: perp wrote no view.html ({done.stderr.strip()})")
                return 77
            html = open(page, encoding="utf-8").read()
            if three is None:
                match = re.search(r"needs three.js", done.stderr)
                check(match is None, f"{scene}: {done.stderr}")
                path = os.environ.get("PERP_THREE_JS") or "/usr/share/javascript/three/three.min.js"
                three = open(path, encoding="utf-8").read()
            check(three in html, f"{scene}: three.js is not in the page verbatim")
            rest = html.replace(three, "")
            check(not re.search(r"https?://|<script[^>]*\bsrc=|<link\b|@import|url\(", rest),
                  f"{scene}: view.html refers to something outside itself")
            with open(source) as f:
                shapes = {b["name"]: b["shape"] for b in json.load(f)["bodies"]}
            fixed = {b["name"] for b in json.load(open(source))["bodies"] if b.get("fixed")}
            header, contact_rows = rows_of(os.path.join(out, "contacts.csv"))
            seen = {}
            for t in times:
                url = "file://" + page + f"#t={t}&contacts=0"
                state = browser.state(url, SOFTWARE_GL)
                check(state["errors"] == [], f"{scene} t={t}: page errors {state['errors']}")
                check(state["webgl"], f"{scene}: no WebGL context")
                check(abs(state["t"] - t) < 0.02, f"{scene}: asked t = {t}, shown t = {state['t']}")
                check(state["slider"] == state["frame"], f"{scene}: slider {state['slider']} != frame {state['frame']}")
                shot = os.path.join(work, f"{scene}_{t}.png")
                width, height, pixels = browser.screenshot(url, shot, SOFTWARE_GL)
                check((width, height) == (WIDTH, HEIGHT), f"{scene}: screenshot {width}x{height}")
                if save:
                    os.makedirs(save, exist_ok=True)
                    shutil.copy(shot, os.path.join(save, f"viewer3d_{scene}_{t}.png"))
                # Not blank: within the canvas, most pixels are not white and there are many colours.
                (cx, cy), (cw, ch) = state["canvas_origin"], state["canvas_size"]
                canvas = [pixels[y][x] for y in range(int(cy) + 2, int(cy + ch) - 2, 4)
                          for x in range(int(cx) + 2, int(cx + cw) - 2, 4)]
                drawn = sum(1 for p in canvas if p != (255, 255, 255)) / len(canvas)
                check(drawn > 0.3 and len(set(canvas)) > 50,
                      f"{scene} t={t}: canvas nearly blank ({drawn:.0%} drawn, {len(set(canvas))} colours)")
                row = trajectory_at(os.path.join(out, "trajectory.csv"), state["t"])
                seen[t] = {}
                for b, name in enumerate(shapes):
                    px, py = project(state, visible_point(shapes[name], row, name, state["camera"]))
                    seen[t][name] = (px, py)
                    color = hex_color(state["colors"][b])
                    ix, iy = int(round(px)), int(round(py))
                    around = [pixels[y][x] for y in range(iy - 2, iy + 3) for x in range(ix - 2, ix + 3)
                              if 0 <= x < width and 0 <= y < height]
                    check(any(shaded_like(p, color) for p in around),
                          f"{scene} t={state['t']}: body {name} not drawn where trajectory.csv puts it "
                          f"({px:.1f}, {py:.1f}) px: colours there {sorted(set(around))[:4]}, expected {color} shaded")
                # Coloured by contact state: touching = a side of a contact of the step that led to
                # the frame (contacts.csv's rows at that step's start, t - h).
                state_c = browser.state("file://" + page + f"#t={t}&contacts=0&color=contact", SOFTWARE_GL)
                h = json.load(open(source))["timestep"]
                touching = set()
                if state_c["step"] > 0:
                    for r in contact_rows:
                        if abs(float(r[0]) - (state_c["t"] - h)) < 1e-9:
                            touching.update({r[1], r[2]})
                names = list(shapes)
                expected = [name in touching and name not in fixed for name in names]
                check([on and name not in fixed for on, name in zip(state_c["touching"], names)] == expected,
                      f"{scene} t={t}: touching {state_c['touching']}, contacts.csv says {sorted(touching)}")
                for b, name in enumerate(names):
                    if expected[b]:
                        check(state_c["colors"][b] == TOUCHING, f"{scene} t={t}: {name} touches but is drawn {state_c['colors'][b]}")
            for name in movers:
                (ax, ay), (bx, by) = seen[times[0]][name], seen[times[-1]][name]
                check(abs(ax - bx) + abs(ay - by) > 10, f"{scene}: {name} moved only ({ax:.0f},{ay:.0f}) -> ({bx:.0f},{by:.0f})")
            # The contacts shown: their red appears on the screenshot where bodies touch.
            last = times[-1]
            _, _, with_contacts = browser.screenshot("file://" + page + f"#t={last}&contacts=1",
                                                     os.path.join(work, f"{scene}_contacts.png"), SOFTWARE_GL)
            red = sum(1 for r in with_contacts for p in r if p == (192, 0, 0))
            check(red > 20, f"{scene}: contacts shown, but only {red} pixels of their colour")
        # Sleeping (the scene's "sleeping": true): the tower at rest sleeps after its sleep_time; at
        # its last frame, coloured by state, the page calls every box asleep and draws it in the
        # asleep colour where trajectory.csv puts it.
        tower = json.load(open(os.path.join(scenes, "tower3d.json")))
        tower.update(sleeping=True, sleep_time=0.5, duration=2.0)
        source = os.path.join(work, "tower_sleeping.json")
        with open(source, "w") as f:
            json.dump(tower, f)
        out = os.path.join(work, "tower_sleeping")
        done = subprocess.run([perp, "simulate", source, "--out", out], capture_output=True, text=True, timeout=300)
        check(done.returncode == 0, f"sleeping tower: perp simulate exit {done.returncode}: {done.stderr}")
        page = os.path.join(out, "view.html")
        url = "file://" + page + "#t=2&contacts=0&color=contact"
        state = browser.state(url, SOFTWARE_GL)
        names = [b["name"] for b in tower["bodies"]]
        fixed = {b["name"] for b in tower["bodies"] if b.get("fixed")}
        check(state["errors"] == [], f"sleeping tower: page errors {state['errors']}")
        check(state["asleep"] == [name not in fixed for name in names],
              f"sleeping tower: the page calls asleep {state['asleep']} at t = {state['t']}")
        _, _, pixels = browser.screenshot(url, os.path.join(work, "tower_sleeping.png"), SOFTWARE_GL)
        row = trajectory_at(os.path.join(out, "trajectory.csv"), state["t"])
        for b, name in enumerate(names):
            if name in fixed:
                continue
            check(state["colors"][b] == ASLEEP, f"sleeping tower: {name} asleep but drawn {state['colors'][b]}")
            px, py = project(state, visible_point(tower["bodies"][b]["shape"], row, name, state["camera"]))
            ix, iy = int(round(px)), int(round(py))
            around = [pixels[y][x] for y in range(iy - 2, iy + 3) for x in range(ix - 2, ix + 3)
                      if 0 <= x < WIDTH and 0 <= y < HEIGHT]
            check(any(shaded_like(p, hex_color(ASLEEP)) for p in around),
                  f"sleeping tower: {name} not drawn in the asleep colour at ({px:.1f}, {py:.1f}) px: {sorted(set(around))[:4]}")
        # Playing at 1x from t = 0: three seconds of virtual time later the page shows t >= 1 s.
        page = os.path.join(work, "shapes3d", "view.html")
        played = browser.state("file://" + page + "#t=0&play=1", SOFTWARE_GL)
        check(played["errors"] == [], f"playing: page errors {played['errors']}")
        check(played["t"] >= 1.0 and played["slider"] == played["frame"],
              f"playing did not advance: frame {played['frame']}, slider {played['slider']}")
        console = [line for line in browser.console if not GL_NOTE.search(line)]
        check(console == [], f"console messages: {console}")
        # No WebGL: the page says so, in its errors and on the page.
        off = browser.state("file://" + page + "#t=1", ["--disable-webgl"])
        check(not off["webgl"] and any("WebGL is not available" in e for e in off["errors"]),
              f"WebGL off: webgl {off['webgl']}, errors {off['errors']}")
        # three.js absent when perp writes the page: the CSVs, no view.html, a note naming the package.
        out = os.path.join(work, "no_three")
        env = dict(os.environ, PERP_THREE_JS=os.path.join(work, "absent", "three.min.js"))
        done = subprocess.run([perp, "simulate", os.path.join(scenes, "shapes3d.json"), "--out", out],
                              capture_output=True, text=True, timeout=300, env=env)
        check(done.returncode == 0 and os.path.exists(os.path.join(out, "trajectory.csv"))
              and not os.path.exists(os.path.join(out, "view.html")) and "libjs-three" in done.stderr
              and "view.html" not in done.stdout,
              f"no three.js: exit {done.returncode}, files {sorted(os.listdir(out)) if os.path.isdir(out) else None}, "
              f"stderr {done.stderr!r}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"viewer3d: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
