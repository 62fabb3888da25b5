#include "perp/core/box_lcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp::core_box_lcp_test {
namespace {

using testing::HasSubstr;
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string validation_message(const BoxLcp& p) {
  try {
    p.validate();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

BoxLcp two_by_two() {
  return BoxLcp{
      Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d{-4, 1}, Eigen::Vector2d{-1, 0}, Eigen::Vector2d{1, kInf}, {}};
}

TEST(BoxLcp, NaturalResidualByHand) {
  const BoxLcp p = two_by_two();
  EXPECT_EQ(validation_message(p), "");
  // z = (1, 0): w = (−2, 2). z_0 at its upper bound with w_0 <= 0, z_1 at 0 with w_1 >= 0: solved.
  EXPECT_DOUBLE_EQ(natural_residual(p, Eigen::Vector2d(1, 0)), 0.0);
  // z = (0, 0): w = (−4, 1); mid(−1, 1, 0 + 4) = 1, so |z_0 − 1| = 1; pair 1 is fine.
  EXPECT_DOUBLE_EQ(natural_residual(p, Eigen::Vector2d(0, 0)), 1.0);
  // z = (0.5, 0.5): w = (−2.5, 3.5); |0.5 − mid(−1, 1, 3)| = 0.5 and |0.5 − max(0, −3)| = 0.5.
  EXPECT_DOUBLE_EQ(natural_residual(p, Eigen::Vector2d(0.5, 0.5)), 0.5);
}

TEST(BoxLcp, LcpIsTheBoxZeroToInfinity) {
  const Lcp lcp{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d{-5, -6}};
  const BoxLcp box = to_box_lcp(lcp);
  EXPECT_EQ(validation_message(box), "");
  for (const Eigen::Vector2d& z : {Eigen::Vector2d(4.0 / 3, 7.0 / 3), Eigen::Vector2d(1, 0), Eigen::Vector2d(-1, 2)}) {
    EXPECT_DOUBLE_EQ(natural_residual(box, z), natural_residual(lcp, z));
  }
}

TEST(BoxLcp, FrictionBoundsFollowTheNormal) {
  BoxLcp p = two_by_two();
  p.friction = {{.index = 0, .normal = 1, .mu = 0.5}};
  EXPECT_EQ(validation_message(p), "");
  Eigen::VectorXd lo;
  Eigen::VectorXd hi;
  p.bounds_at(Eigen::Vector2d(0.3, 2), lo, hi);
  EXPECT_DOUBLE_EQ(lo[0], -1.0);
  EXPECT_DOUBLE_EQ(hi[0], 1.0);
  EXPECT_DOUBLE_EQ(lo[1], 0.0);
  EXPECT_EQ(hi[1], kInf);
  // z = (0.25, 0.5): bounds of z_0 are ±0.25 and w = (−3, 1.75): z_0 at its upper bound with w_0 < 0,
  // z_1 = 0.5 > 0 with w_1 = 1.75, so only pair 1 fails, by min(0.5, 1.75) = 0.5.
  EXPECT_DOUBLE_EQ(natural_residual(p, Eigen::Vector2d(0.25, 0.5)), 0.5);
  // A zero normal force clamps the tangential one to 0 whatever its slack.
  EXPECT_DOUBLE_EQ(natural_residual(p, Eigen::Vector2d(0.0, 0.0)), 0.0 + 0.0);
}

TEST(BoxLcp, BadInputIsNamed) {
  BoxLcp p = two_by_two();
  p.lower = Eigen::Vector3d(0, 0, 0);
  EXPECT_THAT(validation_message(p), HasSubstr("lower: expected size 2"));
  p = two_by_two();
  p.upper[0] = -2;
  EXPECT_THAT(validation_message(p), HasSubstr("lower[0] = -1 > upper[0] = -2"));
  p = two_by_two();
  p.lower[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(validation_message(p), HasSubstr("lower[1] is NaN"));
  p = two_by_two();
  p.lower[1] = kInf;
  EXPECT_THAT(validation_message(p), HasSubstr("lower[1] is +inf"));
  p = two_by_two();
  p.upper[0] = -kInf;
  EXPECT_THAT(validation_message(p), HasSubstr("upper[0] is -inf"));
  p = two_by_two();
  p.q[1] = kInf;
  EXPECT_THAT(validation_message(p), HasSubstr("q[1] is infinite"));
  p = two_by_two();
  p.friction = {{.index = 2, .normal = 1, .mu = 0.5}};
  EXPECT_THAT(validation_message(p), HasSubstr("friction[0].index = 2 is out of range [0, 2)"));
  p.friction = {{.index = 0, .normal = -1, .mu = 0.5}};
  EXPECT_THAT(validation_message(p), HasSubstr("friction[0].normal = -1 is out of range"));
  p.friction = {{.index = 1, .normal = 1, .mu = 0.5}};
  EXPECT_THAT(validation_message(p), HasSubstr("cannot bound itself"));
  p.friction = {{.index = 0, .normal = 1, .mu = -0.1}};
  EXPECT_THAT(validation_message(p), HasSubstr("friction[0].mu = -0.1;"));
  p.friction = {{.index = 0, .normal = 1, .mu = 0.1}, {.index = 0, .normal = 1, .mu = 0.2}};
  EXPECT_THAT(validation_message(p), HasSubstr("friction[1]: component 0 is coupled twice"));
  p.friction = {{.index = 0, .normal = 1, .mu = 0.1}, {.index = 1, .normal = 0, .mu = 0.2}};
  EXPECT_THAT(validation_message(p), HasSubstr("is itself a coupled component"));
}

TEST(BoxLcp, CoupledComponentsIgnoreTheirOwnBounds) {
  BoxLcp p = two_by_two();
  p.lower[0] = 5;  // would be lower > upper, but the coupling replaces both
  p.friction = {{.index = 0, .normal = 1, .mu = 0.5}};
  EXPECT_EQ(validation_message(p), "");
}

}  // namespace
}  // namespace perp::core_box_lcp_test
