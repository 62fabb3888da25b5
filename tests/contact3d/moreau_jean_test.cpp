#include "perp/contact3d/moreau_jean.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "perp/core/error.hpp"

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

}  // namespace
}  // namespace perp::contact3d_moreau_jean_test
