#include "perp/contact/moreau_jean.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_moreau_jean_test {
namespace {

using testing::HasSubstr;
using test::box;
using test::disk;
using test::disk_heap_between_walls;

constexpr double kG = 9.81;

TEST(MoreauJean, FreeFallIsExactWithThetaHalf) {
  // Constant acceleration: the trapezoidal position update is exact.
  World world;
  world.bodies = {disk("ball", 0.1, 1, {0.5, 10})};
  world.bodies[0].velocity = {1.0, 2.0};
  MoreauJeanOptions options;
  options.timestep = 1e-3;
  for (int k = 0; k < 1000; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_TRUE(report.contacts.empty());
  }
  const double t = 1.0;
  EXPECT_NEAR(world.bodies[0].position.y(), 10 + 2 * t - kG * t * t / 2, 1e-10);
  EXPECT_NEAR(world.bodies[0].position.x(), 0.5 + t, 1e-10);
  EXPECT_NEAR(world.bodies[0].velocity.y(), 2 - kG * t, 1e-10);
}

/// Drops a ball from gap `drop` and returns the highest gap after the first bounce.
double apex_after_bounce(double drop, double restitution, double timestep) {
  const double radius = 0.1;
  World world;
  world.bodies = {disk("ball", radius, 1, {0, radius + drop})};
  world.ground = Ground{0};
  MoreauJeanOptions options;
  options.timestep = timestep;
  options.restitution = restitution;
  bool bounced = false;
  double apex = 0;
  for (int k = 0; k < 200000; ++k) {
    (void)moreau_jean_step(world, options);
    const Body& ball = world.bodies[0];
    if (!bounced && ball.velocity.y() > 0) bounced = true;
    if (bounced) {
      apex = std::max(apex, ball.position.y() - radius);
      if (ball.velocity.y() < 0) break;
    }
  }
  return apex;
}

// Sleeping islands (off by default): a stack of three boxes at rest falls asleep after sleep_time
// (no contact solved, nothing moves), a separate disk still falling stays awake; when the disk
// lands on the stack the island wakes (it is one island with a moving body) and the stack carries
// it; with sleeping off no body ever sleeps.
TEST(MoreauJean, SleepingIslandsSleepAndWake) {
  World world;
  world.ground = Ground{0};
  for (int i = 0; i < 3; ++i) world.bodies.push_back(box("b" + std::to_string(i), 1, 1, 1, {0, 0.5 + i}));
  world.bodies.push_back(disk("ball", 0.2, 1, {0.1, 5.0}));
  World reference = world;
  MoreauJeanOptions options;
  options.timestep = 1.0 / 60;
  options.friction = 0.5;
  options.sleeping = true;
  options.sleep_time = 0.25;
  options.baumgarte = 0;  // the plain scheme: the stack keeps its exact heights under the landing ball
  const auto step = [&](World& w, const MoreauJeanOptions& o) { return moreau_jean_step(w, o); };
  // The stack rests from the start: asleep once 0.25 s have passed (15 steps), the ball awake.
  std::size_t asleep_at_16 = 0;
  for (int k = 0; k < 16; ++k) {
    const StepReport report = step(world, options);
    ASSERT_EQ(report.status, Status::Solved);
    if (k == 15) {
      asleep_at_16 = report.sleeping_bodies;
      EXPECT_TRUE(report.contacts.empty());  // the stack's contacts are out of the solve
    }
  }
  EXPECT_EQ(asleep_at_16, 3u);
  const Eigen::Vector2d top = world.bodies[2].position;
  // The ball lands (from 5 m, about 0.9 s): the island wakes at the first contact.
  bool woke = false;
  for (int k = 0; k < 90 && !woke; ++k) {
    const StepReport report = step(world, options);
    ASSERT_EQ(report.status, Status::Solved);
    const bool touching = std::any_of(report.contacts.begin(), report.contacts.end(), [](const Contact& c) {
      return c.body_a == 3 || c.body_b == 3;
    });
    if (touching) {
      woke = true;
      EXPECT_EQ(report.sleeping_bodies, 0u);
    } else {
      EXPECT_EQ(report.sleeping_bodies, 3u);
      EXPECT_EQ(world.bodies[2].position, top);  // asleep: not moved at all
    }
  }
  EXPECT_TRUE(woke);
  for (int k = 0; k < 120; ++k) ASSERT_EQ(step(world, options).status, Status::Solved);
  EXPECT_GT(world.bodies[3].position.y(), 3.0);  // the ball rests on the stack, not through it
  EXPECT_NEAR(world.bodies[2].position.y(), 2.5, 1e-6);
  // Off (the default): nothing sleeps.
  MoreauJeanOptions off = options;
  off.sleeping = false;
  for (int k = 0; k < 30; ++k) EXPECT_EQ(step(reference, off).sleeping_bodies, 0u);
  MoreauJeanOptions bad = options;
  bad.sleep_time = 0;
  EXPECT_THROW(step(reference, bad), InvalidProblem);
}

// A kinematic body (fixed, with a velocity) moving into a sleeping box wakes it and pushes it
// along instead of passing through it: the 1 m box asleep on the ground, a fixed 1 m box moving
// at 0.5 m/s from 1.5 m to its left; after 3 s the pusher's front is at x = 0.5 and the box ahead
// of it (its centre at 1 or beyond).
TEST(MoreauJean, AKinematicBodyWakesASleepingIsland) {
  World world;
  world.ground = Ground{0};
  world.bodies.push_back(box("crate", 1, 1, 1, {0, 0.5}));
  MoreauJeanOptions options;
  options.timestep = 1.0 / 60;
  options.friction = 0.5;
  options.sleeping = true;
  options.sleep_time = 0.25;
  for (int k = 0; k < 30; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
  ASSERT_EQ(moreau_jean_step(world, options).sleeping_bodies, 1u);
  Body pusher = box("pusher", 1, 1, 1, {-1.5, 0.5});
  pusher.fixed = true;
  pusher.velocity = {0.5, 0};
  world.bodies.push_back(pusher);
  for (int k = 0; k < 180; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved) << "step " << k;
  EXPECT_GT(world.bodies[0].position.x(), 1.0 - 0.01);
  EXPECT_NEAR(world.bodies[0].position.y(), 0.5, 0.01);  // on the ground, not through it
}

// A column falling at 20 m/s onto the ground: the lower disk lands within the step; the upper one,
// 5 cm above it and falling with it (no relative velocity at the step's start), is not active in
// the plain step and passes into it. By hand, h = 1/60, θ = 1/2, frictionless: the lower disk's
// ground contact (gap 1 cm, mid-step gap 0.01 − 20 h/2 < 0) is active in both, u_N⁺ = 0, so it
// ends at y = 0.26 − 20 h/2 = 0.09333 (its overlap with the ground, 20 h/2 − 0.01, is the plain
// scheme's with θ = 1/2 in both). Plain: the upper disk falls freely, v⁺ = −20 − g h, and ends at
// 0.81 − (h/2)(40 + g h): the two overlap by 0.11803 m. Speculative: the pair is active (its lower
// disk touches the ground, h (20 + 20) > slop) with u_N⁺ >= −0.05/(h/2) = −6 m/s, which binds (the
// upper disk's free velocity is −20 − g h): it ends at 0.81 − (h/2)(20 + 6), the pair's gap 0 to
// round-off.
TEST(MoreauJean, SpeculativeContactsCatchTheDiskBehindOneThatLanded) {
  const double h = 1.0 / 60;
  const auto column = [] {
    World world;
    world.ground = Ground{0};
    world.bodies = {disk("low", 0.25, 1, {0, 0.26}), disk("high", 0.25, 1, {0, 0.81})};
    for (Body& body : world.bodies) body.velocity = {0, -20};
    return world;
  };
  const auto pair_gap = [](const World& world) {
    return world.bodies[1].position.y() - world.bodies[0].position.y() - 0.5;
  };
  MoreauJeanOptions options;
  options.timestep = h;
  World plain = column();
  const StepReport plain_report = moreau_jean_step(plain, options);
  ASSERT_EQ(plain_report.status, Status::Solved);
  EXPECT_EQ(plain_report.contacts.size(), 1u);
  EXPECT_NEAR(plain.bodies[0].position.y(), 0.26 - 10 * h, 1e-12);
  EXPECT_NEAR(pair_gap(plain), 0.81 - (h / 2) * (40 + kG * h) - (0.26 - 10 * h) - 0.5, 1e-12);
  EXPECT_LT(pair_gap(plain), -0.118);

  options.speculative = true;
  World caught = column();
  const StepReport caught_report = moreau_jean_step(caught, options);
  ASSERT_EQ(caught_report.status, Status::Solved);
  EXPECT_EQ(caught_report.contacts.size(), 2u);
  EXPECT_NEAR(caught.bodies[0].position.y(), 0.26 - 10 * h, 1e-12);
  EXPECT_NEAR(caught.bodies[1].position.y(), 0.81 - 13 * h, 1e-9);
  EXPECT_NEAR(pair_gap(caught), 0.0, 1e-9);
  EXPECT_NEAR(caught.bodies[1].velocity.y(), -6.0, 1e-7);
}

// At rest, and side by side in free fall, speculative contacts add no pair: the steps are the plain ones.
TEST(MoreauJean, SpeculativeContactsChangeNothingAtRestOrInFreeFall) {
  World resting;
  resting.ground = Ground{0};
  resting.bodies = {disk("a", 0.25, 1, {0, 0.25}), disk("b", 0.25, 1, {0.5002, 0.25}), disk("c", 0.25, 1, {3, 5})};
  resting.bodies[2].velocity = {0, -3};  // falling far from the others
  MoreauJeanOptions options;
  options.friction = 0.4;
  World speculative = resting;
  MoreauJeanOptions on = options;
  on.speculative = true;
  for (int k = 0; k < 30; ++k) {
    const StepReport plain_report = moreau_jean_step(resting, options);
    const StepReport speculative_report = moreau_jean_step(speculative, on);
    ASSERT_EQ(plain_report.contacts.size(), speculative_report.contacts.size()) << "step " << k;
    for (std::size_t i = 0; i < resting.bodies.size(); ++i) {
      EXPECT_EQ(resting.bodies[i].position, speculative.bodies[i].position) << "step " << k << ", body " << i;
      EXPECT_EQ(resting.bodies[i].velocity, speculative.bodies[i].velocity) << "step " << k << ", body " << i;
    }
  }
}

TEST(MoreauJean, BounceApexIsRestitutionSquaredTimesDrop) {
  for (double e : {0.5, 0.8, 1.0}) {
    const double apex = apex_after_bounce(1.0, e, 1e-4);
    // O(h |v|) from where in the step the impact falls: h·√(2 g) ≈ 4.4e-4.
    EXPECT_NEAR(apex, e * e * 1.0, 1e-3) << "e = " << e;
  }
  EXPECT_NEAR(apex_after_bounce(1.0, 0.0, 1e-4), 0.0, 1e-3);
}

TEST(MoreauJean, RestingBlockCornersCarryHalfTheWeightEach) {
  for (const FrictionModel model : {FrictionModel::Coulomb, FrictionModel::StewartTrinkle}) {
    for (double friction : {0.0, 0.3}) {
      World world = test::chapter_block();
      MoreauJeanOptions options;
      options.gravity = {0, -10};
      options.friction = friction;
      options.friction_model = model;
      options.solve.tolerance = 1e-12;
      const double h = options.timestep;
      for (int k = 0; k < 100; ++k) {
        const StepReport report = moreau_jean_step(world, options);
        ASSERT_EQ(report.contacts.size(), 2u);
        ASSERT_EQ(report.status, Status::Solved);
        EXPECT_NEAR(report.normal_impulse[0], 1.0 * 10 * h / 2, 1e-10);
        EXPECT_NEAR(report.normal_impulse[1], 1.0 * 10 * h / 2, 1e-10);
        if (model == FrictionModel::StewartTrinkle) {
          EXPECT_NEAR(report.tangent_impulse.cwiseAbs().maxCoeff(), 0, 1e-10);
        } else {
          // W is singular here (2 corners, 4 impulses, 3 degrees of freedom): equal and opposite
          // friction impulses at the two corners are internal stress that moves nothing, and nsgs
          // may return any split of it inside the cones. The net tangential impulse is 0.
          EXPECT_NEAR(report.tangent_impulse.sum(), 0, 1e-10);
          EXPECT_LE(report.tangent_impulse.cwiseAbs().maxCoeff(), friction * 10 * h / 2 + 1e-12);
        }
      }
      EXPECT_NEAR(world.bodies[0].position.y(), 0.25, 1e-10);
      EXPECT_NEAR(world.bodies[0].angle, 0, 1e-10);
    }
  }
}

TEST(MoreauJean, SlidingBoxStopsAfterVSquaredOverTwoMuG) {
  const double v0 = 2.0;
  const double mu = 0.5;
  World world;
  world.bodies = {box("crate", 0.2, 0.1, 1.0, {0, 0.05})};
  world.bodies[0].velocity = {v0, 0};
  world.ground = Ground{0};
  MoreauJeanOptions options;
  options.friction = mu;
  options.timestep = 1e-3;
  options.solve.tolerance = 1e-12;  // closed forms checked to 1e-9 and 1e-10 below
  int steps = 0;
  while (world.bodies[0].velocity.x() > 1e-12 && steps < 2000) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved);
    ++steps;
  }
  EXPECT_NEAR(world.bodies[0].velocity.x(), 0, 1e-9);
  const double distance = v0 * v0 / (2 * mu * kG);
  // One step's travel at the end: v ≤ μ g h, so ≤ μ g h² ≈ 5e-6.
  EXPECT_NEAR(world.bodies[0].position.x(), distance, 1e-5);
  EXPECT_NEAR(steps * options.timestep, v0 / (mu * kG), options.timestep);
  // It stayed on its base.
  EXPECT_NEAR(world.bodies[0].angle, 0, 1e-9);
  EXPECT_NEAR(world.bodies[0].position.y(), 0.05, 1e-9);
  // And stays put.
  for (int k = 0; k < 50; ++k) (void)moreau_jean_step(world, options);
  EXPECT_NEAR(world.bodies[0].position.x(), distance, 1e-5);
}

// Applied force and torque (Body::force, Body::torque) over every step, beside gravity.
TEST(MoreauJean, AppliedForceAndTorqueAccelerateAFreeDisk) {
  // No gravity, no contact: v(t) = F t / m, ω(t) = τ t / I, x(t) = F t² / (2 m) (θ = ½ is exact).
  World world;
  world.bodies = {disk("puck", 0.5, 2.0, {0, 0})};  // I = m r² / 2 = 0.25
  world.bodies[0].force = {3.0, -1.0};
  world.bodies[0].torque = 0.5;
  MoreauJeanOptions options;
  options.gravity = {0, 0};
  options.timestep = 1e-2;
  for (int k = 0; k < 100; ++k) (void)moreau_jean_step(world, options);
  const Body& puck = world.bodies[0];
  EXPECT_NEAR(puck.velocity.x(), 1.5, 1e-12);
  EXPECT_NEAR(puck.velocity.y(), -0.5, 1e-12);
  EXPECT_NEAR(puck.angular_velocity, 2.0, 1e-12);
  EXPECT_NEAR(puck.position.x(), 0.75, 1e-12);
  EXPECT_NEAR(puck.angle, 1.0, 1e-12);
}

TEST(MoreauJean, PushedBoxSticksBelowMuMgAndSlidesAbove) {
  // A box on the ground, μ = 0.5, m = 1: a push of 0.4 m g holds it (friction carries it all); a
  // push of 0.7 m g accelerates it at (0.7 − 0.5) g.
  const double mu = 0.5;
  for (const double push : {0.4, 0.7}) {
    World world;
    world.bodies = {box("crate", 0.2, 0.1, 1.0, {0, 0.05})};
    world.bodies[0].force = {push * kG, 0};
    world.ground = Ground{0};
    MoreauJeanOptions options;
    options.friction = mu;
    options.timestep = 1e-3;
    options.solve.tolerance = 1e-12;
    for (int k = 0; k < 500; ++k) ASSERT_EQ(moreau_jean_step(world, options).status, Status::Solved);
    const double expected = push < mu ? 0.0 : (push - mu) * kG * 0.5;
    EXPECT_NEAR(world.bodies[0].velocity.x(), expected, 1e-9) << "push " << push;
    EXPECT_NEAR(world.bodies[0].angular_velocity, 0, 1e-9) << "push " << push;
  }
}

TEST(MoreauJean, FixedBodyIgnoresAppliedForceAndNonFiniteForceIsRefused) {
  World world;
  world.bodies = {disk("post", 0.5, 1.0, {0, 2})};
  world.bodies[0].fixed = true;
  world.bodies[0].force = {100, 100};
  MoreauJeanOptions options;
  (void)moreau_jean_step(world, options);
  EXPECT_EQ(world.bodies[0].velocity, Eigen::Vector2d::Zero());
  world.bodies[0].fixed = false;
  world.bodies[0].torque = std::nan("");
  try {
    (void)moreau_jean_step(world, options);
    FAIL() << "a NaN torque was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("torque"));
    EXPECT_THAT(e.what(), HasSubstr("post"));
  }
}

TEST(MoreauJean, StackOfBoxesStaysPut) {
  World world;
  for (int i = 0; i < 4; ++i) {
    world.bodies.push_back(box("box" + std::to_string(i), 1.0 - 0.1 * i, 0.5, 1.0 + i, {0.02 * i, 0.25 + 0.5 * i}));
  }
  world.ground = Ground{0};
  const World start = world;
  MoreauJeanOptions options;
  options.friction = 0.5;
  options.solve.tolerance = 1e-12;  // closed forms checked to 1e-9 and 1e-10 below
  for (int k = 0; k < 500; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << k;
    ASSERT_EQ(report.contacts.size(), 8u) << "step " << k;
  }
  for (std::size_t i = 0; i < world.bodies.size(); ++i) {
    EXPECT_NEAR((world.bodies[i].position - start.bodies[i].position).norm(), 0, 1e-9) << i;
    EXPECT_NEAR(world.bodies[i].angle, 0, 1e-9) << i;
    EXPECT_NEAR(world.bodies[i].velocity.norm(), 0, 1e-9) << i;
  }
}

TEST(MoreauJean, TenBoxStackKeepsItsContactsForAMinute) {
  // Ten unit boxes, h = 1/60, μ = 0.6, the default tolerance: each step's solve leaves a creep of
  // the order of its tolerance (the stack turns at ~5e-10 rad/s), and a lifting corner passed
  // activation_tolerance at step 1 180; the contact went off, the stack rocked (4 of its 20 contacts
  // left at one step) and kept 1 cm overlaps. A loaded pair's contacts stay active up to 1 000
  // activation tolerances: all 20 contacts, every step, for a minute.
  World world;
  for (int i = 0; i < 10; ++i) world.bodies.push_back(box("b" + std::to_string(i), 1, 1, 1, {0, 0.5 + i}));
  world.ground = Ground{0};
  MoreauJeanOptions options;
  options.timestep = 1.0 / 60;
  options.friction = 0.6;
  for (int k = 0; k < 3600; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << k;
    ASSERT_EQ(report.contacts.size(), 20u) << "step " << k;
    for (const Contact& contact : report.contacts) ASSERT_GE(contact.gap, -1e-8) << "step " << k;
  }
  EXPECT_NEAR(world.bodies[9].position.x(), 0, 1e-6);
  EXPECT_NEAR(world.bodies[9].position.y(), 9.5, 1e-8);
}

TEST(MoreauJean, DiskRestsOnABox) {
  // A disk on a box that lies on the ground: the disk–box contact carries the disk's weight,
  // the box's two ground corners carry both weights, half each (symmetric), with friction.
  World world;
  world.bodies = {box("base", 1.0, 0.2, 2.0, {0, 0.1}), disk("ball", 0.1, 0.5, {0, 0.3})};
  world.ground = Ground{0};
  MoreauJeanOptions options;
  options.friction = 0.5;
  options.solve.tolerance = 1e-12;  // closed forms checked to 1e-9 and 1e-10 below
  const double h = options.timestep;
  for (int k = 0; k < 200; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved);
    ASSERT_EQ(report.contacts.size(), 3u);
    for (std::size_t c = 0; c < 3; ++c) {
      const bool ball = report.contacts[c].body_a == 1;
      const double expected = ball ? 0.5 * kG * h : 2.5 * kG * h / 2;
      EXPECT_NEAR(report.normal_impulse[static_cast<Eigen::Index>(c)], expected, 1e-10) << "step " << k;
    }
  }
  EXPECT_NEAR(world.bodies[1].position.y(), 0.3, 1e-9);
  EXPECT_NEAR(world.bodies[1].position.x(), 0, 1e-9);
}

TEST(MoreauJean, EnergyDoesNotGrow) {
  // A spinning, tilted box thrown onto the ground with friction, and a pile of bouncing disks.
  for (double e : {0.0, 0.5, 1.0}) {
    World world;
    world.bodies = {box("b", 0.4, 0.2, 1.0, {0, 0.6}, 0.4)};
    world.bodies[0].velocity = {1.5, -1.0};
    world.bodies[0].angular_velocity = 3.0;
    for (int i = 0; i < 3; ++i)
      world.bodies.push_back(disk("d" + std::to_string(i), 0.1, 0.5, {1.0 + 0.15 * i, 0.3 + 0.25 * i}));
    world.ground = Ground{0};
    MoreauJeanOptions options;
    options.restitution = e;
    options.friction = 0.4;
    const double initial = energy(world, options.gravity).total();
    double highest = initial;
    for (int k = 0; k < 1500; ++k) {
      const StepReport report = moreau_jean_step(world, options);
      ASSERT_EQ(report.status, Status::Solved) << "e = " << e << ", step " << k;
      highest = std::max(highest, energy(world, options.gravity).total());
    }
    EXPECT_LE(highest, initial + 1e-9 * std::abs(initial)) << "e = " << e;
    if (e < 1) {
      EXPECT_LT(energy(world, options.gravity).total(), initial - 0.1) << "e = " << e;
    }
  }
}

// The normal and tangential relative velocity at a contact, from the bodies' velocities.
std::pair<double, double> contact_velocity(const World& world, const Contact& contact) {
  const auto point_velocity = [&](int index, const Eigen::Vector2d& arm) -> Eigen::Vector2d {
    if (index < 0) return Eigen::Vector2d::Zero();
    const Body& body = world.bodies[static_cast<std::size_t>(index)];
    return body.velocity + body.angular_velocity * Eigen::Vector2d(-arm.y(), arm.x());
  };
  const Eigen::Vector2d relative =
      point_velocity(contact.body_a, contact.arm_a) - point_velocity(contact.body_b, contact.arm_b);
  return {relative.dot(contact.normal), relative.dot(contact.tangent())};
}

TEST(MoreauJean, DiskHeapBetweenWallsEveryStepSolvesCoulomb) {
  // 36 disks dropped between two walls, μ = 0.6, h = 1/60 (a small twin of bench/compare_box2d's
  // disks100): redundant contacts, so W is singular and the settling steps go past nsgs through
  // auto's chain (newton-ac, Lemke). Each step's law is checked from the velocities after the
  // step, independently of the solver's own residual: u_N >= 0, Λ_N >= 0, Λ_N u_N = 0,
  // |Λ_T| <= μ Λ_N, u_T = 0 where the contact sticks, and Λ_T u_T <= 0 (friction dissipates).
  World world = disk_heap_between_walls(36);
  MoreauJeanOptions options;
  options.timestep = 1.0 / 60;
  options.friction = 0.6;
  // The criterion: 1e-6 in the units of a disk's m g h (impulses), g h (velocities) and
  // their product.
  const double impulse_unit = M_PI * 0.0625 * kG * options.timestep;
  const double speed_unit = kG * options.timestep;
  const double du = 1e-6 * speed_unit;
  const double dr = 1e-6 * impulse_unit;
  const double dp = 1e-6 * impulse_unit * speed_unit;
  std::size_t disk_pairs = 0;
  for (int step = 0; step < 150; ++step) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << step << ": " << report.result.message;
    for (std::size_t c = 0; c < report.contacts.size(); ++c) {
      const Contact& contact = report.contacts[c];
      const auto [un, ut] = contact_velocity(world, contact);
      const double rn = report.normal_impulse[static_cast<Eigen::Index>(c)];
      const double rt = report.tangent_impulse[static_cast<Eigen::Index>(c)];
      EXPECT_GE(un, -du) << "step " << step << ", contact " << c;
      EXPECT_GE(rn, -dr) << "step " << step << ", contact " << c;
      EXPECT_LE(std::abs(rn * un), dp) << "step " << step << ", contact " << c;
      EXPECT_LE(std::abs(rt), 0.6 * rn + dr) << "step " << step << ", contact " << c;
      EXPECT_LE(rt * ut, dp) << "step " << step << ", contact " << c;
      if (std::abs(rt) < 0.6 * rn - 1e-3 * impulse_unit) {
        EXPECT_LE(std::abs(ut), du) << "step " << step << ", contact " << c;
      }
      if (step == 149 && contact.body_b >= 0) ++disk_pairs;
    }
  }
  EXPECT_GT(disk_pairs, 36U);  // at rest the heap is packed: more disk-disk contacts than disks
}

TEST(MoreauJean, DiskHeapPackedChainSaysWhichLawItsImpulsesSolve) {
  // The same heap through the packed-step chain (dense pivoting capped at 0 contacts, so that every
  // step with contacts takes it): nsgs on the factors, the convex law by the interior point, nsgs
  // from its impulses, Lemke on the Stewart–Trinkle LCP (these steps are small enough for it), and
  // where Coulomb's law is still not met, the convex law's impulses, said in `law` and `fallback`.
  // Each step's law is checked from the velocities after it. Here Lemke ends every step that the
  // sweeps leave: every step is on Coulomb's law, and some only through Lemke.
  World world = disk_heap_between_walls(36);
  MoreauJeanOptions options;
  options.timestep = 1.0 / 60;
  options.friction = 0.6;
  options.dense_pivoting_max_size = 0;
  const double impulse_unit = M_PI * 0.0625 * kG * options.timestep;
  const double speed_unit = kG * options.timestep;
  const double du = 1e-6 * speed_unit;
  const double dr = 1e-6 * impulse_unit;
  const double dp = 1e-6 * impulse_unit * speed_unit;
  int coulomb_steps = 0;
  int lemke_steps = 0;
  for (int step = 0; step < 150; ++step) {
    const StepReport report = moreau_jean_step(world, options);
    if (!report.ran_solve()) continue;
    ASSERT_EQ(report.status, Status::Solved) << "step " << step << ": " << report.result.message;
    ASSERT_EQ(report.law == FrictionLaw::Convex, !report.fallback.empty()) << "step " << step;
    if (report.law == FrictionLaw::Coulomb) ++coulomb_steps;
    if (report.result.method == Method::Lemke) {
      ++lemke_steps;
      EXPECT_THAT(report.result.message, HasSubstr("lemke on the Stewart-Trinkle LCP")) << "step " << step;
    }
    EXPECT_EQ(report.law, FrictionLaw::Coulomb) << "step " << step << ": " << report.result.message;
    EXPECT_THAT(report.result.message, HasSubstr("packed-step chain")) << "step " << step;
    for (std::size_t c = 0; c < report.contacts.size(); ++c) {
      const auto [un, ut] = contact_velocity(world, report.contacts[c]);
      const double rn = report.normal_impulse[static_cast<Eigen::Index>(c)];
      const double rt = report.tangent_impulse[static_cast<Eigen::Index>(c)];
      EXPECT_GE(rn, -dr) << "step " << step << ", contact " << c;
      EXPECT_LE(std::abs(rt), 0.6 * rn + dr) << "step " << step << ", contact " << c;
      EXPECT_LE(rt * ut, dp) << "step " << step << ", contact " << c;
      if (report.law == FrictionLaw::Coulomb) {
        EXPECT_GE(un, -du) << "step " << step << ", contact " << c;
        EXPECT_LE(std::abs(rn * un), dp) << "step " << step << ", contact " << c;
      } else {
        // The convex law: u in the dual cone, r·u = 0 (a sliding contact separates at μ|u_T|).
        EXPECT_GE(un, 0.6 * std::abs(ut) - du) << "step " << step << ", contact " << c;
        EXPECT_LE(std::abs(rn * un + rt * ut), dp) << "step " << step << ", contact " << c;
      }
    }
  }
  EXPECT_GT(coulomb_steps, 0);
  EXPECT_GT(lemke_steps, 0);
}

TEST(MoreauJean, DiskHeapAnitescuPotraOnTheFactors) {
  // The same heap with Anitescu–Potra's convex relaxation, solved on the factors of its LCP by the
  // interior point (never formed). Each step's law from the velocities after it: u_N >= μ|u_T|
  // (the relaxation separates sliding contacts), |Λ_T| <= μ Λ_N, Λ_N u_N + Λ_T u_T = 0. Every
  // 30th step is also taken with Lemke on the dense LCP from the same state: the velocities (unique
  // although the impulses are not, the contacts being redundant) agree.
  World world = disk_heap_between_walls(36);
  MoreauJeanOptions options;
  options.timestep = 1.0 / 60;
  options.friction = 0.6;
  options.friction_model = FrictionModel::AnitescuPotra;
  options.method = Method::InteriorPoint;
  const double impulse_unit = M_PI * 0.0625 * kG * options.timestep;
  const double speed_unit = kG * options.timestep;
  std::size_t most_contacts = 0;
  int with_contacts = 0;
  int warm_vertices = 0;
  for (int step = 0; step < 150; ++step) {
    if (step % 30 == 29) {
      World dense = world;
      MoreauJeanOptions pivoting = options;
      pivoting.method = Method::Lemke;
      ASSERT_EQ(moreau_jean_step(dense, pivoting).status, Status::Solved) << "step " << step;
      World factored = world;
      const StepReport report = moreau_jean_step(factored, options);
      for (std::size_t b = 0; b < world.bodies.size(); ++b) {
        EXPECT_NEAR((factored.bodies[b].velocity - dense.bodies[b].velocity).norm(), 0, 1e-7 * speed_unit)
            << "step " << step << ", body " << b;
      }
      EXPECT_EQ(report.lcp_size, static_cast<Eigen::Index>(2 * report.contacts.size()));
    }
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << step << ": " << report.result.message;
    if (!report.contacts.empty()) {
      EXPECT_EQ(report.result.method, Method::InteriorPoint);
      ++with_contacts;
      // The last step's impulses' active set solved: no interior-point step.
      if (report.result.iterations == 0 && report.warm_started > 0) ++warm_vertices;
    }
    most_contacts = std::max(most_contacts, report.contacts.size());
    for (std::size_t c = 0; c < report.contacts.size(); ++c) {
      const Contact& contact = report.contacts[c];
      const auto [un, ut] = contact_velocity(world, contact);
      const double rn = report.normal_impulse[static_cast<Eigen::Index>(c)];
      const double rt = report.tangent_impulse[static_cast<Eigen::Index>(c)];
      EXPECT_GE(un - 0.6 * std::abs(ut), -1e-6 * speed_unit) << "step " << step << ", contact " << c;
      EXPECT_GE(rn, -1e-6 * impulse_unit) << "step " << step << ", contact " << c;
      EXPECT_LE(std::abs(rt), 0.6 * rn + 1e-6 * impulse_unit) << "step " << step << ", contact " << c;
      EXPECT_LE(std::abs(rn * un + rt * ut), 1e-6 * impulse_unit * speed_unit) << "step " << step << ", contact " << c;
    }
  }
  // Packed: more LCP rows (two a contact) than degrees of freedom (three a disk), so the matrix
  // A M⁻¹ Aᵀ is singular.
  EXPECT_GT(2 * most_contacts, 3 * 36U);
  // Warm starts: most steps (98 of 144 when written) solved by the vertex of the last step's
  // active set alone, each such step checked above like any other.
  EXPECT_GT(2 * warm_vertices, with_contacts);
}

TEST(MoreauJean, ThetaAboveHalfDissipatesInFreeFlight) {
  World world;
  world.bodies = {disk("ball", 0.1, 1, {0, 10})};
  MoreauJeanOptions options;
  options.theta = 1.0;
  const double before = energy(world, options.gravity).total();
  (void)moreau_jean_step(world, options);
  // ΔE = −m g² h² (θ − ½).
  EXPECT_NEAR(energy(world, options.gravity).total() - before, -kG * kG * 1e-6 * 0.5, 1e-12);
}

// The energy statement of docs/contact.md, at θ ∈ {½, ¾, 1}: an elastic ball (1 kg, dropped 1 m,
// h = 1e-3, e = 1, frictionless) bouncing for 3 s. With θ = ½ the total never rises above its
// start; with θ > ½ it rises after each impact by at most m g h |u_N⁻| (θ − ½), |u_N⁻| the impact
// speed — and reaches that bound (the step's position update carries the post-impact velocity for
// the fraction θ), then the free-flight losses m g² h² (θ − ½) a step bring it back down.
TEST(MoreauJean, ElasticBounceEnergyBoundForEachTheta) {
  for (const double theta : {0.5, 0.75, 1.0}) {
    World world;
    world.bodies = {disk("ball", 0.1, 1, {0, 1.1})};
    world.ground = Ground{0};
    MoreauJeanOptions options;
    options.theta = theta;
    options.restitution = 1.0;
    const double initial = energy(world, options.gravity).total();
    double highest = -1e300;
    double impact_speed = 0;
    int impacts = 0;
    for (int k = 0; k < 3000; ++k) {
      const double before = -world.bodies[0].velocity.y();
      const StepReport report = moreau_jean_step(world, options);
      ASSERT_EQ(report.status, Status::Solved);
      if (!report.contacts.empty() && world.bodies[0].velocity.y() > 0 && before > 0) {
        impact_speed = std::max(impact_speed, before);
        ++impacts;
      }
      highest = std::max(highest, energy(world, options.gravity).total() - initial);
    }
    ASSERT_GE(impacts, 3) << "theta " << theta;
    const double bound = 1.0 * kG * options.timestep * impact_speed * (theta - 0.5);
    if (theta == 0.5) {
      EXPECT_LE(highest, 1e-10);
    } else {
      EXPECT_LE(highest, bound * (1 + 1e-6) + 1e-12) << "theta " << theta;
      EXPECT_GE(highest, 0.9 * bound) << "theta " << theta;  // the bound is reached, not loose
    }
  }
}

TEST(MoreauJean, AnitescuPotraSlidingBoxHovers) {
  World world;
  world.bodies = {box("crate", 0.2, 0.1, 1.0, {0, 0.05})};
  world.bodies[0].velocity = {2.0, 0};
  world.ground = Ground{0};
  MoreauJeanOptions options;
  options.friction = 0.5;
  options.friction_model = FrictionModel::AnitescuPotra;
  const StepReport report = moreau_jean_step(world, options);
  ASSERT_EQ(report.status, Status::Solved);
  const double h = options.timestep;
  const double vx = (2.0 - 0.5 * kG * h) / (1 + 0.25);
  EXPECT_NEAR(world.bodies[0].velocity.x(), vx, 1e-9);
  EXPECT_NEAR(world.bodies[0].velocity.y(), 0.5 * vx, 1e-9);  // u_N = μ u_T > 0: it lifts off
}

TEST(MoreauJean, CoulombAndStewartTrinkleAgreeOnASlidingTiltedBox) {
  // The same box, thrown spinning onto the ground with friction, stepped by both exact models:
  // one Coulomb law, two formulations, so the trajectories agree to the solvers' tolerance.
  World coulomb;
  coulomb.bodies = {box("crate", 0.4, 0.2, 1.0, {0, 0.3}, 0.3)};
  coulomb.bodies[0].velocity = {1.5, -0.5};
  coulomb.bodies[0].angular_velocity = 2.0;
  coulomb.ground = Ground{0};
  World stewart = coulomb;
  MoreauJeanOptions options;
  options.friction = 0.4;
  options.solve.tolerance = 1e-12;
  MoreauJeanOptions lcp_options = options;
  lcp_options.friction_model = FrictionModel::StewartTrinkle;
  lcp_options.solve.tolerance = 1e-13;
  int touched = 0;
  for (int k = 0; k < 600; ++k) {
    const StepReport a = moreau_jean_step(coulomb, options);
    const StepReport b = moreau_jean_step(stewart, lcp_options);
    ASSERT_EQ(a.status, Status::Solved) << "step " << k << ": " << a.result.residual;
    ASSERT_EQ(b.status, Status::Solved) << "step " << k;
    ASSERT_EQ(a.contacts.size(), b.contacts.size()) << "step " << k;
    if (!a.contacts.empty()) ++touched;
  }
  EXPECT_GT(touched, 100);
  EXPECT_NEAR((coulomb.bodies[0].position - stewart.bodies[0].position).norm(), 0, 1e-7);
  EXPECT_NEAR(coulomb.bodies[0].angle - stewart.bodies[0].angle, 0, 1e-7);
  EXPECT_NEAR((coulomb.bodies[0].velocity - stewart.bodies[0].velocity).norm(), 0, 1e-7);
}

TEST(MoreauJean, ProjectionRemovesTheImpactOverlap) {
  // A plastic impact at 4.4 m/s with h = 1e-2 leaves an overlap of O(h v); the position-level
  // projection closes it (exactly: the ground gap is linear in y), without touching velocities.
  for (bool projection : {false, true}) {
    World world;
    world.bodies = {disk("ball", 0.1, 1, {0, 1.1})};
    world.ground = Ground{0};
    MoreauJeanOptions options;
    options.timestep = 1e-2;
    options.projection = projection;
    for (int k = 0; k < 100; ++k) {
      const StepReport report = moreau_jean_step(world, options);
      ASSERT_EQ(report.projection_status, Status::Solved);
    }
    const double gap = world.bodies[0].position.y() - 0.1;
    if (projection) {
      EXPECT_NEAR(gap, 0, 1e-12);
    } else {
      EXPECT_LT(gap, -1e-3);  // what the projection removes
    }
    EXPECT_NEAR(world.bodies[0].velocity.y(), 0, 1e-12);
  }
}

TEST(MoreauJean, ProjectionLevelsABoxThatLandedOnACorner) {
  // A tilted box falls on its corner, then on the other: without projection the first corner's
  // deeper overlap leaves it resting tilted; with it, both corners end at gap ≈ 0.
  for (bool projection : {false, true}) {
    World world;
    world.bodies = {box("b", 0.4, 0.2, 1.0, {0, 0.4}, 0.3)};
    world.ground = Ground{0};
    MoreauJeanOptions options;
    options.timestep = 5e-3;
    options.friction = 0.5;
    options.projection = projection;
    for (int k = 0; k < 400; ++k) (void)moreau_jean_step(world, options);
    const auto contacts = detect_contacts(world, 1e-3);
    ASSERT_EQ(contacts.size(), 2u);
    const double deepest = std::min(contacts[0].gap, contacts[1].gap);
    if (projection) {
      EXPECT_GT(deepest, -1e-6);
    } else {
      EXPECT_LT(deepest, -1e-4);
    }
    EXPECT_NEAR(world.bodies[0].velocity.norm(), 0, 1e-9);
  }
}

TEST(MoreauJean, OptionsValidateNameTheField) {
  World world = test::chapter_block();
  MoreauJeanOptions options;
  options.theta = 0.3;
  EXPECT_THROW((void)moreau_jean_step(world, options), InvalidProblem);
  options = {};
  options.timestep = 0;
  EXPECT_THROW((void)moreau_jean_step(world, options), InvalidProblem);
  options = {};
  options.restitution = 1.1;
  EXPECT_THROW((void)moreau_jean_step(world, options), InvalidProblem);
  options = {};
  options.friction = -0.1;
  EXPECT_THROW((void)moreau_jean_step(world, options), InvalidProblem);
}

}  // namespace
}  // namespace perp::contact::contact_moreau_jean_test
