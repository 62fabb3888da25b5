#include "perp/solvers/solve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "test_problems.hpp"

namespace perp::solvers_enumeration_test {
namespace {

using namespace testing_problems;

TEST(Enumeration, ChapterBlockByEnumeratingFourModes) {
  const Result r = solve(two_contact_block(), Method::Enum);
  ASSERT_EQ(r.status, Status::Solved) << r.message;
  EXPECT_NEAR(r.z[0], 5, 1e-12);
  EXPECT_NEAR(r.z[1], 5, 1e-12);
  // The chapter rules out ∅ and the two single-contact modes first: the solution is the 4th set.
  EXPECT_EQ(r.iterations, 4);
}

TEST(Enumeration, ProvesTheChaptersScalarProblemInfeasible) {
  const Result r = solve(no_solution(), Method::Enum);
  EXPECT_EQ(r.status, Status::Infeasible);
  EXPECT_THAT(r.message, testing::HasSubstr("every M_aa is nonsingular"));
  EXPECT_EQ(r.z.size(), 1);
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_NEAR(r.residual, natural_residual(no_solution(), r.z), 0);
}

TEST(Enumeration, ListsExactlyThreeSolutions) {
  SolveOptions o;
  o.all_solutions = true;
  const Result r = solve(three_solutions(), Method::Enum, o);
  ASSERT_EQ(r.status, Status::Solved);
  ASSERT_EQ(r.solutions.size(), 3u);
  const std::vector<Eigen::Vector2d> expected{{1, 0}, {0, 1}, {1.0 / 3, 1.0 / 3}};
  for (const auto& e : expected) {
    const bool found = std::any_of(r.solutions.begin(), r.solutions.end(),
                                   [&](const Eigen::VectorXd& s) { return (s - e).norm() < 1e-12; });
    EXPECT_TRUE(found) << e.transpose();
  }
  for (const auto& s : r.solutions) EXPECT_LE(natural_residual(three_solutions(), s), 1e-12);
}

TEST(Enumeration, SingularSubmatricesAreNotAProof) {
  // M = 0, q = 0: every z >= 0 solves; the first one found is z = 0.
  const Result r = solve(infinitely_many(), Method::Enum);
  EXPECT_EQ(r.status, Status::Solved);
  EXPECT_TRUE(r.z.isZero());
  // M = 0, q = (−1, 0): no solution (w_0 = −1 always), but M_aa = 0 is singular, so no proof.
  const Lcp degenerate{Eigen::MatrixXd::Zero(2, 2), Eigen::Vector2d(-1, 0)};
  const Result d = solve(degenerate, Method::Enum);
  EXPECT_EQ(d.status, Status::NoSolutionFound);
  EXPECT_THAT(d.message, testing::HasSubstr("singular"));
}

TEST(Enumeration, RefusesMoreThan25Variables) {
  const Lcp big{Eigen::MatrixXd::Identity(26, 26), -Eigen::VectorXd::Ones(26)};
  try {
    (void)solve(big, Method::Enum);
    FAIL();
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("limited to n <= 25, got n = 26"));
  }
}

TEST(Enumeration, EmptyAndTrivialProblems) {
  EXPECT_EQ(solve(Lcp{}, Method::Enum).status, Status::Solved);
  const Result r = solve(Lcp{Eigen::Matrix2d{{-1, 3}, {2, -5}}, Eigen::Vector2d(0, 2)}, Method::Enum);
  EXPECT_EQ(r.status, Status::Solved);
  EXPECT_TRUE(r.z.isZero());
}

}  // namespace
}  // namespace perp::solvers_enumeration_test
