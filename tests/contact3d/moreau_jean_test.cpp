#include "perp/contact3d/moreau_jean.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::contact3d_moreau_jean_test {
namespace {

using contact3d::Body;
using contact3d::Ground;
using contact3d::Plane;
using contact3d::Shape;
using contact3d::StepOptions;
using contact3d::StepReport;
using contact3d::World;
using testing::HasSubstr;

constexpr double kG = 9.81;

/// The unit normal of a slope of angle θ whose line of steepest ascent points along the horizontal
/// direction at angle φ from x.
Eigen::Vector3d slope_normal(double theta, double phi) {
  return {-std::sin(theta) * std::cos(phi), -std::sin(theta) * std::sin(phi), std::cos(theta)};
}

/// The unit vector down the slope.
Eigen::Vector3d downhill(double theta, double phi) {
  return {-std::cos(theta) * std::cos(phi), -std::cos(theta) * std::sin(phi), -std::sin(theta)};
}

// A sphere released at rest on a slope: rolling without slipping at a = 5/7 g sin θ while
// tan θ <= 7/2 μ (the friction asked, 2/7 m g sin θ, within μ m g cos θ), slipping at
// a = g (sin θ − μ cos θ) above. Each step is exact (the velocity is linear in the steps), so after
// n steps the speed is n h a to the solver's tolerance.
struct Incline {
  double theta;
  double mu;
  double phi;
};

class SphereOnASlope : public testing::TestWithParam<Incline> {};

TEST_P(SphereOnASlope, RollsOrSlipsAsCoulombSays) {
  const auto [theta, mu, phi] = GetParam();
  const Eigen::Vector3d n = slope_normal(theta, phi);
  const double r = 0.2;
  World world;
  world.planes.push_back(Plane{.name = "slope", .point = {0, 0, 0}, .normal = n});
  world.bodies.push_back(Body{.name = "ball", .shape = Shape::sphere(r), .position = r * n, .mass = 1.5});
  StepOptions options{.timestep = 1e-3, .friction = mu};
  const std::size_t steps = 500;
  const contact3d::RunSummary summary = contact3d::run(world, options, steps);
  EXPECT_EQ(summary.unsolved, 0u);
  const bool rolls = std::tan(theta) <= 3.5 * mu;
  const double a = rolls ? 5.0 / 7.0 * kG * std::sin(theta) : kG * (std::sin(theta) - mu * std::cos(theta));
  const double t = static_cast<double>(steps) * options.timestep;
  const Body& ball = world.bodies[0];
  const Eigen::Vector3d d = downhill(theta, phi);
  EXPECT_NEAR(ball.velocity.dot(d), a * t, 1e-10) << (rolls ? "rolling" : "slipping");
  EXPECT_NEAR(ball.velocity.dot(n), 0, 1e-10);
  // The contact point's velocity: zero when rolling, down the slope when slipping.
  const Eigen::Vector3d slip = ball.velocity + ball.angular_velocity.cross(-r * n);
  if (rolls) {
    EXPECT_LT(slip.norm(), 1e-10);
  } else {
    // ω from the friction torque alone: r μ m g cos θ / (2/5 m r²) t.
    EXPECT_NEAR(ball.angular_velocity.norm(), 2.5 * mu * kG * std::cos(theta) / r * t, 1e-10);
    EXPECT_GT(slip.dot(d), 0.1);
  }
  // Still touching: the centre stays at r from the plane (positions integrate the exact velocities).
  EXPECT_NEAR(ball.position.dot(n), r, 1e-10);
}

// tan θ against 7/2 μ = 1.05 for μ = 0.3: 0.3 and 0.8 rad roll, 0.9 and 1.1 rad slip.
INSTANTIATE_TEST_SUITE_P(Contact3d, SphereOnASlope,
                         testing::Values(Incline{0.3, 0.3, 0.0}, Incline{0.8, 0.3, 0.7}, Incline{0.9, 0.3, 0.0},
                                         Incline{1.1, 0.3, 2.0}, Incline{0.5, 0.0, -1.0}));

// A box placed flat on a slope sticks while tan θ <= μ and slides at a = g (sin θ − μ cos θ)
// otherwise, the slope's ascent along x and along a direction that is no axis.
class BoxOnASlope : public testing::TestWithParam<Incline> {};

TEST_P(BoxOnASlope, SticksOrSlidesAsCoulombSays) {
  const auto [theta, mu, phi] = GetParam();
  const Eigen::Vector3d n = slope_normal(theta, phi);
  const Eigen::Vector3d size(0.6, 0.4, 0.2);
  World world;
  world.planes.push_back(Plane{.name = "slope", .point = {0.5, -0.3, 0.2}, .normal = n});
  Body box{.name = "box", .shape = Shape::box(size), .mass = 2.0};
  box.orientation = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), n) *
                    Eigen::Quaterniond(Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ()));
  box.position = world.planes[0].point + 0.5 * size.z() * n;
  world.bodies.push_back(box);
  StepOptions options{.timestep = 1e-3, .friction = mu};
  const std::size_t steps = 400;
  StepReport last;
  std::size_t unsolved = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    last = contact3d::moreau_jean_step(world, options);
    if (last.status != Status::Solved) ++unsolved;
  }
  EXPECT_EQ(unsolved, 0u);
  EXPECT_EQ(last.contacts.size(), 4u);
  const double t = static_cast<double>(steps) * options.timestep;
  const bool sticks = std::tan(theta) <= mu;
  const double a = sticks ? 0.0 : kG * (std::sin(theta) - mu * std::cos(theta));
  const Body& moved = world.bodies[0];
  EXPECT_NEAR(moved.velocity.dot(downhill(theta, phi)), a * t, 1e-10) << (sticks ? "sticking" : "sliding");
  EXPECT_LT((moved.velocity - moved.velocity.dot(downhill(theta, phi)) * downhill(theta, phi)).norm(), 1e-10);
  // Zero in closed form; each solve leaves its relative error (<= 1e-10) in ω, and 400 steps add up.
  EXPECT_LT(moved.angular_velocity.norm(), 1e-9);
  // The normal impulses carry the weight's normal part: m g cos θ h.
  double normal = 0;
  for (Eigen::Index k = 0; k < 4; ++k) normal += last.impulses[3 * k];
  EXPECT_NEAR(normal, box.mass * kG * std::cos(theta) * options.timestep, 1e-11);
}

// μ = 0.5: tan θ = 0.5 at θ = 0.4636; 0.3 and 0.45 stick, 0.5 and 0.7 slide.
INSTANTIATE_TEST_SUITE_P(Contact3d, BoxOnASlope,
                         testing::Values(Incline{0.3, 0.5, 0.0}, Incline{0.45, 0.5, 1.1}, Incline{0.5, 0.5, 0.0},
                                         Incline{0.7, 0.5, -2.3}));

// A ball dropped from height H with restitution e rises to e² H: the velocity-level law gives
// u⁺ = −e u⁻ at the impact step. The impact is taken at the step where the predicted gap
// g + h/2 u_N is first <= 0, up to h |u| above the ground, so the ratio is e² to O(h |u| / H):
// measured 3.2e-5 (e = 0.5) and 6.6e-6 (e = 0.8) at h = 1e-4, 2.7e-3 and 1.2e-3 at h = 1e-3.
TEST(Contact3d, BounceApexRatioIsRestitutionSquared) {
  for (const double e : {0.5, 0.8}) {
    const double r = 0.1;
    const double H = 1.0;
    World world;
    world.ground = Ground{};
    world.bodies.push_back(Body{.name = "ball", .shape = Shape::sphere(r), .position = {0, 0, r + H}});
    const StepOptions options{.timestep = 1e-4, .restitution = e};
    bool bounced = false;
    double apex = 0;
    for (int s = 0; s < 40000; ++s) {
      const StepReport report = contact3d::moreau_jean_step(world, options);
      ASSERT_EQ(report.status, Status::Solved);
      const Body& ball = world.bodies[0];
      if (!report.contacts.empty()) bounced = true;
      if (bounced) apex = std::max(apex, ball.position.z() - r);
      if (bounced && ball.velocity.z() < 0) break;
    }
    ASSERT_TRUE(bounced);
    EXPECT_NEAR(apex / H, e * e, 1e-4) << "e = " << e;
  }
}

// A box dropped flat comes to rest on its four bottom corners; the normal impulses of a step sum to
// m g h and have no moment about the centre (the split among the corners is not unique for a rigid
// box; this test pins none, the doc says which one perp returns).
TEST(Contact3d, BoxDroppedFlatRestsOnFourContacts) {
  const Eigen::Vector3d size(0.4, 0.3, 0.2);
  const double m = 2.0;
  World world;
  world.ground = Ground{.height = -0.3};
  world.bodies.push_back(
      Body{.name = "box", .shape = Shape::box(size), .position = {0.2, -0.1, -0.3 + 0.1 + 0.05}, .mass = m});
  // The solve to 1e-12 (the step's default is 1e-10, relative): the checks below are at 1e-12 absolute
  // on impulses of 0.02 N s.
  StepOptions options{.timestep = 1e-3, .friction = 0.5};
  options.solve.tolerance = 1e-12;
  StepReport last;
  for (int s = 0; s < 1000; ++s) {
    last = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(last.status, Status::Solved) << "step " << s;
  }
  ASSERT_EQ(last.contacts.size(), 4u);
  Eigen::Vector3d force = Eigen::Vector3d::Zero();
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();
  for (std::size_t k = 0; k < 4; ++k) {
    const contact3d::Contact& c = last.contacts[k];
    const Eigen::Vector3d r = last.impulses.segment<3>(3 * static_cast<Eigen::Index>(k));
    const Eigen::Vector3d impulse = r[0] * c.normal + r[1] * c.tangent1 + r[2] * c.tangent2;
    force += impulse;
    moment += c.arm_a.cross(impulse);
    EXPECT_GE(r[0], 0);
  }
  const double weight = m * kG * options.timestep;
  EXPECT_NEAR(force.z(), weight, 1e-12);
  EXPECT_LT(force.head<2>().norm(), 1e-12);
  EXPECT_LT(moment.norm(), 1e-12);
  EXPECT_LT(world.bodies[0].velocity.norm() + world.bodies[0].angular_velocity.norm(), 1e-10);
  EXPECT_NEAR(world.bodies[0].position.z(), -0.2, 1e-3);  // at rest on the ground, up to the landing's overlap
}

TEST(Contact3d, PolyhedralModelTooLargeToFormFallsBackToTheExactCone) {
  // A box resting flat on four contacts, k = 8: 4 × (8 + 2) = 40 unknowns, above a cap of 20. The
  // step must not form the LCP, nor go on without impulses: it solves the exact cone and says so.
  const double m = 2.0;
  World world;
  world.ground = Ground{.height = 0};
  world.bodies.push_back(Body{.name = "box", .shape = Shape::box({0.4, 0.3, 0.2}), .position = {0, 0, 0.1}, .mass = m});
  StepOptions options{.timestep = 1e-3, .friction = 0.5};
  options.friction_model = contact::FrictionModel::StewartTrinkle;
  options.solve.friction_contact.lemke.lcp_max_size = 20;
  const StepReport report = contact3d::moreau_jean_step(world, options);
  ASSERT_EQ(report.status, Status::Solved) << report.result.message;
  ASSERT_EQ(report.contacts.size(), 4u);
  EXPECT_THAT(report.fallback, HasSubstr("would have 40 unknowns, more than friction_contact.lemke.lcp_max_size = 20"));
  EXPECT_THAT(report.fallback, HasSubstr("the exact cone instead"));
  double normal = 0;
  for (Eigen::Index k = 0; k < 4; ++k) normal += report.impulses[3 * k];
  EXPECT_NEAR(normal, m * kG * options.timestep, 1e-9);  // the weight carried, not dropped
  EXPECT_LT(world.bodies[0].velocity.norm(), 1e-9);
}

/// Relative drift of the energy and of |L| of a torque-free box spun at ω₀ (body frame) over `time`.
std::pair<double, double> free_spin_drift(double h, double time, const Eigen::Vector3d& spin) {
  World world;
  Body box{.name = "box", .shape = Shape::box({1.0, 0.6, 0.3}), .mass = 1.0};
  box.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 2, 3).normalized()));
  box.angular_velocity = box.orientation * spin;
  world.bodies.push_back(box);
  const double energy0 = contact3d::kinetic_energy(world.bodies[0]);
  const Eigen::Vector3d momentum0 = contact3d::angular_momentum(world.bodies[0]);
  const StepOptions options{.timestep = h, .gravity = Eigen::Vector3d::Zero()};
  const auto steps = static_cast<std::size_t>(std::lround(time / h));
  (void)contact3d::run(world, options, steps);
  return {std::abs(contact3d::kinetic_energy(world.bodies[0]) - energy0) / energy0,
          (contact3d::angular_momentum(world.bodies[0]) - momentum0).norm() / momentum0.norm()};
}

// The gyroscopic step is first order: halving h halves the drift of the energy and of the angular
// momentum over a fixed time (ratio 2 to 5 %), and at h = 1 ms it stays below 0.5 % over 2 s
// (measured: energy 7.9e-3, 4.0e-3, 2.0e-3, 9.9e-4 and |L| 4.5e-3, 2.3e-3, 1.1e-3, 5.7e-4 at
// h = 2, 1, 0.5, 0.25 ms; the step loses energy, it does not gain it).
TEST(Contact3d, TorqueFreeBoxKeepsEnergyAndMomentumToFirstOrder) {
  const Eigen::Vector3d spin(1.0, 2.0, 3.0);
  const auto [energy1, momentum1] = free_spin_drift(1e-3, 2.0, spin);
  const auto [energy2, momentum2] = free_spin_drift(5e-4, 2.0, spin);
  EXPECT_LT(energy1, 5e-3);
  EXPECT_LT(momentum1, 5e-3);
  EXPECT_NEAR(energy1 / energy2, 2.0, 0.1);
  EXPECT_NEAR(momentum1 / momentum2, 2.0, 0.1);
}

// Spun about its intermediate axis (body y) with a small perturbation, a box flips: the body-frame
// ω_y changes sign (the Dzhanibekov effect), while about its largest axis it stays put.
TEST(Contact3d, IntermediateAxisFlips) {
  const auto body_spin_y_extremes = [](const Eigen::Vector3d& spin, int axis) {
    World world;
    Body box{.name = "box", .shape = Shape::box({1.0, 0.6, 0.3}), .mass = 1.0};
    box.angular_velocity = spin;
    world.bodies.push_back(box);
    const StepOptions options{.timestep = 1e-3, .gravity = Eigen::Vector3d::Zero()};
    double lowest = spin[axis];
    for (int s = 0; s < 10000; ++s) {
      (void)contact3d::moreau_jean_step(world, options);
      const Eigen::Vector3d body = world.bodies[0].orientation.conjugate() * world.bodies[0].angular_velocity;
      lowest = std::min(lowest, body[axis]);
    }
    return lowest;
  };
  EXPECT_LT(body_spin_y_extremes(Eigen::Vector3d(0.01, 4.0, 0.01), 1), -3.0);
  EXPECT_GT(body_spin_y_extremes(Eigen::Vector3d(0.01, 0.01, 4.0), 2), 3.5);
}

// A ball thrown along the ground with backspin ω₀ = 5 v₀ / (2 r) (about the axis that opposes rolling)
// slides under μ m g: v = v₀ − μ g t, r ω = r ω₀ − 5/2 μ g t, and both reach the rolling condition
// v = r ω at v = 0: it stops dead at t* = v₀ / (μ g), x* = v₀² / (2 μ g), and stays. The steps are
// exact in the sliding phase (constant impulse) and the stop lands within a step; the trapezoidal
// position update leaves an error of at most h v₀ / 2 in x*.
TEST(Contact3d, BackspinBallStopsWhereCoulombSays) {
  const double r = 0.1;
  const double v0 = 2.0;
  const double mu = 0.4;
  World world;
  world.ground = Ground{};
  Body ball{.name = "ball", .shape = Shape::sphere(r), .position = {0, 0, r}, .velocity = {v0, 0, 0}};
  // Rolling along +x has ω_y = v / r (the contact point at rest); backspin is ω_y = −ω₀.
  ball.angular_velocity = {0, -2.5 * v0 / r, 0};
  world.bodies.push_back(ball);
  const StepOptions options{.timestep = 1e-3, .friction = mu};
  const double t_stop = v0 / (mu * kG);
  const double x_stop = v0 * v0 / (2 * mu * kG);
  // Halfway through the slide: v and ω as Coulomb says, to the solver's tolerance.
  const auto half = static_cast<std::size_t>(std::lround(0.5 * t_stop / options.timestep));
  EXPECT_EQ(contact3d::run(world, options, half).unsolved, 0u);
  const double t_half = static_cast<double>(half) * options.timestep;
  EXPECT_NEAR(world.bodies[0].velocity.x(), v0 - mu * kG * t_half, 1e-10);
  EXPECT_NEAR(world.bodies[0].angular_velocity.y(), -2.5 * v0 / r + 2.5 * mu * kG * t_half / r, 1e-8);
  // Well past t*: stopped where x* says, not moving, not spinning.
  EXPECT_EQ(contact3d::run(world, options, 2 * half + 200).unsolved, 0u);
  EXPECT_NEAR(world.bodies[0].position.x(), x_stop, 0.5 * options.timestep * v0);
  EXPECT_LT(world.bodies[0].velocity.norm(), 1e-10);
  EXPECT_LT(world.bodies[0].angular_velocity.norm() * r, 1e-10);
}

TEST(Contact3d, StepRefusesBadOptions) {
  World world;
  world.bodies.push_back(Body{.name = "ball"});
  const auto error_of = [&](const StepOptions& options) -> std::string {
    try {
      (void)contact3d::moreau_jean_step(world, options);
    } catch (const InvalidProblem& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of({}), "");
  EXPECT_THAT(error_of({.timestep = 0}), HasSubstr("timestep must be finite and > 0, got 0"));
  EXPECT_THAT(error_of({.theta = 0.2}), HasSubstr("theta must be in [0.5, 1], got 0.2"));
  EXPECT_THAT(error_of({.friction = -1}), HasSubstr("friction must be finite and >= 0, got -1"));
  EXPECT_THAT(error_of({.gravity = Eigen::Vector3d(0, NAN, 0)}), HasSubstr("gravity[1] is NaN"));
  EXPECT_THAT(error_of({.method = Method::Pgs}), HasSubstr("method 'pgs' does not solve a frictional contact problem"));
  EXPECT_THAT(error_of({.sleep_speed = -1}), HasSubstr("sleep_speed must be finite and >= 0, got -1"));
  EXPECT_THAT(error_of({.sleep_time = 0}), HasSubstr("sleep_time must be finite and > 0, got 0"));
  world.bodies[0].mass = 0;
  EXPECT_THAT(error_of({}), HasSubstr("body \"ball\": mass must be finite and > 0, got 0"));
}

// A box resting on a static box (FCL's manifold, 4 points): at rest, the impulses carry m g h.
TEST(Contact3d, BoxRestsOnAStaticBox) {
  World world;
  world.bodies.push_back(
      Body{.name = "table", .shape = Shape::box({2, 2, 0.5}), .position = {0, 0, 0.25}, .fixed = true});
  world.bodies.push_back(
      Body{.name = "box", .shape = Shape::box({0.4, 0.3, 0.2}), .position = {0.1, 0.2, 0.6}, .mass = 3});
  const StepOptions options{.timestep = 1e-3, .friction = 0.5};
  StepReport last;
  for (int s = 0; s < 500; ++s) {
    last = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(last.status, Status::Solved) << "step " << s;
  }
  ASSERT_EQ(last.contacts.size(), 4u);
  double normal = 0;
  for (Eigen::Index k = 0; k < 4; ++k) normal += last.impulses[3 * k];
  EXPECT_NEAR(normal, 3 * kG * options.timestep, 1e-10);
  EXPECT_LT(world.bodies[1].velocity.norm(), 1e-8);
  EXPECT_NEAR(world.bodies[1].position.z(), 0.6, 1e-6);
}

// A resting stack's warm start: each step starts from the last step's impulses of the same contacts
// (matched by pair and nearest point, taken in the new contact's frame), which solve it again, so
// no sweep is needed once the stack rests. Regression: FCL's face normals carry round-off off the
// z axis, and the tangent frame took e_x or e_y by its sign, turning the frame by 90° between steps
// (the warm start then needed as many sweeps as a cold one: 200-230 a step on the 385-box pyramid).
TEST(Contact3d, RestingStackStartsFromImpulsesThatSolve) {
  World world;
  world.ground = Ground{.height = 0.0};
  const Eigen::Quaterniond turn(Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()));
  for (int level = 0; level < 3; ++level) {
    Body box{.name = "box" + std::to_string(level), .shape = Shape::box({1.0, 0.8, 0.5}),
             .position = {0.05 * level, -0.03 * level, 0.25 + 0.5 * level}, .mass = 1.0 + level};
    box.orientation = turn;
    world.bodies.push_back(box);
  }
  const StepOptions options{.timestep = 1.0 / 60, .friction = 0.5};
  for (int s = 0; s < 120; ++s) {
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << s;
    if (s < 60) continue;
    EXPECT_EQ(report.warm_started, report.contacts.size()) << "step " << s;
    EXPECT_LE(report.result.iterations, 1) << "step " << s << ": " << report.result.message;
  }
}

// A 2 × 2 layer of boxes with a fifth on top (a pyramid's corner): the layer's diagonal neighbours
// touch along an edge (Detection3d.BoxesTouchingAlongAnEdgeKeepOneNormal) and the top box rests on
// all four. With one normal for each edge and one old contact for each new one, the last step's
// impulses solve the next step to within a few sweeps (before, the edge normals turned by 90° with
// round-off and a step needed as many sweeps as a cold start).
TEST(Contact3d, PyramidCornerStartsFromImpulsesThatSolve) {
  World world;
  world.ground = Ground{.height = 0.0};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      world.bodies.push_back(Body{.name = "b" + std::to_string(2 * i + j), .shape = Shape::box({1.0, 1.0, 0.5}),
                                  .position = {1.0 * i, 1.0 * j, 0.25}, .mass = 1.0});
    }
  }
  world.bodies.push_back(Body{.name = "top", .shape = Shape::box({1.0, 1.0, 0.5}), .position = {0.5, 0.5, 0.75},
                              .mass = 1.0});
  const StepOptions options{.timestep = 1.0 / 60, .friction = 0.5};
  int first = 0;
  for (int s = 0; s < 60; ++s) {
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << s;
    if (s == 0) {
      first = report.result.iterations;
      continue;
    }
    EXPECT_EQ(report.warm_started, report.contacts.size()) << "step " << s;
    EXPECT_LE(report.result.iterations, 10) << "step " << s << ": " << report.result.message;
  }
  EXPECT_GT(first, 10);  // the cold first step: the bound above is the warm start's doing
  for (const Body& body : world.bodies) EXPECT_LT(body.velocity.norm(), 1e-8) << body.name;
}

// keep_problem: a box of 2 kg resting flat on the ground keeps its step's local problem of four
// corners, whose W r + q at the step's impulses is the corners' velocity after the step (0: the box
// stays at rest), and whose normal impulses sum to m g h; off, or under the convex model, none is kept.
TEST(Contact3d, KeepsTheStepsProblemWhenAsked) {
  const auto resting = [] {
    World world;
    world.ground = Ground{.height = 0.0};
    world.bodies.push_back(Body{.name = "box", .shape = Shape::box({0.4, 0.3, 0.2}), .position = {0, 0, 0.1}, .mass = 2.0});
    return world;
  };
  StepOptions options{.timestep = 1.0 / 60, .friction = 0.5};
  {
    World world = resting();
    EXPECT_FALSE(contact3d::moreau_jean_step(world, options).problem.has_value());
  }
  options.keep_problem = true;
  World world = resting();
  const StepReport report = contact3d::moreau_jean_step(world, options);
  ASSERT_EQ(report.status, Status::Solved);
  ASSERT_TRUE(report.problem.has_value());
  const FactoredFrictionContact& kept = report.problem->local;
  EXPECT_FALSE(report.problem->global);
  ASSERT_EQ(kept.dimension, 3);
  ASSERT_EQ(kept.contacts(), 4);
  const Eigen::VectorXd u = kept.velocity(report.impulses);
  EXPECT_LT(u.lpNorm<Eigen::Infinity>(), 1e-9);
  double normal = 0;
  for (Eigen::Index k = 0; k < 4; ++k) normal += report.impulses[3 * k];
  EXPECT_NEAR(normal, 2.0 * kG / 60, 1e-10);
  options.friction_model = contact::FrictionModel::AnitescuPotra;
  World convex = resting();
  EXPECT_FALSE(contact3d::moreau_jean_step(convex, options).problem.has_value());
}

// ---------------------------------------------------------------------------------------------
// The friction models and the drift correction.

/// A 0.4 × 0.3 × 0.2 m box of 2 kg resting flat on the ground z = 0, sliding at v0 along the
/// horizontal direction at angle φ from x.
World sliding_box(double v0, double phi) {
  World world;
  world.ground = Ground{0.0};
  Body box{.name = "box", .shape = Shape::box({0.4, 0.3, 0.2}), .position = {0, 0, 0.1}, .mass = 2.0};
  box.velocity = v0 * Eigen::Vector3d(std::cos(phi), std::sin(phi), 0);
  world.bodies.push_back(box);
  return world;
}

// The convex model (Anitescu–Potra) on a box sliding at v0: with S the sum of the normal impulses,
// m v_T⁺ = m v0 − μ S, m v_z⁺ = −m g h + S and the convex law's lift v_z⁺ = μ |v_T⁺| give
// S / m = (μ v0 + g h) / (1 + μ²), v_T⁺ = (v0 − μ g h) / (1 + μ²), v_z⁺ = μ v_T⁺: the box separates
// at μ times its sliding speed. Coulomb's law keeps v_z⁺ = 0 and v_T⁺ = v0 − μ g h.
TEST(Contact3dModels, ConvexModelLiftsASlidingBoxAtMuTimesItsSpeed) {
  const double v0 = 1.0;
  const double mu = 0.5;
  for (double phi : {0.0, std::numbers::pi / 6, 2.4}) {
    World world = sliding_box(v0, phi);
    StepOptions options{.timestep = 1e-3, .friction = mu};
    options.friction_model = contact::FrictionModel::AnitescuPotra;
    const double h = options.timestep;
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << report.result.message;
    // auto on the convex law in 3D: the interior point, then admm from its point where it stops short.
    EXPECT_TRUE(report.result.method == Method::InteriorPoint || report.result.method == Method::Admm)
        << to_string(report.result.method);
    EXPECT_EQ(report.law, FrictionLaw::Convex);
    ASSERT_EQ(report.contacts.size(), 4u);
    const Body& box = world.bodies[0];
    const double slide = (v0 - mu * kG * h) / (1 + mu * mu);
    const Eigen::Vector3d along(std::cos(phi), std::sin(phi), 0);
    EXPECT_NEAR(box.velocity.dot(along), slide, 1e-9) << "phi " << phi;
    EXPECT_NEAR((box.velocity - box.velocity.dot(along) * along).head<2>().norm(), 0, 1e-9);
    EXPECT_NEAR(box.velocity.z(), mu * slide, 1e-9);  // the lift: u_N = μ |u_T|
    EXPECT_LT(box.angular_velocity.norm(), 1e-8);
    EXPECT_NEAR(box.position.z() - 0.1, 0.5 * h * mu * slide, 1e-12);  // θ = ½ from v_z = 0
    double normal = 0;
    for (Eigen::Index k = 0; k < 4; ++k) normal += report.impulses[3 * k];
    EXPECT_NEAR(normal / box.mass, (mu * v0 + kG * h) / (1 + mu * mu), 1e-9);
    EXPECT_LT(report.criteria.relative_error, 1e-10);
    // Coulomb's law on the same step: no lift.
    World coulomb = sliding_box(v0, phi);
    const StepReport exact = contact3d::moreau_jean_step(coulomb, StepOptions{.timestep = 1e-3, .friction = mu});
    ASSERT_EQ(exact.status, Status::Solved);
    EXPECT_NEAR(coulomb.bodies[0].velocity.dot(along), v0 - mu * kG * h, 1e-10);
    EXPECT_NEAR(coulomb.bodies[0].velocity.z(), 0, 1e-10);
  }
}

// Sticking is the same under the convex law: a box on a slope with tan θ <= μ stays at rest, its
// normal impulses carrying m g cos θ h, as under Coulomb's.
TEST(Contact3dModels, ConvexModelSticksAsCoulombDoes) {
  const double theta = 0.3;
  const double mu = 0.5;
  const Eigen::Vector3d n = slope_normal(theta, 0.7);
  const Eigen::Vector3d size(0.6, 0.4, 0.2);
  World world;
  world.planes.push_back(Plane{.name = "slope", .point = {0, 0, 0}, .normal = n});
  Body box{.name = "box", .shape = Shape::box(size), .mass = 2.0};
  box.orientation = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), n);
  box.position = 0.5 * size.z() * n;
  world.bodies.push_back(box);
  StepOptions options{.timestep = 1e-3, .friction = mu};
  options.friction_model = contact::FrictionModel::AnitescuPotra;
  StepReport last;
  for (int s = 0; s < 200; ++s) {
    last = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(last.status, Status::Solved) << "step " << s << ": " << last.result.message;
  }
  ASSERT_EQ(last.contacts.size(), 4u);
  EXPECT_LT(world.bodies[0].velocity.norm(), 1e-9);
  EXPECT_LT(world.bodies[0].angular_velocity.norm(), 1e-8);
  EXPECT_LT((world.bodies[0].position - box.position).norm(), 1e-9);
  double normal = 0;
  for (Eigen::Index k = 0; k < 4; ++k) normal += last.impulses[3 * k];
  EXPECT_NEAR(normal, box.mass * kG * std::cos(theta) * options.timestep, 1e-10);
}

// The polyhedral model (Stewart–Trinkle, k facets) on a box sliding at v0 along φ = 30° on the
// ground. The ground's contact frame is (t1, t2) = (y, −x), so the pyramid's directions lie at the
// world angles 90° + 360° l / k: multiples of 90° for k = 4, of 45° for 8, of 22.5° for 16. Maximal
// dissipation over the polygon picks the vertex nearest to −v: the friction is μ m g along
// −(cos α, sin α), α = 0° (k = 4), 45° (k = 8), 22.5° (k = 16), as long as the velocity stays
// between the two facets around that vertex (here: 20 steps, n h μ g = 0.098 m/s). So after n steps
// v = v0 (cos φ, sin φ) − n h μ g (cos α, sin α) exactly: the sliding direction turns away from the
// vertex, towards the facet's normal (45°, 22.5°, 33.75°) — under the exact cone it stays at φ.
TEST(Contact3dModels, PolyhedralModelTurnsTheSlidingDirection) {
  const double v0 = 1.0;
  const double mu = 0.5;
  const double phi = std::numbers::pi / 6;
  const int steps = 20;
  struct Case {
    int facets;
    double alpha_degrees;
  };
  double last_deviation = 90;
  for (const Case& c : {Case{4, 0.0}, Case{8, 45.0}, Case{16, 22.5}}) {
    World world = sliding_box(v0, phi);
    StepOptions options{.timestep = 1e-3, .friction = mu};
    options.friction_model = contact::FrictionModel::StewartTrinkle;
    options.solve.friction_contact.lemke.facets = c.facets;
    StepReport report;
    for (int s = 0; s < steps; ++s) {
      report = contact3d::moreau_jean_step(world, options);
      ASSERT_EQ(report.status, Status::Solved) << "k " << c.facets << " step " << s << ": " << report.result.message;
    }
    EXPECT_EQ(report.result.z.size(), 4 * (c.facets + 2));
    const double slowed = steps * options.timestep * mu * kG;
    const double alpha = c.alpha_degrees * std::numbers::pi / 180;
    const Eigen::Vector2d expected = v0 * Eigen::Vector2d(std::cos(phi), std::sin(phi)) -
                                     slowed * Eigen::Vector2d(std::cos(alpha), std::sin(alpha));
    const Body& box = world.bodies[0];
    EXPECT_NEAR(box.velocity.x(), expected.x(), 1e-10) << "k = " << c.facets;
    EXPECT_NEAR(box.velocity.y(), expected.y(), 1e-10) << "k = " << c.facets;
    EXPECT_NEAR(box.velocity.z(), 0, 1e-10);
    EXPECT_LT(box.angular_velocity.norm(), 1e-9);
    double normal = 0;
    for (Eigen::Index k = 0; k < 4; ++k) normal += report.impulses[3 * k];
    EXPECT_NEAR(normal, box.mass * kG * options.timestep, 1e-10);
    // The deviation from the push, by hand: k = 4: atan2(0.5, 0.866 − 0.098) − 30° = +3.07°; it
    // shrinks as k grows (8: −1.61°, 16: +0.81°).
    const double deviation = std::atan2(box.velocity.y(), box.velocity.x()) - phi;
    EXPECT_NEAR(deviation, std::atan2(expected.y(), expected.x()) - phi, 1e-10);
    EXPECT_LT(std::abs(deviation), last_deviation);
    last_deviation = std::abs(deviation);
    // Coulomb's criteria of the pyramid's impulses: inside the cone, off its maximal dissipation.
    EXPECT_LT(report.criteria.coulomb, 1e-12);
    EXPECT_GT(report.criteria.dissipation, 0);
  }
  EXPECT_NEAR(last_deviation * 180 / std::numbers::pi, 0.81, 0.01);
  // The exact cone keeps the direction.
  World exact = sliding_box(v0, phi);
  for (int s = 0; s < steps; ++s) {
    ASSERT_EQ(contact3d::moreau_jean_step(exact, StepOptions{.timestep = 1e-3, .friction = mu}).status, Status::Solved);
  }
  EXPECT_NEAR(std::atan2(exact.bodies[0].velocity.y(), exact.bodies[0].velocity.x()), phi, 1e-10);
}

// One contact, W = I (a unit mass point), q = (−1, 2, 0): the pyramid with k = 4 (directions e1,
// e2, −e1, −e2 in the tangent plane). By hand: u_N = r_N − 1 = 0 gives r_N = 1; sliding along t1,
// r_T = −μ r_N e1 = −0.5 e1, u_T = 2 − 0.5 = 1.5 = λ (the row of −e1: λ − u_T1 = 0).
TEST(Contact3dModels, PolyhedralLcpOfOneContactByHand) {
  FrictionContact problem = friction_contact_from_dense(3, Eigen::Matrix3d::Identity(), Eigen::Vector3d(-1, 2, 0),
                                                        Eigen::VectorXd::Constant(1, 0.5));
  const contact3d::PolyhedralLcp poly = contact3d::polyhedral_lcp(problem, 4);
  ASSERT_EQ(poly.lcp.size(), 6);
  const Result result = solve(poly.lcp, Method::Lemke, {.tolerance = 1e-12});
  ASSERT_TRUE(result.solved()) << result.message;
  const Eigen::VectorXd r = poly.reaction(result.z);
  EXPECT_NEAR(r[0], 1, 1e-12);
  EXPECT_NEAR(r[1], -0.5, 1e-12);
  EXPECT_NEAR(r[2], 0, 1e-12);
  EXPECT_NEAR(result.z[5], 1.5, 1e-12);  // λ: the sliding speed 2 − 0.5
  EXPECT_THROW((void)contact3d::polyhedral_lcp(problem, 2), InvalidProblem);
}

// Drift correction: a sphere started 1 cm into the ground (twice the 5 mm slop) is lifted out of
// it by the split impulse (default), ending above −slop with no velocity left; Baumgarte in the
// velocity (no split) also ends above −slop; with baumgarte = 0 the overlap stays.
TEST(Contact3dModels, DriftCorrectionLiftsAnOverlappingSphere) {
  const double r = 0.1;
  const auto run_with = [&](double baumgarte, bool split) {
    World world;
    world.ground = Ground{0.0};
    world.bodies.push_back(Body{.name = "ball", .shape = Shape::sphere(r), .position = {0, 0, r - 0.01}, .mass = 1});
    StepOptions options{.timestep = 1e-3, .friction = 0.5};
    options.baumgarte = baumgarte;
    options.split_impulse = split;
    StepReport report;
    std::size_t corrected = 0;
    for (int s = 0; s < 1000; ++s) {
      report = contact3d::moreau_jean_step(world, options);
      EXPECT_EQ(report.status, Status::Solved);
      EXPECT_EQ(report.split_status, Status::Solved);
      if (report.split_contacts > 0) ++corrected;
    }
    return std::pair{world.bodies[0], corrected};
  };
  const StepOptions defaults;
  EXPECT_EQ(defaults.baumgarte, 0.2);
  EXPECT_EQ(defaults.slop, 0.005);
  EXPECT_TRUE(defaults.split_impulse);
  const auto [split, split_steps] = run_with(0.2, true);
  EXPECT_GT(split.position.z() - r, -defaults.slop * (1 + 0.011));
  EXPECT_LT(split.position.z() - r, -defaults.slop * 0.99);  // corrected to the slop, not beyond
  EXPECT_GT(split_steps, 0u);
  EXPECT_LT(split.velocity.norm(), 1e-9);  // the split moves positions only
  const auto [baumgarte, baumgarte_steps] = run_with(0.2, false);
  EXPECT_GT(baumgarte.position.z() - r, -defaults.slop * (1 + 0.011));
  EXPECT_EQ(baumgarte_steps, 0u);
  const auto [plain, plain_steps] = run_with(0.0, true);
  EXPECT_NEAR(plain.position.z() - r, -0.01, 1e-9);
  EXPECT_EQ(plain_steps, 0u);
}

TEST(Contact3dModels, StepRefusesBadModelOptions) {
  World world;
  world.bodies.push_back(Body{.name = "ball"});
  const auto error_of = [&](const StepOptions& options) -> std::string {
    try {
      (void)contact3d::moreau_jean_step(world, options);
    } catch (const InvalidProblem& e) {
      return e.what();
    }
    return "";
  };
  StepOptions options;
  options.friction_model = contact::FrictionModel::AnitescuPotra;
  EXPECT_EQ(error_of(options), "");
  options.method = Method::Nsgs;
  EXPECT_THAT(error_of(options), HasSubstr("method 'nsgs' does not solve the convex law in 3D"));
  options.friction_model = contact::FrictionModel::StewartTrinkle;
  EXPECT_THAT(error_of(options), HasSubstr("method 'nsgs' does not solve an LCP"));
  options.method = Method::Lemke;
  options.solve.friction_contact.lemke.facets = 2;
  EXPECT_THAT(error_of(options), HasSubstr("facets (solve.friction_contact.lemke.facets) must be >= 3, got 2"));
  options = {};
  options.baumgarte = 1;
  EXPECT_THAT(error_of(options), HasSubstr("baumgarte must be in [0, 1), got 1"));
  options = {};
  options.slop = -1;
  EXPECT_THAT(error_of(options), HasSubstr("slop must be finite and >= 0, got -1"));
  options = {};
  options.friction_model = static_cast<contact::FrictionModel>(7);
  EXPECT_THAT(error_of(options), HasSubstr("is not a model"));
}

}  // namespace
}  // namespace perp::contact3d_moreau_jean_test
