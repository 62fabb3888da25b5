// The per-thread scratch blocks of the pivoting kernels (src/solvers/scratch.hpp), and dantzig,
// which borrows two of them per solve, run again from inside its own trace callback.

#include "../../../src/solvers/entry/scratch.hpp"

#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "perp/core/lcp.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {
namespace {

using detail::ScratchMatrix;

TEST(Scratch, ALoopOfOneSizeReusesOneBlock) {
  const double* first = nullptr;
  {
    ScratchMatrix a(30, 30);
    first = a.matrix().data();
    a.matrix().setConstant(1.0);
    EXPECT_EQ(a.matrix().rows(), 30);
    EXPECT_EQ(a.matrix().cols(), 30);
  }
  ScratchMatrix again(30, 30);
  EXPECT_EQ(again.matrix().data(), first);
  ScratchMatrix smaller(10, 20);  // the other slot: both are held at once
  EXPECT_NE(smaller.matrix().data(), first);
}

TEST(Scratch, BlocksHeldAtOnceNeverOverlap) {
  ScratchMatrix a(40, 40), b(40, 40), c(40, 40);  // c: both slots lent, its own block
  a.matrix().setConstant(1.0);
  b.matrix().setConstant(2.0);
  c.matrix().setConstant(3.0);
  EXPECT_EQ(a.matrix().sum(), 1600.0);
  EXPECT_EQ(b.matrix().sum(), 3200.0);
  EXPECT_EQ(c.matrix().sum(), 4800.0);
}

TEST(Scratch, LargeBlocksAndEmptyOnes) {
  const auto side = static_cast<Eigen::Index>(400);  // 160 000 doubles > kScratchPooled
  ASSERT_GT(static_cast<std::size_t>(side * side), detail::kScratchPooled);
  ScratchMatrix large(side, side);
  large.matrix().setZero();
  large.matrix()(side - 1, side - 1) = 5.0;
  EXPECT_EQ(large.matrix().sum(), 5.0);
  ScratchMatrix empty(0, 0);
  EXPECT_EQ(empty.matrix().size(), 0);
}

TEST(Scratch, EachThreadHasItsOwnPool) {
  ScratchMatrix mine(20, 20);
  const double* other = nullptr;
  std::thread([&other] {
    ScratchMatrix theirs(20, 20);
    other = theirs.matrix().data();
  }).join();
  EXPECT_NE(other, mine.matrix().data());
}

// A symmetric positive definite LCP of size n with some q_i < 0 (dantzig pivots on it).
Lcp spd(Eigen::Index n, unsigned seed) {
  std::mt19937 engine(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd A(n, n);
  for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = normal(engine);
  Lcp problem;
  problem.M = A.transpose() * A + 0.1 * Eigen::MatrixXd::Identity(n, n);
  problem.q.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) problem.q[i] = normal(engine);
  return problem;
}

TEST(Scratch, DantzigSolvedInsideItsOwnTraceCallbackLeavesTheOuterSolveIntact) {
  const Lcp outer = spd(60, 3);
  const Lcp inner = spd(60, 4);  // the same size: the same slots asked for
  SolveOptions plain;
  const Result expected_outer = solve(outer, Method::Dantzig, plain);
  const Result expected_inner = solve(inner, Method::Dantzig, plain);
  ASSERT_TRUE(expected_outer.solved());
  ASSERT_TRUE(expected_inner.solved());
  ASSERT_GT(expected_outer.iterations, 3);

  int nested = 0;
  SolveOptions traced;
  traced.trace = [&](const TraceEvent&) {
    const Result r = solve(inner, Method::Dantzig, plain);  // borrows while the outer solve holds both slots
    EXPECT_EQ(r.z, expected_inner.z);
    ++nested;
  };
  const Result result = solve(outer, Method::Dantzig, traced);
  EXPECT_EQ(nested, expected_outer.iterations);
  EXPECT_TRUE(result.solved());
  EXPECT_EQ(result.z, expected_outer.z);
  EXPECT_LE(relative_residual(outer, result.z, outer.M * result.z + outer.q), 1e-12);
}

}  // namespace
}  // namespace perp
