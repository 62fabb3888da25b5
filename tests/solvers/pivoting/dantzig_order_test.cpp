// Dantzig's principal pivoting driven in a given order (src/solvers/dantzig.cpp, the overload that
// `auto` calls on a symmetric LCP with the indices a few PGS sweeps left positive first).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../../../src/solvers/pivoting/dantzig.hpp"
#include "perp/core/box_lcp.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_dantzig_order_test {
namespace {

double uniform(std::mt19937_64& engine, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(engine);
}

// M = J Jᵀ with more rows than columns: singular positive semidefinite, q = J v in its range.
// Rank at most 3n / rows_per_body.
Lcp singular_contact(Eigen::Index n, unsigned seed, Eigen::Index rows_per_body = 4) {
  std::mt19937_64 engine(seed);
  const Eigen::Index columns = 3 * std::max<Eigen::Index>(2, n / rows_per_body);
  Eigen::MatrixXd J(n, columns);
  for (double& x : J.reshaped()) x = uniform(engine, -1, 1) * (uniform(engine, 0, 1) < 0.2 ? 1.0 : 0.0);
  for (Eigen::Index c = 0; c < n; ++c) J(c, (3 * c) % columns) += 1.0;
  Eigen::VectorXd v(columns);
  for (double& x : v) x = uniform(engine, -1, 1);
  Lcp problem{J * J.transpose(), J * v};
  problem.M = (0.5 * (problem.M + problem.M.transpose())).eval();
  return problem;
}

std::vector<Eigen::Index> reversed(Eigen::Index n) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(n));
  std::iota(order.rbegin(), order.rend(), Eigen::Index{0});
  return order;
}

TEST(DantzigOrder, AnyOrderSolvesASingularSemidefiniteLcpWithTheSameW) {
  // z is not unique on a singular M, w is: every order must reach a solution with the same w.
  SolveOptions options;
  options.tolerance = 1e-10;
  for (const unsigned seed : {1u, 2u, 3u, 4u}) {
    const Lcp problem = singular_contact(60, seed);
    const BoxLcp box = to_box_lcp(problem);
    const Result plain = solve_dantzig(box, options);
    ASSERT_TRUE(plain.solved()) << plain.message;
    std::mt19937_64 engine(seed);
    std::vector<Eigen::Index> shuffled(60);
    std::iota(shuffled.begin(), shuffled.end(), Eigen::Index{0});
    std::shuffle(shuffled.begin(), shuffled.end(), engine);
    for (const std::vector<Eigen::Index>& order : {reversed(60), shuffled}) {
      const Result result = solve_dantzig(box, options, order);
      ASSERT_TRUE(result.solved()) << result.message;
      const Eigen::VectorXd w = problem.M * result.z + problem.q;
      EXPECT_LE(relative_residual(problem, result.z, w), 1e-10) << seed;
      EXPECT_LE((w - (problem.M * plain.z + problem.q)).cwiseAbs().maxCoeff(), 1e-9) << seed;
    }
  }
}

TEST(DantzigOrder, AnOrderThatIsNotAPermutationOrABoxWithFreeComponentsKeepTheDefault) {
  SolveOptions options;
  options.tolerance = 1e-10;
  const Lcp problem = singular_contact(20, 5);
  const BoxLcp box = to_box_lcp(problem);
  const Result plain = solve_dantzig(box, options);
  ASSERT_TRUE(plain.solved()) << plain.message;
  std::vector<Eigen::Index> twice = reversed(20);
  twice[0] = twice[1];  // an index twice, one missing
  for (const std::vector<Eigen::Index>& order : {twice, std::vector<Eigen::Index>{0, 1, 2}}) {
    const Result result = solve_dantzig(box, options, order);
    EXPECT_EQ(result.z, plain.z);
    EXPECT_EQ(result.iterations, plain.iterations);
  }
  // A free component must be clamped first: with any lower bound infinite the order is not used,
  // the result is the default's.
  BoxLcp free = box;
  free.M.diagonal().array() += 1.0;  // positive definite, so that the free component has a solution
  free.lower[3] = -std::numeric_limits<double>::infinity();
  const Result free_plain = solve_dantzig(free, options);
  ASSERT_TRUE(free_plain.solved()) << free_plain.message;
  const Result free_ordered = solve_dantzig(free, options, reversed(20));
  EXPECT_EQ(free_ordered.z, free_plain.z);
}

TEST(DantzigOrder, AutoOnASingularLcpMatchesDantzigsW) {
  // n <= kAutoSettleMinSize, M singular: auto ends in dantzig driven in the order of a PGS point
  // (its own sweeps, or kAutoOrderSweeps where the starting block is singular); its w is
  // dantzig's (index order) to round-off.
  SolveOptions options;
  options.tolerance = 1e-10;
  for (const unsigned seed : {6u, 7u, 8u}) {
    const Lcp problem = singular_contact(120, seed, 8);  // rank <= 45: {q_i < 0} has ~60
    const Result result = solve(problem, Method::Auto, options);
    ASSERT_TRUE(result.solved()) << result.message;
    EXPECT_NE((result.attempt_order + result.message).find("dantzig, the indices positive after"), std::string::npos) << result.message;
    const Result plain = solve(problem, Method::Dantzig, options);
    ASSERT_TRUE(plain.solved()) << plain.message;
    const Eigen::VectorXd w = problem.M * result.z + problem.q;
    EXPECT_LE(relative_residual(problem, result.z, w), 1e-10) << seed;
    EXPECT_LE((w - (problem.M * plain.z + problem.q)).cwiseAbs().maxCoeff(), 1e-9) << seed;
  }
}

TEST(DantzigOrder, TheLcpEntryMatchesTheBoxForm) {
  // solve_dantzig(lcp, options, order, scan) runs on the Lcp's own M (no box copy) with the
  // caller's scan: the same pivots, point, status and message as the box form, in any order, with
  // and without history, and index order for an empty or invalid order.
  for (const bool history : {false, true}) {
    SolveOptions options;
    options.tolerance = 1e-10;
    options.record_history = history;
    for (const unsigned seed : {5u, 6u}) {
      const Lcp problem = singular_contact(48, seed);
      const BoxLcp box = to_box_lcp(problem);
      const detail::MatrixScan scan = detail::scan_matrix(problem.M);
      std::vector<Eigen::Index> shuffled(48);
      std::iota(shuffled.begin(), shuffled.end(), Eigen::Index{0});
      std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(seed));
      for (const std::vector<Eigen::Index>& order : {reversed(48), shuffled}) {
        const Result expected = solve_dantzig(box, options, order);
        const Result actual = solve_dantzig(problem, options, order, scan);
        ASSERT_TRUE(expected.solved()) << expected.message;
        EXPECT_EQ(actual.z, expected.z);
        EXPECT_EQ(actual.w, expected.w);
        EXPECT_EQ(actual.iterations, expected.iterations);
        EXPECT_EQ(actual.status, expected.status);
        EXPECT_EQ(actual.message, expected.message);
        // The LCP's own measure |min(z, w)| (the box form's |z − mid(lo, hi, z − w)| agrees only up
        // to rounding).
        EXPECT_EQ(actual.relative_residual, relative_residual(problem, actual.z, actual.w));
        EXPECT_EQ(actual.history, expected.history);
      }
      const Result index_order = solve_dantzig(box, options);
      for (const std::vector<Eigen::Index>& order : {std::vector<Eigen::Index>{}, std::vector<Eigen::Index>{0, 0}}) {
        const Result actual = solve_dantzig(problem, options, order, scan);
        EXPECT_EQ(actual.z, index_order.z);
        EXPECT_EQ(actual.iterations, index_order.iterations);
      }
    }
  }
  // And on a matrix that is not symmetric (the LU path), whose scan says so.
  Lcp skew{Eigen::Matrix3d{{2, 1, 0}, {-1, 2, 1}, {0, -1, 2}}, Eigen::Vector3d(-1, -2, 1)};
  const detail::MatrixScan scan = detail::scan_matrix(skew.M);
  ASSERT_FALSE(scan.symmetric);
  const Result expected = solve_dantzig(to_box_lcp(skew), SolveOptions{});
  const Result actual = solve_dantzig(skew, SolveOptions{}, {}, scan);
  ASSERT_TRUE(actual.solved()) << actual.message;
  EXPECT_EQ(actual.z, expected.z);
  EXPECT_EQ(actual.message, expected.message);
  EXPECT_LE((skew.M * actual.z + skew.q - actual.w).cwiseAbs().maxCoeff(), 1e-14);
}

}  // namespace
}  // namespace perp::solvers_dantzig_order_test
