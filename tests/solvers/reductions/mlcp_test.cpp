// The MLCP methods on small problems whose solutions are derived by hand in the comments, with
// the residual recomputed here from the returned z; and the bad input `solve(Mlcp)` refuses.
#include "perp/solvers/mlcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "perp/core/error.hpp"
#include "../relative_check.hpp"

namespace perp::solvers_mlcp_test {
namespace {

Mlcp make(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const Eigen::MatrixXd& C, const Eigen::MatrixXd& D,
          const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return Mlcp{A, B, C, D, a, b};
}

/// A = (2), C = (1), a = (−4); D = (1), B = (1), b = (−3). Eliminating u = (4 − v)/2 gives
/// w = v/2 − 1, so the Schur LCP is (1/2, −1): v = 2, w = 0, u = 1. M = [[2, 1], [1, 1]] is
/// symmetric positive definite, so the solution is unique and every method applies.
Mlcp nonsingular_a() {
  return make(Eigen::MatrixXd::Constant(1, 1, 2.0), Eigen::MatrixXd::Constant(1, 1, 1.0),
              Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::MatrixXd::Constant(1, 1, 1.0),
              Eigen::VectorXd::Constant(1, -4.0), Eigen::VectorXd::Constant(1, -3.0));
}
const Eigen::Vector2d kNonsingularSolution{1.0, 2.0};

/// A = [[1, 1], [1, 1]] (rank 1), C = (1, −1)ᵀ, a = (−2, 0): the equations are u₁ + u₂ + v = 2 and
/// u₁ + u₂ − v = 0, so v = 1 and u₁ + u₂ = 1. With D = (1, −1), B = (0), b = (0), v = 1 > 0 forces
/// w = u₁ − u₂ = 0: the unique solution is u = (1/2, 1/2), v = 1. The bordered system of α = {0}
/// is nonsingular though A is not.
Mlcp singular_a() {
  return make(Eigen::Matrix2d{{1, 1}, {1, 1}}, Eigen::MatrixXd::Zero(1, 1), Eigen::Vector2d{1, -1},
              Eigen::RowVector2d{1, -1}, Eigen::Vector2d{-2, 0}, Eigen::VectorXd::Zero(1));
}
const Eigen::Vector3d kSingularSolution{0.5, 0.5, 1.0};

/// n = 0: the LCP of Murty's 2×2, B = [[2, 1], [1, 2]], b = (−5, −6): v = (4/3, 7/3), w = 0.
Mlcp only_complementarity() {
  return make(Eigen::MatrixXd(0, 0), Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::MatrixXd(0, 2), Eigen::MatrixXd(2, 0),
              Eigen::VectorXd(0), Eigen::Vector2d{-5, -6});
}
const Eigen::Vector2d kOnlyComplementaritySolution{4.0 / 3.0, 7.0 / 3.0};

/// m = 0: the linear system 2u₁ + u₂ = 3, u₁ + 3u₂ = 5: u = (4/5, 7/5).
Mlcp only_equalities() {
  return make(Eigen::Matrix2d{{2, 1}, {1, 3}}, Eigen::MatrixXd(0, 0), Eigen::MatrixXd(2, 0), Eigen::MatrixXd(0, 2),
              Eigen::Vector2d{-3, -5}, Eigen::VectorXd(0));
}
const Eigen::Vector2d kOnlyEqualitiesSolution{0.8, 1.4};

/// A = (1), a = (−1) fixes u = 1; then w = u − v − 2 = −1 − v < 0 for every v >= 0 (D = (1),
/// B = (−1), b = (−2), C = (0)): no solution. Both bordered systems ([1] and [[1, 0], [1, −1]])
/// are nonsingular, so enum proves it; so does the Schur LCP (−1, −1).
Mlcp infeasible() {
  return make(Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::MatrixXd::Constant(1, 1, -1.0), Eigen::MatrixXd::Zero(1, 1),
              Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::VectorXd::Constant(1, -1.0),
              Eigen::VectorXd::Constant(1, -2.0));
}

// The outcome is consistent whatever the status: sizes, finiteness, residual recomputed from z,
// w = (A u + C v + a, D u + B v + b).
void expect_consistent(const Mlcp& problem, const Result& r, double tolerance = 1e-8) {
  ASSERT_EQ(r.z.size(), problem.size());
  ASSERT_EQ(r.w.size(), problem.size());
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_TRUE(r.w.allFinite());
  EXPECT_TRUE(r.w.isApprox(problem.slack(r.z), 1e-12) || (r.w - problem.slack(r.z)).norm() < 1e-12);
  const double recomputed = natural_residual(problem, r.z);
  EXPECT_NEAR(r.residual, recomputed, 1e-14 * (1 + recomputed));
  EXPECT_EQ(r.solved(), r.relative_residual <= tolerance) << r.message;
  if (r.solved()) {
    EXPECT_LE(testing_relative::relative(problem, r.z), tolerance) << r.message;
  }
}

void expect_solution(const Mlcp& problem, const Result& r, const Eigen::VectorXd& expected, double tolerance = 1e-8) {
  expect_consistent(problem, r, tolerance);
  ASSERT_TRUE(r.solved()) << r.method << ": " << to_string(r.status) << ": " << r.message;
  EXPECT_LE((r.z - expected).cwiseAbs().maxCoeff(), 1e-7) << r.method << ": z = " << r.z.transpose();
}

TEST(MlcpMethods, ListIsTheMethodsThatAcceptAnMlcp) {
  const std::vector<Method> expected{Method::Enum,      Method::Lemke,     Method::Pgs,
                                     Method::NewtonFb,  Method::NewtonMin, Method::PenalizedFb,
                                     Method::Smoothing, Method::Schur,     Method::Auto};
  EXPECT_EQ(mlcp_methods(), expected);
}

TEST(MlcpSolve, NonsingularAEveryMethod) {
  const Mlcp problem = nonsingular_a();
  for (const Method method : mlcp_methods()) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(problem, method);
    expect_solution(problem, r, kNonsingularSolution);
    EXPECT_EQ(r.method, method == Method::Auto ? Method::Schur : method);
  }
}

TEST(MlcpSolve, SingularAIsSolvedByEnumAndNewtonAndRefusedBySchur) {
  const Mlcp problem = singular_a();
  for (const Method method : {Method::Enum, Method::NewtonFb, Method::NewtonMin, Method::PenalizedFb, Method::Auto}) {
    SCOPED_TRACE(to_string(method));
    expect_solution(problem, solve(problem, method), kSingularSolution);
  }
  const Result schur = solve(problem, Method::Schur);
  expect_consistent(problem, schur);
  EXPECT_EQ(schur.status, Status::NotApplicable);
  EXPECT_NE(schur.message.find("condition number"), std::string::npos) << schur.message;
  // B(0, 0) = M(2, 2) = 0: Gauss–Seidel cannot solve row 2 for v.
  const Result pgs = solve(problem, Method::Pgs);
  expect_consistent(problem, pgs);
  EXPECT_EQ(pgs.status, Status::NotApplicable);
  EXPECT_NE(pgs.message.find("M(2, 2) = 0"), std::string::npos) << pgs.message;
  // lemke pivots u in together with v_0: the block [[A, C], [D, B]] is nonsingular.
  const Result lemke = solve(problem, Method::Lemke);
  expect_solution(problem, lemke, kSingularSolution);
  EXPECT_NE(lemke.message.find("J = {0}"), std::string::npos) << lemke.message;
}

TEST(MlcpSolve, LemkeFallsBackToTheSplitLcp) {
  // m = 0 and A = [[1, 1], [1, 1]] singular: no complementarity row can complete a pivot block,
  // so lemke runs on the split LCP. The system u₁ + u₂ = 1 has infinitely many solutions.
  const Mlcp problem = make(Eigen::Matrix2d{{1, 1}, {1, 1}}, Eigen::MatrixXd(0, 0), Eigen::MatrixXd(2, 0),
                            Eigen::MatrixXd(0, 2), Eigen::Vector2d{-1, -1}, Eigen::VectorXd(0));
  const Result r = solve(problem, Method::Lemke);
  expect_consistent(problem, r);
  EXPECT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z[0] + r.z[1], 1.0, 1e-12);
  EXPECT_NE(r.message.find("split LCP of size 2n + m = 4"), std::string::npos) << r.message;
  EXPECT_EQ(solve(problem, Method::Schur).status, Status::NotApplicable);
}

TEST(MlcpSolve, EveryMethodFindsTheUniqueSolutionOfRandomPositiveDefiniteProblems) {
  // M = GᵀG + ½I is symmetric positive definite, so A and the Schur complement are too and the
  // MLCP has exactly one solution: every method must return it, and pgs converges.
  std::mt19937 rng(20261202);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::Index n = 4;
    const Eigen::Index m = 5;
    Eigen::MatrixXd G(n + m, n + m);
    for (Eigen::Index j = 0; j < n + m; ++j) {
      for (Eigen::Index i = 0; i < n + m; ++i) G(i, j) = uniform(rng);
    }
    Eigen::VectorXd q(n + m);
    for (Eigen::Index i = 0; i < n + m; ++i) q[i] = uniform(rng);
    const Eigen::MatrixXd M = G.transpose() * G + 0.5 * Eigen::MatrixXd::Identity(n + m, n + m);
    const Mlcp problem = mlcp_from_blocks(M, q, n);
    const Result reference = solve(problem, Method::Enum);
    ASSERT_TRUE(reference.solved()) << reference.message;
    for (const Method method : mlcp_methods()) {
      SCOPED_TRACE(to_string(method) + ", trial " + std::to_string(trial));
      expect_solution(problem, solve(problem, method, {.tolerance = 1e-10}), reference.z, 1e-10);
    }
  }
}

TEST(MlcpSolve, AutoListsEveryAttempt) {
  const Result r = solve(singular_a(), Method::Auto);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_EQ(r.message.rfind("auto (schur: not-applicable; ", 0), 0u) << r.message;
}

TEST(MlcpSolve, NoEqualitiesIsAnLcp) {
  const Mlcp problem = only_complementarity();
  for (const Method method : mlcp_methods()) {
    SCOPED_TRACE(to_string(method));
    expect_solution(problem, solve(problem, method), kOnlyComplementaritySolution);
  }
}

TEST(MlcpSolve, NoComplementarityIsALinearSystem) {
  const Mlcp problem = only_equalities();
  for (const Method method : mlcp_methods()) {
    SCOPED_TRACE(to_string(method));
    expect_solution(problem, solve(problem, method), kOnlyEqualitiesSolution);
  }
}

TEST(MlcpSolve, EmptyProblemIsSolved) {
  const Mlcp problem = make(Eigen::MatrixXd(0, 0), Eigen::MatrixXd(0, 0), Eigen::MatrixXd(0, 0), Eigen::MatrixXd(0, 0),
                            Eigen::VectorXd(0), Eigen::VectorXd(0));
  for (const Method method : mlcp_methods()) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(problem, method);
    EXPECT_TRUE(r.solved()) << r.message;
    EXPECT_EQ(r.z.size(), 0);
  }
}

TEST(MlcpSolve, InfeasibleIsProvedByEnumSchurAndAuto) {
  const Mlcp problem = infeasible();
  for (const Method method : {Method::Enum, Method::Schur, Method::Auto}) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(problem, method);
    expect_consistent(problem, r);
    EXPECT_EQ(r.status, Status::Infeasible) << r.message;
  }
  for (const Method method : mlcp_methods()) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(problem, method, {.max_iterations = 500});
    expect_consistent(problem, r);
    EXPECT_FALSE(r.solved());
  }
}

TEST(MlcpSolve, SchurSolvesTheReducedLcpWithTheChosenMethod) {
  SolveOptions options;
  options.mlcp.schur_lcp_method = Method::Murty;
  const Result r = solve(nonsingular_a(), Method::Schur, options);
  expect_solution(nonsingular_a(), r, kNonsingularSolution);
  EXPECT_NE(r.message.find("by murty"), std::string::npos) << r.message;
}

TEST(MlcpSolve, SchurThresholdIsAnOption) {
  // A = [[1, 1], [1, 1 + 1e-6]] has condition number about 4e6 (1-norm), which no scaling of rows
  // or columns removes: eliminated by default, refused above 1e-5. u = (1, 1) solves A u = (2, 2 + 1e-6).
  const Mlcp problem =
      make(Eigen::Matrix2d{{1, 1}, {1, 1 + 1e-6}}, Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::MatrixXd::Zero(2, 1),
           Eigen::MatrixXd::Zero(1, 2), Eigen::Vector2d{-2, -(2 + 1e-6)}, Eigen::VectorXd::Constant(1, -1.0));
  const Eigen::Vector3d expected{1.0, 1.0, 1.0};
  expect_solution(problem, solve(problem, Method::Schur), expected);
  SolveOptions strict;
  strict.mlcp.schur_min_rcond = 1e-5;
  const Result refused = solve(problem, Method::Schur, strict);
  EXPECT_EQ(refused.status, Status::NotApplicable);
  EXPECT_NE(refused.message.find("condition number 4"), std::string::npos) << refused.message;
  // auto then goes on to the next method.
  expect_solution(problem, solve(problem, Method::Auto, strict), expected);
}

TEST(MlcpSolve, SchurJudgesTheConditionOfTheEquilibratedA) {
  // A = diag(1, 2⁻³⁰) is ill-conditioned only through its units: equilibrated it is I.
  const double tiny = std::ldexp(1.0, -30);
  const Mlcp problem =
      make(Eigen::Matrix2d{{1, 0}, {0, tiny}}, Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::MatrixXd::Zero(2, 1),
           Eigen::MatrixXd::Zero(1, 2), Eigen::Vector2d{-1, -tiny}, Eigen::VectorXd::Constant(1, -1.0));
  SolveOptions strict;
  strict.mlcp.schur_min_rcond = 0.5;
  const Result r = solve(problem, Method::Schur, strict);
  expect_solution(problem, r, Eigen::Vector3d{1.0, 1.0, 1.0});
  EXPECT_NE(r.message.find("condition about 1 after equilibration"), std::string::npos) << r.message;
}

TEST(MlcpSolve, EnumLimitsAreOptions) {
  // n = 0, B = [[1, 2], [0, 1]], b = (−1, −1): the guess α = {0, 1} (where b < 0) gives
  // v = (−1, 1), rejected; the solution is v = (0, 1) with w = (1, 0).
  const Mlcp guess_is_wrong = make(Eigen::MatrixXd(0, 0), Eigen::Matrix2d{{1, 2}, {0, 1}}, Eigen::MatrixXd(0, 2),
                                   Eigen::MatrixXd(2, 0), Eigen::VectorXd(0), Eigen::Vector2d{-1, -1});
  const Result limited = solve(guess_is_wrong, Method::Enum, {.max_iterations = 1});
  expect_consistent(guess_is_wrong, limited);
  EXPECT_EQ(limited.status, Status::MaxIterations) << limited.message;
  EXPECT_EQ(limited.iterations, 1);
  expect_solution(guess_is_wrong, solve(guess_is_wrong, Method::Enum), Eigen::Vector2d{0, 1});

  SolveOptions options;
  options.mlcp.enum_max_complementarities = 1;
  // Too large for enumeration is refused before any run, as for the Lcp (one rule).
  EXPECT_THAT([&] { (void)solve(only_complementarity(), Method::Enum, options); },
              testing::ThrowsMessage<InvalidProblem>(testing::HasSubstr("got m = 2")));
}

TEST(MlcpSolve, PgsNamesTheZeroDiagonal) {
  Mlcp problem = nonsingular_a();
  problem.A(0, 0) = 0.0;
  const Result r = solve(problem, Method::Pgs);
  EXPECT_EQ(r.status, Status::NotApplicable);
  EXPECT_NE(r.message.find("M(0, 0) = 0"), std::string::npos) << r.message;  // M(0, 0) = A(0, 0)
}

TEST(MlcpSolve, PgsWarmStartAtTheSolutionStopsAtOnce) {
  // The box LCP's kernel (the u rows free) tests after each sweep: done after the first.
  const Result r = solve(nonsingular_a(), Method::Pgs, {.initial_guess = Eigen::VectorXd(kNonsingularSolution)});
  EXPECT_TRUE(r.solved());
  EXPECT_EQ(r.iterations, 1);
}

// Issue 16: a diverging pgs on an MLCP ended max-iterations with |z| ~ 1e23. It now stops when
// the residual has grown 1e10-fold past the smallest seen and returns that point, finite and not
// solved, saying so.
TEST(MlcpSolve, DivergingPgsStopsWithTheBestPoint) {
  // One equality, one pair: M = [[1, 10], [10, 1]], a = 1, b = -1. By hand from z = 0: u = -1 - 10 v,
  // v = max(0, 1 - 10 u) gives (u, v) = (-1, 11), (-111, 1111), ...: a hundredfold per sweep.
  const Mlcp problem = make(Eigen::MatrixXd{{1}}, Eigen::MatrixXd{{1}}, Eigen::MatrixXd{{10}}, Eigen::MatrixXd{{10}},
                            Eigen::VectorXd::Constant(1, 1), Eigen::VectorXd::Constant(1, -1));
  const Result r = solve(problem, Method::Pgs);
  EXPECT_EQ(r.status, Status::NumericalFailure) << r.message;
  EXPECT_NE(r.message.find("diverges"), std::string::npos) << r.message;
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_LE(r.z.cwiseAbs().maxCoeff(), 1e3) << r.z.transpose();
  EXPECT_LT(r.iterations, 100);
  // The returned point is the best seen: no worse than the start z = 0 (residual max(|a|, |min(0, b)|) = 1).
  EXPECT_LE(r.residual, 1.0);
}

// Issue 16: an MLCP whose z = 0 is exact (n = 1, A = 0, a = 0, b >= 0) is solved by every method,
// including those (schur, pgs) that would refuse its singular A.
TEST(MlcpSolve, ZeroSolvesExactlyForEveryMethod) {
  const Mlcp problem = make(Eigen::MatrixXd::Zero(1, 1), Eigen::MatrixXd::Identity(1, 1), Eigen::MatrixXd::Zero(1, 1),
                            Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Zero(1), Eigen::VectorXd::Ones(1));
  for (const Method method : mlcp_methods()) {
    const Result r = solve(problem, method);
    EXPECT_TRUE(r.solved()) << to_string(method) << ": " << r.message;
    EXPECT_EQ(r.z, Eigen::VectorXd::Zero(2)) << to_string(method);
    EXPECT_EQ(r.method, method);
  }
}

TEST(MlcpSolve, SolutionOfAScaledProblemIsTheSame) {
  // Scaling the rows of an MLCP by s > 0 does not change its solutions.
  Mlcp problem = nonsingular_a();
  const double s = 1e-6;
  problem.A *= s;
  problem.B *= s;
  problem.C *= s;
  problem.D *= s;
  problem.a *= s;
  problem.b *= s;
  // (Not the Newton family: its descent test ∇Ψᵀd <= −ρ‖d‖^2.1 is not scale-invariant, and at
  // this scale newton-fb takes only gradient steps; that is newton.cpp's, for LCPs too.)
  for (const Method method : {Method::Enum, Method::Schur, Method::Lemke, Method::Auto}) {
    SCOPED_TRACE(to_string(method));
    const Result r = solve(problem, method, {.tolerance = 1e-14});
    ASSERT_TRUE(r.solved()) << r.message;
    EXPECT_LE((r.z - kNonsingularSolution).cwiseAbs().maxCoeff(), 1e-7);
  }
}

TEST(MlcpSolveBadInput, BlockShapesAreNamed) {
  Mlcp problem = nonsingular_a();
  problem.C = Eigen::MatrixXd::Zero(1, 2);
  try {
    (void)solve(problem, Method::Auto);
    FAIL() << "expected InvalidProblem";
  } catch (const InvalidProblem& error) {
    EXPECT_NE(std::string(error.what()).find("C: expected 1x1"), std::string::npos) << error.what();
  }
}

TEST(MlcpSolveBadInput, NonFiniteEntriesAreRefused) {
  Mlcp problem = nonsingular_a();
  problem.b[0] = std::nan("");
  EXPECT_THROW((void)solve(problem, Method::Enum), InvalidProblem);
  problem = nonsingular_a();
  problem.A(0, 0) = INFINITY;
  EXPECT_THROW((void)solve(problem, Method::Schur), InvalidProblem);
}

TEST(MlcpSolveBadInput, MethodsWithoutAnMlcpFormAreRefused) {
  for (const Method method : {Method::Murty, Method::Psor, Method::InteriorPoint, Method::Dantzig, Method::Nsgs}) {
    SCOPED_TRACE(to_string(method));
    try {
      (void)solve(nonsingular_a(), method);
      FAIL() << "expected InvalidProblem";
    } catch (const InvalidProblem& error) {
      EXPECT_NE(std::string(error.what()).find("does not accept an Mlcp"), std::string::npos) << error.what();
    }
  }
}

TEST(MlcpSolveBadInput, OptionsAreValidated) {
  const auto refuses = [](const SolveOptions& options, const std::string& field) {
    try {
      (void)solve(nonsingular_a(), Method::Auto, options);
      ADD_FAILURE() << "expected InvalidProblem for " << field;
    } catch (const InvalidProblem& error) {
      EXPECT_NE(std::string(error.what()).find(field), std::string::npos) << error.what();
    }
  };
  SolveOptions options;
  options.mlcp.schur_min_rcond = 0.0;
  refuses(options, "mlcp.schur_min_rcond");
  options = {};
  options.mlcp.schur_min_rcond = 2.0;
  refuses(options, "mlcp.schur_min_rcond");
  options = {};
  options.mlcp.schur_lcp_method = Method::Schur;
  refuses(options, "mlcp.schur_lcp_method");
  options = {};
  options.mlcp.enum_max_complementarities = 31;
  refuses(options, "mlcp.enum_max_complementarities");
  options = {};
  options.initial_guess = Eigen::VectorXd::Zero(1);  // z = (u, v) has 2 entries
  refuses(options, "initial_guess");
  EXPECT_THROW((void)solve(nonsingular_a(), Method::Pgs, {.relaxation = 1.5}), InvalidProblem);
  EXPECT_THROW((void)solve(nonsingular_a(), Method::Enum, {.all_solutions = true}), InvalidProblem);
}

}  // namespace
}  // namespace perp::solvers_mlcp_test
