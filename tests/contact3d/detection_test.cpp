#include "perp/contact3d/detection.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <set>
#include <string>

namespace perp::contact3d_detection_test {
namespace {

using contact3d::Body;
using contact3d::Contact;
using contact3d::Ground;
using contact3d::Plane;
using contact3d::Shape;
using contact3d::World;

void expect_frame(const Contact& c) {
  EXPECT_NEAR(c.normal.norm(), 1, 1e-12);
  EXPECT_NEAR(c.tangent1.norm(), 1, 1e-12);
  EXPECT_NEAR(c.normal.dot(c.tangent1), 0, 1e-12);
  EXPECT_LT((c.tangent1.cross(c.tangent2) - c.normal).norm(), 1e-12);
}

TEST(Detection3d, BoxFlatOnTheGroundHasFourCorners) {
  World world;
  world.ground = Ground{.height = 0.5};
  world.bodies.push_back(Body{.name = "box", .shape = Shape::box({0.4, 0.3, 0.2}), .position = {1, 2, 0.6}});
  const std::vector<Contact> contacts = contact3d::detect_contacts(world, 1e-9);
  ASSERT_EQ(contacts.size(), 4u);
  std::set<int> features;
  for (const Contact& c : contacts) {
    EXPECT_EQ(c.body_b, contact3d::kGround);
    EXPECT_NEAR(c.gap, 0, 1e-15);
    EXPECT_NEAR(c.point.z(), 0.5, 1e-15);
    EXPECT_NEAR(std::abs(c.arm_a.x()), 0.2, 1e-15);
    EXPECT_NEAR(std::abs(c.arm_a.y()), 0.15, 1e-15);
    expect_frame(c);
    features.insert(c.feature);
  }
  EXPECT_EQ(features, (std::set<int>{0, 1, 2, 3}));  // the corners with −z
}

TEST(Detection3d, SphereAgainstATiltedPlaneHasItsSignedGap) {
  World world;
  const double a = 0.3;
  const Eigen::Vector3d n(-std::sin(a), 0, std::cos(a));
  world.planes.push_back(Plane{.point = {0, 0, 0}, .normal = 3 * n});
  world.bodies.push_back(Body{.name = "ball", .shape = Shape::sphere(0.1), .position = 0.09 * n});
  const std::vector<Contact> contacts = contact3d::detect_contacts(world, 0.0);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].body_b, -2);
  EXPECT_NEAR(contacts[0].gap, -0.01, 1e-15);
  EXPECT_LT((contacts[0].normal - n).norm(), 1e-15);
  EXPECT_LT((contacts[0].arm_a + 0.1 * n).norm(), 1e-15);
  expect_frame(contacts[0]);
  // Out of the margin: nothing.
  world.bodies[0].position = 0.2 * n;
  EXPECT_TRUE(contact3d::detect_contacts(world, 0.05).empty());
  EXPECT_EQ(contact3d::detect_contacts(world, 0.11).size(), 1u);
}

TEST(Detection3d, CapsuleAndCylinderLyingOnTheGroundTouchAtTwoPoints) {
  World world;
  world.ground = Ground{};
  const Eigen::Quaterniond lying(Eigen::AngleAxisd(std::numbers::pi / 2, Eigen::Vector3d::UnitX()));
  world.bodies.push_back(
      Body{.name = "capsule", .shape = Shape::capsule(0.1, 0.5), .position = {0, 0, 0.1}, .orientation = lying});
  world.bodies.push_back(
      Body{.name = "cylinder", .shape = Shape::cylinder(0.1, 0.5), .position = {1, 0, 0.1}, .orientation = lying});
  const std::vector<Contact> contacts = contact3d::detect_contacts(world, 1e-9);
  ASSERT_EQ(contacts.size(), 4u);
  for (const Contact& c : contacts) {
    EXPECT_NEAR(c.gap, 0, 1e-15);
    EXPECT_NEAR(std::abs(c.arm_a.y()), 0.25, 1e-15);
  }
  // Standing on a cap: four rim points.
  world.bodies[1].orientation = Eigen::Quaterniond::Identity();
  world.bodies[1].position = {1, 0, 0.25};
  int on_rim = 0;
  for (const Contact& c : contact3d::detect_contacts(world, 1e-9)) {
    if (c.body_a != 1) continue;
    ++on_rim;
    EXPECT_NEAR(c.gap, 0, 1e-15);
    EXPECT_NEAR(c.arm_a.head<2>().norm(), 0.1, 1e-15);
  }
  EXPECT_EQ(on_rim, 4);
}

// Body against body through FCL: the gap and normal of two spheres, which FCL finds through the
// shape grown by the margin.
TEST(Detection3d, TwoSpheresThroughFcl) {
  World world;
  world.bodies.push_back(Body{.name = "low", .shape = Shape::sphere(0.5), .position = {0, 0, 0}, .fixed = true});
  world.bodies.push_back(Body{.name = "high", .shape = Shape::sphere(0.25), .position = {0.3, 0, 0.4 + 0.75 - 0.75}});
  // Centres 0.5 apart along (0.6, 0, 0.8): overlap 0.25.
  world.bodies[1].position = 0.5 * Eigen::Vector3d(0.6, 0, 0.8);
  std::vector<Contact> contacts = contact3d::detect_contacts(world, 1e-3);
  ASSERT_EQ(contacts.size(), 1u);
  const Contact& c = contacts[0];
  EXPECT_EQ(c.body_a, 0);
  EXPECT_EQ(c.body_b, 1);
  EXPECT_NEAR(c.gap, -0.25, 1e-6);
  // n points from b (the upper sphere) to a (the lower one).
  EXPECT_LT((c.normal + Eigen::Vector3d(0.6, 0, 0.8)).norm(), 1e-6);
  expect_frame(c);
  // Apart by 0.01: found with a margin of 0.02 at gap 0.01, not with 0.005.
  world.bodies[1].position = 0.76 * Eigen::Vector3d(0.6, 0, 0.8);
  contacts = contact3d::detect_contacts(world, 0.02);
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_NEAR(contacts[0].gap, 0.01, 1e-6);
  EXPECT_TRUE(contact3d::detect_contacts(world, 0.005).empty());
  // Two fixed bodies never touch.
  world.bodies[1].fixed = true;
  world.bodies[1].position = world.bodies[0].position;
  EXPECT_TRUE(contact3d::detect_contacts(world, 0.02).empty());
}

// Frozen bodies (those that slept through the last step) are not searched against each other, fixed
// bodies or the ground, but a body that is not frozen still finds them: three unit spheres resting
// on the ground in a row, touching, the middle one not frozen.
TEST(Detection3d, FrozenBodiesAreSearchedOnlyAgainstMovingOnes) {
  World world;
  world.ground = Ground{.height = 0};
  for (int i = 0; i < 3; ++i) {
    world.bodies.push_back(Body{.name = "s" + std::to_string(i), .shape = Shape::sphere(0.5),
                                .position = {static_cast<double>(i), 0, 0.5}});
  }
  const auto pairs = [](const std::vector<Contact>& contacts) {
    std::set<std::pair<int, int>> found;
    for (const Contact& c : contacts) found.emplace(c.body_a, c.body_b);
    return found;
  };
  const double margin = 1e-3;
  EXPECT_EQ(pairs(contact3d::detect_contacts(world, margin)),
            (std::set<std::pair<int, int>>{{0, -1}, {1, -1}, {2, -1}, {0, 1}, {1, 2}}));
  // The outer two frozen: only the middle one's contacts (with the ground and with both).
  EXPECT_EQ(pairs(contact3d::detect_contacts(world, margin, {1, 0, 1})),
            (std::set<std::pair<int, int>>{{1, -1}, {0, 1}, {1, 2}}));
  // All three frozen: nothing; none frozen (empty): the full search.
  EXPECT_TRUE(contact3d::detect_contacts(world, margin, {1, 1, 1}).empty());
  EXPECT_EQ(contact3d::detect_contacts(world, margin, {}).size(), contact3d::detect_contacts(world, margin).size());
}

// A box resting flat on a static box: FCL's box–box test gives a manifold.
TEST(Detection3d, BoxOnAStaticBoxHasAManifold) {
  World world;
  world.bodies.push_back(
      Body{.name = "table", .shape = Shape::box({2, 2, 0.5}), .position = {0, 0, 0.25}, .fixed = true});
  world.bodies.push_back(Body{.name = "box", .shape = Shape::box({0.4, 0.3, 0.2}), .position = {0.1, 0.2, 0.6}});
  const std::vector<Contact> contacts = contact3d::detect_contacts(world, 1e-6);
  ASSERT_EQ(contacts.size(), 4u);
  for (const Contact& c : contacts) {
    EXPECT_NEAR(c.gap, 0, 1e-9);
    EXPECT_LT((c.normal + Eigen::Vector3d::UnitZ()).norm(), 1e-9);
    EXPECT_NEAR(std::abs(c.arm_b.x()), 0.2, 1e-6);
    EXPECT_NEAR(std::abs(c.arm_b.y()), 0.15, 1e-6);
  }
}

// Two boxes of a layer corner to corner touch along a vertical edge, where their separations along
// a's x and y axes are both 0: either face normal is right, and round-off in the positions used to
// decide FCL's pick from one step to the next. The first tied face axis (a's x) is taken every
// time: n = −x, from b at (1, 1) towards a at the origin. Where one axis separates more (b beside a
// with an offset), its normal is kept.
TEST(Detection3d, BoxesTouchingAlongAnEdgeKeepOneNormal) {
  const std::vector<Eigen::Vector2d> jitters = {{0, 0}, {1e-15, -1e-15}, {-1e-15, 1e-15}, {2e-16, 0}, {0, -3e-16}};
  for (const Eigen::Vector2d& jitter : jitters) {
    World world;
    world.bodies.push_back(Body{.name = "a", .shape = Shape::box({1, 1, 0.5}), .position = {0, 0, 0.25}});
    world.bodies.push_back(Body{
        .name = "b", .shape = Shape::box({1, 1, 0.5}), .position = {1 + jitter.x(), 1 + jitter.y(), 0.25}});
    const std::vector<Contact> contacts = contact3d::detect_contacts(world, 1e-6);
    ASSERT_FALSE(contacts.empty());
    for (const Contact& c : contacts) {
      EXPECT_LT((c.normal + Eigen::Vector3d::UnitX()).norm(), 1e-12) << jitter.transpose() << ": " << c.normal.transpose();
      EXPECT_NEAR(c.gap, 0, 1e-9);
      EXPECT_NEAR(c.point.x(), 0.5, 2e-6);  // on the shared edge x = y = 0.5 (a grown by the margin)
      EXPECT_NEAR(c.point.y(), 0.5, 2e-6);
    }
  }
  for (const auto& [offset, normal] : {std::pair(Eigen::Vector2d(1, 0.3), Eigen::Vector3d(-1, 0, 0)),
                                       std::pair(Eigen::Vector2d(0.3, 1), Eigen::Vector3d(0, -1, 0))}) {
    World world;
    world.bodies.push_back(Body{.name = "a", .shape = Shape::box({1, 1, 0.5}), .position = {0, 0, 0.25}});
    world.bodies.push_back(
        Body{.name = "b", .shape = Shape::box({1, 1, 0.5}), .position = {offset.x(), offset.y(), 0.25}});
    const std::vector<Contact> contacts = contact3d::detect_contacts(world, 1e-6);
    ASSERT_EQ(contacts.size(), 4u);
    for (const Contact& c : contacts) EXPECT_LT((c.normal - normal).norm(), 1e-12) << c.normal.transpose();
  }
}

}  // namespace
}  // namespace perp::contact3d_detection_test
