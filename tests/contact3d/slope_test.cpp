// Closed forms on a slope (issue 36): a sphere rolls at a = 5/7 g sin θ while tan θ <= 7/2 μ and
// slips at a = g (sin θ − μ cos θ) above; a box sticks while tan θ <= μ and slides at
// a = g (sin θ − μ cos θ) otherwise; the slope tilted about a horizontal axis in no coordinate plane.
//
// Why 1e-10 holds. Under gravity alone and one persistent contact, each of these motions has a
// constant acceleration, and the step (contact3d/moreau_jean.hpp) reproduces it exactly: the
// velocity update v⁺ = v + h g + M⁻¹ Jᵀ r is linear in the impulse, and the impulse that the exact
// Coulomb law asks is the same every step (h times the constant force), so v_k = v_0 + k h a to the
// solve's tolerance; the position update with θ = ½ is the trapezoidal rule, exact for a velocity
// linear in t, so x_k = x_0 + v_0 t + a t² / 2 as well. A sphere's gyroscopic term is zero
// (I = 2/5 m r² 1), and a box that slides without turning has ω = 0, so the first-order gyroscopic
// step adds no error either. What is left is the solve's relative tolerance (1e-10, or 1e-12 where
// set below) times the impulses, summed over the steps.
//
// Every expected value below is derived by hand in the comment above its test.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <numbers>
#include <string>

#include "perp/contact3d/body.hpp"
#include "perp/contact3d/detection.hpp"
#include "perp/contact3d/moreau_jean.hpp"
#include "perp/contact3d/scene.hpp"
#include "perp/core/status.hpp"
#include "perp/io/scene3d.hpp"

namespace perp::contact3d_slope_test {
namespace {

using contact3d::Body;
using contact3d::Plane;
using contact3d::Shape;
using contact3d::StepOptions;
using contact3d::StepReport;
using contact3d::World;

constexpr double kG = 9.81;

/// A slope of angle θ tilted about the horizontal axis a = (cos φ, sin φ, 0): its normal is the
/// rotation of e_z by θ about a, n = (sin θ sin φ, −sin θ cos φ, cos θ), and its line of steepest
/// descent is d = (n · e_z) n − e_z normalized, i.e. d = (cos θ sin φ, −cos θ cos φ, −sin θ) after
/// division by sin θ. For φ = 0 the slope descends along −y; φ = 0.7 and φ = 2.3 put the axis in no
/// coordinate plane (its normal has three non-zero components).
struct Slope {
  double theta;
  double phi;
  [[nodiscard]] Eigen::Vector3d normal() const {
    return {std::sin(theta) * std::sin(phi), -std::sin(theta) * std::cos(phi), std::cos(theta)};
  }
  [[nodiscard]] Eigen::Vector3d down() const {
    return {std::cos(theta) * std::sin(phi), -std::cos(theta) * std::cos(phi), -std::sin(theta)};
  }
  /// The horizontal tilt axis, in the slope's plane and orthogonal to `down()`.
  [[nodiscard]] Eigen::Vector3d across() const { return {std::cos(phi), std::sin(phi), 0.0}; }
};

TEST(SlopeGeometry, FrameIsOrthonormalAndGravitySplitsIntoItsParts) {
  // The frame the closed forms below rest on: n, d, a orthonormal, and g = −g e_z has the parts
  // g sin θ along d and −g cos θ along n.
  for (const Slope s : {Slope{0.3, 0.0}, Slope{0.9, 0.7}, Slope{0.45, 2.3}}) {
    const Eigen::Vector3d n = s.normal();
    const Eigen::Vector3d d = s.down();
    const Eigen::Vector3d a = s.across();
    EXPECT_NEAR(n.norm(), 1, 1e-15);
    EXPECT_NEAR(d.norm(), 1, 1e-15);
    EXPECT_NEAR(n.dot(d), 0, 1e-15);
    EXPECT_NEAR(a.dot(n), 0, 1e-15);
    EXPECT_NEAR(a.dot(d), 0, 1e-15);
    const Eigen::Vector3d g(0, 0, -kG);
    EXPECT_NEAR(g.dot(d), kG * std::sin(s.theta), 1e-14);
    EXPECT_NEAR(g.dot(n), -kG * std::cos(s.theta), 1e-14);
  }
}

// ---------------------------------------------------------------------------------------------
// A sphere (radius r, mass m, I = 2/5 m r²) released at rest on the slope, friction force f up the
// slope, normal force N = m g cos θ:
//   m a = m g sin θ − f,   I α = f r.
// Rolling (contact point at rest, a = α r): f = 2/5 m a, so a = 5/7 g sin θ and f = 2/7 m g sin θ,
// which the cone allows while f <= μ N, i.e. tan θ <= 7/2 μ. Otherwise the sphere slips with
// f = μ m g cos θ: a = g (sin θ − μ cos θ) and α = f r / I = 5/2 μ g cos θ / r.
// The spin vector: the rotation that rolls the ball down d about its contact point −r n is about
// n × d (ω = (n × v) / r when rolling: then v + ω × (−r n) = v − v = 0).
// After t = k h: v = a t d, ω = α t (n × d), the centre moved by a t² / 2 along d.
struct Roll {
  double theta;
  double phi;
  double mu;
  const char* name;
};

class SphereOnSlope : public testing::TestWithParam<Roll> {};

TEST_P(SphereOnSlope, AccelerationAndSpinRateAreTheClosedForms) {
  const Roll c = GetParam();
  const Slope s{c.theta, c.phi};
  const Eigen::Vector3d n = s.normal();
  const Eigen::Vector3d d = s.down();
  const Eigen::Vector3d axis = n.cross(d);
  const double r = 0.15;
  const double m = 0.8;
  const bool rolls = std::tan(c.theta) <= 3.5 * c.mu;
  const double a = rolls ? 5.0 / 7.0 * kG * std::sin(c.theta) : kG * (std::sin(c.theta) - c.mu * std::cos(c.theta));
  const double alpha = rolls ? a / r : 2.5 * c.mu * kG * std::cos(c.theta) / r;

  World world;
  const Eigen::Vector3d origin(0.3, -0.2, 1.0);
  world.planes.push_back(Plane{.name = "slope", .point = origin, .normal = n});
  world.bodies.push_back(Body{.name = "ball", .shape = Shape::sphere(r), .position = origin + r * n, .mass = m});
  const Eigen::Vector3d start = world.bodies[0].position;
  StepOptions options{.timestep = 1.0 / 240.0, .friction = c.mu};
  options.solve.tolerance = 1e-12;

  // The acceleration and spin rate as difference quotients over the second half of the run (the
  // first step included nothing special, but the quotient does not lean on the start).
  const std::size_t half = 120;
  Eigen::Vector3d v_half = Eigen::Vector3d::Zero();
  Eigen::Vector3d w_half = Eigen::Vector3d::Zero();
  for (std::size_t k = 0; k < 2 * half; ++k) {
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << c.name << " step " << k;
    ASSERT_EQ(report.contacts.size(), 1u) << c.name << " step " << k;
    if (k + 1 == half) {
      v_half = world.bodies[0].velocity;
      w_half = world.bodies[0].angular_velocity;
    }
  }
  const Body& ball = world.bodies[0];
  const double t = static_cast<double>(2 * half) * options.timestep;
  const double dt = static_cast<double>(half) * options.timestep;

  // Centre: acceleration along the slope, nothing across it or off it.
  EXPECT_NEAR((ball.velocity - v_half).dot(d) / dt, a, 1e-10) << c.name;
  EXPECT_NEAR(ball.velocity.dot(d), a * t, 1e-10) << c.name;
  EXPECT_LT((ball.velocity - ball.velocity.dot(d) * d).norm(), 1e-10) << c.name;
  // Spin rate about n × d, and no spin about any other axis.
  EXPECT_NEAR((ball.angular_velocity - w_half).dot(axis) / dt, alpha, 1e-10) << c.name;
  EXPECT_NEAR(ball.angular_velocity.dot(axis), alpha * t, 1e-10) << c.name;
  EXPECT_LT((ball.angular_velocity - ball.angular_velocity.dot(axis) * axis).norm(), 1e-10) << c.name;
  // Distance: a t² / 2 down the slope (θ = ½ is exact on a linear velocity), still touching.
  EXPECT_NEAR((ball.position - start).dot(d), 0.5 * a * t * t, 1e-10) << c.name;
  EXPECT_NEAR((ball.position - origin).dot(n), r, 1e-10) << c.name;
}

// μ = 0.2: rolling while tan θ <= 0.7, i.e. θ <= atan 0.7 = 0.6107 rad.
// "edge": tan θ = 7/2 μ exactly, the friction asked is μ N: it rolls (both closed forms agree there).
INSTANTIATE_TEST_SUITE_P(Contact3d, SphereOnSlope,
                         testing::Values(Roll{0.2, 0.0, 0.2, "rolls_axis_x"}, Roll{0.5, 0.7, 0.2, "rolls_oblique"},
                                         Roll{std::atan(0.7), 2.3, 0.2, "edge_oblique"},
                                         Roll{0.65, 0.7, 0.2, "slips_just_above"},
                                         Roll{1.0, -1.9, 0.2, "slips_steep_oblique"},
                                         Roll{0.4, 0.7, 0.0, "frictionless_slides"}),
                         [](const testing::TestParamInfo<Roll>& param_info) { return std::string(param_info.param.name); });

// ---------------------------------------------------------------------------------------------
// A box (edges lx, ly, lz, mass m) placed flat on the slope, yawed by ψ about the slope's normal,
// released at rest. Its four bottom corners touch; the forces along the slope are m g sin θ down
// and friction up to μ m g cos θ. It sticks while tan θ <= μ: no motion at all (x, q, v, ω as at
// the start, to 1e-10), the friction impulses summing to m g sin θ h up the slope and the normal
// ones to m g cos θ h. Above, it slides without turning at a = g (sin θ − μ cos θ): v = a t d,
// displacement a t² / 2 d.
struct Block {
  double theta;
  double phi;
  double mu;
  double yaw;
  const char* name;
};

class BoxOnSlope : public testing::TestWithParam<Block> {};

TEST_P(BoxOnSlope, SticksOrSlidesAsCoulombSays) {
  const Block c = GetParam();
  const Slope s{c.theta, c.phi};
  const Eigen::Vector3d n = s.normal();
  const Eigen::Vector3d d = s.down();
  const Eigen::Vector3d size(0.5, 0.3, 0.2);
  const double m = 3.0;
  const bool sticks = std::tan(c.theta) <= c.mu;
  const double a = sticks ? 0.0 : kG * (std::sin(c.theta) - c.mu * std::cos(c.theta));

  World world;
  const Eigen::Vector3d origin(-1.0, 2.0, 0.5);
  world.planes.push_back(Plane{.name = "slope", .point = origin, .normal = n});
  Body box{.name = "box", .shape = Shape::box(size), .mass = m};
  box.orientation = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), n) *
                    Eigen::Quaterniond(Eigen::AngleAxisd(c.yaw, Eigen::Vector3d::UnitZ()));
  box.position = origin + 0.5 * size.z() * n;
  world.bodies.push_back(box);
  StepOptions options{.timestep = 1.0 / 60.0, .friction = c.mu};
  options.solve.tolerance = 1e-12;

  const std::size_t steps = 120;  // 2 s
  StepReport last;
  for (std::size_t k = 0; k < steps; ++k) {
    last = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(last.status, Status::Solved) << c.name << " step " << k;
    ASSERT_EQ(last.contacts.size(), 4u) << c.name << " step " << k;
  }
  const Body& moved = world.bodies[0];
  const double t = static_cast<double>(steps) * options.timestep;
  // At tan θ = μ exactly the speed down the slope is neutral: a box sliding there keeps its speed
  // (friction μ N balances m g sin θ), so nothing pulls a solve's error in it back to zero and the
  // 120 solves' errors add up (measured 1.2e-10 m/s): 1e-9 there, 1e-10 elsewhere.
  const double along = std::abs(std::tan(c.theta) - c.mu) < 1e-12 ? 1e-9 : 1e-10;
  EXPECT_NEAR(moved.velocity.dot(d), a * t, along) << c.name;
  EXPECT_LT((moved.velocity - moved.velocity.dot(d) * d).norm(), 1e-10) << c.name;
  EXPECT_LT(moved.angular_velocity.norm(), 1e-10) << c.name;
  const Eigen::Vector3d shift = moved.position - box.position;
  EXPECT_NEAR(shift.dot(d), 0.5 * a * t * t, along) << c.name;
  EXPECT_LT((shift - shift.dot(d) * d).norm(), 1e-10) << c.name;
  EXPECT_LT(moved.orientation.angularDistance(box.orientation), 1e-10) << c.name;

  // The last step's impulses, summed in the world frame: m g cos θ h along n, and along d the
  // friction's −min(m g sin θ, μ m g cos θ) h.
  Eigen::Vector3d total = Eigen::Vector3d::Zero();
  for (std::size_t k = 0; k < last.contacts.size(); ++k) {
    const contact3d::Contact& contact = last.contacts[k];
    const Eigen::Vector3d r = last.impulses.segment<3>(3 * static_cast<Eigen::Index>(k));
    total += r[0] * contact.normal + r[1] * contact.tangent1 + r[2] * contact.tangent2;
  }
  const double h = options.timestep;
  // To 1e-10 of the weight's impulse m g h: the solve's 1e-12 bounds its residual, and the impulses'
  // error is that residual times the conditioning of the four-corner problem (measured: 1e-11 of it).
  const double friction = sticks ? m * kG * std::sin(c.theta) : c.mu * m * kG * std::cos(c.theta);
  const double weight = m * kG * h;
  EXPECT_NEAR(total.dot(n), m * kG * std::cos(c.theta) * h, 1e-10 * weight) << c.name;
  EXPECT_NEAR(total.dot(d), -friction * h, 1e-10 * weight) << c.name;
  EXPECT_NEAR(total.dot(s.across()), 0, 1e-10 * weight) << c.name;
}

// μ = 0.6: sticking while tan θ <= 0.6, θ <= atan 0.6 = 0.5404 rad. "edge": tan θ = μ exactly, the
// friction asked is μ N and a = 0 by both forms.
INSTANTIATE_TEST_SUITE_P(Contact3d, BoxOnSlope,
                         testing::Values(Block{0.3, 0.0, 0.6, 0.0, "sticks_axis_x"},
                                         Block{0.5, 0.7, 0.6, 0.9, "sticks_oblique_yawed"},
                                         Block{std::atan(0.6), 2.3, 0.6, 0.3, "edge_oblique"},
                                         Block{0.6, 0.7, 0.6, 0.9, "slides_just_above"},
                                         Block{0.9, -1.2, 0.6, 2.0, "slides_steep_oblique"},
                                         Block{0.25, 2.3, 0.0, 0.5, "frictionless_slides"}),
                         [](const testing::TestParamInfo<Block>& param_info) { return std::string(param_info.param.name); });

// ---------------------------------------------------------------------------------------------
// A box launched up a slope where it can stick (tan θ <= μ), at speed v₀ along −d: while it moves
// up, gravity and friction both act down the slope, a = −g (sin θ + μ cos θ), so it stops at
// t* = v₀ / (g (sin θ + μ cos θ)) after s* = v₀² / (2 g (sin θ + μ cos θ)); then it sticks.
// In steps: v_k = v₀ − k h g (sin θ + μ cos θ) while that is positive; the step that would pass zero
// ends at rest (the cone holds it), so the box rests from step ⌈t*/h⌉ on, at a place within
// h v₀ / 2 of s* (the trapezoid over the last, partial step).
TEST(BoxUpASlope, StopsWhereCoulombSaysAndStays) {
  const Slope s{0.35, 0.7};  // tan 0.35 = 0.365 <= μ = 0.6
  const double mu = 0.6;
  const double v0 = 2.0;
  const Eigen::Vector3d n = s.normal();
  const Eigen::Vector3d d = s.down();
  const Eigen::Vector3d size(0.4, 0.4, 0.2);
  World world;
  world.planes.push_back(Plane{.name = "slope", .point = Eigen::Vector3d::Zero(), .normal = n});
  Body box{.name = "box", .shape = Shape::box(size), .mass = 1.5};
  box.orientation = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), n);
  box.position = 0.5 * size.z() * n;
  box.velocity = -v0 * d;
  world.bodies.push_back(box);
  StepOptions options{.timestep = 1.0 / 120.0, .friction = mu};
  options.solve.tolerance = 1e-12;
  const double h = options.timestep;
  const double decel = kG * (std::sin(s.theta) + mu * std::cos(s.theta));
  const double t_stop = v0 / decel;
  const double s_stop = v0 * v0 / (2 * decel);
  const auto stop_step = static_cast<std::size_t>(std::ceil(t_stop / h));
  for (std::size_t k = 0; k < stop_step + 60; ++k) {
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << k;
    const Body& b = world.bodies[0];
    if (k + 1 < stop_step) {
      EXPECT_NEAR(-b.velocity.dot(d), v0 - static_cast<double>(k + 1) * h * decel, 1e-10) << "step " << k;
    } else {
      EXPECT_LT(b.velocity.norm(), 1e-10) << "step " << k;
    }
    EXPECT_LT(b.angular_velocity.norm(), 1e-10) << "step " << k;
  }
  const double travelled = -(world.bodies[0].position - box.position).dot(d);
  EXPECT_NEAR(travelled, s_stop, 0.5 * h * v0);
}

// ---------------------------------------------------------------------------------------------
// examples/scenes/slopes3d.json: six fixed ramps (boxes, so that the contacts go through FCL's
// box–box manifold) tilted by 20°–32° about y, a box resting flat on each, μ = 0.5 everywhere
// (friction angle atan 0.5 = 26.57°). Each box's slope is read from its ramp's orientation: the
// ramp's top normal n = R e_z gives cos θ = n_z. Over the first second (the fastest box, 1.04 m/s²,
// stays on its 3 m ramp) the boxes at 20°, 24° and 26° stick and those at 27°, 29° and 32° slide by
// g (sin θ − μ cos θ) t² / 2 down the ramp, every step solved.
TEST(SlopesScene, BoxesStickBelowTheFrictionAngleAndSlideAbove) {
  contact3d::Scene scene = read_scene3d_file(PERP_EXAMPLE_SCENES_DIR "/slopes3d.json");
  ASSERT_EQ(scene.world.bodies.size(), 12u);
  const World start = scene.world;
  const double mu = scene.options.friction;
  ASSERT_EQ(mu, 0.5);
  const std::size_t steps = 60;
  for (std::size_t k = 0; k < steps; ++k) {
    const StepReport report = contact3d::moreau_jean_step(scene.world, scene.options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << k;
  }
  const double t = static_cast<double>(steps) * scene.options.timestep;
  int sticking = 0;
  int sliding = 0;
  for (std::size_t i = 0; i + 1 < start.bodies.size(); i += 2) {
    const Body& ramp = start.bodies[i];
    const Body& box = start.bodies[i + 1];
    ASSERT_TRUE(ramp.fixed) << ramp.name;
    ASSERT_FALSE(box.fixed) << box.name;
    const Eigen::Vector3d n = ramp.rotation().col(2);
    const double theta = std::acos(n.z());
    const Eigen::Vector3d d = (n.z() * n - Eigen::Vector3d::UnitZ()).normalized();
    const bool sticks = std::tan(theta) <= mu;
    (sticks ? sticking : sliding) += 1;
    const double a = sticks ? 0.0 : kG * (std::sin(theta) - mu * std::cos(theta));
    const Eigen::Vector3d shift = scene.world.bodies[i + 1].position - box.position;
    EXPECT_NEAR(shift.dot(d), 0.5 * a * t * t, 1e-9) << box.name;
    EXPECT_LT((shift - shift.dot(d) * d).norm(), 1e-9) << box.name;
    EXPECT_NEAR(scene.world.bodies[i + 1].velocity.dot(d), a * t, 1e-9) << box.name;
    EXPECT_LT(scene.world.bodies[i + 1].angular_velocity.norm(), 1e-9) << box.name;
  }
  EXPECT_EQ(sticking, 3);
  EXPECT_EQ(sliding, 3);
}

// examples/scenes/spheres1000_3d.json: 1 000 spheres of radius 5 cm on a 10 × 10 × 10 lattice of
// pitch 13 cm (each jittered by up to 1 cm across), inside the open box of four wall planes at
// x, y = ±1.1 m on the ground: read only (the pour is run by bench/compare_3d and `perp simulate`).
// Nothing overlaps at the start: lattice neighbours are at least 13 − 2 = 11 cm apart (> 10 cm), and
// every sphere is inside the walls and above the ground.
TEST(SpheresScene, ThousandSpheresStartInsideTheBoxWithoutOverlap) {
  const contact3d::Scene scene = read_scene3d_file(PERP_EXAMPLE_SCENES_DIR "/spheres1000_3d.json");
  ASSERT_EQ(scene.world.bodies.size(), 1000u);
  ASSERT_EQ(scene.world.planes.size(), 4u);
  ASSERT_TRUE(scene.world.ground.has_value());
  EXPECT_TRUE(contact3d::detect_contacts(scene.world, 0.0).empty());
  for (const Body& b : scene.world.bodies) {
    ASSERT_EQ(b.shape.kind, contact3d::ShapeKind::Sphere) << b.name;
    EXPECT_LT(b.position.head<2>().cwiseAbs().maxCoeff() + b.shape.radius, 1.1) << b.name;
    EXPECT_GT(b.position.z() - b.shape.radius, 0.0) << b.name;
  }
}

}  // namespace
}  // namespace perp::contact3d_slope_test
