#include "perp/solvers/qp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_qp_test {
namespace {

using testing::HasSubstr;

constexpr double kTolerance = 1e-8;

// The KKT conditions of min ½xᵀQx + cᵀx s.t. A x >= b, x >= 0, recomputed from the data and the
// returned x, μ alone (not from the LCP): stationarity, feasibility, signs, complementarity.
// Solved means the KKT LCP's relative residual meets the tolerance (docs/solvers.md): w against
// its ‖q‖∞ = max(‖c‖∞, ‖b‖∞), z = (x, μ) against ‖z‖∞, so the bounds below carry those scales.
void expect_kkt(const Qp& p, const QpResult& r) {
  const double w_scale = std::max(p.c.size() ? p.c.cwiseAbs().maxCoeff() : 0.0, p.b.size() ? p.b.cwiseAbs().maxCoeff() : 0.0);
  const double z_scale = std::max(r.x.size() ? r.x.cwiseAbs().maxCoeff() : 0.0, r.mu.size() ? r.mu.cwiseAbs().maxCoeff() : 0.0);
  ASSERT_EQ(r.x.size(), p.variables());
  ASSERT_EQ(r.mu.size(), p.constraints());
  ASSERT_EQ(r.nu.size(), p.variables());
  const Eigen::VectorXd nu = p.Q * r.x + p.c - p.A.transpose() * r.mu;
  const Eigen::VectorXd slack = p.A * r.x - p.b;
  for (Eigen::Index i = 0; i < p.variables(); ++i) {
    EXPECT_NEAR(r.nu[i], nu[i], kTolerance * w_scale) << "stationarity: ν_" << i << " ≠ (Qx + c − Aᵀμ)_" << i;
    EXPECT_GE(r.x[i], -kTolerance * z_scale) << "x_" << i;
    EXPECT_GE(nu[i], -kTolerance * w_scale) << "ν_" << i;
    EXPECT_NEAR(r.x[i] * nu[i], 0.0, kTolerance * w_scale * std::max(1.0, z_scale)) << "x_" << i << " ν_" << i;
  }
  for (Eigen::Index j = 0; j < p.constraints(); ++j) {
    EXPECT_GE(slack[j], -kTolerance * w_scale) << "(Ax − b)_" << j;
    EXPECT_GE(r.mu[j], -kTolerance * z_scale) << "μ_" << j;
    EXPECT_NEAR(r.mu[j] * slack[j], 0.0, kTolerance * w_scale * std::max(1.0, z_scale)) << "μ_" << j << " (Ax − b)_" << j;
  }
  EXPECT_NEAR(r.objective, 0.5 * r.x.dot(p.Q * r.x) + p.c.dot(r.x), 1e-12);
}

std::string solve_error(const Qp& p) {
  try {
    (void)solve(p);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

Eigen::MatrixXd no_rows(Eigen::Index n) { return Eigen::MatrixXd(0, n); }

// min ½(2x0² + 4x1²) − 2x0 − 8x1: the interior minimum x = (1, 2), ν = 0, objective 1 + 8 − 2 − 16 = −9.
Qp interior() {
  return Qp{Eigen::Vector2d(2, 4).asDiagonal(), Eigen::Vector2d(-2, -8), no_rows(2), Eigen::VectorXd(0)};
}

// min ½(x0² + x1²) − x0 + x1: the unconstrained minimum (1, −1) violates x1 >= 0, so x = (1, 0)
// with ν = Qx + c = (0, 1), objective ½ − 1 = −½.
Qp bound_active() { return Qp{Eigen::Matrix2d::Identity(), Eigen::Vector2d(-1, 1), no_rows(2), Eigen::VectorXd(0)}; }

// min ½(x0² + x1²) s.t. x0 + x1 >= 2: x = (1, 1), μ = 1 (Qx = Aᵀμ), ν = 0, objective 1.
Qp constraint_active() {
  return Qp{Eigen::Matrix2d::Identity(), Eigen::Vector2d::Zero(), Eigen::RowVector2d(1, 1),
            Eigen::VectorXd::Constant(1, 2)};
}

// min ½(x0² + x1²) − 3x0 s.t. x0 + x1 = 1, written as x0 + x1 >= 1 and −x0 − x1 >= −1. On the line,
// ½(x0² + (1 − x0)²) − 3x0 is least at x0 = 2, outside x1 >= 0, so x = (1, 0); stationarity in x0
// gives μ0 − μ1 = −2 (μ itself is not unique), ν = (0, 2), objective ½ − 3 = −5/2.
Qp equality() {
  return Qp{Eigen::Matrix2d::Identity(), Eigen::Vector2d(-3, 0), Eigen::Matrix2d{{1, 1}, {-1, -1}},
            Eigen::Vector2d(1, -1)};
}

// min ½(x0² + x1²) − x0 s.t. x0 >= 1: x = (1, 0) where the constraint is active with μ = 0 and x1 = 0
// with ν1 = 0: both pairs are 0·0 (degenerate). Objective ½ − 1 = −½.
Qp degenerate() {
  return Qp{Eigen::Matrix2d::Identity(), Eigen::Vector2d(-1, 0), Eigen::RowVector2d(1, 0), Eigen::VectorXd::Ones(1)};
}

class QpMethods : public testing::TestWithParam<Method> {};

TEST_P(QpMethods, InteriorMinimum) {
  const Qp p = interior();
  const QpResult r = solve(p, GetParam());
  ASSERT_TRUE(r.solved()) << r.lcp.message;
  expect_kkt(p, r);
  EXPECT_NEAR(r.x[0], 1, kTolerance);
  EXPECT_NEAR(r.x[1], 2, kTolerance);
  EXPECT_NEAR(r.nu.norm(), 0, kTolerance);
  EXPECT_EQ(r.mu.size(), 0);
  EXPECT_NEAR(r.objective, -9, kTolerance);
}

TEST_P(QpMethods, BoundActive) {
  const Qp p = bound_active();
  const QpResult r = solve(p, GetParam());
  ASSERT_TRUE(r.solved()) << r.lcp.message;
  expect_kkt(p, r);
  EXPECT_NEAR(r.x[0], 1, kTolerance);
  EXPECT_NEAR(r.x[1], 0, kTolerance);
  EXPECT_NEAR(r.nu[0], 0, kTolerance);
  EXPECT_NEAR(r.nu[1], 1, kTolerance);
  EXPECT_NEAR(r.objective, -0.5, kTolerance);
}

TEST_P(QpMethods, GeneralConstraintActiveWithItsMultiplier) {
  const Qp p = constraint_active();
  const QpResult r = solve(p, GetParam());
  ASSERT_TRUE(r.solved()) << r.lcp.message;
  expect_kkt(p, r);
  EXPECT_NEAR(r.x[0], 1, kTolerance);
  EXPECT_NEAR(r.x[1], 1, kTolerance);
  EXPECT_NEAR(r.mu[0], 1, kTolerance);
  EXPECT_NEAR(r.nu.norm(), 0, kTolerance);
  EXPECT_NEAR(r.objective, 1, kTolerance);
}

TEST_P(QpMethods, EqualityAsTwoInequalities) {
  const Qp p = equality();
  // The tolerance is relative (docs/solvers.md): w against ‖q‖∞ = 3, z against ‖z‖∞ = 2; a
  // quarter of kTolerance keeps the absolute kTolerance this test checks.
  const QpResult r = solve(p, GetParam(), {.tolerance = kTolerance / 4});
  ASSERT_TRUE(r.solved()) << r.lcp.message;
  expect_kkt(p, r);
  EXPECT_NEAR(r.x[0], 1, kTolerance);
  EXPECT_NEAR(r.x[1], 0, kTolerance);
  EXPECT_NEAR(r.mu[0] - r.mu[1], -2, kTolerance);
  EXPECT_NEAR(r.nu[1], 2, kTolerance);
  EXPECT_NEAR(r.objective, -2.5, kTolerance);
}

TEST_P(QpMethods, Degenerate) {
  const Qp p = degenerate();
  const QpResult r = solve(p, GetParam());
  ASSERT_TRUE(r.solved()) << r.lcp.message;
  expect_kkt(p, r);
  EXPECT_NEAR(r.x[0], 1, 1e-6);
  EXPECT_NEAR(r.x[1], 0, 1e-6);
  EXPECT_NEAR(r.mu[0], 0, 1e-6);
  EXPECT_NEAR(r.objective, -0.5, 1e-6);
}

// A PSD but singular Q: ½(x0 + x1)² − 2(x0 + x1) is least on the segment x0 + x1 = 2, x >= 0;
// any point of it is optimal, with objective 2 − 4 = −2.
TEST_P(QpMethods, SingularQ) {
  const Qp p{Eigen::Matrix2d{{1, 1}, {1, 1}}, Eigen::Vector2d(-2, -2), no_rows(2), Eigen::VectorXd(0)};
  const QpResult r = solve(p, GetParam());
  ASSERT_TRUE(r.solved()) << r.lcp.message;
  expect_kkt(p, r);
  EXPECT_NEAR(r.x.sum(), 2, kTolerance);
  EXPECT_NEAR(r.objective, -2, kTolerance);
}

INSTANTIATE_TEST_SUITE_P(Qp, QpMethods,
                         testing::Values(Method::Auto, Method::Lemke, Method::InteriorPoint, Method::NewtonFb,
                                         Method::Enum),
                         [](const testing::TestParamInfo<Method>& param) {
                           std::string name = to_string(param.param);
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

// Three variables, two constraints, every method: the same x, μ to round-off.
TEST(QpSolve, MethodsAgree) {
  const Qp p{Eigen::Matrix3d{{4, 1, 0}, {1, 3, 1}, {0, 1, 2}}, Eigen::Vector3d(-1, -2, 3),
             Eigen::Matrix<double, 2, 3>{{1, 1, 1}, {1, -1, 0}}, Eigen::Vector2d(2, 0.5)};
  const QpResult reference = solve(p, Method::Lemke);
  ASSERT_TRUE(reference.solved()) << reference.lcp.message;
  expect_kkt(p, reference);
  for (const Method method : {Method::InteriorPoint, Method::NewtonFb, Method::Enum, Method::Auto}) {
    SCOPED_TRACE(to_string(method));
    const QpResult r = solve(p, method);
    ASSERT_TRUE(r.solved()) << r.lcp.message;
    expect_kkt(p, r);
    EXPECT_LT((r.x - reference.x).lpNorm<Eigen::Infinity>(), 1e-7);
    EXPECT_LT((r.mu - reference.mu).lpNorm<Eigen::Infinity>(), 1e-7);
    EXPECT_NEAR(r.objective, reference.objective, 1e-7);
    EXPECT_EQ(r.lcp.z.size(), 5);
  }
}

// LCP → QP → LCP: for symmetric PSD M the QP min ½zᵀMz + qᵀz, z >= 0 has the LCP's solution as
// its minimizer, and its KKT LCP is the LCP again.
TEST(QpSolve, LcpQpLcpRoundTrip) {
  const std::vector<Lcp> problems{
      Lcp{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d{-5, -6}},
      Lcp{Eigen::Matrix3d{{2, -1, 0}, {-1, 2, -1}, {0, -1, 2}}, Eigen::Vector3d{-1, 3, -2}},
  };
  for (const Lcp& lcp : problems) {
    const Result direct = solve(lcp, Method::Lemke);
    ASSERT_TRUE(direct.solved());
    const Qp qp = qp_from_lcp(lcp);
    const QpResult through_qp = solve(qp, Method::InteriorPoint);
    ASSERT_TRUE(through_qp.solved()) << through_qp.lcp.message;
    expect_kkt(qp, through_qp);
    EXPECT_LT((through_qp.x - direct.z).lpNorm<Eigen::Infinity>(), 1e-8);
    EXPECT_LT((through_qp.nu - direct.w).lpNorm<Eigen::Infinity>(), 1e-8);
    const Lcp back = kkt_lcp(qp);
    EXPECT_EQ(back.M, lcp.M);
    EXPECT_EQ(back.q, lcp.q);
    const Result again = solve(back, Method::Enum);
    ASSERT_TRUE(again.solved());
    EXPECT_LT((again.z - direct.z).lpNorm<Eigen::Infinity>(), 1e-12);
  }
  // The first by hand: z = (4/3, 7/3).
  const Result first = solve(problems[0], Method::Lemke);
  EXPECT_NEAR(first.z[0], 4.0 / 3, 1e-14);
  EXPECT_NEAR(first.z[1], 7.0 / 3, 1e-14);
}

// −x0 − x1 >= 1 has no solution x >= 0; λ = 1 certifies it (Aᵀλ = (−1, −1) <= 0, bᵀλ = 1 > 0).
TEST(QpSolve, InfeasibleIsNotSolvedAndSaysWhy) {
  const Qp p{Eigen::Matrix2d::Identity(), Eigen::Vector2d::Zero(), Eigen::RowVector2d(-1, -1),
             Eigen::VectorXd::Ones(1)};
  for (const Method method : {Method::Lemke, Method::Auto, Method::InteriorPoint, Method::NewtonFb}) {
    SCOPED_TRACE(to_string(method));
    const QpResult r = solve(p, method);
    EXPECT_FALSE(r.solved());
    EXPECT_EQ(r.status(), Status::Infeasible);
    EXPECT_THAT(r.lcp.message, HasSubstr("the QP is infeasible: λ = [1] >= 0 has Aᵀλ <= 0 and bᵀλ = 1 > 0"));
    ASSERT_TRUE(r.lcp.ray.has_value());
    EXPECT_EQ(r.x.size(), 2);
    EXPECT_TRUE(r.x.allFinite());
  }
}

// min ½x0² − x1, x >= 0: along d = (0, 1), Q d = 0 and cᵀd = −1, and x = 0 is feasible.
TEST(QpSolve, UnboundedIsNotSolvedAndSaysWhy) {
  const Qp p{Eigen::Vector2d(1, 0).asDiagonal(), Eigen::Vector2d(0, -1), no_rows(2), Eigen::VectorXd(0)};
  for (const Method method : {Method::Lemke, Method::Auto}) {
    SCOPED_TRACE(to_string(method));
    const QpResult r = solve(p, method);
    EXPECT_EQ(r.status(), Status::Infeasible);
    EXPECT_THAT(r.lcp.message, HasSubstr("the QP is unbounded below: it is feasible and d = [0, 1] >= 0 has A d >= 0, "
                                         "Q d = 0 and cᵀd = -1 < 0"));
  }
  // With a constraint that leaves the ray open: x1 − x0 >= −1.
  const Qp constrained{Eigen::Vector2d(1, 0).asDiagonal(), Eigen::Vector2d(0, -1), Eigen::RowVector2d(-1, 1),
                       Eigen::VectorXd::Constant(1, -1)};
  const QpResult r = solve(constrained, Method::Lemke);
  EXPECT_EQ(r.status(), Status::Infeasible);
  EXPECT_THAT(r.lcp.message, HasSubstr("unbounded below"));
}

// Both at once: min −x0 s.t. −x1 >= 1. The objective falls along d = (1, 0), but no x is feasible;
// whichever part Lemke's ray shows, the answer is "infeasible" (checked by a feasibility LCP).
TEST(QpSolve, InfeasibleAndUnboundedDirectionSaysInfeasible) {
  const Qp p{Eigen::Matrix2d::Zero(), Eigen::Vector2d(-1, 0), Eigen::RowVector2d(0, -1), Eigen::VectorXd::Ones(1)};
  const QpResult r = solve(p, Method::Lemke);
  EXPECT_EQ(r.status(), Status::Infeasible);
  EXPECT_THAT(r.lcp.message, HasSubstr("the QP is infeasible: λ = [1]"));
}

TEST(QpSolve, NoVariablesOrNoConstraints) {
  // n = 0, k = 0: nothing to do.
  const QpResult empty =
      solve(Qp{Eigen::MatrixXd(0, 0), Eigen::VectorXd(0), Eigen::MatrixXd(0, 0), Eigen::VectorXd(0)});
  EXPECT_TRUE(empty.solved());
  EXPECT_EQ(empty.objective, 0);
  // An empty A given as 0×0 when there are variables.
  Qp p = bound_active();
  p.A = Eigen::MatrixXd(0, 0);
  const QpResult r = solve(p);
  ASSERT_TRUE(r.solved());
  EXPECT_NEAR(r.objective, -0.5, kTolerance);
}

TEST(QpSolve, BadInputNamesTheField) {
  Qp p = interior();
  p.Q = Eigen::Matrix2d{{1, 2}, {2, 1}};  // eigenvalues 3 and −1, eigenvector (1, −1) for −1
  EXPECT_THAT(solve_error(p), HasSubstr("Q is not positive semidefinite: x = [1, -1] gives xᵀQx = -2 < 0"));
  const Qp three{Eigen::Matrix3d{{1, 2, 0}, {2, 1, 0}, {0, 0, 3}}, Eigen::Vector3d::Zero(), no_rows(3),
                 Eigen::VectorXd(0)};
  EXPECT_THAT(solve_error(three), HasSubstr("x = [1, -1, 0] gives xᵀQx = -2 < 0 (smallest eigenvalue about -1)"));
  p.Q = Eigen::Vector2d(1, -1e-3).asDiagonal();
  EXPECT_THAT(solve_error(p), HasSubstr("x = [0, 1] gives xᵀQx = -0.001 < 0"));
  // Round-off-sized negative curvature is accepted: a PSD matrix computed in floating point.
  p.Q = Eigen::Vector2d(1, -1e-14).asDiagonal();
  EXPECT_EQ(solve_error(p), "");
  p = interior();
  p.Q(0, 1) = 0.5;
  EXPECT_THAT(solve_error(p), HasSubstr("Q must be symmetric: Q(0, 1) = 0.5 but Q(1, 0) = 0"));
  p = constraint_active();
  p.A = Eigen::MatrixXd::Ones(1, 3);
  EXPECT_THAT(solve_error(p), HasSubstr("A: expected 1x2"));
  p = constraint_active();
  p.b = Eigen::Vector2d(1, 1);
  EXPECT_THAT(solve_error(p), HasSubstr("A: expected 2x2"));
  p = constraint_active();
  p.Q = Eigen::Matrix3d::Identity();
  EXPECT_THAT(solve_error(p), HasSubstr("Q: expected 2x2"));
  p = constraint_active();
  p.b[0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(solve_error(p), HasSubstr("b[0] is NaN"));
  p = constraint_active();
  p.A(0, 1) = std::numeric_limits<double>::infinity();
  EXPECT_THAT(solve_error(p), HasSubstr("A"));
  // Bad options are named too (through the LCP solve).
  SolveOptions options;
  options.tolerance = -1;
  EXPECT_THROW((void)solve(constraint_active(), Method::Lemke, options), InvalidProblem);
}

}  // namespace
}  // namespace perp::solvers_qp_test
