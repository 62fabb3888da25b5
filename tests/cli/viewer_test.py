#!/usr/bin/env python3
"""The scene viewer (DIR/view.html of `perp simulate`) in a real browser: Debian's chromium, headless.

For each scene: the page is self-contained (no network address, no external script); loaded at a
given time (view.html#t=T&contacts=0) it reports the frame it shows and its projection; a
screenshot has each body's colour at the pixel where trajectory.csv (read here) puts the body's
centre; at a later time the bodies have moved (the old centre no longer has the colour, the new
one has); the page met no error (its own error list, and no message at all in chromium's console log).

Usage: viewer_test.py PERP_BINARY SCENES_DIR [--save-screenshots DIR]
Exit 0: passed; 1: failed; 77: skipped (no chromium).
"""
import csv
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 1000, 900


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def decode_png(data):
    """8-bit RGB or RGBA, non-interlaced PNG -> (width, height, rows of (r, g, b))."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = previous[x]
            c = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        previous = line
    return width, height, rows


class Browser:
    def __init__(self, chromium, work):
        self.chromium = chromium
        self.work = work
        self.console = []

    def _run(self, extra, url):
        profile = tempfile.mkdtemp(dir=self.work)
        args = [self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--force-device-scale-factor=1", f"--window-size={WIDTH},{HEIGHT}", f"--user-data-dir={profile}",
                "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000"] + extra + [url]
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
        # Console messages of the page, as chromium logs them ("CONSOLE(line)" / ":CONSOLE").
        self.console += [line for line in done.stderr.splitlines() if "CONSOLE" in line]
        return done

    def state(self, url):
        done = self._run(["--dump-dom"], url)
        match = re.search(r'<pre id="state">(.*?)</pre>', done.stdout, re.S)
        assert match, "no state element in the page: " + done.stdout[:300] + done.stderr[-500:]
        return json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))

    def screenshot(self, url, path):
        self._run([f"--screenshot={path}"], url)
        with open(path, "rb") as f:
            return decode_png(f.read())


def hex_color(text):
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


def near(a, b, tolerance=40):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def trajectory_row(path, t):
    """The row of trajectory.csv nearest time t: {column: value}."""
    with open(path) as f:
        rows = list(csv.reader(f))
    header, best = rows[0], None
    for row in rows[1:]:
        if best is None or abs(float(row[0]) - t) < abs(float(best[0]) - t):
            best = row
    return dict(zip(header, (float(v) for v in best)))


def main():
    perp, scenes = sys.argv[1], sys.argv[2]
    save = sys.argv[sys.argv.index("--save-screenshots") + 1] if "--save-screenshots" in sys.argv else None
    chromium = find_chromium()
    if chromium is None:
        print("SKIPPED: no chromium on PATH (Debian: apt-get install chromium); the viewer is not tested")
        return 77
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)
            print("FAIL:", what)

    work = tempfile.mkdtemp(prefix="perp_viewer_")
    try:
        browser = Browser(chromium, work)
        # (scene, early time, late time, bodies expected to move between them)
        cases = [("bouncing_ball", 0.0, 0.3, ["ball"]),
                 ("walls_and_rod", 0.0, 1.0, None),
                 ("box_stack", 0.0, 0.5, None)]
        for scene, t0, t1, movers in cases:
            out = os.path.join(work, scene)
            done = subprocess.run([perp, "simulate", os.path.join(scenes, scene + ".json"), "--out", out,
                                   "--plot", "none"], capture_output=True, text=True, timeout=300)
            check(done.returncode == 0, f"{scene}: perp simulate exit {done.returncode}: {done.stderr}")
            page = os.path.join(out, "view.html")
            html = open(page, encoding="utf-8").read()
            check(not re.search(r"https?://|<script[^>]*\bsrc=|<link\b|@import|url\(", html),
                  f"{scene}: view.html refers to something outside itself")
            names = next(csv.reader(open(os.path.join(out, "trajectory.csv"))))
            bodies = [c[:-2] for c in names if c.endswith(".x")]
            centres = {}
            for t in (t0, t1):
                url = "file://" + page + f"#t={t}&contacts=0"
                state = browser.state(url)
                check(state["errors"] == [], f"{scene} t={t}: page errors {state['errors']}")
                check(abs(state["t"] - t) < 0.02, f"{scene}: asked t = {t}, shown t = {state['t']}")
                check(state["slider"] == state["frame"], f"{scene}: slider {state['slider']} != frame {state['frame']}")
                shot = os.path.join(work, f"{scene}_{t}.png")
                width, height, pixels = browser.screenshot(url, shot)
                check((width, height) == (WIDTH, HEIGHT), f"{scene}: screenshot {width}x{height}")
                if save and t == t1:
                    os.makedirs(save, exist_ok=True)
                    shutil.copy(shot, os.path.join(save, f"viewer_{scene}.png"))
                row = trajectory_row(os.path.join(out, "trajectory.csv"), state["t"])
                cx0, cy0 = state["canvas_origin"]
                centres[t] = {}
                for b, name in enumerate(bodies):
                    px = cx0 + state["origin"][0] + state["scale"] * row[name + ".x"]
                    py = cy0 + state["origin"][1] - state["scale"] * row[name + ".y"]
                    centres[t][name] = (px, py)
                    color = hex_color(state["colors"][b])
                    ix, iy = int(round(px)), int(round(py))
                    found = any(near(pixels[y][x], color)
                                for y in range(iy - 1, iy + 2) for x in range(ix - 1, ix + 2)
                                if 0 <= x < width and 0 <= y < height)
                    check(found, f"{scene} t={state['t']}: body {name} not drawn at its trajectory.csv centre "
                                 f"({px:.1f}, {py:.1f}) px: colour there {pixels[iy][ix] if 0 <= iy < height and 0 <= ix < width else None}, "
                                 f"expected {color}")
            for name in movers or []:
                (ax, ay), (bx, by) = centres[t0][name], centres[t1][name]
                check(abs(ax - bx) + abs(ay - by) > 10, f"{scene}: {name} moved only ({ax:.0f},{ay:.0f}) -> ({bx:.0f},{by:.0f})")
                # At t1 the old centre shows no longer the body.
                _, _, later = decode_png(open(os.path.join(work, f"{scene}_{t1}.png"), "rb").read())
                color = hex_color(state["colors"][bodies.index(name)])
                check(not near(later[int(round(ay))][int(round(ax))], color),
                      f"{scene}: {name} still drawn at its t = {t0} place after seeking to t = {t1}")
        # Playing at 1x from t = 0: three seconds of the browser's virtual time later the page shows
        # t >= 1 s (the ball's run lasts 3 s), the slider with it, and met no error on the way.
        page = os.path.join(work, "bouncing_ball", "view.html")
        played = browser.state("file://" + page + "#t=0&play=1")
        check(played["errors"] == [], f"playing: page errors {played['errors']}")
        check(played["t"] >= 1.0 and played["slider"] == played["frame"],
              f"playing did not advance: frame {played['frame']}, slider {played['slider']}")
        # The page logs nothing: any console message (an error, an uncaught exception) fails.
        check(browser.console == [], f"console messages: {browser.console}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"viewer: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
