#include "perp/solvers/solve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "../../../src/solvers/newton/newton_linear.hpp"
#include "../mcp_problems.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "../relative_check.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_newton_test {
namespace {

using namespace testing_problems;
using testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
const Method kNewtonFamily[] = {Method::NewtonFb, Method::NewtonMin, Method::PenalizedFb, Method::Smoothing};

// The example: F(z) = (2 z0 + z1² − 1, z1 − z0 + 1).
Ncp small_ncp() {
  Ncp p;
  p.n = 2;
  p.F = [](const Eigen::VectorXd& z) { return Eigen::Vector2d(2 * z[0] + z[1] * z[1] - 1, z[1] - z[0] + 1); };
  p.J = [](const Eigen::VectorXd& z) { return Eigen::Matrix2d{{2, 2 * z[1]}, {-1, 1}}; };
  return p;
}

using mcp_problems::kojima_shindo;
const Eigen::Vector4d kKojimaShindoRegular(1, 0, 3, 0);
const Eigen::Vector4d kKojimaShindoDegenerate(std::sqrt(6.0) / 2, 0, 0, 0.5);

// Independent check of an NCP solution: z >= 0, F >= 0, min(z, F) = 0, from F itself.
void expect_ncp_solution(const Ncp& p, const Result& r, double tol) {
  const Eigen::VectorXd f = p.F(r.z);
  EXPECT_LE(natural_residual(r.z, f), tol);
  EXPECT_GE(r.z.minCoeff(), -tol);
  EXPECT_GE(f.minCoeff(), -tol);
  EXPECT_TRUE(r.w.isApprox(f, 1e-12) || (r.w - f).norm() < 1e-12);
}

TEST(Newton, SmallNcpSolvedByEveryMethodOfTheFamily) {
  // By hand: z1 = 0 ⇒ F0 = 2 z0 − 1 = 0 ⇒ z0 = 1/2, and F1 = 1 − z0 = 1/2 >= 0.
  const Ncp p = small_ncp();
  for (const Method m : kNewtonFamily) {
    const Result r = solve(p, m, SolveOptions{.tolerance = 1e-12});
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    EXPECT_NEAR(r.z[0], 0.5, 1e-12) << to_string(m);
    EXPECT_NEAR(r.z[1], 0.0, 1e-12) << to_string(m);
    expect_ncp_solution(p, r, 1e-12);
    EXPECT_EQ(r.method, m);
    EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations));
    EXPECT_FALSE(r.history.empty());
    EXPECT_EQ(r.history.back(), r.residual);
  }
}

TEST(Newton, McpWithOneSidedBoundsMatchesTheHandSolution) {
  // Same F, z >= −1/2 componentwise. Interior F = 0 would need z0 = 0, z1 = −1 < −1/2; so
  // z1 = −1/2 at its bound: F0 = 2 z0 + 1/4 − 1 = 0 ⇒ z0 = 3/8, and F1 = −1/2 − 3/8 + 1 = 1/8 >= 0.
  const Ncp ncp = small_ncp();
  Mcp p{ncp.F, ncp.J, Eigen::Vector2d::Constant(-0.5), Eigen::Vector2d::Constant(kInf)};
  for (const Method m : kNewtonFamily) {
    const Result r = solve(p, m, SolveOptions{.tolerance = 1e-12});
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    EXPECT_NEAR(r.z[0], 0.375, 1e-12) << to_string(m);
    EXPECT_NEAR(r.z[1], -0.5, 1e-12) << to_string(m);
    EXPECT_NEAR(r.w[0], 0.0, 1e-12);
    EXPECT_NEAR(r.w[1], 0.125, 1e-12);
  }
}

TEST(Newton, BoxWithFreeUpperAndLowerBoundedComponents) {
  // F = A z + b, A = [[1, 1, 0], [−1, 1, 0], [1, 0, 1]] (a P-matrix: one solution),
  // z0 free, z1 <= 1, −1 <= z2 <= 2, z3 fixed at 4 with F3 = z3 + z0 (any sign).
  // By hand: z1 = 1 (F1 = z1 − z0 − 1 = −2 <= 0), z2 = −1 (F2 = z2 + z0 + 1/2 = 3/2 >= 0),
  // F0 = z0 + z1 − 3 = 0 ⇒ z0 = 2.
  Mcp p;
  p.F = [](const Eigen::VectorXd& z) {
    return Eigen::Vector4d(z[0] + z[1] - 3, z[1] - z[0] - 1, z[2] + z[0] + 0.5, z[3] + z[0]).eval();
  };
  p.J = [](const Eigen::VectorXd&) {
    return Eigen::Matrix4d{{1, 1, 0, 0}, {-1, 1, 0, 0}, {1, 0, 1, 0}, {1, 0, 0, 1}}.eval();
  };
  p.lower = Eigen::Vector4d(-kInf, -kInf, -1, 4);
  p.upper = Eigen::Vector4d(kInf, 1, 2, 4);
  for (const Method m : kNewtonFamily) {
    // Relative to ‖F(z) − J z‖∞ = 3 (docs/solvers.md): 1e-13 asks for the absolute 1e-12 below.
    const Result r = solve(p, m, SolveOptions{.tolerance = 1e-13});
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    EXPECT_TRUE(r.z.isApprox(Eigen::Vector4d(2, 1, -1, 4), 1e-12)) << to_string(m) << ": " << r.z.transpose();
    EXPECT_TRUE(r.w.isApprox(Eigen::Vector4d(0, -2, 1.5, 6), 1e-12)) << r.w.transpose();
    EXPECT_LE(natural_residual(r.z, p.F(r.z), p.lower, p.upper), 1e-12);
  }
}

TEST(Newton, KojimaShindoReachesBothSolutionsFromDifferentStarts) {
  const Ncp p = kojima_shindo();
  SolveOptions o{.tolerance = 1e-12};
  o.initial_guess = Eigen::Vector4d(1, 1, 1, 1);
  const Result regular = solve(p, Method::NewtonFb, o);
  ASSERT_TRUE(regular.solved()) << regular.message;
  EXPECT_LE((regular.z - kKojimaShindoRegular).cwiseAbs().maxCoeff(), 1e-10);
  expect_ncp_solution(p, regular, 1e-12);

  o.initial_guess = Eigen::Vector4d(1, 0, 0, 0);
  const Result degenerate = solve(p, Method::NewtonFb, o);
  ASSERT_TRUE(degenerate.solved()) << degenerate.message;
  EXPECT_LE((degenerate.z - kKojimaShindoDegenerate).cwiseAbs().maxCoeff(), 1e-10);
  expect_ncp_solution(p, degenerate, 1e-12);
  // Degenerate: z_3 = 0 and F_3 = 0 at once.
  EXPECT_NEAR(degenerate.z[2], 0.0, 1e-10);
  EXPECT_NEAR(degenerate.w[2], 0.0, 1e-10);

  // The other methods of the family from the origin reach one of the two.
  for (const Method m : kNewtonFamily) {
    const Result r = solve(p, m, SolveOptions{.tolerance = 1e-10});
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    const double distance = std::min((r.z - kKojimaShindoRegular).norm(), (r.z - kKojimaShindoDegenerate).norm());
    EXPECT_LE(distance, 1e-8) << to_string(m) << ": " << r.z.transpose();
  }
}

TEST(Newton, LocalQuadraticRateOnANondegenerateSolution) {
  // At (1, 0, 3, 0) strict complementarity holds and the FB Jacobian is nonsingular, so the tail
  // of the residual history must satisfy r_{k+1} <= C r_k².
  const Ncp p = kojima_shindo();
  SolveOptions o{.tolerance = 1e-14};
  o.initial_guess = Eigen::Vector4d(1, 1, 0, 0);
  const Result r = solve(p, Method::NewtonFb, o);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_LE((r.z - kKojimaShindoRegular).cwiseAbs().maxCoeff(), 1e-12);
  int checked = 0;
  for (std::size_t k = 0; k + 1 < r.history.size(); ++k) {
    const double now = r.history[k];
    const double next = r.history[k + 1];
    if (now > 0.2 || next < 1e-14) continue;  // only the tail, above round-off
    EXPECT_LE(next, 10.0 * now * now) << "step " << k << ": " << now << " -> " << next;
    ++checked;
  }
  EXPECT_GE(checked, 2) << "the history has too few tail steps to show the rate";
}

TEST(Newton, LineSearchRescuesAStartWherePureNewtonDiverges) {
  // Free variable, F(z) = atan(z): pure Newton diverges from |z0| > 1.39; Armijo on ½ atan² does not.
  Mcp p;
  p.F = [](const Eigen::VectorXd& z) { return Eigen::VectorXd::Constant(1, std::atan(z[0])); };
  p.J = [](const Eigen::VectorXd& z) { return Eigen::MatrixXd::Constant(1, 1, 1.0 / (1.0 + z[0] * z[0])); };
  p.lower = Eigen::VectorXd::Constant(1, -kInf);
  p.upper = Eigen::VectorXd::Constant(1, kInf);
  SolveOptions o{.tolerance = 1e-12, .max_iterations = 100};
  o.initial_guess = Eigen::VectorXd::Constant(1, 3.0);
  o.newton.line_search = false;
  const Result pure = solve(p, Method::NewtonFb, o);
  EXPECT_FALSE(pure.solved()) << pure.message;
  EXPECT_TRUE(pure.z.allFinite());
  o.newton.line_search = true;
  const Result damped = solve(p, Method::NewtonFb, o);
  ASSERT_TRUE(damped.solved()) << damped.message;
  EXPECT_NEAR(damped.z[0], 0.0, 1e-12);
}

TEST(Newton, MonotoneLineSearchAlsoSolves) {
  const Ncp p = kojima_shindo();
  SolveOptions o{.tolerance = 1e-12};
  o.newton.nonmonotone_memory = 0;  // the default is non-monotone; check the monotone search too
  for (const Method m : {Method::NewtonFb, Method::NewtonMin}) {
    const Result r = solve(p, m, o);
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    expect_ncp_solution(p, r, 1e-12);
  }
}

TEST(Newton, SingularJacobianAtTheStartTakesALevenbergMarquardtStep) {
  // Free MCP F = (z0² − z1, z0 + z1 − 2): J = [[2 z0, −1], [1, 1]] is singular at z0 = −1/2.
  // Solutions: z1 = z0², z0² + z0 − 2 = 0 ⇒ (1, 1) or (−2, 4).
  Mcp p;
  p.F = [](const Eigen::VectorXd& z) { return Eigen::Vector2d(z[0] * z[0] - z[1], z[0] + z[1] - 2).eval(); };
  p.J = [](const Eigen::VectorXd& z) { return Eigen::Matrix2d{{2 * z[0], -1}, {1, 1}}.eval(); };
  p.lower = Eigen::Vector2d::Constant(-kInf);
  p.upper = Eigen::Vector2d::Constant(kInf);
  SolveOptions o{.tolerance = 1e-12};
  o.initial_guess = Eigen::Vector2d(-0.5, 0.0);
  const Result r = solve(p, Method::NewtonFb, o);
  ASSERT_TRUE(r.solved()) << r.message;
  const bool first = r.z.isApprox(Eigen::Vector2d(1, 1), 1e-10);
  const bool second = r.z.isApprox(Eigen::Vector2d(-2, 4), 1e-10);
  EXPECT_TRUE(first || second) << r.z.transpose();
  EXPECT_THAT(r.message, HasSubstr("1 Levenberg-Marquardt step"));
}

TEST(Newton, LcpSingularMatrixAndKinkAtTheStart) {
  // M = [[1, 1], [1, 1]] (singular, PSD), q = (0, −2): at z = 0 the pair (z0, w0) = (0, 0) sits at
  // the FB kink. Solutions: z0 + z1 = 2 with w = 0 — the whole segment; any returned z must be on it.
  const Lcp p{Eigen::Matrix2d{{1, 1}, {1, 1}}, Eigen::Vector2d(0, -2)};
  for (const Method m : {Method::NewtonFb, Method::NewtonMin, Method::PenalizedFb, Method::Smoothing}) {
    const Result r = solve(p, m, SolveOptions{.tolerance = 1e-12});
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    EXPECT_NEAR(r.z.sum(), 2.0, 1e-12) << to_string(m);
    EXPECT_GE(r.z.minCoeff(), -1e-12);
    EXPECT_LE(natural_residual(p, r.z), 1e-12);
  }
}

TEST(Newton, LcpResultsAgreeWithLemkeOnPositiveDefiniteProblems) {
  // PD ⇒ unique solution: every method must return the same z.
  for (const unsigned seed : {1u, 2u, 3u}) {
    const Lcp p = random_spd(40, seed);
    const Result reference = solve(p, Method::Lemke);
    ASSERT_TRUE(reference.solved());
    for (const Method m :
         {Method::NewtonFb, Method::NewtonMin, Method::PenalizedFb, Method::Smoothing, Method::InteriorPoint}) {
      const Result r = solve(p, m);
      ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
      EXPECT_LE((r.z - reference.z).cwiseAbs().maxCoeff(), 1e-7) << to_string(m) << " seed " << seed;
      EXPECT_LE(natural_residual(p, r.z), 1e-8);
    }
  }
}

TEST(Newton, PenalizedDiffersFromPlainFbWherePairsAreBothPositive) {
  // From z = (1, 1) both z and w are positive, so the penalty term a₊b₊ changes the iteration.
  const Lcp p{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(-1, 1)};  // z = (1/2, 0), w = (0, 3/2)
  SolveOptions o{.tolerance = 1e-12};
  o.initial_guess = Eigen::Vector2d(1, 1);
  o.newton.penalty = 0.5;
  const Result plain = solve(p, Method::NewtonFb, o);
  const Result penalized = solve(p, Method::PenalizedFb, o);
  ASSERT_TRUE(plain.solved());
  ASSERT_TRUE(penalized.solved());
  EXPECT_TRUE(penalized.z.isApprox(Eigen::Vector2d(0.5, 0), 1e-12));
  ASSERT_FALSE(plain.history.empty());
  ASSERT_FALSE(penalized.history.empty());
  EXPECT_GT(std::abs(plain.history.front() - penalized.history.front()), 1e-6);
}

TEST(Newton, WarmStartAtTheSolutionTakesNoStep) {
  const Ncp p = kojima_shindo();
  SolveOptions o{.tolerance = 1e-12};
  o.initial_guess = kKojimaShindoRegular;
  const Result r = solve(p, Method::NewtonFb, o);
  EXPECT_TRUE(r.solved());
  EXPECT_EQ(r.iterations, 0);
}

TEST(Newton, NoSolutionEndsWithAStatusNotNaN) {
  // F(z) = −1 − z < 0 for every z >= 0: no solution.
  Ncp p;
  p.n = 1;
  p.F = [](const Eigen::VectorXd& z) { return Eigen::VectorXd::Constant(1, -1.0 - z[0]); };
  p.J = [](const Eigen::VectorXd&) { return Eigen::MatrixXd::Constant(1, 1, -1.0); };
  for (const Method m : {Method::NewtonFb, Method::NewtonMin, Method::PenalizedFb, Method::Smoothing, Method::Auto}) {
    const Result r = solve(p, m);
    EXPECT_FALSE(r.solved()) << to_string(m);
    EXPECT_TRUE(r.z.allFinite()) << to_string(m);
    EXPECT_TRUE(r.w.allFinite()) << to_string(m);
    EXPECT_TRUE(std::isfinite(r.residual));
    EXPECT_FALSE(r.message.empty());
  }
  // The LCP of [chapter] §1.2 without a solution: M = (−1), q = (−1).
  const Result lcp = solve(no_solution(), Method::NewtonFb);
  EXPECT_FALSE(lcp.solved());
  EXPECT_TRUE(lcp.z.allFinite());
}

TEST(Newton, StallReturnsTheBestIterateAndSaysWhatItMeasured) {
  // Josephy from (100, 100, 100, 100): newton-fb stalls (the outside check). Whatever it
  // ends with, the returned z is the iterate of smallest merit, and the message quotes that merit
  // (recomputed here from z) and the gradient norm measured there, and guesses nothing.
  const Ncp p = mcp_problems::josephy();
  SolveOptions o;
  o.initial_guess = Eigen::Vector4d::Constant(100);
  const Result r = solve(p, Method::NewtonFb, o);
  if (!r.solved()) {
    const Eigen::VectorXd f = p.F(r.z);
    const double psi = 0.5 * std::pow(fischer_burmeister_residual(r.z, f), 2);
    char quoted[64];
    std::snprintf(quoted, sizeof quoted, "returned point: Psi = %.3g", psi);
    EXPECT_THAT(r.message, HasSubstr(quoted));
    EXPECT_THAT(r.message, HasSubstr("|grad Psi|_inf = "));
    EXPECT_THAT(r.message,
                testing::AnyOf(HasSubstr("(a stationary point of the merit"), HasSubstr("(not a stationary point")));
    EXPECT_THAT(r.message, testing::Not(HasSubstr("may have none")));
  }
  // path and auto solve it.
  EXPECT_TRUE(solve(p, Method::Path, o).solved());
  EXPECT_TRUE(solve(p, Method::Auto, o).solved());
}

TEST(Newton, BadFunctionsAreRefusedByName) {
  Ncp p = small_ncp();
  Ncp wrong_size = p;
  wrong_size.F = [](const Eigen::VectorXd&) { return Eigen::VectorXd::Zero(3); };
  EXPECT_THAT([&] { (void)solve(wrong_size, Method::NewtonFb); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("F returned 3 values, expected 2")));
  Ncp nan_f = p;
  nan_f.F = [](const Eigen::VectorXd&) { return Eigen::Vector2d(0, std::nan("")).eval(); };
  EXPECT_THAT([&] { (void)solve(nan_f, Method::NewtonFb); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("F[1] is NaN")));
  Ncp bad_j = p;
  bad_j.J = [](const Eigen::VectorXd&) { return Eigen::MatrixXd::Zero(2, 3); };
  EXPECT_THAT([&] { (void)solve(bad_j, Method::NewtonFb); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("J returned a 2x3 matrix, expected 2x2")));
  Ncp inf_j = p;
  inf_j.J = [](const Eigen::VectorXd&) { return Eigen::Matrix2d{{1, kInf}, {0, 1}}.eval(); };
  EXPECT_THAT([&] { (void)solve(inf_j, Method::NewtonFb); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("J(0, 1) is infinite")));
  Ncp empty = p;
  empty.J = nullptr;
  EXPECT_THAT([&] { (void)solve(empty, Method::NewtonFb); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("J is empty")));
  EXPECT_THAT([&] { (void)solve(p, Method::Lemke); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("needs an Lcp")));
  EXPECT_THAT([&] { (void)solve(p, Method::InteriorPoint); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("needs an Lcp")));
}

TEST(Newton, BadBoundsAreRefusedByName) {
  const Ncp ncp = small_ncp();
  Mcp p{ncp.F, ncp.J, Eigen::Vector2d(0, 2), Eigen::Vector2d(1, 1)};
  EXPECT_THAT([&] { (void)solve(p); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("lower[1] = 2 > upper[1] = 1")));
  p.lower = Eigen::Vector2d(std::nan(""), 0);
  EXPECT_THAT([&] { (void)solve(p); }, testing::ThrowsMessage<InvalidProblem>(HasSubstr("lower[0] is NaN")));
  p.lower = Eigen::Vector2d(kInf, 0);
  p.upper = Eigen::Vector2d::Constant(kInf);
  EXPECT_THAT([&] { (void)solve(p); }, testing::ThrowsMessage<InvalidProblem>(HasSubstr("lower[0] is +inf")));
  p.lower = Eigen::Vector3d(0, 0, 0);
  EXPECT_THAT([&] { (void)solve(p); }, testing::ThrowsMessage<InvalidProblem>(HasSubstr("upper has size 2")));
  p.lower = Eigen::Vector2d(0, 0);
  SolveOptions o;
  o.initial_guess = Eigen::Vector3d(0, 0, 0);
  EXPECT_THAT([&] { (void)solve(p, Method::NewtonFb, o); },
              testing::ThrowsMessage<InvalidProblem>(HasSubstr("initial_guess: expected size 2, got 3")));
}

TEST(Newton, EmptyProblemIsSolvedWithoutCallingF) {
  Ncp p;
  p.F = [](const Eigen::VectorXd& z) -> Eigen::VectorXd {
    throw std::logic_error("F called, z size " + std::to_string(z.size()));
  };
  p.J = [](const Eigen::VectorXd&) -> Eigen::MatrixXd { throw std::logic_error("J called"); };
  for (const Method m : kNewtonFamily) {
    const Result r = solve(p, m);
    EXPECT_TRUE(r.solved()) << to_string(m);
    EXPECT_EQ(r.z.size(), 0);
  }
}

TEST(Newton, AutoOnAnNcpReportsWhatItTried) {
  const Result r = solve(kojima_shindo());
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_EQ(r.method, Method::Path);
  EXPECT_THAT(r.message, HasSubstr("auto (path: solved)"));
}

TEST(Newton, ScaleOfTheDataDoesNotChangeTheAnswer) {
  // z solves (M, q) iff it solves (sM, sq); with the absolute tolerance scaled along.
  const Lcp base = two_contact_block();
  for (const double s : {1e-6, 1.0, 1e6}) {
    const Lcp p{s * base.M, s * base.q};
    const Result r = solve(p, Method::NewtonFb, SolveOptions{.tolerance = 1e-10 * s});
    ASSERT_TRUE(r.solved()) << "scale " << s << ": " << r.message;
    EXPECT_NEAR(r.z[0], 5, 1e-9);
    EXPECT_NEAR(r.z[1], 5, 1e-9);
  }
}

// One planar body (x, y, θ; W = I) held by four normal contacts with rows J = (0, 1, 0), (0, 1, 1),
// (0, 1, −1), (1, 0, 0): rows 2 and 3 add up to twice row 1, so M = J Jᵀ =
// [[1, 1, 1, 0], [1, 2, 0, 0], [1, 0, 2, 0], [0, 0, 0, 1]] has rank 3 (its Cholesky meets the pivot
// 2 − 1 − 1 = 0 in the third row, exactly). q = J v for v = (−1, −1, 0): every contact approaches.
// The solutions bring the body to rest, Jᵀz = (1, 1, 0): z = (1 − 2t, t, t, 1), t ∈ [0, 1/2],
// with w = 0 (M z is the same for every solution of a symmetric PSD LCP).
Lcp four_contacts_on_one_body() {
  Lcp p;
  p.M = Eigen::Matrix4d{{1, 1, 1, 0}, {1, 2, 0, 0}, {1, 0, 2, 0}, {0, 0, 0, 1}};
  p.q = Eigen::Vector4d(-1, -1, -1, -1);
  return p;
}

TEST(NewtonSingular, FourContactsOnOneBodySolvedWithoutLu) {
  // Regression: from z = 0 newton-min's reduced matrix is all of M, singular; before the
  // regularized Cholesky its step went to a full LU of H.
  const Lcp p = four_contacts_on_one_body();
  for (const Method m : {Method::NewtonMin, Method::NewtonFb, Method::InteriorPoint}) {
    const Result r = solve(p, m, SolveOptions{.tolerance = 1e-12});
    ASSERT_TRUE(r.solved()) << to_string(m) << ": " << r.message;
    EXPECT_LE(testing_relative::relative(p, r.z), 1e-12L) << to_string(m);
    const Eigen::VectorXd w = p.M * r.z + p.q;
    EXPECT_LE(w.cwiseAbs().maxCoeff(), 1e-11) << to_string(m);
    EXPECT_GE(r.z.minCoeff(), -1e-12) << to_string(m);
    EXPECT_NEAR(r.z[3], 1.0, 1e-11) << to_string(m);
    EXPECT_NEAR(r.z[0] + r.z[1] + r.z[2], 1.0, 1e-11) << to_string(m);
    EXPECT_NEAR(r.z[1], r.z[2], 1e-11) << to_string(m);
    EXPECT_THAT(r.message, testing::Not(HasSubstr("by LU"))) << to_string(m);
  }
  // newton-min meets the singular matrix and says how it solved it.
  const Result r = solve(p, Method::NewtonMin);
  EXPECT_THAT(r.message, HasSubstr("by proximal-shifted Cholesky")) << r.message;
}

TEST(NewtonSingular, NonsingularSystemsTakeNoShift) {
  const Lcp p = two_contact_block();
  for (const Method m : {Method::NewtonMin, Method::NewtonFb}) {
    const Result r = solve(p, m);
    ASSERT_TRUE(r.solved()) << r.message;
    EXPECT_THAT(r.message, testing::Not(HasSubstr("proximal"))) << to_string(m);
    EXPECT_THAT(r.message, testing::Not(HasSubstr("by LU"))) << to_string(m);
  }
}

TEST(NewtonSingular, SystemSolvesTheProximalShiftOnceSingular) {
  // Min-map rows (Da = 0, Db = 1): H = M. First call: M is singular, so the system solved is
  // (M + μI) d = −Φ, checked here against the matrix itself.
  const Lcp p = four_contacts_on_one_body();
  const Eigen::VectorXd Da = Eigen::VectorXd::Zero(4);
  const Eigen::VectorXd Db = Eigen::VectorXd::Ones(4);
  const Eigen::VectorXd phi = p.q;
  detail::NewtonSystem system;
  Eigen::VectorXd d;
  const double mu = 0.25;
  ASSERT_TRUE(system.solve(p.M, true, Da, Db, phi, d, mu));
  EXPECT_TRUE(system.singular_seen());
  EXPECT_EQ(system.singular_steps(), 1);
  EXPECT_EQ(system.lu_steps(), 0);
  const Eigen::Matrix4d shifted = p.M + mu * Eigen::Matrix4d::Identity();
  EXPECT_LE((shifted * d + phi).cwiseAbs().maxCoeff(), 1e-13);
  // Row 4 decouples: (1 + μ) d_3 = 1.
  EXPECT_NEAR(d[3], 1.0 / (1.0 + mu), 1e-14);
  // μ = 0 afterwards: M d = −Φ is consistent (Φ = q = J v); the refined solve reaches it.
  ASSERT_TRUE(system.solve(p.M, true, Da, Db, phi, d, 0.0));
  EXPECT_LE((p.M * d + phi).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_EQ(system.singular_steps(), 2);
  EXPECT_EQ(system.lu_steps(), 0);
}

TEST(NewtonSingular, NonsingularSystemIgnoresTheShift) {
  // A positive definite M never switches the shift on: the exact Newton step M d = −Φ.
  const Eigen::Matrix2d M{{4, 1}, {1, 3}};
  detail::NewtonSystem system;
  Eigen::VectorXd d;
  ASSERT_TRUE(system.solve(M, true, Eigen::Vector2d::Zero(), Eigen::Vector2d::Ones(), Eigen::Vector2d(-1, -2), d, 0.5));
  EXPECT_FALSE(system.singular_seen());
  EXPECT_EQ(system.singular_steps(), 0);
  EXPECT_NEAR(d[0], 1.0 / 11.0, 1e-15);  // M⁻¹ (1, 2) = ((3·1 − 1·2)/11, (4·2 − 1·1)/11)
  EXPECT_NEAR(d[1], 7.0 / 11.0, 1e-15);
}

}  // namespace
}  // namespace perp::solvers_newton_test
