#include "perp/solvers/factored_lcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_factored_lcp_test {
namespace {

using testing::AnyOf;
using testing::HasSubstr;
using testing::Not;
using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

FactoredLcp make(const Eigen::MatrixXd& A, const Eigen::VectorXd& inverse_mass, const Eigen::VectorXd& c) {
  return {A.sparseView(0.0, 0.0), inverse_mass, c};
}

// Checks what a result claims from z alone: w = A M⁻¹ Aᵀ z + c recomputed, and the LCP's own
// relative residual of the assembled problem.
void expect_solves(const FactoredLcp& problem, const Result& result, double tolerance) {
  ASSERT_TRUE(result.solved()) << result.message;
  ASSERT_EQ(result.z.size(), problem.size());
  EXPECT_TRUE(result.w.isApprox(problem.slack(result.z), 1e-13) || result.w.norm() == 0);
  const Lcp dense = problem.assembled();
  EXPECT_LE(relative_residual(dense, result.z, dense.M * result.z + dense.q), tolerance);
  EXPECT_GE(result.z.minCoeff(), 0.0);
}

// Rows of random planar contact Jacobians (normal and tangent rows mixed with ±μ, as the cone's
// edges of a time step): `rows` constraints on `bodies` bodies of 3 degrees of freedom.
FactoredLcp random_problem(int bodies, int rows, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> pick(0, bodies - 1);
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(rows, 3 * bodies);
  for (int k = 0; k < rows; ++k) {
    const int a = pick(gen);
    const int b = pick(gen);
    A.block<1, 3>(k, 3 * a) << unit(gen), 1 + 0.5 * unit(gen), 0.3 * unit(gen);
    if (b != a) A.block<1, 3>(k, 3 * b) << unit(gen), -1 + 0.5 * unit(gen), 0.3 * unit(gen);
  }
  Eigen::VectorXd inverse_mass(3 * bodies);
  for (int j = 0; j < 3 * bodies; ++j) inverse_mass[j] = 0.5 + 0.5 * (1 + unit(gen));
  Eigen::VectorXd c(rows);
  for (int k = 0; k < rows; ++k) c[k] = unit(gen) - 0.4;
  return make(A, inverse_mass, c);
}

TEST(FactoredLcp, TwoRedundantRowsByHand) {
  // One degree of freedom, two rows on it: M = [[1, 1], [1, 1]] (singular). With c = (−1, −2),
  // w_2 = 0 needs z_1 + z_2 = 2, then w_1 = 1 > 0 forces z_1 = 0: z = (0, 2), w = (1, 0).
  const FactoredLcp problem = make(Eigen::MatrixXd::Ones(2, 1), Eigen::VectorXd::Ones(1), Eigen::Vector2d(-1, -2));
  const Result result = solve(problem, Method::InteriorPoint, {.tolerance = 1e-12});
  expect_solves(problem, result, 1e-12);
  EXPECT_NEAR(result.z[0], 0.0, 1e-12);
  EXPECT_NEAR(result.z[1], 2.0, 1e-12);
  EXPECT_NEAR(result.w[0], 1.0, 1e-12);
  // c = (−1, −1): every split of z_1 + z_2 = 1 solves (w = 0); only the sum is determined.
  const FactoredLcp tie = make(Eigen::MatrixXd::Ones(2, 1), Eigen::VectorXd::Ones(1), Eigen::Vector2d(-1, -1));
  const Result split = solve(tie, Method::Auto, {.tolerance = 1e-12});
  expect_solves(tie, split, 1e-12);
  EXPECT_NEAR(split.z.sum(), 1.0, 1e-12);
}

TEST(FactoredLcp, RandomRedundantRowsAgreeWithLemkeOnTheFormedLcp) {
  // More rows than degrees of freedom (M = A M⁻¹ Aᵀ singular): z may differ, w may not.
  for (const std::uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    SCOPED_TRACE(seed);
    const FactoredLcp problem = random_problem(10, seed % 2 == 0 ? 20 : 45, seed);
    const Result dense = solve(problem.assembled(), Method::Lemke, {.tolerance = 1e-10});
    ASSERT_TRUE(dense.solved()) << dense.message;
    const Result result = solve(problem, Method::InteriorPoint, {.tolerance = 1e-10});
    expect_solves(problem, result, 1e-10);
    EXPECT_LE((result.w - dense.w).lpNorm<Eigen::Infinity>(), 1e-7 * (1 + dense.w.lpNorm<Eigen::Infinity>()));
    EXPECT_EQ(result.method, Method::InteriorPoint);
    // Any other method runs on the formed LCP.
    const Result other = solve(problem, Method::Lemke, {.tolerance = 1e-10});
    EXPECT_EQ(other.method, Method::Lemke);
    EXPECT_TRUE(other.solved());
  }
}

TEST(FactoredLcp, InitialGuessTakenToItsActiveSetFirst) {
  // The redundant 2×1 problem by hand: from z0 = (1, 1), w0 = (1, 0), so only row 2 counts as active
  // (z0_k d_k > w0_k with d = 1); on it z_2 = 2: the solution, without an interior point.
  const FactoredLcp problem = make(Eigen::MatrixXd::Ones(2, 1), Eigen::VectorXd::Ones(1), Eigen::Vector2d(-1, -2));
  SolveOptions options{.tolerance = 1e-12};
  options.initial_guess = Eigen::Vector2d(1, 1);
  const Result warm = solve(problem, Method::InteriorPoint, options);
  expect_solves(problem, warm, 1e-12);
  EXPECT_EQ(warm.iterations, 0);
  EXPECT_THAT(warm.message, HasSubstr("initial guess"));
  EXPECT_NEAR(warm.z[1], 2.0, 1e-12);
  // From z0 = (3, 0), w0 = (2, 1): row 1 alone gives z = (1, 0), w = (0, −1); row 2 enters, and the
  // two rows' equations contradict (z_1 + z_2 = 1 and = 2): the regularized step sends z_1 negative,
  // row 1 leaves, and row 2 alone gives z = (0, 2) again: block pivoting recovers, still no interior point.
  options.initial_guess = Eigen::Vector2d(3, 0);
  const Result pivoted = solve(problem, Method::InteriorPoint, options);
  expect_solves(problem, pivoted, 1e-12);
  EXPECT_EQ(pivoted.iterations, 0);
  EXPECT_NEAR(pivoted.z[0], 0.0, 1e-12);
  EXPECT_NEAR(pivoted.z[1], 2.0, 1e-12);
  // Where the guess's vertex does not solve (an infeasible row on a fixed dof: w_2 = −1 whatever z),
  // the interior point runs after it, and the status stays unsolved.
  Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(2, 2);
  const FactoredLcp infeasible = make(identity, Eigen::Vector2d(2, 0), Eigen::Vector2d(-1, -1));
  SolveOptions guessed{.tolerance = 1e-10};
  guessed.initial_guess = Eigen::Vector2d(1, 1);
  const Result bad = solve(infeasible, Method::InteriorPoint, guessed);
  EXPECT_FALSE(bad.solved()) << bad.message;
  EXPECT_GT(bad.iterations, 0);
  EXPECT_TRUE(bad.z.allFinite());
  // Random redundant problems: from a perturbed solution (same support, entries off by up to 30 %),
  // the warm path lands on a solution (w equal to the cold one's).
  for (const std::uint32_t seed : {11u, 12u, 13u}) {
    SCOPED_TRACE(seed);
    const FactoredLcp random = random_problem(10, 40, seed);
    const Result reference = solve(random, Method::InteriorPoint, {.tolerance = 1e-10});
    ASSERT_TRUE(reference.solved()) << reference.message;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> factor(0.7, 1.3);
    Eigen::VectorXd guess = reference.z;
    for (Eigen::Index k = 0; k < guess.size(); ++k) guess[k] *= factor(gen);
    SolveOptions from{.tolerance = 1e-10};
    from.initial_guess = guess;
    const Result again = solve(random, Method::InteriorPoint, from);
    expect_solves(random, again, 1e-10);
    EXPECT_LE((again.w - reference.w).lpNorm<Eigen::Infinity>(), 1e-7 * (1 + reference.w.lpNorm<Eigen::Infinity>()));
  }
}

TEST(FactoredLcp, TheProximalCrossoverFinishesWhereTheInteriorPointStopsShort) {
  // Two interior-point steps leave the residual far above the tolerance; the proximal crossover from
  // that point finishes (MPRGP, after it where it stops short, is tested in proportioning_test.cpp).
  for (const std::uint32_t seed : {21u, 22u, 23u}) {
    SCOPED_TRACE(seed);
    const FactoredLcp problem = random_problem(10, 20, seed);
    SolveOptions options{.tolerance = 1e-10};
    options.max_iterations = 2;
    const Result result = solve(problem, Method::InteriorPoint, options);
    expect_solves(problem, result, 1e-10);
    EXPECT_EQ(result.iterations, 2);
    EXPECT_THAT(result.message, HasSubstr("the proximal crossover from that point"));
  }
}

TEST(FactoredLcp, FixedDegreesOfFreedomAndInfeasibleRows) {
  // The second dof is fixed (M⁻¹ = 0): a row on it alone has w = c whatever z. c_2 = −1 there makes
  // the LCP infeasible, which must not be reported solved; with c_2 = +1 it is z_2 = 0.
  Eigen::MatrixXd A(2, 2);
  A << 1, 0, 0, 1;
  const Eigen::Vector2d inverse_mass(2, 0);
  const FactoredLcp feasible = make(A, inverse_mass, Eigen::Vector2d(-1, 1));
  const Result ok = solve(feasible, Method::InteriorPoint, {.tolerance = 1e-12});
  expect_solves(feasible, ok, 1e-12);
  EXPECT_NEAR(ok.z[0], 0.5, 1e-12);  // w_1 = 2 z_1 − 1 = 0
  EXPECT_NEAR(ok.z[1], 0.0, 1e-12);
  const FactoredLcp infeasible = make(A, inverse_mass, Eigen::Vector2d(-1, -1));
  const Result bad = solve(infeasible, Method::InteriorPoint, {.tolerance = 1e-10});
  EXPECT_FALSE(bad.solved()) << bad.message;
  EXPECT_TRUE(bad.z.allFinite());
  EXPECT_GT(bad.relative_residual, 1e-10);
}

TEST(FactoredLcp, FormingAboveTheLimitIsRefused) {
  // 8 001 rows on one degree of freedom: lemke would need an 8 001² dense matrix.
  const FactoredLcp big{RowSparse(Eigen::MatrixXd::Ones(8001, 1).sparseView()), Eigen::VectorXd::Ones(1),
                        Eigen::VectorXd::Constant(8001, -1.0)};
  const Result refused = solve(big, Method::Lemke);
  EXPECT_EQ(refused.status, Status::NotApplicable);
  EXPECT_THAT(refused.message, HasSubstr("8001 rows"));
  EXPECT_EQ(refused.z.size(), 8001);
}

TEST(FactoredLcp, PgsSweepsOnTheFactors) {
  // The redundant pair by hand, c = (−1, −2): from z = 0 the first sweep sets z_1 = 1, then z_2 = 1
  // (w_2 = z_1 + z_2 − 2 = 0); the second sweep finds w_1 = 1 and sets z_1 = 0, z_2 = 2: the
  // solution (0, 2) of TwoRedundantRowsByHand, w = (1, 0), in two sweeps.
  const FactoredLcp problem = make(Eigen::MatrixXd::Ones(2, 1), Eigen::VectorXd::Ones(1), Eigen::Vector2d(-1, -2));
  const Result result = solve(problem, Method::Pgs, {.tolerance = 1e-12});
  expect_solves(problem, result, 1e-12);
  EXPECT_EQ(result.method, Method::Pgs);
  EXPECT_NEAR(result.z[0], 0.0, 1e-15);
  EXPECT_NEAR(result.z[1], 2.0, 1e-15);
  // The third sweep changes nothing: the fixed point ends the sweeps, and the count says three.
  EXPECT_EQ(result.iterations, 3);
  // Random redundant rows: w agrees with Lemke's on the formed LCP (z need not).
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const FactoredLcp random = random_problem(10, 20, seed);
    const Result dense = solve(random.assembled(), Method::Lemke, {.tolerance = 1e-10});
    ASSERT_TRUE(dense.solved()) << dense.message;
    const Result swept = solve(random, Method::Pgs, {.tolerance = 1e-9});
    expect_solves(random, swept, 1e-9);
    EXPECT_LE((swept.w - dense.w).lpNorm<Eigen::Infinity>(), 1e-6 * (1 + dense.w.lpNorm<Eigen::Infinity>()));
  }
  // Above the forming limit too (nothing is formed): 8 001 rows on one degree of freedom, c = −1:
  // the first row takes z = 1 and every other row is then at w = 0.
  const FactoredLcp big{RowSparse(Eigen::MatrixXd::Ones(8001, 1).sparseView()), Eigen::VectorXd::Ones(1),
                        Eigen::VectorXd::Constant(8001, -1.0)};
  const Result wide = solve(big, Method::Pgs, {.tolerance = 1e-12});
  ASSERT_TRUE(wide.solved()) << wide.message;
  EXPECT_NEAR(wide.z.sum(), 1.0, 1e-12);
  EXPECT_NEAR(big.slack(wide.z).lpNorm<Eigen::Infinity>(), 0.0, 1e-12);
  // c >= 0: z = 0, answered by the method asked.
  const FactoredLcp open_rows = make(Eigen::MatrixXd::Ones(2, 1), Eigen::VectorXd::Ones(1), Eigen::Vector2d(1, 2));
  const Result trivial = solve(open_rows, Method::Pgs);
  EXPECT_TRUE(trivial.solved());
  EXPECT_EQ(trivial.method, Method::Pgs);
  EXPECT_EQ(trivial.z, Eigen::VectorXd::Zero(2));
  // A sweep limit that does not reach the tolerance says so.
  const Result short_run = solve(random_problem(10, 45, 7), Method::Pgs, {.tolerance = 1e-14, .max_iterations = 1});
  EXPECT_EQ(short_run.status, Status::MaxIterations);
  EXPECT_THAT(short_run.message, HasSubstr("sweep limit 1"));
  EXPECT_EQ(short_run.iterations, 1);
  // A tolerance below round-off: psor's error falls to its floor; there the sweeps either stop
  // moving (a fixed point in floating point) or stay at the floor and stop 100 sweeps after the
  // error last fell by 1 % — which of the two is the round-off's — and say so, long before the limit.
  const FactoredLcp floor_problem = random_problem(10, 20, 1);
  const Result floor = solve(floor_problem, Method::Psor, {.tolerance = 1e-300, .max_iterations = 100000});
  EXPECT_EQ(floor.status, Status::NoSolutionFound) << floor.message;
  EXPECT_THAT(floor.message, AnyOf(HasSubstr("no lower by 1 % in the last 100"),
                                   HasSubstr("at a fixed point of the sweeps (sweep " +
                                             std::to_string(floor.iterations) + " moved no row)")));
  EXPECT_THAT(floor.message, Not(HasSubstr("sweep limit")));
  EXPECT_LT(floor.iterations, 2000);
  EXPECT_LE(relative_residual(floor_problem.assembled(), floor.z,
                              floor_problem.assembled().M * floor.z + floor_problem.assembled().q),
            1e-12);
}

TEST(FactoredLcp, TrivialAndEmpty) {
  const FactoredLcp nonnegative = make(Eigen::MatrixXd::Ones(3, 2), Eigen::VectorXd::Ones(2), Eigen::Vector3d(0, 1, 2));
  const Result zero = solve(nonnegative);
  ASSERT_TRUE(zero.solved());
  EXPECT_EQ(zero.z, Eigen::VectorXd::Zero(3));
  EXPECT_EQ(zero.w, nonnegative.c);
  const Result empty = solve(FactoredLcp{RowSparse(0, 2), Eigen::VectorXd::Ones(2), Eigen::VectorXd()});
  EXPECT_TRUE(empty.solved());
  EXPECT_EQ(empty.z.size(), 0);
}

TEST(FactoredLcp, BadInputIsNamed) {
  const auto message = [](const FactoredLcp& problem) -> std::string {
    try {
      (void)solve(problem);
    } catch (const InvalidProblem& e) {
      return e.what();
    }
    return "";
  };
  FactoredLcp problem = make(Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Ones(2), Eigen::Vector2d(-1, -1));
  problem.inverse_mass[1] = -1;
  EXPECT_THAT(message(problem), HasSubstr("inverse_mass[1]"));
  problem = make(Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Ones(2), Eigen::Vector2d(-1, -1));
  problem.A.coeffRef(1, 0) = std::numeric_limits<double>::infinity();
  EXPECT_THAT(message(problem), HasSubstr("A(1, 0)"));
  problem = make(Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Ones(3), Eigen::Vector2d(-1, -1));
  EXPECT_THAT(message(problem), HasSubstr("A: expected 2x3"));
  problem = make(Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Ones(2), Eigen::Vector2d(-1, NAN));
  EXPECT_THAT(message(problem), HasSubstr("c"));
}

}  // namespace
}  // namespace perp::solvers_factored_lcp_test
