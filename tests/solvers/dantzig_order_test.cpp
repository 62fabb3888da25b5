// Dantzig's principal pivoting driven in a given order (src/solvers/dantzig.cpp, the overload that
// `auto` calls on a symmetric LCP with the indices a few PGS sweeps left positive first).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../../src/solvers/dantzig.hpp"
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
    EXPECT_NE(result.message.find("dantzig, the indices positive after"), std::string::npos) << result.message;
    const Result plain = solve(problem, Method::Dantzig, options);
    ASSERT_TRUE(plain.solved()) << plain.message;
    const Eigen::VectorXd w = problem.M * result.z + problem.q;
    EXPECT_LE(relative_residual(problem, result.z, w), 1e-10) << seed;
    EXPECT_LE((w - (problem.M * plain.z + problem.q)).cwiseAbs().maxCoeff(), 1e-9) << seed;
  }
}

}  // namespace
}  // namespace perp::solvers_dantzig_order_test
