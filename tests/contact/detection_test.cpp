#include "perp/contact/detection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>

#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_detection_test {
namespace {

using test::box;
using test::disk;
using test::rod;

World with_ground(std::vector<Body> bodies, double height = 0) {
  World world;
  world.bodies = std::move(bodies);
  world.ground = Ground{height};
  return world;
}

// The broad phase (a uniform grid, with the largest bodies checked against all) misses no pair: on
// disks of mixed sizes — a tenth of them 8 times larger than the rest, a few fixed — and a cluster
// far out at 1e12 m, the pairs of the contacts found are exactly those whose gap
// |c_i − c_j| − r_i − r_j is <= margin, found by checking every pair.
TEST(Detection, BroadPhaseMissesNoPair) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> unit(0, 1);
  World world;
  for (int i = 0; i < 400; ++i) {
    const bool big = i % 10 == 0;
    const double r = big ? 0.8 : 0.05 + 0.05 * unit(gen);
    Eigen::Vector2d centre(6 * unit(gen), 6 * unit(gen));
    if (i >= 360) centre += Eigen::Vector2d(1e12, -1e12);
    world.bodies.push_back(disk("d" + std::to_string(i), r, 1, centre));
    world.bodies.back().fixed = i % 7 == 0;
  }
  const double margin = 0.01;
  std::set<std::pair<int, int>> expected;
  for (std::size_t i = 0; i < world.bodies.size(); ++i) {
    for (std::size_t j = i + 1; j < world.bodies.size(); ++j) {
      const Body& a = world.bodies[i];
      const Body& b = world.bodies[j];
      if (a.fixed && b.fixed) continue;
      const double gap = (a.position - b.position).norm() - std::get<Disk>(a.shape).radius - std::get<Disk>(b.shape).radius;
      if (gap <= margin) expected.emplace(static_cast<int>(i), static_cast<int>(j));
    }
  }
  std::set<std::pair<int, int>> found;
  for (const Contact& c : detect_contacts(world, margin)) found.emplace(std::min(c.body_a, c.body_b), std::max(c.body_a, c.body_b));
  EXPECT_GT(expected.size(), 300u);
  EXPECT_EQ(found, expected);
}

TEST(Detection, DiskAboveGround) {
  const World world = with_ground({disk("ball", 0.1, 1, {0.3, 0.35})}, 0.05);
  EXPECT_TRUE(detect_contacts(world, 0.1).empty());
  const auto contacts = detect_contacts(world, 0.2);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].gap, 0.35 - 0.1 - 0.05, 1e-15);
  EXPECT_EQ(contacts[0].body_b, kGround);
  EXPECT_DOUBLE_EQ(contacts[0].normal.y(), 1);
  EXPECT_NEAR(contacts[0].point.y(), 0.25, 1e-15);
  EXPECT_NEAR(contacts[0].arm_a.y(), -0.1, 1e-15);
}

TEST(Detection, TiltedBoxCornersOnGround) {
  // A unit square rotated by 30°: its lowest corner is at y − (cos 30° + sin 30°)/2.
  const double angle = M_PI / 6;
  const World world = with_ground({box("b", 1, 1, 1, {0, 1}, angle)});
  const auto contacts = detect_contacts(world, 0);
  EXPECT_TRUE(contacts.empty());
  const auto near = detect_contacts(world, 1.0);
  ASSERT_EQ(near.size(), 2u);  // the two lower corners; the upper two are above y = 1
  const double lowest = 1 - (std::cos(angle) + std::sin(angle)) / 2;
  const double min_gap = std::min(near[0].gap, near[1].gap);
  EXPECT_NEAR(min_gap, lowest, 1e-14);
}

TEST(Detection, RodEnds) {
  const World world = with_ground({rod("r", 2, 1, {0, std::sin(0.5)}, -0.5)});
  const auto contacts = detect_contacts(world, 1e-9);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].gap, 0, 1e-15);
  EXPECT_NEAR(contacts[0].point.x(), std::cos(0.5), 1e-15);
}

TEST(Detection, DiskDisk) {
  World world;
  world.bodies = {disk("a", 0.5, 1, {0, 0}), disk("b", 0.25, 1, {0.6, 0.8})};
  const auto contacts = detect_contacts(world, 0.5);
  ASSERT_EQ(contacts.size(), 1u);
  const Contact& c = contacts[0];
  EXPECT_EQ(c.body_a, 0);
  EXPECT_EQ(c.body_b, 1);
  EXPECT_NEAR(c.gap, 1.0 - 0.75, 1e-15);
  // The normal points from b to a.
  EXPECT_NEAR(c.normal.x(), -0.6, 1e-15);
  EXPECT_NEAR(c.normal.y(), -0.8, 1e-15);
  EXPECT_TRUE(detect_contacts(world, 0.2).empty());
}

TEST(Detection, DiskOnRotatedBoxFace) {
  World world;
  const double angle = 0.3;
  world.bodies = {box("b", 2, 1, 1, {0, 0}, angle)};
  const Eigen::Vector2d up(-std::sin(angle), std::cos(angle));  // the box's top-face normal
  world.bodies.push_back(disk("d", 0.2, 1, 0.7 * up));
  const auto contacts = detect_contacts(world, 0.1);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].body_a, 1);  // the disk
  EXPECT_NEAR(contacts[0].gap, 0.7 - 0.5 - 0.2, 1e-14);
  EXPECT_NEAR((contacts[0].normal - up).norm(), 0, 1e-14);
}

TEST(Detection, DiskPenetratingBoxLeavesThroughNearestFace) {
  World world;
  world.bodies = {disk("d", 0.1, 1, {0.9, 0.0}), box("b", 2, 1, 1, {0, 0})};
  const auto contacts = detect_contacts(world, 0);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].normal.x(), 1, 1e-15);
  EXPECT_NEAR(contacts[0].gap, -0.1 - 0.1, 1e-15);
}

TEST(Detection, StackedBoxesTouchAtTheUpperCorners) {
  // Equal boxes, one on the other: two contacts at the interface, normal +y from lower to upper.
  World world;
  world.bodies = {box("low", 1, 0.5, 1, {0, 0.25}), box("up", 1, 0.5, 1, {0, 0.75})};
  const auto contacts = detect_contacts(world, 1e-9);
  ASSERT_EQ(contacts.size(), 2u);
  for (const Contact& c : contacts) {
    EXPECT_NEAR(c.gap, 0, 1e-15);
    EXPECT_EQ(c.body_a, 1);
    EXPECT_EQ(c.body_b, 0);
    EXPECT_NEAR(c.normal.y(), 1, 1e-15);
    EXPECT_NEAR(std::abs(c.point.x()), 0.5, 1e-15);
  }
}

TEST(Detection, SmallBoxUnderWideBoxClipsToTheSmallFace) {
  // The wide box's corners hang over; the contact points are the small box's top corners.
  World world;
  world.bodies = {box("small", 0.4, 0.5, 1, {0, 0.25}), box("wide", 2, 0.5, 1, {0.1, 0.75})};
  const auto contacts = detect_contacts(world, 1e-9);
  ASSERT_EQ(contacts.size(), 2u);
  std::vector<double> xs{contacts[0].point.x(), contacts[1].point.x()};
  std::sort(xs.begin(), xs.end());
  EXPECT_NEAR(xs[0], -0.2, 1e-14);
  EXPECT_NEAR(xs[1], 0.2, 1e-14);
}

TEST(Detection, TiltedBoxCornerOnFace) {
  // A box resting on one corner on a wide box: one contact, the corner, gap as computed.
  World world;
  const double angle = M_PI / 4;
  const double corner_drop = std::sqrt(0.5);  // half-diagonal of the unit square
  world.bodies = {box("base", 4, 1, 1, {0, 0}), box("top", 1, 1, 1, {0.3, 0.5 + corner_drop + 0.01}, angle)};
  const auto contacts = detect_contacts(world, 0.05);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].gap, 0.01, 1e-12);
  EXPECT_NEAR(contacts[0].point.x(), 0.3, 1e-12);
  EXPECT_EQ(contacts[0].body_a, 1);
}

TEST(Detection, SeparatedBoxesAndFarDisks) {
  World world;
  world.bodies = {box("a", 1, 1, 1, {0, 0}), box("b", 1, 1, 1, {1.5, 0}), disk("c", 0.1, 1, {5, 0})};
  EXPECT_TRUE(detect_contacts(world, 0.4).empty());
  EXPECT_EQ(detect_contacts(world, 0.6).size(), 2u);
}

TEST(Detection, PileFindsEveryTouchingPair) {
  // A row of 50 touching disks: 49 disk–disk contacts (the sweep must not miss any) + 50 ground.
  World world;
  for (int i = 0; i < 50; ++i) world.bodies.push_back(disk("d" + std::to_string(i), 0.5, 1, {49.0 - i, 0.5}));
  world.ground = Ground{0};
  EXPECT_EQ(detect_contacts(world, 1e-9).size(), 99u);
}

// Bodies marked frozen are searched like fixed ones: the contacts found are exactly the full
// search's, in its order, less those between two frozen (or fixed) bodies and those of a frozen body
// with the ground or a wall; a frozen body still meets every body that is not.
TEST(Detection, FrozenBodiesAreNotSearchedAgainstEachOther) {
  World world = test::disk_heap_between_walls(36);
  // Settle nothing: the rows of the generator touch the walls and their neighbours at a margin.
  const double margin = 0.1;
  std::vector<char> frozen(world.bodies.size(), 0);
  for (std::size_t i = 0; i < 24; ++i) frozen[i] = 1;  // the four lowest rows
  world.bodies[30].fixed = true;
  const std::vector<Contact> full = detect_contacts(world, margin);
  const std::vector<Contact> partial = detect_contacts(world, margin, frozen);
  const auto held = [&](int body) {
    return body < 0 || world.bodies[static_cast<std::size_t>(body)].fixed || frozen[static_cast<std::size_t>(body)];
  };
  std::vector<Contact> expected;
  std::size_t between_frozen_and_free = 0;
  for (const Contact& c : full) {
    if (held(c.body_a) && held(c.body_b)) continue;
    expected.push_back(c);
    const auto is_frozen = [&](int body) { return body >= 0 && frozen[static_cast<std::size_t>(body)]; };
    if (is_frozen(c.body_a) || is_frozen(c.body_b)) ++between_frozen_and_free;
  }
  EXPECT_LT(expected.size(), full.size());
  EXPECT_GT(between_frozen_and_free, 0u);  // row 4 rests on row 3
  ASSERT_EQ(partial.size(), expected.size());
  for (std::size_t k = 0; k < partial.size(); ++k) {
    EXPECT_EQ(partial[k].body_a, expected[k].body_a);
    EXPECT_EQ(partial[k].body_b, expected[k].body_b);
    EXPECT_EQ(partial[k].point, expected[k].point);
    EXPECT_EQ(partial[k].gap, expected[k].gap);
  }
  // No frozen body: the full search.
  EXPECT_EQ(detect_contacts(world, margin, std::vector<char>(world.bodies.size(), 0)).size(), full.size());
  EXPECT_EQ(detect_contacts(world, margin, {}).size(), full.size());
  EXPECT_THROW((void)detect_contacts(world, margin, std::vector<char>(3, 1)), InvalidProblem);
  // Every body frozen or fixed (a pile asleep): nothing is searched, so nothing is found, while the
  // full search of the same world finds the heap's contacts.
  EXPECT_TRUE(detect_contacts(world, margin, std::vector<char>(world.bodies.size(), 1)).empty());
  std::vector<char> all_but_fixed(world.bodies.size(), 1);
  all_but_fixed[30] = 0;  // fixed anyway
  EXPECT_TRUE(detect_contacts(world, margin, all_but_fixed).empty());
  EXPECT_FALSE(full.empty());
}

TEST(Detection, RejectsBadMargin) {
  const World world = with_ground({disk("ball", 0.1, 1, {0, 1})});
  EXPECT_THROW((void)detect_contacts(world, -1), InvalidProblem);
  EXPECT_THROW((void)detect_contacts(world, std::nan("")), InvalidProblem);
}

}  // namespace
}  // namespace perp::contact::contact_detection_test
