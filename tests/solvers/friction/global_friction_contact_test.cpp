#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "../../core/global_test_problems.hpp"
#include "perp/core/error.hpp"
#include "perp/core/global_friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::solvers_global_friction_contact_test {
namespace {

using testing::HasSubstr;
using test::sliding_mass;
using test::sparse;

/// The law's conditions at (v, r), written out here apart from the library's residuals: the largest
/// violation of M v = H r + q, r ∈ K_μ, û ∈ K_μ*, and r·û = 0 (û = u + μ‖u_T‖ e_N for Coulomb, u for
/// the convex law), each in its own units.
double worst_violation(const GlobalFrictionContact& p, const Eigen::VectorXd& v, const Eigen::VectorXd& r) {
  const Eigen::MatrixXd M(p.M);
  const Eigen::MatrixXd H(p.H);
  double worst = (M * v - H * r - p.q).cwiseAbs().maxCoeff();
  const Eigen::VectorXd u = H.transpose() * v + p.b;
  const int d = p.dimension;
  for (Eigen::Index i = 0; i < p.contacts(); ++i) {
    const Eigen::VectorXd ri = r.segment(d * i, d);
    Eigen::VectorXd ui = u.segment(d * i, d);
    const double mu = p.mu[i];
    if (p.law == FrictionLaw::Coulomb) ui[0] += mu * ui.tail(d - 1).norm();
    worst = std::max(worst, ri.tail(d - 1).norm() - mu * ri[0]);    // r in K
    worst = std::max(worst, mu * ui.tail(d - 1).norm() - ui[0]);    // û in K*
    worst = std::max(worst, std::abs(ri.dot(ui)));                  // r ⊥ û
  }
  return worst;
}

TEST(GlobalFrictionContactSolve, CoulombOnTheFactors) {
  const GlobalFrictionContact p = sliding_mass(FrictionLaw::Coulomb);
  for (Method method : {Method::Auto, Method::Nsgs, Method::InteriorPoint}) {
    Eigen::VectorXd v;
    GlobalFrictionContactResiduals criteria;
    const Result result = solve(p, method, {.tolerance = 1e-12}, v, criteria);
    ASSERT_TRUE(result.solved()) << to_string(method) << ": " << result.message;
    EXPECT_NEAR(result.z[0], 4.0, 1e-10) << to_string(method);
    EXPECT_NEAR(result.z[1], -1.2, 1e-10) << to_string(method);
    EXPECT_NEAR(v[0], 1.4, 1e-10);
    EXPECT_NEAR(v[1], 0.0, 1e-10);
    EXPECT_TRUE(result.w.isApprox(p.local_velocity(v)));
    EXPECT_LT(worst_violation(p, v, result.z), 1e-10);
    EXPECT_LE(criteria.contact.relative_error, 1e-12);
  }
}

TEST(GlobalFrictionContactSolve, TheConvexLawOnTheFactors) {
  const GlobalFrictionContact p = sliding_mass(FrictionLaw::Convex);
  Eigen::VectorXd v;
  GlobalFrictionContactResiduals criteria;
  const Result result = solve(p, Method::Auto, {.tolerance = 1e-10}, v, criteria);
  ASSERT_TRUE(result.solved()) << result.message;
  const double rn = 4 * 1.3 / 1.09;
  EXPECT_NEAR(result.z[0], rn, 1e-8);
  EXPECT_NEAR(result.z[1], -0.3 * rn, 1e-8);
  EXPECT_NEAR(v[1], (rn - 4) / 2, 1e-8);  // the lift u_N = μ u_T
  EXPECT_LT(worst_violation(p, v, result.z), 1e-8);
  // nsgs poses Coulomb's law only.
  const Result refused = solve(p, Method::Nsgs, {});
  EXPECT_EQ(refused.status, Status::NotApplicable);
  EXPECT_THAT(refused.message, HasSubstr("does not solve the convex law"));
}

// The convex law in 3D (d = 3, M diagonal): admm on the factors. A unit mass sliding along x at 2
// with a free normal velocity of −1 (b = 0): sliding, r_T = −μ r_N along x, and the lift
// u_N = μ u_T: −1 + r_N = μ (2 − μ r_N), so r_N = (1 + 2μ) / (1 + μ²).
TEST(GlobalFrictionContactSolve, TheConvexLawInThreeDimensions) {
  GlobalFrictionContact p;
  p.dimension = 3;
  p.law = FrictionLaw::Convex;
  p.M = sparse(Eigen::Matrix3d::Identity());
  Eigen::Matrix3d H;
  H << 0, 1, 0,  // x: t1
      0, 0, 1,   // y: t2
      1, 0, 0;   // z: the normal
  p.H = sparse(H);
  p.q = Eigen::Vector3d{2, 0, -1};
  p.b = Eigen::Vector3d::Zero();
  p.mu = Eigen::VectorXd::Constant(1, 0.3);
  Eigen::VectorXd v;
  GlobalFrictionContactResiduals criteria;
  const Result result = solve(p, Method::Auto, {.tolerance = 1e-10}, v, criteria);
  ASSERT_TRUE(result.solved()) << result.message;
  // auto: the interior point on the second-order cones (admm after it only where it stops short).
  EXPECT_EQ(result.method, Method::InteriorPoint);
  const double rn = 1.6 / 1.09;
  EXPECT_NEAR(result.z[0], rn, 1e-8);
  EXPECT_NEAR(result.z[1], -0.3 * rn, 1e-8);
  EXPECT_NEAR(result.z[2], 0, 1e-8);
  EXPECT_NEAR(v[0], 2 - 0.3 * rn, 1e-8);
  EXPECT_NEAR(v[2], 0.3 * v[0], 1e-8);  // the lift u_N = μ |u_T|
  EXPECT_LT(worst_violation(p, v, result.z), 1e-8);
  // admm alone solves it too; a method that does not solve the convex law refuses, naming those that do.
  Eigen::VectorXd v_admm;
  const Result by_admm = solve(p, Method::Admm, {.tolerance = 1e-10}, v_admm, criteria);
  ASSERT_TRUE(by_admm.solved()) << by_admm.message;
  EXPECT_NEAR(by_admm.z[0], rn, 1e-8);
  EXPECT_NEAR(v_admm[0], 2 - 0.3 * rn, 1e-8);
  const Result refused = solve(p, Method::Prox, {});
  EXPECT_EQ(refused.status, Status::NotApplicable);
  EXPECT_THAT(refused.message, HasSubstr("interior-point, admm (and auto)"));
}

// A mass resting on two coincident ground contacts: the reactions are not unique (any split of
// m g h), the velocity is: v = 0.
TEST(GlobalFrictionContactSolve, RedundantContactsGiveTheUniqueVelocity) {
  for (FrictionLaw law : {FrictionLaw::Coulomb, FrictionLaw::Convex}) {
    GlobalFrictionContact p;
    p.law = law;
    p.M = sparse(Eigen::Matrix2d::Identity());
    Eigen::MatrixXd H(2, 4);
    H << 0, 1, 0, 1,  // x: the tangent slots
        1, 0, 1, 0;   // y: the normal slots
    p.H = sparse(H);
    p.q = Eigen::Vector2d{0.05, -1};  // a small push along x, inside the cone μ (r_N1 + r_N2) = 0.5
    p.b = Eigen::Vector4d::Zero();
    p.mu = Eigen::Vector2d{0.5, 0.5};
    Eigen::VectorXd v;
    GlobalFrictionContactResiduals criteria;
    const Result result = solve(p, Method::Auto, {.tolerance = 1e-9}, v, criteria);
    ASSERT_TRUE(result.solved()) << law_name(law) << ": " << result.message;
    EXPECT_NEAR(v[0], 0, 1e-7);
    EXPECT_NEAR(v[1], 0, 1e-7);
    EXPECT_NEAR(result.z[0] + result.z[2], 1, 1e-7);
    EXPECT_NEAR(result.z[1] + result.z[3], -0.05, 1e-7);
    EXPECT_LT(worst_violation(p, v, result.z), 1e-7);
  }
}

// A random planar system with a dense SPD M goes through the local form: its criteria, recomputed
// here, are those of a solution.
TEST(GlobalFrictionContactSolve, ANonDiagonalMassGoesThroughTheLocalForm) {
  std::mt19937 rng(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  const int dofs = 6;
  const int contacts = 3;
  Eigen::MatrixXd A(dofs, dofs);
  for (int i = 0; i < dofs; ++i)
    for (int j = 0; j < dofs; ++j) A(i, j) = normal(rng);
  const Eigen::MatrixXd M = A * A.transpose() + dofs * Eigen::MatrixXd::Identity(dofs, dofs);
  Eigen::MatrixXd H(dofs, 2 * contacts);
  for (int i = 0; i < dofs; ++i)
    for (int j = 0; j < 2 * contacts; ++j) H(i, j) = normal(rng);
  GlobalFrictionContact p;
  p.M = sparse(M);
  p.H = sparse(H);
  p.q = Eigen::VectorXd::NullaryExpr(dofs, [&] { return normal(rng); });
  p.b = Eigen::VectorXd::NullaryExpr(2 * contacts, [&] { return normal(rng); });
  p.mu = Eigen::Vector3d{0.2, 0.5, 1.0};
  Eigen::VectorXd v;
  GlobalFrictionContactResiduals criteria;
  const Result result = solve(p, Method::Auto, {.tolerance = 1e-10}, v, criteria);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LT(worst_violation(p, v, result.z), 1e-8);
  EXPECT_TRUE(M.llt().solve(H * result.z + p.q).isApprox(v, 1e-10));
  // The convex law needs the factors (d = 2 with M diagonal): refused with the reason.
  p.law = FrictionLaw::Convex;
  const Result refused = solve(p, Method::Auto, {});
  EXPECT_EQ(refused.status, Status::NotApplicable);
  EXPECT_THAT(refused.message, HasSubstr("non-diagonal M"));
}

TEST(GlobalFrictionContactSolve, BadInputIsNamed) {
  GlobalFrictionContact p = sliding_mass(FrictionLaw::Coulomb);
  p.q[0] = std::nan("");
  EXPECT_THROW((void)solve(p), InvalidProblem);
  p = sliding_mass(FrictionLaw::Coulomb);
  SolveOptions options;
  options.initial_guess = Eigen::Vector3d::Zero();
  try {
    (void)solve(p, Method::Auto, options);
    ADD_FAILURE() << "a wrong-sized initial guess was taken";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("initial_guess"));
  }
}

}  // namespace
}  // namespace perp::solvers_global_friction_contact_test
