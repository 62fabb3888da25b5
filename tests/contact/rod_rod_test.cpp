// Rods against rods: an end against the other's length or end, and the side an end remembers, so
// that an end an impact carried past a rod's line (which has no thickness) is pushed back, not through.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "perp/contact/detection.hpp"
#include "perp/contact/moreau_jean.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_rod_rod_test {
namespace {

using test::rod;

/// Rod "upper" (length 1, mass 1) above a fixed rod "base" (length 2) lying along y = 0.
World upper_over_base(double height, double x = 0.2, double angle = 0.0) {
  World world;
  world.bodies = {rod("upper", 1.0, 1.0, {x, height}, angle), rod("base", 2.0, 1.0, {0, 0}, 0.0)};
  world.bodies[1].fixed = true;
  return world;
}

TEST(RodRod, EndsAgainstTheOthersLengthAndEnd) {
  World world = upper_over_base(0.05);
  // upper's ends at x = −0.3 and 0.7 are over base's length; base's ends (x = ±1) are beyond upper's.
  std::vector<Contact> contacts = detect_contacts(world, 0.1);
  ASSERT_EQ(contacts.size(), 2u);
  for (const Contact& c : contacts) {
    EXPECT_EQ(c.body_a, 0);
    EXPECT_EQ(c.body_b, 1);
    EXPECT_NEAR(c.gap, 0.05, 1e-15);
    EXPECT_NEAR(c.normal.y(), 1, 1e-15);
    EXPECT_NEAR(c.point.y(), 0.05, 1e-15);
  }
  EXPECT_NEAR(contacts[0].point.x(), -0.3, 1e-15);
  EXPECT_NEAR(contacts[1].point.x(), 0.7, 1e-15);
  EXPECT_TRUE(detect_contacts(world, 0.04).empty());  // beyond the margin

  // In line, end to end: upper's left end 0.1 to the right of base's right end.
  world.bodies[0].position = {1.6, 0};
  contacts = detect_contacts(world, 0.2);
  ASSERT_EQ(contacts.size(), 1u);  // found once, as upper's end against base's closed segment
  EXPECT_EQ(contacts[0].body_a, 0);
  EXPECT_NEAR(contacts[0].gap, 0.1, 1e-15);
  EXPECT_NEAR(contacts[0].normal.x(), 1, 1e-15);

  // base's end against upper's length: upper vertical, its length passing 0.03 right of base's end.
  world.bodies[0].position = {1.03, 0.2};
  world.bodies[0].angle = std::acos(-1.0) / 2;
  contacts = detect_contacts(world, 0.05);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].body_a, 1);  // base's end, pushed left, off upper
  EXPECT_EQ(contacts[0].body_b, 0);
  EXPECT_NEAR(contacts[0].gap, 0.03, 1e-12);
  EXPECT_NEAR(contacts[0].normal.x(), -1, 1e-12);
}

// An end 1 mm below base's line: seen from where it is, a contact from below; with the side kept
// from the step before (above), an overlap of 1 mm that pushes it up.
TEST(RodRod, AnEndPastTheLineKeepsItsSide) {
  World world = upper_over_base(0.002);
  const std::vector<Contact> before = detect_contacts(world, 0.01);
  ASSERT_EQ(before.size(), 2u);
  const std::vector<RodSide> sides = rod_sides_of(world, before);
  ASSERT_EQ(sides.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(sides[static_cast<std::size_t>(k)].rod, 0);
    EXPECT_EQ(sides[static_cast<std::size_t>(k)].end, k);
    EXPECT_EQ(sides[static_cast<std::size_t>(k)].other, 1);
    EXPECT_EQ(sides[static_cast<std::size_t>(k)].side, 1);  // base's left normal is +y
  }

  world.bodies[0].position.y() = -0.001;
  for (const Contact& c : detect_contacts(world, 0.01)) {
    EXPECT_NEAR(c.normal.y(), -1, 1e-15);  // no memory: the side it is on now
    EXPECT_NEAR(c.gap, 0.001, 1e-15);
  }
  world.rod_sides = sides;
  const std::vector<Contact> after = detect_contacts(world, 0.01);
  ASSERT_EQ(after.size(), 2u);
  for (const Contact& c : after) {
    EXPECT_NEAR(c.normal.y(), 1, 1e-15);
    EXPECT_NEAR(c.gap, -0.001, 1e-15);
  }
  // Against an end (not a length) nothing is kept: the normal joins the two ends.
  world.bodies[0].position = {1.6, 0};
  EXPECT_TRUE(rod_sides_of(world, detect_contacts(world, 0.2)).empty());
}

/// Steps `world` for `seconds`; every step solved, and upper's centre never below `floor`.
void run(World& world, const MoreauJeanOptions& options, double seconds, double floor) {
  const int steps = static_cast<int>(std::lround(seconds / options.timestep));
  for (int k = 0; k < steps; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << k << ": " << report.result.message;
    ASSERT_GE(world.bodies[0].position.y(), floor) << "step " << k;
  }
}

// A rod dropped flat from 0.45 m lands on a fixed rod at 2.97 m/s (the impact that carried an end
// 7e-4 m past the line, and the rod through it at the next step, before the side was kept) and
// rests on it, at h = 1e-3 and at h = 1/60.
TEST(RodRod, ARodDroppedFlatOnAFixedRodRestsOnIt) {
  for (const double h : {1e-3, 1.0 / 60}) {
    SCOPED_TRACE("h = " + std::to_string(h));
    World world = upper_over_base(0.45);
    MoreauJeanOptions options;
    options.timestep = h;
    options.friction = 0.5;
    run(world, options, 1.5, -0.06);
    const Body& upper = world.bodies[0];
    EXPECT_NEAR(upper.position.y(), 0, 0.05);  // the impact's overlap, O(h v), is kept
    EXPECT_GE(upper.position.y(), -h * 3.0);
    EXPECT_NEAR(upper.angle, 0, 1e-6);
    EXPECT_NEAR(upper.velocity.norm(), 0, 1e-6);
    EXPECT_NEAR(upper.position.x(), 0.2, 1e-6);  // landed flat: no sideways impulse
  }
}

// Tilted, it lands on one end, turns down onto the other and rests flat on the fixed rod.
TEST(RodRod, ATiltedRodLandsOnAnEndAndSettlesOnTheOtherRod) {
  World world = upper_over_base(0.3, 0.1, 0.3);
  MoreauJeanOptions options;
  options.friction = 0.8;
  run(world, options, 2.0, -0.01);
  const Body& upper = world.bodies[0];
  // Each end keeps the overlap of its own impact (O(h v), a few mm over the rod's length of 1).
  EXPECT_NEAR(upper.angle, 0, 0.01);
  EXPECT_NEAR(upper.position.y(), 0, 0.01);
  EXPECT_NEAR(upper.velocity.norm(), 0, 1e-6);
  EXPECT_FALSE(world.rod_sides.empty());  // its two ends, kept for the next step
}

// Two free rods: one lying on the ground, one dropped on it; the upper rests on the lower (with
// sleeping, both fall asleep there and the memory of the sleeping pair is kept).
TEST(RodRod, ARodRestsOnARodLyingOnTheGround) {
  for (const bool sleeping : {false, true}) {
    SCOPED_TRACE(sleeping ? "sleeping" : "awake");
    World world = upper_over_base(0.3);
    world.bodies[1].fixed = false;
    world.ground = Ground{0.0};
    MoreauJeanOptions options;
    options.friction = 0.5;
    options.sleeping = sleeping;
    run(world, options, 2.0, -0.01);
    EXPECT_NEAR(world.bodies[1].position.y(), 0, 1e-6);  // the lower rod, ends on the ground
    EXPECT_NEAR(world.bodies[0].position.y(), 0, 0.01);
    EXPECT_GE(world.bodies[0].position.y(), world.bodies[1].position.y() - 0.01);
    EXPECT_NEAR(world.bodies[0].velocity.norm(), 0, 1e-6);
    EXPECT_EQ(world.rod_sides.size(), 2u);
  }
}

}  // namespace
}  // namespace perp::contact::contact_rod_rod_test
