#include "perp/io/viewer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <variant>

#include "perp/core/error.hpp"
#include "viewer_page.hpp"

namespace perp {
namespace {

/// The page: the shared skeleton (viewer_page.hpp) around a canvas for the scene and the script
/// that draws it from `DATA`. No external resource of any kind.
constexpr const char* kTitle = "perp viewer";
constexpr const char* kContactsLabel = "contacts and impulses";
constexpr const char* kCanvas = R"PAGE(<canvas id="scene" width="960" height="540"></canvas>
)PAGE";

/// After viewer_page::kScriptStart: the projection and the drawing of the scene.
constexpr const char* kPageScript = R"PAGE(const scene = document.getElementById("scene");
const sctx = scene.getContext("2d");

// Projection: the bounds to scale, centred, with a margin.
const margin = 20;
const [bx0, bx1, by0, by1] = DATA.bounds;
const scale = Math.min((scene.width - 2 * margin) / (bx1 - bx0), (scene.height - 2 * margin) / (by1 - by0));
const ox = scene.width / 2 - scale * (bx0 + bx1) / 2;
const oy = scene.height / 2 + scale * (by0 + by1) / 2;
const X = (x) => ox + scale * x;
const Y = (y) => oy - scale * y;
const worldX = (px) => (px - ox) / scale;
const worldY = (py) => (oy - py) / scale;
// Arrow scale: the 95th percentile of the run's non-zero impulses (an impact's impulse is
// hundreds of times a resting contact's; longer arrows are cut at 3 times the scale).
const magnitudes = [];
for (const c of DATA.contacts) for (let k = 0; k + 3 < c.length; k += 4) {
  const m = Math.hypot(c[k + 2], c[k + 3]);
  if (m > 0) magnitudes.push(m);
}
magnitudes.sort((a, b) => a - b);
const impulseMax = magnitudes.length > 0 ? magnitudes[Math.floor(0.95 * (magnitudes.length - 1))] : 0;
// The largest impulse is drawn as long as 0.8 of the smallest body (12 to 60 pixels), so that
// arrows in a pile stay within their bodies' neighbourhood.
const smallest = Math.min(...DATA.bodies.map((b) => b.shape === "disk" ? 2 * b.radius
    : b.shape === "box" ? Math.min(b.width, b.height) : b.length));
const arrowPixels = Math.round(Math.max(12, Math.min(60, 0.8 * smallest * scale)));

function halfPlanePolygon(point, normal) {
  // The view rectangle clipped to {x : n·(x − p) <= 0} (Sutherland–Hodgman, one edge).
  const corners = [[worldX(0), worldY(0)], [worldX(scene.width), worldY(0)],
                   [worldX(scene.width), worldY(scene.height)], [worldX(0), worldY(scene.height)]];
  const side = (q) => normal[0] * (q[0] - point[0]) + normal[1] * (q[1] - point[1]);
  const out = [];
  for (let i = 0; i < 4; ++i) {
    const a = corners[i], b = corners[(i + 1) % 4];
    const sa = side(a), sb = side(b);
    if (sa <= 0) out.push(a);
    if ((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) {
      const s = sa / (sa - sb);
      out.push([a[0] + s * (b[0] - a[0]), a[1] + s * (b[1] - a[1])]);
    }
  }
  return out;
}

function drawStatic() {
  sctx.fillStyle = "#ffffff";
  sctx.fillRect(0, 0, scene.width, scene.height);
  sctx.strokeStyle = "#eeeeee";
  sctx.lineWidth = 1;
  // A 1-2-5 grid in metres.
  const raw = 80 / scale;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  for (let x = Math.ceil(worldX(0) / step) * step; x <= worldX(scene.width); x += step) {
    sctx.beginPath(); sctx.moveTo(Math.round(X(x)) + 0.5, 0); sctx.lineTo(Math.round(X(x)) + 0.5, scene.height); sctx.stroke();
  }
  for (let y = Math.ceil(worldY(scene.height) / step) * step; y <= worldY(0); y += step) {
    sctx.beginPath(); sctx.moveTo(0, Math.round(Y(y)) + 0.5); sctx.lineTo(scene.width, Math.round(Y(y)) + 0.5); sctx.stroke();
  }
  sctx.fillStyle = "#666";
  sctx.font = "11px sans-serif";
  sctx.fillText("grid " + step + " m", 6, scene.height - 6);
  const solids = [];
  if (DATA.ground !== null) solids.push({point: [0, DATA.ground], normal: [0, 1], name: "ground"});
  for (const p of DATA.planes) solids.push(p);
  for (const s of solids) {
    const poly = halfPlanePolygon(s.point, s.normal);
    if (poly.length < 3) continue;
    sctx.beginPath();
    sctx.moveTo(X(poly[0][0]), Y(poly[0][1]));
    for (const q of poly.slice(1)) sctx.lineTo(X(q[0]), Y(q[1]));
    sctx.closePath();
    sctx.fillStyle = "rgba(120, 110, 100, 0.35)";
    sctx.fill();
    sctx.strokeStyle = "#5a5046";
    sctx.lineWidth = 2;
    sctx.stroke();
  }
}

function drawBody(b, i, x, y, a) {
  const color = COLORS[i % COLORS.length];
  sctx.save();
  sctx.translate(X(x), Y(y));
  sctx.rotate(-a);
  sctx.fillStyle = color;
  sctx.strokeStyle = b.fixed ? "#000000" : "#202020";
  sctx.lineWidth = b.fixed ? 2 : 1;
  if (b.shape === "disk") {
    const r = b.radius * scale;
    sctx.beginPath(); sctx.arc(0, 0, r, 0, 2 * Math.PI); sctx.fill(); sctx.stroke();
    // The orientation: a spoke from 0.45 r to r (the centre keeps the body's colour).
    sctx.beginPath(); sctx.moveTo(0.45 * r, 0); sctx.lineTo(r, 0); sctx.strokeStyle = "#ffffff"; sctx.lineWidth = 2; sctx.stroke();
  } else if (b.shape === "box") {
    const w = b.width * scale, h = b.height * scale;
    sctx.fillRect(-w / 2, -h / 2, w, h); sctx.strokeRect(-w / 2, -h / 2, w, h);
  } else {
    const l = b.length * scale;
    sctx.lineCap = "round";
    sctx.strokeStyle = color;
    sctx.lineWidth = Math.max(5, 0.02 * scale);
    sctx.beginPath(); sctx.moveTo(-l / 2, 0); sctx.lineTo(l / 2, 0); sctx.stroke();
  }
  sctx.restore();
}

function drawArrow(x, y, px, py) {
  const n = Math.hypot(px, py);
  if (!(impulseMax > 0) || n === 0) return;
  const len = Math.min(3, n / impulseMax) * arrowPixels;
  const dx = px / n, dy = -py / n;
  const x0 = X(x), y0 = Y(y), x1 = x0 + len * dx, y1 = y0 + len * dy;
  sctx.strokeStyle = "#c00000"; sctx.fillStyle = "#c00000"; sctx.lineWidth = 2;
  sctx.beginPath(); sctx.moveTo(x0, y0); sctx.lineTo(x1, y1); sctx.stroke();
  const h = Math.min(8, 0.4 * len + 3);
  sctx.beginPath();
  sctx.moveTo(x1, y1);
  sctx.lineTo(x1 - h * dx + 0.5 * h * dy, y1 - h * dy - 0.5 * h * dx);
  sctx.lineTo(x1 - h * dx - 0.5 * h * dy, y1 - h * dy + 0.5 * h * dx);
  sctx.closePath(); sctx.fill();
}

function drawScene() {
  drawStatic();
  const pose = DATA.pose[current];
  DATA.bodies.forEach((b, i) => drawBody(b, i, pose[3 * i], pose[3 * i + 1], pose[3 * i + 2]));
  if (contactsBox.checked) {
    const c = DATA.contacts[current];
    for (let k = 0; k + 3 < c.length; k += 4) {
      sctx.fillStyle = "#c00000";
      sctx.beginPath(); sctx.arc(X(c[k]), Y(c[k + 1]), 2.5, 0, 2 * Math.PI); sctx.fill();
      drawArrow(c[k], c[k + 1], c[k + 2], c[k + 3]);
    }
    if (impulseMax > 0) {
      sctx.fillStyle = "#c00000"; sctx.font = "11px sans-serif";
      sctx.fillText("arrows: contact impulse, " + arrowPixels + " px = " + impulseMax.toPrecision(3) + " N s", 6, 14);
    }
  }
}

)PAGE";

constexpr const char* kPageScriptEnd = R"PAGE(function writeState() {
  const rect = scene.getBoundingClientRect();
  const state = {canvas_origin: [rect.left + scene.clientLeft + window.scrollX, rect.top + scene.clientTop + window.scrollY],
                 frame: current, step: DATA.step[current], t: DATA.t[current], slider: Number(slider.value),
                 playing: playing, contacts: contactsBox.checked, scale: scale, origin: [ox, oy],
                 colors: DATA.bodies.map((b, i) => COLORS[i % COLORS.length]), errors: errors};
  document.getElementById("state").textContent = JSON.stringify(state);
}

const drawFrame = drawScene;  // the playback's redraw (viewer_page.hpp)
)PAGE";

/// Before viewer_page::set_up: the 2D page has no address keys of its own.
constexpr const char* kReadAddress = R"PAGE(function readAddress(params) {}

)PAGE";

/// After viewer_page::set_up.
constexpr const char* kPageTail = R"PAGE(window.perpViewer = {seek: (t) => show(frameAt(t)), frame: () => current, project: (x, y) => [X(x), Y(y)]};
)PAGE";

using viewer_page::array;
using viewer_page::number;
using viewer_page::string;

}  // namespace

void write_viewer_html(const std::filesystem::path& path, const contact::Scene& scene, const SimulationRecord& record,
                       const std::string& title) {
  const std::vector<contact::Body>& bodies = scene.world.bodies;
  const std::vector<SimulationFrame>& frames = record.frames;
  // Bounds: every body at every kept frame, with its bounding radius; the ground's surface and
  // the planes' points, so that the static geometry shows.
  double x0 = std::numeric_limits<double>::infinity();
  double x1 = -x0;
  double y0 = x0;
  double y1 = -x0;
  const auto add = [&](double x, double y, double r) {
    x0 = std::min(x0, x - r);
    x1 = std::max(x1, x + r);
    y0 = std::min(y0, y - r);
    y1 = std::max(y1, y + r);
  };
  for (const SimulationFrame& f : frames) {
    for (std::size_t b = 0; b < bodies.size(); ++b) add(f.state[3 * b], f.state[3 * b + 1], bodies[b].bounding_radius());
  }
  if (frames.empty()) add(0, 0, 1);
  const double span = std::max({x1 - x0, y1 - y0, 1e-6});
  if (scene.world.ground) add(0.5 * (x0 + x1), scene.world.ground->height - 0.05 * span, 0);
  for (const contact::Plane& p : scene.world.planes) {
    // A plane's point counts when it is near the bodies (a wall beside them, not a far anchor).
    if (std::abs(p.point.x() - 0.5 * (x0 + x1)) < 2 * span && std::abs(p.point.y() - 0.5 * (y0 + y1)) < 2 * span) {
      add(p.point.x(), p.point.y(), 0.02 * span);
    }
  }
  const double pad = 0.05 * std::max({x1 - x0, y1 - y0, 1e-6});

  std::string data;
  viewer_page::data_start(data, title, scene.options.timestep, scene.duration);
  data += ",\"steps\":" + std::to_string(record.steps) + ",\"stride\":" + std::to_string(record.frame_stride) +
          ",\"decimated\":" + (record.decimated() ? "true" : "false") + ",\"every\":" + std::to_string(record.every) +
          ",\"bounds\":[";
  number(data, x0 - pad);
  data += ',';
  number(data, x1 + pad);
  data += ',';
  number(data, y0 - pad);
  data += ',';
  number(data, y1 + pad);
  data += "]";
  viewer_page::ground(data, scene.world.ground);
  data += ",\"planes\":";
  array(data, scene.world.planes.size(), [&](std::size_t p) {
    const contact::Plane& plane = scene.world.planes[p];
    const Eigen::Vector2d n = plane.unit_normal();
    data += "{\"name\":";
    string(data, plane.name);
    data += ",\"point\":[";
    number(data, plane.point.x());
    data += ',';
    number(data, plane.point.y());
    data += "],\"normal\":[";
    number(data, n.x());
    data += ',';
    number(data, n.y());
    data += "]}";
  });
  data += ",\"bodies\":";
  array(data, bodies.size(), [&](std::size_t b) {
    const contact::Body& body = bodies[b];
    data += "{\"name\":";
    string(data, body.name);
    data += ",\"shape\":\"" + std::string(contact::shape_name(body.shape)) + "\"";
    if (const auto* disk = std::get_if<contact::Disk>(&body.shape)) {
      data += ",\"radius\":";
      number(data, disk->radius);
    } else if (const auto* box = std::get_if<contact::Box>(&body.shape)) {
      data += ",\"width\":";
      number(data, box->width);
      data += ",\"height\":";
      number(data, box->height);
    } else if (const auto* rod = std::get_if<contact::Rod>(&body.shape)) {
      data += ",\"length\":";
      number(data, rod->length);
    }
    data += std::string(",\"fixed\":") + (body.fixed ? "true" : "false") + "}";
  });
  viewer_page::frame_series(data, frames);
  data += ",\"pose\":";
  array(data, frames.size(), [&](std::size_t i) {
    array(data, frames[i].state.size(), [&](std::size_t k) { number(data, frames[i].state[k]); });
  });
  data += ",\"contacts\":";
  array(data, frames.size(), [&](std::size_t i) {
    const std::vector<FrameContact>& contacts = frames[i].contacts;
    array(data, 4 * contacts.size(), [&](std::size_t k) {
      const FrameContact& c = contacts[k / 4];
      // Contact points to 5 digits, impulses to 3: an arrow's length and direction to 0.1 %.
      if (k % 4 < 2) {
        number(data, k % 4 == 0 ? c.x : c.y, 5);
      } else {
        number(data, k % 4 == 2 ? c.impulse_x : c.impulse_y, 3);
      }
    });
  });
  data += "}";

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InvalidProblem("cannot write '" + path.string() + "'");
  out << viewer_page::page_head(kTitle, "", kContactsLabel, "") << kCanvas << viewer_page::kBodyEnd << "const DATA = "
      << data << viewer_page::kScriptStart << kPageScript << viewer_page::kEnergyPlot << kPageScriptEnd
      << viewer_page::kPlayback << kReadAddress << viewer_page::kSeek << viewer_page::set_up("") << kPageTail
      << viewer_page::kPageEnd;
  out.close();
  if (!out) throw InvalidProblem("error while writing '" + path.string() + "'");
}

}  // namespace perp
