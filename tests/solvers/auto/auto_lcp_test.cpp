// auto on the LCP (src/solvers/auto_lcp.cpp), the semidefinite solver of the Newton kernels
// (src/solvers/newton_linear.cpp) and solve_many (src/solvers/batch.cpp).
#include "../../../src/solvers/auto/auto_lcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../../../src/solvers/pivoting/lemke.hpp"
#include "../../../src/solvers/pivoting/lemke_small.hpp"
#include "../../../src/solvers/newton/newton_linear.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/io/siconos.hpp"
#include "perp/solvers/batch.hpp"
#include "perp/solvers/solve.hpp"
#include "../relative_check.hpp"

namespace perp::solvers_auto_lcp_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

double uniform(std::mt19937_64& engine, double low, double high) {
  return std::uniform_real_distribution<double>(low, high)(engine);
}

// M and q with entries uniform in [−1, 1] (M's first, column by column), from `engine`.
Lcp uniform_lcp(std::mt19937_64& engine, Eigen::Index n) {
  Lcp problem{Eigen::MatrixXd(n, n), Eigen::VectorXd(n)};
  for (double& x : problem.M.reshaped()) x = uniform(engine, -1, 1);
  for (double& x : problem.q) x = uniform(engine, -1, 1);
  return problem;
}

// M = AᵀA + 0.1 I, q uniform in [−1, 1]: symmetric positive definite.
Lcp spd(Eigen::Index n, unsigned seed) {
  std::mt19937_64 engine(seed);
  Eigen::MatrixXd a(n, n);
  for (double& x : a.reshaped()) x = uniform(engine, -1, 1);
  Lcp problem{a.transpose() * a, Eigen::VectorXd(n)};
  problem.M.diagonal().array() += 0.1;
  problem.M = (0.5 * (problem.M + problem.M.transpose())).eval();
  for (double& x : problem.q) x = uniform(engine, -1, 1);
  return problem;
}

// M = J W Jᵀ with J n × 3b for b = n/4 planar bodies, q = J v: singular positive semidefinite
// (rank <= 3n/4), and solvable (q lies in the range of J).
Lcp contact(Eigen::Index n, unsigned seed) {
  std::mt19937_64 engine(seed);
  const Eigen::Index bodies = std::max<Eigen::Index>(2, n / 4);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(n, 3 * bodies);
  for (Eigen::Index c = 0; c < n; ++c) {
    const auto a = static_cast<Eigen::Index>(uniform(engine, 0, static_cast<double>(bodies) - 1e-9));
    const Eigen::Index b = (a + 1) % bodies;
    const double angle = uniform(engine, -0.3, 0.3);
    J(c, 3 * a) = std::sin(angle);
    J(c, 3 * a + 1) = std::cos(angle);
    J(c, 3 * a + 2) = uniform(engine, -0.25, 0.25);
    if (c % 4 != 0) {  // one contact in four is with the ground
      J(c, 3 * b) = -std::sin(angle);
      J(c, 3 * b + 1) = -std::cos(angle);
      J(c, 3 * b + 2) = uniform(engine, -0.25, 0.25);
    }
  }
  Eigen::VectorXd inverse_mass(3 * bodies), v(3 * bodies);
  for (Eigen::Index i = 0; i < inverse_mass.size(); ++i) {
    inverse_mass[i] = i % 3 == 2 ? uniform(engine, 10, 40) : uniform(engine, 0.5, 2);
    v[i] = uniform(engine, -1, 1);
  }
  Lcp problem{J * inverse_mass.asDiagonal() * J.transpose(), J * v};
  problem.M = (0.5 * (problem.M + problem.M.transpose())).eval();
  return problem;
}

// The relative residual of the returned z, recomputed here.
double recomputed(const Lcp& problem, const Result& result) {
  return relative_residual(problem, result.z, problem.M * result.z + problem.q);
}

// auto at 1e-10, and what every route owes: solved, the residual recomputed from z, z >= 0.
void solve_auto_checked(const Lcp& problem, Result& result) {
  SolveOptions options;
  options.tolerance = 1e-10;
  result = solve(problem, Method::Auto, options);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LE(recomputed(problem, result), 1e-10);
  EXPECT_GE(result.z.minCoeff(), 0.0);
}

TEST(AutoLcp, PositiveDefiniteSolvedByBlockPivotingToTheLemkeSolution) {
  for (const unsigned seed : {1u, 2u, 3u}) {
    const Lcp problem = spd(120, seed);
    SolveOptions options;
    options.tolerance = 1e-10;
    const Result result = solve(problem, Method::Auto, options);
    ASSERT_TRUE(result.solved()) << result.message;
    EXPECT_LE(recomputed(problem, result), 1e-10);
    EXPECT_THAT((result.attempt_order + result.message), HasSubstr("symmetric with a positive diagonal"));
    EXPECT_THAT((result.attempt_order + result.message), HasSubstr("block principal pivoting"));
    // Positive definite: the solution is unique, so Lemke must find the same z.
    const Result lemke = solve(problem, Method::Lemke, options);
    ASSERT_TRUE(lemke.solved());
    EXPECT_LE((result.z - lemke.z).cwiseAbs().maxCoeff(), 1e-9 * (1 + lemke.z.cwiseAbs().maxCoeff()));
  }
}

TEST(AutoLcp, SingularContactMatrixSolvedAndEveryRouteNamed) {
  for (const Eigen::Index n : {60, 200}) {
    const Lcp problem = contact(n, 7);
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(problem.M, Eigen::EigenvaluesOnly);
    ASSERT_LT(eigen.eigenvalues()[0], 1e-10 * eigen.eigenvalues()[n - 1]) << "the test matrix should be singular";
    Result result;
    ASSERT_NO_FATAL_FAILURE(solve_auto_checked(problem, result));
    EXPECT_THAT(result.message, HasSubstr("auto ("));
    EXPECT_NE(result.method, Method::Auto);  // the route that answered
  }
}

TEST(AutoLcp, SmallProblemsGoToBlockPivotingThenLemkeFirst) {
  // n <= 16: block principal pivoting on the stack; positive definite, so it ends at the one
  // solution, which Lemke finds too.
  const Lcp small = spd(10, 4);
  const Result result = solve(small, Method::Auto);
  ASSERT_TRUE(result.solved());
  EXPECT_EQ(result.method, Method::BlockPivoting);  // block principal pivoting
  EXPECT_THAT(result.message, HasSubstr("auto (bpp): ok"));
  const Result lemke = solve(small, Method::Lemke);
  ASSERT_TRUE(lemke.solved());
  EXPECT_LE((result.z - lemke.z).cwiseAbs().maxCoeff(), 1e-9 * (1 + lemke.z.cwiseAbs().maxCoeff()));
  // 16 < n <= 40: Lemke first.
  const Result larger = solve(spd(30, 4), Method::Auto);
  ASSERT_TRUE(larger.solved());
  EXPECT_EQ(larger.method, Method::Lemke);
  EXPECT_THAT(larger.message, HasSubstr("lemke first"));
}

// auto's first tries at n <= 16 (lemke_small.cpp) on problems solved by hand: the block principal
// pivoting kernel called directly, and auto, whose sweep answers first on a lower triangular M.
TEST(AutoLcp, SmallBlockPivotingOnHandSolvedProblems) {
  SolveOptions options;
  // M = diag(1, …, 9), q = −1 (Siconos' lcp_trivial): every index starts active and z_i = 1/i.
  const Eigen::Index n = 9;
  Lcp diagonal{Eigen::MatrixXd::Zero(n, n), Eigen::VectorXd::Constant(n, -1.0)};
  for (Eigen::Index i = 0; i < n; ++i) diagonal.M(i, i) = static_cast<double>(i + 1);
  Result result;
  ASSERT_TRUE(detail::principal_pivot_small(diagonal, options, "block", result)) << result.message;
  EXPECT_EQ(result.method, Method::BlockPivoting);
  EXPECT_EQ(result.iterations, 0);
  for (Eigen::Index i = 0; i < n; ++i) EXPECT_DOUBLE_EQ(result.z[i], 1.0 / static_cast<double>(i + 1));
  // auto: M is diagonal, so one pgs sweep (z_i = −q_i/M_ii, each the same quotient) answers first.
  result = solve(diagonal, Method::Auto);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.method, Method::Pgs);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_EQ(result.message, "auto (pgs): ok");
  for (Eigen::Index i = 0; i < n; ++i) EXPECT_EQ(result.z[i], 1.0 / static_cast<double>(i + 1));
  // Murty's exponential example for Lemke (the matrix of lcp_exp_murty2, as written there): M lower
  // triangular, 1 on the diagonal and 2 below, q = −(126, 124, 120, 112, 96, 64). z = (126, 0, …)
  // gives w_0 = 0 and w_i = 252 + q_i > 0 for i >= 1; M is a P-matrix, so that is the only solution.
  // From α = every index, z_α alternates in sign, and the block flips need more than one vertex.
  Lcp murty{Eigen::MatrixXd::Zero(6, 6), Eigen::VectorXd(6)};
  for (Eigen::Index i = 0; i < 6; ++i) {
    murty.M(i, i) = 1.0;
    for (Eigen::Index j = 0; j < i; ++j) murty.M(i, j) = 2.0;
  }
  murty.q << -126, -124, -120, -112, -96, -64;
  result = Result{};
  ASSERT_TRUE(detail::principal_pivot_small(murty, options, "block", result)) << result.message;
  EXPECT_EQ(result.method, Method::BlockPivoting);
  EXPECT_GT(result.iterations, 0);
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(6);
  expected[0] = 126.0;
  EXPECT_LE((result.z - expected).cwiseAbs().maxCoeff(), 1e-12) << result.z.transpose();
  // auto: the sweep, row by row: z_0 = 126, then w_i = q_i + 2·126 > 0 and z_i = 0, exactly.
  result = solve(murty, Method::Auto);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.method, Method::Pgs);
  EXPECT_EQ(result.z, expected);
  EXPECT_EQ(result.w, murty.M * expected + murty.q);
  // M = [[1, 1], [1, 1]], q = −1 (lcp_CPS_1; its solutions are z_0 + z_1 = 1, z >= 0). auto at
  // n = 2 examines the bases in enum's order: α = ∅ gives w = q < 0; α = {0} gives z_0 = −q_0/M_00
  // = 1 and w_1 = −1 + 1·1 = 0: solved after two sets, z = (1, 0), w = (0, 0).
  const Lcp singular{Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Constant(2, -1.0)};
  result = solve(singular, Method::Auto);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.method, Method::Enum);
  EXPECT_EQ(result.message, detail::kAutoEnumerateSolved);
  EXPECT_EQ(result.iterations, 2);
  EXPECT_EQ(result.z, Eigen::Vector2d(1, 0));
  EXPECT_EQ(result.w, Eigen::Vector2d(0, 0));
  EXPECT_TRUE(result.history.empty());
  // The enum method itself, the same order: the same set and z.
  const Result enumerated = solve(singular, Method::Enum);
  ASSERT_TRUE(enumerated.solved()) << enumerated.message;
  EXPECT_EQ(enumerated.iterations, 2);
  EXPECT_EQ(enumerated.z, Eigen::Vector2d(1, 0));
  // The starting block of block pivoting, M_αα = M, is singular, so auto's block pivoting gives up
  // there, and Lemke's path on the stack tableau (auto's next try) solves. By hand: z0 enters at 1;
  // q ties, and the lexicographic rule (row 1's B⁻¹ row (0, 1) is below row 0's (1, 0)) takes w_1
  // out; z_1 enters, and z0's ratio 1/1 is the least, so z0 leaves at z_1 = 1: two pivots,
  // z = (0, 1), w = (0, 0).
  SolveOptions plain;
  Result pivoted;
  EXPECT_FALSE(detail::principal_pivot_small(singular, plain, detail::kAutoDirectSolved, pivoted));
  Result stacked;
  ASSERT_TRUE(detail::lemke_small(singular, plain, detail::kAutoStackLemkeSolved, stacked));
  EXPECT_EQ(stacked.method, Method::Lemke);
  EXPECT_EQ(stacked.message, "auto (lemke)");
  EXPECT_EQ(stacked.iterations, 2);
  EXPECT_EQ(stacked.z, Eigen::Vector2d(0, 1));
  EXPECT_EQ(stacked.w, Eigen::Vector2d(0, 0));
  // lemke.cpp's kernel takes the same path.
  const Result kernel = solve(singular, Method::Lemke);
  EXPECT_EQ(kernel.iterations, 2);
  EXPECT_EQ(kernel.z, Eigen::Vector2d(0, 1));
}

// auto's Lemke on the stack (lemke_small.cpp, lemke_small) answers only where its path ends with
// z0 leaving at a point that meets the tolerance, and leaves every other ending to lemke.cpp.
TEST(AutoLcp, StackLemkeAnswersOnlyWhereItsPathSolves) {
  SolveOptions options;
  Result result;
  // M = −I, q = −1: w = −z − 1 < 0 for every z >= 0, no solution; Lemke's path ends on a ray.
  const Lcp infeasible{-Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Constant(2, -1.0)};
  EXPECT_FALSE(detail::lemke_small(infeasible, options, "x", result));
  const Result kernel = solve(infeasible, Method::Lemke, options);
  EXPECT_EQ(kernel.status, Status::RayTermination) << kernel.message;
  EXPECT_THAT(kernel.message, HasSubstr("proves the LCP infeasible"));
  // lcp_CPS_4 takes 5 pivots: a limit of 4 ends it, as do a covering vector and a trace.
  const Lcp cps4 = read_siconos_lcp(std::filesystem::path(PERP_SICONOS_DATA_DIR) / "lcp_CPS_4.dat");
  ASSERT_TRUE(detail::lemke_small(cps4, options, "x", result));
  EXPECT_EQ(result.iterations, 5);
  EXPECT_EQ(result.history.size(), 5u);  // one natural residual a pivot
  EXPECT_EQ(result.history.back(), natural_residual(result.z, result.w));
  EXPECT_LE(testing_relative::relative(cps4, result.z), 1e-12);
  SolveOptions limited = options;
  limited.max_iterations = 4;
  EXPECT_FALSE(detail::lemke_small(cps4, limited, "x", result));
  SolveOptions covered = options;
  covered.lemke.covering_vector = Eigen::VectorXd::Ones(4);
  EXPECT_FALSE(detail::lemke_small(cps4, covered, "x", result));
  SolveOptions traced = options;
  traced.trace = [](const TraceEvent&) {};
  EXPECT_FALSE(detail::lemke_small(cps4, traced, "x", result));
  // Where it answers it agrees with lemke.cpp's kernel: the same pivots and z on random problems.
  std::mt19937_64 engine(7);
  int answered = 0;
  int kernel_solved = 0;
  for (Eigen::Index n = 1; n <= 16; ++n) {
    for (int k = 0; k < 10; ++k) {
      Lcp problem = uniform_lcp(engine, n);
      if (k % 2 == 0) problem.M.diagonal().array() += static_cast<double>(n) / 2.0;
      if (!(problem.q.minCoeff() < 0.0)) continue;
      Result stacked;
      const bool answers = detail::lemke_small(problem, options, "x", stacked);
      const Result full = solve_lemke(problem, options);
      const std::string what = "n = " + std::to_string(n) + ", k = " + std::to_string(k);
      if (full.solved()) ++kernel_solved;
      if (!answers) continue;
      ++answered;
      ASSERT_TRUE(full.solved()) << what << ": " << full.message;
      EXPECT_EQ(stacked.iterations, full.iterations) << what;
      EXPECT_LE((stacked.z - full.z).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + full.z.cwiseAbs().maxCoeff())) << what;
      EXPECT_LE(testing_relative::relative(problem, stacked.z), options.tolerance) << what;
      EXPECT_LE((stacked.w - (problem.M * stacked.z + problem.q)).cwiseAbs().maxCoeff(), 1e-13) << what;
    }
  }
  EXPECT_EQ(answered, kernel_solved);
}

// auto's sweep at n <= 16 (lemke_small.cpp, triangular_sweep_small) on a problem solved by hand, and
// the matrices it leaves to block pivoting.
TEST(AutoLcp, SmallSweepOnATriangularMatrix) {
  // M = [[2, 0], [1, 1]], q = (−2, −3): z_0 = 1, then w_1 = −3 + 1 + z_1 = 0 at z_1 = 2; w = 0.
  const Lcp lower{(Eigen::MatrixXd(2, 2) << 2, 0, 1, 1).finished(), Eigen::Vector2d(-2, -3)};
  SolveOptions options;
  options.record_history = true;
  std::vector<TraceEvent> events;
  Result result = solve(lower, Method::Auto, options);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.method, Method::Pgs);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_EQ(result.z, Eigen::Vector2d(1, 2));
  EXPECT_EQ(result.w, Eigen::Vector2d(0, 0));
  EXPECT_EQ(result.history, std::vector<double>{0.0});
  EXPECT_EQ(result.message, "auto (pgs): ok");
  // Traced (the pipeline's auto, the same kernel): pgs.cpp's events, the start point and the sweep.
  options.trace = [&events](const TraceEvent& event) { events.push_back(event); };
  result = solve(lower, Method::Auto, options);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.method, Method::Pgs);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_STREQ(events[1].method, "pgs");
  EXPECT_EQ(events[1].kind, TraceKind::Sweep);
  EXPECT_EQ(events[1].iteration, 1);
  EXPECT_EQ(events[1].entered, (std::vector<Eigen::Index>{0, 1}));
  EXPECT_EQ(events[0].residual, 3.0);  // z = 0: max |min(0, q_i)|
  // Its transpose, upper triangular: the sweep runs backward. z_1 = 3, then w_0 = −2 + 3 > 0, z_0 = 0.
  const Lcp upper{lower.M.transpose(), lower.q};
  result = solve(upper, Method::Auto);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.method, Method::Pgs);
  EXPECT_EQ(result.z, Eigen::Vector2d(0, 3));
  EXPECT_EQ(result.w, Eigen::Vector2d(1, 0));
  // Neither triangle zero, or a zero on the diagonal: block pivoting or lemke answer.
  const Lcp full{(Eigen::MatrixXd(2, 2) << 2, 1, 1, 1).finished(), lower.q};
  result = solve(full, Method::Auto);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_NE(result.method, Method::Pgs);
  const Lcp zero_diagonal{(Eigen::MatrixXd(2, 2) << 0, 0, 1, 1).finished(), Eigen::Vector2d(1, -3)};
  result = solve(zero_diagonal, Method::Auto);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_NE(result.method, Method::Pgs);
  EXPECT_LE(recomputed(zero_diagonal, result), 1e-12);
}

TEST(AutoLcp, NonSymmetricTakesTheClassifiedOrder) {
  Lcp problem = spd(60, 5);
  problem.M(0, 1) += 0.5;  // no longer symmetric, still positive definite enough for Lemke
  const Result result = solve(problem, Method::Auto);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LE(recomputed(problem, result), 1e-8);
  EXPECT_THAT(result.message, Not(HasSubstr("symmetric with a positive diagonal")));
}

TEST(AutoLcp, SingularStartingBlockGoesToPrincipalPivoting) {
  // M = I but for the singular leading block [[1, 1], [1, 1]], q = −1: the starting active set is
  // every index and its block has no Cholesky factor. By hand, w_0 = w_1 = z_0 + z_1 − 1 and
  // w_i = z_i − 1 for i >= 2, so the solutions are z_0 + z_1 = 1 (both >= 0) and z_i = 1.
  const Eigen::Index n = 50;
  Lcp problem{Eigen::MatrixXd::Identity(n, n), -Eigen::VectorXd::Ones(n)};
  problem.M(0, 1) = problem.M(1, 0) = 1.0;
  SolveOptions options;
  options.tolerance = 1e-10;
  const Result result = solve(problem, Method::Auto, options);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LE(recomputed(problem, result), 1e-10);
  EXPECT_NEAR(result.z[0] + result.z[1], 1.0, 1e-12);
  EXPECT_GE(std::min(result.z[0], result.z[1]), 0.0);
  EXPECT_LE((result.z.tail(n - 2).array() - 1.0).abs().maxCoeff(), 1e-12);
  EXPECT_THAT((result.attempt_order + result.message), HasSubstr("M_aa of 50 components has no Cholesky factor"));
  // n <= kAutoSettleMinSize: straight to principal pivoting, after the kAutoOrderSweeps PGS sweeps
  // that order its indices.
  EXPECT_THAT((result.attempt_order + result.message), HasSubstr("principal pivoting; dantzig, the indices positive after 4 pgs sweeps first: "
                                        "solved"));

  // Warm-started at a solution's own active set (every index), the singular block is solved by the
  // regularized Cholesky: one vertex, no principal pivoting. Its z_0 + z_1 = 1 still, z_i = 1.
  Eigen::VectorXd guess = Eigen::VectorXd::Ones(n);
  guess[0] = 0.3;
  guess[1] = 0.6;  // z_0 + z_1 = 0.9: near the solution set, not on it
  options.initial_guess = guess;
  const Result warm = solve(problem, Method::Auto, options);
  ASSERT_TRUE(warm.solved()) << warm.message;
  EXPECT_LE(recomputed(problem, warm), 1e-10);
  EXPECT_NEAR(warm.z[0] + warm.z[1], 1.0, 1e-12);
  EXPECT_GE(std::min(warm.z[0], warm.z[1]), 0.0);
  EXPECT_THAT((warm.attempt_order + warm.message), HasSubstr("block principal pivoting from the start: solved at vertex 1"));
  EXPECT_THAT((warm.attempt_order + warm.message), Not(HasSubstr("no Cholesky factor")));
}

// The events of one method in a solve's trace.
std::vector<TraceEvent> events_of(const Lcp& problem, SolveOptions options, const char* method, Result& result) {
  std::vector<TraceEvent> events;
  options.trace = [&events, method](const TraceEvent& event) {
    if (std::string(event.method) == method) events.push_back(event);
  };
  result = solve(problem, Method::Auto, options);
  return events;
}

TEST(AutoLcp, ContactLcpSolvedWithDantzigsW) {
  // Singular positive semidefinite (rank <= 3n/4): z is not unique, w is. For 200 < n <= 500 the
  // route is PGS until its active set holds, then projected Newton steps, and where those do not
  // solve within their budget, principal pivoting; either way the message says which.
  int by_newton = 0;
  for (const unsigned seed : {7u, 8u, 9u, 10u}) {
    const Lcp problem = contact(240, seed);
    Result result;
    ASSERT_NO_FATAL_FAILURE(solve_auto_checked(problem, result));
    EXPECT_THAT((result.attempt_order + result.message), HasSubstr("pgs and projected newton"));
    const bool newton = (result.attempt_order + result.message).find("projected newton: solved at step") != std::string::npos;
    by_newton += newton ? 1 : 0;
    if (newton) {
      EXPECT_THAT((result.attempt_order + result.message), Not(HasSubstr("dantzig")));
    } else {
      EXPECT_THAT((result.attempt_order + result.message), HasSubstr("principal pivoting; dantzig, the indices positive after"));
    }
    SolveOptions options;
    options.tolerance = 1e-10;
    const Result dantzig = solve(problem, Method::Dantzig, options);
    ASSERT_TRUE(dantzig.solved()) << dantzig.message;
    const Eigen::VectorXd w = problem.M * result.z + problem.q;
    const Eigen::VectorXd w_dantzig = problem.M * dantzig.z + problem.q;
    EXPECT_LE((w - w_dantzig).cwiseAbs().maxCoeff(), 1e-9 * (1 + problem.q.cwiseAbs().maxCoeff())) << seed;
  }
  EXPECT_GE(by_newton, 2);
}

TEST(AutoLcp, ProjectedNewtonCorrectsAWrongActiveSet) {
  // The first projected-Newton vertex from the PGS point is not the solution (PGS's active set is
  // wrong): a later step's free set differs from the first one's and its vertex is the solution.
  const Lcp problem = contact(240, 11);
  SolveOptions options;
  options.tolerance = 1e-10;
  Result result;
  const std::vector<TraceEvent> steps = events_of(problem, options, "projected-newton", result);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LE(recomputed(problem, result), 1e-10);
  ASSERT_GE(steps.size(), 2u) << result.message;
  const double scale = problem.q.cwiseAbs().maxCoeff();
  EXPECT_GT(*steps.front().residual, 1e-8 * scale);  // the first vertex: infeasible
  EXPECT_LE(*steps.back().residual, 1e-10 * scale);  // the last: the solution
  bool moved = false;
  for (std::size_t k = 1; k < steps.size(); ++k) moved = moved || !steps[k].entered.empty() || !steps[k].left.empty();
  EXPECT_TRUE(moved);
  EXPECT_THAT((result.attempt_order + result.message), HasSubstr("projected newton: solved"));
}

TEST(AutoLcp, SingularFreeSetSolvedByTheLeastNormStep) {
  // M = B Bᵀ with B n × r, r = n/2, columns scaled down over a decade so that PGS crawls, and
  // q = −M·1: z = 1 is a solution with w = 0, so w = 0 at every solution (w is unique on a
  // positive semidefinite M) and every solution has M z = M 1. The free sets hold more than r
  // rows, so M_FF has no Cholesky factor and the step is the regularized one.
  const Eigen::Index n = 240, r = 120;
  std::mt19937_64 engine(3);
  Eigen::MatrixXd B(n, r);
  for (double& x : B.reshaped()) x = uniform(engine, -1, 1);
  for (Eigen::Index j = 0; j < r; ++j)
    B.col(j) *= std::pow(10.0, -static_cast<double>(j) / static_cast<double>(r));
  Lcp problem{B * B.transpose(), Eigen::VectorXd()};
  problem.M = (0.5 * (problem.M + problem.M.transpose())).eval();
  problem.q = -(problem.M * Eigen::VectorXd::Ones(n));
  SolveOptions options;
  options.tolerance = 1e-10;
  Result result;
  const std::vector<TraceEvent> steps = events_of(problem, options, "projected-newton", result);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LE(recomputed(problem, result), 1e-10);
  EXPECT_GE(result.z.minCoeff(), 0.0);
  EXPECT_LE((problem.M * result.z + problem.q).cwiseAbs().maxCoeff(), 1e-9 * problem.q.cwiseAbs().maxCoeff());
  EXPECT_THAT((result.attempt_order + result.message), HasSubstr("projected newton: solved"));
  EXPECT_THAT((result.attempt_order + result.message), HasSubstr("M_FF singular: the least-norm step"));
  ASSERT_FALSE(steps.empty());
  EXPECT_GT(*steps.back().active_size, r);  // more free rows than M's rank
}

TEST(AutoLcp, NoSolutionIsNotReportedSolved) {
  // M symmetric with a positive diagonal (the measured route) but no solution: the leading block
  // [[1, −2], [−2, 1]] with q = (−1, −1) needs z_0 >= 1 + 2 z_1 and z_1 >= 1 + 2 z_0 >= 3 + 4 z_1.
  const Eigen::Index n = 50;
  Lcp problem{Eigen::MatrixXd::Identity(n, n), Eigen::VectorXd::Ones(n)};
  problem.M(0, 1) = problem.M(1, 0) = -2.0;
  problem.q[0] = problem.q[1] = -1.0;
  const Result result = solve(problem, Method::Auto);
  EXPECT_FALSE(result.solved()) << result.message;
  EXPECT_GT(recomputed(problem, result), 1e-8);
}

TEST(SemidefiniteSolver, SingularConsistentSystemSolvedNearTheLeastNormSolution) {
  std::mt19937_64 engine(11);
  Eigen::MatrixXd B(8, 3);
  for (double& x : B.reshaped()) x = uniform(engine, -1, 1);
  const Eigen::MatrixXd A = B * B.transpose();  // rank 3
  Eigen::VectorXd x0(8);
  for (double& x : x0) x = uniform(engine, -1, 1);
  const Eigen::VectorXd b = A * x0;
  detail::SemidefiniteSolver solver;
  ASSERT_TRUE(solver.compute(A));
  EXPECT_TRUE(solver.regularized());
  Eigen::VectorXd x;
  solver.solve(A, b, x);
  EXPECT_LE((A * x - b).cwiseAbs().maxCoeff(), 1e-10 * b.cwiseAbs().maxCoeff());
  // The least-norm solution is the projection of x0 on the range of A (= range of B). The shift
  // ε = 1e-11·max A_ii leaves round-off (1e-16) in the null space amplified by up to 1/ε·max A_ii.
  const Eigen::VectorXd least = B * (B.transpose() * B).ldlt().solve(B.transpose() * x0);
  EXPECT_LE((x - least).cwiseAbs().maxCoeff(), 1e-4);
  EXPECT_LE(x.norm(), x0.norm());
}

TEST(SemidefiniteSolver, PositiveDefiniteIsPlainCholeskyAndIndefiniteIsRefused) {
  Eigen::MatrixXd A(2, 2);
  A << 4, 1, 1, 3;
  detail::SemidefiniteSolver solver;
  ASSERT_TRUE(solver.compute(A));
  EXPECT_FALSE(solver.regularized());
  Eigen::VectorXd x;
  solver.solve(A, Eigen::Vector2d(1, 2), x);
  EXPECT_NEAR(x[0], 1.0 / 11.0, 1e-15);  // (3·1 − 1·2)/11
  EXPECT_NEAR(x[1], 7.0 / 11.0, 1e-15);  // (4·2 − 1·1)/11
  Eigen::MatrixXd indefinite(2, 2);
  indefinite << 1, 0, 0, -1;
  detail::SemidefiniteSolver other;
  EXPECT_FALSE(other.compute(indefinite));
}

TEST(NewtonOnSingularPsd, ContactLcpSolvedByNewtonMinAndInteriorPoint) {
  const Lcp problem = contact(120, 3);
  SolveOptions options;
  options.tolerance = 1e-10;
  for (const Method method : {Method::NewtonMin, Method::NewtonFb, Method::InteriorPoint}) {
    const Result result = solve(problem, method, options);
    EXPECT_TRUE(result.solved()) << to_string(method) << ": " << result.message;
    EXPECT_LE(recomputed(problem, result), 1e-10) << to_string(method);
  }
}

// The lean route of small solves (solve.cpp, issue 19) against the full pipeline: lemke and auto on
// n <= 16 without a trace take the lean route; a trace (here one that only counts) sends the same
// call through the pipeline (the lean route skips traced solves), which runs the same kernels (for
// auto block principal pivoting on the stack, then Lemke) and then, where they fail, auto's
// classified order. Both must agree on the status, the method,
// the pivots and z, and each claim is checked on the relative residual recomputed here.
int lemke_stacked = 0;  // lean solves answered by auto's stack Lemke, over the tests of this file
int enumerated = 0;     // and by its bases one by one (n <= 2)

void expect_lean_route_as_pipeline(const Lcp& problem, const std::string& name, int& pivoted, int& swept) {
  for (const Method method : {Method::Lemke, Method::Auto}) {
    SolveOptions options;
    options.tolerance = 1e-10;
    const Result lean = solve(problem, method, options);
    int events = 0;
    options.trace = [&events](const TraceEvent&) { ++events; };
    const Result full = solve(problem, method, options);
    const std::string what = name + ", " + to_string(method) + ": " + lean.message + " | " + full.message;
    EXPECT_EQ(lean.status, full.status) << what;
    EXPECT_EQ(lean.method, full.method) << what;
    EXPECT_EQ(lean.iterations, full.iterations) << what;
    // auto's stack Lemke (lemke_small.cpp) does not trace, so the traced call runs lemke.cpp's
    // kernel where it answers: the same rules, so the same pivots and z, under that kernel's message.
    const bool stacked = lean.message == "auto (lemke)";
    if (stacked) {
      EXPECT_EQ(full.message, detail::kAutoDirectThenLemkeSolved) << what;
      ++lemke_stacked;
    } else {
      EXPECT_EQ(lean.message, full.message) << what;
    }
    ASSERT_EQ(lean.z.size(), problem.size()) << what;
    const double size = 1.0 + full.z.cwiseAbs().maxCoeff();
    EXPECT_LE((lean.z - full.z).cwiseAbs().maxCoeff(), 1e-12 * size) << what;
    EXPECT_LE((lean.w - (problem.M * lean.z + problem.q)).cwiseAbs().maxCoeff(),
              1e-12 * (1.0 + problem.q.cwiseAbs().maxCoeff() + problem.M.cwiseAbs().maxCoeff() * size))
        << what;
    const long double relative = testing_relative::relative(problem, lean.z);
    EXPECT_EQ(lean.solved(), lean.relative_residual <= options.tolerance) << what;
    // The lean route's own relative residual (lemke_small.cpp) is core's, bit for bit.
    EXPECT_EQ(lean.relative_residual, relative_residual(problem, lean.z, lean.w)) << what;
    EXPECT_EQ(full.relative_residual, relative_residual(problem, full.z, full.w)) << what;
    if (lean.solved()) {
      EXPECT_LE(relative, options.tolerance) << what;
      EXPECT_GE(lean.z.minCoeff(), 0.0) << what;
    }
    const bool block = full.message == "auto (bpp): ok";
    const bool sweep = full.message == "auto (pgs): ok";
    if ((full.iterations > 0 && full.method == Method::Lemke) || block || sweep) {
      EXPECT_GT(events, 0) << what;  // auto's block pivoting and sweep trace their starting point too
    }
    if (block) {
      ++pivoted;
      // The stack kernel is the method's algorithm from the same start with the same exchange rule
      // (block_pivoting.hpp): where it answers, the method takes as many rounds to the same z.
      EXPECT_EQ(full.method, Method::BlockPivoting) << what;
      SolveOptions plain;
      plain.tolerance = options.tolerance;
      const Result method_run = solve(problem, Method::BlockPivoting, plain);
      EXPECT_TRUE(method_run.solved()) << what << " | " << method_run.message;
      EXPECT_EQ(method_run.iterations, full.iterations) << what << " | " << method_run.message;
      EXPECT_LE((method_run.z - full.z).cwiseAbs().maxCoeff(), 1e-9 * size) << what;
    }
    if (lean.message == detail::kAutoEnumerateSolved) {
      ++enumerated;
      // enum's order, so enum's first solution: the same z (the same set's system, solved the same
      // way up to the last bit at n <= 2) and as many sets examined.
      EXPECT_EQ(full.method, Method::Enum) << what;
      const Result method_run = solve(problem, Method::Enum, SolveOptions{});
      EXPECT_TRUE(method_run.solved()) << what << " | " << method_run.message;
      EXPECT_EQ(method_run.iterations, full.iterations) << what << " | " << method_run.message;
      EXPECT_LE((method_run.z - full.z).cwiseAbs().maxCoeff(), 1e-12 * size) << what;
    }
    if (sweep) {
      ++swept;
      EXPECT_EQ(full.method, Method::Pgs) << what;
      EXPECT_EQ(full.iterations, 1) << what;
    }
  }
}

TEST(SmallSolves, LeanRouteAsThePipelineOnTheSiconosFiles) {
  const int stacked_before = lemke_stacked;
  const int enumerated_before = enumerated;
  int files = 0;
  int pivoted = 0;
  int swept = 0;
  for (const auto& entry : std::filesystem::directory_iterator(PERP_SICONOS_DATA_DIR)) {
    const Lcp problem = read_siconos_lcp(entry.path());
    if (problem.size() > 16) continue;
    ++files;
    expect_lean_route_as_pipeline(problem, entry.path().filename().string(), pivoted, swept);
  }
  EXPECT_EQ(files, 18);  // the 20 files less lcp_mmc (n = 26) and lcp_tobenna (n = 40)
  EXPECT_GT(pivoted, 0);  // auto's block pivoting answered on some files
  // and its stack Lemke on the five of n >= 3 whose first block is singular (CPS_2, CPS_4, CPS_4bis,
  // Pang_isolated_sol, inf_sol_perturbed), the bases one by one on the four of n = 2 (CPS_1, CPS_5,
  // deudeu, deudeu_block)
  EXPECT_EQ(lemke_stacked - stacked_before, 5);
  EXPECT_EQ(enumerated - enumerated_before, 4);
  EXPECT_EQ(swept, 4);  // and its sweep on the triangular ones (trivial, trivial_block, exp_murty, exp_murty2)
}

TEST(SmallSolves, LeanRouteAsThePipelineOnRandomProblems) {
  std::mt19937_64 engine(19);
  int lemke_failed = 0;
  int pivoted = 0;
  int swept = 0;
  int triangular = 0;
  for (Eigen::Index n = 1; n <= 16; ++n) {
    for (int k = 0; k < 12; ++k) {
      Lcp problem = uniform_lcp(engine, n);
      if (k % 3 == 0) problem = spd(n, static_cast<unsigned>(100 * n + k));          // positive definite
      if (k % 3 == 1) problem.M.diagonal().array() += static_cast<double>(n) / 2.0;  // often a P-matrix
      // k % 3 == 2: a general M, on which Lemke may end on a ray and auto try the classified order
      const Result lemke = solve(problem, Method::Lemke);
      if (!lemke.solved()) ++lemke_failed;
      const int before = pivoted;
      const bool lower = (problem.M.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().isZero(0.0) ||
                          problem.M.triangularView<Eigen::StrictlyLower>().toDenseMatrix().isZero(0.0)) &&
                         problem.M.diagonal().minCoeff() > 0.0 && problem.q.minCoeff() < 0.0;
      if (lower) ++triangular;
      expect_lean_route_as_pipeline(problem, "n = " + std::to_string(n) + ", k = " + std::to_string(k), pivoted,
                                    swept);
      if (pivoted > before && lemke.solved() && k % 3 == 0) {  // positive definite: one solution
        EXPECT_LE((solve(problem, Method::Auto).z - lemke.z).cwiseAbs().maxCoeff(),
                  1e-9 * (1 + lemke.z.cwiseAbs().maxCoeff()))
            << "n = " << n << ", k = " << k;
      }
    }
  }
  EXPECT_GT(lemke_failed, 0);  // the fallback to the pipeline was exercised
  EXPECT_GT(pivoted, 0);       // and auto's block pivoting
  EXPECT_EQ(swept, triangular);  // only where M is triangular with a positive diagonal (n = 1)
  // Triangular M with a positive diagonal (P-matrices: one solution), lower for even k, upper for
  // odd: auto's sweep answers, with Lemke's z.
  for (Eigen::Index n = 1; n <= 16; ++n) {
    for (int k = 0; k < 4; ++k) {
      Lcp problem{Eigen::MatrixXd::Zero(n, n), Eigen::VectorXd(n)};
      for (Eigen::Index i = 0; i < n; ++i) {
        problem.M(i, i) = uniform(engine, 0.5, 2);
        for (Eigen::Index j = 0; j < i; ++j) (k % 2 == 0 ? problem.M(i, j) : problem.M(j, i)) = uniform(engine, -1, 1);
        problem.q[i] = uniform(engine, -1, 1);
      }
      if (!(problem.q.minCoeff() < 0.0)) continue;
      const std::string name = "triangular, n = " + std::to_string(n) + ", k = " + std::to_string(k);
      const int before = swept;
      expect_lean_route_as_pipeline(problem, name, pivoted, swept);
      EXPECT_EQ(swept, before + 1) << name;
      const Result lemke = solve(problem, Method::Lemke);
      ASSERT_TRUE(lemke.solved()) << name << ": " << lemke.message;
      EXPECT_LE((solve(problem, Method::Auto).z - lemke.z).cwiseAbs().maxCoeff(),
                1e-9 * (1 + lemke.z.cwiseAbs().maxCoeff()))
          << name;
    }
  }
}

// Every field of `actual` as `expected`'s but the time.
void expect_same_but_time(const Result& actual, const Result& expected, const std::string& what) {
  EXPECT_EQ(actual.status, expected.status) << what;
  EXPECT_EQ(actual.method, expected.method) << what;
  EXPECT_EQ(actual.iterations, expected.iterations) << what;
  EXPECT_EQ(actual.z, expected.z) << what;
  EXPECT_EQ(actual.w, expected.w) << what;
  EXPECT_EQ(actual.residual, expected.residual) << what;
  EXPECT_EQ(actual.relative_residual, expected.relative_residual) << what;
  EXPECT_EQ(actual.history, expected.history) << what;
  EXPECT_EQ(actual.message, expected.message) << what;
  EXPECT_EQ(actual.ray.has_value(), expected.ray.has_value()) << what;
  EXPECT_EQ(actual.solutions.size(), expected.solutions.size()) << what;
}

// SolveOptions::measure_time off: no clock, time_ms 0 (also over a reused Result's earlier value),
// every other field as the timed solve's, on each of auto's small routes and through the pipeline
// (n = 60, and a traced call, which the small route leaves to it).
TEST(SmallSolves, WithoutTheClockTimeIsZeroAndTheRestTheSame) {
  const Lcp singular{Eigen::MatrixXd::Ones(3, 3), Eigen::VectorXd::Constant(3, -1.0)};  // stack Lemke
  const Lcp two{Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Constant(2, -1.0)};       // the bases
  Lcp lower = spd(6, 4);
  lower.M = lower.M.triangularView<Eigen::Lower>().toDenseMatrix();  // the sweep
  const std::vector<Lcp> problems = {spd(5, 1), singular, two, lower, spd(60, 3)};
  for (const bool traced : {false, true}) {
    for (std::size_t k = 0; k < problems.size(); ++k) {
      for (const Method method : {Method::Auto, Method::Lemke}) {
        const std::string what = "problem " + std::to_string(k) + ", " + to_string(method) + (traced ? ", traced" : "");
        SolveOptions options;
        if (traced) options.trace = [](const TraceEvent&) {};
        const Result timed = solve(problems[k], method, options);
        options.measure_time = false;
        Result untimed;
        untimed.time_ms = 5.0;  // a reused Result's earlier value
        solve(problems[k], method, options, untimed);
        ASSERT_TRUE(timed.solved()) << what << ": " << timed.message;
        EXPECT_GE(timed.time_ms, 0.0) << what;
        EXPECT_EQ(untimed.time_ms, 0.0) << what;
        expect_same_but_time(untimed, timed, what);
        EXPECT_EQ(solve(problems[k], method, options).time_ms, 0.0) << what;  // by value too
      }
    }
  }
}

// solve(problem, method, options, result) into a reused Result gives what solve(problem, method,
// options) returns, field by field, whatever the Result held before: the lean route's in-place
// writes (auto at n <= 16) and the pipeline's whole assignment alike; a ray or solutions left
// from an earlier solve do not survive.
TEST(SmallSolves, IntoAReusedResultAsByValue) {
  const Lcp ray_problem{-Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Constant(2, -1.0)};  // no solution
  const Lcp singular{Eigen::MatrixXd::Ones(3, 3), Eigen::VectorXd::Constant(3, -1.0)};          // stack Lemke
  Lcp lower = spd(6, 4);
  lower.M = lower.M.triangularView<Eigen::Lower>().toDenseMatrix();  // the sweep
  const std::vector<Lcp> problems = {spd(5, 1), ray_problem, singular, spd(5, 2), lower, spd(60, 3), singular};
  for (const bool history : {false, true}) {
    SolveOptions options;
    options.record_history = history;
    Result reused;
    for (std::size_t k = 0; k < problems.size(); ++k) {
      for (const Method method : {Method::Auto, Method::Lemke}) {
        const std::string what = "problem " + std::to_string(k) + ", " + to_string(method);
        const Result expected = solve(problems[k], method, options);
        solve(problems[k], method, options, reused);
        expect_same_but_time(reused, expected, what);
      }
    }
    // The problem without a solution left a ray in `reused`; the next (lean) solve clears it.
    solve(ray_problem, Method::Lemke, options, reused);
    ASSERT_TRUE(reused.ray.has_value()) << reused.message;
    solve(singular, Method::Auto, options, reused);
    EXPECT_TRUE(reused.solved());
    EXPECT_EQ(reused.message, "auto (lemke)");
    EXPECT_FALSE(reused.ray.has_value());
  }
}

TEST(SolveMany, InputOrderSameAsSingleSolvesAndOneFailureDoesNotStopTheRest) {
  std::vector<Lcp> problems;
  for (unsigned k = 0; k < 12; ++k) problems.push_back(spd(20, 100 + k));
  problems[5] = Lcp{Eigen::MatrixXd::Ones(2, 3), Eigen::VectorXd::Ones(2)};  // not square
  problems[8].q[0] = std::numeric_limits<double>::quiet_NaN();
  for (const unsigned threads : {1u, 2u, 4u}) {
    const std::vector<BatchResult> results = solve_many(problems, Method::Lemke, {}, threads);
    ASSERT_EQ(results.size(), problems.size());
    for (std::size_t i = 0; i < problems.size(); ++i) {
      if (i == 5 || i == 8) {
        EXPECT_FALSE(results[i].ok()) << i;
        EXPECT_FALSE(results[i].error.empty());
        continue;
      }
      ASSERT_TRUE(results[i].ok()) << results[i].error;
      const Result single = solve(problems[i], Method::Lemke);
      EXPECT_EQ(results[i].result.z, single.z) << "problem " << i << ", threads " << threads;
      EXPECT_TRUE(results[i].result.solved());
    }
    EXPECT_THAT(results[5].error, HasSubstr("M"));
    EXPECT_THAT(results[8].error, HasSubstr("q"));
  }
  EXPECT_TRUE(solve_many(std::vector<Lcp>{}).empty());
}

TEST(SolveMany, AnInterruptBetweenProblemsLeavesTheRestUnsolvedAndSaysSo) {
  // 2 000 small problems, each far shorter than the hook's polling period: the hook answers true
  // from its first call on, so at most the problems already running finish, and every other one is
  // `interrupted` with z empty. With a hook that never fires, every problem is solved.
  std::vector<Lcp> problems;
  for (unsigned k = 0; k < 2000; ++k) problems.push_back(spd(8, 500 + k));
  for (const unsigned threads : {1u, 2u}) {
    SolveOptions options;
    options.interrupt = [] { return true; };
    const std::vector<BatchResult> results = solve_many(problems, Method::Lemke, options, threads);
    ASSERT_EQ(results.size(), problems.size());
    std::size_t interrupted = 0;
    for (const BatchResult& item : results) {
      EXPECT_TRUE(item.ok()) << item.error;
      if (item.result.status == Status::Interrupted) {
        ++interrupted;
        if (item.result.z.size() == 0) {
          EXPECT_THAT(item.result.message, HasSubstr("batch was interrupted"));
        }
      } else {
        EXPECT_TRUE(item.result.solved());
      }
    }
    EXPECT_GE(interrupted, problems.size() - threads) << "threads " << threads;
    options.interrupt = [] { return false; };
    for (const BatchResult& item : solve_many(problems, Method::Lemke, options, threads)) {
      EXPECT_TRUE(item.result.solved());
    }
  }
}

TEST(SolveMany, InvalidOptionsFailEveryItemWithoutThrowing) {
  std::vector<Lcp> problems{spd(5, 1), spd(5, 2)};
  SolveOptions options;
  options.tolerance = -1;
  const std::vector<BatchResult> results = solve_many(problems, Method::Auto, options, 2);
  ASSERT_EQ(results.size(), 2u);
  for (const BatchResult& item : results) EXPECT_THAT(item.error, HasSubstr("tolerance"));
}

}  // namespace
}  // namespace perp::solvers_auto_lcp_test
