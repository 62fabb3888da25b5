#include "perp/core/friction_contact.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "perp/core/error.hpp"

namespace perp::core_friction_contact_test {
namespace {

using testing::HasSubstr;

std::string validation_message(const FrictionContact& problem) {
  try {
    problem.validate();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

// One planar contact, W = I, q = (−1, 0.5), μ = 0.3. The normal row gives r_N = 1 (u_N = 0);
// sticking would need r_T = −0.5, outside the cone (0.5 > 0.3), so it slides: r_T = −0.3 and
// u_T = 0.5 − 0.3 = 0.2 > 0, opposite to r_T.
FrictionContact sliding_2d() {
  return friction_contact_from_dense(2, Eigen::Matrix2d::Identity(), Eigen::Vector2d{-1, 0.5},
                                     Eigen::VectorXd::Constant(1, 0.3));
}

TEST(FrictionContact, SizesAndVelocity) {
  const FrictionContact p = sliding_2d();
  EXPECT_EQ(validation_message(p), "");
  EXPECT_EQ(p.contacts(), 1);
  EXPECT_EQ(p.size(), 2);
  EXPECT_TRUE(p.velocity(Eigen::Vector2d{1, -0.3}).isApprox(Eigen::Vector2d{0, 0.2}));
  EXPECT_THROW((void)p.velocity(Eigen::Vector3d::Zero()), InvalidProblem);
}

TEST(FrictionContact, ValidateNamesTheField) {
  FrictionContact p = sliding_2d();
  p.dimension = 4;
  EXPECT_THAT(validation_message(p), HasSubstr("dimension: expected 2 or 3, got 4"));
  p = sliding_2d();
  p.q = Eigen::Vector3d::Zero();
  EXPECT_THAT(validation_message(p), HasSubstr("q: expected size 2"));
  p = sliding_2d();
  p.W = Eigen::SparseMatrix<double>(3, 3);
  EXPECT_THAT(validation_message(p), HasSubstr("W: expected 2x2"));
  p = sliding_2d();
  p.W.coeffRef(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(validation_message(p), HasSubstr("W(1, 0) is NaN"));
  p = sliding_2d();
  p.q[1] = std::numeric_limits<double>::infinity();
  EXPECT_THAT(validation_message(p), HasSubstr("q[1] is infinite"));
  p = sliding_2d();
  p.mu[0] = -0.1;
  EXPECT_THAT(validation_message(p), HasSubstr("mu[0] is -0.1;"));
  p = sliding_2d();
  p.mu[0] = 0;  // frictionless is valid
  EXPECT_EQ(validation_message(p), "");
}

TEST(FrictionContact, ProjectionOnTheCone) {
  double out[3];
  // Inside: unchanged.
  const double inside[3] = {1, 0.1, -0.2};
  project_on_cone(inside, 3, 0.5, out);
  EXPECT_DOUBLE_EQ(out[1], 0.1);
  EXPECT_DOUBLE_EQ(out[2], -0.2);
  // In the polar cone (μ‖x_T‖ <= −x_N): the apex.
  const double polar[3] = {-1, 0.3, 0.4};
  project_on_cone(polar, 3, 0.5, out);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 0);
  // Between: x = (1, 0.6, 0.8), ‖x_T‖ = 1 > μ x_N = 0.5. x_N' = (x_N + μ‖x_T‖)/(1 + μ²) =
  // 1.5/1.25 = 1.2, x_T' = μ x_N' x_T/‖x_T‖ = 0.6·(0.6, 0.8) = (0.36, 0.48).
  const double between[3] = {1, 0.6, 0.8};
  project_on_cone(between, 3, 0.5, out);
  EXPECT_NEAR(out[0], 1.2, 1e-15);
  EXPECT_NEAR(out[1], 0.36, 1e-15);
  EXPECT_NEAR(out[2], 0.48, 1e-15);
  // μ = 0: projection onto the half-line x_T = 0, x_N >= 0.
  const double frictionless[2] = {2, 5};
  project_on_cone(frictionless, 2, 0.0, out);
  EXPECT_DOUBLE_EQ(out[0], 2);
  EXPECT_DOUBLE_EQ(out[1], 0);
}

TEST(FrictionContact, ResidualsVanishAtHandSolutions) {
  // 2D sliding.
  FrictionContactResiduals res = friction_contact_residuals(sliding_2d(), Eigen::Vector2d{1, -0.3});
  EXPECT_NEAR(res.absolute_error, 0, 1e-15);
  EXPECT_NEAR(res.signorini + res.coulomb + res.complementarity + res.dissipation, 0, 1e-15);
  // 3D, W = I, q = (−1, 0.3, 0.4). μ = 1 sticks: r = (1, −0.3, −0.4), u = 0.
  FrictionContact stick = friction_contact_from_dense(3, Eigen::Matrix3d::Identity(), Eigen::Vector3d{-1, 0.3, 0.4},
                                                      Eigen::VectorXd::Constant(1, 1.0));
  res = friction_contact_residuals(stick, Eigen::Vector3d{1, -0.3, -0.4});
  EXPECT_NEAR(res.absolute_error, 0, 1e-15);
  // μ = 0.2 slides: r_T = −0.2·(0.3, 0.4)/0.5 = (−0.12, −0.16), u_T = (0.18, 0.24).
  stick.mu[0] = 0.2;
  res = friction_contact_residuals(stick, Eigen::Vector3d{1, -0.12, -0.16});
  EXPECT_NEAR(res.absolute_error, 0, 1e-15);
  EXPECT_NEAR(res.dissipation, 0, 1e-15);
  // Take-off: q_N > 0, r = 0.
  const FrictionContact away = friction_contact_from_dense(2, Eigen::Matrix2d::Identity(), Eigen::Vector2d{1, 0.3},
                                                           Eigen::VectorXd::Constant(1, 0.3));
  res = friction_contact_residuals(away, Eigen::Vector2d::Zero());
  EXPECT_EQ(res.absolute_error, 0);
  EXPECT_EQ(res.relative_error, 0);
}

TEST(FrictionContact, ResidualsOfAWrongPoint) {
  // The sticking guess r = (1, −0.5) for the sliding contact: u = (0, 0). The cone is violated by
  // 0.5 − 0.3·1 = 0.2. Natural map: x = r − û = (1, −0.5), projected: x_N' = (1 + 0.3·0.5)/1.09,
  // x_T' = −0.3 x_N'; e = r − P(x).
  const Eigen::Vector2d r{1, -0.5};
  const FrictionContactResiduals res = friction_contact_residuals(sliding_2d(), r);
  const double xn = 1.15 / 1.09;
  const double e0 = 1 - xn;
  const double e1 = -0.5 + 0.3 * xn;
  EXPECT_NEAR(res.absolute_error, std::hypot(e0, e1), 1e-15);
  // max(‖q‖, ‖r‖, ‖u‖) = ‖q‖ = ‖r‖ = √1.25.
  EXPECT_NEAR(res.relative_error, std::hypot(e0, e1) / std::sqrt(1.25), 1e-15);
  EXPECT_NEAR(res.coulomb, 0.2, 1e-15);
  EXPECT_EQ(res.signorini, 0);
  EXPECT_EQ(res.complementarity, 0);
  EXPECT_EQ(res.dissipation, 0);  // u_T = 0: nothing slides
  // Penetrating and pulling: r = (−1, 0): u = (−2, 0.5). Signorini 2, Coulomb 1 (r_N < 0),
  // complementarity |−1·−2| = 2, dissipation |0 + 0.3·(−1)·0.5| = 0.15.
  const FrictionContactResiduals bad = friction_contact_residuals(sliding_2d(), Eigen::Vector2d{-1, 0});
  EXPECT_NEAR(bad.signorini, 2, 1e-15);
  EXPECT_NEAR(bad.coulomb, 1, 1e-15);
  EXPECT_NEAR(bad.complementarity, 2, 1e-15);
  EXPECT_NEAR(bad.dissipation, 0.15, 1e-15);
}

TEST(FrictionContact, RelativeErrorIsScaleInvariant) {
  // The same wrong point at 1e-150 and 1e150: the relative error does not move.
  const Eigen::Vector2d r{1, -0.5};
  const double reference = friction_contact_residuals(sliding_2d(), r).relative_error;
  for (const double scale : {1e-150, 1e150}) {
    FrictionContact p = sliding_2d();
    p.q *= scale;
    EXPECT_NEAR(friction_contact_residuals(p, r * scale).relative_error, reference, 1e-14) << scale;
  }
}

TEST(FrictionContact, ErrorsNeitherUnderflowNorOverflow) {
  // r = (−1e-200, 0) on W = I, q = 0: u = r, x = r − û = 0, P(x) = 0, e = r: ‖e‖ = 1e-200
  // (its square underflows), relative to ‖r‖ = ‖u‖ = 1e-200: 1.
  const FrictionContact tiny = friction_contact_from_dense(2, Eigen::Matrix2d::Identity(), Eigen::Vector2d::Zero(),
                                                           Eigen::VectorXd::Constant(1, 0.3));
  const FrictionContactResiduals small = friction_contact_residuals(tiny, Eigen::Vector2d(-1e-200, 0));
  EXPECT_NEAR(small.absolute_error / 1e-200, 1, 1e-15);
  EXPECT_NEAR(small.relative_error, 1, 1e-15);
  // The same at 1e200 (its square overflows).
  const FrictionContactResiduals big = friction_contact_residuals(tiny, Eigen::Vector2d(-1e200, 0));
  EXPECT_NEAR(big.absolute_error / 1e200, 1, 1e-15);
  // u = W r + q overflowing: infinitely far, never "exact".
  FrictionContact huge = tiny;
  huge.W.coeffRef(0, 0) = 1e300;
  const FrictionContactResiduals overflowed = friction_contact_residuals(huge, Eigen::Vector2d(1e300, 0));
  EXPECT_TRUE(std::isinf(overflowed.relative_error));
}

}  // namespace
}  // namespace perp::core_friction_contact_test
