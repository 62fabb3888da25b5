#include "perp/core/mlcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "perp/core/error.hpp"

namespace perp::core_mlcp_test {
namespace {

using testing::HasSubstr;

std::string validation_message(const Mlcp& p) {
  try {
    p.validate();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

// n = 1, m = 2: u + v_0 − 1 = 0; w = (u + 2 v_0 + 0 v_1 − 2, −u + v_1 + 1).
Mlcp small() {
  return Mlcp{Eigen::MatrixXd::Constant(1, 1, 1.0),
              Eigen::Matrix2d{{2, 0}, {0, 1}},
              Eigen::RowVector2d{1, 0},
              Eigen::Vector2d{1, -1},
              Eigen::VectorXd::Constant(1, -1.0),
              Eigen::Vector2d{-2, 1}};
}

TEST(Mlcp, BlocksSlackAndResiduals) {
  const Mlcp p = small();
  EXPECT_EQ(validation_message(p), "");
  EXPECT_EQ(p.equalities(), 1);
  EXPECT_EQ(p.complementarities(), 2);
  EXPECT_EQ(p.size(), 3);
  const Eigen::MatrixXd M = p.matrix();
  EXPECT_TRUE(M.isApprox((Eigen::Matrix3d{{1, 1, 0}, {1, 2, 0}, {-1, 0, 1}})));
  EXPECT_TRUE(p.offset().isApprox(Eigen::Vector3d(-1, -2, 1)));
  // z = (0, 1, 0): equality 0 + 1 − 1 = 0; w = (0 + 2 − 2, 0 + 0 + 1) = (0, 1); v ⊥ w: solved.
  const Eigen::Vector3d solution(0, 1, 0);
  EXPECT_TRUE((p.slack(solution) - Eigen::Vector3d(0, 0, 1)).isZero());
  EXPECT_DOUBLE_EQ(natural_residual(p, solution), 0.0);
  // z = (1, 0.5, 0): equality 1 + 0.5 − 1 = 0.5; w = (1 + 1 − 2, −1 + 0 + 1) = (0, 0): complementary.
  const MlcpResiduals r = mlcp_residuals(p, Eigen::Vector3d(1, 0.5, 0));
  EXPECT_DOUBLE_EQ(r.equality, 0.5);
  EXPECT_DOUBLE_EQ(r.complementarity, 0.0);
  EXPECT_DOUBLE_EQ(r.natural(), 0.5);
  // The slack is the block product of M and q.
  const Eigen::Vector3d z(0.3, -0.2, 0.7);
  EXPECT_TRUE((p.slack(z) - (M * z + p.offset())).isZero(1e-15));
}

TEST(Mlcp, FromBlocksSplitsAtN) {
  const Mlcp p = small();
  const Mlcp back = mlcp_from_blocks(p.matrix(), p.offset(), 1);
  EXPECT_EQ(back.A, p.A);
  EXPECT_EQ(back.B, p.B);
  EXPECT_EQ(back.C, p.C);
  EXPECT_EQ(back.D, p.D);
  EXPECT_EQ(back.a, p.a);
  EXPECT_EQ(back.b, p.b);
  EXPECT_THROW((void)mlcp_from_blocks(p.matrix(), p.offset(), 4), InvalidProblem);
  EXPECT_THROW((void)mlcp_from_blocks(Eigen::MatrixXd(2, 3), Eigen::Vector2d(0, 0), 1), InvalidProblem);
}

TEST(Mlcp, NoEqualitiesIsAnLcp) {
  const Mlcp p{Eigen::MatrixXd(0, 0), Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::MatrixXd(0, 2), Eigen::MatrixXd(2, 0),
               Eigen::VectorXd(0),    Eigen::Vector2d(-5, -6)};
  EXPECT_EQ(validation_message(p), "");
  EXPECT_NEAR(natural_residual(p, Eigen::Vector2d(4.0 / 3, 7.0 / 3)), 0.0, 1e-15);
  EXPECT_DOUBLE_EQ(natural_residual(p, Eigen::Vector2d(0, 0)), 6.0);  // |min(0, w_1)| = 6
}

TEST(Mlcp, BadShapesAndValuesAreNamed) {
  Mlcp p = small();
  p.C = Eigen::MatrixXd(1, 3);
  EXPECT_THAT(validation_message(p), HasSubstr("C: expected 1x2"));
  EXPECT_THAT(validation_message(p), HasSubstr("got 1x3"));
  p = small();
  p.A = Eigen::MatrixXd(2, 2);
  EXPECT_THAT(validation_message(p), HasSubstr("A: expected 1x1"));
  p = small();
  p.D = Eigen::MatrixXd(1, 2);
  EXPECT_THAT(validation_message(p), HasSubstr("D: expected 2x1"));
  p = small();
  p.B(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(validation_message(p), HasSubstr("B(1, 0) is NaN"));
  p = small();
  p.b[0] = std::numeric_limits<double>::infinity();
  EXPECT_THAT(validation_message(p), HasSubstr("b[0] is infinite"));
  EXPECT_THROW((void)small().slack(Eigen::Vector2d(0, 0)), InvalidProblem);
}

}  // namespace
}  // namespace perp::core_mlcp_test
