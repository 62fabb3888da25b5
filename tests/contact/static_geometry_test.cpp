// Walls, slopes, fixed bodies, per-body materials and rods against bodies: the closed forms of
// the flat-ground tests, on a slope, and the contact geometry each new pair produces.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "perp/contact/detection.hpp"
#include "perp/contact/moreau_jean.hpp"
#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_static_geometry_test {
namespace {

using test::box;
using test::disk;
using test::rod;

constexpr double kG = 9.81;

/// A plane through the origin rising to the right at angle `alpha`.
Plane slope(double alpha) {
  Plane plane;
  plane.name = "slope";
  plane.normal = {-std::sin(alpha), std::cos(alpha)};
  return plane;
}

/// Unit vectors down the slope and out of it.
Eigen::Vector2d down_slope(double alpha) { return {-std::cos(alpha), -std::sin(alpha)}; }

/// A box of width w and height h resting on `slope(alpha)` with its centre at distance s along
/// the slope from the origin.
Body box_on_slope(double alpha, double w, double h, double s) {
  const Eigen::Vector2d along(std::cos(alpha), std::sin(alpha));
  const Eigen::Vector2d normal(-std::sin(alpha), std::cos(alpha));
  return box("crate", w, h, 2.0, s * along + 0.5 * h * normal, alpha);
}

TEST(StaticGeometry, PlaneContactsHaveThePlaneNormalAndSignedGaps) {
  const double alpha = 0.3;
  World world;
  world.planes = {slope(alpha)};
  world.planes[0].normal *= 7;  // any length: normalized where it is used
  world.bodies = {box_on_slope(alpha, 1.0, 0.5, 2.0)};
  world.bodies[0].position += 0.01 * Eigen::Vector2d(-std::sin(alpha), std::cos(alpha));  // 1 cm above
  const std::vector<Contact> contacts = detect_contacts(world, 0.02);
  ASSERT_EQ(contacts.size(), 2u);  // the two lower corners
  for (const Contact& c : contacts) {
    EXPECT_EQ(c.body_b, plane_id(0));
    EXPECT_EQ(plane_of(c.body_b), 0u);
    EXPECT_NEAR(c.normal.x(), -std::sin(alpha), 1e-15);
    EXPECT_NEAR(c.normal.y(), std::cos(alpha), 1e-15);
    EXPECT_NEAR(c.gap, 0.01, 1e-12);
    EXPECT_EQ(c.arm_b, Eigen::Vector2d::Zero());
  }
  EXPECT_TRUE(detect_contacts(world, 0.005).empty());
}

// Below the friction angle (tan α < μ) the block stays; above it slides with a = g (sin α − μ cos α),
// exactly as on flat ground with tilted gravity.
TEST(StaticGeometry, BoxOnASlopeSticksBelowTheFrictionAngleAndSlidesAbove) {
  for (const double alpha : {0.2, 0.5}) {
    const double mu = 0.4;  // friction angle atan(0.4) = 0.381
    World world;
    world.planes = {slope(alpha)};
    world.bodies = {box_on_slope(alpha, 0.4, 0.2, 1.0)};
    const Eigen::Vector2d start = world.bodies[0].position;
    MoreauJeanOptions options;
    options.friction = mu;
    options.timestep = 1e-3;
    options.solve.tolerance = 1e-12;
    const int steps = 500;
    for (int k = 0; k < steps; ++k) {
      const StepReport report = moreau_jean_step(world, options);
      ASSERT_EQ(report.status, Status::Solved) << "alpha " << alpha << " step " << k;
      ASSERT_EQ(report.contacts.size(), 2u);
    }
    const double t = steps * options.timestep;
    const double a = std::tan(alpha) <= mu ? 0.0 : kG * (std::sin(alpha) - mu * std::cos(alpha));
    const Body& body = world.bodies[0];
    const Eigen::Vector2d down = down_slope(alpha);
    EXPECT_NEAR(body.velocity.dot(down), a * t, 1e-9) << "alpha " << alpha;
    // Nothing across the slope, no rotation; the distance of uniform acceleration (θ = ½ is exact
    // for a constant force).
    EXPECT_NEAR(body.velocity.dot(Eigen::Vector2d(-down.y(), down.x())), 0, 1e-9);
    EXPECT_NEAR(body.angular_velocity, 0, 1e-9);
    EXPECT_NEAR(body.angle, alpha, 1e-9);
    EXPECT_NEAR((body.position - start).dot(down), 0.5 * a * t * t, 1e-9) << "alpha " << alpha;
  }
}

// A disk on a slope rolls without slipping with a = (2/3) g sin α when μ >= tan α / 3.
TEST(StaticGeometry, DiskRollsDownASlopeAtTwoThirdsGSinAlpha) {
  const double alpha = 0.4;
  const double r = 0.1;
  World world;
  world.planes = {slope(alpha)};
  world.bodies = {disk("ball", r, 1.0, r * Eigen::Vector2d(-std::sin(alpha), std::cos(alpha)))};
  MoreauJeanOptions options;
  options.friction = 0.5;  // > tan(0.4)/3 = 0.141
  options.timestep = 1e-3;
  options.solve.tolerance = 1e-12;
  for (int k = 0; k < 400; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  const double t = 0.4;
  const Body& ball = world.bodies[0];
  const double speed = ball.velocity.dot(down_slope(alpha));
  EXPECT_NEAR(speed, 2.0 / 3.0 * kG * std::sin(alpha) * t, 1e-9);
  EXPECT_NEAR(ball.angular_velocity, speed / r, 1e-7);  // rolling: v = ω r (ω > 0 rolling left)
}

// A disk thrown at a wall bounces back with e times its normal speed, and keeps its speed along
// the wall (frictionless).
TEST(StaticGeometry, DiskBouncesOffAWallWithItsRestitution) {
  World world;
  Plane wall;
  wall.name = "wall";
  wall.point = {1.0, 0.0};
  wall.normal = {-1.0, 0.0};  // the solid is x >= 1
  world.planes = {wall};
  world.bodies = {disk("ball", 0.1, 1.0, {0.5, 0.0})};
  world.bodies[0].velocity = {2.0, 0.5};
  world.bodies[0].restitution = 0.8;
  MoreauJeanOptions options;
  options.gravity = Eigen::Vector2d::Zero();
  options.timestep = 1e-3;
  options.restitution = 0.0;  // the ball's own 0.8 wins: contacts take the larger
  for (int k = 0; k < 400; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  EXPECT_NEAR(world.bodies[0].velocity.x(), -1.6, 1e-12);
  EXPECT_NEAR(world.bodies[0].velocity.y(), 0.5, 1e-12);
  EXPECT_LT(world.bodies[0].position.x(), 0.9);
}

TEST(StaticGeometry, MaterialsCombineByGeometricMeanAndLarger) {
  EXPECT_EQ(combine_friction({}, {}, 0.3), 0.3);
  EXPECT_DOUBLE_EQ(combine_friction(0.4, 0.9, 0.3), 0.6);
  EXPECT_DOUBLE_EQ(combine_friction(0.12, {}, 0.3), std::sqrt(0.036));
  EXPECT_EQ(combine_friction(0.0, 0.9, 0.3), 0.0);
  EXPECT_EQ(combine_restitution({}, {}, 0.25), 0.25);
  EXPECT_EQ(combine_restitution(0.1, {}, 0.25), 0.25);
  EXPECT_EQ(combine_restitution(0.9, 0.1, 0.25), 0.9);
}

// A block on a slope made frictionless by its own material slides at g sin α whatever the scene's μ.
TEST(StaticGeometry, PerBodyFrictionOverridesTheScenes) {
  const double alpha = 0.3;
  World world;
  world.planes = {slope(alpha)};
  world.bodies = {box_on_slope(alpha, 0.4, 0.2, 1.0)};
  world.bodies[0].friction = 0.0;
  MoreauJeanOptions options;
  options.friction = 1.0;
  options.solve.tolerance = 1e-12;
  for (int k = 0; k < 200; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  EXPECT_NEAR(world.bodies[0].velocity.dot(down_slope(alpha)), kG * std::sin(alpha) * 0.2, 1e-9);
}

// A fixed box is an obstacle: a box rests on it, and neither gravity nor the contact moves it; a
// fixed box with a velocity (a kinematic one) carries a resting box along by friction.
TEST(StaticGeometry, FixedBodiesHoldAndCarry) {
  World world;
  world.bodies = {box("table", 2.0, 0.2, 1.0, {0, 0}), box("cup", 0.2, 0.2, 0.5, {0, 0.2})};
  world.bodies[0].fixed = true;
  MoreauJeanOptions options;
  options.friction = 0.5;
  options.solve.tolerance = 1e-12;
  for (int k = 0; k < 300; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  EXPECT_EQ(world.bodies[0].position, Eigen::Vector2d(0, 0));
  EXPECT_EQ(world.bodies[0].velocity, Eigen::Vector2d::Zero());
  EXPECT_NEAR(world.bodies[1].position.y(), 0.2, 1e-9);
  EXPECT_NEAR(world.bodies[1].velocity.norm(), 0, 1e-9);
  // The fixed table enters no energy: only the cup's m g y.
  EXPECT_DOUBLE_EQ(energy(world, options.gravity).potential, 0.5 * kG * world.bodies[1].position.y());

  // The conveyor: the table moves at 0.3 m/s; the cup, at rest on it, is accelerated by μ g
  // until it moves with it (after 0.3 / (0.5 g) = 61 ms), then rides along.
  world.bodies[1].position = {0, 0.2};
  world.bodies[1].velocity = Eigen::Vector2d::Zero();
  world.bodies[0].velocity = {0.3, 0};
  for (int k = 0; k < 200; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  EXPECT_NEAR(world.bodies[0].position.x(), 0.3 * 0.2, 1e-12);
  EXPECT_NEAR(world.bodies[1].velocity.x(), 0.3, 1e-9);
  EXPECT_NEAR(world.bodies[1].position.y(), 0.2, 1e-9);

  // Two fixed bodies overlapping each other make no contact.
  world.bodies[1].fixed = true;
  world.bodies[1].position = {0, 0};
  EXPECT_TRUE(detect_contacts(world, 0.0).empty());
}

TEST(StaticGeometry, RodsTouchDisksAndBoxes) {
  World world;
  // A horizontal rod of length 2 at height 1; a disk of radius 0.1 just above its middle.
  world.bodies = {rod("rod", 2.0, 1.0, {0, 1}, 0.0), disk("ball", 0.1, 1.0, {0.3, 1.15})};
  std::vector<Contact> contacts = detect_contacts(world, 0.1);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].body_a, 1);  // the disk, pushed up
  EXPECT_EQ(contacts[0].body_b, 0);
  EXPECT_NEAR(contacts[0].gap, 0.05, 1e-15);
  EXPECT_NEAR(contacts[0].normal.y(), 1, 1e-15);
  EXPECT_NEAR(contacts[0].point.x(), 0.3, 1e-15);
  // Past the rod's end the closest point is the end point.
  world.bodies[1].position = {1.2, 1.0};
  contacts = detect_contacts(world, 0.2);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].gap, 0.1, 1e-15);
  EXPECT_NEAR(contacts[0].normal.x(), 1, 1e-15);

  // A rod standing on a box: its lower end on the box's top face.
  world.bodies = {rod("rod", 1.0, 1.0, {0, 1.01}, std::numbers::pi / 2), box("base", 1.0, 1.0, 1.0, {0, 0})};
  contacts = detect_contacts(world, 0.02);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].body_a, 0);
  EXPECT_EQ(contacts[0].body_b, 1);
  EXPECT_NEAR(contacts[0].gap, 0.01, 1e-12);
  EXPECT_NEAR(contacts[0].normal.y(), 1, 1e-12);
  // A box resting across a rod's middle: the box's two lower corners against the rod's length.
  world.bodies = {rod("rod", 4.0, 1.0, {0, 0}, 0.0), box("lid", 1.0, 0.2, 1.0, {0.5, 0.1})};
  contacts = detect_contacts(world, 1e-9);
  ASSERT_EQ(contacts.size(), 2u);
  for (const Contact& c : contacts) {
    EXPECT_EQ(c.body_a, 1);
    EXPECT_NEAR(c.gap, 0, 1e-15);
    EXPECT_NEAR(c.normal.y(), 1, 1e-15);
  }
}

// A rod dropped flat on a fixed box comes to rest on it (the scene of the issue: a rod falling on a box).
TEST(StaticGeometry, RodFallsOnABoxAndRests) {
  World world;
  world.bodies = {rod("rod", 1.0, 1.0, {0.2, 1.0}, 0.0), box("base", 1.0, 1.0, 1.0, {0, 0})};
  world.bodies[1].fixed = true;
  MoreauJeanOptions options;
  options.friction = 0.5;
  for (int k = 0; k < 2000; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved) << k;
  // The rod's left end rests on the top face (y = 0.5); its centre (x = 0.2) is over the box, so it
  // lies flat there, at rest.
  const Body& r = world.bodies[0];
  EXPECT_NEAR(r.angle, 0, 1e-6);
  EXPECT_NEAR(r.position.y(), 0.5, 4e-3);  // the impact's overlap, O(h v) = O(1e-3 · 3 m/s), is kept
  EXPECT_NEAR(r.velocity.norm(), 0, 1e-6);
}

TEST(StaticGeometry, BadPlanesAndMaterialsAreRefusedByName) {
  World world;
  world.planes = {Plane{"left", {0, 0}, {0, 0}, {}, {}}};
  try {
    world.validate();
    FAIL();
  } catch (const InvalidProblem& error) {
    EXPECT_NE(std::string(error.what()).find("planes[0] \"left\": normal must be finite and non-zero"),
              std::string::npos)
        << error.what();
  }
  world.planes[0].normal = {1, 0};
  world.planes[0].friction = -1;
  EXPECT_THROW(world.validate(), InvalidProblem);
  world.planes.clear();
  world.bodies = {disk("ball", 0.1, 1, {0, 0})};
  world.bodies[0].restitution = 1.5;
  EXPECT_THROW(world.validate(), InvalidProblem);
}

}  // namespace
}  // namespace perp::contact::contact_static_geometry_test
