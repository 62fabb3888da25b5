// The private sparse factor of the interior points' Newton matrices (solvers/friction/convex/spd_factor.hpp).
#include "friction/convex/spd_factor.hpp"

#include <gtest/gtest.h>

#include <Eigen/Dense>  // LDLT, the reference solve

#include <vector>

namespace perp::detail::spd_factor_test {
namespace {

using ColSparse = Eigen::SparseMatrix<double>;

ColSparse lower_of(const Eigen::MatrixXd& dense) {
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index j = 0; j < dense.cols(); ++j) {
    for (Eigen::Index i = j; i < dense.rows(); ++i) {
      if (dense(i, j) != 0) entries.emplace_back(static_cast<int>(i), static_cast<int>(j), dense(i, j));
    }
  }
  ColSparse lower(dense.rows(), dense.cols());
  lower.setFromTriplets(entries.begin(), entries.end());
  return lower;
}

TEST(SpdFactor, SolvesASecondDifferenceMatrixAndRefactorsNewValues) {
  // K = tridiag(−1, 2 + s, −1), n = 200: K x = b checked against the dense solve.
  const int n = 200;
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    K(i, i) = 2.0;
    if (i + 1 < n) K(i + 1, i) = K(i, i + 1) = -1.0;
  }
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) b[i] = (i % 7) - 3.0;
  SpdFactor factor;
  factor.analyze(lower_of(K));
  for (const double shift : {0.0, 0.5, 1e3}) {
    const Eigen::MatrixXd shifted = K + shift * Eigen::MatrixXd::Identity(n, n);
    ASSERT_TRUE(factor.factorize(lower_of(shifted))) << "shift " << shift;
    const Eigen::VectorXd x = factor.solve(b);
    const Eigen::VectorXd expected = shifted.ldlt().solve(b);
    EXPECT_LT((x - expected).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + expected.lpNorm<Eigen::Infinity>()))
        << "shift " << shift;
  }
}

TEST(SpdFactor, AnIndefinitePivotFallsBackToLdlt) {
  // [[1, 2], [2, 1]] has a negative second pivot (1 − 4 = −3): no LLᵀ exists, LDLᵀ does; x solves
  // x₁ + 2 x₂ = 3, 2 x₁ + x₂ = 3, so x = (1, 1).
  Eigen::MatrixXd K(2, 2);
  K << 1, 2, 2, 1;
  SpdFactor factor;
  factor.analyze(lower_of(K));
  ASSERT_TRUE(factor.factorize(lower_of(K)));
  const Eigen::VectorXd x = factor.solve(Eigen::Vector2d(3, 3));
  EXPECT_NEAR(x[0], 1.0, 1e-14);
  EXPECT_NEAR(x[1], 1.0, 1e-14);
  // After a new analysis the factor starts again from LLᵀ, which solves a definite matrix.
  Eigen::MatrixXd definite(2, 2);
  definite << 4, 1, 1, 3;
  factor.analyze(lower_of(definite));
  ASSERT_TRUE(factor.factorize(lower_of(definite)));
  const Eigen::VectorXd y = factor.solve(Eigen::Vector2d(1, 2));
  EXPECT_NEAR(y[0], 1.0 / 11, 1e-14);  // (3·1 − 1·2)/11
  EXPECT_NEAR(y[1], 7.0 / 11, 1e-14);  // (4·2 − 1·1)/11
  EXPECT_STREQ(SpdFactor::backend(), "cholmod");
}

TEST(SpdFactor, ASingularMatrixIsRefused) {
  Eigen::MatrixXd K = Eigen::MatrixXd::Zero(2, 2);
  K(0, 0) = 1.0;  // the second pivot is exactly 0
  SpdFactor factor;
  factor.analyze(lower_of(K));
  EXPECT_FALSE(factor.factorize(lower_of(K)));
}

}  // namespace
}  // namespace perp::detail::spd_factor_test
