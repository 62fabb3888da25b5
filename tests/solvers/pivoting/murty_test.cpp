#include "perp/solvers/solve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "perp/core/residual.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_murty_test {
namespace {

using namespace testing_problems;

TEST(Murty, ChapterExamples) {
  const Result block = solve(two_contact_block(), Method::Murty);
  ASSERT_TRUE(block.solved()) << block.message;
  EXPECT_NEAR(block.z[0], 5, 1e-12);
  EXPECT_NEAR(block.z[1], 5, 1e-12);
  const Result lemke_example = solve(chapter_lemke_example(), Method::Murty);
  ASSERT_TRUE(lemke_example.solved());
  EXPECT_TRUE(lemke_example.z.isApprox(Eigen::Vector2d(1, 1)));
  // α = ∅ → w_0 = −1 < 0: flip 0 → z = (1, 0), w_1 = −1: flip 1 → z = (1, 1).
  EXPECT_EQ(lemke_example.iterations, 2);
}

TEST(Murty, FiniteOnPMatrices) {
  // A non-symmetric P-matrix (all principal minors positive: 2, 3, 6 − (−1)(1) = 7).
  const Lcp p{Eigen::Matrix2d{{2, -1}, {1, 3}}, Eigen::Vector2d(-1, -2)};
  const Result r = solve(p, Method::Murty);
  ASSERT_TRUE(r.solved());
  EXPECT_LE(natural_residual(p, r.z), 1e-12);
  for (const Eigen::Index n : {10, 60}) {
    const Lcp s = random_spd(n, 11);
    const Result rs = solve(s, Method::Murty);
    ASSERT_TRUE(rs.solved()) << rs.message;
    EXPECT_LE(natural_residual(s, rs.z), 1e-9);
  }
}

TEST(Murty, ReportsWhenItCannotProceed) {
  // M = 0: the first flip meets the singular 1×1 block M_00 = 0.
  const Result r = solve(Lcp{Eigen::MatrixXd::Zero(2, 2), Eigen::Vector2d(-1, 0)}, Method::Murty);
  EXPECT_EQ(r.status, Status::NotApplicable);
  EXPECT_THAT(r.message, testing::HasSubstr("singular"));
  EXPECT_THAT(r.message, testing::HasSubstr("not a P-matrix"));
  // M = (−1), q = (−1): z_0 = −1 after the flip, flip back → the empty set repeats.
  const Result cycle = solve(no_solution(), Method::Murty);
  EXPECT_EQ(cycle.status, Status::NotApplicable);
  EXPECT_THAT(cycle.message, testing::HasSubstr("repeated"));
  EXPECT_TRUE(cycle.z.allFinite());
}

}  // namespace
}  // namespace perp::solvers_murty_test
