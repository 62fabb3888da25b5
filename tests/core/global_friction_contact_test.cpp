#include "perp/core/global_friction_contact.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "global_test_problems.hpp"
#include "perp/core/error.hpp"

namespace perp::core_global_friction_contact_test {
namespace {

using testing::HasSubstr;
using test::sliding_mass;
using test::sparse;

std::string validation_message(const GlobalFrictionContact& problem) {
  try {
    problem.validate();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

TEST(GlobalFrictionContact, SizesVelocitiesAndTheLocalForm) {
  const GlobalFrictionContact p = sliding_mass();
  EXPECT_EQ(validation_message(p), "");
  EXPECT_EQ(p.dofs(), 2);
  EXPECT_EQ(p.contacts(), 1);
  EXPECT_EQ(p.size(), 2);
  EXPECT_TRUE(p.diagonal_mass());
  const Eigen::Vector2d r{4, -1.2};
  const Eigen::VectorXd v = global_velocity(p, r);
  EXPECT_NEAR(v[0], 1.4, 1e-15);
  EXPECT_NEAR(v[1], 0.0, 1e-15);
  const Eigen::VectorXd u = p.local_velocity(v);
  EXPECT_NEAR(u[0], 0.0, 1e-15);  // the normal slot
  EXPECT_NEAR(u[1], 1.4, 1e-15);
  // W = Hᵀ M⁻¹ H = I/2, q_local = Hᵀ M⁻¹ q = (−2, 2); u = W r + q_local as above.
  const FrictionContact local = local_problem(p);
  EXPECT_TRUE(Eigen::MatrixXd(local.W).isApprox(Eigen::Matrix2d::Identity() / 2));
  EXPECT_TRUE(local.q.isApprox(Eigen::Vector2d{-2, 2}));
  EXPECT_TRUE(local.velocity(r).isApprox(u));
  EXPECT_THROW((void)global_velocity(p, Eigen::Vector3d::Zero()), InvalidProblem);
  EXPECT_THROW((void)p.local_velocity(Eigen::Vector3d::Zero()), InvalidProblem);
}

TEST(GlobalFrictionContact, ANonDiagonalMassIsFactored) {
  // M = [[2, 1], [1, 2]], H = I, q = (1, 0): W = M⁻¹ = [[2, −1], [−1, 2]]/3, q_local = (2/3, −1/3).
  GlobalFrictionContact p = sliding_mass();
  p.M = sparse(Eigen::Matrix2d{{2, 1}, {1, 2}});
  p.H = sparse(Eigen::Matrix2d::Identity());
  p.q = Eigen::Vector2d{1, 0};
  EXPECT_EQ(validation_message(p), "");
  EXPECT_FALSE(p.diagonal_mass());
  const FrictionContact local = local_problem(p);
  EXPECT_TRUE(Eigen::MatrixXd(local.W).isApprox(Eigen::Matrix2d{{2, -1}, {-1, 2}} / 3.0));
  EXPECT_TRUE(local.q.isApprox(Eigen::Vector2d{2.0 / 3, -1.0 / 3}));
  const Eigen::VectorXd v = global_velocity(p, Eigen::Vector2d{1, 1});  // M⁻¹ (2, 1) = (1, 0)
  EXPECT_TRUE(v.isApprox(Eigen::Vector2d{1, 0}));
  // Symmetric with a positive diagonal, but indefinite: refused where it is factored.
  p.M = sparse(Eigen::Matrix2d{{1, 2}, {2, 1}});
  EXPECT_EQ(validation_message(p), "");
  try {
    (void)local_problem(p);
    ADD_FAILURE() << "an indefinite M was factored";
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("M: not positive definite"));
  }
}

TEST(GlobalFrictionContact, CriteriaOfTheCoulombSolutionAreZero) {
  const GlobalFrictionContact p = sliding_mass();
  const Eigen::Vector2d r{4, -1.2};
  const Eigen::Vector2d v{1.4, 0};
  const GlobalFrictionContactResiduals e = global_friction_contact_residuals(p, v, r);
  EXPECT_LT(e.contact.absolute_error, 1e-15);
  EXPECT_LT(e.contact.signorini, 1e-15);
  EXPECT_LT(e.contact.coulomb, 1e-15);
  EXPECT_LT(e.contact.complementarity, 1e-15);
  EXPECT_LT(e.contact.dissipation, 1e-15);
  EXPECT_LT(e.equilibrium, 1e-15);
  // Sticking (r_T = −4 would stop it) is outside the cone by 4 − 1.2 = 2.8, and the v it gives is
  // (0, 0): an equilibrium error of |M v − H r − q| = 0, a Coulomb error of 2.8.
  const GlobalFrictionContactResiduals stick = global_friction_contact_residuals(p, Eigen::Vector2d{0, 0},
                                                                                 Eigen::Vector2d{4, -4});
  EXPECT_NEAR(stick.contact.coulomb, 2.8, 1e-14);
  EXPECT_LT(stick.equilibrium, 1e-15);
  // A v that does not match r: M v − H r − q = (2·1 − (−1.2) − 4, 0) = (−0.8, 0).
  const GlobalFrictionContactResiduals off = global_friction_contact_residuals(p, Eigen::Vector2d{1, 0}, r);
  EXPECT_NEAR(off.equilibrium, 0.8, 1e-14);
  EXPECT_NEAR(off.relative_equilibrium, 0.8 / 4, 1e-14);  // max(‖q‖∞ = 4, ‖H r‖∞ = 4, ‖M v‖∞ = 2)
}

TEST(GlobalFrictionContact, TheConvexLawLiftsASlidingContact) {
  // The convex law: r = r_N (1, −μ) and u_N = μ u_T while sliding. With u_N = (r_N − 4)/2 and
  // u_T = (4 − μ r_N)/2: r_N (1 + μ²) = 4 (1 + μ), r_N = 5.2/1.09.
  const double mu = 0.3;
  const double rn = 4 * (1 + mu) / (1 + mu * mu);
  const Eigen::Vector2d r{rn, -mu * rn};
  const GlobalFrictionContact convex = sliding_mass(FrictionLaw::Convex);
  const Eigen::VectorXd v = global_velocity(convex, r);
  const Eigen::VectorXd u = convex.local_velocity(v);
  EXPECT_NEAR(u[0], mu * u[1], 1e-14);
  EXPECT_GT(u[0], 0.38);  // the lift: (rn − 4)/2 = 0.385…
  const GlobalFrictionContactResiduals e = global_friction_contact_residuals(convex, v, r);
  EXPECT_LT(e.contact.absolute_error, 1e-14);
  EXPECT_LT(e.contact.signorini, 1e-14);
  EXPECT_LT(e.contact.complementarity, 1e-14);
  EXPECT_LT(e.contact.dissipation, 1e-14);
  // The same point under Coulomb's law: u_N > 0 with r_N > 0 breaks normal complementarity.
  const GlobalFrictionContactResiduals coulomb = global_friction_contact_residuals(sliding_mass(), v, r);
  EXPECT_NEAR(coulomb.contact.complementarity, rn * u[0], 1e-12);
  EXPECT_GT(coulomb.contact.absolute_error, 0.1);
  // The convex problem has no local form (the local problem poses Coulomb's law).
  EXPECT_THROW((void)local_problem(convex), InvalidProblem);
}

TEST(GlobalFrictionContact, ValidateNamesTheField) {
  GlobalFrictionContact p = sliding_mass();
  p.dimension = 4;
  EXPECT_THAT(validation_message(p), HasSubstr("dimension: expected 2 or 3, got 4"));
  p = sliding_mass();
  p.b = Eigen::Vector3d::Zero();
  EXPECT_THAT(validation_message(p), HasSubstr("b: expected size 2"));
  p = sliding_mass();
  p.M = Eigen::SparseMatrix<double>(3, 3);
  EXPECT_THAT(validation_message(p), HasSubstr("M: expected 2x2"));
  p = sliding_mass();
  p.H = Eigen::SparseMatrix<double>(2, 3);
  EXPECT_THAT(validation_message(p), HasSubstr("H: expected 2x2"));
  p = sliding_mass();
  p.H.coeffRef(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(validation_message(p), HasSubstr("H(1, 0) is NaN"));
  p = sliding_mass();
  p.q[1] = std::numeric_limits<double>::infinity();
  EXPECT_THAT(validation_message(p), HasSubstr("q[1] is infinite"));
  p = sliding_mass();
  p.mu[0] = -0.5;
  EXPECT_THAT(validation_message(p), HasSubstr("mu[0] is -0.5"));
  p = sliding_mass();
  p.M.coeffRef(1, 1) = 0;
  EXPECT_THAT(validation_message(p), HasSubstr("M(1, 1) is 0"));
  p = sliding_mass();
  p.M.coeffRef(0, 1) = 0.5;
  EXPECT_THAT(validation_message(p), HasSubstr("M: not symmetric: M(1, 0) = 0 but M(0, 1) = 0.5"));
}

}  // namespace
}  // namespace perp::core_global_friction_contact_test
