#include "perp/solvers/solve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perp/core/residual.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_lemke_test {
namespace {

using namespace testing_problems;

TEST(Lemke, ChapterExampleGivesOneOne) {
  const Result r = solve(chapter_lemke_example(), Method::Lemke);
  ASSERT_EQ(r.status, Status::Solved) << r.message;
  EXPECT_NEAR(r.z[0], 1, 1e-14);
  EXPECT_NEAR(r.z[1], 1, 1e-14);
  EXPECT_NEAR(r.w.cwiseAbs().maxCoeff(), 0, 1e-14);
  // Hand pivots: z0 enters (w2 leaves, z0 = 3), z2 enters (w1 leaves), z1 enters (z0 leaves).
  EXPECT_EQ(r.iterations, 3);
  EXPECT_EQ(r.history.size(), 3u);
  EXPECT_EQ(r.history.back(), 0.0);
  EXPECT_EQ(r.method, Method::Lemke);
}

TEST(Lemke, ChaptersIdentityExercise) {
  // §1.4 exercise: M = I, q = (−1, −1) → z = (1, 1).
  const Result r = solve(Lcp{Eigen::Matrix2d::Identity(), Eigen::Vector2d(-1, -1)}, Method::Lemke);
  ASSERT_TRUE(r.solved());
  EXPECT_TRUE(r.z.isApprox(Eigen::Vector2d(1, 1)));
}

TEST(Lemke, TwoContactBlock) {
  const Result r = solve(two_contact_block(), Method::Lemke);
  ASSERT_TRUE(r.solved());
  EXPECT_NEAR(r.z[0], 5, 1e-12);
  EXPECT_NEAR(r.z[1], 5, 1e-12);
}

TEST(Lemke, RayOnTheChaptersInfeasibleProblem) {
  const Result r = solve(no_solution(), Method::Lemke);
  EXPECT_EQ(r.status, Status::RayTermination);
  ASSERT_TRUE(r.ray.has_value());
  EXPECT_EQ(r.ray->size(), 1);
  EXPECT_THAT(r.message, testing::HasSubstr("secondary ray"));
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_TRUE(r.w.allFinite());
}

TEST(Lemke, RayDirectionIsARecessionDirectionOfTheAugmentedSystem) {
  // M = [[1, -1], [-1, 1]] (PSD, copositive-plus), q = (−1, −1): infeasible since w_0 + w_1 = −2.
  const Lcp p{Eigen::Matrix2d{{1, -1}, {-1, 1}}, Eigen::Vector2d(-1, -1)};
  const Result r = solve(p, Method::Lemke);
  ASSERT_EQ(r.status, Status::RayTermination) << r.message;
  ASSERT_TRUE(r.ray.has_value());
  EXPECT_GE(r.ray->minCoeff(), -1e-12);  // the ray stays in z >= 0
  EXPECT_GT(r.ray->maxCoeff(), 0.0);
}

TEST(Lemke, TrivialAndEmptyProblemsNeedNoPivot) {
  const Result r = solve(Lcp{Eigen::Matrix2d{{-1, 2}, {3, -4}}, Eigen::Vector2d(0, 1)}, Method::Lemke);
  EXPECT_TRUE(r.solved());
  EXPECT_EQ(r.iterations, 0);
  EXPECT_TRUE(r.z.isZero());
  EXPECT_TRUE(solve(Lcp{}, Method::Lemke).solved());
}

TEST(Lemke, OneByOne) {
  const Result r = solve(Lcp{Eigen::MatrixXd::Constant(1, 1, 4.0), Eigen::VectorXd::Constant(1, -2.0)}, Method::Lemke);
  ASSERT_TRUE(r.solved());
  EXPECT_DOUBLE_EQ(r.z[0], 0.5);
}

TEST(Lemke, DegenerateTiesDoNotCycle) {
  // Every q_i equal and M with repeated structure: all ratios tie at every step, so only the
  // lexicographic rule decides.
  const Eigen::Index n = 6;
  Lcp p{Eigen::MatrixXd::Constant(n, n, 1.0) + Eigen::MatrixXd::Identity(n, n), -Eigen::VectorXd::Ones(n)};
  const Result r = solve(p, Method::Lemke);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_LE(natural_residual(p, r.z), 1e-12);
  // z = (1/(n+1)) · 1 solves (I + 11ᵀ) z = 1.
  EXPECT_TRUE(r.z.isApprox(Eigen::VectorXd::Constant(n, 1.0 / (n + 1)), 1e-12));
  // q with a zero entry: the initial basis is degenerate (w_i = 0 basic).
  Lcp d{Eigen::Matrix3d{{2, 1, 0}, {1, 2, 1}, {0, 1, 2}}, Eigen::Vector3d(-1, 0, -1)};
  const Result rd = solve(d, Method::Lemke);
  ASSERT_TRUE(rd.solved()) << rd.message;
  EXPECT_LE(natural_residual(d, rd.z), 1e-12);
}

TEST(Lemke, MurtysExponentialExampleIsSolved) {
  // Lower-triangular "Murty" matrix (1 on the diagonal, 2 below), q = −1: a P-matrix with the
  // unique solution z = e_0 (z_0 = 1 makes every other w_i = 2 − 1 >= 0).
  const Eigen::Index n = 8;
  Eigen::MatrixXd M = Eigen::MatrixXd::Identity(n, n);
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < i; ++j) M(i, j) = 2;
  const Result r = solve(Lcp{M, -Eigen::VectorXd::Ones(n)}, Method::Lemke);
  ASSERT_TRUE(r.solved());
  EXPECT_NEAR(r.z[0], 1, 1e-12);
  EXPECT_NEAR(r.z.tail(n - 1).cwiseAbs().maxCoeff(), 0, 1e-12);
}

TEST(Lemke, CoveringVectorChangesThePathNotTheAnswer) {
  const Lcp p = random_spd(30, 7);
  SolveOptions o;
  o.lemke.covering_vector = Eigen::VectorXd::LinSpaced(30, 0.5, 3.0);
  const Result with_d = solve(p, Method::Lemke, o);
  const Result ones = solve(p, Method::Lemke);
  ASSERT_TRUE(with_d.solved());
  ASSERT_TRUE(ones.solved());
  EXPECT_LE((with_d.z - ones.z).cwiseAbs().maxCoeff(), 1e-9);  // SPD: the solution is unique
}

TEST(Lemke, PivotLimitIsAStatus) {
  const Lcp p = random_spd(40, 3);
  const Result r = solve(p, Method::Lemke, {.max_iterations = 2});
  EXPECT_EQ(r.status, Status::MaxIterations);
  EXPECT_EQ(r.iterations, 2);
  EXPECT_TRUE(r.z.allFinite());
}

TEST(Lemke, RandomSpdProblemsSolveToRoundOff) {
  for (const Eigen::Index n : {5, 50, 200}) {
    const Lcp p = random_spd(n, static_cast<unsigned>(n));
    const Result r = solve(p, Method::Lemke);
    ASSERT_TRUE(r.solved()) << "n = " << n << ": " << r.message;
    EXPECT_LE(natural_residual(p, r.z), 1e-9);
    EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations));
  }
}

}  // namespace
}  // namespace perp::solvers_lemke_test
