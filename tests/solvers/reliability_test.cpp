// Regression tests of issue 15's crash and resource classes: subnormal data through every method
// and problem form, the enum and classify budgets, the bounded history.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <string>

#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/box_lcp.hpp"
#include "perp/solvers/enumeration.hpp"
#include "perp/solvers/mlcp.hpp"
#include "perp/solvers/qp.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {
namespace {

constexpr double kTiny = 1e-310;  // subnormal: below the smallest normal double 2.2e-308

// ‖min(z, Mz + q)‖∞ by plain loops, not the library's residual code.
double independent_residual(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z) {
  double worst = 0;
  for (Eigen::Index i = 0; i < q.size(); ++i) {
    double w = q[i];
    for (Eigen::Index j = 0; j < q.size(); ++j) w += M(i, j) * z[j];
    worst = std::max(worst, std::abs(std::min(z[i], w)));
  }
  return worst;
}

TEST(Subnormal, LemkeSolvesTheOneByOneExactly) {
  // M = [1e-310], q = [−1e-310]: w = 1e-310 (z − 1) = 0 at z = 1. 1 / max|data| overflows, the
  // power-of-two scale 2^1030 does not (it is applied with ldexp, exactly).
  const Lcp problem{Eigen::MatrixXd::Constant(1, 1, kTiny), Eigen::VectorXd::Constant(1, -kTiny)};
  for (const Method method : {Method::Lemke, Method::Auto}) {
    const Result r = solve(problem, method);
    ASSERT_EQ(r.status, Status::Solved) << to_string(method) << ": " << r.message;
    EXPECT_DOUBLE_EQ(r.z[0], 1.0) << to_string(method);
  }
}

TEST(Subnormal, LemkeFollowsTheSamePathAsTheUnscaledProblem) {
  // (tM, tq) has the solutions of (M, q) for t > 0: M = [[2, 1], [1, 2]], q = (−5, −6) gives
  // z = (4/3, 7/3) (2z1 + z2 = 5, z1 + 2z2 = 6), also at t = 1e-310.
  Eigen::MatrixXd M(2, 2);
  M << 2, 1, 1, 2;
  const Eigen::Vector2d q(-5, -6);
  const Result r = solve(Lcp{kTiny * M, kTiny * q}, Method::Lemke);
  ASSERT_EQ(r.status, Status::Solved) << r.message;
  EXPECT_NEAR(r.z[0], 4.0 / 3.0, 1e-6);  // subnormal data carry fewer significant bits
  EXPECT_NEAR(r.z[1], 7.0 / 3.0, 1e-6);
}

TEST(Subnormal, EveryLcpMethodReturnsAFinitePoint) {
  Eigen::MatrixXd M(2, 2);
  M << 2, 1, 1, 2;
  const Eigen::Vector2d q(-5, -6);
  for (const double t : {kTiny, 5e-324, 1e-300}) {
    const Lcp problem{t * M, t * q};
    for (const Method method : lcp_methods()) {
      const Result r = solve(problem, method);
      ASSERT_EQ(r.z.size(), 2) << to_string(method);
      EXPECT_TRUE(r.z.allFinite()) << to_string(method) << " at scale " << t;
      if (r.solved()) {
        EXPECT_LE(independent_residual(problem.M, problem.q, r.z), SolveOptions{}.tolerance) << to_string(method);
      }
    }
  }
}

TEST(Subnormal, BoxMlcpAndQpFormsDoNotCrash) {
  BoxLcp box{Eigen::MatrixXd::Constant(1, 1, kTiny),
             Eigen::VectorXd::Constant(1, -kTiny),
             Eigen::VectorXd::Constant(1, -kTiny),
             Eigen::VectorXd::Constant(1, kTiny),
             {}};
  for (const Method method : box_lcp_methods()) {
    const Result r = solve(box, method);
    EXPECT_TRUE(r.z.allFinite()) << to_string(method);
  }
  Mlcp mlcp;
  mlcp.A = Eigen::MatrixXd::Constant(1, 1, kTiny);
  mlcp.B = Eigen::MatrixXd::Constant(1, 1, kTiny);
  mlcp.C = Eigen::MatrixXd::Constant(1, 1, kTiny);
  mlcp.D = Eigen::MatrixXd::Constant(1, 1, -kTiny);
  mlcp.a = Eigen::VectorXd::Constant(1, -kTiny);
  mlcp.b = Eigen::VectorXd::Constant(1, -kTiny);
  for (const Method method : mlcp_methods()) {
    const Result r = solve(mlcp, method);
    EXPECT_TRUE(r.z.allFinite()) << to_string(method);
  }
  // min ½ 1e-310 x² − 1e-310 x over x >= 0: x = 1.
  const Qp qp{Eigen::MatrixXd::Constant(1, 1, kTiny), Eigen::VectorXd::Constant(1, -kTiny), Eigen::MatrixXd(0, 1),
              Eigen::VectorXd(0)};
  for (const Method method : lcp_methods()) {
    try {
      const QpResult r = solve(qp, method);
      EXPECT_TRUE(r.x.allFinite()) << to_string(method);
      if (method == Method::Lemke) {
        ASSERT_EQ(r.lcp.status, Status::Solved) << r.lcp.message;
        EXPECT_DOUBLE_EQ(r.x[0], 1.0);
      }
    } catch (const InvalidProblem&) {
      // a method the QP refuses (documented): not a crash
    }
  }
}

TEST(History, KeepsAtMostTheLimitAndTheLatestLast) {
  std::vector<double> history;
  for (int k = 0; k < 3 * static_cast<int>(kHistoryLimit); ++k) record_history(history, k);
  ASSERT_EQ(history.size(), kHistoryLimit);
  EXPECT_EQ(history.front(), 0.0);
  EXPECT_EQ(history[kHistoryLimit - 2], static_cast<double>(kHistoryLimit - 2));
  EXPECT_EQ(history.back(), 3.0 * static_cast<double>(kHistoryLimit) - 1);
}

TEST(History, ALongPgsRunStaysBounded) {
  // M = [[1, −1], [−1, 1]], q = (−1, −1) has no solution (w1 + w2 = −2): PGS's iterates grow
  // by 1 a sweep and never converge, so each of the 50 000 sweeps would add an entry uncapped.
  Eigen::MatrixXd M(2, 2);
  M << 1, -1, -1, 1;
  SolveOptions options;
  options.max_iterations = 50000;
  const Result r = solve(Lcp{M, Eigen::Vector2d(-1, -1)}, Method::Pgs, options);
  EXPECT_EQ(r.iterations, 50000) << r.message;
  EXPECT_EQ(r.history.size(), kHistoryLimit);
}

// M = −I, q = −1: no active set gives a solution (z_α = −1, or w = −1 < 0), and every M_αα is
// nonsingular, so enum must examine all 2^n sets to prove infeasibility.
Lcp infeasible(Eigen::Index n) { return Lcp{-Eigen::MatrixXd::Identity(n, n), -Eigen::VectorXd::Ones(n)}; }

TEST(EnumBudget, ProvesInfeasibilityWithinTheDefaultBudget) {
  const Result r = solve(infeasible(18), Method::Enum);  // 2^18 sets = the default budget
  EXPECT_EQ(r.status, Status::Infeasible) << r.message;
  EXPECT_EQ(r.iterations, 1 << 18);
}

TEST(EnumBudget, StopsAtTheDefaultBudgetAndGoesFurtherWhenAsked) {
  const auto start = std::chrono::steady_clock::now();
  const Result stopped = solve(infeasible(25), Method::Enum);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(stopped.status, Status::MaxIterations) << stopped.message;
  EXPECT_EQ(stopped.iterations, kEnumerationBudget);
  EXPECT_NE(stopped.message.find("--max-iter"), std::string::npos) << stopped.message;
  EXPECT_LT(seconds, 20.0);  // about a second on one core; generous for a loaded machine
  SolveOptions more;
  more.max_iterations = 1 << 19;
  const Result full = solve(infeasible(19), Method::Enum, more);
  EXPECT_EQ(full.status, Status::Infeasible) << full.message;
  // --all reports the solutions found so far when the budget runs out: M = I, q = −1 has one.
  SolveOptions all;
  all.all_solutions = true;
  all.max_iterations = 5000;
  const Result some = solve(Lcp{Eigen::MatrixXd::Identity(20, 20), -Eigen::VectorXd::Ones(20)}, Method::Enum, all);
  EXPECT_EQ(some.status, Status::MaxIterations);
  EXPECT_EQ(some.iterations, 5000);
}

TEST(EnumBudget, VisitsSetsBySizeThenPattern) {
  // M = I, q = (−1, 0, −1): the solution z = (1, 0, 1) has support {0, 2}; sets of size 0 and 1
  // come first (1 + 3 of them), then {0, 1} and {0, 2}: the 6th set examined.
  const Result r = solve(Lcp{Eigen::Matrix3d::Identity(), Eigen::Vector3d(-1, 0, -1)}, Method::Enum);
  ASSERT_EQ(r.status, Status::Solved) << r.message;
  EXPECT_EQ(r.iterations, 6);
  EXPECT_EQ(r.z, Eigen::Vector3d(1, 0, 1));
}

TEST(EnumBudget, MlcpEnumHasTheSameDefaultBudget) {
  // m = 20 complementarity rows of −I with b = −1, one equality u = 0: infeasible, 2^20 sets.
  Mlcp p;
  p.A = Eigen::MatrixXd::Identity(1, 1);
  p.C = Eigen::MatrixXd::Zero(1, 20);
  p.D = Eigen::MatrixXd::Zero(20, 1);
  p.B = -Eigen::MatrixXd::Identity(20, 20);
  p.a = Eigen::VectorXd::Zero(1);
  p.b = -Eigen::VectorXd::Ones(20);
  const Result r = solve(p, Method::Enum);
  EXPECT_EQ(r.status, Status::MaxIterations) << r.message;
  EXPECT_EQ(r.iterations, kEnumerationBudget);
}

// Block diagonal of [[1, 3], [0.2, 1]]: every principal minor > 0 (1 − 0.6 = 0.4), but it is not
// positive definite, dominant, triangular, Z or symmetric, so only the enumeration decides P.
Eigen::MatrixXd hidden_p_matrix(Eigen::Index blocks) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(2 * blocks, 2 * blocks);
  for (Eigen::Index b = 0; b < blocks; ++b) M.block(2 * b, 2 * b, 2, 2) << 1, 3, 0.2, 1;
  return M;
}

TEST(ClassifyBudget, MinorEnumerationStopsUndecided) {
  const Eigen::MatrixXd M = hidden_p_matrix(5);
  const MatrixReport full = classify(M);
  ASSERT_EQ(full[MatrixClass::P].holds, std::optional<bool>(true)) << full[MatrixClass::P].reason;
  ClassifyOptions options;
  options.max_minor_nodes = 5;
  const MatrixReport stopped = classify(M, options);
  EXPECT_FALSE(stopped[MatrixClass::P].holds.has_value());
  EXPECT_NE(stopped[MatrixClass::P].reason.find("budget of 5 nodes"), std::string::npos)
      << stopped[MatrixClass::P].reason;
}

TEST(ClassifyBudget, KaplanTestStopsUndecided) {
  // Horn's matrix: copositive, not PSD, with negative entries: only Kaplan's test decides it.
  Eigen::MatrixXd H(5, 5);
  H << 1, -1, 1, 1, -1, -1, 1, -1, 1, 1, 1, -1, 1, -1, 1, 1, 1, -1, 1, -1, -1, 1, 1, -1, 1;
  ASSERT_EQ(classify(H)[MatrixClass::Copositive].holds, std::optional<bool>(true));
  ClassifyOptions options;
  options.max_copositive_submatrices = 3;
  const MatrixReport stopped = classify(H, options);
  EXPECT_FALSE(stopped[MatrixClass::Copositive].holds.has_value());
  EXPECT_NE(stopped[MatrixClass::Copositive].reason.find("budget"), std::string::npos)
      << stopped[MatrixClass::Copositive].reason;
}

TEST(ClassifyBudget, LargeSizesRunUnderTheDefaultBudget) {
  // n = 30 with --max-minor-size 40 used to run for hours; the node budget ends it in seconds.
  ClassifyOptions options;
  options.max_minor_size = 40;
  options.max_copositive_size = 30;
  const auto start = std::chrono::steady_clock::now();
  const MatrixReport report = classify(hidden_p_matrix(15), options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 30.0);
  EXPECT_FALSE(report[MatrixClass::P].holds.has_value()) << report[MatrixClass::P].reason;
}

TEST(ClassifyBudget, OptionsAreValidated) {
  ClassifyOptions options;
  options.max_minor_nodes = 0;
  EXPECT_THROW(options.validate(), InvalidProblem);
  options = {};
  options.max_copositive_submatrices = -1;
  EXPECT_THROW(options.validate(), InvalidProblem);
}

}  // namespace
}  // namespace perp
