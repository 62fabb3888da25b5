#include "perp/core/residual.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "perp/core/error.hpp"

namespace perp::core_residual_test {
namespace {

TEST(Residual, ZeroAtTheChaptersBlockSolution) {
  // Two-contact block, [chapter] §1.2: λ = (5, 5) solves A λ + b = 0.
  Lcp block{Eigen::Matrix2d{{1.75, 0.25}, {0.25, 1.75}}, Eigen::Vector2d{-10, -10}};
  const Residuals r = residuals(block, Eigen::Vector2d(5, 5));
  EXPECT_EQ(r.natural, 0.0);
  EXPECT_EQ(r.fischer_burmeister, 0.0);
  EXPECT_EQ(r.gap, 0.0);
  EXPECT_EQ(r.z_violation, 0.0);
  EXPECT_EQ(r.w_violation, 0.0);
}

TEST(Residual, HandComputedValues) {
  // z = (2, -1, 0), w = (3, 4, -5): min = (2, -1, -5) → ‖·‖∞ = 5; zᵀw = 6 − 4 + 0 = 2.
  const Eigen::Vector3d z(2, -1, 0), w(3, 4, -5);
  EXPECT_DOUBLE_EQ(natural_residual(z, w), 5.0);
  EXPECT_DOUBLE_EQ(complementarity_gap(z, w), 2.0);
  EXPECT_DOUBLE_EQ(nonnegativity_violation(z), 1.0);
  EXPECT_DOUBLE_EQ(nonnegativity_violation(w), 5.0);
  // φ_FB: (2,3): √13 − 5; (−1,4): √17 − 3; (0,−5): 5 + 5 = 10.
  const double expected = std::sqrt(std::pow(std::sqrt(13.0) - 5, 2) + std::pow(std::sqrt(17.0) - 3, 2) + 100.0);
  EXPECT_NEAR(fischer_burmeister_residual(z, w), expected, 1e-14);
}

TEST(Residual, EmptyVectorsHaveZeroResidual) {
  const Eigen::VectorXd empty;
  EXPECT_EQ(natural_residual(empty, empty), 0.0);
  EXPECT_EQ(nonnegativity_violation(empty), 0.0);
}

TEST(Residual, SizeMismatchThrows) {
  EXPECT_THROW((void)natural_residual(Eigen::VectorXd::Zero(2), Eigen::VectorXd::Zero(3)), InvalidProblem);
}

TEST(Complementarity, ScalarChecksNameWhatFails) {
  EXPECT_TRUE(check_complementarity(0.0, 3.0, 0.0).ok());
  EXPECT_TRUE(check_complementarity(2.0, 0.0, 0.0).ok());
  EXPECT_TRUE(check_complementarity(1e-9, 2.0, 1e-8).ok());
  const PairCheck negative_z = check_complementarity(-1.0, 0.0, 1e-8);
  EXPECT_FALSE(negative_z.z_nonnegative);
  EXPECT_TRUE(negative_z.w_nonnegative);
  const PairCheck both_positive = check_complementarity(1.0, 2.0, 1e-8);
  EXPECT_TRUE(both_positive.z_nonnegative && both_positive.w_nonnegative);
  EXPECT_FALSE(both_positive.complementary);
  EXPECT_THROW((void)check_complementarity(0.0, 0.0, -1.0), InvalidProblem);
}

TEST(Complementarity, VectorCheckListsFailingPairs) {
  const ComplementarityCheck check = check_complementarity(Eigen::Vector3d(0, 1, -2), Eigen::Vector3d(1, 1, 0), 1e-10);
  EXPECT_FALSE(check.ok());
  EXPECT_EQ(check.failing(), (std::vector<Eigen::Index>{1, 2}));
  EXPECT_THAT(check.describe(), testing::HasSubstr("pair 1: z*w != 0"));
  EXPECT_THAT(check.describe(), testing::HasSubstr("pair 2: z < 0"));
  EXPECT_TRUE(check_complementarity(Eigen::Vector2d(0, 4), Eigen::Vector2d(3, 0), 0).ok());
}

}  // namespace
}  // namespace perp::core_residual_test
