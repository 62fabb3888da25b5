#include "perp/contact/body.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_body_test {
namespace {

using test::box;
using test::disk;
using test::rod;
using ::testing::HasSubstr;

TEST(Body, DefaultInertiaFromTheShape) {
  EXPECT_DOUBLE_EQ(disk("d", 0.5, 2.0, {0, 0}).moment_of_inertia(), 2.0 * 0.25 / 2);
  EXPECT_DOUBLE_EQ(box("b", 3.0, 4.0, 12.0, {0, 0}).moment_of_inertia(), 12.0 * 25.0 / 12);
  // Rod of length 2l: m l² / 3 about the centre ([chapter] §1.7).
  EXPECT_DOUBLE_EQ(rod("r", 2.0, 3.0, {0, 0}, 0).moment_of_inertia(), 3.0 * 1.0 / 3);
}

TEST(Body, ExplicitInertiaOverrides) {
  Body body = disk("d", 0.5, 2.0, {0, 0});
  body.inertia = 7.0;
  EXPECT_DOUBLE_EQ(body.moment_of_inertia(), 7.0);
}

TEST(Body, ToWorldRotatesCounterClockwise) {
  const Body body = box("b", 2, 1, 1, {1, 2}, M_PI / 2);
  const Eigen::Vector2d p = body.to_world({1, 0});
  EXPECT_NEAR(p.x(), 1, 1e-15);
  EXPECT_NEAR(p.y(), 3, 1e-15);
}

TEST(Body, ValidateNamesTheField) {
  auto message = [](const Body& body) {
    try {
      body.validate();
    } catch (const InvalidProblem& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message(disk("ball", 0.1, 0, {0, 0})), HasSubstr("body \"ball\": mass must be finite and > 0"));
  EXPECT_THAT(message(disk("ball", -1, 1, {0, 0})), HasSubstr("radius"));
  EXPECT_THAT(message(box("crate", 1, 0, 1, {0, 0})), HasSubstr("height"));
  EXPECT_THAT(message(rod("stick", std::numeric_limits<double>::quiet_NaN(), 1, {0, 0}, 0)), HasSubstr("length"));
  Body bad = disk("ball", 0.1, 1, {0, std::numeric_limits<double>::infinity()});
  EXPECT_THAT(message(bad), HasSubstr("position[1] is not finite"));
  bad = disk("ball", 0.1, 1, {0, 0});
  bad.inertia = -1;
  EXPECT_THAT(message(bad), HasSubstr("inertia"));
  EXPECT_THAT(message(disk("", 0.1, 1, {0, 0})), HasSubstr("name must not be empty"));
  EXPECT_THAT(message(disk(std::string("a\0b", 3), 0.1, 1, {0, 0})), HasSubstr("NUL character at byte 1"));
}

TEST(World, RejectsDuplicateAndReservedNames) {
  World world;
  world.bodies = {disk("a", 0.1, 1, {0, 0}), disk("a", 0.1, 1, {1, 0})};
  EXPECT_THROW(world.validate(), InvalidProblem);
  world.bodies = {disk("ground", 0.1, 1, {0, 0})};
  EXPECT_THROW(world.validate(), InvalidProblem);
  // Many bodies (the names' table grows past its first 16 slots and its probes wrap around): every
  // name distinct passes, and one repeated anywhere, far from its first use, is named.
  world.bodies.clear();
  for (int i = 0; i < 1000; ++i) world.bodies.push_back(disk("d" + std::to_string(i), 0.1, 1, {i, 0}));
  EXPECT_NO_THROW(world.validate());
  world.bodies.push_back(disk("d17", 0.1, 1, {0, 5}));
  try {
    world.validate();
    ADD_FAILURE() << "a repeated name passed";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("body name \"d17\" is used twice"));
  }
  world.bodies.pop_back();
  world.bodies[500].name = "d999";  // the last body's name, earlier
  EXPECT_THROW(world.validate(), InvalidProblem);
}

TEST(Body, MassMatrixDiagonals) {
  const std::vector<Body> bodies{disk("d", 0.5, 2.0, {0, 0}), box("b", 1, 1, 3.0, {0, 0})};
  const Eigen::VectorXd inverse = inverse_mass_diagonal(bodies);
  ASSERT_EQ(inverse.size(), 6);
  EXPECT_DOUBLE_EQ(inverse[0], 0.5);
  EXPECT_DOUBLE_EQ(inverse[2], 1 / 0.25);
  EXPECT_DOUBLE_EQ(inverse[4], 1 / 3.0);
  EXPECT_DOUBLE_EQ(inverse[5], 1 / 0.5);
}

}  // namespace
}  // namespace perp::contact::contact_body_test
