#pragma once
// What the viewer pages share (not installed): their data writer (numbers, strings and arrays
// written as JSON that is safe inside a <script> element), the page's skeleton (head, style,
// controls, the energy canvas, the script's common declarations, the address's seek and the
// set-up of the controls), the energy plot and the playback. Used by viewer.cpp (2D) and
// viewer3d.cpp (3D); each keeps only its own scene, style rules and controls.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace perp::viewer_page {

/// `digits` significant digits; −0 as 0. A NaN or ∞ is not JSON: written as null.
inline void number(std::string& out, double value, int digits = 6) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  if (value == 0) value = 0;
  char buffer[32];
  const std::to_chars_result written =
      std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, digits);
  out.append(buffer, written.ptr);
}

/// A JSON string that is also safe inside <script>: '<' is written as \u003c, so no "</script>"
/// can end the element early.
inline void string(std::string& out, const std::string& text) {
  out += '"';
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '<' || u < 0x20) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", u);
      out += buffer;
    } else {
      out += c;
    }
  }
  out += '"';
}

/// [item(0),item(1),…,item(n − 1)]; `item(i)` appends the i-th element to `out`.
template <typename F>
void array(std::string& out, std::size_t n, F&& item) {
  out += '[';
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    item(i);
  }
  out += ']';
}

/// The opening of both pages' DATA: {"title":…,"timestep":…,"duration":…
inline void data_start(std::string& data, const std::string& title, double timestep, double duration) {
  data += "{\"title\":";
  string(data, title);
  data += ",\"timestep\":";
  number(data, timestep);
  data += ",\"duration\":";
  number(data, duration);
}

/// ,"ground":H with the ground's height H, or ,"ground":null for a scene without ground.
template <class Ground>
void ground(std::string& data, const std::optional<Ground>& ground) {
  data += ",\"ground\":";
  if (ground) {
    number(data, ground->height);
  } else {
    data += "null";
  }
}

/// `drawEnergy()`: kinetic, potential and total energy against time on the canvas `energy`
/// (context `ectx`), with a cursor at the frame shown. It reads the page's `DATA.t`,
/// `DATA.kinetic`, `DATA.potential`, `frames`, `current` and `COLORS`.
constexpr const char* kEnergyPlot = R"PAGE(function drawEnergy() {
  const w = energy.width, h = energy.height, left = 70, right = w - 150, top = 10, bottom = h - 28;
  ectx.fillStyle = "#ffffff"; ectx.fillRect(0, 0, w, h);
  const series = [["kinetic", DATA.kinetic, COLORS[0]], ["potential", DATA.potential, COLORS[1]],
                  ["total", DATA.kinetic.map((k, i) => k + DATA.potential[i]), COLORS[3]]];
  let lo = Infinity, hi = -Infinity;
  for (const s of series) for (const v of s[1]) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!(hi > lo)) { lo -= 1; hi += 1; }
  const t0 = DATA.t[0], t1 = Math.max(DATA.t[frames - 1], t0 + 1e-12);
  const px = (t) => left + (t - t0) / (t1 - t0) * (right - left);
  const py = (v) => bottom - (v - lo) / (hi - lo) * (bottom - top);
  ectx.strokeStyle = "#000"; ectx.lineWidth = 1; ectx.strokeRect(left + 0.5, top + 0.5, right - left, bottom - top);
  ectx.fillStyle = "#000"; ectx.font = "11px sans-serif";
  ectx.fillText(hi.toPrecision(4), 4, top + 10); ectx.fillText(lo.toPrecision(4), 4, bottom);
  ectx.fillText("energy (J)", 4, (top + bottom) / 2);
  ectx.fillText("0", left - 3, bottom + 14); ectx.fillText(t1.toPrecision(4) + " s", right - 30, bottom + 14);
  ectx.fillText("t (s)", (left + right) / 2, bottom + 24);
  series.forEach(([name, values, color], k) => {
    ectx.strokeStyle = color; ectx.lineWidth = 1.5; ectx.beginPath();
    values.forEach((v, i) => { if (i === 0) ectx.moveTo(px(DATA.t[i]), py(v)); else ectx.lineTo(px(DATA.t[i]), py(v)); });
    ectx.stroke();
    ectx.fillStyle = color; ectx.fillRect(right + 12, top + 8 + 18 * k, 16, 3);
    ectx.fillStyle = "#000"; ectx.fillText(name, right + 34, top + 13 + 18 * k);
  });
  const x = Math.round(px(DATA.t[current])) + 0.5;
  ectx.strokeStyle = "#000"; ectx.setLineDash([4, 3]); ectx.beginPath(); ectx.moveTo(x, top); ectx.lineTo(x, bottom); ectx.stroke();
  ectx.setLineDash([]);
}

)PAGE";

/// The frames' ",step", ",t", ",kinetic" and ",potential" arrays, as both pages' DATA holds them
/// (`frames[i]` with members step, t, kinetic, potential).
template <class Frames>
void frame_series(std::string& data, const Frames& frames) {
  data += ",\"step\":";
  array(data, frames.size(), [&](std::size_t i) { data += std::to_string(frames[i].step); });
  data += ",\"t\":";
  array(data, frames.size(), [&](std::size_t i) { number(data, frames[i].t); });
  data += ",\"kinetic\":";
  array(data, frames.size(), [&](std::size_t i) { number(data, frames[i].kinetic); });
  data += ",\"potential\":";
  array(data, frames.size(), [&](std::size_t i) { number(data, frames[i].potential); });
}

/// The pages' playback: show(index) (the frame, its redraw by the page's drawFrame, the energy
/// plot's cursor, the counter, writeState), frameAt(t), the timer's tick and setPlaying. It reads
/// the page's DATA, frames, current, playing, clock, lastWall, slider, counter, speedSelect and
/// playButton.
constexpr const char* kPlayback = R"PAGE(
function show(index) {
  current = Math.max(0, Math.min(frames - 1, index));
  if (Number(slider.value) !== current) slider.value = String(current);
  drawFrame();
  drawEnergy();
  counter.textContent = "frame " + (current + 1) + " / " + frames + "  step " + DATA.step[current] + " / " + DATA.steps +
                        "  t = " + DATA.t[current].toFixed(4) + " s";
  writeState();
}

function frameAt(t) {
  // The frame nearest time t.
  let best = 0;
  for (let i = 1; i < frames; ++i) if (Math.abs(DATA.t[i] - t) < Math.abs(DATA.t[best] - t)) best = i;
  return best;
}

// Timers, not requestAnimationFrame: a headless browser (the test) runs timers on its virtual
// clock, and 60 redraws a second of one frame each cost little.
function tick() {
  if (!playing) return;
  const wall = performance.now();
  if (lastWall !== null) clock += (wall - lastWall) / 1000 * Number(speedSelect.value);
  lastWall = wall;
  let i = current;
  while (i + 1 < frames && DATA.t[i + 1] <= clock) ++i;
  if (i !== current) show(i);
  if (current === frames - 1) { setPlaying(false); return; }
  setTimeout(tick, 1000 / 60);
}

function setPlaying(on) {
  playing = on;
  playButton.textContent = on ? "pause" : "play";
  if (on) {
    if (current === frames - 1) show(0);
    clock = DATA.t[current];
    lastWall = null;
    setTimeout(tick, 0);
  }
  writeState();
}

)PAGE";

/// The page from <!DOCTYPE> to the end of the controls: `title`, the shared style and then `style`
/// (the page's own rules), the title, info and note lines, and the controls: play, the time
/// slider, the speed, the contacts box labelled `contacts_label`, then `controls` (the page's own)
/// and the frame counter. The page's canvas for its scene follows, then `kBodyEnd`.
inline std::string page_head(const char* title, const char* style, const char* contacts_label, const char* controls) {
  std::string out = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>)PAGE";
  out += title;
  out += R"PAGE(</title>
<style>
body { font: 14px/1.4 "DejaVu Sans", Arial, sans-serif; margin: 12px; color: #222; }
h1 { font-size: 18px; margin: 0 0 4px 0; }
#info, #note { margin: 2px 0; color: #444; }
#note { color: #8a4b00; }
#controls { margin: 6px 0; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
#slider { width: 420px; }
canvas { border: 1px solid #bbb; display: block; margin-top: 4px; }
#counter { font-family: "DejaVu Sans Mono", monospace; }
#state { display: none; }
)PAGE";
  out += style;
  out += R"PAGE(</style>
</head>
<body>
<h1 id="title"></h1>
<div id="info"></div>
<div id="note"></div>
<div id="controls">
  <button id="play" type="button">play</button>
  <input id="slider" type="range" min="0" max="0" value="0" step="1" aria-label="time">
  <label>speed <select id="speed">
    <option value="0.1">0.1x</option><option value="0.25">0.25x</option><option value="0.5">0.5x</option>
    <option value="1" selected>1x</option><option value="2">2x</option><option value="4">4x</option>
  </select></label>
  <label><input id="contacts" type="checkbox" checked> )PAGE";
  out += contacts_label;
  out += "</label>\n";
  out += controls;
  out += R"PAGE(  <span id="counter"></span>
</div>
)PAGE";
  return out;
}

/// After the page's scene canvas: the energy canvas, the legend, the state element (the tests
/// read it) and the first script, which collects the page's errors into `errors`.
constexpr const char* kBodyEnd = R"PAGE(<canvas id="energy" width="960" height="170"></canvas>
<div id="legend"></div>
<pre id="state"></pre>
<script>
"use strict";
const errors = [];
window.addEventListener("error", (e) => { errors.push(String(e.message)); try { writeState(); } catch (_) { /* before the page is set up */ } });
)PAGE";

/// Right after `const DATA = {…}`: the body colours, the controls and the energy canvas by name,
/// and the playback's state (`frames`, `current`, `playing`, `clock`, `lastWall`).
constexpr const char* kScriptStart = R"PAGE(;
const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                "#bcbd22", "#17becf", "#11426e", "#b05200", "#165e16", "#851314", "#563775", "#543028",
                "#a63c82", "#3c3c3c", "#70710a", "#0a6e7a"];
const slider = document.getElementById("slider");
const playButton = document.getElementById("play");
const speedSelect = document.getElementById("speed");
const contactsBox = document.getElementById("contacts");
const counter = document.getElementById("counter");
const energy = document.getElementById("energy");
const ectx = energy.getContext("2d");
const frames = DATA.t.length;
let current = 0;
let playing = false;
let clock = 0;
let lastWall = null;
)PAGE";

/// `seekFromAddress()`: the page's address (view.html#t=T&contacts=0&play=1) read into the
/// controls; the page's own keys are read by its `readAddress(params)`, before the seek.
constexpr const char* kSeek = R"PAGE(function seekFromAddress() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (params.has("contacts")) contactsBox.checked = params.get("contacts") !== "0";
  readAddress(params);
  if (params.has("t")) {
    slider.value = String(frameAt(Number(params.get("t"))));
    slider.dispatchEvent(new Event("input"));
  } else {
    show(current);
  }
  if (params.get("play") === "1") setPlaying(true);
}

)PAGE";

/// The page's set-up: the title, the info line (bodies, steps, timestep and duration, then the
/// JavaScript string expression `info_more`), the decimation note, the shared controls' listeners
/// and the address's. The page then adds its own listeners, `window.perpViewer`, and `kPageEnd`.
inline std::string set_up(const char* info_more) {
  std::string out = R"PAGE(document.getElementById("title").textContent = DATA.title;
document.getElementById("info").textContent = DATA.bodies.length + " bodies, " + DATA.steps + " steps of " +
    DATA.timestep + " s (" + DATA.duration + " s)")PAGE";
  out += info_more;
  out += R"PAGE(;
if (DATA.decimated) {
  document.getElementById("note").textContent = "Decimated: " + frames + " of the " + (DATA.steps + 1) +
      " states are shown (one every " + DATA.stride + " steps, and the last); trajectory.csv holds " +
      (DATA.every > 1 ? "one every " + DATA.every + " steps (--every)." : "them all.");
}
slider.max = String(frames - 1);
slider.addEventListener("input", () => { setPlaying(false); show(Number(slider.value)); });
playButton.addEventListener("click", () => setPlaying(!playing));
contactsBox.addEventListener("change", () => show(current));
window.addEventListener("hashchange", seekFromAddress);
)PAGE";
  return out;
}

/// The page's end: the first seek, and the closing tags.
constexpr const char* kPageEnd = R"PAGE(seekFromAddress();
</script>
</body>
</html>
)PAGE";

}  // namespace perp::viewer_page
