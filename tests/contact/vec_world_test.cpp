// VecWorld: each copy bit-identical to the scene stepped alone by moreau_jean_step, whatever the
// thread count; reset by mask; a failed copy flagged while the others go on; bad input refused by name.
#include "perp/contact/vec_world.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "perp/contact/moreau_jean.hpp"
#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_vec_world_test {
namespace {

/// Five disks dropped in a row onto the ground, and a box on top: contacts from the first steps.
Scene pile() {
  Scene scene;
  for (int k = 0; k < 5; ++k) {
    scene.world.bodies.push_back(test::disk("d" + std::to_string(k), 0.1, 1.0 + 0.1 * k, {0.21 * k, 0.1 + 0.02 * k}));
  }
  scene.world.bodies.push_back(test::box("lid", 0.8, 0.1, 2.0, {0.38, 0.4}, 0.05));
  scene.world.ground = Ground{0.0};
  scene.options.timestep = 0.01;
  scene.options.friction = 0.4;
  scene.options.restitution = 0.1;
  return scene;
}

std::vector<double> random_forces(std::size_t worlds, std::size_t bodies, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-20.0, 20.0);
  std::vector<double> f(worlds * bodies * 3);
  for (double& x : f) x = u(rng);
  return f;
}

using test::refusal;

TEST(VecWorld, EachCopyIsBitIdenticalToSteppingItAloneWhateverTheThreads) {
  const Scene scene = pile();
  constexpr std::size_t kWorlds = 7;
  constexpr int kSteps = 40;
  const std::size_t nb = scene.world.bodies.size();
  // The reference: each world alone, through the public entry, its applied forces set by hand.
  std::vector<World> alone(kWorlds, scene.world);
  std::vector<std::vector<double>> forces;
  for (int k = 0; k < kSteps; ++k) forces.push_back(random_forces(kWorlds, nb, 100 + static_cast<unsigned>(k)));
  std::vector<std::vector<double>> expected_q(kSteps), expected_v(kSteps);
  std::vector<std::vector<std::int64_t>> expected_contacts(kSteps);
  for (int k = 0; k < kSteps; ++k) {
    for (std::size_t i = 0; i < kWorlds; ++i) {
      World& w = alone[i];
      for (std::size_t b = 0; b < nb; ++b) {
        const double* f = forces[static_cast<std::size_t>(k)].data() + (i * nb + b) * 3;
        w.bodies[b].force = {f[0], f[1]};
        w.bodies[b].torque = f[2];
      }
      const StepReport report = moreau_jean_step(w, scene.options);
      expected_contacts[static_cast<std::size_t>(k)].push_back(static_cast<std::int64_t>(report.contacts.size()));
      for (const Body& b : w.bodies) {
        expected_q[static_cast<std::size_t>(k)].insert(expected_q[static_cast<std::size_t>(k)].end(),
                                                       {b.position.x(), b.position.y(), b.angle});
        expected_v[static_cast<std::size_t>(k)].insert(expected_v[static_cast<std::size_t>(k)].end(),
                                                       {b.velocity.x(), b.velocity.y(), b.angular_velocity});
      }
    }
  }
  std::int64_t touched = 0;
  for (const auto& c : expected_contacts) {
    for (std::int64_t n : c) touched += n;
  }
  ASSERT_GT(touched, 0) << "the scene must reach contact";
  for (unsigned threads : {1u, 2u, 3u, 16u}) {
    VecWorld vec(scene, kWorlds, threads);
    EXPECT_EQ(vec.threads(), std::min(threads, static_cast<unsigned>(kWorlds)));
    for (int k = 0; k < kSteps; ++k) {
      ASSERT_TRUE(vec.step(forces[static_cast<std::size_t>(k)]));
      const auto K = static_cast<std::size_t>(k);
      ASSERT_EQ(vec.positions().size(), expected_q[K].size());
      for (std::size_t j = 0; j < expected_q[K].size(); ++j) {
        // Bit-identical: == on doubles, not a tolerance.
        ASSERT_EQ(vec.positions()[j], expected_q[K][j]) << "threads " << threads << ", step " << k << ", entry " << j;
        ASSERT_EQ(vec.velocities()[j], expected_v[K][j]) << "threads " << threads << ", step " << k << ", entry " << j;
      }
      for (std::size_t i = 0; i < kWorlds; ++i) {
        EXPECT_EQ(vec.contacts()[i], expected_contacts[K][i]);
        EXPECT_EQ(vec.steps()[i], k + 1);
        EXPECT_EQ(vec.failed()[i], 0);
      }
    }
  }
}

// The workspace a thread reuses from world to world and step to step (step_scratch.hpp) leaves no
// trace: worlds whose contact counts differ (a pile at rest that falls asleep, one pushed about, one
// lifted off the ground and dropped again) share a thread's arrays, and every world's state and
// report still equal, bit for bit, its step alone through `moreau_jean_step` with a fresh report.
TEST(VecWorld, AReusedWorkspaceLeavesNoTraceBetweenWorldsOfDifferentContacts) {
  Scene scene;
  for (int k = 0; k < 10; ++k) {  // bench/vec_world_bench.py's pile
    const int row = k / 5, col = k % 5;
    scene.world.bodies.push_back(test::disk("d" + std::to_string(k), 0.1, 1.0 + 0.05 * k,
                                            {0.21 * col + 0.1 * row, 0.12 + 0.22 * row}));
  }
  scene.world.ground = Ground{0.0};
  scene.options.timestep = 0.01;
  scene.options.friction = 0.4;
  scene.options.restitution = 0.1;
  scene.options.sleeping = true;
  scene.options.sleep_speed = 0.05;  // so that world 0's pile sleeps within the test's steps
  scene.options.sleep_time = 0.2;
  constexpr std::size_t kWorlds = 4;
  constexpr int kSteps = 240;
  const std::size_t nb = scene.world.bodies.size();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> push(-5.0, 5.0);
  const auto forces_at = [&](int k) {
    std::vector<double> f(kWorlds * nb * 3, 0.0);  // world 0: no push (it comes to rest and sleeps)
    for (std::size_t b = 0; b < nb; ++b) {
      for (int c = 0; c < 3; ++c) f[(1 * nb + b) * 3 + c] = push(rng);  // world 1: pushed about
      // World 2: lifted off the ground (30 N up on 1-1.45 kg) for 20 steps of every 60, then dropped.
      f[(2 * nb + b) * 3 + 1] = k % 60 < 20 ? 30.0 : 0.0;
      f[(3 * nb + b) * 3 + 0] = (b % 2 == 0 ? 2.0 : -2.0);  // world 3: sheared
    }
    return f;
  };
  VecWorld vec(scene, kWorlds, 2);  // two worlds a thread
  std::vector<World> alone(kWorlds, scene.world);
  std::int64_t least = 1 << 30, most = 0;
  std::size_t slept = 0;
  for (int k = 0; k < kSteps; ++k) {
    const std::vector<double> forces = forces_at(k);
    ASSERT_TRUE(vec.step(forces));
    for (std::size_t i = 0; i < kWorlds; ++i) {
      World& w = alone[i];
      for (std::size_t b = 0; b < nb; ++b) {
        const double* f = forces.data() + (i * nb + b) * 3;
        w.bodies[b].force = {f[0], f[1]};
        w.bodies[b].torque = f[2];
      }
      const StepReport report = moreau_jean_step(w, scene.options);
      const auto m = static_cast<std::int64_t>(report.contacts.size());
      least = std::min(least, m);
      most = std::max(most, m);
      slept += report.sleeping_bodies;
      ASSERT_EQ(vec.contacts()[i], m) << "world " << i << ", step " << k;
      ASSERT_EQ(vec.status()[i], report.status) << "world " << i << ", step " << k;
      ASSERT_EQ(vec.criterion()[i], report.ran_solve() ? report.result.relative_residual : 0.0);
      ASSERT_EQ(vec.fallback(i), report.fallback);
      for (std::size_t b = 0; b < nb; ++b) {
        const Body& body = w.bodies[b];
        const double expected[6] = {body.position.x(), body.position.y(), body.angle,
                                    body.velocity.x(), body.velocity.y(), body.angular_velocity};
        for (int c = 0; c < 3; ++c) {
          ASSERT_EQ(vec.positions()[(i * nb + b) * 3 + c], expected[c]) << "world " << i << ", step " << k;
          ASSERT_EQ(vec.velocities()[(i * nb + b) * 3 + c], expected[3 + c]) << "world " << i << ", step " << k;
        }
      }
      ASSERT_EQ(vec.world(i).impulses.size(), w.impulses.size());
      for (std::size_t c = 0; c < w.impulses.size(); ++c) {
        ASSERT_EQ(vec.world(i).impulses[c].normal, w.impulses[c].normal);
        ASSERT_EQ(vec.world(i).impulses[c].tangent, w.impulses[c].tangent);
      }
    }
  }
  // What the test claims to cover: steps without contact beside steps with many, and sleeping.
  EXPECT_EQ(least, 0);
  EXPECT_GE(most, 10);
  EXPECT_GT(slept, 0u);
}

TEST(VecWorld, ForcesReplaceTheScenesOwnForTheStepAndNoneKeepsIt) {
  Scene scene;
  scene.world.bodies.push_back(test::disk("d0", 0.1, 1.0, {0.0, 1.0}));  // in the air: no contact
  scene.world.bodies.push_back(test::disk("d1", 0.1, 2.0, {1.0, 1.0}));
  scene.world.ground = Ground{0.0};
  scene.options.timestep = 0.01;
  scene.world.bodies[0].force = {3.0, 0.0};  // the scene's own push
  VecWorld vec(scene, 2, 1);
  World alone = scene.world;
  std::vector<double> forces(2 * scene.world.bodies.size() * 3, 0.0);
  forces[0] = 1.5;  // world 0, body d0, fx: 1.5 N in place of the scene's 3 N for that step
  ASSERT_TRUE(vec.step(forces));
  alone.bodies[0].force = {1.5, 0.0};
  (void)moreau_jean_step(alone, scene.options);
  EXPECT_EQ(vec.world(0).bodies[0].velocity.x(), alone.bodies[0].velocity.x());
  ASSERT_TRUE(vec.step());  // no forces: the scene's own 3 N
  alone.bodies[0].force = {3.0, 0.0};
  (void)moreau_jean_step(alone, scene.options);
  EXPECT_EQ(vec.world(0).bodies[0].velocity.x(), alone.bodies[0].velocity.x());
  // By hand, free disks of 1 kg: world 0 gains (1.5 + 3) · 0.01 = 0.045 m/s; world 1, whose forces
  // were all 0 at the first step, gains only the second step's 3 · 0.01 = 0.03 m/s.
  EXPECT_NEAR(vec.world(0).bodies[0].velocity.x(), 0.045, 1e-15);
  EXPECT_NEAR(vec.world(1).bodies[0].velocity.x(), 0.03, 1e-15);
}

TEST(VecWorld, ResetRestoresTheInitialStateOfTheMaskedWorldsOnly) {
  Scene scene = pile();
  scene.options.sleeping = true;  // rest times are part of the state a reset restores
  VecWorld vec(scene, 3, 2);
  const std::vector<double> q0(vec.positions().begin(), vec.positions().end());
  for (int k = 0; k < 30; ++k) ASSERT_TRUE(vec.step());
  ASSERT_FALSE(vec.world(1).impulses.empty());
  ASSERT_FALSE(vec.world(1).rest_time.empty());
  const std::vector<std::uint8_t> mask{0, 1, 0};
  const World before0 = vec.world(0);
  vec.reset(mask);
  EXPECT_TRUE(vec.world(1).impulses.empty());
  EXPECT_TRUE(vec.world(1).rest_time.empty());
  EXPECT_EQ(vec.steps()[1], 0);
  EXPECT_EQ(vec.steps()[0], 30);
  EXPECT_EQ(vec.contacts()[1], 0);
  const std::size_t row = vec.bodies() * 3;
  for (std::size_t j = 0; j < row; ++j) {
    EXPECT_EQ(vec.positions()[row + j], q0[row + j]);
    EXPECT_EQ(vec.velocities()[row + j], 0.0);
  }
  EXPECT_EQ(vec.world(0).bodies[2].position, before0.bodies[2].position);
  // After the reset world 1 repeats world 0's first steps exactly (a fresh world, fresh warm start).
  VecWorld fresh(scene, 1, 1);
  for (int k = 0; k < 5; ++k) {
    ASSERT_TRUE(vec.step());
    ASSERT_TRUE(fresh.step());
  }
  for (std::size_t j = 0; j < row; ++j) EXPECT_EQ(vec.positions()[row + j], fresh.positions()[j]);
  vec.reset();
  for (std::size_t j = 0; j < q0.size(); ++j) EXPECT_EQ(vec.positions()[j], q0[j]);
  EXPECT_NE(refusal([&] {
              vec.reset(std::vector<std::uint8_t>{1, 0});
            }).find("mask: expected 3 entries"),
            std::string::npos);
}

TEST(VecWorld, AWorldWhoseStepOverflowsIsFlaggedAndTheOthersGoOn) {
  Scene scene;
  scene.world.bodies.push_back(test::disk("light", 0.1, 1e-3, {0.0, 1.0}));
  scene.world.bodies.push_back(test::disk("other", 0.1, 1.0, {1.0, 1.0}));
  scene.world.ground = Ground{0.0};
  scene.options.timestep = 0.01;
  VecWorld vec(scene, 3, 2);
  std::vector<double> forces(3 * 2 * 3, 0.0);
  // World 1's light disk: h f / m = 0.01 · 1e308 / 1e-3 overflows to +inf.
  forces[(1 * 2 + 0) * 3 + 0] = 1e308;
  ASSERT_TRUE(vec.step(forces));
  EXPECT_EQ(vec.failed()[0], 0);
  EXPECT_EQ(vec.failed()[1], 1);
  EXPECT_EQ(vec.failed()[2], 0);
  EXPECT_EQ(vec.solved()[1], 0);
  EXPECT_NE(vec.message(1).find("step 1: "), std::string::npos) << vec.message(1);
  EXPECT_NE(vec.message(1).find("body 'light' x = +inf"), std::string::npos) << vec.message(1);
  EXPECT_TRUE(vec.message(0).empty());
  // The failed world is not stepped again; the others are, and fall freely: after two steps from
  // rest v = −2 g h = −0.1962 m/s.
  ASSERT_TRUE(vec.step());
  EXPECT_EQ(vec.steps()[1], 1);
  EXPECT_EQ(vec.steps()[0], 2);
  EXPECT_NEAR(vec.world(2).bodies[1].velocity.y(), -2 * 9.81 * 0.01, 1e-15);
  vec.reset(std::vector<std::uint8_t>{0, 1, 0});
  EXPECT_EQ(vec.failed()[1], 0);
  EXPECT_TRUE(vec.message(1).empty());
  ASSERT_TRUE(vec.step());
  EXPECT_EQ(vec.failed()[1], 0);
  EXPECT_EQ(vec.solved()[1], 1);
}

TEST(VecWorld, RefusesBadInputByName) {
  const Scene scene = pile();
  EXPECT_NE(refusal([&] { VecWorld(scene, 0); }).find("worlds: expected >= 1"), std::string::npos);
  Scene bad = scene;
  bad.options.timestep = -1;
  EXPECT_NE(refusal([&] { VecWorld(bad, 2); }).find("timestep"), std::string::npos);
  VecWorld vec(scene, 2, 1);
  const std::size_t nb = scene.world.bodies.size();
  std::vector<double> short_forces(2 * nb * 3 - 1, 0.0);
  EXPECT_NE(refusal([&] { vec.step(short_forces); }).find("forces: expected 2 × 6 × 3 numbers"), std::string::npos);
  std::vector<double> forces(2 * nb * 3, 0.0);
  forces[(1 * nb + 5) * 3 + 2] = std::nan("");
  const std::string message = refusal([&] { vec.step(forces); });
  EXPECT_NE(message.find("forces[1, 5, 2] (world 1, body 'lid', torque) is NaN"), std::string::npos) << message;
  EXPECT_EQ(vec.steps()[0], 0);  // refused before any world stepped
}

TEST(VecWorld, TargetVelocitiesDriveAKinematicPusherAndSetAFreeBody) {
  // No gravity. A fixed box (a kinematic pusher) driven at vx = 1 m/s moves h = 0.01 m a step; a free
  // disk far away set to (vx, ω) = (2, 3) with vy not driven (NaN) keeps its vy = −0.5 and moves
  // (2 h, −0.5 h, 3 h). World 1 gets no target: the pusher stays, the disk drifts at its own vy.
  Scene scene;
  scene.options.gravity = {0, 0};
  scene.options.timestep = 0.01;
  Body pusher;
  pusher.name = "pusher";
  pusher.shape = Box{0.2, 0.2};
  pusher.mass = 1;
  pusher.fixed = true;
  Body puck;
  puck.name = "puck";
  puck.shape = Disk{0.1};
  puck.mass = 1;
  puck.position = {5, 0};
  puck.velocity = {0, -0.5};
  scene.world.bodies = {pusher, puck};
  VecWorld vec(scene, 2, 1);
  const double nan = std::nan("");
  std::vector<double> targets = {1, 0, 0, 2, nan, 3,  // world 0
                                 nan, nan, nan, nan, nan, nan};
  for (int k = 0; k < 10; ++k) ASSERT_TRUE(vec.step({}, {}, targets));
  const World w0 = vec.world(0);
  EXPECT_NEAR(w0.bodies[0].position.x(), 0.1, 1e-14);
  EXPECT_NEAR(w0.bodies[1].position.x(), 5.2, 1e-14);
  EXPECT_NEAR(w0.bodies[1].position.y(), -0.05, 1e-14);
  EXPECT_NEAR(w0.bodies[1].angle, 0.3, 1e-14);
  const World w1 = vec.world(1);
  EXPECT_EQ(w1.bodies[0].position.x(), 0.0);
  EXPECT_NEAR(w1.bodies[1].position.x(), 5.0, 1e-14);
  EXPECT_NEAR(w1.bodies[1].position.y(), -0.05, 1e-14);
  targets[4] = std::numeric_limits<double>::infinity();
  const std::string message = refusal([&] { vec.step({}, {}, targets); });
  EXPECT_NE(message.find("velocities[0, 1, 1] (world 0, body 'puck', vy) is"), std::string::npos) << message;
  EXPECT_NE(refusal([&] { vec.step({}, {}, std::vector<double>(5, 0.0)); }).find("velocities: expected 2 × 2 × 3"),
            std::string::npos);
}

TEST(VecWorld, AnInterruptStopsBeforeTheNextWorldAndSaysWhichStepped) {
  const Scene scene = pile();
  VecWorld vec(scene, 4, 1);
  int calls = 0;
  // Asked before the first world: a hook that answers true at once leaves every world as it was.
  EXPECT_FALSE(vec.step({}, [&] {
    ++calls;
    return true;
  }));
  EXPECT_EQ(calls, 1);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(vec.steps()[i], 0);
  // A hook that answers false: every world steps (the hook is asked again only after 50 ms).
  EXPECT_TRUE(vec.step({}, [&] {
    ++calls;
    return false;
  }));
  EXPECT_GE(calls, 2);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(vec.steps()[i], 1);
}

}  // namespace
}  // namespace perp::contact::contact_vec_world_test
