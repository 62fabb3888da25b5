#include "perp/core/lcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "perp/core/error.hpp"

namespace perp::core_lcp_test {
namespace {

using testing::HasSubstr;

std::string validation_message(const Lcp& p) {
  try {
    p.validate();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

TEST(Lcp, SlackIsMzPlusQ) {
  Lcp p{Eigen::Matrix2d{{1, 0}, {2, 1}}, Eigen::Vector2d{-1, -3}};
  EXPECT_NO_THROW(p.validate());
  EXPECT_EQ(p.size(), 2);
  EXPECT_TRUE(p.slack(Eigen::Vector2d(1, 1)).isZero());
  EXPECT_TRUE(p.slack(Eigen::Vector2d(0, 0)).isApprox(Eigen::Vector2d(-1, -3)));
}

TEST(Lcp, EmptyProblemIsValid) {
  Lcp p;
  EXPECT_NO_THROW(p.validate());
  EXPECT_EQ(p.size(), 0);
}

TEST(Lcp, NonSquareMatrixNamesItsShape) {
  Lcp p{Eigen::MatrixXd::Zero(2, 3), Eigen::VectorXd::Zero(2)};
  EXPECT_THAT(validation_message(p), HasSubstr("M must be square: got 2x3"));
}

TEST(Lcp, SizeMismatchNamesBothSizes) {
  Lcp p{Eigen::MatrixXd::Identity(3, 3), Eigen::VectorXd::Zero(2)};
  EXPECT_THAT(validation_message(p), HasSubstr("q: expected size 3"));
  EXPECT_THAT(validation_message(p), HasSubstr("got 2"));
}

TEST(Lcp, NonFiniteEntriesAreLocated) {
  Lcp p{Eigen::MatrixXd::Identity(3, 3), Eigen::VectorXd::Zero(3)};
  p.M(1, 2) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(validation_message(p), HasSubstr("M(1, 2) is NaN"));
  p.M(1, 2) = 0;
  p.q[2] = -std::numeric_limits<double>::infinity();
  EXPECT_THAT(validation_message(p), HasSubstr("q[2] is infinite"));
}

TEST(Lcp, SlackRejectsWrongSize) {
  Lcp p{Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Zero(2)};
  EXPECT_THROW((void)p.slack(Eigen::VectorXd::Zero(3)), InvalidProblem);
}

}  // namespace
}  // namespace perp::core_lcp_test
