#include "perp/contact/step_sensitivity.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_step_sensitivity_test {
namespace {

using test::box;
using test::disk;

// A perturbation that a step can also be given for real, so that finite differences can check
// the derivative: positions, velocities, masses (the diagonal of M: m, m, I), the scene's μ and e
// (every contact here uses them) and gravity (a force m dg on every free body).
struct Direction {
  Eigen::VectorXd q, v, mass, force;  // force: each body's applied (fx, fy, torque)
  double friction = 0, restitution = 0;
  Eigen::Vector2d gravity = Eigen::Vector2d::Zero();
};

void perturb(World& world, MoreauJeanOptions& options, const Direction& d, double t) {
  for (std::size_t i = 0; i < world.bodies.size(); ++i) {
    Body& body = world.bodies[i];
    const auto k = 3 * static_cast<Eigen::Index>(i);
    if (d.q.size() > 0) {
      body.position += t * d.q.segment<2>(k);
      body.angle += t * d.q[k + 2];
    }
    if (d.v.size() > 0) {
      body.velocity += t * d.v.segment<2>(k);
      body.angular_velocity += t * d.v[k + 2];
    }
    if (d.force.size() > 0) {
      body.force += t * d.force.segment<2>(k);
      body.torque += t * d.force[k + 2];
    }
    if (d.mass.size() > 0) {
      const double inertia = body.moment_of_inertia();
      body.mass += t * d.mass[k];
      body.inertia = inertia + t * d.mass[k + 2];
    }
  }
  options.friction += t * d.friction;
  options.restitution += t * d.restitution;
  options.gravity += t * d.gravity;
}

StepState step_state(const World& world) {
  const Eigen::Index n = world.dofs();
  StepState s{Eigen::VectorXd(n), generalized_velocity(world.bodies)};
  for (std::size_t i = 0; i < world.bodies.size(); ++i) {
    const auto k = 3 * static_cast<Eigen::Index>(i);
    s.q.segment<2>(k) = world.bodies[i].position;
    s.q[k + 2] = world.bodies[i].angle;
  }
  return s;
}

// The central difference of one step along d, with the step's active set checked unchanged.
StepState difference(const World& world, const MoreauJeanOptions& options, const Direction& d, double delta,
                     std::size_t contacts) {
  StepState out;
  StepState side[2];
  for (int s = 0; s < 2; ++s) {
    World w = world;
    MoreauJeanOptions o = options;
    perturb(w, o, d, s == 0 ? delta : -delta);
    const StepReport report = moreau_jean_step(w, o);
    EXPECT_EQ(report.status, Status::Solved) << report.result.message;
    EXPECT_EQ(report.contacts.size(), contacts);
    side[s] = step_state(w);
  }
  out.q = (side[0].q - side[1].q) / (2 * delta);
  out.v = (side[0].v - side[1].v) / (2 * delta);
  return out;
}

StepTangent tangent_of(const World& world, const StepSensitivity& s, const Direction& d) {
  StepTangent t;
  t.q = d.q;
  t.v = d.v;
  t.mass = d.mass;
  t.friction = Eigen::VectorXd::Constant(s.contacts(), d.friction);
  t.restitution = Eigen::VectorXd::Constant(s.contacts(), d.restitution);
  t.force = Eigen::VectorXd::Zero(s.dofs());
  for (std::size_t i = 0; i < world.bodies.size(); ++i) {
    if (!world.bodies[i].fixed) t.force.segment<2>(3 * static_cast<Eigen::Index>(i)) = world.bodies[i].mass * d.gravity;
  }
  if (d.force.size() > 0) t.force += d.force;
  return t;
}

double relative_gap(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

MoreauJeanOptions tight(double friction, double restitution = 0) {
  MoreauJeanOptions options;
  options.timestep = 1e-2;
  options.friction = friction;
  options.restitution = restitution;
  options.solve.tolerance = 1e-13;
  return options;
}

Direction random_direction(const World& world, unsigned seed, bool geometry = true) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0, 1);
  const Eigen::Index n = world.dofs();
  Direction d;
  d.q = Eigen::VectorXd::NullaryExpr(n, [&] { return geometry ? normal(gen) : 0.0; });
  d.v = Eigen::VectorXd::NullaryExpr(n, [&] { return normal(gen); });
  d.mass = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n / 3; ++i) {
    d.mass[3 * i] = d.mass[3 * i + 1] = 0.1 * normal(gen);
    d.mass[3 * i + 2] = 0.01 * normal(gen);
  }
  d.friction = 0.1 * normal(gen);
  d.restitution = 0.1 * normal(gen);
  d.gravity = Eigen::Vector2d(normal(gen), normal(gen));
  d.force = Eigen::VectorXd::NullaryExpr(n, [&] { return normal(gen); });
  return d;
}

// Checks jvp against central differences, and vjp against jvp, along a few random directions.
void check_step(const World& world, const MoreauJeanOptions& options, std::size_t expected_contacts,
                bool expect_exact_geometry, const SensitivityOptions& sensitivity = {}) {
  World stepped = world;
  const StepReport report = moreau_jean_step(stepped, options);
  ASSERT_EQ(report.status, Status::Solved);
  ASSERT_EQ(report.contacts.size(), expected_contacts);
  const StepSensitivity s(world, options, report, sensitivity);
  EXPECT_EQ(s.geometry_exact(), expect_exact_geometry);
  for (unsigned seed = 1; seed <= 3; ++seed) {
    Direction d = random_direction(world, seed);
    if (options.restitution == 0) d.restitution = 0;  // e >= 0: no difference below 0
    const StepState exact = s.jvp(tangent_of(world, s, d));
    const StepState fd = difference(world, options, d, 1e-6, expected_contacts);
    EXPECT_LT(relative_gap(exact.q, fd.q), 1e-6) << "seed " << seed << "\n"
                                                 << exact.q.transpose() << "\n"
                                                 << fd.q.transpose();
    EXPECT_LT(relative_gap(exact.v, fd.v), 1e-6) << "seed " << seed << "\n"
                                                 << exact.v.transpose() << "\n"
                                                 << fd.v.transpose();

    // ⟨bar, J d⟩ = ⟨Jᵀ bar, d⟩, over every field.
    std::mt19937 gen(100 + seed);
    std::normal_distribution<double> normal(0, 1);
    const StepState bar{Eigen::VectorXd::NullaryExpr(s.dofs(), [&] { return normal(gen); }),
                        Eigen::VectorXd::NullaryExpr(s.dofs(), [&] { return normal(gen); })};
    const StepTangent t = tangent_of(world, s, d);
    const StepTangent g = s.vjp(bar);
    const double left = bar.q.dot(exact.q) + bar.v.dot(exact.v);
    const double right = g.q.dot(t.q) + g.v.dot(t.v) + g.force.dot(t.force) + g.mass.dot(t.mass) +
                         g.friction.dot(t.friction) + g.restitution.dot(t.restitution);
    EXPECT_NEAR(left, right, 1e-10 * std::max(1.0, std::abs(left))) << "seed " << seed;
  }
}

TEST(StepSensitivity, DiskSlidingOnTheGround) {
  World world;
  Body ball = disk("ball", 0.2, 1.5, {0.0, 0.2});
  ball.velocity = {2.0, -0.1};
  ball.angular_velocity = 1.0;
  ball.force = {0.7, -2.0};  // an applied push: the mass derivative then has an h dM⁻¹ f term
  ball.torque = 0.3;
  world.bodies.push_back(ball);
  world.ground = Ground{0.0};
  check_step(world, tight(0.3), 1, true);
}

TEST(StepSensitivity, BallBouncesWithRestitution) {
  World world;
  Body ball = disk("ball", 0.1, 1.0, {0.0, 0.105});
  ball.velocity = {0.3, -2.0};
  ball.angular_velocity = 0.5;
  world.bodies.push_back(ball);
  world.ground = Ground{0.0};
  check_step(world, tight(0.2, 0.6), 1, true);
}

TEST(StepSensitivity, TwoDisksCollideOnASlope) {
  World world;
  Plane slope;
  slope.point = {0, 0};
  slope.normal = {-0.1, 1.0};
  const Eigen::Vector2d n = slope.unit_normal();
  const Eigen::Vector2d along(n.y(), -n.x());
  // Both disks on the slope, 0.5 mm apart, closing at 2.5 m/s.
  Body left = disk("left", 0.2, 1.0, -0.2 * along + 0.2 * n);
  left.velocity = {1.5, 0.0};
  Body right = disk("right", 0.2, 2.0, left.position + 0.4005 * along);
  right.velocity = {-1.0, -0.2};
  right.angular_velocity = 2.0;
  world.bodies = {left, right};
  world.planes.push_back(slope);
  check_step(world, tight(0.4), 3, true);
}

TEST(StepSensitivity, TiltedBoxLandsOnACorner) {
  World world;
  const double angle = 0.3;
  // Lowest corner of a 1 × 0.5 box rotated by 0.3 rad, 1 mm above the ground.
  const double drop = 0.5 * std::cos(angle) * 0.5 + 0.5 * std::sin(angle) * 1.0;
  Body b = box("box", 1.0, 0.5, 2.0, {0.0, drop + 1e-3}, angle);
  b.velocity = {1.0, -1.0};
  b.angular_velocity = -0.5;
  world.bodies.push_back(b);
  world.ground = Ground{0.0};
  check_step(world, tight(0.5), 1, true);
}

TEST(StepSensitivity, DiskOnABoxUsesDifferencedGeometry) {
  World world;
  Body base = box("base", 2.0, 0.4, 5.0, {0.0, 0.2});
  base.angle = 0.05;
  base.velocity = {0.2, 0.0};
  Body ball = disk("ball", 0.1, 0.5, {0.3, 0.4 + 0.1 + 0.3 * std::sin(0.05) - 1e-4});
  ball.velocity = {-0.5, -1.0};
  world.bodies = {base, ball};
  check_step(world, tight(0.3), 1, false);
}

TEST(StepSensitivity, SpeculativeContactCatchingAFallingDisk) {
  // The column of moreau_jean_test.cpp's SpeculativeContactsCatchTheDiskBehindOneThatLanded, moving
  // sideways and spinning: the lower disk lands (the plain rule), the upper one, 5 cm behind it with
  // no relative velocity, is caught by the speculative contact (u_N⁺ >= −(g + h u_N⁻/2)/(h/2), which
  // binds). Its bias moves with the gap and the start velocities: checked by central differences.
  World world;
  world.ground = Ground{0};
  Body low = disk("low", 0.25, 1, {0, 0.26});
  Body high = disk("high", 0.25, 1.5, {0.01, 0.81});
  low.velocity = {0.3, -20};
  high.velocity = {0.2, -20};
  high.angular_velocity = 1.0;
  world.bodies = {low, high};
  MoreauJeanOptions options = tight(0.3);
  options.speculative = true;
  check_step(world, options, 2, true);
  // And the pair's bias binds: the pair ends at a gap of 0 along the step's normal (to second order
  // in the sideways motion, 4e-7 m), where the plain step leaves them overlapping by about
  // 0.81 − (h/2)(40 + g h) − (0.26 − 10 h) − 0.5 = −0.05 m (h = 0.01).
  World stepped = world;
  const StepReport report = moreau_jean_step(stepped, options);
  const auto pair_gap = [](const World& w) { return (w.bodies[1].position - w.bodies[0].position).norm() - 0.5; };
  EXPECT_NEAR(pair_gap(stepped), 0.0, 1e-6);
  EXPECT_GT(report.normal_impulse[1], 0.0);
  MoreauJeanOptions plain = options;
  plain.speculative = false;
  World plain_stepped = world;
  (void)moreau_jean_step(plain_stepped, plain);
  EXPECT_NEAR(pair_gap(plain_stepped), 0.81 - 0.005 * (40 + 9.81 * 0.01) - (0.26 - 0.1) - 0.5, 1e-3);
}

TEST(StepSensitivity, RedundantStickingContactsNeedTheMinimumNorm) {
  // A box at rest on a 10° slope below its friction angle sticks on two corners: W is singular
  // (two equal tangent rows), the split of the friction between the corners is not unique, the
  // velocities are.
  World world;
  const double slope_angle = 10 * M_PI / 180;
  Plane slope;
  slope.normal = {-std::sin(slope_angle), std::cos(slope_angle)};
  world.planes.push_back(slope);
  world.bodies.push_back(box("box", 1.0, 0.5, 1.0, 0.25 * slope.unit_normal(), slope_angle));
  const MoreauJeanOptions options = tight(0.5);
  World stepped = world;
  const StepReport report = moreau_jean_step(stepped, options);
  ASSERT_EQ(report.status, Status::Solved);
  ASSERT_EQ(report.contacts.size(), 2u);
  EXPECT_LT(stepped.bodies[0].velocity.norm(), 1e-12);  // it sticks
  ASSERT_GT(std::abs(report.tangent_impulse[0]), 0.0);
  ASSERT_GT(std::abs(report.tangent_impulse[1]), 0.0);
  Direction d;
  d.v = Eigen::Vector3d(1.0, 0.3, 0.2);
  d.mass = Eigen::Vector3d(0.2, 0.2, 0.05);
  d.friction = 0.1;
  const StepState fd = difference(world, options, d, 1e-7, 2);
  // The solver leaves one corner's friction on the cone's edge with no slip (degenerate). Taken at
  // its bound (the default) the reduced system is nonsingular; taken as free, all four impulses
  // are unknowns of a rank-3 system.
  const StepSensitivity bound(world, options, report);
  ASSERT_TRUE(bound.differentiable()) << bound.rule();
  const StepState at_bound = bound.jvp(tangent_of(world, bound, d));
  EXPECT_LT(relative_gap(at_bound.v, fd.v), 1e-6) << at_bound.v.transpose() << "\n" << fd.v.transpose();

  SensitivityOptions free_rule;
  free_rule.degenerate = DegenerateRule::Free;
  const StepSensitivity plain(world, options, report, free_rule);
  EXPECT_FALSE(plain.differentiable()) << plain.rule();
  EXPECT_THROW((void)plain.jvp(tangent_of(world, plain, d)), InvalidProblem);

  SensitivityOptions pinv = free_rule;
  pinv.minimum_norm = true;
  const StepSensitivity s(world, options, report, pinv);
  EXPECT_NE(s.rule().find("minimum-norm solution of the reduced system is used (rank 3 of 4)"), std::string::npos)
      << s.rule();
  const StepState exact = s.jvp(tangent_of(world, s, d));
  EXPECT_LT(relative_gap(exact.v, fd.v), 1e-6) << exact.v.transpose() << "\n" << fd.v.transpose();
  EXPECT_LT(relative_gap(exact.q, fd.q), 1e-6);
  // The adjoint of the minimum-norm element is its transpose.
  const StepState bar{Eigen::Vector3d(0.3, -1.0, 2.0), Eigen::Vector3d(1.0, 0.5, -0.7)};
  const StepTangent t = tangent_of(world, s, d);
  const StepTangent g = s.vjp(bar);
  EXPECT_NEAR(bar.q.dot(exact.q) + bar.v.dot(exact.v),
              g.v.dot(t.v) + g.mass.dot(t.mass) + g.friction.dot(t.friction) + g.force.dot(t.force), 1e-12);
}

TEST(StepSensitivity, ABoxFlatAtRestIsSingularWhenItsPivotIsExactlyZero) {
  // Regression (issue 39, the pushed box of docs/trajopt.md): a box resting flat on two corners
  // with no push sticks with no friction. Its W (4×4, rank 3) factors with an exact zero pivot,
  // where the LU's condition estimate read 0.19: the step was called nonsingular and the adjoint's
  // transposed solve gave NaN. It is singular; with the minimum norm both corners hold, so the new
  // velocity is 0 whatever v and the push (by hand): v̄ reaches v only through q = q + h (v + v⁺)/2.
  World world;
  world.bodies.push_back(box("box", 0.4, 0.2, 1.0, {0.0, 0.1 - 1e-4}));
  world.ground = Ground{0.0};
  MoreauJeanOptions options = tight(0.3);
  options.timestep = 0.02;
  options.solve.tolerance = 1e-14;
  options.baumgarte = 0;
  World stepped = world;
  const StepReport report = moreau_jean_step(stepped, options);
  ASSERT_EQ(report.status, Status::Solved);
  ASSERT_EQ(report.contacts.size(), 2u);
  const StepSensitivity plain(world, options, report);
  EXPECT_FALSE(plain.differentiable()) << plain.rule();
  SensitivityOptions pinv;
  pinv.minimum_norm = true;
  const StepSensitivity s(world, options, report, pinv);
  EXPECT_NE(s.rule().find("rank 3 of 4"), std::string::npos) << s.rule();
  const StepState bar{Eigen::Vector3d(0.3, -1.0, 2.0), Eigen::Vector3d(1.0, 0.5, -0.7)};
  const StepTangent g = s.vjp(bar);
  ASSERT_TRUE(g.q.allFinite() && g.v.allFinite() && g.force.allFinite());
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(g.v[j], options.timestep / 2 * bar.q[j], 1e-12) << j;
    EXPECT_NEAR(g.force[j], 0.0, 1e-12) << j;
    // The adjoint is the transpose of the derivative.
    StepTangent t;
    t.v = Eigen::Vector3d::Unit(j);
    const StepState d = s.jvp(t);
    EXPECT_NEAR(bar.q.dot(d.q) + bar.v.dot(d.v), g.v[j], 1e-12) << j;
  }
}

TEST(StepSensitivity, NoContactIsTheFreeFlightMap) {
  World world;
  world.bodies.push_back(disk("ball", 0.1, 2.0, {0.0, 5.0}));
  const MoreauJeanOptions options = tight(0.3);
  World stepped = world;
  const StepReport report = moreau_jean_step(stepped, options);
  const StepSensitivity s(world, options, report);
  EXPECT_EQ(s.contacts(), 0);
  StepTangent t;
  t.v = Eigen::Vector3d(1, 2, 3);
  t.force = Eigen::Vector3d(4, 0, 0);
  const StepState out = s.jvp(t);
  // v⁺ = v + h g + h f / m, q⁺ = q + h (v + v⁺)/2 (θ = ½).
  EXPECT_NEAR(out.v[0], 1 + 1e-2 * 4 / 2.0, 1e-15);
  EXPECT_NEAR(out.v[2], 3, 1e-15);
  EXPECT_NEAR(out.q[0], 1e-2 * (1 + out.v[0]) / 2, 1e-15);
}

TEST(StepSensitivity, RefusesWhatItDoesNotDifferentiate) {
  World world;
  world.bodies.push_back(disk("ball", 0.1, 1.0, {0.0, 0.1}));
  world.ground = Ground{0.0};
  MoreauJeanOptions options = tight(0.3);
  World stepped = world;
  const StepReport report = moreau_jean_step(stepped, options);
  const auto message = [&](const MoreauJeanOptions& o) {
    try {
      const StepSensitivity s(world, o, report);
    } catch (const InvalidProblem& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  MoreauJeanOptions projected = options;
  projected.projection = true;
  EXPECT_NE(message(projected).find("projection"), std::string::npos);
  MoreauJeanOptions lcp = options;
  lcp.friction_model = FrictionModel::AnitescuPotra;
  EXPECT_NE(message(lcp).find("Coulomb"), std::string::npos);
  // The drift correction (on by default) is accepted where no contact overlaps past the slop: the
  // resting ball's step is the plain one there.
  ASSERT_GT(options.baumgarte, 0);
  EXPECT_EQ(message(options), "no error");
  // A ball sunk 1 cm (past the 5 mm slop) is refused, naming the overlap.
  World sunk = world;
  sunk.bodies[0].position.y() = 0.09;
  World sunk_stepped = sunk;
  const StepReport sunk_report = moreau_jean_step(sunk_stepped, options);
  try {
    const StepSensitivity refused(sunk, options, sunk_report);
    ADD_FAILURE() << "a step with an overlap past the slop was differentiated";
  } catch (const InvalidProblem& e) {
    EXPECT_NE(std::string(e.what()).find("Baumgarte"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("overlaps by 0.01"), std::string::npos) << e.what();
  }
  MoreauJeanOptions plain = options;
  plain.baumgarte = 0;
  World plain_stepped = sunk;
  const StepReport plain_report = moreau_jean_step(plain_stepped, plain);
  EXPECT_NO_THROW(StepSensitivity(sunk, plain, plain_report));

  const StepSensitivity s(world, options, report);
  StepTangent bad;
  bad.v = Eigen::VectorXd::Zero(4);
  try {
    (void)s.jvp(bad);
    ADD_FAILURE() << "a 4-entry v was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_NE(std::string(e.what()).find("v has 4 entries, expected 3"), std::string::npos) << e.what();
  }
  StepReport unsolved = report;
  unsolved.status = Status::MaxIterations;
  EXPECT_THROW(StepSensitivity(world, options, unsolved), InvalidProblem);
  World other;
  other.bodies.push_back(disk("ball", 0.1, 1.0, {0.0, 0.1}));  // no ground: the report's contact is foreign
  EXPECT_THROW(StepSensitivity(other, options, report), InvalidProblem);
}

// The switches of a run, one a line, for failure messages.
std::string describe(const std::vector<ContactSwitch>& switches) {
  std::string out;
  for (const ContactSwitch& s : switches) {
    out += "step " + std::to_string(s.step) + " contact " + std::to_string(s.contact) + " (" +
           std::to_string(s.body_a) + ", " + std::to_string(s.body_b) + "): " + to_string(s.kind) + ", " +
           to_string(s.piece) + "\n";
  }
  return out;
}

// A rollout's gradient against differences of the whole rollout: a disk thrown onto the ground
// bounces and slides (contacts come and go between steps, each step's activation held).
TEST(StepSensitivity, RolloutGradientMatchesDifferences) {
  World world;
  Body ball = disk("ball", 0.1, 1.0, {0.0, 0.3});
  ball.velocity = {1.0, -1.0};
  ball.angular_velocity = -2.0;
  world.bodies.push_back(ball);
  world.ground = Ground{0.0};
  // The plain scheme: an impact of this rollout overlaps past the slop, where the default drift
  // correction has no derivative.
  MoreauJeanOptions options = tight(0.3, 0.3);
  options.baumgarte = 0;
  const int steps = 60;
  const Rollout run = rollout(world, options, steps);
  std::size_t contact_steps = 0;
  for (const StepReport& r : run.reports) contact_steps += r.contacts.empty() ? 0 : 1;
  ASSERT_GT(contact_steps, 5u);
  // L = x + 2 y + 0.1 ω of the final state.
  std::vector<StepState> bars(steps);
  bars.back().q = Eigen::Vector3d(1, 2, 0);
  bars.back().v = Eigen::Vector3d(0, 0, 0.1);
  const RolloutGradient g = rollout_gradient(run, options, bars);
  EXPECT_TRUE(g.geometry_exact);
  EXPECT_TRUE(g.switches.empty()) << describe(g.switches);  // each landing overlaps: away from switches
  const auto loss = [&](const World& w0, const MoreauJeanOptions& o) {
    const Rollout r = rollout(w0, o, steps);
    const Body& b = r.states.back().bodies[0];
    return b.position.x() + 2 * b.position.y() + 0.1 * b.angular_velocity;
  };
  const double delta = 1e-6;
  const auto check = [&](const Direction& d, double predicted, const char* what) {
    World plus = world, minus = world;
    MoreauJeanOptions op = options, om = options;
    perturb(plus, op, d, delta);
    perturb(minus, om, d, -delta);
    const double fd = (loss(plus, op) - loss(minus, om)) / (2 * delta);
    EXPECT_NEAR(predicted, fd, 1e-6 * std::max(1.0, std::abs(fd))) << what;
  };
  Direction dv;
  dv.v = Eigen::Vector3d(0.3, -0.2, 1.0);
  check(dv, g.v.dot(dv.v), "v");
  Direction dq;
  dq.q = Eigen::Vector3d(0.5, 0.01, 0.7);
  check(dq, g.q.dot(dq.q), "q");
  Direction dmu;
  dmu.friction = 1;
  check(dmu, g.friction, "friction");
  Direction de;
  de.restitution = 1;
  check(de, g.restitution, "restitution");
  Direction dm;
  dm.mass = Eigen::Vector3d(1, 1, 0.01);
  check(dm, g.mass.dot(dm.mass), "mass");
}

// The final state of a run as one vector (q, v), and a run's loss L = ⟨w, final state⟩.
Eigen::VectorXd final_state(const Rollout& run) {
  const StepState s = step_state(run.states.back());
  Eigen::VectorXd out(s.q.size() + s.v.size());
  out << s.q, s.v;
  return out;
}

// Per-step applied forces: a box pushed and turned on the ground while two disks fall onto it. The
// gradient on each step's forces, the initial state and μ against central differences of the run.
TEST(StepSensitivity, PerStepForcesGradientMatchesDifferences) {
  World world;
  // Sunk 0.1 mm: its contacts are active with room to spare (a box resting at gap 0 sits at the
  // activation switch, where a difference of its height or vertical speed turns them off).
  Body b = box("box", 1.0, 0.4, 2.0, {0.0, 0.2 - 1e-4});
  b.velocity = {0.5, 0.0};
  world.bodies.push_back(b);
  world.bodies.push_back(disk("left", 0.1, 0.3, {-0.2, 0.55}));
  world.bodies.push_back(disk("right", 0.12, 0.4, {0.25, 0.75}));
  world.bodies[2].velocity = {-0.3, -0.5};
  world.ground = Ground{0.0};
  MoreauJeanOptions options = tight(0.4);
  options.baumgarte = 0;
  const int steps = 40;
  Eigen::MatrixXd forces = Eigen::MatrixXd::Zero(steps, world.dofs());
  for (int k = 0; k < steps; ++k) {
    forces(k, 0) = 13.0 + 2.0 * std::sin(0.3 * k);  // the box's push, past μ (m + disks) g: it slides
    forces(k, 2) = 0.2 * std::cos(0.2 * k);         // and a torque
    forces(k, 3) = 0.1;                             // a breeze on the left disk
  }
  const Rollout run = rollout(world, options, steps, forces);
  std::size_t contacts = 0;
  for (const StepReport& r : run.reports) contacts += r.contacts.size();
  ASSERT_GT(contacts, 60u);
  // The forces are those of each step, held in the state before it.
  EXPECT_EQ(run.states[7].bodies[0].force.x(), forces(7, 0));
  EXPECT_EQ(run.states[7].bodies[0].torque, forces(7, 2));
  std::mt19937 gen(7);
  std::normal_distribution<double> normal(0, 1);
  const Eigen::VectorXd w = Eigen::VectorXd::NullaryExpr(2 * world.dofs(), [&] { return normal(gen); });
  std::vector<StepState> bars(steps);
  bars.back().q = w.head(world.dofs());
  bars.back().v = w.tail(world.dofs());
  const RolloutSensitivity sensitivity(run, options);
  EXPECT_TRUE(sensitivity.switches().empty()) << describe(sensitivity.switches());
  const RolloutGradient g = sensitivity.vjp(bars);
  ASSERT_EQ(g.forces.rows(), steps);
  ASSERT_EQ(g.forces.cols(), world.dofs());
  EXPECT_LT((g.forces.colwise().sum().transpose() - g.force).norm(), 1e-12 * g.force.norm());
  // The same gradient as the one-shot function.
  EXPECT_EQ(rollout_gradient(run, options, bars).friction, g.friction);
  const double delta = 1e-6;
  const auto loss = [&](const World& w0, const MoreauJeanOptions& o, const Eigen::MatrixXd& f) {
    return w.dot(final_state(rollout(w0, o, steps, f)));
  };
  const auto fd_forces = [&](const Eigen::MatrixXd& direction) {
    return (loss(world, options, forces + delta * direction) - loss(world, options, forces - delta * direction)) /
           (2 * delta);
  };
  for (const auto& [k, j] : {std::pair{0, 0}, std::pair{12, 0}, std::pair{20, 2}, std::pair{30, 4}, std::pair{39, 7}}) {
    Eigen::MatrixXd e = Eigen::MatrixXd::Zero(steps, world.dofs());
    e(k, j) = 1;
    const double fd = fd_forces(e);
    EXPECT_NEAR(g.forces(k, j), fd, 1e-6 * std::max(1.0, std::abs(fd))) << "step " << k << ", column " << j;
  }
  const Eigen::MatrixXd random = Eigen::MatrixXd::NullaryExpr(steps, world.dofs(), [&] { return normal(gen); });
  const double fd = fd_forces(random);
  EXPECT_NEAR(g.forces.cwiseProduct(random).sum(), fd, 1e-6 * std::max(1.0, std::abs(fd)));
  const auto fd_state = [&](const Direction& d) {
    World plus = world, minus = world;
    MoreauJeanOptions op = options, om = options;
    perturb(plus, op, d, delta);
    perturb(minus, om, d, -delta);
    return (loss(plus, op, forces) - loss(minus, om, forces)) / (2 * delta);
  };
  Direction dv;
  dv.v = Eigen::VectorXd::NullaryExpr(world.dofs(), [&] { return normal(gen); });
  EXPECT_NEAR(g.v.dot(dv.v), fd_state(dv), 1e-6 * std::max(1.0, std::abs(g.v.dot(dv.v))));
  Direction dmu;
  dmu.friction = 1;
  EXPECT_NEAR(g.friction, fd_state(dmu), 1e-6 * std::max(1.0, std::abs(g.friction)));
}

TEST(StepSensitivity, RolloutRefusesBadForces) {
  const World world = test::chapter_block();
  const MoreauJeanOptions options = tight(0.3);
  const auto message = [&](const Eigen::MatrixXd& forces) {
    try {
      (void)rollout(world, options, 4, forces);
    } catch (const InvalidProblem& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(Eigen::MatrixXd::Zero(4, 4)).find("forces has 4 × 4 entries, expected steps × 3·bodies = 4 × 3"),
            std::string::npos)
      << message(Eigen::MatrixXd::Zero(4, 4));
  Eigen::MatrixXd nan = Eigen::MatrixXd::Zero(4, 3);
  nan(2, 2) = std::nan("");
  EXPECT_NE(message(nan).find("forces[2, 2] (step 2, body 0's torque) is NaN"), std::string::npos) << message(nan);
  EXPECT_EQ(message(Eigen::MatrixXd()), "no error");
  // A rollout with speculative contacts steps, but its gradient is refused: the switch report
  // follows the plain activation rule only.
  MoreauJeanOptions speculative = options;
  speculative.speculative = true;
  const Rollout run = rollout(world, speculative, 4);
  try {
    const RolloutSensitivity refused(run, speculative);
    ADD_FAILURE() << "a rollout with speculative contacts was differentiated";
  } catch (const InvalidProblem& e) {
    EXPECT_NE(std::string(e.what()).find("rollout_gradient: speculative contacts"), std::string::npos) << e.what();
  }
}

// A box at rest pushed at exactly μ m g sits on the stick/slip boundary at every step. The default
// element (DegenerateRule::Bound) is the slip piece's derivative: the one-sided difference with a
// larger push; DegenerateRule::Free (with the minimum norm for its two sticking corners) is the
// stick piece's: a smaller push, which does not move the box.
TEST(StepSensitivity, PushAtTheFrictionLimitIsAStickSlipSwitch) {
  World world = test::chapter_block();
  const double mu = 0.5;
  MoreauJeanOptions options = tight(mu);
  options.baumgarte = 0;
  const int steps = 20;
  const double limit = mu * world.bodies[0].mass * -options.gravity.y();
  Eigen::MatrixXd push = Eigen::MatrixXd::Zero(steps, 3);
  push.col(0).setConstant(limit);
  const Rollout run = rollout(world, options, steps, push);
  EXPECT_LT(std::abs(run.states.back().bodies[0].position.x()), 1e-12);  // it does not move
  std::vector<StepState> bars(steps);
  bars.back().q = Eigen::Vector3d(1, 0, 0);  // L = final x
  const RolloutSensitivity slip(run, options);
  ASSERT_FALSE(slip.switches().empty());
  std::size_t stick_slip = 0;
  for (const ContactSwitch& s : slip.switches()) {
    if (s.kind != ContactSwitch::Kind::StickSlip) continue;
    ++stick_slip;
    EXPECT_EQ(s.piece, ContactSwitch::Piece::Slip);
    EXPECT_EQ(s.body_a, 0);
    EXPECT_EQ(s.body_b, kGround);
  }
  EXPECT_EQ(stick_slip, 2u * steps);  // both corners, every step
  // Resting at gap 0, both corners also sit at the activation switch, held active.
  EXPECT_EQ(slip.switches().size(), 4u * steps) << describe(slip.switches());
  for (const ContactSwitch& s : slip.switches()) {
    if (s.kind == ContactSwitch::Kind::Activation) {
      EXPECT_EQ(s.piece, ContactSwitch::Piece::Active);
    }
  }
  const RolloutGradient g = slip.vjp(bars);
  const auto final_x = [&](const Eigen::MatrixXd& f) {
    return rollout(world, options, steps, f).states.back().bodies[0].position.x();
  };
  const double t = 1e-3;  // each piece is linear in the push
  Eigen::MatrixXd more = push;
  more.col(0).array() += t;
  const double larger = (final_x(more) - final_x(push)) / t;
  // x_final = (F − μ m g) / m · h² Σ(k + ½) over the steps: T² / (2 m).
  EXPECT_NEAR(larger, 0.5 * 0.2 * 0.2, 1e-6);
  EXPECT_NEAR(g.force[0], larger, 1e-6 * larger);
  for (const int k : {0, 9, 19}) {
    Eigen::MatrixXd one = push;
    one(k, 0) += t;
    const double one_sided = (final_x(one) - final_x(push)) / t;
    EXPECT_NEAR(g.forces(k, 0), one_sided, 1e-6 * std::max(1.0, std::abs(one_sided))) << "step " << k;
  }
  SensitivityOptions free_rule;
  free_rule.degenerate = DegenerateRule::Free;
  free_rule.minimum_norm = true;
  const RolloutSensitivity stick(run, options, free_rule);
  for (const ContactSwitch& s : stick.switches()) {
    if (s.kind == ContactSwitch::Kind::StickSlip) {
      EXPECT_EQ(s.piece, ContactSwitch::Piece::Stick);
    }
  }
  Eigen::MatrixXd less = push;
  less.col(0).array() -= t;
  const double smaller = (final_x(less) - final_x(push)) / -t;
  EXPECT_LT(std::abs(smaller), 1e-9);
  EXPECT_LT(std::abs(stick.vjp(bars).force[0]), 1e-9);
}

// A ball that reaches the activation threshold at step 10 within 1e-11 m: the contact is found
// active (the piece of perturbations that lower it) and the derivative is the one-sided
// difference from below; from above, the contact waits a step and the state jumps.
TEST(StepSensitivity, LandingAtTheActivationThresholdIsASwitch) {
  for (const double offset : {-1e-11, 1e-11}) {
    World world;
    const double radius = 0.1;
    world.bodies.push_back(disk("ball", radius, 1.0, {0.0, 1.0}));
    MoreauJeanOptions options = tight(0.3, 0.5);
    options.baumgarte = 0;
    const int landing = 10;
    const int steps = 14;
    // Free flight from y = 1 (no ground yet) gives where the ball is at the landing step.
    const Rollout flight = rollout(world, options, landing);
    const Body& at = flight.states.back().bodies[0];
    const double predicted = at.position.y() - radius + 0.5 * options.timestep * at.velocity.y();
    world.ground = Ground{predicted - options.activation_tolerance - offset};
    const Rollout run = rollout(world, options, steps);
    ASSERT_EQ(run.reports[landing].contacts.size(), offset < 0 ? 1u : 0u);
    const RolloutSensitivity s(run, options);
    ASSERT_EQ(s.switches().size(), 1u) << describe(s.switches());
    const ContactSwitch& sw = s.switches().front();
    EXPECT_EQ(sw.step, landing);
    EXPECT_EQ(sw.kind, ContactSwitch::Kind::Activation);
    EXPECT_EQ(sw.piece, offset < 0 ? ContactSwitch::Piece::Active : ContactSwitch::Piece::Inactive);
    EXPECT_EQ(sw.contact, offset < 0 ? 0 : -1);
    std::vector<StepState> bars(steps);
    bars.back().q = Eigen::Vector3d(0, 1, 0);
    bars.back().v = Eigen::Vector3d(0, 0.3, 0);
    const RolloutGradient g = s.vjp(bars);
    const auto loss = [&](double dy) {
      World w = world;
      w.bodies[0].position.y() += dy;
      const Body b = rollout(w, options, steps).states.back().bodies[0];  // a copy: the rollout is a temporary
      return b.position.y() + 0.3 * b.velocity.y();
    };
    // The piece's side: lower for an active contact, higher for an inactive one.
    const double t = offset < 0 ? -1e-7 : 1e-7;
    const double one_sided = (loss(t) - loss(0)) / t;
    EXPECT_NEAR(g.q[1], one_sided, 1e-6 * std::max(1.0, std::abs(one_sided))) << "offset " << offset;
    const double other_side = (loss(-t) - loss(0)) / -t;
    EXPECT_GT(std::abs(other_side - g.q[1]), 1.0) << "offset " << offset;
  }
}

// A disk resting on the ground without gravity touches it without pushing: r_N = 0 and u_N = 0
// (the normal unknown degenerate). `Bound` returns the piece where it separates (an upward start
// leaves with its speed: ∂v_y⁺/∂v_y = 1), `Free` the piece where it stays touching (a downward
// start is stopped: 0), each the one-sided difference from its side.
TEST(StepSensitivity, TouchingWithoutPushingIsAZeroImpulseSwitch) {
  World world;
  world.bodies.push_back(disk("ball", 0.1, 1.0, {0.0, 0.1}));
  world.ground = Ground{0.0};
  MoreauJeanOptions options = tight(0.3);
  options.gravity = Eigen::Vector2d::Zero();
  const Rollout run = rollout(world, options, 1);
  ASSERT_EQ(run.reports[0].contacts.size(), 1u);
  std::vector<StepState> bars(1);
  bars.back().v = Eigen::Vector3d(0, 1, 0);  // L = v_y after the step
  const auto final_vy = [&](double dv) {
    World w = world;
    w.bodies[0].velocity.y() += dv;
    return rollout(w, options, 1).states.back().bodies[0].velocity.y();
  };
  const double t = 1e-6;
  for (const DegenerateRule rule : {DegenerateRule::Bound, DegenerateRule::Free}) {
    SensitivityOptions so;
    so.degenerate = rule;
    const RolloutSensitivity s(run, options, so);
    const bool bound = rule == DegenerateRule::Bound;
    bool found = false;
    for (const ContactSwitch& sw : s.switches()) {
      if (sw.kind != ContactSwitch::Kind::ZeroNormalImpulse) continue;
      found = true;
      EXPECT_EQ(sw.piece, bound ? ContactSwitch::Piece::Separate : ContactSwitch::Piece::Touch);
    }
    EXPECT_TRUE(found) << describe(s.switches());
    const double side = bound ? t : -t;
    const double one_sided = (final_vy(side) - final_vy(0)) / side;
    EXPECT_NEAR(one_sided, bound ? 1.0 : 0.0, 1e-9);
    EXPECT_NEAR(s.vjp(bars).v[1], one_sided, 1e-9) << (bound ? "bound" : "free");
  }
}

// Fitting μ to an observed sliding distance: a box launched at 2 m/s on the ground stops at a
// distance set by μ; Gauss–Newton on (x(μ) − x_observed)² with the rollout's gradient recovers the
// μ that made the observation.
TEST(StepSensitivity, FitsFrictionToASlidingDistance) {
  World world = test::chapter_block();
  world.bodies[0].velocity = {2.0, 0.0};
  MoreauJeanOptions options = tight(0.0);
  options.solve.tolerance = 1e-12;
  const int steps = 100;  // 1 s; with μ = 0.35 the box stops after 2/(0.35 g) = 0.58 s
  const auto final_x = [&](double mu) {
    MoreauJeanOptions o = options;
    o.friction = mu;
    return rollout(world, o, steps);
  };
  const double true_mu = 0.35;
  const double observed = final_x(true_mu).states.back().bodies[0].position.x();
  SensitivityOptions pinv;
  pinv.minimum_norm = true;  // once it sticks, its two corners' impulses are not unique
  double mu = 0.2;
  for (int iteration = 0; iteration < 20; ++iteration) {
    MoreauJeanOptions o = options;
    o.friction = mu;
    const Rollout run = rollout(world, o, steps);
    const double residual = run.states.back().bodies[0].position.x() - observed;
    if (std::abs(residual) < 1e-13) break;
    std::vector<StepState> bars(steps);
    bars.back().q = Eigen::Vector3d(1, 0, 0);
    const double slope = rollout_gradient(run, o, bars, pinv).friction;
    ASSERT_LT(slope, 0);  // more friction, shorter slide
    mu -= residual / slope;
  }
  EXPECT_NEAR(mu, true_mu, 1e-6);
}

// Fitting e to a bounce height: a ball dropped from 1 m rises to about e² m; Gauss–Newton on the
// highest point after the first bounce recovers e.
TEST(StepSensitivity, FitsRestitutionToABounceHeight) {
  World world;
  world.bodies.push_back(disk("ball", 0.05, 0.2, {0.0, 1.05}));
  world.ground = Ground{0.0};
  MoreauJeanOptions options = tight(0.0);
  options.timestep = 2e-3;
  const int steps = 900;  // the fall takes 0.45 s, the rise to e² m about e · 0.45 s
  // The apex after the bounce: the largest height once the ball has touched the ground.
  const auto apex = [&](const Rollout& run) {
    std::size_t first_contact = run.reports.size();
    for (std::size_t k = 0; k < run.reports.size(); ++k) {
      if (!run.reports[k].contacts.empty()) {
        first_contact = k;
        break;
      }
    }
    std::size_t best = first_contact;
    for (std::size_t k = first_contact; k < run.reports.size(); ++k) {
      if (run.states[k + 1].bodies[0].position.y() > run.states[best + 1].bodies[0].position.y()) best = k;
    }
    return best;
  };
  const double true_e = 0.7;
  MoreauJeanOptions truth = options;
  truth.restitution = true_e;
  const Rollout observed_run = rollout(world, truth, steps);
  const double observed = observed_run.states[apex(observed_run) + 1].bodies[0].position.y();
  EXPECT_NEAR(observed - 0.05, true_e * true_e * 1.0, 0.05);  // the physics: e² of the drop
  double e = 0.5;
  for (int iteration = 0; iteration < 20; ++iteration) {
    MoreauJeanOptions o = options;
    o.restitution = e;
    const Rollout run = rollout(world, o, steps);
    const std::size_t k = apex(run);
    const double residual = run.states[k + 1].bodies[0].position.y() - observed;
    if (std::abs(residual) < 1e-14) break;
    std::vector<StepState> bars(k + 1);
    bars.back().q = Eigen::Vector3d(0, 1, 0);
    const double slope = rollout_gradient(run, o, bars).restitution;
    ASSERT_GT(slope, 0);
    e -= residual / slope;
  }
  EXPECT_NEAR(e, true_e, 1e-6);
}

}  // namespace
}  // namespace perp::contact::contact_step_sensitivity_test
