// Derivatives of solutions (solvers/sensitivity.hpp): hand-derived values, central finite
// differences of re-solved problems at nondegenerate points, one-sided differences along a
// direction at degenerate points, and the adjoint identity <z̄, J dv> = <Jᵀ z̄, dv>.
#include "perp/solvers/sensitivity.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "perp/core/error.hpp"
#include "perp/solvers/box_lcp.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/mlcp.hpp"
#include "perp/solvers/qp.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_sensitivity_test {
namespace {

using testing::HasSubstr;
constexpr double kInf = std::numeric_limits<double>::infinity();

double relative_gap(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return (a - b).norm() / std::max({a.norm(), b.norm(), 1e-300});
}

Eigen::MatrixXd random_matrix(std::mt19937& rng, Eigen::Index rows, Eigen::Index cols) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd A(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j)
    for (Eigen::Index i = 0; i < rows; ++i) A(i, j) = u(rng);
  return A;
}

Eigen::VectorXd random_vector(std::mt19937& rng, Eigen::Index n) { return random_matrix(rng, n, 1); }

// An LCP with a known, strictly complementary solution: z* > 0 on a random half, w* > 0 on the
// rest, q = w* − M z*. Values in [0.5, 2], so the point is nondegenerate by a wide margin.
struct Planted {
  Lcp lcp;
  Eigen::VectorXd z;
};
Planted planted_lcp(std::mt19937& rng, const Eigen::MatrixXd& M) {
  const Eigen::Index n = M.rows();
  std::uniform_real_distribution<double> value(0.5, 2.0);
  std::bernoulli_distribution active(0.5);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n), w = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) (active(rng) ? z : w)(i) = value(rng);
  return {{M, w - M * z}, z};
}

SolveOptions tight() {
  SolveOptions options;
  options.tolerance = 1e-13;
  return options;
}

Eigen::VectorXd lcp_solution(const Lcp& lcp) {
  const Result r = solve(lcp, Method::Lemke, tight());
  EXPECT_TRUE(r.solved()) << r.message;
  return r.z;
}

// Central difference of z along (dM, dq) by re-solving: z is piecewise affine in q, so away from
// a change of active set the difference is exact up to the solver's round-off.
Eigen::VectorXd lcp_difference(const Lcp& lcp, const Eigen::MatrixXd& dM, const Eigen::VectorXd& dq, double h) {
  const Lcp plus{lcp.M + h * dM, lcp.q + h * dq}, minus{lcp.M - h * dM, lcp.q - h * dq};
  return (lcp_solution(plus) - lcp_solution(minus)) / (2 * h);
}

// ---------------------------------------------------------------------------------------------

TEST(LcpSensitivity, OneDimensionalByHand) {
  // M = [m], q = [−a], z = a/m: dz/dq = −1/m, dz/dm = −a/m², so dz = −dq/m − a dm/m².
  const double m = 4, a = 3;
  const Lcp lcp{Eigen::MatrixXd::Constant(1, 1, m), Eigen::VectorXd::Constant(1, -a)};
  const LcpSensitivity s(lcp, Eigen::VectorXd::Constant(1, a / m));
  EXPECT_FALSE(s.degenerate());
  EXPECT_TRUE(s.differentiable());
  EXPECT_EQ(s.states()[0], ComponentState::Free);
  EXPECT_DOUBLE_EQ(s.jvp({}, Eigen::VectorXd::Constant(1, 1.0))(0), -1.0 / m);
  EXPECT_DOUBLE_EQ(s.jvp(Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::VectorXd())(0), -a / (m * m));
  const auto g = s.vjp(Eigen::VectorXd::Constant(1, 1.0));
  EXPECT_DOUBLE_EQ(g.q(0), -1.0 / m);
  EXPECT_DOUBLE_EQ(g.M(0, 0), -a / (m * m));
}

TEST(LcpSensitivity, InactiveComponentDoesNotMove) {
  // M = I, q = (−1, 2): z = (1, 0), w = (0, 2). dz_1 = −dq_1, dz_2 = 0 whatever the direction.
  const Lcp lcp{Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-1, 2)};
  const LcpSensitivity s(lcp, Eigen::Vector2d(1, 0));
  EXPECT_EQ(s.states()[0], ComponentState::Free);
  EXPECT_EQ(s.states()[1], ComponentState::AtLower);
  const Eigen::VectorXd dz = s.jvp({}, Eigen::Vector2d(0.3, -0.7));
  EXPECT_DOUBLE_EQ(dz(0), -0.3);
  EXPECT_DOUBLE_EQ(dz(1), 0.0);
}

TEST(LcpSensitivity, MatchesFiniteDifferencesOnPositiveDefiniteAndPMatrices) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 12; ++trial) {
    const Eigen::Index n = 3 + trial % 6;
    const Eigen::MatrixXd A = random_matrix(rng, n, n);
    // Even trials: symmetric PD; odd: a nonsymmetric P-matrix (PD symmetric part).
    const Eigen::MatrixXd M = trial % 2 == 0 ? Eigen::MatrixXd(A.transpose() * A + 0.5 * Eigen::MatrixXd::Identity(n, n))
                                             : Eigen::MatrixXd(A - A.transpose() + Eigen::MatrixXd::Identity(n, n));
    const Planted planted = planted_lcp(rng, M);
    const Eigen::VectorXd z = lcp_solution(planted.lcp);
    ASSERT_LT((z - planted.z).norm(), 1e-10);
    const LcpSensitivity s(planted.lcp, z);
    ASSERT_FALSE(s.degenerate()) << s.rule();
    const Eigen::MatrixXd dM = random_matrix(rng, n, n);
    const Eigen::VectorXd dq = random_vector(rng, n);
    const Eigen::VectorXd fd = lcp_difference(planted.lcp, dM, dq, 1e-5);
    EXPECT_LT(relative_gap(s.jvp(dM, dq), fd), 1e-6) << "trial " << trial << "\n" << s.jvp(dM, dq).transpose() << "\n"
                                                   << fd.transpose();
  }
}

TEST(LcpSensitivity, PsdSingularMatrixWithNonsingularActiveBlock) {
  // M = B Bᵀ of rank 2 in n = 5; z* supported on two components whose block is nonsingular.
  std::mt19937 rng(11);
  const Eigen::MatrixXd B = random_matrix(rng, 5, 2);
  const Eigen::MatrixXd M = B * B.transpose();
  Eigen::VectorXd z = Eigen::VectorXd::Zero(5), w = Eigen::VectorXd::Zero(5);
  z << 1.0, 0.7, 0, 0, 0;
  const Eigen::VectorXd Mz = M * z;
  for (Eigen::Index i = 2; i < 5; ++i) w(i) = 1.0 + std::abs(Mz(i));
  const Lcp lcp{M, w - Mz};
  const LcpSensitivity s(lcp, z);
  ASSERT_TRUE(s.differentiable()) << s.rule();
  const Eigen::MatrixXd dM = random_matrix(rng, 5, 5);
  const Eigen::VectorXd dq = random_vector(rng, 5);
  // The solution is unique near z (the active block is nonsingular and w_β > 0), but Lemke may
  // pick another solution of the perturbed problem; the directional derivative is the active-set
  // formula, checked here against the formula solved independently by a dense solve.
  const Eigen::VectorXd p = dM * z + dq;
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(5);
  expected.head(2) = -M.topLeftCorner(2, 2).lu().solve(p.head(2));
  EXPECT_LT(relative_gap(s.jvp(dM, dq), expected), 1e-12);
}

TEST(LcpSensitivity, AdjointMatchesTangent) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 6; ++trial) {
    const Eigen::Index n = 4 + trial;
    const Eigen::MatrixXd A = random_matrix(rng, n, n);
    const Planted planted = planted_lcp(rng, A.transpose() * A + Eigen::MatrixXd::Identity(n, n));
    const LcpSensitivity s(planted.lcp, planted.z);
    const Eigen::MatrixXd dM = random_matrix(rng, n, n);
    const Eigen::VectorXd dq = random_vector(rng, n), z_bar = random_vector(rng, n);
    const auto g = s.vjp(z_bar);
    const double left = z_bar.dot(s.jvp(dM, dq));
    const double right = (g.M.array() * dM.array()).sum() + g.q.dot(dq);
    EXPECT_NEAR(left, right, 1e-12 * std::max(1.0, std::abs(left)));
  }
}

TEST(LcpSensitivity, DegeneratePointDirectionalAndRules) {
  // M = [1], q = [0]: z = 0 = w, degenerate. z(q) = max(0, −q): along dq = −1 the one-sided
  // derivative is 1, along dq = +1 it is 0.
  const Lcp lcp{Eigen::MatrixXd::Identity(1, 1), Eigen::VectorXd::Zero(1)};
  const LcpSensitivity bound(lcp, Eigen::VectorXd::Zero(1));
  EXPECT_TRUE(bound.degenerate());
  EXPECT_EQ(bound.states()[0], ComponentState::DegenerateLower);
  EXPECT_THAT(bound.rule(), HasSubstr("1 degenerate"));
  const auto down = bound.directional({}, Eigen::VectorXd::Constant(1, -1.0));
  ASSERT_TRUE(down.solve.solved()) << down.solve.message;
  EXPECT_NEAR(down.dz(0), 1.0, 1e-14);
  EXPECT_NEAR(bound.directional({}, Eigen::VectorXd::Constant(1, 1.0)).dz(0), 0.0, 1e-14);
  // The two generalized Jacobian elements.
  EXPECT_DOUBLE_EQ(bound.jvp({}, Eigen::VectorXd::Constant(1, -1.0))(0), 0.0);
  SensitivityOptions free_rule;
  free_rule.degenerate = DegenerateRule::Free;
  const LcpSensitivity free(lcp, Eigen::VectorXd::Zero(1), free_rule);
  EXPECT_DOUBLE_EQ(free.jvp({}, Eigen::VectorXd::Constant(1, -1.0))(0), 1.0);
  EXPECT_DOUBLE_EQ(free.jvp({}, Eigen::VectorXd::Constant(1, 1.0))(0), -1.0);
}

TEST(LcpSensitivity, DegenerateDirectionalMatchesOneSidedDifferences) {
  // A planted solution with two degenerate components (z_i = w_i = 0); along random directions
  // the directional derivative equals the forward difference (z is piecewise affine in q).
  std::mt19937 rng(5);
  const Eigen::Index n = 6;
  const Eigen::MatrixXd A = random_matrix(rng, n, n);
  const Eigen::MatrixXd M = A.transpose() * A + Eigen::MatrixXd::Identity(n, n);
  Eigen::VectorXd z(n), w(n);
  z << 1.2, 0.8, 0, 0, 0, 0;
  w << 0, 0, 0.9, 1.5, 0, 0;
  const Lcp lcp{M, w - M * z};
  const LcpSensitivity s(lcp, z);
  ASSERT_TRUE(s.degenerate());
  for (int trial = 0; trial < 8; ++trial) {
    const Eigen::VectorXd dq = random_vector(rng, n);
    const auto d = s.directional({}, dq);
    ASSERT_TRUE(d.solve.solved()) << d.solve.message;
    const double h = 1e-6;
    const Eigen::VectorXd forward = (lcp_solution({M, lcp.q + h * dq}) - z) / h;
    EXPECT_LT(relative_gap(d.dz, forward), 1e-6) << "trial " << trial;
  }
}

TEST(LcpSensitivity, SingularActiveBlockIsNotDifferentiable) {
  // M = [[1, 1], [1, 1]], q = (−1, −1): every z >= 0 with z1 + z2 = 1 solves; at (½, ½) no derivative.
  const Lcp lcp{Eigen::MatrixXd::Ones(2, 2), Eigen::Vector2d(-1, -1)};
  const LcpSensitivity s(lcp, Eigen::Vector2d(0.5, 0.5));
  EXPECT_FALSE(s.differentiable());
  EXPECT_THAT(s.rule(), HasSubstr("singular"));
  try {
    (void)s.jvp({}, Eigen::Vector2d(1, 0));
    FAIL() << "jvp at a point with no derivative must throw";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("not locally unique"));
  }
}

TEST(LcpSensitivity, DegenerateVertexOfASegmentOfSolutionsHasNoDerivative) {
  // docs/sensitivity.md's example (issue 38): M = ones(2, 2), q = (−1, −1). At the vertex z = (1, 0)
  // (what auto, enum and pgs return) z1 is free and z2 degenerate (z2 = 0 = w2), the free block
  // [1] is nonsingular, but the Schur complement on z2 is 1 − 1·1⁻¹·1 = 0, not a P-matrix: the
  // solutions (1 − s, s) fill a segment, so no derivative exists. It used to report jvp = (−1, 0)
  // and a directional (−819.5, 819) beside "no solution found".
  const Lcp lcp{Eigen::MatrixXd::Ones(2, 2), Eigen::Vector2d(-1, -1)};
  for (const Eigen::Vector2d& z : {Eigen::Vector2d(1, 0), Eigen::Vector2d(0, 1)}) {
    const LcpSensitivity s(lcp, z);
    EXPECT_TRUE(s.degenerate());
    EXPECT_FALSE(s.locally_unique());
    EXPECT_FALSE(s.differentiable());
    EXPECT_THAT(s.rule(), HasSubstr("not locally unique"));
    EXPECT_THAT(s.rule(), HasSubstr("not a P-matrix"));
    EXPECT_THROW((void)s.jvp({}, Eigen::Vector2d(1, 0)), InvalidProblem);
    EXPECT_THROW((void)s.vjp(Eigen::Vector2d(1, 0)), InvalidProblem);
    const auto d = s.directional({}, Eigen::Vector2d(1, 0));
    EXPECT_EQ(d.solve.status, Status::NotApplicable);
    EXPECT_EQ(d.dz.size(), 0);
    EXPECT_THAT(d.solve.message, HasSubstr("not a P-matrix"));
  }
  // M = [0], q = [0]: every z >= 0 solves; z = 0 is degenerate with S = [0].
  const LcpSensitivity flat({Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Zero(1)}, Eigen::VectorXd::Zero(1));
  EXPECT_FALSE(flat.differentiable());
}

TEST(LcpSensitivity, DegenerateWithAPMatrixSchurComplementIsLocallyUnique) {
  // M = [[1, 3], [0, 1]], q = 0, z = 0: both components degenerate, S = M is a P-matrix (minors
  // 1, 1, 1) whose symmetric part [[1, 1.5], [1.5, 1]] is indefinite: decided by the minors.
  // Along q = t (−1, −1), t > 0: both positive needs z = (−2t, t), infeasible; z = (t, 0) gives
  // w2 = −t < 0; z = (0, t) gives w = (2t, 0) >= 0, the one solution: dz = (0, 1).
  Eigen::Matrix2d M;
  M << 1, 3, 0, 1;
  const LcpSensitivity s({M, Eigen::Vector2d::Zero()}, Eigen::Vector2d::Zero());
  EXPECT_TRUE(s.locally_unique()) << s.rule();
  EXPECT_TRUE(s.differentiable()) << s.rule();
  const auto d = s.directional({}, Eigen::Vector2d(-1, -1));
  ASSERT_TRUE(d.solve.solved()) << d.solve.message;
  EXPECT_NEAR(d.dz(0), 0.0, 1e-14);
  EXPECT_NEAR(d.dz(1), 1.0, 1e-14);
}

TEST(LcpSensitivity, RefusesBadInput) {
  const Lcp lcp{Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-1, 2)};
  EXPECT_THROW(LcpSensitivity(lcp, Eigen::Vector3d(1, 0, 0)), InvalidProblem);
  try {
    LcpSensitivity s(lcp, Eigen::Vector2d(0.5, 0));
    FAIL() << "a point that is not a solution must be refused";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("not a solution"));
  }
  SensitivityOptions bad;
  bad.tolerance = 0;
  EXPECT_THROW(LcpSensitivity(lcp, Eigen::Vector2d(1, 0), bad), InvalidProblem);
  const LcpSensitivity s(lcp, Eigen::Vector2d(1, 0));
  EXPECT_THROW((void)s.jvp(Eigen::MatrixXd::Zero(3, 3), Eigen::Vector2d(0, 0)), InvalidProblem);
  EXPECT_THROW((void)s.vjp(Eigen::Vector3d(1, 0, 0)), InvalidProblem);
  EXPECT_THROW((void)s.jvp({}, Eigen::Vector2d(std::nan(""), 0)), InvalidProblem);
}

TEST(LcpSensitivity, ScaleInvariantStates) {
  // The same problem scaled by 1e-150 and 1e150 sorts its components the same way.
  std::mt19937 rng(13);
  const Eigen::MatrixXd A = random_matrix(rng, 5, 5);
  const Planted planted = planted_lcp(rng, A.transpose() * A + Eigen::MatrixXd::Identity(5, 5));
  const LcpSensitivity reference(planted.lcp, planted.z);
  for (double scale : {1e-150, 1e150}) {
    const LcpSensitivity scaled(Lcp{scale * planted.lcp.M, scale * planted.lcp.q}, planted.z);
    EXPECT_EQ(scaled.states(), reference.states()) << scale;
    // dz/dq scales as 1/scale.
    const Eigen::VectorXd dq = Eigen::VectorXd::Ones(5);
    EXPECT_LT(relative_gap(scaled.jvp({}, dq) * scale, reference.jvp({}, dq)), 1e-12) << scale;
  }
}

// ---------------------------------------------------------------------------------------------

TEST(BoxLcpSensitivity, BoundsMoveTheComponentsAtThem) {
  // M = I, q = (−5, 3, 0.5), box [−1, 2]³: z = (2, −1, −0.5), w = (−3, 2, 0): at upper, at lower, free.
  BoxLcp box{Eigen::MatrixXd::Identity(3, 3), Eigen::Vector3d(-5, 3, 0.5), Eigen::Vector3d::Constant(-1),
             Eigen::Vector3d::Constant(2), {}};
  const BoxLcpSensitivity s(box, Eigen::Vector3d(2, -1, -0.5));
  EXPECT_EQ(s.states()[0], ComponentState::AtUpper);
  EXPECT_EQ(s.states()[1], ComponentState::AtLower);
  EXPECT_EQ(s.states()[2], ComponentState::Free);
  BoxLcpSensitivity::Perturbation d;
  d.lower = Eigen::Vector3d(0.1, 0.2, 0.3);
  d.upper = Eigen::Vector3d(0.4, 0.5, 0.6);
  d.q = Eigen::Vector3d(1, 1, 1);
  const Eigen::VectorXd dz = s.jvp(d);
  EXPECT_DOUBLE_EQ(dz(0), 0.4);
  EXPECT_DOUBLE_EQ(dz(1), 0.2);
  EXPECT_DOUBLE_EQ(dz(2), -1.0);
  const auto g = s.vjp(Eigen::Vector3d(1, 1, 1));
  EXPECT_DOUBLE_EQ(g.upper(0), 1.0);
  EXPECT_DOUBLE_EQ(g.lower(1), 1.0);
  EXPECT_DOUBLE_EQ(g.q(2), -1.0);
  EXPECT_DOUBLE_EQ(g.lower(0), 0.0);
}

TEST(BoxLcpSensitivity, FrictionSlidingFollowsTheNormal) {
  // Normal 0, tangent 1 coupled with μ; M = I, q = (−2, 3): z_N = 2, sliding z_T = −μ z_N at its
  // lower bound with w_T = z_T + 3 > 0. dz_T = −(μ dz_N + z_N dμ), dz_N = −dq_N.
  const double mu = 0.5;
  BoxLcp box{Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-2, 3), Eigen::Vector2d(0, -kInf),
             Eigen::Vector2d(kInf, kInf), {{1, 0, mu}}};
  const Eigen::Vector2d z(2, -1);
  const BoxLcpSensitivity s(box, z);
  EXPECT_EQ(s.states()[1], ComponentState::AtLower);
  BoxLcpSensitivity::Perturbation d;
  d.q = Eigen::Vector2d(0.3, 0);
  d.mu = Eigen::VectorXd::Constant(1, 0.1);
  const Eigen::VectorXd dz = s.jvp(d);
  EXPECT_DOUBLE_EQ(dz(0), -0.3);
  EXPECT_DOUBLE_EQ(dz(1), -(mu * -0.3 + 2 * 0.1));
  // Adjoint identity on the same perturbation.
  const Eigen::Vector2d z_bar(0.7, -1.3);
  const auto g = s.vjp(z_bar);
  EXPECT_NEAR(z_bar.dot(dz), g.q.dot(d.q) + g.mu.dot(d.mu), 1e-15);
}

TEST(BoxLcpSensitivity, MatchesFiniteDifferencesAndAdjoint) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> value(0.5, 2.0);
  for (int trial = 0; trial < 8; ++trial) {
    const Eigen::Index n = 5 + trial % 3;
    const Eigen::MatrixXd A = random_matrix(rng, n, n);
    const Eigen::MatrixXd M = A.transpose() * A + Eigen::MatrixXd::Identity(n, n);
    // Planted: component i free (w = 0), at lower (w > 0) or at upper (w < 0), by i mod 3.
    Eigen::VectorXd lower(n), upper(n), z(n), w(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      lower(i) = -value(rng);
      upper(i) = value(rng);
      if (i % 3 == 0) { z(i) = 0.3 * (lower(i) + upper(i)); w(i) = 0; }
      if (i % 3 == 1) { z(i) = lower(i); w(i) = value(rng); }
      if (i % 3 == 2) { z(i) = upper(i); w(i) = -value(rng); }
    }
    const BoxLcp box{M, w - M * z, lower, upper, {}};
    const BoxLcpSensitivity s(box, z);
    ASSERT_FALSE(s.degenerate()) << s.rule();
    BoxLcpSensitivity::Perturbation d;
    d.M = random_matrix(rng, n, n);
    d.q = random_vector(rng, n);
    d.lower = random_vector(rng, n);
    d.upper = random_vector(rng, n);
    const double h = 1e-6;
    const auto solved = [&](double t) {
      BoxLcp moved{M + t * d.M, box.q + t * d.q, lower + t * d.lower, upper + t * d.upper, {}};
      const Result r = solve(moved, Method::Dantzig, tight());
      EXPECT_TRUE(r.solved()) << r.message;
      return r.z;
    };
    const Eigen::VectorXd fd = (solved(h) - solved(-h)) / (2 * h);
    EXPECT_LT(relative_gap(s.jvp(d), fd), 1e-6) << "trial " << trial;
    const Eigen::VectorXd z_bar = random_vector(rng, n);
    const auto g = s.vjp(z_bar);
    const double right = (g.M.array() * d.M.array()).sum() + g.q.dot(d.q) + g.lower.dot(d.lower) + g.upper.dot(d.upper);
    EXPECT_NEAR(z_bar.dot(s.jvp(d)), right, 1e-11 * std::max(1.0, std::abs(right)));
  }
}

// ---------------------------------------------------------------------------------------------

TEST(MlcpSensitivity, MatchesFiniteDifferencesAndAdjoint) {
  std::mt19937 rng(23);
  for (int trial = 0; trial < 6; ++trial) {
    const Eigen::Index n = 2 + trial % 2, m = 3 + trial % 3;
    const Eigen::MatrixXd R = random_matrix(rng, n + m, n + m);
    const Eigen::MatrixXd K = R.transpose() * R + Eigen::MatrixXd::Identity(n + m, n + m);
    std::uniform_real_distribution<double> value(0.5, 2.0);
    Eigen::VectorXd z(n + m), w = Eigen::VectorXd::Zero(n + m);
    for (Eigen::Index i = 0; i < n; ++i) z(i) = value(rng) - 1.25;  // free u, any sign
    for (Eigen::Index i = n; i < n + m; ++i) {
      if (i % 2 == 0) z(i) = value(rng);
      else { z(i) = 0; w(i) = value(rng); }
    }
    const Mlcp mlcp = mlcp_from_blocks(K, w - K * z, n);
    const MlcpSensitivity s(mlcp, z);
    ASSERT_FALSE(s.degenerate()) << s.rule();
    MlcpSensitivity::Blocks d{random_matrix(rng, n, n), random_matrix(rng, m, m), random_matrix(rng, n, m),
                              random_matrix(rng, m, n), random_vector(rng, n), random_vector(rng, m)};
    const double h = 1e-6;
    const auto solved = [&](double t) {
      Mlcp moved{mlcp.A + t * d.A, mlcp.B + t * d.B, mlcp.C + t * d.C, mlcp.D + t * d.D, mlcp.a + t * d.a,
                 mlcp.b + t * d.b};
      const Result r = solve(moved, Method::Auto, tight());
      EXPECT_TRUE(r.solved()) << r.message;
      return r.z;
    };
    const Eigen::VectorXd fd = (solved(h) - solved(-h)) / (2 * h);
    const Eigen::VectorXd dz = s.jvp(d);
    EXPECT_LT(relative_gap(dz, fd), 1e-6) << "trial " << trial;
    const Eigen::VectorXd z_bar = random_vector(rng, n + m);
    const auto g = s.vjp(z_bar);
    const auto inner = [](const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a.array() * b.array()).sum(); };
    const double right = inner(g.A, d.A) + inner(g.B, d.B) + inner(g.C, d.C) + inner(g.D, d.D) + g.a.dot(d.a) + g.b.dot(d.b);
    EXPECT_NEAR(z_bar.dot(dz), right, 1e-11 * std::max(1.0, std::abs(right)));
  }
}

// ---------------------------------------------------------------------------------------------

TEST(QpSensitivity, UnconstrainedMinimizerByHand) {
  // min ½ q x² + c x, x >= 0 with c < 0: x = −c/q; dx/dc = −1/q, dx/dq = c/q².
  const Qp qp{Eigen::MatrixXd::Constant(1, 1, 2.0), Eigen::VectorXd::Constant(1, -3.0), Eigen::MatrixXd(0, 1),
              Eigen::VectorXd(0)};
  const QpSensitivity s(qp, Eigen::VectorXd::Constant(1, 1.5), Eigen::VectorXd(0));
  QpSensitivity::Data d;
  d.c = Eigen::VectorXd::Constant(1, 1.0);
  EXPECT_DOUBLE_EQ(s.jvp(d).x(0), -0.5);
  d.c = Eigen::VectorXd();
  d.Q = Eigen::MatrixXd::Constant(1, 1, 1.0);
  EXPECT_DOUBLE_EQ(s.jvp(d).x(0), -3.0 / 4.0);
  const auto g = s.vjp(Eigen::VectorXd::Constant(1, 1.0));
  EXPECT_DOUBLE_EQ(g.c(0), -0.5);
  EXPECT_DOUBLE_EQ(g.Q(0, 0), -0.75);
}

TEST(QpSensitivity, MatchesFiniteDifferencesAndAdjoint) {
  std::mt19937 rng(29);
  const Eigen::Index n = 5, k = 3;
  const Eigen::MatrixXd R = random_matrix(rng, n, n);
  const Eigen::MatrixXd Q = R.transpose() * R + Eigen::MatrixXd::Identity(n, n);
  Qp qp{Q, random_vector(rng, n), random_matrix(rng, k, n), random_vector(rng, k)};
  const QpResult base = solve(qp, Method::Lemke, tight());
  ASSERT_TRUE(base.solved()) << base.lcp.message;
  const QpSensitivity s(qp, base.x, base.mu);
  ASSERT_FALSE(s.degenerate()) << s.rule();
  QpSensitivity::Data d;
  const Eigen::MatrixXd S = random_matrix(rng, n, n);
  d.Q = S + S.transpose();
  d.A = random_matrix(rng, k, n);
  d.c = random_vector(rng, n);
  d.b = random_vector(rng, k);
  const double h = 1e-6;
  const auto solved = [&](double t) {
    const QpResult r = solve(Qp{Q + t * d.Q, qp.c + t * d.c, qp.A + t * d.A, qp.b + t * d.b}, Method::Lemke, tight());
    EXPECT_TRUE(r.solved()) << r.lcp.message;
    return r.x;
  };
  const Eigen::VectorXd fd = (solved(h) - solved(-h)) / (2 * h);
  const auto dx = s.jvp(d).x;
  EXPECT_LT(relative_gap(dx, fd), 1e-6);
  const Eigen::VectorXd x_bar = random_vector(rng, n);
  const auto g = s.vjp(x_bar);
  const double right =
      (g.Q.array() * d.Q.array()).sum() + (g.A.array() * d.A.array()).sum() + g.c.dot(d.c) + g.b.dot(d.b);
  EXPECT_NEAR(x_bar.dot(dx), right, 1e-11 * std::max(1.0, std::abs(right)));
}

// ---------------------------------------------------------------------------------------------

TEST(FrictionContactSensitivity, SlidingContactByHand) {
  // One contact, W = I, q = (−1, 2), μ = 0.5: r_N = 1 (u_N = 0), the stick impulse −2 leaves the
  // cone, so r_T = −μ r_N = −0.5 and u_T = 1.5 (sliding). dr_N = −dq_N; dr_T = −(μ dr_N + r_N dμ).
  const FrictionContact fc = friction_contact_from_dense(2, Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-1, 2),
                                                         Eigen::VectorXd::Constant(1, 0.5));
  const FrictionContactSensitivity s(fc, Eigen::Vector2d(1, -0.5));
  EXPECT_EQ(s.states()[0], ComponentState::Free);
  EXPECT_EQ(s.states()[1], ComponentState::AtLower);
  FrictionContactSensitivity::Perturbation d;
  d.q = Eigen::Vector2d(0.2, 0.4);
  d.mu = Eigen::VectorXd::Constant(1, 0.1);
  const Eigen::VectorXd dr = s.jvp(d);
  EXPECT_DOUBLE_EQ(dr(0), -0.2);
  EXPECT_DOUBLE_EQ(dr(1), -(0.5 * -0.2 + 1 * 0.1));
}

TEST(FrictionContactSensitivity, StickingContactByHand) {
  // W = I, q = (−1, 0.2), μ = 0.5: r = (1, −0.2) inside the cone, u = 0: dr = −dq, μ has no effect.
  const FrictionContact fc = friction_contact_from_dense(2, Eigen::MatrixXd::Identity(2, 2), Eigen::Vector2d(-1, 0.2),
                                                         Eigen::VectorXd::Constant(1, 0.5));
  const FrictionContactSensitivity s(fc, Eigen::Vector2d(1, -0.2));
  EXPECT_EQ(s.states()[1], ComponentState::Free);
  FrictionContactSensitivity::Perturbation d;
  d.q = Eigen::Vector2d(0.2, 0.4);
  d.mu = Eigen::VectorXd::Constant(1, 0.3);
  EXPECT_TRUE(s.jvp(d).isApprox(Eigen::Vector2d(-0.2, -0.4)));
}

TEST(FrictionContactSensitivity, MatchesFiniteDifferencesAndAdjoint) {
  // Three contacts on a positive definite W, planted: one sticking, one sliding, one taking off.
  std::mt19937 rng(31);
  const Eigen::Index nc = 3, n = 2 * nc;
  const Eigen::MatrixXd R = random_matrix(rng, n, n);
  const Eigen::MatrixXd W = 0.3 * R.transpose() * R + Eigen::MatrixXd::Identity(n, n);
  const Eigen::Vector3d mu(0.6, 0.4, 0.5);
  Eigen::VectorXd r(n), u(n);
  r << 1.0, 0.2, 0.8, -0.4 * 0.8, 0, 0;  // stick (|0.2| < 0.6), slide at the lower bound, take-off
  u << 0, 0, 0, 0.7, 0.9, -0.3;          // sliding with u_T > 0 against r_T < 0; take-off u_N > 0
  const FrictionContact fc = friction_contact_from_dense(2, W, u - W * r, mu);
  const FrictionContactSensitivity s(fc, r);
  ASSERT_FALSE(s.degenerate()) << s.rule();
  FrictionContactSensitivity::Perturbation d;
  d.W = random_matrix(rng, n, n);
  d.W = 0.5 * (d.W + Eigen::MatrixXd(d.W.transpose()));
  d.q = random_vector(rng, n);
  d.mu = random_vector(rng, nc);
  const double h = 1e-5;
  SolveOptions options;
  options.tolerance = 1e-14;
  const auto solved = [&](double t) {
    const FrictionContact moved = friction_contact_from_dense(2, W + t * d.W, fc.q + t * d.q, mu + t * d.mu);
    SolveOptions warm = options;
    warm.initial_guess = r;
    const Result res = solve(moved, Method::Auto, warm);
    EXPECT_TRUE(res.solved()) << res.message;
    return res.z;
  };
  const Eigen::VectorXd fd = (solved(h) - solved(-h)) / (2 * h);
  const Eigen::VectorXd dr = s.jvp(d);
  EXPECT_LT(relative_gap(dr, fd), 1e-6) << dr.transpose() << "\n" << fd.transpose();
  const Eigen::VectorXd r_bar = random_vector(rng, n);
  const auto g = s.vjp(r_bar);
  const double right = (g.W.array() * d.W.array()).sum() + g.q.dot(d.q) + g.mu.dot(d.mu);
  EXPECT_NEAR(r_bar.dot(dr), right, 1e-11 * std::max(1.0, std::abs(right)));
}

TEST(FrictionContactSensitivity, RefusesThreeDimensions) {
  const FrictionContact fc = friction_contact_from_dense(3, Eigen::MatrixXd::Identity(3, 3), Eigen::Vector3d(-1, 0, 0),
                                                         Eigen::VectorXd::Constant(1, 0.5));
  try {
    FrictionContactSensitivity s(fc, Eigen::Vector3d(1, 0, 0));
    FAIL();
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("only d = 2"));
  }
}

}  // namespace
}  // namespace perp::solvers_sensitivity_test
