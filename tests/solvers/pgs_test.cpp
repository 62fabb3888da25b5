#include "perp/solvers/pgs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"
#include "test_problems.hpp"

namespace perp {
namespace {

using namespace testing_problems;

TEST(Pgs, OneByOneConvergesInOneSweep) {
  // z ← max(0, 0 − (−2)/4) = 0.5, exact after one sweep.
  const Result r = solve(Lcp{Eigen::MatrixXd::Constant(1, 1, 4.0), Eigen::VectorXd::Constant(1, -2.0)}, Method::Pgs);
  ASSERT_TRUE(r.solved());
  EXPECT_DOUBLE_EQ(r.z[0], 0.5);
  EXPECT_EQ(r.iterations, 1);
}

TEST(Pgs, FirstSweepOfTheBlockByHand) {
  // Sweep 1 from z = 0: z_0 = 10/1.75 = 40/7; w_1 = 0.25·40/7 − 10 → z_1 = (10 − 10/7)/1.75 = 240/49.
  const Result r = solve(two_contact_block(), Method::Pgs, {.max_iterations = 1});
  EXPECT_EQ(r.status, Status::MaxIterations);
  EXPECT_NEAR(r.z[0], 40.0 / 7, 1e-13);
  EXPECT_NEAR(r.z[1], 240.0 / 49, 1e-13);
  ASSERT_EQ(r.history.size(), 1u);
  EXPECT_NEAR(r.history[0], natural_residual(two_contact_block(), r.z), 1e-12);
}

TEST(Pgs, ConvergesOnTheBlockWithMonotoneHistory) {
  const Result r = solve(two_contact_block(), Method::Pgs, {.tolerance = 1e-12});
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z[0], 5, 1e-11);
  EXPECT_NEAR(r.z[1], 5, 1e-11);
  EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations));
  EXPECT_LE(r.history.back(), 1e-12);
  EXPECT_LT(r.history.back(), r.history.front());
}

TEST(Psor, OverRelaxationAndWarmStart) {
  const Lcp p = random_spd(80, 5);
  const Result pgs = solve(p, Method::Pgs, {.tolerance = 1e-10, .max_iterations = 100000});
  const Result psor = solve(p, Method::Psor, {.tolerance = 1e-10, .max_iterations = 100000, .relaxation = 1.5});
  ASSERT_TRUE(pgs.solved()) << pgs.message;
  ASSERT_TRUE(psor.solved()) << psor.message;
  EXPECT_EQ(psor.method, "psor");
  EXPECT_LE((pgs.z - psor.z).cwiseAbs().maxCoeff(), 1e-7);
  // Warm start at the solution: done after one sweep.
  const Result warm = solve(p, Method::Pgs, {.tolerance = 1e-9, .initial_guess = pgs.z});
  ASSERT_TRUE(warm.solved());
  EXPECT_EQ(warm.iterations, 1);
}

TEST(Pgs, NonPositiveDiagonalIsANumericalFailureNamingTheRow) {
  const Lcp p{Eigen::Matrix3d{{1, 0, 0}, {0, 2, 0}, {0, 0, -1}}, Eigen::Vector3d(-1, -1, -1)};
  const Result r = solve(p, Method::Pgs);
  EXPECT_EQ(r.status, Status::NumericalFailure);
  EXPECT_THAT(r.message, testing::HasSubstr("M(2, 2) = -1"));
  EXPECT_TRUE(r.z.allFinite());
}

TEST(Pgs, DivergenceEndsFiniteAndNotSolved) {
  // Non-symmetric with a positive diagonal but strong coupling: the sweeps grow without bound.
  const Lcp p{Eigen::Matrix2d{{1, -10}, {-10, 1}}, Eigen::Vector2d(-1, -1)};
  const Result r = solve(p, Method::Pgs, {.max_iterations = 5000});
  EXPECT_FALSE(r.solved());
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_TRUE(r.w.allFinite());
}

}  // namespace
}  // namespace perp
