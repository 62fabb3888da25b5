#include "perp/core/qp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "perp/core/error.hpp"

namespace perp::core_qp_test {
namespace {

using testing::HasSubstr;

std::string validation_message(const Qp& p) {
  try {
    p.validate();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

// min ½(x0² + x1²) − x0 − x1 s.t. x0 + 2 x1 >= 1, x >= 0.
Qp small() {
  return Qp{Eigen::Matrix2d::Identity(), Eigen::Vector2d(-1, -1), Eigen::RowVector2d(1, 2), Eigen::VectorXd::Ones(1)};
}

TEST(Qp, KktLcpHasTheBlockLayout) {
  const Qp p = small();
  EXPECT_EQ(validation_message(p), "");
  EXPECT_EQ(p.variables(), 2);
  EXPECT_EQ(p.constraints(), 1);
  const Lcp lcp = kkt_lcp(p);
  const Eigen::Matrix3d expected{{1, 0, -1}, {0, 1, -2}, {1, 2, 0}};
  EXPECT_EQ(lcp.M, Eigen::MatrixXd(expected));
  EXPECT_EQ(lcp.q, Eigen::VectorXd(Eigen::Vector3d(-1, -1, -1)));
  EXPECT_DOUBLE_EQ(p.objective(Eigen::Vector2d(1, 1)), 0.5 * 2 - 2);
}

TEST(Qp, FromLcpAndBack) {
  const Lcp lcp{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d{-5, -6}};
  const Qp qp = qp_from_lcp(lcp);
  EXPECT_EQ(qp.constraints(), 0);
  const Lcp back = kkt_lcp(qp);
  EXPECT_EQ(back.M, lcp.M);
  EXPECT_EQ(back.q, lcp.q);
  // The LCP's solution (4/3, 7/3) is the QP's minimizer; by hand, ½zᵀMz + qᵀz is
  // ½(2·16/9 + 2·28/9 + 2·49/9) − 20/3 − 14 = 93/9 − 186/9 = −93/9.
  EXPECT_NEAR(qp.objective(Eigen::Vector2d(4.0 / 3, 7.0 / 3)), -93.0 / 9, 1e-14);
  EXPECT_THROW((void)qp_from_lcp(Lcp{Eigen::Matrix2d{{1, 2}, {0, 1}}, Eigen::Vector2d{0, 0}}), InvalidProblem);
}

TEST(Qp, BadInputIsNamed) {
  Qp p = small();
  p.Q = Eigen::Matrix2d{{1, 0.5}, {0, 1}};
  EXPECT_THAT(validation_message(p), HasSubstr("Q must be symmetric: Q(0, 1) = 0.5 but Q(1, 0) = 0"));
  p = small();
  p.A = Eigen::MatrixXd(1, 3);
  EXPECT_THAT(validation_message(p), HasSubstr("A: expected 1x2"));
  p = small();
  p.Q = Eigen::Matrix3d::Identity();
  EXPECT_THAT(validation_message(p), HasSubstr("Q: expected 2x2"));
  p = small();
  p.c[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(validation_message(p), HasSubstr("c[1] is NaN"));
  p = small();
  p.A = Eigen::MatrixXd(0, 0);
  p.b = Eigen::VectorXd(0);
  EXPECT_EQ(validation_message(p), "");  // no general constraints
  EXPECT_EQ(kkt_lcp(p).M, Eigen::MatrixXd(Eigen::Matrix2d::Identity()));
}

}  // namespace
}  // namespace perp::core_qp_test
