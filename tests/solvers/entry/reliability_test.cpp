// Regression tests of issue 15's crash and resource classes: subnormal data through every method
// and problem form, the enum and classify budgets, the bounded history.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/core/ncp_function.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/box_lcp.hpp"
#include "perp/solvers/solve.hpp"
#include "perp/solvers/mlcp.hpp"
#include "perp/solvers/qp.hpp"

namespace perp::solvers_reliability_test {
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


// ---------------------------------------------------------------------------------------------
// No false claim at any scale (issue 15): the relative test, checked certificates.

namespace claims {

Lcp scaled_block(double t) {
  // M = [[2, 1], [1, 2]], q = (−5, −6): z = (4/3, 7/3) by hand (2z1 + z2 = 5, z1 + 2z2 = 6).
  Eigen::MatrixXd M(2, 2);
  M << 2, 1, 1, 2;
  return Lcp{t * M, t * Eigen::Vector2d(-5, -6)};
}

}  // namespace claims

TEST(Claims, EveryMethodSolvesThe2x2AtTheSamePointAtEveryScale) {
  // Before: at 1e-150 pgs returned (2.5, 1.75), psor (3, 1.8), interior-point (1, 1), each with
  // w < 0 and "solved"; at 1e150 lemke said "ill-conditioned" for a condition number of 3.
  for (const double t : {1e-150, 1.0, 1e150}) {
    const Lcp problem = claims::scaled_block(t);
    for (const Method method : lcp_methods()) {
      const Result r = solve(problem, method);
      ASSERT_TRUE(r.solved()) << t << " " << to_string(method) << ": " << r.message;
      EXPECT_NEAR(r.z[0], 4.0 / 3.0, 1e-7) << t << " " << to_string(method);
      EXPECT_NEAR(r.z[1], 7.0 / 3.0, 1e-7) << t << " " << to_string(method);
      EXPECT_LE(r.relative_residual, 1e-8);
      EXPECT_GE(r.w.minCoeff(), -1e-8 * 6 * t) << t << " " << to_string(method);  // w >= 0 at q's scale
    }
  }
}

TEST(Claims, FarScaledDataSaysHowItWasRun) {
  // max|M| = 2e-150 and max|q| = 6e-150 are brought into [1, 2) by 2^a and 2^b, a = −ilogb(2e-150)
  // and b = −ilogb(6e-150); z' = 2^(b−a) z, scaled back exactly by 2^(a−b).
  const int a = -std::ilogb(2e-150), b = -std::ilogb(6e-150);
  const Result r = solve(claims::scaled_block(1e-150), Method::Lemke);
  EXPECT_THAT(r.message, testing::HasSubstr("[run on the equivalent LCP (2^" + std::to_string(a) + " M, 2^" +
                                            std::to_string(b) + " q), z scaled back by 2^" + std::to_string(a - b) +
                                            "]"));
  ASSERT_TRUE(r.solved());
  EXPECT_DOUBLE_EQ(r.z[0], 4.0 / 3.0);
  // Unit data is run as given.
  EXPECT_THAT(solve(claims::scaled_block(1.0), Method::Lemke).message, testing::Not(testing::HasSubstr("equivalent")));
}

TEST(Claims, AutoDoesNotCallZeroASolutionOfATinyInfeasibleLcp) {
  // M = −1e-150 I, q = −1e-150 (1, 1): w = −1e-150 (z + 1) < 0 for every z >= 0, so no point is
  // feasible; before, auto said solved at z = 0 (|w| = 1e-150 < 1e-8 absolute).
  const Lcp problem{-1e-150 * Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-1e-150, -1e-150)};
  for (const Method method : lcp_methods()) {
    const Result r = solve(problem, method);
    EXPECT_FALSE(r.solved()) << to_string(method) << ": " << r.message;
  }
  EXPECT_EQ(solve(problem, Method::Enum).status, Status::Infeasible);
}

TEST(Claims, LemkeRayPastATinyPivotIsANumericalFailureNotAProof) {
  // M = [[1e-12]] is PD and z = 1e12 solves it; 1e-12 is at the pivot tolerance, so Lemke's
  // path stops on a "ray" that is not one (z0 still decreases along it).
  const Lcp problem{Eigen::MatrixXd::Constant(1, 1, 1e-12), Eigen::VectorXd::Constant(1, -1)};
  const Result lemke = solve(problem, Method::Lemke);
  EXPECT_EQ(lemke.status, Status::NumericalFailure) << lemke.message;
  EXPECT_THAT(lemke.message, testing::Not(testing::HasSubstr("proves")));
  EXPECT_FALSE(lemke.ray.has_value());
  const Result automatic = solve(problem, Method::Auto);
  ASSERT_TRUE(automatic.solved()) << automatic.message;
  EXPECT_DOUBLE_EQ(automatic.z[0], 1e12);
}

TEST(Claims, LemkeRayOfAnInfeasibleLcpIsAVerifiedProof) {
  // M = −I, q = (−1, −1): v = (1, 0) has v >= 0, Mᵀv = (−1, 0) <= 0, qᵀv = −1 < 0.
  const Lcp problem{-Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-1, -1)};
  const Result r = solve(problem, Method::Lemke);
  ASSERT_EQ(r.status, Status::RayTermination) << r.message;
  EXPECT_THAT(r.message, testing::HasSubstr("proves the LCP infeasible"));
  ASSERT_TRUE(r.ray.has_value());
  EXPECT_GE(r.ray->minCoeff(), 0.0);
  EXPECT_LE((problem.M.transpose() * *r.ray).maxCoeff(), 0.0);
  EXPECT_LT(problem.q.dot(*r.ray), 0.0);
}

TEST(Claims, LemkeRayOfANonCopositiveMatrixClaimsNothing) {
  // M = [[−1, 2], [2, −1]] (not copositive), q = (−1, −1): z = (1, 1) solves it (w = 0), yet
  // Lemke's path may end on a ray; whatever it says, it must not claim a proof.
  Eigen::MatrixXd M(2, 2);
  M << -1, 2, 2, -1;
  const Lcp problem{M, Eigen::Vector2d(-1, -1)};
  const Result r = solve(problem, Method::Lemke);
  EXPECT_THAT(r.message, testing::Not(testing::HasSubstr("proves")));
  EXPECT_NE(r.status, Status::Infeasible);
}

TEST(Claims, QpWithATinyCurvatureIsNotUnbounded) {
  // min ½ 1e-13 x² − x over x >= 0: x = 1e13; Q d = 1e-13 ≠ 0 along d = 1, so no direction of
  // recession; before, the mixed-scale test called it unbounded.
  const Qp qp{Eigen::MatrixXd::Constant(1, 1, 1e-13), Eigen::VectorXd::Constant(1, -1), Eigen::MatrixXd(0, 1),
              Eigen::VectorXd(0)};
  const QpResult r = solve(qp, Method::Auto);
  EXPECT_NE(r.status(), Status::Infeasible) << r.lcp.message;
  ASSERT_TRUE(r.solved()) << r.lcp.message;
  EXPECT_NEAR(r.x[0], 1e13, 1e13 * 1e-8);
  const QpResult lemke = solve(qp, Method::Lemke);
  EXPECT_NE(lemke.status(), Status::Infeasible) << lemke.lcp.message;
  EXPECT_THAT(lemke.lcp.message, testing::Not(testing::HasSubstr("unbounded")));
}

TEST(Claims, AnOverflowingSolutionIsANumericalFailureNotInfeasible) {
  // A = [[1e-300]], a = [−1e300]: u = 1e600 is not a double. Before, enum said "infeasible".
  Mlcp mlcp;
  mlcp.A = Eigen::MatrixXd::Constant(1, 1, 1e-300);
  mlcp.a = Eigen::VectorXd::Constant(1, -1e300);
  mlcp.B = Eigen::MatrixXd(0, 0);
  mlcp.C = Eigen::MatrixXd(1, 0);
  mlcp.D = Eigen::MatrixXd(0, 1);
  mlcp.b = Eigen::VectorXd(0);
  for (const Method method : mlcp_methods()) {
    const Result r = solve(mlcp, method);
    EXPECT_NE(r.status, Status::Infeasible) << to_string(method) << ": " << r.message;
    EXPECT_FALSE(r.solved()) << to_string(method);
  }
  EXPECT_EQ(solve(mlcp, Method::Enum).status, Status::NumericalFailure);
  // The LCP form: M = [[1e-300]], q = [−1e300], z = 1e600.
  const Lcp lcp{Eigen::MatrixXd::Constant(1, 1, 1e-300), Eigen::VectorXd::Constant(1, -1e300)};
  for (const Method method : lcp_methods()) {
    const Result r = solve(lcp, method);
    EXPECT_NE(r.status, Status::Infeasible) << to_string(method) << ": " << r.message;
    EXPECT_FALSE(r.solved()) << to_string(method);
  }
}

TEST(Claims, SmoothingSolvesAValidProblemWithAHugeQ) {
  // M = [[1]], q = [−1e155]: z = 1e155. Before: exit 2, "mu must be finite … got inf".
  const Lcp problem{Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::VectorXd::Constant(1, -1e155)};
  for (const Method method : lcp_methods()) {
    const Result r = solve(problem, method);
    ASSERT_TRUE(r.solved()) << to_string(method) << ": " << r.message;
    EXPECT_NEAR(r.z[0], 1e155, 1e155 * 1e-7) << to_string(method);
  }
  // The smoothed function itself at |a| > 1e154 and μ near DBL_MAX: finite.
  EXPECT_TRUE(std::isfinite(smoothed_fischer_burmeister(1e200, -1e200, 1e300)));
  EXPECT_TRUE(std::isfinite(smoothed_fischer_burmeister(1e200, 1e200, std::numeric_limits<double>::max())));
  const NcpGradient g = smoothed_fischer_burmeister_gradient(-1e300, 1e300, 1e308);
  EXPECT_TRUE(std::isfinite(g.da) && std::isfinite(g.db));
}

TEST(Claims, PgsAndPsorOnSubnormalData) {
  // q = −1e-310 (w starts subnormal and negative): z = 1e-310 exactly for pgs; M_ii subnormal:
  // M = [[1e-310]], q = [−1e-310]: z = 1. Neither crashes; every "solved" meets the relative test.
  const Lcp small_q{Eigen::MatrixXd::Identity(1, 1), Eigen::VectorXd::Constant(1, -kTiny)};
  const Lcp small_m{Eigen::MatrixXd::Constant(1, 1, kTiny), Eigen::VectorXd::Constant(1, -kTiny)};
  for (const Method method : {Method::Pgs, Method::Psor}) {
    for (const Lcp* problem : {&small_q, &small_m}) {
      const Result r = solve(*problem, method);
      ASSERT_TRUE(r.solved()) << to_string(method) << ": " << r.message;
      EXPECT_TRUE(r.z.allFinite());
      EXPECT_NEAR(r.z[0], problem == &small_q ? kTiny : 1.0, (problem == &small_q ? kTiny : 1.0) * 1e-8);
    }
  }
  EXPECT_EQ(solve(small_q, Method::Pgs).z[0], kTiny);
  // M_ii subnormal beside unit entries: its reciprocal overflows; a status, no crash.
  Eigen::MatrixXd M(2, 2);
  M << kTiny, 0, 0, 1;
  const Result r = solve(Lcp{M, Eigen::Vector2d(-kTiny, -1)}, Method::Pgs);
  EXPECT_TRUE(r.z.allFinite());
  if (r.solved()) {
    EXPECT_NEAR(r.z[0], 1.0, 1e-8);
    EXPECT_NEAR(r.z[1], 1.0, 1e-8);
  }
}

TEST(Claims, RelativeResidualIsScaleFreeAndRejectsPointsAtInfinity) {
  // By hand: z = (4/3, 7/3) + (1e-9, 0) on the 2×2: w = (2e-9, 1e-9), Z = 7/3, W = 6:
  // min(z/Z, w/W) = (2e-9/6, 1e-9/6) → 3.33e-10, at every scale t.
  for (const double t : {1e-300, 1.0, 1e300}) {
    const Lcp problem = claims::scaled_block(t);
    const Eigen::Vector2d z(4.0 / 3.0 + 1e-9, 7.0 / 3.0);
    EXPECT_NEAR(relative_residual(problem, z, problem.slack(z)), 2e-9 / 6, 1e-15) << t;
  }
  // An infeasible LCP (M = [[0, 1], [−1, 0]]... here M = −I, q = −1): far-out z never passes.
  const Lcp none{-Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-1, -1)};
  for (const double s : {1.0, 1e10, 1e100}) {
    const Eigen::Vector2d z(s, s);
    EXPECT_GE(relative_residual(none, z, none.slack(z)), 1.0) << s;
  }
}

}  // namespace
}  // namespace perp::solvers_reliability_test
