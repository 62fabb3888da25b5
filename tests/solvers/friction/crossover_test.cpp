// The proximal crossover on a factored LCP's convex program (solvers/friction/convex/friction_ipm.hpp),
// on problems solved by hand; every answer judged by the natural residual recomputed here from a
// dense N = A M⁻¹ Aᵀ.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "friction/convex/friction_ipm.hpp"
#include "natural_error.hpp"

namespace perp::detail::crossover_test {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

using test::natural_error;

/// The proximal crossover (ρ = 1e-6 of the largest diagonal, at most 20 proximal points) on the LCP
/// of A, M⁻¹ and c from `start`, judged by `natural_error`.
ProximalOutcome crossover_from(const Eigen::MatrixXd& A, const Eigen::VectorXd& inverse_mass, const Eigen::VectorXd& c,
                               const Eigen::VectorXd& start, double tolerance, int factorizations) {
  const ConeProgram program = ConeProgram::restricted(RowSparse(A.sparseView()), inverse_mass);
  ActiveRowsFactor factor(program);
  const auto error_of = [&](const Eigen::VectorXd& z) { return natural_error(A, inverse_mass, c, z); };
  return proximal_crossover(program, factor, c, start, error_of, tolerance, 1e-6, 20, factorizations);
}

/// One dof of mass 2 held by two identical rows (N = [[½, ½], [½, ½]], singular).
const Eigen::MatrixXd kTwoRows = (Eigen::MatrixXd(2, 1) << 1, 1).finished();
const Eigen::VectorXd kHalf = Eigen::VectorXd::Constant(1, 0.5);

TEST(ProximalCrossover, KeepsTheCentresShareAlongTheNullSpace) {
  // One dof of mass 2 held by two identical rows, c = (−1, −1): every z >= 0 with z1 + z2 = 2
  // solves. From the centre (0.6, 0.4), both rows active, the proximal point of N + ρI keeps the
  // centre's difference z1 − z2 = 0.2 (N's null space) and moves the sum s to (ρ s + 2) / (1 + ρ):
  // ρ = 1e-6 × N's diagonal 0.5, so the first point is 2 − 5e-7 short (|w| = 2.5e-7), the second
  // 2.5e-13. So (1.1, 0.9) after one proximal point and one factorization — to the round-off of the
  // factor's second pivot, 2ρ found as 0.5 + ρ − 0.25 / (0.5 + ρ) (relative 1e-10).
  const ProximalOutcome outcome =
      crossover_from(kTwoRows, kHalf, Eigen::Vector2d(-1.0, -1.0), Eigen::Vector2d(0.6, 0.4), 1e-12, 8);
  ASSERT_LE(outcome.error, 1e-12);
  EXPECT_NEAR(outcome.lambda[0], 1.1, 1e-9);
  EXPECT_NEAR(outcome.lambda[1], 0.9, 1e-9);
  EXPECT_EQ(outcome.centres, 1);
  EXPECT_EQ(outcome.factorizations, 1);
}

TEST(ProximalCrossover, ARowNoImpulseCanMeetLeavesTheActiveSet) {
  // The same dof and rows with c = (−1, −1.5): by hand z = (0, 3) is the only solution (z1 > 0 would
  // need v = 1, leaving w2 = −0.5); v = 1.5, w = (0.5, 0). From (1, 1) both rows are taken active,
  // and e_B has a part (−1 + 1.5)/√2 on N's null space that no λ_B reaches: the first Newton point
  // sends z1 below 0, row 1 leaves, and the second factorization (row 2 alone) lands on the answer.
  const ProximalOutcome outcome =
      crossover_from(kTwoRows, kHalf, Eigen::Vector2d(-1.0, -1.5), Eigen::Vector2d(1.0, 1.0), 1e-12, 8);
  ASSERT_LE(outcome.error, 1e-12);
  EXPECT_EQ(outcome.lambda[0], 0.0);
  EXPECT_NEAR(outcome.lambda[1], 3.0, 1e-9);
  EXPECT_EQ(outcome.factorizations, 2);
}

TEST(ProximalCrossover, AStartThatSolvesIsReturnedAsItIs) {
  const ProximalOutcome outcome =
      crossover_from(kTwoRows, kHalf, Eigen::Vector2d(-1.0, -1.0), Eigen::Vector2d(1.5, 0.5), 1e-12, 8);
  EXPECT_EQ(outcome.error, 0.0);
  EXPECT_EQ(outcome.lambda, Eigen::Vector2d(1.5, 0.5));
  EXPECT_EQ(outcome.factorizations, 0);
}

TEST(ProximalCrossover, StopsAtItsFactorizationBudgetWithTheBestPoint) {
  // A budget of one factorization on the problem above (which needs two): the start is returned,
  // the only point not worse than the first Newton point's clamp, with the budget spent.
  const Eigen::Vector2d c(-1.0, -1.5);
  const Eigen::Vector2d start(1.0, 1.0);
  const ProximalOutcome outcome = crossover_from(kTwoRows, kHalf, c, start, 1e-12, 1);
  EXPECT_EQ(outcome.factorizations, 1);
  EXPECT_LE(outcome.error, natural_error(kTwoRows, kHalf, c, start));
  EXPECT_GT(outcome.error, 1e-12);
}

TEST(ProximalCrossover, RandomRedundantProblemsFromPerturbedAnswers) {
  // Random programs with twice as many rows as dofs (N singular: λ not unique), each built around a
  // known answer: z* >= 0 and w* >= 0 complementary (a third of the rows active with z* > 0, a
  // third active with z* = 0, a third inactive with w* > 0), c = w* − N z*. From z* perturbed by
  // 1e-6 (clamped at 0), the crossover meets 1e-11 again on the error recomputed here, and its
  // velocities M⁻¹ Aᵀ z (unique) are z*'s.
  std::mt19937 engine(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int trial = 0; trial < 10; ++trial) {
    const int dofs = 12;
    const int rows = 24;
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(rows, dofs);
    for (int k = 0; k < rows; ++k) {
      for (int j = 0; j < 3; ++j) A(k, (k + 5 * j) % dofs) = uniform(engine);
    }
    Eigen::VectorXd inverse_mass(dofs);
    for (int j = 0; j < dofs; ++j) inverse_mass[j] = 0.5 + 0.5 * std::abs(uniform(engine));
    Eigen::VectorXd z_star = Eigen::VectorXd::Zero(rows);
    Eigen::VectorXd w_star = Eigen::VectorXd::Zero(rows);
    for (int k = 0; k < rows; ++k) {
      if (k % 3 == 0) z_star[k] = 0.5 + std::abs(uniform(engine));
      if (k % 3 == 2) w_star[k] = 0.5 + std::abs(uniform(engine));
    }
    const Eigen::MatrixXd N = A * inverse_mass.asDiagonal() * A.transpose();
    const Eigen::VectorXd c = w_star - N * z_star;
    ASSERT_LE(natural_error(A, inverse_mass, c, z_star), 1e-14) << "trial " << trial;
    Eigen::VectorXd start = z_star;
    for (int k = 0; k < rows; ++k) start[k] = std::max(0.0, start[k] + 1e-6 * uniform(engine));
    ASSERT_GT(natural_error(A, inverse_mass, c, start), 1e-9) << "trial " << trial;
    const ProximalOutcome outcome = crossover_from(A, inverse_mass, c, start, 1e-11, 24);
    EXPECT_LE(outcome.error, 1e-11) << "trial " << trial;
    EXPECT_GE(outcome.lambda.minCoeff(), 0.0) << "trial " << trial;
    const Eigen::VectorXd velocity = inverse_mass.asDiagonal() * A.transpose() * outcome.lambda;
    const Eigen::VectorXd expected = inverse_mass.asDiagonal() * A.transpose() * z_star;
    EXPECT_LE((velocity - expected).lpNorm<Eigen::Infinity>(), 1e-9) << "trial " << trial;
  }
}

}  // namespace
}  // namespace perp::detail::crossover_test
