#include "perp/solvers/solve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "perp/core/residual.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_interior_point_test {
namespace {

using namespace testing_problems;
using testing::HasSubstr;

TEST(InteriorPoint, TwoContactBlockGivesFiveFive) {
  const Result r = solve(two_contact_block(), Method::InteriorPoint, SolveOptions{.tolerance = 1e-12});
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z[0], 5, 1e-11);
  EXPECT_NEAR(r.z[1], 5, 1e-11);
  EXPECT_EQ(r.method, Method::InteriorPoint);
  EXPECT_FALSE(r.history.empty());
}

TEST(InteriorPoint, NonsymmetricMonotoneMatrix) {
  // M = S + K with S PSD and K skew: xᵀMx = xᵀSx >= 0 though M is not symmetric.
  // M = [[1, 2], [−2, 1]], q = (−1, −1): z = (0.2, 0.6)?  Check: w = M z + q must be 0 on z > 0:
  // z0 + 2 z1 = 1, −2 z0 + z1 = 1 ⇒ z0 = −1/5 < 0; so z0 = 0, z1 = 1 (w1 = 0), w0 = 2 − 1 = 1 >= 0.
  const Lcp p{Eigen::Matrix2d{{1, 2}, {-2, 1}}, Eigen::Vector2d(-1, -1)};
  const Result r = solve(p, Method::InteriorPoint, SolveOptions{.tolerance = 1e-12});
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_TRUE(r.z.isApprox(Eigen::Vector2d(0, 1), 1e-10)) << r.z.transpose();
  EXPECT_NEAR(r.w[0], 1, 1e-10);
}

TEST(InteriorPoint, NotMonotoneIsNotApplicable) {
  const Lcp p{Eigen::Matrix2d{{-1, 2}, {2, -1}}, Eigen::Vector2d(1, -1)};
  const Result r = solve(p, Method::InteriorPoint);
  EXPECT_EQ(r.status, Status::NotApplicable);
  EXPECT_THAT(r.message, HasSubstr("not positive semidefinite"));
  EXPECT_THAT(r.message, HasSubstr("smallest eigenvalue of (M + M^T)/2 is -3"));
  EXPECT_TRUE(r.z.allFinite());
}

TEST(InteriorPoint, InfeasibleMonotoneProblemIsReportedNotSolved) {
  // M = 0 (PSD), q = (−1): w = −1 for every z, no solution.
  const Lcp p{Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Constant(1, -1.0)};
  const Result r = solve(p, Method::InteriorPoint);
  EXPECT_FALSE(r.solved());
  EXPECT_TRUE(r.status == Status::NoSolutionFound || r.status == Status::MaxIterations) << to_string(r.status);
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_TRUE(std::isfinite(r.residual));
}

TEST(InteriorPoint, CrossoverGivesTheExactVertex) {
  const Lcp p = random_spd(30, 7);
  const Result with = solve(p, Method::InteriorPoint, SolveOptions{.tolerance = 1e-12});
  ASSERT_TRUE(with.solved()) << with.message;
  EXPECT_LE(natural_residual(p, with.z), 1e-12);
  SolveOptions off{.tolerance = 1e-8};
  off.interior_point.crossover = false;
  const Result without = solve(p, Method::InteriorPoint, off);
  ASSERT_TRUE(without.solved()) << without.message;
  EXPECT_THAT(without.message, HasSubstr("at an interior point"));
  EXPECT_LE((with.z - without.z).cwiseAbs().maxCoeff(), 1e-6);
}

TEST(InteriorPoint, PositiveSemidefiniteWithManySolutions) {
  // M = [[1, 1], [1, 1]], q = (−2, −2): every z >= 0 with z0 + z1 = 2 solves.
  const Lcp p{Eigen::Matrix2d{{1, 1}, {1, 1}}, Eigen::Vector2d(-2, -2)};
  const Result r = solve(p, Method::InteriorPoint, SolveOptions{.tolerance = 1e-10});
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z.sum(), 2, 1e-9);
  EXPECT_GE(r.z.minCoeff(), -1e-10);
}

}  // namespace
}  // namespace perp::solvers_interior_point_test
