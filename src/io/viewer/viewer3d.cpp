#include "perp/io/viewer3d.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "viewer_page.hpp"

#ifndef PERP_THREE_JS
#define PERP_THREE_JS "/usr/share/javascript/three/three.min.js"
#endif

namespace perp {
namespace {

using viewer_page::array;
using viewer_page::number;
using viewer_page::string;

/// The page's own parts of the skeleton (viewer_page.hpp): its title, style rules, contacts label,
/// the colour control, the canvas with the camera's help line; three.js follows in a script of its own.
constexpr const char* kTitle = "perp viewer (3D)";
constexpr const char* kStyle = R"PAGE(#help { margin: 2px 0; color: #444; font-size: 12px; }
canvas { touch-action: none; }
)PAGE";
constexpr const char* kContactsLabel = "contacts and forces";
constexpr const char* kControls = R"PAGE(  <label>colour <select id="color">
    <option value="body" selected>by body</option><option value="contact">by state: touching, free, asleep, fixed</option>
  </select></label>
)PAGE";
constexpr const char* kCanvas = R"PAGE(<canvas id="view" width="960" height="600"></canvas>
<div id="help">drag: turn the camera about its target; shift-drag or right-drag: move the target; wheel: zoom</div>
)PAGE";
constexpr const char* kThreeStart = R"PAGE(</script>
<script>
)PAGE";

/// Between three.js and the data.
constexpr const char* kPage3dData = R"PAGE(
</script>
<script>
"use strict";
const DATA = )PAGE";

/// After viewer_page::kScriptStart: the three.js scene, the contacts' arrows and the camera.
constexpr const char* kPage3dScript = R"PAGE(// Colour by state: touching a body, the ground or a plane at the frame shown; free; asleep; fixed.
const STATE_COLORS = {touching: "#d62728", free: "#1f77b4", fixed: "#8c8c8c", asleep: "#9467bd"};
const canvas = document.getElementById("view");
const colorSelect = document.getElementById("color");

function fail(message) {
  errors.push(message);
  const note = document.getElementById("note");
  note.textContent = (note.textContent ? note.textContent + " " : "") + message;
}

let renderer = null;
if (typeof THREE === "undefined") {
  fail("three.js is missing from this page: the 3D view cannot be drawn (trajectory.csv holds the run).");
} else {
  try {
    renderer = new THREE.WebGLRenderer({canvas: canvas, antialias: true, preserveDrawingBuffer: true});
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    renderer.setSize(canvas.width, canvas.height);
  } catch (e) {
    renderer = null;
    fail("WebGL is not available in this browser (" + e.message + "): the 3D view cannot be drawn " +
         "(trajectory.csv holds the run).");
  }
}
const width = Number(canvas.style.width.replace("px", "")) || canvas.width;
const height = Number(canvas.style.height.replace("px", "")) || canvas.height;

// The world's extent over the run: the camera's target is its centre, its distance fits it in view.
const [bx0, bx1, by0, by1, bz0, bz1] = DATA.bounds;
const span = Math.max(bx1 - bx0, by1 - by0, bz1 - bz0, 1e-6);
const radius = 0.5 * Math.hypot(bx1 - bx0, by1 - by0, bz1 - bz0);
const FOV = 40;
const orbit = {x: (bx0 + bx1) / 2, y: (by0 + by1) / 2, z: (bz0 + bz1) / 2,
               distance: 1.15 * Math.max(radius, 1e-6) / Math.sin(FOV / 2 * Math.PI / 180),
               azimuth: -60, elevation: 20};
const smallest = Math.min(...DATA.bodies.map((b) => b.shape === "box" ? Math.min(...b.size)
    : b.shape === "sphere" ? 2 * b.radius : Math.min(2 * b.radius, b.length > 0 ? b.length : Infinity)), span);

let world = null, camera = null, sun = null, meshes = [], contactGroup = null;
if (renderer !== null) {
  world = new THREE.Scene();
  world.background = new THREE.Color(0xffffff);
  camera = new THREE.PerspectiveCamera(FOV, width / height, orbit.distance / 1000, orbit.distance * 20);
  camera.up.set(0, 0, 1);
  world.add(new THREE.AmbientLight(0xffffff, 0.5));
  // A head light: the faces turned to the camera are lit, the others keep the ambient half.
  sun = new THREE.DirectionalLight(0xffffff, 0.6);
  world.add(sun);
  world.add(sun.target);
  const extent = 4 * span;
  if (DATA.ground !== null) {
    const ground = new THREE.Mesh(new THREE.PlaneBufferGeometry(extent, extent),
        new THREE.MeshLambertMaterial({color: 0xd9d4cc, side: THREE.DoubleSide, polygonOffset: true,
                                       polygonOffsetFactor: 1, polygonOffsetUnits: 1}));
    ground.position.set(orbit.x, orbit.y, DATA.ground);
    world.add(ground);
    // A grid of 1-2-5 steps in metres, about 20 lines across.
    const raw = extent / 20, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    const lines = Math.max(2, Math.round(extent / step));
    const grid = new THREE.GridHelper(lines * step, lines, 0xa8a29a, 0xbdb8b0);
    grid.rotation.x = Math.PI / 2;
    grid.position.set(Math.round(orbit.x / step) * step, Math.round(orbit.y / step) * step, DATA.ground);
    world.add(grid);
    document.getElementById("legend").textContent = "ground grid: " + step + " m";
  }
  for (const p of DATA.planes) {
    const n = new THREE.Vector3(p.normal[0], p.normal[1], p.normal[2]);
    const point = new THREE.Vector3(p.point[0], p.point[1], p.point[2]);
    const target = new THREE.Vector3(orbit.x, orbit.y, orbit.z);
    const centre = target.clone().sub(n.clone().multiplyScalar(target.clone().sub(point).dot(n)));
    const plane = new THREE.Mesh(new THREE.PlaneBufferGeometry(extent, extent),
        new THREE.MeshLambertMaterial({color: 0x9a8f84, side: THREE.DoubleSide, transparent: true, opacity: 0.45,
                                       depthWrite: false}));
    plane.quaternion.setFromUnitVectors(new THREE.Vector3(0, 0, 1), n);
    plane.position.copy(centre);
    world.add(plane);
  }
  const edgeMaterial = new THREE.LineBasicMaterial({color: 0x222222});
  meshes = DATA.bodies.map((b) => {
    const material = new THREE.MeshLambertMaterial({color: 0x888888});
    const group = new THREE.Group();
    let geometry = null;
    if (b.shape === "sphere") {
      geometry = new THREE.SphereBufferGeometry(b.radius, 32, 16);
      // A great circle in the body's xz plane, so that a rolling ball shows its turn.
      const ring = [];
      for (let k = 0; k <= 48; ++k) {
        const a = 2 * Math.PI * k / 48;
        ring.push(new THREE.Vector3(1.002 * b.radius * Math.cos(a), 0, 1.002 * b.radius * Math.sin(a)));
      }
      group.add(new THREE.Line(new THREE.BufferGeometry().setFromPoints(ring), edgeMaterial));
    } else if (b.shape === "box") {
      geometry = new THREE.BoxBufferGeometry(b.size[0], b.size[1], b.size[2]);
    } else if (b.shape === "cylinder") {
      geometry = new THREE.CylinderBufferGeometry(b.radius, b.radius, b.length, 32);
      geometry.rotateX(Math.PI / 2);  // three's cylinders stand along y; perp's along the body z axis
    } else {  // capsule: a cylinder and two half balls, along the body z axis
      const tube = new THREE.CylinderBufferGeometry(b.radius, b.radius, b.length, 32, 1, true);
      tube.rotateX(Math.PI / 2);
      group.add(new THREE.Mesh(tube, material));
      for (const side of [-1, 1]) {
        const end = new THREE.Mesh(new THREE.SphereBufferGeometry(b.radius, 32, 16), material);
        end.position.set(0, 0, side * b.length / 2);
        group.add(end);
      }
    }
    if (geometry !== null) {
      group.add(new THREE.Mesh(geometry, material));
      if (b.shape !== "sphere") group.add(new THREE.LineSegments(new THREE.EdgesGeometry(geometry, 30), edgeMaterial));
    }
    world.add(group);
    return {group: group, material: material};
  });
  contactGroup = new THREE.Group();
  world.add(contactGroup);
}

// Force arrows: the force F = P / h of each contact, the 95th percentile of the run's non-zero forces
// drawn 0.8 of the smallest body long (longer ones cut at 3 times that).
const magnitudes = [];
for (const c of DATA.contacts) for (let k = 0; k + 7 < c.length; k += 8) {
  const m = Math.hypot(c[k + 5], c[k + 6], c[k + 7]) / DATA.timestep;
  if (m > 0) magnitudes.push(m);
}
magnitudes.sort((a, b) => a - b);
const forceMax = magnitudes.length > 0 ? magnitudes[Math.floor(0.95 * (magnitudes.length - 1))] : 0;
const arrowLength = 0.8 * smallest;

function touchingAt(index) {
  const touching = DATA.bodies.map(() => false);
  const c = DATA.contacts[index];
  for (let k = 0; k + 7 < c.length; k += 8) {
    touching[c[k]] = true;
    if (c[k + 1] >= 0) touching[c[k + 1]] = true;
  }
  return touching;
}

// Asleep: in an island that slept through the step that led to the frame (the scene's sleeping).
function asleepAt(index) {
  const asleep = DATA.bodies.map(() => false);
  for (const b of DATA.asleep[index]) asleep[b] = true;
  return asleep;
}

function colorsAt(index) {
  if (colorSelect.value === "contact") {
    const touching = touchingAt(index);
    const asleep = asleepAt(index);
    return DATA.bodies.map((b, i) => b.fixed ? STATE_COLORS.fixed : asleep[i] ? STATE_COLORS.asleep
                                     : touching[i] ? STATE_COLORS.touching : STATE_COLORS.free);
  }
  return DATA.bodies.map((b, i) => COLORS[i % COLORS.length]);
}

function placeCamera() {
  const az = orbit.azimuth * Math.PI / 180, el = orbit.elevation * Math.PI / 180;
  camera.position.set(orbit.x + orbit.distance * Math.cos(el) * Math.cos(az),
                      orbit.y + orbit.distance * Math.cos(el) * Math.sin(az),
                      orbit.z + orbit.distance * Math.sin(el));
  camera.lookAt(orbit.x, orbit.y, orbit.z);
  camera.near = orbit.distance / 1000;
  camera.far = orbit.distance * 20;
  camera.updateProjectionMatrix();
  camera.updateMatrixWorld();
  sun.position.copy(camera.position);
  sun.target.position.set(orbit.x, orbit.y, orbit.z);
}

function drawContacts() {
  for (const child of contactGroup.children.slice()) {
    contactGroup.remove(child);
    child.geometry.dispose();
    child.material.dispose();
  }
  if (!contactsBox.checked) return;
  const c = DATA.contacts[current];
  const points = [], lines = [];
  for (let k = 0; k + 7 < c.length; k += 8) {
    const x = c[k + 2], y = c[k + 3], z = c[k + 4];
    points.push(x, y, z);
    const m = Math.hypot(c[k + 5], c[k + 6], c[k + 7]) / DATA.timestep;
    if (forceMax > 0 && m > 0) {
      const s = Math.min(3, m / forceMax) * arrowLength / m / DATA.timestep;
      const tip = new THREE.Vector3(x + s * c[k + 5], y + s * c[k + 6], z + s * c[k + 7]);
      lines.push(x, y, z, tip.x, tip.y, tip.z);
      // The head: two barbs a quarter of the line long, in the plane of the line and the camera.
      const back = new THREE.Vector3(x, y, z).sub(tip);
      const length = back.length();
      const side = back.clone().cross(camera.position.clone().sub(tip));
      if (side.lengthSq() > 0) {
        side.setLength(0.12 * length);
        back.multiplyScalar(0.25);
        for (const sign of [-1, 1]) {
          lines.push(tip.x, tip.y, tip.z, tip.x + back.x + sign * side.x, tip.y + back.y + sign * side.y,
                     tip.z + back.z + sign * side.z);
        }
      }
    }
  }
  // Drawn over the bodies (no depth test): a contact between two boxes lies inside the pile.
  const pointGeometry = new THREE.BufferGeometry();
  pointGeometry.setAttribute("position", new THREE.Float32BufferAttribute(points, 3));
  const dots = new THREE.Points(pointGeometry, new THREE.PointsMaterial({color: 0xc00000, size: 6, sizeAttenuation: false,
                                                                         depthTest: false}));
  dots.renderOrder = 2;
  contactGroup.add(dots);
  const lineGeometry = new THREE.BufferGeometry();
  lineGeometry.setAttribute("position", new THREE.Float32BufferAttribute(lines, 3));
  const shafts = new THREE.LineSegments(lineGeometry, new THREE.LineBasicMaterial({color: 0xc00000, depthTest: false}));
  shafts.renderOrder = 2;
  contactGroup.add(shafts);
}

function render() {
  if (renderer === null) return;
  const pose = DATA.pose[current];
  const colors = colorsAt(current);
  meshes.forEach((m, i) => {
    m.group.position.set(pose[7 * i], pose[7 * i + 1], pose[7 * i + 2]);
    m.group.quaternion.set(pose[7 * i + 4], pose[7 * i + 5], pose[7 * i + 6], pose[7 * i + 3]);
    m.material.color.set(colors[i]);
  });
  placeCamera();
  drawContacts();  // the arrow heads face the camera
  renderer.render(world, camera);
}

)PAGE";

/// After the energy plot (viewer_page.hpp).
constexpr const char* kPage3dScriptEnd = R"PAGE(function writeState() {
  const rect = canvas.getBoundingClientRect();
  const state = {frame: current, step: DATA.step[current], t: DATA.t[current], slider: Number(slider.value),
                 playing: playing, contacts: contactsBox.checked, color: colorSelect.value, colors: colorsAt(current),
                 touching: touchingAt(current), asleep: asleepAt(current), webgl: renderer !== null,
                 canvas_origin: [rect.left + canvas.clientLeft + window.scrollX, rect.top + canvas.clientTop + window.scrollY],
                 canvas_size: [width, height], errors: errors};
  if (camera !== null) {
    state.camera = camera.position.toArray();
    state.view_projection = new THREE.Matrix4().multiplyMatrices(
        camera.projectionMatrix, new THREE.Matrix4().getInverse(camera.matrixWorld)).toArray();
  }
  document.getElementById("state").textContent = JSON.stringify(state);
}

const drawFrame = render;  // the playback's redraw (viewer_page.hpp)
)PAGE";

constexpr const char* kPage3dTail = R"PAGE(// The orbit camera: azimuth and elevation (degrees) about the target, and the distance.
let drag = null;
canvas.addEventListener("pointerdown", (e) => {
  drag = {x: e.clientX, y: e.clientY, pan: e.shiftKey || e.button === 2};
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener("pointermove", (e) => {
  if (drag === null || camera === null) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  drag.x = e.clientX;
  drag.y = e.clientY;
  if (drag.pan) {
    // The target moves with the pointer in the view plane: one pixel is distance · 2 tan(fov/2) / height.
    const perPixel = orbit.distance * 2 * Math.tan(FOV / 2 * Math.PI / 180) / height;
    const right = new THREE.Vector3().setFromMatrixColumn(camera.matrixWorld, 0);
    const up = new THREE.Vector3().setFromMatrixColumn(camera.matrixWorld, 1);
    orbit.x += (-dx * right.x + dy * up.x) * perPixel;
    orbit.y += (-dx * right.y + dy * up.y) * perPixel;
    orbit.z += (-dx * right.z + dy * up.z) * perPixel;
  } else {
    orbit.azimuth -= 0.4 * dx;
    orbit.elevation = Math.max(-89, Math.min(89, orbit.elevation + 0.4 * dy));
  }
  render();
  writeState();
});
canvas.addEventListener("pointerup", () => { drag = null; });
canvas.addEventListener("contextmenu", (e) => e.preventDefault());
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  orbit.distance *= Math.exp(0.001 * Math.max(-500, Math.min(500, e.deltaY)));
  render();
  writeState();
}, {passive: false});

let viewChosen = camera === null;
// The 3D page's keys of the address (viewer_page::kSeek): color=contact, view=AZIMUTH,ELEVATION.
function readAddress(params) {
  if (params.has("color")) colorSelect.value = params.get("color") === "contact" ? "contact" : "body";
  if (!params.has("view") && !viewChosen) {
    // The first of these azimuths whose camera stands outside every plane's solid (a wall would
    // hide the scene from behind).
    viewChosen = true;
    for (const az of [-60, -150, 30, 120, -105, -15, 75, 165]) {
      orbit.azimuth = az;
      placeCamera();
      const c = camera.position;
      if (DATA.planes.every((p) => p.normal[0] * (c.x - p.point[0]) + p.normal[1] * (c.y - p.point[1]) +
                                   p.normal[2] * (c.z - p.point[2]) > 0)) break;
      orbit.azimuth = -60;
    }
  }
  if (params.has("view")) {
    const [az, el] = params.get("view").split(",").map(Number);
    if (Number.isFinite(az)) orbit.azimuth = az;
    if (Number.isFinite(el)) orbit.elevation = Math.max(-89, Math.min(89, el));
  }
}

)PAGE";

/// The info line's 3D part (viewer_page::set_up), then the 3D page's own listener and its API.
constexpr const char* kInfoMore = R"PAGE( + "; z up" +
    (forceMax > 0 ? "; force arrows: " + arrowLength.toPrecision(3) + " m = " + forceMax.toPrecision(3) +
                    " N (contact impulse / h)" : ""))PAGE";
constexpr const char* kPage3dEnd = R"PAGE(colorSelect.addEventListener("change", () => show(current));
window.perpViewer = {seek: (t) => show(frameAt(t)), frame: () => current};
)PAGE";

}  // namespace

std::filesystem::path three_js_path() {
  const char* set = std::getenv("PERP_THREE_JS");
  return set != nullptr && *set != '\0' ? std::filesystem::path(set) : std::filesystem::path(PERP_THREE_JS);
}

std::string read_three_js() {
  const std::filesystem::path three = three_js_path();
  std::ifstream library(three, std::ios::binary);
  if (!library) {
    throw InvalidProblem("the 3D viewer needs three.js, which could not be read from '" + three.string() +
                         "' (Debian: apt-get install libjs-three; or set PERP_THREE_JS to the file three.min.js)");
  }
  return {std::istreambuf_iterator<char>(library), std::istreambuf_iterator<char>()};
}

void write_viewer3d_html(const std::filesystem::path& path, const contact3d::Scene& scene,
                         const Simulation3dRecord& record, const std::string& title, const std::string& script) {
  // Inside <script>, "</script" ends the element and "<!--" changes how the rest is parsed.
  std::string lowered = script;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* bad : {"</script", "<!--"}) {
    if (lowered.find(bad) != std::string::npos) {
      throw InvalidProblem(std::string("three.js holds \"") + bad +
                           "\": it cannot be written inline in the viewer page");
    }
  }

  const std::vector<contact3d::Body>& bodies = scene.world.bodies;
  const std::vector<Simulation3dFrame>& frames = record.frames;
  // Bounds: every body at every kept frame with its bounding radius, and the ground's height.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::array<double, 6> bounds = {kInf, -kInf, kInf, -kInf, kInf, -kInf};
  const auto add = [&](double x, double y, double z, double r) {
    for (int axis = 0; axis < 3; ++axis) {
      const double value = axis == 0 ? x : axis == 1 ? y : z;
      bounds[2 * axis] = std::min(bounds[2 * axis], value - r);
      bounds[2 * axis + 1] = std::max(bounds[2 * axis + 1], value + r);
    }
  };
  for (const Simulation3dFrame& f : frames) {
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      add(f.pose[7 * b], f.pose[7 * b + 1], f.pose[7 * b + 2], bodies[b].shape.bounding_radius());
    }
  }
  if (frames.empty() || bodies.empty()) add(0, 0, 0, 1);
  if (scene.world.ground) {
    bounds[4] = std::min(bounds[4], scene.world.ground->height);
    bounds[5] = std::max(bounds[5], scene.world.ground->height);
  }

  std::string data;
  viewer_page::data_start(data, title, scene.options.timestep, scene.duration);
  data += ",\"steps\":" + std::to_string(record.steps) + ",\"every\":" + std::to_string(record.every) +
          ",\"stride\":" + std::to_string(record.frame_stride) +
          ",\"decimated\":" + (record.decimated() ? "true" : "false") + ",\"bounds\":";
  array(data, 6, [&](std::size_t k) { number(data, bounds[k]); });
  viewer_page::ground(data, scene.world.ground);
  const auto vector3 = [&](const Eigen::Vector3d& v) {
    array(data, 3, [&](std::size_t k) { number(data, v[static_cast<Eigen::Index>(k)]); });
  };
  data += ",\"planes\":";
  array(data, scene.world.planes.size(), [&](std::size_t p) {
    const contact3d::Plane& plane = scene.world.planes[p];
    data += "{\"name\":";
    string(data, plane.name);
    data += ",\"point\":";
    vector3(plane.point);
    data += ",\"normal\":";
    vector3(plane.unit_normal());
    data += "}";
  });
  data += ",\"bodies\":";
  array(data, bodies.size(), [&](std::size_t b) {
    const contact3d::Body& body = bodies[b];
    data += "{\"name\":";
    string(data, body.name);
    data += ",\"shape\":\"" + std::string(contact3d::shape_name(body.shape.kind)) + "\",\"radius\":";
    number(data, body.shape.radius);
    data += ",\"size\":";
    vector3(body.shape.size);
    data += ",\"length\":";
    number(data, body.shape.length);
    data += std::string(",\"fixed\":") + (body.fixed ? "true" : "false") + "}";
  });
  viewer_page::frame_series(data, frames);
  data += ",\"pose\":";
  array(data, frames.size(), [&](std::size_t i) {
    array(data, frames[i].pose.size(), [&](std::size_t k) { number(data, frames[i].pose[k]); });
  });
  // Each contact as 8 numbers: body a, side b (a body, −1 the ground, −2 − p plane p), the point
  // (5 digits) and the impulse (3 digits: a line's length and direction to 0.1 %).
  data += ",\"contacts\":";
  array(data, frames.size(), [&](std::size_t i) {
    const std::vector<Frame3dContact>& contacts = frames[i].contacts;
    array(data, 8 * contacts.size(), [&](std::size_t k) {
      const Frame3dContact& c = contacts[k / 8];
      const std::size_t field = k % 8;
      if (field == 0) {
        data += std::to_string(c.body_a);
      } else if (field == 1) {
        data += std::to_string(c.body_b);
      } else if (field < 5) {
        number(data, c.point[static_cast<Eigen::Index>(field - 2)], 5);
      } else {
        number(data, c.impulse[static_cast<Eigen::Index>(field - 5)], 3);
      }
    });
  });
  data += ",\"asleep\":";
  array(data, frames.size(), [&](std::size_t i) {
    array(data, frames[i].asleep.size(), [&](std::size_t k) { data += std::to_string(frames[i].asleep[k]); });
  });
  data += "}";

  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw InvalidProblem("cannot write '" + path.string() + "'");
  out << viewer_page::page_head(kTitle, kStyle, kContactsLabel, kControls) << kCanvas << viewer_page::kBodyEnd
      << kThreeStart << script << kPage3dData << data << viewer_page::kScriptStart << kPage3dScript
      << viewer_page::kEnergyPlot << kPage3dScriptEnd << viewer_page::kPlayback << kPage3dTail << viewer_page::kSeek
      << viewer_page::set_up(kInfoMore) << kPage3dEnd << viewer_page::kPageEnd;
  out.close();
  if (!out) throw InvalidProblem("error while writing '" + path.string() + "'");
}

}  // namespace perp
