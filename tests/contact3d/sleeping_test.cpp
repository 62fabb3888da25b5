// Sleeping islands in the 3D step (StepOptions::sleeping; the planar step's rule, shared through
// contact/sleeping.hpp): a box at rest sleeps after sleep_time and stays exactly where it is, a sphere
// landing on it wakes it, bodies joined only through the ground sleep apart, and the run until the
// island sleeps is the run without sleeping, to the bit.

#include <gtest/gtest.h>


#include "perp/contact3d/moreau_jean.hpp"

namespace perp::contact3d_sleeping_test {
namespace {

using contact3d::Body;
using contact3d::Ground;
using contact3d::Shape;
using contact3d::StepOptions;
using contact3d::StepReport;
using contact3d::World;

/// A 0.4 × 0.3 × 0.2 box of 2 kg just above the ground (z = 0), flat.
World box_on_the_ground() {
  World world;
  world.ground = Ground{.height = 0.0};
  world.bodies.push_back(
      Body{.name = "box", .shape = Shape::box({0.4, 0.3, 0.2}), .position = {0.0, 0.0, 0.1 + 1e-4}, .mass = 2.0});
  return world;
}

StepOptions sleepy() {
  StepOptions options{.timestep = 1.0 / 60, .friction = 0.5};
  options.sleeping = true;
  options.sleep_time = 0.25;
  return options;
}

TEST(Sleeping3d, ABoxAtRestSleepsAfterItsTimeAndDoesNotMove) {
  World world = box_on_the_ground();
  World awake = world;
  StepOptions options = sleepy();
  StepOptions always = options;
  always.sleeping = false;
  int first_asleep = -1;
  for (int s = 0; s < 120; ++s) {
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << s;
    if (report.sleeping_bodies == 0) {
      // Until the island sleeps the step is the one without sleeping, to the bit.
      ASSERT_EQ(first_asleep, -1) << "woke at step " << s << " with nothing to wake it";
      (void)contact3d::moreau_jean_step(awake, always);
      EXPECT_EQ(world.bodies[0].position, awake.bodies[0].position) << "step " << s;
      EXPECT_EQ(world.bodies[0].velocity, awake.bodies[0].velocity) << "step " << s;
      continue;
    }
    if (first_asleep < 0) first_asleep = s;
    EXPECT_EQ(report.sleeping_bodies, 1u);
    EXPECT_TRUE(report.contacts.empty()) << "a sleeping island's contacts are out of the solve";
    EXPECT_EQ(report.status, Status::Solved);
  }
  // It lands within a few steps and then rests; at rest for 0.25 s = 15 steps, it sleeps.
  ASSERT_GE(first_asleep, 15);
  ASSERT_LT(first_asleep, 60);
  const Body& box = world.bodies[0];
  EXPECT_EQ(box.velocity, Eigen::Vector3d::Zero());
  EXPECT_EQ(box.angular_velocity, Eigen::Vector3d::Zero());
  const Eigen::Vector3d where = box.position;
  const Eigen::Quaterniond turned = box.orientation;
  // Its four contacts' impulses are kept for when it wakes.
  EXPECT_EQ(world.impulses.size(), 4u);
  for (int s = 0; s < 30; ++s) (void)contact3d::moreau_jean_step(world, options);
  EXPECT_EQ(world.bodies[0].position, where);
  EXPECT_EQ(world.bodies[0].orientation.coeffs(), turned.coeffs());
  // At rest on the ground, up to the landing's overlap (h g h ≈ 2.7 mm here), which the drift
  // correction leaves within its slop.
  EXPECT_NEAR(where.z(), 0.1, options.slop);
}

TEST(Sleeping3d, ASphereLandingOnASleepingBoxWakesItsIsland) {
  World world = box_on_the_ground();
  StepOptions options = sleepy();
  for (int s = 0; s < 60; ++s) (void)contact3d::moreau_jean_step(world, options);
  ASSERT_EQ(world.rest_time.size(), 1u);
  ASSERT_GE(world.rest_time[0], options.sleep_time);
  // A 1 kg sphere dropped from 0.5 m above the box's top face.
  world.bodies.push_back(Body{.name = "ball", .shape = Shape::sphere(0.05), .position = {0.0, 0.0, 0.75}, .mass = 1.0});
  bool woke = false;
  double box_load = 0;
  for (int s = 0; s < 60 && !woke; ++s) {
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << s;
    for (std::size_t k = 0; k < report.contacts.size(); ++k) {
      const contact3d::Contact& c = report.contacts[k];
      if (c.body_a == 0 && c.body_b == -1) box_load += report.impulses[3 * static_cast<Eigen::Index>(k)];
    }
    woke = report.sleeping_bodies == 0 && !report.contacts.empty() && box_load > 0;
  }
  ASSERT_TRUE(woke) << "the box never took part in a solve again";
  // The ground's impulse on the woken box carries its own weight for a step at least.
  EXPECT_GT(box_load, 0.5 * 2.0 * 9.81 * options.timestep);
}

TEST(Sleeping3d, AKinematicBodyWakesWhatItTouches) {
  // A sleeping box and a fixed box moving towards it at 0.5 m/s (kinematic): the moving box is
  // searched against the sleeping one, wakes its island, and pushes it along +x instead of passing
  // through it.
  World world = box_on_the_ground();
  StepOptions options = sleepy();
  for (int s = 0; s < 60; ++s) (void)contact3d::moreau_jean_step(world, options);
  ASSERT_GE(world.rest_time[0], options.sleep_time);
  world.bodies.push_back(Body{.name = "pusher",
                              .shape = Shape::box({0.2, 0.3, 0.2}),
                              .position = {-0.4, 0.0, 0.1},
                              .velocity = {0.5, 0.0, 0.0},
                              .fixed = true});
  for (int s = 0; s < 60; ++s) {
    const StepReport report = contact3d::moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << s;
  }
  // After 1 s the pusher's front face is at −0.4 + 0.1 + 0.5 = 0.2: the box (half length 0.2) is
  // pushed ahead of it, its centre at 0.4 or beyond (up to the contact's activation and overlap).
  EXPECT_GT(world.bodies[0].position.x(), 0.4 - 0.01);
  EXPECT_GT(world.bodies[0].position.z(), 0.1 - 0.01);  // still on the ground, not through it
}

TEST(Sleeping3d, BodiesJoinedOnlyThroughTheGroundSleepApart) {
  // A resting box and a sphere rolling along the ground far from it: the ground joins nothing, so
  // the box sleeps while the sphere keeps moving.
  World world = box_on_the_ground();
  world.bodies.push_back(Body{.name = "ball",
                              .shape = Shape::sphere(0.1),
                              .position = {3.0, 0.0, 0.1},
                              .velocity = {1.0, 0.0, 0.0},
                              .angular_velocity = {0.0, 10.0, 0.0},
                              .mass = 1.0});
  StepOptions options = sleepy();
  StepReport report;
  for (int s = 0; s < 60; ++s) report = contact3d::moreau_jean_step(world, options);
  EXPECT_EQ(report.sleeping_bodies, 1u);
  EXPECT_EQ(world.bodies[0].velocity, Eigen::Vector3d::Zero());
  EXPECT_GT(world.bodies[1].velocity.norm(), 0.5);
}

}  // namespace
}  // namespace perp::contact3d_sleeping_test
