// Drift correction: Baumgarte's separation velocity and the split impulse, on a disk that starts
// inside the ground.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "perp/contact/moreau_jean.hpp"
#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_stabilization_test {
namespace {

/// A disk of radius 0.1 at rest, 1 cm inside the ground.
World sunk_disk() {
  World world;
  world.bodies = {test::disk("ball", 0.1, 2.0, {0.0, 0.09})};
  world.ground = Ground{0};
  return world;
}

double overlap(const World& world) { return 0.1 - world.bodies[0].position.y(); }
double overlap_of(const World& world, Eigen::Index k) {
  return 0.1 - world.bodies[static_cast<std::size_t>(k)].position.y();
}

// Plain Moreau–Jean (the drift correction off) keeps the overlap (it never grows at rest) and the
// disk at rest.
TEST(Stabilization, WithoutItTheOverlapStays) {
  World world = sunk_disk();
  MoreauJeanOptions options;
  options.baumgarte = 0;
  for (int k = 0; k < 100; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  EXPECT_NEAR(overlap(world), 0.01, 1e-12);
  EXPECT_NEAR(world.bodies[0].velocity.norm(), 0, 1e-12);
}

// The split impulse moves the positions by β times the overlap past the slop each step, exactly
// (one contact: W λ = −b gives Δg = h W λ = β (−g − slop)), and adds no velocity.
TEST(Stabilization, SplitImpulseShrinksTheOverlapGeometricallyWithoutVelocity) {
  World world = sunk_disk();
  MoreauJeanOptions options;
  options.baumgarte = 0.2;
  options.slop = 0.001;
  options.split_impulse = true;
  double expected = 0.01;
  for (int k = 0; k < 30; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved);
    ASSERT_EQ(report.split_status, Status::Solved);
    ASSERT_EQ(report.split_contacts, 1u);
    expected -= 0.2 * (expected - 0.001);
    EXPECT_NEAR(overlap(world), expected, 1e-12) << "step " << k;
    EXPECT_NEAR(world.bodies[0].velocity.norm(), 0, 1e-12) << "step " << k;
  }
  // Within the slop nothing is corrected.
  world.bodies[0].position.y() = 0.1 - 0.0005;
  const StepReport report = moreau_jean_step(world, options);
  EXPECT_EQ(report.split_contacts, 0u);
  EXPECT_NEAR(overlap(world), 0.0005, 1e-12);
}

// Above 16 overlapping contacts the split is solved by sweeps. Its multipliers are the report's
// `split_impulse` and are kept in `World::impulses`; the next step's split starts from them. Twenty
// disks apart on the ground, each 1 cm in: W is diagonal (1/m), so h λ/m = β (overlap − slop), λ =
// 0.2 · 0.009 · 2 / h for each. The same state stepped again with the kept impulses starts at a
// point that meets the split's tolerance (no sweep, the same multipliers); without them the sweeps run.
TEST(Stabilization, TheSplitsSweepsStartFromTheLastSplit) {
  World world;
  for (int k = 0; k < 20; ++k) world.bodies.push_back(test::disk("d" + std::to_string(k), 0.1, 2.0, {0.5 * k, 0.09}));
  world.ground = Ground{0};
  MoreauJeanOptions options;
  options.baumgarte = 0.2;
  options.slop = 0.001;
  const World start = world;
  const StepReport first = moreau_jean_step(world, options);
  ASSERT_EQ(first.status, Status::Solved);
  ASSERT_EQ(first.split_contacts, 20u);
  ASSERT_EQ(first.split_status, Status::Solved);
  EXPECT_GT(first.split_sweeps, 0u);
  ASSERT_EQ(first.split_impulse.size(), 20);
  const double hand = 0.2 * 0.009 * 2.0 / options.timestep;
  ASSERT_EQ(world.impulses.size(), 20u);
  for (Eigen::Index k = 0; k < 20; ++k) {
    EXPECT_NEAR(first.split_impulse[k], hand, 1e-6 * hand) << k;
    EXPECT_EQ(world.impulses[static_cast<std::size_t>(k)].split, first.split_impulse[k]) << k;
    EXPECT_NEAR(overlap_of(world, k), 0.01 - 0.2 * 0.009, 1e-8) << k;
  }
  const std::vector<ContactImpulse> kept = world.impulses;
  world = start;
  world.impulses = kept;
  const StepReport again = moreau_jean_step(world, options);
  ASSERT_EQ(again.split_status, Status::Solved);
  EXPECT_EQ(again.split_sweeps, 0u);
  EXPECT_EQ(again.split_impulse, first.split_impulse);
  world = start;
  const StepReport cold = moreau_jean_step(world, options);
  EXPECT_EQ(cold.split_sweeps, first.split_sweeps);
}

// By default the split impulse (β = 0.2) takes the overlap down to the 5 mm slop geometrically, and
// adds no velocity; it stops once the excess over the slop is within 1 % of the slop (50 µm), so
// that a body at rest is not moved at every step by a vanishing correction.
TEST(Stabilization, ByDefaultTheSplitImpulseLeavesTheSlop) {
  World world = sunk_disk();
  const MoreauJeanOptions options;
  ASSERT_TRUE(options.split_impulse);
  double expected = 0.01;
  int corrected = 0;
  for (int k = 0; k < 60; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved);
    if (expected - 0.005 > 0.01 * 0.005) {
      expected -= 0.2 * (expected - 0.005);
      ++corrected;
      EXPECT_EQ(report.split_contacts, 1u) << "step " << k;
    } else {
      EXPECT_EQ(report.split_contacts, 0u) << "step " << k;
    }
    EXPECT_NEAR(overlap(world), expected, 1e-12) << "step " << k;
    EXPECT_NEAR(world.bodies[0].velocity.norm(), 0, 1e-12) << "step " << k;
  }
  // 0.8^k · 5 mm <= 50 µm from k = 21 on.
  EXPECT_EQ(corrected, 21);
  EXPECT_GT(overlap(world), 0.005);
  EXPECT_LE(overlap(world), 0.005 * 1.01);
}

// Baumgarte asks for the separation velocity β (overlap − slop)/h: the disk leaves the overlap with
// that velocity (then flies a little: the energy it adds), and every step is solved.
TEST(Stabilization, BaumgarteSeparatesAtBetaOverlapOverH) {
  World world = sunk_disk();
  MoreauJeanOptions options;
  options.baumgarte = 0.2;
  options.slop = 0;
  options.split_impulse = false;
  const StepReport first = moreau_jean_step(world, options);
  ASSERT_EQ(first.status, Status::Solved);
  EXPECT_NEAR(world.bodies[0].velocity.y(), 0.2 * 0.01 / options.timestep, 1e-9);
  for (int k = 0; k < 2000; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  EXPECT_LT(overlap(world), 1e-9);
}

TEST(Stabilization, OptionsAreChecked) {
  World world = sunk_disk();
  MoreauJeanOptions options;
  options.baumgarte = 1.0;
  EXPECT_THROW((void)moreau_jean_step(world, options), InvalidProblem);
  options.baumgarte = 0.5;
  options.slop = -1;
  EXPECT_THROW((void)moreau_jean_step(world, options), InvalidProblem);
}

}  // namespace
}  // namespace perp::contact::contact_stabilization_test
