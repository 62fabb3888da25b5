// Side-by-side runs of perp's Moreau–Jean step and Box2D 2.4.1 (Debian libbox2d-dev) on the same
// scenes, in one process: a vertical stack of 10 boxes, pyramids of boxes (Box2D's own stress
// test: rows touching, no walls), and heaps of disks dropped on the ground. Same h = 1/60, μ = 0.6
// (--friction), restitution 0, masses (density 1 per unit area), gravity 9.81.
//
// Per scene and engine: wall-clock ms a step (mean over the run, the step call alone, and the
// median step: perp's mean is a few hard steps — a cold start, a heap settling — over cheap
// warm-started ones), the
// largest and the mean penetration (measured for both engines by perp's own contact detection
// on the engine's state after each step, so that the figures compare), the drift of the top body
// over the run, whether the structure stands (every body within 10 % of its size of where it
// started; for heaps: n/a), the final kinetic energy, and for perp the steps whose frictional
// contact problem was not solved to the tolerance and the largest of its physical criteria.
//
// Box2D rounds every polygon by b2_polygonRadius (1 cm): its boxes are made that much smaller so
// that the rounded outline is perp's box. Box2D is run at its defaults (8 velocity, 3 position
// iterations, sleeping on) and at (30, 10), and at 8/3 without sleeping (like perp).
//
// Usage: compare_box2d [--seconds S] [--scene NAME]... [--friction MU] [--method M] [--anitescu-potra] [--sleeping]
//                      [--shift-updates N] [--max-iterations N] [--nsgs-sweeps N] [--dense-pivoting N] [--perp-only]
//                      [--box2d-iterations V/P]... [--verbose]
//   (scenes: stack10, pyramid5, pyramid20, disks100, disks1000 (between two walls), slope20; default
//   all, 10 s each; disks10000 only when named; MU: the friction coefficient of every body, wall and the ground
//   in both engines, default 0.6; M: perp's method, default auto; --anitescu-potra: perp steps the convex
//   relaxation of Coulomb friction instead of Coulomb's law; --sleeping: perp with its islands' sleeping on, as
//   Box2D's defaults (off by default, like Box2D's "no sleeping" row); --shift-updates N: the planar Coulomb
//   step's auto tries at most N updates of the fixed point on de Saxce's shift (0, the default of
//   friction_contact.auto_shift_updates: not tried); --max-iterations N: the step's solve options'
//   max_iterations (for auto, the budget of its whole chain; default 0, the methods' own);
//   --nsgs-sweeps N: friction_contact.auto_nsgs_sweeps (auto's first sweeps, default 1000);
//   --dense-pivoting N: MoreauJeanOptions::dense_pivoting_max_size (the largest LCP a step pivots on
//   densely, default 1000 unknowns; friction_contact.lcp_max_size raised to it too);
//   --perp-only skips Box2D; --box2d-iterations V/P adds a Box2D row at V velocity and P position
//   iterations without sleeping (repeatable: to find the iterations at which Box2D takes perp's time a step,
//   and compare their penetration and drift at equal time);
//   --verbose prints each perp step's solve on stderr)
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
#include <string>
#include <utility>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/contact/moreau_jean.hpp"

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

struct Figures {
  double ms_per_step = 0;
  double median_ms = 0;  // the median step: the cost of a step without the few hard ones
  std::vector<double> step_ms;
  double max_penetration = 0;
  double mean_penetration = 0;  // mean over steps of the step's largest penetration
  double top_drift = 0;
  bool stands = true;
  double kinetic = 0;
  int unsolved = 0;
  double worst_criterion = 0;
  double solve_share = 0;  // perp: the fraction of the step spent in solve(FrictionContact)
  bool perp = false;
};

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

void finish(Figures& figures, const Scene& scene, const World& end, int steps, double total_ms) {
  figures.ms_per_step = total_ms / steps;
  std::vector<double> sorted = figures.step_ms;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  figures.median_ms = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  figures.mean_penetration /= steps;
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

/// `base`: the step options the flags chose (method, model, sleeping, solver limits); `split`: the
/// split-impulse drift correction (β = 0.2, slop 5 mm, Box2D's figures) on.
Figures run_perp(const Scene& scene, int steps, const perp::contact::MoreauJeanOptions& base, bool split, bool verbose) {
  World world = scene.world;
  perp::contact::MoreauJeanOptions options = base;
  if (split) {
    options.baumgarte = 0.2;
    options.slop = 0.005;
    options.split_impulse = true;
  }
  options.timestep = kTimestep;
  options.gravity = {0, -kGravity};
  Figures figures;
  figures.perp = true;
  double total_ms = 0;
  for (int k = 0; k < steps; ++k) {
    const auto start = std::chrono::steady_clock::now();
    const perp::contact::StepReport report = perp::contact::moreau_jean_step(world, options);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    total_ms += ms;
    figures.step_ms.push_back(ms);
    if (report.status != perp::Status::Solved) ++figures.unsolved;
    if (verbose) {
      const std::string answered = report.ran_solve() ? perp::to_string(report.result.method) : "";
      std::fprintf(stderr, "step %d: %zu contacts, %s, %s, %d iterations, residual %.2e, solve %.2f ms, unknowns %ld%s%s\n", k,
                   report.contacts.size(), perp::to_string(report.status).c_str(), answered.c_str(),
                   report.result.iterations, report.result.residual, report.solve_ms, static_cast<long>(report.lcp_size),
                   report.fallback.empty() ? "" : ", fallback from ", report.fallback.c_str());
      if (report.status != perp::Status::Solved) std::fprintf(stderr, "  %s\n", report.result.message.c_str());
    }
    figures.solve_share += report.solve_ms;
    figures.worst_criterion = std::max({figures.worst_criterion, report.criteria.signorini, report.criteria.coulomb,
                                        report.criteria.complementarity, report.criteria.dissipation});
    const double deepest = penetration(world);
    figures.max_penetration = std::max(figures.max_penetration, deepest);
    figures.mean_penetration += deepest;
  }
  finish(figures, scene, world, steps, total_ms);
  figures.solve_share /= total_ms;
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

void print(const Scene& scene, const std::string& engine, const Figures& f) {
  char perp_columns[96] = "-";
  if (f.perp) {
    std::snprintf(perp_columns, sizeof perp_columns, "%d | %.1e | %.0f %%", f.unsolved, f.worst_criterion,
                  100 * f.solve_share);
  }
  std::printf("| %s | %s | %.3f | %.3f | %.2e | %.2e | %.2e | %s | %.2e | %s |\n", scene.name.c_str(), engine.c_str(),
              f.ms_per_step, f.median_ms, f.max_penetration, f.mean_penetration, f.top_drift,
              !scene.structure ? "n/a" : f.stands ? "yes" : "no", f.kinetic,
              f.perp ? perp_columns : "- | - | -");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  std::vector<std::string> wanted;
  perp::contact::MoreauJeanOptions base;  // the step options the flags choose
  base.friction = kFriction;
  bool box2d = true;
  bool verbose = false;
  std::vector<std::pair<int, int>> extra_iterations;
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
    } else if (arg == "--anitescu-potra") {
      base.friction_model = perp::contact::FrictionModel::AnitescuPotra;
    } else if (arg == "--shift-updates" && i + 1 < argc) {
      base.solve.friction_contact.auto_shift_updates = std::atoi(argv[++i]);
    } else if (arg == "--max-iterations" && i + 1 < argc) {
      base.solve.max_iterations = std::atoi(argv[++i]);
    } else if (arg == "--nsgs-sweeps" && i + 1 < argc) {
      base.solve.friction_contact.auto_nsgs_sweeps = std::atoi(argv[++i]);
    } else if (arg == "--dense-pivoting" && i + 1 < argc) {
      base.dense_pivoting_max_size = std::atol(argv[++i]);
      base.solve.friction_contact.lcp_max_size = std::max(base.solve.friction_contact.lcp_max_size,
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
    } else if (arg == "--perp-only") {
      box2d = false;
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (arg == "--scene" && i + 1 < argc) {
      wanted.emplace_back(argv[++i]);
    } else {
      std::fprintf(
          stderr,
          "usage: compare_box2d [--seconds S] [--scene NAME]... [--friction MU] [--method M] [--anitescu-potra] "
          "[--sleeping] [--shift-updates N] [--max-iterations N] [--nsgs-sweeps N] [--dense-pivoting N] [--perp-only] "
          "[--box2d-iterations V/P]... [--verbose]\n");
      return 2;
    }
  }
  const int steps = std::max(1, static_cast<int>(std::lround(seconds / kTimestep)));
  std::vector<std::function<Scene()>> scenes{[] { return stack(10); }, [] { return pyramid(5); },
                                             [] { return pyramid(20); }, [] { return disks(100); },
                                             [] { return disks(1000); }, [] { return slope(); }};
  std::printf("h = 1/60, mu = %g, %d steps (%.3g s)\n\n", base.friction, steps, seconds);
  std::printf("| scene | engine | ms/step | median ms/step | max penetration (m) | mean penetration (m) | top drift (m) | stands | "
              "final KE (J) | perp unsolved steps | perp worst criterion | perp time in the solve |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  // Only when named: 10 000 disks (minutes a run).
  if (std::find(wanted.begin(), wanted.end(), "disks10000") != wanted.end()) {
    scenes.emplace_back([] { return disks(10000); });
  }
  for (const auto& make : scenes) {
    const Scene scene = make();
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), scene.name) == wanted.end()) continue;
    if (box2d) {
      print(scene, "Box2D 8/3", run_box2d(scene, steps, base.friction, 8, 3));
      print(scene, "Box2D 30/10", run_box2d(scene, steps, base.friction, 30, 10));
      print(scene, "Box2D 8/3, no sleeping", run_box2d(scene, steps, base.friction, 8, 3, false));
      for (const auto& [velocity, position] : extra_iterations) {
        print(scene, "Box2D " + std::to_string(velocity) + "/" + std::to_string(position) + ", no sleeping",
              run_box2d(scene, steps, base.friction, velocity, position, false));
      }
    }
    const bool relaxed = base.friction_model == perp::contact::FrictionModel::AnitescuPotra;
    const std::string name = std::string(relaxed ? "Anitescu-Potra, " : "Coulomb, ") + perp::to_string(base.method) +
                             (base.sleeping ? ", sleeping" : "");
    print(scene, "perp (" + name + ")", run_perp(scene, steps, base, false, verbose));
    print(scene, "perp (" + name + ", split impulse)",
          run_perp(scene, steps, base, true, verbose));
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("\npeak resident memory: %ld MiB\n", usage.ru_maxrss / 1024);
  return 0;
}
