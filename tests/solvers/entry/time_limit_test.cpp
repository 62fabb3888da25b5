// SolveOptions::time_limit and SolveOptions::interrupt (issue 38, "every loop ends"): a run that
// reaches either ends within a bound with the status that says so, for each family of methods
// (pivoting, splitting, Newton, interior point, path, frictional, auto); enum --all's limits.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::entry_time_limit_test {
namespace {

using testing::HasSubstr;
using Clock = std::chrono::steady_clock;

// The 1-D Laplacian tridiag(−1, 2, −1) of size n with q = −1: symmetric positive definite with
// condition number about 4n²/π², so pgs needs many thousands of sweeps at n = 300, and a tolerance
// of 1e-300 is met by no floating-point point: an iteration only a limit can end.
Lcp laplacian(Eigen::Index n) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    M(i, i) = 2;
    if (i > 0) M(i, i - 1) = M(i - 1, i) = -1;
  }
  return Lcp{M, Eigen::VectorXd::Constant(n, -1.0)};
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

TEST(TimeLimit, ValidatedAsPositiveSeconds) {
  const Lcp problem = laplacian(3);
  for (const double bad : {0.0, -1.0, std::numeric_limits<double>::quiet_NaN()}) {
    SolveOptions options;
    options.time_limit = bad;
    try {
      (void)solve(problem, Method::Pgs, options);
      FAIL() << "expected InvalidProblem for time_limit " << bad;
    } catch (const InvalidProblem& error) {
      EXPECT_THAT(error.what(), HasSubstr("time_limit must be > 0"));
    }
  }
  SolveOptions options;
  options.max_solutions = -1;
  EXPECT_THROW((void)solve(problem, Method::Enum, options), InvalidProblem);
}

// pgs at a tolerance it cannot meet and an iteration limit of 2^31 − 1 sweeps (days): the limit of
// 0.2 s ends it within 0.2 s plus one sweep (well under a millisecond at n = 300); the bound below
// leaves room for a loaded machine.
TEST(TimeLimit, EndsALongPgsRun) {
  SolveOptions options;
  options.tolerance = 1e-300;
  options.max_iterations = std::numeric_limits<int>::max();
  options.time_limit = 0.2;
  const auto start = Clock::now();
  const Result result = solve(laplacian(300), Method::Pgs, options);
  const double elapsed = seconds_since(start);
  EXPECT_EQ(result.status, Status::TimeLimit) << result.message;
  EXPECT_GE(elapsed, 0.2);
  EXPECT_LT(elapsed, 1.5);
  EXPECT_GT(result.iterations, 10);
  EXPECT_THAT(result.message, HasSubstr("time limit of 0.2 s reached after"));
  EXPECT_EQ(result.z.size(), 300);
  EXPECT_TRUE(result.z.allFinite());
}

// A limit shorter than one iteration: every family stops at its first check, with its status.
// (1 ns has passed by the time the first pivot, sweep or step is done.)
TEST(TimeLimit, EveryFamilyStopsAtItsFirstCheck) {
  const Lcp problem = laplacian(200);
  for (const Method method : {Method::Lemke, Method::Murty, Method::Pgs, Method::Psor, Method::NewtonFb,
                              Method::NewtonMin, Method::Smoothing, Method::InteriorPoint, Method::Path,
                              Method::Dantzig}) {
    SolveOptions options;
    options.tolerance = 1e-300;
    options.time_limit = 1e-9;
    const auto start = Clock::now();
    const Result result = solve(problem, method, options);
    EXPECT_EQ(result.status, Status::TimeLimit) << to_string(method) << ": " << result.message;
    EXPECT_LT(seconds_since(start), 1.0) << to_string(method);
    EXPECT_THAT(result.message, HasSubstr("time limit")) << to_string(method);
  }
}

// auto's chain: every method of it fails at tolerance 1e-300, so without the limit it runs each in
// turn (pgs alone 10 000 sweeps); with 0.1 s it ends within a bound, time-limit, no later method run.
TEST(TimeLimit, EndsAutosChain) {
  SolveOptions options;
  options.tolerance = 1e-300;
  options.time_limit = 0.1;
  const auto start = Clock::now();
  const Result result = solve(laplacian(300), Method::Auto, options);
  const double elapsed = seconds_since(start);
  EXPECT_EQ(result.status, Status::TimeLimit) << result.message;
  EXPECT_LT(elapsed, 1.5);
}

// The interrupt hook: polled at most every kInterruptPollMs; true ends the run `interrupted`.
TEST(Interrupt, EndsARunWhenTheHookSaysSo) {
  int calls = 0;
  SolveOptions options;
  options.tolerance = 1e-300;
  options.max_iterations = std::numeric_limits<int>::max();
  options.interrupt = [&calls] { return ++calls >= 3; };
  const auto start = Clock::now();
  const Result result = solve(laplacian(300), Method::Pgs, options);
  const double elapsed = seconds_since(start);
  EXPECT_EQ(result.status, Status::Interrupted) << result.message;
  EXPECT_EQ(calls, 3);
  // Three polls, two periods apart at least; far less than the run without the hook.
  EXPECT_GE(elapsed, 2 * kInterruptPollMs / 1000.0);
  EXPECT_LT(elapsed, 1.5);
  EXPECT_THAT(result.message, HasSubstr("interrupted after"));
}

TEST(Interrupt, StopsAutosChainAndIsNotCalledWithoutNeed) {
  int calls = 0;
  SolveOptions options;
  options.interrupt = [&calls] {
    ++calls;
    return true;
  };
  options.tolerance = 1e-300;
  const Result result = solve(laplacian(300), Method::Auto, options);
  EXPECT_EQ(result.status, Status::Interrupted) << result.message;
  EXPECT_GE(calls, 1);
  // A problem solved at once (q >= 0) reaches no poll.
  calls = 0;
  SolveOptions quick;
  quick.interrupt = [&calls] {
    ++calls;
    return true;
  };
  const Result trivial = solve(Lcp{Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Ones(2)}, Method::Pgs, quick);
  EXPECT_TRUE(trivial.solved());
}

// A frictional contact problem of one contact (W = I, q = (−1, 0.5), μ = 0.5; r = 0 does not solve:
// q_N < 0): nsgs, prox, newton-ac, admm and auto stop at their first check.
TEST(TimeLimit, FrictionalMethodsStop) {
  const FrictionContact problem = friction_contact_from_dense(2, Eigen::MatrixXd::Identity(2, 2),
                                                              Eigen::Vector2d(-1, 0.5), Eigen::VectorXd::Constant(1, 0.5));
  for (const Method method : {Method::Nsgs, Method::Prox, Method::NewtonAc, Method::Admm, Method::Auto}) {
    SolveOptions options;
    options.time_limit = 1e-9;
    const auto start = Clock::now();
    const Result result = solve(problem, method, options);
    EXPECT_EQ(result.status, Status::TimeLimit) << to_string(method) << ": " << result.message;
    EXPECT_LT(seconds_since(start), 1.0);
  }
  // Without the limit the same problem solves: r = (1, −0.5) (sticking: |r_T| = 0.5 <= μ r_N).
  const Result solved = solve(problem, Method::Nsgs, SolveOptions{});
  EXPECT_TRUE(solved.solved()) << solved.message;
  EXPECT_NEAR(solved.z[0], 1.0, 1e-8);
  EXPECT_NEAR(solved.z[1], -0.5, 1e-8);
}

// A long frictional run: W = the Laplacian + I (n = 300: 150 planar contacts, μ = 0.3), q = −1, at a
// tolerance no point meets: nsgs with 2^31 − 1 sweeps, admm as many iterations, and auto's whole
// chain, each end at 0.2 s.
TEST(TimeLimit, EndsALongFrictionalRun) {
  const Lcp shape = laplacian(300);
  const FrictionContact problem = friction_contact_from_dense(
      2, shape.M + Eigen::MatrixXd::Identity(300, 300), shape.q, Eigen::VectorXd::Constant(150, 0.3));
  for (const Method method : {Method::Nsgs, Method::Admm, Method::Auto}) {
    SolveOptions options;
    options.tolerance = 1e-300;
    options.max_iterations = std::numeric_limits<int>::max();
    options.time_limit = 0.2;
    const auto start = Clock::now();
    const Result result = solve(problem, method, options);
    const double elapsed = seconds_since(start);
    EXPECT_EQ(result.status, Status::TimeLimit) << to_string(method) << ": " << result.message;
    EXPECT_GE(elapsed, 0.2) << to_string(method);
    EXPECT_LT(elapsed, 1.5) << to_string(method);
    EXPECT_TRUE(result.z.allFinite());
  }
}

// enum --all on M = ones(n, n), q = −1: the solutions are e_1, …, e_n (z_i = 1 alone gives
// w = 1 − 1 = 0; two or more positive components make M_αα singular), so n distinct ones.
TEST(EnumLimits, MaxSolutionsStopsTheListAndSaysMoreMayExist) {
  const Eigen::Index n = 10;
  const Lcp problem{Eigen::MatrixXd::Ones(n, n), Eigen::VectorXd::Constant(n, -1.0)};
  SolveOptions options;
  options.all_solutions = true;
  const Result all = solve(problem, Method::Enum, options);
  ASSERT_TRUE(all.solved()) << all.message;
  EXPECT_EQ(all.solutions.size(), static_cast<std::size_t>(n));
  EXPECT_THAT(all.message, testing::Not(HasSubstr("more may exist")));
  options.max_solutions = 3;
  const Result some = solve(problem, Method::Enum, options);
  ASSERT_TRUE(some.solved()) << some.message;
  ASSERT_EQ(some.solutions.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(some.solutions[k], Eigen::VectorXd::Unit(n, static_cast<Eigen::Index>(k)));
  }
  EXPECT_THAT(some.message, HasSubstr("stopped at max_solutions = 3 with 3 distinct solutions"));
  EXPECT_THAT(some.message, HasSubstr("more may exist"));
}

// enum --all at n = 22 (2^22 = 4.2 million active sets, about ten seconds) with a limit of 0.2 s:
// it stops with the solutions found so far, solved, and says so.
TEST(EnumLimits, TimeLimitStopsTheListWithTheSolutionsFound) {
  const Eigen::Index n = 22;
  const Lcp problem{Eigen::MatrixXd::Ones(n, n), Eigen::VectorXd::Constant(n, -1.0)};
  SolveOptions options;
  options.all_solutions = true;
  options.max_iterations = 1 << 23;
  options.time_limit = 0.2;
  const auto start = Clock::now();
  const Result result = solve(problem, Method::Enum, options);
  EXPECT_LT(seconds_since(start), 1.5);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.solutions.size(), static_cast<std::size_t>(n));  // the sets of size 1 come first
  EXPECT_THAT(result.message, HasSubstr("stopped after 0.2 s (time_limit)"));
  EXPECT_THAT(result.message, HasSubstr("more may exist"));
}

}  // namespace
}  // namespace perp::entry_time_limit_test
