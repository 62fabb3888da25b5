#include "perp/solvers/solve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/mlcp.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_enumeration_test {
namespace {

using namespace testing_problems;

TEST(Enumeration, ChapterBlockByEnumeratingFourModes) {
  const Result r = solve(two_contact_block(), Method::Enum);
  ASSERT_EQ(r.status, Status::Solved) << r.message;
  EXPECT_NEAR(r.z[0], 5, 1e-12);
  EXPECT_NEAR(r.z[1], 5, 1e-12);
  // [chapter] §1.2 rules out ∅ and the two single-contact modes first: the solution is the 4th set.
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

// The LCP as an MLCP with no free rows: B = M, b = q, u empty.
Mlcp without_free_rows(const Lcp& lcp) {
  const Eigen::Index m = lcp.size();
  return Mlcp{Eigen::MatrixXd(0, 0), lcp.M,          Eigen::MatrixXd(0, m), Eigen::MatrixXd(m, 0),
              Eigen::VectorXd(0),    lcp.q};
}

// B = [[1, 0, 0, 2], [0, 1, 0, 0], [0, 0, 1, 0], [0, −1, −1, 1]], b = (−1, −1, −1, 1). Rows 1 and 2
// read w = v − 1, so v₁ = v₂ = 1 (v = 0 would leave w = −1); then w₃ = v₃ − 1 forces v₃ = 1, and
// w₀ = v₀ + 1 > 0 forces v₀ = 0: the one solution is v = (0, 1, 1, 1), w = (1, 0, 0, 0), on the
// active set {1, 2, 3} alone (nondegenerate).
Lcp one_solution_on_three_rows() {
  Eigen::Matrix4d M;
  M << 1, 0, 0, 2, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, -1, 1;
  return Lcp{M, Eigen::Vector4d(-1, -1, -1, 1)};
}

TEST(Enumeration, LcpAndMlcpWithoutFreeRowsGiveTheSameAnswer) {
  const std::vector<Lcp> problems{two_contact_block(), chapter_lemke_example(), no_solution(),
                                  one_solution_on_three_rows(), random_spd(6, 7)};
  for (const Lcp& lcp : problems) {
    const Result as_lcp = solve(lcp, Method::Enum);
    const Result as_mlcp = solve(without_free_rows(lcp), Method::Enum);
    SCOPED_TRACE(as_lcp.message);
    EXPECT_EQ(as_lcp.status, as_mlcp.status) << as_mlcp.message;
    ASSERT_EQ(as_mlcp.z.size(), lcp.size());
    EXPECT_LE((as_lcp.z - as_mlcp.z).cwiseAbs().maxCoeff(), 1e-12 * (1 + as_lcp.z.cwiseAbs().maxCoeff()));
    EXPECT_NEAR(as_lcp.residual, as_mlcp.residual, 1e-12);
    if (as_lcp.status == Status::Infeasible) {  // a proof examines every set, from either start
      EXPECT_EQ(as_lcp.iterations, 1 << lcp.size());
      EXPECT_EQ(as_mlcp.iterations, 1 << lcp.size());
    } else {
      EXPECT_TRUE(as_lcp.solved());
      EXPECT_LE(natural_residual(lcp, as_mlcp.z), 1e-10);
    }
  }
}

TEST(Enumeration, VisitsSetsByDistanceFromTheStartThenFlippedPattern) {
  const Lcp lcp = one_solution_on_three_rows();
  // From α = ∅ (the LCP): 1 set of size 0, 4 of size 1, 6 of size 2, then the sets of size 3 by
  // pattern: 0111, 1011, 1101, 1110 = {1, 2, 3}: the 15th.
  const Result from_empty = solve(lcp, Method::Enum);
  ASSERT_EQ(from_empty.status, Status::Solved) << from_empty.message;
  EXPECT_EQ(from_empty.iterations, 15);
  EXPECT_LE((from_empty.z - Eigen::Vector4d(0, 1, 1, 1)).cwiseAbs().maxCoeff(), 1e-15);
  // The MLCP starts from the rows with b < 0, {0, 1, 2}; {1, 2, 3} flips rows {0, 3}. Distance 0
  // and 1 take 1 + 4 sets; at distance 2 the flips go 0011, 0101, 0110, 1001: the 9th set.
  const Result from_guess = solve(without_free_rows(lcp), Method::Enum);
  ASSERT_EQ(from_guess.status, Status::Solved) << from_guess.message;
  EXPECT_EQ(from_guess.iterations, 9);
  EXPECT_THAT(from_guess.message, testing::HasSubstr("searched outward from a guessed active set"));
  EXPECT_LE((from_guess.z - Eigen::Vector4d(0, 1, 1, 1)).cwiseAbs().maxCoeff(), 1e-15);
  EXPECT_LE((from_guess.w - Eigen::Vector4d(1, 0, 0, 0)).cwiseAbs().maxCoeff(), 1e-15);
  // The budget counts the same sets: 8 are not enough.
  const Result short_of_it = solve(without_free_rows(lcp), Method::Enum, {.max_iterations = 8});
  EXPECT_EQ(short_of_it.status, Status::MaxIterations) << short_of_it.message;
  EXPECT_EQ(short_of_it.iterations, 8);
}

TEST(Enumeration, MlcpWithAFreeRowSolvesItsBorderedSystem) {
  // A = (2), C = (1), a = (−2); D = (1), B = (1), b = (−3). The guess: v = 0 and 2u = 2 give u = 1,
  // w = u − 3 = −2 < 0, so row 0 starts active: [[2, 1], [1, 1]] (u, v) = (2, 3) gives u = −1,
  // v = 4 (determinant 1), w = (0, 0). The only other set, v = 0, is the rejected guess point.
  const Mlcp problem{Eigen::MatrixXd::Constant(1, 1, 2.0), Eigen::MatrixXd::Constant(1, 1, 1.0),
                     Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::MatrixXd::Constant(1, 1, 1.0),
                     Eigen::VectorXd::Constant(1, -2.0),   Eigen::VectorXd::Constant(1, -3.0)};
  const Result r = solve(problem, Method::Enum);
  ASSERT_EQ(r.status, Status::Solved) << r.message;
  EXPECT_EQ(r.iterations, 1);
  EXPECT_NEAR(r.z[0], -1.0, 1e-14);
  EXPECT_NEAR(r.z[1], 4.0, 1e-14);
  EXPECT_LE(r.w.cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_THAT(r.message, testing::HasSubstr("active set of size 1 after 1 of 2"));
  // With b = +3 instead: z = 0 is not trivial (a != 0); the guess u = 1 gives w = 4 > 0, so the
  // empty set comes first and solves: u = 1, v = 0.
  Mlcp slack = problem;
  slack.b[0] = 3.0;
  const Result s = solve(slack, Method::Enum);
  ASSERT_EQ(s.status, Status::Solved) << s.message;
  EXPECT_EQ(s.iterations, 1);
  EXPECT_NEAR(s.z[0], 1.0, 1e-14);
  EXPECT_EQ(s.z[1], 0.0);
  EXPECT_NEAR(s.w[1], 4.0, 1e-14);
}

}  // namespace
}  // namespace perp::solvers_enumeration_test
