#include "perp/contact3d/body.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>

#include "perp/core/error.hpp"

namespace perp::contact3d_body_test {
namespace {

using contact3d::Body;
using contact3d::Plane;
using contact3d::Shape;
using contact3d::World;
using testing::HasSubstr;

std::string error_of(const World& world) {
  try {
    world.validate();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

TEST(Body3d, InertiaOfTheShapesIsTheClosedForm) {
  const double m = 2.0;
  // Solid sphere 2/5 m r².
  EXPECT_NEAR(Shape::sphere(0.5).inertia(m)(0, 0), 0.4 * m * 0.25, 1e-15);
  // Box m/12 (b² + c²) about x, etc.
  const Eigen::Matrix3d box = Shape::box({1.0, 0.6, 0.3}).inertia(m);
  EXPECT_NEAR(box(0, 0), m / 12 * (0.36 + 0.09), 1e-15);
  EXPECT_NEAR(box(1, 1), m / 12 * (1.0 + 0.09), 1e-15);
  EXPECT_NEAR(box(2, 2), m / 12 * (1.0 + 0.36), 1e-15);
  EXPECT_EQ(box(0, 1), 0.0);
  // Cylinder m r²/2 about its axis, m (3 r² + l²)/12 across.
  const Eigen::Matrix3d cylinder = Shape::cylinder(0.2, 1.0).inertia(m);
  EXPECT_NEAR(cylinder(2, 2), m * 0.04 / 2, 1e-15);
  EXPECT_NEAR(cylinder(0, 0), m * (3 * 0.04 + 1.0) / 12, 1e-15);
  // A capsule of length 0 is a sphere.
  EXPECT_NEAR(Shape::capsule(0.3, 0.0).inertia(m)(0, 0), 0.4 * m * 0.09, 1e-15);
  EXPECT_NEAR(Shape::capsule(0.3, 0.0).inertia(m)(2, 2), 0.4 * m * 0.09, 1e-15);
}

// The capsule's closed form against an independent sum: a cylinder and two hemispheres by the
// parallel-axis theorem (a hemisphere's centroid is 3r/8 from its flat face; about its centroid
// across the axis it has (2/5 − 9/64) m r²).
TEST(Body3d, CapsuleInertiaMatchesCylinderPlusHemispheres) {
  const double r = 0.25;
  const double l = 0.8;
  const double m = 3.0;
  const double pi = std::numbers::pi;
  const double v_cyl = pi * r * r * l;
  const double v_half = 2.0 / 3.0 * pi * r * r * r;
  const double density = m / (v_cyl + 2 * v_half);
  const double m_cyl = density * v_cyl;
  const double m_half = density * v_half;
  const double offset = l / 2 + 3 * r / 8;
  const double across =
      m_cyl * (3 * r * r + l * l) / 12 + 2 * (m_half * (0.4 - 9.0 / 64) * r * r + m_half * offset * offset);
  const double along = m_cyl * r * r / 2 + 2 * 0.4 * m_half * r * r;
  const Eigen::Matrix3d I = Shape::capsule(r, l).inertia(m);
  EXPECT_NEAR(I(0, 0), across, 1e-14);
  EXPECT_NEAR(I(1, 1), across, 1e-14);
  EXPECT_NEAR(I(2, 2), along, 1e-14);
}

TEST(Body3d, GivenInertiaIsUsedAndWorldInverseIsRotated) {
  Body body{.name = "b", .shape = Shape::box({1, 1, 1})};
  body.inertia = Eigen::Vector3d(1.0, 2.0, 4.0).asDiagonal();
  body.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(std::numbers::pi / 2, Eigen::Vector3d::UnitZ()));
  const Eigen::Matrix3d inverse = body.world_inverse_inertia();
  // A quarter turn about z swaps x and y.
  EXPECT_NEAR(inverse(0, 0), 0.5, 1e-15);
  EXPECT_NEAR(inverse(1, 1), 1.0, 1e-15);
  EXPECT_NEAR(inverse(2, 2), 0.25, 1e-15);
  body.fixed = true;
  EXPECT_EQ(body.world_inverse_inertia(), Eigen::Matrix3d::Zero());
}

TEST(Body3d, BadInputIsRefusedWithFieldAndValue) {
  World world;
  world.bodies.push_back(Body{.name = "a", .shape = Shape::sphere(0.1)});
  EXPECT_EQ(error_of(world), "");
  world.bodies[0].mass = -1;
  EXPECT_THAT(error_of(world), HasSubstr("body \"a\": mass must be finite and > 0, got -1"));
  world.bodies[0].mass = 1;
  world.bodies[0].orientation = Eigen::Quaterniond(2, 0, 0, 0);
  EXPECT_THAT(error_of(world), HasSubstr("orientation must be a unit quaternion, got norm 2"));
  world.bodies[0].orientation = Eigen::Quaterniond::Identity();
  world.bodies[0].velocity.y() = NAN;
  EXPECT_THAT(error_of(world), HasSubstr("body \"a\": velocity[1] is NaN"));
  world.bodies[0].velocity.y() = 0;
  world.bodies[0].shape = Shape::box({1, 0, 1});
  EXPECT_THAT(error_of(world), HasSubstr("body \"a\": size[1] must be finite and > 0, got 0"));
  world.bodies[0].shape = Shape::sphere(0.1);
  // Beyond the range the detection takes (FCL's tree fails on bounds that overflow).
  world.bodies[0].position.x() = 1e300;
  EXPECT_THAT(error_of(world),
              HasSubstr("body \"a\": the shape reaches 1e+300 m from the origin along an axis, beyond 1e+09 m"));
  world.bodies[0].position.x() = 0;
  world.bodies[0].angular_velocity.y() = 1e200;
  EXPECT_THAT(error_of(world), HasSubstr("moves at 1e+199 m/s (|v| + |ω| r), beyond 1e+09 m/s"));
  world.bodies[0].angular_velocity.y() = 0;
  world.bodies[0].inertia = Eigen::Vector3d(1, -1, 1).asDiagonal();
  EXPECT_THAT(error_of(world), HasSubstr("inertia must be positive definite"));
  world.bodies[0].inertia.reset();
  world.bodies[0].restitution = 1.5;
  EXPECT_THAT(error_of(world), HasSubstr("restitution must be in [0, 1], got 1.5"));
  world.bodies[0].restitution.reset();
  world.bodies.push_back(Body{.name = "a", .shape = Shape::sphere(0.1)});
  EXPECT_THAT(error_of(world), HasSubstr("name is not unique"));
  world.bodies.pop_back();
  world.planes.push_back(Plane{.name = "wall", .normal = Eigen::Vector3d::Zero()});
  EXPECT_THAT(error_of(world), HasSubstr("plane 0 \"wall\": normal must be finite and non-zero"));
}

}  // namespace
}  // namespace perp::contact3d_body_test
