// Side-by-side runs of perp's Moreau–Jean step, Box2D 2.4.1 (Debian libbox2d-dev) and Box2D 3.2
// (built from ../shared/anchors/box2d-v3 when that folder is there: bench/CMakeLists.txt) on the
// same scenes, in one process: a vertical stack of 10 boxes, pyramids of boxes (Box2D's own stress
// test: rows touching, no walls), heaps of disks dropped between two walls on the ground, a box on a
// slope, and Box2D 3's own large_pyramid (5 050 unit boxes, 100 at the base). Same h = 1/60, μ = 0.6
// (--friction), restitution 0, masses (density 1 per unit area), gravity 9.81.
//
// Per scene and engine: wall-clock ms a step (mean, p50, p95 and max over the run, the step call
// alone: perp's mean is a few hard steps — a cold start, a heap settling — over cheap warm-started
// ones), the largest, the mean (over steps, of each step's largest) and the final penetration
// (measured for every engine by perp's own contact detection on the engine's state after each
// step, so that the figures compare), the drift of the top body over the run, whether the
// structure stands (every body within 10 % of its size of where it started; for heaps: n/a), the
// final kinetic energy, and for perp the steps whose frictional contact problem met a relative
// error of 1e-6 under the model's own law, the steps that fell back (a Coulomb step that ended on
// the convex law's impulses: not counted as meeting 1e-6), the steps not solved to the step's
// tolerance, the largest of its physical criteria and the share of the step in the solve.
//
// Box2D 2.4.1 rounds every polygon by b2_polygonRadius (1 cm): its boxes are made that much smaller
// so that the rounded outline is perp's box. It is run at its defaults (8 velocity, 3 position
// iterations, sleeping on) and at (30, 10), and at 8/3 without sleeping (like perp). Box2D 3 (boxes
// without rounding) is run at its defaults — 4 sub-steps, soft contacts (30 Hz), continuous
// collision — with sleeping off, on 1 worker and on 2 (its own scheduler's threads).
//
// --work-precision: Box2D 3's impulses scored by perp's four criteria against perp's at a ladder
// of tolerances, on states of the 1 000-disk heap (bench/README.md, "Box2D 3 side by side", says
// exactly what is scored).
//
// Usage: compare_box2d [--seconds S] [--scene NAME]... [--friction MU] [--method M] [--friction-model NAME]
//                      [--anitescu-potra] [--sleeping] [--speculative] [--shift-updates N] [--tolerance T] [--max-iterations N] [--nsgs-sweeps N]
//                      [--dense-pivoting N] [--perp-only] [--no-box2d2] [--no-box2d3] [--no-plain]
//                      [--max-seconds-perp S] [--box2d-iterations V/P]... [--verbose]
//                      [--work-precision [--wp-steps K,K,...] [--wp-tolerances T,T,...] [--wp-substeps S,S,...]
//                       [--wp-workers N] [--wp-no-recycling]]
//   (scenes: stack10, pyramid5, pyramid20, disks100, disks1000 (between two walls), slope20; default
//   all, 10 s each; disks10000 and large_pyramid only when named; MU: the friction coefficient of every body, wall and the ground
//   in every engine, default 0.6; M: perp's method by name, default auto; --friction-model NAME: perp's
//   friction model by name (coulomb, the default; stewart-trinkle; anitescu-potra); --anitescu-potra: the same
//   as --friction-model anitescu-potra; --sleeping: perp with its islands' sleeping on, as
//   Box2D's defaults (off by default, like Box2D's "no sleeping" row); --speculative: perp's step with
//   speculative contacts (MoreauJeanOptions::speculative, off by default); --shift-updates N: the planar Coulomb
//   step's auto tries at most N updates of the fixed point on de Saxce's shift (0, the default of
//   friction_contact.automatic.shift_updates: not tried); --tolerance T: the step's solve tolerance (the
//   relative error its law must meet; default 1e-10, MoreauJeanOptions::solve); --max-iterations N: the step's solve options'
//   max_iterations (for auto, the budget of its whole chain; default 0, the methods' own);
//   --nsgs-sweeps N: friction_contact.automatic.nsgs_sweeps (auto's first sweeps, default 1000);
//   --dense-pivoting N: MoreauJeanOptions::dense_pivoting_max_size (the largest LCP a step pivots on
//   densely, default 1000 unknowns; friction_contact.lemke.lcp_max_size raised to it too);
//   --perp-only skips both Box2Ds, --no-box2d2 Box2D 2.4.1, --no-box2d3 Box2D 3; --no-plain (or its
//   older name --no-split) skips perp's row without drift correction (the default step's split impulse
//   off: baumgarte 0); --max-seconds-perp S stops each perp run after S seconds of stepping (the row says how
//   many steps it ran; its figures are over those steps); --box2d-iterations V/P adds a Box2D 2.4.1 row at V
//   velocity and P position iterations without sleeping (repeatable: to find the iterations at which Box2D takes
//   perp's time a step, and compare their penetration and drift at equal time);
//   --verbose prints each perp step's solve on stderr; a run of both disks1000 and disks10000 ends with the
//   cost's growth between them (contacts, mean ms a step, the process' peak memory after each perp row);
//   --work-precision runs only the work-precision table: Box2D 3 (1 worker; N with --wp-workers) drops the 1 000 disks once at
//   each sub-step count of --wp-substeps (default 1,2,4,8,16), and at each step K of --wp-steps (default
//   40,80,120,180,240) its step from its own state is timed and its impulses scored; perp steps from the
//   states of the 4-sub-step run at each tolerance of --wp-tolerances (default 1e-2,1e-3,...,1e-10) with
//   --method and --friction-model; --wp-no-recycling: Box2D 3 with its bodies' contact recycling off (on by
//   default: a pair that moved little keeps an earlier step's manifold); --verbose prints each sample on stderr)
//
// Box2D is a comparison target only: nothing in perp links to it.

#include <box2d/box2d.h>
#include <sys/resource.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/contact/jacobian.hpp"
#include "perp/contact/moreau_jean.hpp"
#include "perp/core/friction_contact.hpp"

#ifdef PERP_HAVE_BOX2D3
#include "box2d3_adapter.h"
#endif

namespace {

using perp::contact::Body;
using perp::contact::World;

constexpr double kTimestep = 1.0 / 60;
constexpr double kFriction = 0.6;
constexpr double kGravity = 9.81;

struct Scene {
  std::string name;
  World world;
  bool structure = false;  // a stack or pyramid that should stand
};

Body make_box(const std::string& name, double size, Eigen::Vector2d position) {
  Body body;
  body.name = name;
  body.shape = perp::contact::Box{size, size};
  body.mass = size * size;
  body.position = position;
  return body;
}

Body make_disk(const std::string& name, double radius, Eigen::Vector2d position) {
  Body body;
  body.name = name;
  body.shape = perp::contact::Disk{radius};
  body.mass = M_PI * radius * radius;
  body.position = position;
  return body;
}

Scene stack(int count) {
  Scene scene{"stack" + std::to_string(count), {}, true};
  for (int i = 0; i < count; ++i) scene.world.bodies.push_back(make_box("b" + std::to_string(i), 1.0, {0, 0.5 + i}));
  scene.world.ground = perp::contact::Ground{0};
  return scene;
}

Scene pyramid(int rows) {
  Scene scene{"pyramid" + std::to_string(rows), {}, true};
  for (int row = 0; row < rows; ++row) {
    const int count = rows - row;
    for (int j = 0; j < count; ++j) {
      const double x = j - 0.5 * (count - 1);
      scene.world.bodies.push_back(make_box("b" + std::to_string(row) + "_" + std::to_string(j), 1.0, {x, 0.5 + row}));
    }
  }
  scene.world.ground = perp::contact::Ground{0};
  return scene;
}

/// A heap of `count` disks dropped between two walls, on the ground.
Scene disks(int count) {
  Scene scene{"disks" + std::to_string(count), {}, false};
  const int per_row = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
  for (int k = 0; k < count; ++k) {
    const int row = k / per_row;
    const int column = k % per_row;
    // Slightly staggered so the heap does not stay a column.
    const double x = 0.55 * column + (row % 2 == 0 ? 0 : 0.1) - 0.275 * per_row;
    scene.world.bodies.push_back(make_disk("d" + std::to_string(k), 0.25, {x, 0.3 + 0.55 * row}));
  }
  scene.world.ground = perp::contact::Ground{0};
  const double half_width = 0.275 * per_row + 0.4;
  perp::contact::Plane left;
  left.name = "left";
  left.point = {-half_width, 0};
  left.normal = {1, 0};
  perp::contact::Plane right = left;
  right.name = "right";
  right.point = {half_width + 0.1, 0};
  right.normal = {-1, 0};
  scene.world.planes = {left, right};
  return scene;
}

/// A box resting on a slope of 20° (tan = 0.36 < μ = 0.6: it must stay, the drift is its creep).
Scene slope() {
  Scene scene{"slope20", {}, true};
  const double alpha = 20 * M_PI / 180;
  perp::contact::Plane plane;
  plane.normal = {-std::sin(alpha), std::cos(alpha)};
  scene.world.planes = {plane};
  scene.world.ground = perp::contact::Ground{0};  // as Box2D's ground edge; the box never reaches it
  const Eigen::Vector2d along(std::cos(alpha), std::sin(alpha));
  Body box = make_box("crate", 1.0, 3.0 * along + 0.5 * plane.normal);
  box.angle = alpha;
  scene.world.bodies = {box};
  return scene;
}

/// Box2D 3's benchmark/large_pyramid (shared/benchmarks.c, CreateLargePyramid): 100 unit boxes at
/// the base, 5 050 in all, rows offset by half a box, on the ground.
Scene large_pyramid() {
  Scene scene{"large_pyramid", {}, true};
  constexpr int kBase = 100;
  for (int i = 0; i < kBase; ++i) {
    const double y = (2.0 * i + 1.0) * 0.5;
    for (int j = i; j < kBase; ++j) {
      const double x = (i + 1.0) * 0.5 + (j - i) - 0.5 * kBase;
      scene.world.bodies.push_back(make_box("b" + std::to_string(i) + "_" + std::to_string(j), 1.0, {x, y}));
    }
  }
  scene.world.ground = perp::contact::Ground{0};
  return scene;
}

struct Figures {
  double ms_per_step = 0;  // mean
  double median_ms = 0;    // p50: the cost of a step without the few hard ones
  double p95_ms = 0;
  double max_ms = 0;
  std::vector<double> step_ms;
  double max_penetration = 0;
  double mean_penetration = 0;  // mean over steps of the step's largest penetration
  double end_penetration = 0;   // after the last step
  double top_drift = 0;
  bool stands = true;
  double kinetic = 0;
  int steps = 0;       // steps run (fewer than asked when --max-seconds-perp stopped the run)
  int asked = 0;       // steps asked
  int unsolved = 0;
  int met_1e6 = 0;     // perp: steps whose problem met a relative error of 1e-6 (or had no contact)
  int fell_back = 0;   // perp: Coulomb steps that took the convex law's impulses (not counted in met_1e6)
  double worst_criterion = 0;
  double solve_share = 0;  // perp: the fraction of the step spent in solve(FrictionContact)
  double mean_contacts = 0;  // perp: active contacts a step, the mean over the steps run
  long peak_mib = 0;         // the process' peak resident memory when the run ended (it only grows)
  bool perp = false;
};

long peak_resident_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

double penetration(const World& world) {
  double deepest = 0;
  for (const perp::contact::Contact& contact : perp::contact::detect_contacts(world, 0)) {
    deepest = std::max(deepest, -contact.gap);
  }
  return deepest;
}

std::size_t top_body(const World& world) {
  std::size_t top = 0;
  for (std::size_t i = 1; i < world.bodies.size(); ++i) {
    if (world.bodies[i].position.y() > world.bodies[top].position.y()) top = i;
  }
  return top;
}

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  const auto at = static_cast<std::size_t>(std::min<double>(static_cast<double>(values.size()) - 1,
                                                            std::floor(fraction * static_cast<double>(values.size()))));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

void finish(Figures& figures, const Scene& scene, const World& end, int steps, double total_ms) {
  figures.steps = steps;
  figures.ms_per_step = steps > 0 ? total_ms / steps : 0;
  figures.median_ms = percentile(figures.step_ms, 0.5);
  figures.p95_ms = percentile(figures.step_ms, 0.95);
  figures.max_ms = figures.step_ms.empty() ? 0 : *std::max_element(figures.step_ms.begin(), figures.step_ms.end());
  if (steps > 0) figures.mean_penetration /= steps;
  figures.end_penetration = penetration(end);
  const std::size_t top = top_body(scene.world);
  figures.top_drift = (end.bodies[top].position - scene.world.bodies[top].position).norm();
  for (std::size_t i = 0; i < end.bodies.size(); ++i) {
    const Body& body = end.bodies[i];
    figures.kinetic += 0.5 * body.mass * body.velocity.squaredNorm() +
                       0.5 * body.moment_of_inertia() * body.angular_velocity * body.angular_velocity;
    if (scene.structure && (body.position - scene.world.bodies[i].position).norm() > 0.1 * body.bounding_radius()) {
      figures.stands = false;
    }
  }
}

double worst_of(const perp::FrictionContactResiduals& c) {
  return std::max({c.signorini, c.coulomb, c.complementarity, c.dissipation});
}

/// `base`: the step options the flags chose (method, model, sleeping, solver limits; the default
/// drift correction, the split impulse at β = 0.2 past a 5 mm slop, Box2D's figures); `plain`: that
/// correction off (baumgarte 0); `max_seconds`: stop after that much stepping (0: run every step).
Figures run_perp(const Scene& scene, int steps, const perp::contact::MoreauJeanOptions& base, bool plain, bool verbose,
                 double max_seconds) {
  World world = scene.world;
  perp::contact::MoreauJeanOptions options = base;
  if (plain) {
    options.baumgarte = 0;
    options.split_impulse = false;
  }
  options.timestep = kTimestep;
  options.gravity = {0, -kGravity};
  Figures figures;
  figures.perp = true;
  figures.asked = steps;
  double total_ms = 0;
  int k = 0;
  for (; k < steps && (max_seconds <= 0 || total_ms < 1000 * max_seconds); ++k) {
    const auto start = std::chrono::steady_clock::now();
    const perp::contact::StepReport report = perp::contact::moreau_jean_step(world, options);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    total_ms += ms;
    figures.step_ms.push_back(ms);
    if (report.status != perp::Status::Solved) ++figures.unsolved;
    // (A frictionless step is posed as the convex law and names no fallback: not counted.)
    if (report.law == perp::FrictionLaw::Convex && !report.fallback.empty() &&
        options.friction_model != perp::contact::FrictionModel::AnitescuPotra) {
      ++figures.fell_back;
    } else if (!report.ran_solve() || report.criteria.relative_error <= 1e-6) {
      ++figures.met_1e6;
    }
    if (verbose) {
      const std::string answered = report.ran_solve() ? perp::to_string(report.result.method) : "";
      std::fprintf(stderr, "step %d: %zu contacts, %s, %s, %d iterations, residual %.2e, solve %.2f ms, unknowns %ld%s%s\n", k,
                   report.contacts.size(), perp::to_string(report.status).c_str(), answered.c_str(),
                   report.result.iterations, report.result.residual, report.solve_ms, static_cast<long>(report.lcp_size),
                   report.fallback.empty() ? "" : ", fallback from ", report.fallback.c_str());
      std::fprintf(stderr, "  %s\n", report.result.message.c_str());
      if (report.split_contacts > 0) {
        std::fprintf(stderr, "  split impulse: %zu contacts, %s, %zu sweeps\n", report.split_contacts,
                     perp::to_string(report.split_status).c_str(), report.split_sweeps);
      }
      std::fprintf(stderr, "  step %.2f ms\n", ms);
    }
    figures.solve_share += report.solve_ms;
    figures.mean_contacts += static_cast<double>(report.contacts.size());
    figures.worst_criterion = std::max(figures.worst_criterion, worst_of(report.criteria));
    const double deepest = penetration(world);
    if (verbose) {
      // Where the deepest overlap is: its bodies (-1: the ground, -2 - k: plane k) and point.
      for (const perp::contact::Contact& c : perp::contact::detect_contacts(world, 0)) {
        if (-c.gap < deepest) continue;
        std::fprintf(stderr, "  deepest overlap %.3g m: bodies %d-%d at (%.3f, %.3f)\n", deepest, c.body_a, c.body_b,
                     c.point.x(), c.point.y());
        break;
      }
    }
    figures.max_penetration = std::max(figures.max_penetration, deepest);
    figures.mean_penetration += deepest;
  }
  finish(figures, scene, world, k, total_ms);
  figures.solve_share /= total_ms;
  figures.mean_contacts /= std::max(1, k);
  figures.peak_mib = peak_resident_mib();
  return figures;
}

/// `sleeping`: Box2D's default (bodies at rest for half a second stop being simulated, so its later
/// steps cost almost nothing); perp's sleeping is off unless --sleeping, so the rows without it compare like for like.
Figures run_box2d(const Scene& scene, int steps, double friction, int velocity_iterations, int position_iterations,
                  bool sleeping = true) {
  b2World engine(b2Vec2(0, static_cast<float>(-kGravity)));
  engine.SetAllowSleeping(sleeping);
  b2BodyDef ground_def;
  b2Body* ground = engine.CreateBody(&ground_def);
  b2EdgeShape edge;
  edge.SetTwoSided(b2Vec2(-1000, 0), b2Vec2(1000, 0));
  b2FixtureDef ground_fixture;
  ground_fixture.shape = &edge;
  ground_fixture.friction = static_cast<float>(friction);
  ground->CreateFixture(&ground_fixture);
  // Each plane as a long two-sided edge along its surface.
  std::vector<b2EdgeShape> plane_edges(scene.world.planes.size());
  for (std::size_t p = 0; p < scene.world.planes.size(); ++p) {
    const perp::contact::Plane& plane = scene.world.planes[p];
    const Eigen::Vector2d n = plane.unit_normal();
    const Eigen::Vector2d along(n.y(), -n.x());
    const Eigen::Vector2d a = plane.point - 1000 * along;
    const Eigen::Vector2d b = plane.point + 1000 * along;
    plane_edges[p].SetTwoSided(b2Vec2(static_cast<float>(a.x()), static_cast<float>(a.y())),
                               b2Vec2(static_cast<float>(b.x()), static_cast<float>(b.y())));
    b2FixtureDef fixture;
    fixture.shape = &plane_edges[p];
    fixture.friction = static_cast<float>(friction);
    ground->CreateFixture(&fixture);
  }
  std::vector<b2Body*> bodies;
  for (const Body& body : scene.world.bodies) {
    b2BodyDef def;
    def.type = b2_dynamicBody;
    def.position.Set(static_cast<float>(body.position.x()), static_cast<float>(body.position.y()));
    def.angle = static_cast<float>(body.angle);
    b2Body* created = engine.CreateBody(&def);
    b2FixtureDef fixture;
    fixture.friction = static_cast<float>(friction);  // Box2D mixes a pair's as sqrt(μ₁μ₂): μ again
    fixture.density = 1;
    b2PolygonShape polygon;
    b2CircleShape circle;
    if (const auto* box = std::get_if<perp::contact::Box>(&body.shape)) {
      polygon.SetAsBox(static_cast<float>(box->width / 2 - b2_polygonRadius),
                       static_cast<float>(box->height / 2 - b2_polygonRadius));
      fixture.shape = &polygon;
    } else {
      circle.m_radius = static_cast<float>(std::get<perp::contact::Disk>(body.shape).radius);
      fixture.shape = &circle;
    }
    created->CreateFixture(&fixture);
    bodies.push_back(created);
  }
  World state = scene.world;
  Figures figures;
  figures.asked = steps;
  double total_ms = 0;
  for (int k = 0; k < steps; ++k) {
    const auto start = std::chrono::steady_clock::now();
    engine.Step(static_cast<float>(kTimestep), velocity_iterations, position_iterations);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    total_ms += ms;
    figures.step_ms.push_back(ms);
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const b2Vec2 p = bodies[i]->GetPosition();
      const b2Vec2 v = bodies[i]->GetLinearVelocity();
      state.bodies[i].position = {p.x, p.y};
      state.bodies[i].angle = bodies[i]->GetAngle();
      state.bodies[i].velocity = {v.x, v.y};
      state.bodies[i].angular_velocity = bodies[i]->GetAngularVelocity();
    }
    const double deepest = penetration(state);
    figures.max_penetration = std::max(figures.max_penetration, deepest);
    figures.mean_penetration += deepest;
  }
  finish(figures, scene, state, steps, total_ms);
  return figures;
}

/// "1,2,4": the numbers of a comma-separated list.
std::vector<double> parse_list(const std::string& text) {
  std::vector<double> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    if (!item.empty()) values.push_back(std::strtod(item.c_str(), nullptr));
  }
  return values;
}

#ifdef PERP_HAVE_BOX2D3
/// A Box2D 3 world of the scene (a perp World: its bodies' state, its walls; the ground at y = 0).
struct Box2d3 {
  PerpB2World* world = nullptr;
  Box2d3(const World& scene, double friction, int workers, bool recycling = true) {
    std::vector<PerpB2Body> bodies;
    for (const Body& body : scene.bodies) {
      PerpB2Body b{};
      if (const auto* box = std::get_if<perp::contact::Box>(&body.shape)) {
        b.is_box = 1;
        b.half_width = box->width / 2;
        b.half_height = box->height / 2;
      } else {
        b.radius = std::get<perp::contact::Disk>(body.shape).radius;
      }
      b.x = body.position.x();
      b.y = body.position.y();
      b.angle = body.angle;
      b.vx = body.velocity.x();
      b.vy = body.velocity.y();
      b.w = body.angular_velocity;
      bodies.push_back(b);
    }
    std::vector<PerpB2Segment> segments;
    for (const perp::contact::Plane& plane : scene.planes) {
      const Eigen::Vector2d n = plane.unit_normal();
      const Eigen::Vector2d along(n.y(), -n.x());
      const Eigen::Vector2d a = plane.point - 1000 * along;
      const Eigen::Vector2d b = plane.point + 1000 * along;
      segments.push_back({a.x(), a.y(), b.x(), b.y()});
    }
    world = perp_b2v3_create(bodies.data(), static_cast<int>(bodies.size()), segments.data(),
                             static_cast<int>(segments.size()), friction, kGravity, workers, recycling ? 1 : 0);
  }
  ~Box2d3() { perp_b2v3_destroy(world); }
  Box2d3(const Box2d3&) = delete;
  Box2d3& operator=(const Box2d3&) = delete;
  /// `state`'s bodies := Box2D's.
  void read(World& state) const {
    std::vector<double> out(6 * state.bodies.size());
    perp_b2v3_state(world, out.data());
    for (std::size_t i = 0; i < state.bodies.size(); ++i) {
      Body& body = state.bodies[i];
      body.position = {out[6 * i], out[6 * i + 1]};
      body.angle = out[6 * i + 2];
      body.velocity = {out[6 * i + 3], out[6 * i + 4]};
      body.angular_velocity = out[6 * i + 5];
    }
  }
  [[nodiscard]] std::vector<PerpB2Point> points() const {
    std::vector<PerpB2Point> out(4096);
    int count = perp_b2v3_points(world, out.data(), static_cast<int>(out.size()));
    if (count > static_cast<int>(out.size())) {
      out.resize(static_cast<std::size_t>(count));
      count = perp_b2v3_points(world, out.data(), count);
    }
    out.resize(static_cast<std::size_t>(count));
    return out;
  }
};

/// Box2D 3 at its defaults (sub-steps, soft contacts), sleeping off, `workers` workers.
Figures run_box2d3(const Scene& scene, int steps, double friction, int workers, int substeps) {
  Box2d3 engine(scene.world, friction, workers);
  if (engine.world == nullptr) return {};
  World state = scene.world;
  Figures figures;
  figures.asked = steps;
  double total_ms = 0;
  for (int k = 0; k < steps; ++k) {
    const auto start = std::chrono::steady_clock::now();
    perp_b2v3_step(engine.world, kTimestep, substeps);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    total_ms += ms;
    figures.step_ms.push_back(ms);
    engine.read(state);
    const double deepest = penetration(state);
    figures.max_penetration = std::max(figures.max_penetration, deepest);
    figures.mean_penetration += deepest;
  }
  finish(figures, scene, state, steps, total_ms);
  return figures;
}

/// Box2D 3's impulses over one step (N·s, the totals applied across its sub-steps) on perp's
/// contacts: each perp contact takes the Box2D manifold point of the same pair of bodies (a wall or
/// the ground: any static one) nearest to its point (Box2D's point: the centre of its body, in
/// `start`, the state the step started from, plus its anchor), each point used once. Box2D stores
/// the normal impulse applied over the whole step (totalNormalImpulse) but only the last sub-step's
/// friction impulse: the step's friction impulse is taken as that one times the sub-steps, clipped
/// to μ totalNormalImpulse (exact at 1 sub-step; bench/README.md measures the estimate above it).
struct Mapped {
  Eigen::VectorXd normal;
  Eigen::VectorXd tangent;
  double unmatched_share = 0;  // of Box2D's total normal impulse, on points no perp contact took
  int bare = 0;                // perp contacts no Box2D point was found for (their impulse: 0)
  double angle = 0;            // the largest angle (rad) between a perp normal and its Box2D point's
  double angle_rms = 0;        // the root mean square of those angles, weighted by the normal impulse
};

Mapped map_impulses(const World& start, const std::vector<perp::contact::Contact>& contacts,
                    const std::vector<PerpB2Point>& points, int substeps, double friction) {
  Mapped mapped;
  const auto m = static_cast<Eigen::Index>(contacts.size());
  mapped.normal = Eigen::VectorXd::Zero(m);
  mapped.tangent = Eigen::VectorXd::Zero(m);
  std::vector<char> used(points.size(), 0);
  for (Eigen::Index k = 0; k < m; ++k) {
    const perp::contact::Contact& c = contacts[static_cast<std::size_t>(k)];
    const int a = c.body_a;
    const int b = c.body_b < 0 ? -1 : c.body_b;
    std::size_t best = points.size();
    double best_distance = 0;
    for (std::size_t p = 0; p < points.size(); ++p) {
      const PerpB2Point& point = points[p];
      const bool same = (point.body_a == a && point.body_b == b) || (point.body_a == b && point.body_b == a);
      if (!same || used[p]) continue;
      const Eigen::Vector2d at =
          point.body_a >= 0
              ? Eigen::Vector2d(start.bodies[static_cast<std::size_t>(point.body_a)].position +
                                Eigen::Vector2d(point.anchor_ax, point.anchor_ay))
              : Eigen::Vector2d(start.bodies[static_cast<std::size_t>(point.body_b)].position +
                                Eigen::Vector2d(point.anchor_bx, point.anchor_by));
      const double distance = (at - c.point).norm();
      if (best == points.size() || distance < best_distance) {
        best = p;
        best_distance = distance;
      }
    }
    if (best == points.size()) {
      ++mapped.bare;
      continue;
    }
    used[best] = 1;
    const PerpB2Point& point = points[best];
    const double total_normal = point.total_normal_impulse;
    const double bound = friction * std::max(0.0, total_normal);
    const double total_tangent = std::clamp(substeps * point.tangent_impulse, -bound, bound);
    const Eigen::Vector2d n(point.nx, point.ny);
    const Eigen::Vector2d t(point.ny, -point.nx);  // Box2D's b2RightPerp(normal)
    const Eigen::Vector2d on_b = total_normal * n + total_tangent * t;  // on Box2D's body b
    const Eigen::Vector2d on_a = point.body_a == a ? Eigen::Vector2d(-on_b) : on_b;     // on perp's body a
    const double sine = std::abs(n.x() * c.normal.y() - n.y() * c.normal.x());
    mapped.angle = std::max(mapped.angle, std::asin(std::min(1.0, sine)));
    mapped.angle_rms += std::abs(total_normal) * sine * sine;
    mapped.normal[k] = on_a.dot(c.normal);
    mapped.tangent[k] = on_a.dot(c.tangent());
  }
  double all = 0;
  double left = 0;
  for (std::size_t p = 0; p < points.size(); ++p) {
    all += std::abs(points[p].total_normal_impulse);
    if (!used[p]) left += std::abs(points[p].total_normal_impulse);
  }
  mapped.unmatched_share = all > 0 ? left / all : 0;
  mapped.angle_rms = all > left ? std::sqrt(mapped.angle_rms / (all - left)) : 0;
  return mapped;
}

/// The Coulomb step's frictional contact problem (d = 2) of `contacts` at `world`'s state, as
/// moreau_jean.hpp poses it: W = J M⁻¹ Jᵀ with J's normal and tangent rows interleaved per
/// contact, q = J v_free (v_free = v + h g; restitution 0, no Baumgarte), μ each.
perp::FrictionContact step_problem(const World& world, const std::vector<perp::contact::Contact>& contacts,
                                   double friction) {
  const auto n = static_cast<Eigen::Index>(world.bodies.size());
  Eigen::VectorXd inverse_mass(3 * n);
  Eigen::VectorXd v_free(3 * n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Body& body = world.bodies[static_cast<std::size_t>(i)];
    inverse_mass.segment<3>(3 * i) << 1 / body.mass, 1 / body.mass, 1 / body.moment_of_inertia();
    v_free.segment<2>(3 * i) = body.velocity + kTimestep * Eigen::Vector2d(0, -kGravity);
    v_free[3 * i + 2] = body.angular_velocity;
  }
  perp::FrictionContact problem;
  problem.dimension = 2;
  problem.W = perp::contact::delassus_interleaved(contacts, inverse_mass);
  problem.q = perp::contact::interleaved_jacobian(contacts, n) * v_free;
  problem.mu = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(contacts.size()), friction);
  return problem;
}

Eigen::VectorXd interleave(const Eigen::VectorXd& normal, const Eigen::VectorXd& tangent) {
  Eigen::VectorXd r(2 * normal.size());
  for (Eigen::Index k = 0; k < normal.size(); ++k) {
    r[2 * k] = normal[k];
    r[2 * k + 1] = tangent[k];
  }
  return r;
}

/// One row of the work-precision table: a step's cost and its criteria, over the sampled states.
struct Precision {
  std::string engine;
  std::vector<double> ms;
  std::vector<double> relative;
  perp::FrictionContactResiduals worst;  // each criterion's largest over the samples
  int met = 0;                           // samples whose relative error met 1e-6
  int unsolved = 0;                      // perp: steps not solved to their tolerance
  double unmatched = 0;                  // Box2D: largest share of its impulse perp had no contact for
  double unexplained = 0;                // Box2D: largest |M Δv − Jᵀ r| / |M Δv| (see score_box2d3)
  void add(double step_ms, const perp::FrictionContactResiduals& c) {
    ms.push_back(step_ms);
    relative.push_back(c.relative_error);
    if (c.relative_error <= 1e-6) ++met;
    worst.signorini = std::max(worst.signorini, c.signorini);
    worst.coulomb = std::max(worst.coulomb, c.coulomb);
    worst.complementarity = std::max(worst.complementarity, c.complementarity);
    worst.dissipation = std::max(worst.dissipation, c.dissipation);
  }
};

/// The active contacts of a step from `world` as moreau_jean_step finds them when the world carries
/// no impulses: detected within the distance any pair can close in half a step, then kept when the
/// predicted gap g + h/2 · ġ is <= activation_tolerance (ġ = J_N v).
std::vector<perp::contact::Contact> active_contacts(const World& world, double tolerance) {
  double fastest = 0;
  for (const Body& body : world.bodies) {
    fastest = std::max(fastest, body.velocity.norm() + std::abs(body.angular_velocity) * body.bounding_radius());
  }
  const double margin = 0.5 * kTimestep * 2 * fastest + tolerance;
  std::vector<perp::contact::Contact> active;
  for (const perp::contact::Contact& c : perp::contact::detect_contacts(world, margin)) {
    const auto velocity_at = [&](int body, const Eigen::Vector2d& arm) -> Eigen::Vector2d {
      if (body < 0) return Eigen::Vector2d::Zero();
      const Body& b = world.bodies[static_cast<std::size_t>(body)];
      return b.velocity + b.angular_velocity * Eigen::Vector2d(-arm.y(), arm.x());
    };
    const double rate = c.normal.dot(velocity_at(c.body_a, c.arm_a) - velocity_at(c.body_b, c.arm_b));
    if (c.gap + 0.5 * kTimestep * rate <= tolerance) active.push_back(c);
  }
  return active;
}

/// One sampled state scored: Box2D 3 stepped from it at `count` sub-steps (the median of three
/// timings, each from the snapshot), its impulses mapped on perp's contacts of that state.
void score_box2d3(Box2d3& engine, const World& state, int count, double friction, Precision& row, bool verbose, int k) {
  const std::vector<perp::contact::Contact> contacts = active_contacts(state, 1e-9);
  const perp::FrictionContact problem = step_problem(state, contacts, friction);
  if (!perp_b2v3_save(engine.world)) {
    std::fprintf(stderr, "compare_box2d: Box2D 3's snapshot failed at step %d\n", k);
    std::exit(1);
  }
  std::vector<double> times;
  std::vector<PerpB2Point> points;
  for (int repeat = 0; repeat < 3; ++repeat) {  // the median of three: the machine is shared
    perp_b2v3_restore(engine.world);
    const auto start = std::chrono::steady_clock::now();
    perp_b2v3_step(engine.world, kTimestep, count);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (repeat == 0) points = engine.points();
  }
  const Mapped mapped = map_impulses(state, contacts, points, count, friction);
  const perp::FrictionContactResiduals c =
      perp::friction_contact_residuals(problem, interleave(mapped.normal, mapped.tangent));
  row.add(percentile(times, 0.5), c);
  row.unmatched = std::max(row.unmatched, mapped.unmatched_share);
  {
    // How much of Box2D's own change of momentum over the step the mapped impulses explain:
    // |M (v⁺ − v_free) − Jᵀ r| / |M (v⁺ − v_free)| (its sub-steps move the contacts, and it
    // pushes on contacts perp leaves open, so not 0).
    World after = state;
    engine.read(after);
    const auto n = static_cast<Eigen::Index>(state.bodies.size());
    Eigen::VectorXd momentum(3 * n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const Body& b0 = state.bodies[static_cast<std::size_t>(i)];
      const Body& b1 = after.bodies[static_cast<std::size_t>(i)];
      momentum.segment<2>(3 * i) = b0.mass * (b1.velocity - b0.velocity - kTimestep * Eigen::Vector2d(0, -kGravity));
      momentum[3 * i + 2] = b0.moment_of_inertia() * (b1.angular_velocity - b0.angular_velocity);
    }
    const Eigen::VectorXd explained =
        perp::contact::interleaved_jacobian(contacts, n).transpose() * interleave(mapped.normal, mapped.tangent);
    const double unexplained = (momentum - explained).norm() / momentum.norm();
    row.unexplained = std::max(row.unexplained, unexplained);
    if (verbose) {
      Eigen::Index worst = 0;
      double violation = -1;
      for (Eigen::Index q = 0; q < mapped.normal.size(); ++q) {
        const double v = std::max(std::abs(mapped.tangent[q]) - friction * mapped.normal[q], -mapped.normal[q]);
        if (v > violation) violation = v, worst = q;
      }
      if (worst < mapped.normal.size()) {
        const perp::contact::Contact& w = contacts[static_cast<std::size_t>(worst)];
        std::fprintf(stderr, "  largest Coulomb violation %.3g at %d-%d (%.3f %.3f) n (%.3f %.3f) gap %.2e: N %g T %g\n",
                     violation, w.body_a, w.body_b, w.point.x(), w.point.y(), w.normal.x(), w.normal.y(), w.gap,
                     mapped.normal[worst], mapped.tangent[worst]);
        for (const PerpB2Point& point : points) {
          if ((point.body_a == w.body_a || point.body_b == w.body_a)) {
            std::fprintf(stderr, "    box2d %d-%d at (%.4f %.4f) n (%.3f %.3f): N %g T %g total %g\n", point.body_a,
                         point.body_b, point.x, point.y, point.nx, point.ny, point.normal_impulse, point.tangent_impulse,
                         point.total_normal_impulse);
          }
        }
      }
    }
    if (verbose) std::fprintf(stderr,
                 "step %d, Box2D 3 at %d sub-steps: %.2f ms, relative error %.2e, %zu perp contacts (%d without a Box2D "
                 "point), %.2f %% of Box2D's impulse on points perp leaves open, momentum change unexplained %.1f %%, normals apart by %.2g rad at most (%.2g rms)\n",
                 k, count, percentile(times, 0.5), c.relative_error, contacts.size(), mapped.bare,
                 100 * mapped.unmatched_share, 100 * unexplained, mapped.angle, mapped.angle_rms);
  }
  perp_b2v3_restore(engine.world);
}

/// perp's step from `state` at each tolerance, warm-started from the impulses Box2D carries into
/// this step (mapped on perp's contacts), as perp's own last-step impulses would be.
void score_perp(const Box2d3& engine, const World& state, const perp::contact::MoreauJeanOptions& options,
                const std::vector<double>& tolerances, std::vector<Precision>& rows, bool verbose, int k) {
  const std::vector<perp::contact::Contact> contacts = active_contacts(state, options.activation_tolerance);
  const perp::FrictionContact problem = step_problem(state, contacts, options.friction);
  const Mapped before = map_impulses(state, contacts, engine.points(), 4, options.friction);
  World warm = state;
  warm.impulses.clear();
  for (std::size_t c = 0; c < contacts.size(); ++c) {
    int ordinal = 0;
    for (std::size_t d = 0; d < c; ++d) {
      if (contacts[d].body_a == contacts[c].body_a && contacts[d].body_b == contacts[c].body_b) ++ordinal;
    }
    const auto i = static_cast<Eigen::Index>(c);
    warm.impulses.push_back({contacts[c].body_a, contacts[c].body_b, ordinal, before.normal[i], before.tangent[i]});
  }
  for (std::size_t t = 0; t < tolerances.size(); ++t) {
    World world = warm;
    perp::contact::MoreauJeanOptions at = options;
    at.solve.tolerance = tolerances[t];
    const auto start = std::chrono::steady_clock::now();
    const perp::contact::StepReport report = perp::contact::moreau_jean_step(world, at);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // perp's impulses scored by the same problem as Box2D's when the step posed the same contacts
    // (a pair loaded in the warm start stays active a little longer: then by the step's own problem).
    const bool same = report.contacts.size() == contacts.size();
    const perp::FrictionContactResiduals c =
        same ? perp::friction_contact_residuals(problem, interleave(report.normal_impulse, report.tangent_impulse))
             : report.criteria;
    rows[t].add(ms, c);
    if (report.status != perp::Status::Solved) ++rows[t].unsolved;
    if (verbose) {
      std::fprintf(stderr, "step %d, perp at %.0e: %zu contacts (%zu warm-started), %s, %.1f ms, relative error %.2e (report %.2e)%s\n",
                   k, tolerances[t], report.contacts.size(), report.warm_started, perp::to_string(report.status).c_str(), ms,
                   c.relative_error, report.criteria.relative_error, same ? "" : ", other contacts");
    }
  }
}

/// The work-precision table on the 1 000-disk heap (see the usage at the top of the file): each
/// Box2D row is its own run at that many sub-steps (its warm start is its own), scored at the
/// sampled steps on its own states; perp's rows step from the states of the 4-sub-step run.
void work_precision(const perp::contact::MoreauJeanOptions& base, const std::vector<double>& sample_steps,
                    const std::vector<double>& substeps, const std::vector<double>& tolerances, int workers,
                    bool recycling, bool verbose) {
  const Scene scene = disks(1000);
  std::vector<Precision> rows;
  for (const double s : substeps) {
    rows.push_back({"Box2D 3, " + std::to_string(static_cast<int>(s)) + " sub-steps" +
                    (workers > 1 ? ", " + std::to_string(workers) + " workers" : "") +
                    (recycling ? "" : ", no contact recycling")});
  }
  const char* model = base.friction_model == perp::contact::FrictionModel::AnitescuPotra    ? "Anitescu-Potra"
                      : base.friction_model == perp::contact::FrictionModel::StewartTrinkle ? "Stewart-Trinkle"
                                                                                             : "Coulomb";
  std::vector<Precision> perp_rows;
  for (const double t : tolerances) {
    char name[128];
    std::snprintf(name, sizeof name, "perp (%s, %s), tolerance %.0e", model, perp::to_string(base.method).c_str(), t);
    perp_rows.push_back({name});
  }
  perp::contact::MoreauJeanOptions options = base;
  options.timestep = kTimestep;
  options.gravity = {0, -kGravity};
  const int last = sample_steps.empty() ? 0 : static_cast<int>(*std::max_element(sample_steps.begin(), sample_steps.end()));
  std::vector<double> runs = substeps;
  if (std::find(runs.begin(), runs.end(), 4.0) == runs.end()) runs.push_back(4);  // perp's states
  int samples = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const int count = static_cast<int>(runs[r]);
    Box2d3 engine(scene.world, base.friction, workers, recycling);
    World state = scene.world;
    samples = 0;
    for (int k = 0; k <= last; ++k) {
      if (std::find(sample_steps.begin(), sample_steps.end(), static_cast<double>(k)) != sample_steps.end()) {
        ++samples;
        engine.read(state);
        if (r < substeps.size()) score_box2d3(engine, state, count, base.friction, rows[r], verbose, k);
        if (count == 4) score_perp(engine, state, options, tolerances, perp_rows, verbose, k);
      }
      perp_b2v3_step(engine.world, kTimestep, count);
    }
  }
  rows.insert(rows.end(), perp_rows.begin(), perp_rows.end());
  std::printf("Work-precision: 1 000 disks between walls, mu = %g, h = 1/60, %d sampled steps; Box2D 3 on %d worker(s), "
              "each row its own run; perp (%s, %s) from the states of Box2D 3's 4-sub-step run\n\n",
              base.friction, samples, workers, model, perp::to_string(base.method).c_str());
  std::printf("| engine | ms a step (median) | relative error (median) | relative error (max) | samples meeting 1e-6 | "
              "Signorini (m/s) | Coulomb (N s) | complementarity | max. dissipation | note |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Precision& row : rows) {
    char note[160] = "";
    if (row.engine.rfind("perp", 0) == 0) {
      std::snprintf(note, sizeof note, "%d unsolved", row.unsolved);
    } else {
      std::snprintf(note, sizeof note, "impulse on contacts perp leaves open <= %.1f %%; momentum unexplained <= %.0f %%",
                    100 * row.unmatched, 100 * row.unexplained);
    }
    std::printf("| %s | %.3f | %.2e | %.2e | %d of %zu | %.2e | %.2e | %.2e | %.2e | %s |\n", row.engine.c_str(),
                percentile(row.ms, 0.5), percentile(row.relative, 0.5),
                row.relative.empty() ? 0 : *std::max_element(row.relative.begin(), row.relative.end()), row.met,
                row.ms.size(), row.worst.signorini, row.worst.coulomb, row.worst.complementarity, row.worst.dissipation, note);
  }
  std::fflush(stdout);
}
#endif

void print(const Scene& scene, const std::string& engine, const Figures& f) {
  char perp_columns[128] = "- | - | - | - | -";
  if (f.perp) {
    std::snprintf(perp_columns, sizeof perp_columns, "%d of %d | %d | %d | %.1e | %.0f %%", f.met_1e6, f.steps, f.fell_back,
                  f.unsolved, f.worst_criterion, 100 * f.solve_share);
  }
  char steps[32];
  std::snprintf(steps, sizeof steps, f.steps < f.asked ? "%d of %d" : "%d", f.steps, f.asked);
  std::printf("| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.2e | %.2e | %.2e | %.2e | %s | %.2e | %s |\n", scene.name.c_str(),
              engine.c_str(), steps, f.ms_per_step, f.median_ms, f.p95_ms, f.max_ms, f.max_penetration, f.mean_penetration,
              f.end_penetration, f.top_drift, !scene.structure ? "n/a" : f.stands ? "yes" : "no", f.kinetic, perp_columns);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  std::vector<std::string> wanted;
  perp::contact::MoreauJeanOptions base;  // the step options the flags choose
  base.friction = kFriction;
  bool box2d2 = true;
  bool box2d3 = true;
  bool plain = true;
  bool verbose = false;
  bool precision = false;
  double max_seconds_perp = 0;
  int wp_workers = 1;
  bool wp_recycling = true;
  std::vector<double> wp_steps{40, 80, 120, 180, 240};
  std::vector<double> wp_substeps{1, 2, 4, 8, 16};
  std::vector<double> wp_tolerances{1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
  std::vector<std::pair<int, int>> extra_iterations;
  const auto usage = [] {
    std::fprintf(
        stderr,
        "usage: compare_box2d [--seconds S] [--scene NAME]... [--friction MU] [--method M] [--friction-model NAME] "
        "[--anitescu-potra] [--sleeping] [--speculative] [--shift-updates N] [--tolerance T] [--max-iterations N] [--nsgs-sweeps N] [--dense-pivoting N] "
        "[--perp-only] [--no-box2d2] [--no-box2d3] [--no-plain] [--max-seconds-perp S] [--box2d-iterations V/P]... "
        "[--verbose] [--work-precision [--wp-steps K,...] [--wp-tolerances T,...] [--wp-substeps S,...] [--wp-workers N] [--wp-no-recycling]]\n");
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seconds" && i + 1 < argc) {
      seconds = std::strtod(argv[++i], nullptr);
    } else if (arg == "--friction" && i + 1 < argc) {
      base.friction = std::strtod(argv[++i], nullptr);
      if (!(base.friction >= 0 && std::isfinite(base.friction))) {
        std::fprintf(stderr, "compare_box2d: --friction takes a finite mu >= 0, got '%s'\n", argv[i]);
        return 2;
      }
    } else if (arg == "--method" && i + 1 < argc) {
      base.method = perp::from_string<perp::Method>(argv[++i]);
    } else if (arg == "--friction-model" && i + 1 < argc) {
      const std::string name = argv[++i];
      if (name == "coulomb") {
        base.friction_model = perp::contact::FrictionModel::Coulomb;
      } else if (name == "stewart-trinkle") {
        base.friction_model = perp::contact::FrictionModel::StewartTrinkle;
      } else if (name == "anitescu-potra") {
        base.friction_model = perp::contact::FrictionModel::AnitescuPotra;
      } else {
        std::fprintf(stderr, "compare_box2d: --friction-model takes coulomb, stewart-trinkle or anitescu-potra, got '%s'\n",
                     name.c_str());
        return 2;
      }
    } else if (arg == "--anitescu-potra") {
      base.friction_model = perp::contact::FrictionModel::AnitescuPotra;
    } else if (arg == "--shift-updates" && i + 1 < argc) {
      base.solve.friction_contact.automatic.shift_updates = std::atoi(argv[++i]);
    } else if (arg == "--tolerance" && i + 1 < argc) {
      base.solve.tolerance = std::atof(argv[++i]);
    } else if (arg == "--max-iterations" && i + 1 < argc) {
      base.solve.max_iterations = std::atoi(argv[++i]);
    } else if (arg == "--nsgs-sweeps" && i + 1 < argc) {
      base.solve.friction_contact.automatic.nsgs_sweeps = std::atoi(argv[++i]);
    } else if (arg == "--dense-pivoting" && i + 1 < argc) {
      base.dense_pivoting_max_size = std::atol(argv[++i]);
      base.solve.friction_contact.lemke.lcp_max_size = std::max(base.solve.friction_contact.lemke.lcp_max_size,
                                                           base.dense_pivoting_max_size);
    } else if (arg == "--box2d-iterations" && i + 1 < argc) {
      int velocity = 0;
      int position = 0;
      if (std::sscanf(argv[++i], "%d/%d", &velocity, &position) != 2 || velocity < 1 || position < 0) {
        std::fprintf(stderr, "compare_box2d: --box2d-iterations takes V/P (V >= 1 velocity, P >= 0 position), got '%s'\n",
                     argv[i]);
        return 2;
      }
      extra_iterations.emplace_back(velocity, position);
    } else if (arg == "--sleeping") {
      base.sleeping = true;
    } else if (arg == "--speculative") {
      base.speculative = true;
    } else if (arg == "--perp-only") {
      box2d2 = false;
      box2d3 = false;
    } else if (arg == "--no-box2d2") {
      box2d2 = false;
    } else if (arg == "--no-box2d3") {
      box2d3 = false;
    } else if (arg == "--no-plain" || arg == "--no-split") {
      plain = false;
    } else if (arg == "--max-seconds-perp" && i + 1 < argc) {
      max_seconds_perp = std::strtod(argv[++i], nullptr);
    } else if (arg == "--work-precision") {
      precision = true;
    } else if (arg == "--wp-steps" && i + 1 < argc) {
      wp_steps = parse_list(argv[++i]);
    } else if (arg == "--wp-substeps" && i + 1 < argc) {
      wp_substeps = parse_list(argv[++i]);
    } else if (arg == "--wp-workers" && i + 1 < argc) {
      wp_workers = std::max(1, std::atoi(argv[++i]));
    } else if (arg == "--wp-no-recycling") {
      wp_recycling = false;
    } else if (arg == "--wp-tolerances" && i + 1 < argc) {
      wp_tolerances = parse_list(argv[++i]);
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (arg == "--scene" && i + 1 < argc) {
      wanted.emplace_back(argv[++i]);
    } else {
      return usage();
    }
  }
#ifndef PERP_HAVE_BOX2D3
  if (box2d3) {
    std::printf("Box2D 3 was not built in (its source was not found at PERP_BOX2D3_DIR when configuring; "
                "bench/CMakeLists.txt): its rows are left out.\n\n");
    box2d3 = false;
  }
  if (precision) {
    std::fprintf(stderr, "compare_box2d: --work-precision needs Box2D 3, which was not built in\n");
    return 2;
  }
  (void)wp_workers;
  (void)wp_recycling;
#else
  if (precision) {
    work_precision(base, wp_steps, wp_substeps, wp_tolerances, wp_workers, wp_recycling, verbose);
    return 0;
  }
#endif
  const int steps = std::max(1, static_cast<int>(std::lround(seconds / kTimestep)));
  std::vector<std::function<Scene()>> scenes{[] { return stack(10); }, [] { return pyramid(5); },
                                             [] { return pyramid(20); }, [] { return disks(100); },
                                             [] { return disks(1000); }, [] { return slope(); }};
  std::printf("h = 1/60, mu = %g, %d steps (%.3g s)%s\n\n", base.friction, steps, seconds,
              max_seconds_perp > 0 ? ", each perp run stopped after --max-seconds-perp of stepping" : "");
  std::printf("| scene | engine | steps | ms/step (mean) | p50 | p95 | max | max penetration (m) | mean penetration (m) | "
              "final penetration (m) | top drift (m) | stands | final KE (J) | perp steps meeting 1e-6 | perp steps fallen back | perp unsolved steps | "
              "perp worst criterion | perp time in the solve |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  // Only when named: 10 000 disks (minutes a run), Box2D 3's large pyramid (5 050 boxes).
  if (std::find(wanted.begin(), wanted.end(), "disks10000") != wanted.end()) {
    scenes.emplace_back([] { return disks(10000); });
  }
  if (std::find(wanted.begin(), wanted.end(), "large_pyramid") != wanted.end()) {
    scenes.emplace_back([] { return large_pyramid(); });
  }
  std::vector<std::pair<std::string, Figures>> perp_rows;    // the first perp row of each scene run
  std::vector<std::pair<std::string, Figures>> box2d3_rows;  // Box2D 3's 1-thread row of each
  for (const auto& make : scenes) {
    const Scene scene = make();
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), scene.name) == wanted.end()) continue;
    if (box2d2) {
      print(scene, "Box2D 2.4 8/3", run_box2d(scene, steps, base.friction, 8, 3));
      print(scene, "Box2D 2.4 30/10", run_box2d(scene, steps, base.friction, 30, 10));
      print(scene, "Box2D 2.4 8/3, no sleeping", run_box2d(scene, steps, base.friction, 8, 3, false));
      for (const auto& [velocity, position] : extra_iterations) {
        print(scene, "Box2D 2.4 " + std::to_string(velocity) + "/" + std::to_string(position) + ", no sleeping",
              run_box2d(scene, steps, base.friction, velocity, position, false));
      }
    }
#ifdef PERP_HAVE_BOX2D3
    if (box2d3) {
      const Figures one_thread = run_box2d3(scene, steps, base.friction, 1, 4);
      print(scene, "Box2D 3, 4 sub-steps, 1 thread", one_thread);
      box2d3_rows.emplace_back(scene.name, one_thread);
      print(scene, "Box2D 3, 4 sub-steps, 2 threads", run_box2d3(scene, steps, base.friction, 2, 4));
    }
#endif
    const char* model = base.friction_model == perp::contact::FrictionModel::AnitescuPotra    ? "Anitescu-Potra, "
                        : base.friction_model == perp::contact::FrictionModel::StewartTrinkle ? "Stewart-Trinkle, "
                                                                                               : "Coulomb, ";
    const std::string name = std::string(model) + perp::to_string(base.method) + (base.sleeping ? ", sleeping" : "");
    const Figures perp_row = run_perp(scene, steps, base, false, verbose, max_seconds_perp);
    print(scene, "perp (" + name + ")", perp_row);
    perp_rows.emplace_back(scene.name, perp_row);
    if (plain) {
      print(scene, "perp (" + name + ", no drift correction)",
            run_perp(scene, steps, base, true, verbose, max_seconds_perp));
    }
  }
  std::printf("\npeak resident memory: %ld MiB\n", peak_resident_mib());
  // The cost's growth from 1 000 to 10 000 disks, where one run had both (the process' peak after
  // each perp row: the 1 000-disk row runs first, so its figure is its own).
  const auto row_of = [](const std::vector<std::pair<std::string, Figures>>& rows, const std::string& name) {
    const auto found = std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return row.first == name; });
    return found == rows.end() ? nullptr : &found->second;
  };
  const Figures* small = row_of(perp_rows, "disks1000");
  const Figures* large = row_of(perp_rows, "disks10000");
  if (small != nullptr && large != nullptr && small->ms_per_step > 0 && small->mean_contacts > 0) {
    const double contacts = large->mean_contacts / small->mean_contacts;
    const double cost = large->ms_per_step / small->ms_per_step;
    std::printf("growth from disks1000 to disks10000, perp: contacts a step %.0f -> %.0f (x%.1f), mean ms a step "
                "%.3f -> %.3f (x%.1f, x%.2f a contact), peak resident memory after the row %ld -> %ld MiB\n",
                small->mean_contacts, large->mean_contacts, contacts, small->ms_per_step, large->ms_per_step, cost,
                cost / contacts, small->peak_mib, large->peak_mib);
    const Figures* small3 = row_of(box2d3_rows, "disks1000");
    const Figures* large3 = row_of(box2d3_rows, "disks10000");
    if (small3 != nullptr && large3 != nullptr && small3->ms_per_step > 0) {
      std::printf("growth from disks1000 to disks10000, Box2D 3 (1 thread): mean ms a step %.3f -> %.3f (x%.1f)\n",
                  small3->ms_per_step, large3->ms_per_step, large3->ms_per_step / small3->ms_per_step);
    }
  }
  return 0;
}
