// Method::BlockPivoting (src/solvers/block_pivoting.cpp) through `solve`, and its exchange rule,
// shared with auto's kernel at n <= 16 (lemke_small.cpp).
#include "../../../src/solvers/pivoting/block_pivoting.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/box_lcp.hpp"
#include "perp/solvers/solve.hpp"
#include "../relative_check.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_block_pivoting_test {
namespace {

using ::testing::HasSubstr;

// The relative residual recomputed here from z alone (tests/solvers/relative_check.hpp).
void expect_solves(const Lcp& problem, const Result& result, double tolerance = 1e-8) {
  ASSERT_TRUE(result.solved()) << to_string(result.status) << ": " << result.message;
  EXPECT_EQ(result.method, Method::BlockPivoting);
  EXPECT_LE(testing_relative::relative(problem, result.z), tolerance) << result.message;
  EXPECT_GE(result.z.minCoeff(), 0.0);
}

TEST(BlockPivoting, HandSolvedTwoByTwo) {
  // F = {0, 1}: 2 z0 + z1 = 4, z0 + 2 z1 = 1 gives z1 = −2/3 < 0, which leaves F; F = {0}: z0 = 2,
  // w1 = 2 − 1 = 1 >= 0. One round, one index moved (no block exchange).
  const Lcp problem{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(-4, -1)};
  const Result r = solve(problem, Method::BlockPivoting);
  expect_solves(problem, r);
  EXPECT_DOUBLE_EQ(r.z[0], 2.0);
  EXPECT_EQ(r.z[1], 0.0);
  EXPECT_DOUBLE_EQ(r.w[1], 1.0);
  EXPECT_EQ(r.iterations, 1);
  EXPECT_THAT(r.message, HasSubstr("of 1 index after 1 round (block exchanges: 0)"));
  EXPECT_THAT(r.brief_report(), testing::StartsWith("block-pivoting: solved"));
}

TEST(BlockPivoting, HandSolvedThreeByThree) {
  // Symmetric tridiagonal (Cholesky): F = {0, 1, 2} gives z0 = z2 = −3/7 (4a + b = 1, 2a + 4b = 10),
  // both leave in one block exchange; F = {1}: z1 = 10/4, w0 = w2 = 2.5 − 1 = 1.5.
  const Lcp symmetric{Eigen::Matrix3d{{4, 1, 0}, {1, 4, 1}, {0, 1, 4}}, Eigen::Vector3d(-1, -10, -1)};
  Result r = solve(symmetric, Method::BlockPivoting);
  expect_solves(symmetric, r);
  EXPECT_EQ(r.z, Eigen::Vector3d(0, 2.5, 0));
  EXPECT_EQ(r.w, Eigen::Vector3d(1.5, 0, 1.5));
  EXPECT_EQ(r.iterations, 1);
  EXPECT_THAT(r.message, HasSubstr("after 1 round (block exchanges: 1)"));
  // A non-symmetric P-matrix (principal minors 1, 1, 1, 1, 1, 1 and det 9; LU): F = {0, 1} gives
  // z1 = 1, z0 = 1 − 2 = −1, which leaves; F = {1}: z1 = 1, w = (2 − 1, 0, 4).
  const Lcp general{Eigen::Matrix3d{{1, 2, 0}, {0, 1, 2}, {2, 0, 1}}, Eigen::Vector3d(-1, -1, 4)};
  r = solve(general, Method::BlockPivoting);
  expect_solves(general, r);
  EXPECT_EQ(r.z, Eigen::Vector3d(0, 1, 0));
  EXPECT_EQ(r.w, Eigen::Vector3d(1, 0, 4));
  EXPECT_EQ(r.iterations, 1);
  // Started from the support of the solution: no round at all.
  SolveOptions options;
  options.initial_guess = Eigen::Vector3d(0, 7, 0);
  r = solve(symmetric, Method::BlockPivoting, options);
  expect_solves(symmetric, r);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(r.z, Eigen::Vector3d(0, 2.5, 0));
}

TEST(BlockPivoting, MurtysExampleFromTheCorpus) {
  // lcp_exp_murty (Murty 1988, ch. 6; a P-matrix, triangular with 1 on the diagonal and 2 off it):
  // one solution, which Lemke and enum find too.
  for (const char* file : {"lcp_exp_murty.dat", "lcp_exp_murty2.dat"}) {
    const Lcp problem = read_siconos_lcp(std::filesystem::path(PERP_SICONOS_DATA_DIR) / file);
    const Result r = solve(problem, Method::BlockPivoting);
    expect_solves(problem, r);
    const Result lemke = solve(problem, Method::Lemke);
    ASSERT_TRUE(lemke.solved()) << file;
    EXPECT_LE((r.z - lemke.z).cwiseAbs().maxCoeff(), 1e-12 * (1 + lemke.z.cwiseAbs().maxCoeff())) << file;
    EXPECT_GT(r.iterations, 0) << file;  // from F = {q_i < 0} = every index, some must move
    EXPECT_LE(r.iterations, 12) << file;
  }
}

// M = S + K with S symmetric positive definite and K skew: positive definite, not symmetric (a
// P-matrix, so one solution, and the LU path of the kernel).
Lcp nonsymmetric_p(Eigen::Index n, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd a(n, n), b(n, n);
  for (double& x : a.reshaped()) x = u(engine);
  for (double& x : b.reshaped()) x = u(engine);
  Lcp problem{a.transpose() * a + 0.1 * Eigen::MatrixXd::Identity(n, n) + (b - b.transpose()), Eigen::VectorXd(n)};
  for (double& x : problem.q) x = u(engine);
  return problem;
}

TEST(BlockPivoting, RandomPMatricesMatchLemke) {
  int moved = 0;
  for (unsigned seed = 1; seed <= 40; ++seed) {
    const Eigen::Index n = 2 + static_cast<Eigen::Index>(seed % 29);
    for (const Lcp& problem : {nonsymmetric_p(n, seed), testing_problems::random_spd(n, seed)}) {
      const Result r = solve(problem, Method::BlockPivoting);
      expect_solves(problem, r);
      const Result lemke = solve(problem, Method::Lemke);
      ASSERT_TRUE(lemke.solved()) << seed;
      EXPECT_LE((r.z - lemke.z).cwiseAbs().maxCoeff(), 1e-9 * (1 + lemke.z.cwiseAbs().maxCoeff())) << "seed " << seed;
      moved += r.iterations;
    }
  }
  EXPECT_GT(moved, 0);  // the start is not the answer on every problem
}

TEST(BlockPivoting, PositiveDefiniteOfTwoHundred) {
  const Lcp problem = testing_problems::random_spd(200, 5);
  const Result r = solve(problem, Method::BlockPivoting);
  expect_solves(problem, r, 1e-12);
  EXPECT_GT(r.iterations, 0);
  EXPECT_LE(r.iterations, 20);  // block exchanges: a handful of rounds, not one per index
  EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations) + 1);  // one entry per point
  const Result lemke = solve(problem, Method::Lemke);
  ASSERT_TRUE(lemke.solved());
  EXPECT_LE((r.z - lemke.z).cwiseAbs().maxCoeff(), 1e-9 * (1 + lemke.z.cwiseAbs().maxCoeff()));
}

TEST(BlockPivoting, NeverClaimsSolvedFalselyOnOtherMatrices) {
  // M = (−1), q = (−1): no solution. F = {0} gives z0 = −1, F = {} gives w0 = −1: the rule goes to
  // single moves and the set repeats.
  const Result cycle = solve(testing_problems::no_solution(), Method::BlockPivoting);
  EXPECT_EQ(cycle.status, Status::NotApplicable) << cycle.message;
  EXPECT_THAT(cycle.message, HasSubstr("repeated"));
  EXPECT_THAT(cycle.message, HasSubstr("not a P-matrix"));
  EXPECT_TRUE(cycle.z.allFinite());
  // M = 0, q = (−1, 0): the starting block M_00 = 0 is singular, the run restarts from F = {} and the
  // single move of index 0 meets the same block.
  const Result singular = solve(Lcp{Eigen::MatrixXd::Zero(2, 2), Eigen::Vector2d(-1, 0)}, Method::BlockPivoting);
  EXPECT_EQ(singular.status, Status::NotApplicable);
  EXPECT_THAT(singular.message, HasSubstr("principal block M_FF of 1 index singular"));
  EXPECT_THAT(singular.message, HasSubstr("starting block M_FF of 1 index is singular"));
  // M = [[1, 1], [2, 2]] (LU), q = −1: −q_F is outside the range of the singular M_FF = M, so the
  // start is singular; from F = {} the exchange {0, 1} meets it again and the single move of
  // index 0 solves: z = (1, 0), w = (0, 1).
  const Lcp rank_one{Eigen::Matrix2d{{1, 1}, {2, 2}}, Eigen::Vector2d(-1, -1)};
  const Result restarted = solve(rank_one, Method::BlockPivoting);
  expect_solves(rank_one, restarted);
  EXPECT_EQ(restarted.z, Eigen::Vector2d(1, 0));
  EXPECT_EQ(restarted.iterations, 1);
  EXPECT_THAT(restarted.message, HasSubstr("started from F = {}"));
  EXPECT_THAT(restarted.message,
              HasSubstr("1 block exchange met a singular block, each replaced by the single move of its least index "
                        "(the first in round 1)"));
  // M = [[1, 1], [1, 1]], q = −1 (lcp_deudeu): M_FF = M is singular but symmetric and −q_F in its
  // range; LDLᵀ, its zero pivot counted as zero, gives a solution of the system, z = (1/2, 1/2),
  // which solves the LCP (one of its many solutions, z_0 + z_1 = 1), at round 0.
  const Lcp deudeu{Eigen::MatrixXd::Ones(2, 2), Eigen::Vector2d(-1, -1)};
  const Result consistent = solve(deudeu, Method::BlockPivoting);
  expect_solves(deudeu, consistent);
  EXPECT_EQ(consistent.iterations, 0);
  EXPECT_NEAR(consistent.z.sum(), 1.0, 1e-15);
  // Random matrices with entries in [−1, 1] (most not P): whatever the kernel says, "solved" must
  // hold for the z it returns, and some of them it must decline.
  int declined = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Eigen::Index n = 3 + static_cast<Eigen::Index>(seed % 8);
    Lcp problem{Eigen::MatrixXd(n, n), Eigen::VectorXd(n)};
    for (double& x : problem.M.reshaped()) x = u(engine);
    for (double& x : problem.q) x = u(engine);
    const Result r = solve(problem, Method::BlockPivoting);
    const long double relative = testing_relative::relative(problem, r.z);
    EXPECT_EQ(r.solved(), relative <= 1e-8) << "seed " << seed << ": " << r.message;
    EXPECT_TRUE(r.z.allFinite());
    if (!r.solved()) {
      ++declined;
      EXPECT_THAT(to_string(r.status), testing::AnyOf("not-applicable", "max-iterations", "numerical-failure"));
      EXPECT_FALSE(r.message.empty());
    }
  }
  EXPECT_GT(declined, 0);
}

TEST(BlockPivoting, RoundLimitTraceAndOptions) {
  const Lcp problem = read_siconos_lcp(std::filesystem::path(PERP_SICONOS_DATA_DIR) / "lcp_exp_murty.dat");
  const Result full = solve(problem, Method::BlockPivoting);
  ASSERT_TRUE(full.solved());
  ASSERT_GE(full.iterations, 2);
  SolveOptions options;
  options.max_iterations = 1;
  const Result limited = solve(problem, Method::BlockPivoting, options);
  EXPECT_EQ(limited.status, Status::MaxIterations);
  EXPECT_EQ(limited.iterations, 1);
  EXPECT_THAT(limited.message, HasSubstr("round limit 1 reached"));
  // The trace: one event per point, "block-pivoting", round 0 listing the starting set.
  std::vector<TraceEvent> events;
  SolveOptions traced;
  traced.trace = [&](const TraceEvent& e) { events.push_back(e); };
  const Result r = solve(problem, Method::BlockPivoting, traced);
  ASSERT_TRUE(r.solved());
  ASSERT_EQ(events.size(), static_cast<std::size_t>(r.iterations) + 1);
  EXPECT_STREQ(events.front().method, "block-pivoting");
  EXPECT_EQ(events.front().kind, TraceKind::PrincipalPivot);
  EXPECT_EQ(events.front().entered.size(), 6u);  // q = −1: every index starts in F
  for (std::size_t k = 1; k < events.size(); ++k) {
    EXPECT_EQ(events[k].iteration, static_cast<int>(k));
    EXPECT_FALSE(events[k].entered.empty() && events[k].left.empty()) << k;
  }
  ASSERT_TRUE(events.back().residual.has_value());
  EXPECT_DOUBLE_EQ(*events.back().residual, r.history.back());
  // Invalid options and problem kinds are refused before any round.
  SolveOptions negative;
  negative.max_iterations = -1;
  EXPECT_THROW((void)solve(problem, Method::BlockPivoting, negative), InvalidProblem);
  SolveOptions wrong_size;
  wrong_size.initial_guess = Eigen::VectorXd::Zero(5);
  try {
    (void)solve(problem, Method::BlockPivoting, wrong_size);
    ADD_FAILURE() << "an initial guess of 5 entries for n = 6 was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("initial_guess"));
  }
  const BoxLcp box = to_box_lcp(problem);
  try {
    (void)solve(box, Method::BlockPivoting);
    ADD_FAILURE() << "a BoxLcp was accepted";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("block-pivoting"));
  }
}

TEST(BlockPivoting, ExchangeRule) {
  // Every index moves while the count falls or for kBlockStrikes rounds in a row that it does not;
  // then one, until the count falls below its best.
  detail::BlockExchange rule(10);
  EXPECT_EQ(rule.moved(6), 6);
  EXPECT_EQ(rule.moved(4), 4);
  for (int strike = 0; strike < detail::kBlockStrikes; ++strike) EXPECT_EQ(rule.moved(5), 5) << strike;
  EXPECT_FALSE(rule.single());
  EXPECT_EQ(rule.moved(4), 1);  // the fourth round without progress
  EXPECT_TRUE(rule.single());
  EXPECT_EQ(rule.moved(7), 1);
  EXPECT_EQ(rule.moved(3), 3);  // below the best: block exchanges again
  EXPECT_FALSE(rule.single());
  rule.single_from_now();
  EXPECT_EQ(rule.moved(3), 1);
}

}  // namespace
}  // namespace perp::solvers_block_pivoting_test
