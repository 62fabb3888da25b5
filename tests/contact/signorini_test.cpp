#include "perp/contact/signorini.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "perp/contact/jacobian.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_signorini_test {
namespace {

using test::box;
using test::disk;

TEST(AccelerationLevel, ChapterBlockGivesFiveAndFive) {
  // §1.2 worked example: m = 1, I = 1/12, L = 1, g = 10 → b = (−10, −10), λ = (5, 5).
  const World world = test::chapter_block();
  const auto contacts = detect_contacts(world, 1e-9);
  const Lcp lcp = acceleration_level_lcp(world, contacts, {0, -10});
  ASSERT_EQ(lcp.size(), 2);
  EXPECT_NEAR(lcp.q[0], -10, 1e-14);
  EXPECT_NEAR(lcp.q[1], -10, 1e-14);
  for (Method method : {Method::Lemke, Method::Enum, Method::Pgs, Method::Murty}) {
    // The tolerance is relative to ‖q‖∞ = 10 (docs/solvers.md): 1e-9 is the absolute 1e-8 checked.
    const Result result = solve(lcp, method, {.tolerance = 1e-9});
    ASSERT_TRUE(result.solved()) << method;
    EXPECT_NEAR(result.z[0], 5, 1e-8) << method;
    EXPECT_NEAR(result.z[1], 5, 1e-8) << method;
  }
}

TEST(AccelerationLevel, CentripetalTermOfARotatingCorner) {
  // A box spinning about its resting corner... only the bias term is checked: b = −g − ω² r·n.
  World world = test::chapter_block();
  world.bodies[0].angular_velocity = 2.0;
  const auto contacts = detect_contacts(world, 1e-9);
  const Lcp lcp = acceleration_level_lcp(world, contacts, {0, -10});
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    EXPECT_NEAR(lcp.q[static_cast<Eigen::Index>(k)], -10 - 4.0 * contacts[k].arm_a.y(), 1e-12);
  }
}

TEST(PositionLevel, ProjectionClosesTheOverlap) {
  // A disk 1 cm into the ground: λ = 0.01 / W with W = 1/m, and Δy = λ/m = 0.01.
  World world;
  world.bodies = {disk("ball", 0.1, 2.0, {0, 0.09})};
  world.ground = Ground{0};
  const auto contacts = detect_contacts(world, 0.5);
  ASSERT_EQ(active_by_gap(contacts).size(), 1u);
  const Lcp lcp = position_level_lcp(world, contacts);
  const Result result = solve(lcp, Method::Lemke);
  ASSERT_TRUE(result.solved());
  EXPECT_NEAR(result.z[0], 0.02, 1e-12);
  // A contact that is open carries nothing.
  world.bodies[0].position.y() = 0.3;
  const auto open = detect_contacts(world, 0.5);
  EXPECT_TRUE(active_by_gap(open).empty());
  EXPECT_NEAR(solve(position_level_lcp(world, open), Method::Lemke).z[0], 0, 1e-15);
}

TEST(VelocityLevel, RestingBlockImpulsesAreHalfTheWeightPerStep) {
  const World world = test::chapter_block();
  const auto contacts = detect_contacts(world, 1e-9);
  const ContactSpace space = contact_space(world, contacts);
  const double h = 1e-3;
  Eigen::VectorXd v = Eigen::VectorXd::Zero(3);
  Eigen::VectorXd v_free = v;
  v_free[1] = -10 * h;
  const Result result = solve(velocity_level_lcp(space, v_free, v, 0.5), Method::Lemke);
  ASSERT_TRUE(result.solved());
  EXPECT_NEAR(result.z[0], 10 * h / 2, 1e-12);
  EXPECT_NEAR(result.z[1], 10 * h / 2, 1e-12);
  EXPECT_THROW((void)velocity_level_lcp(space, v_free, v, 1.5), InvalidProblem);
}

/// One disk on the ground, sliding at speed u along +x, with v_free = (u, −g h): the exact
/// Stewart–Trinkle answer is Λ_N = m g h and Λ_T = −μ Λ_N while sliding continues, or
/// Λ_T = −m u when the disk can stop within the step (|m u| <= μ Λ_N).
struct SlidingCase {
  double speed;
  double friction;
};

class StewartTrinkle : public ::testing::TestWithParam<SlidingCase> {};

TEST_P(StewartTrinkle, SlidingOrSticking) {
  const auto [speed, friction] = GetParam();
  World world;
  Body block = box("block", 0.4, 0.2, 2.0, {0, 0.1});
  world.bodies = {block};
  world.ground = Ground{0};
  std::vector<Contact> contacts = detect_contacts(world, 1e-9);
  contacts.resize(1);                           // one corner, so that the answer is a closed form
  contacts[0].arm_a = Eigen::Vector2d::Zero();  // applied at the centre: no torque
  const ContactSpace space = contact_space(world, contacts);
  const double h = 0.01;
  const double g = 10;
  const double m = 2.0;
  const Eigen::Vector3d v_free(speed, -g * h, 0);
  const Lcp lcp = stewart_trinkle_lcp(space, space.normal * v_free, space.tangent * v_free, friction);
  const Result result = solve(lcp, Method::Lemke);
  ASSERT_TRUE(result.solved()) << result.message;
  const double normal = result.z[0];
  const double tangent = result.z[1] - result.z[2];
  EXPECT_NEAR(normal, m * g * h, 1e-10);
  const double stopping = m * speed;
  if (std::abs(stopping) <= friction * normal) {
    EXPECT_NEAR(tangent, -stopping, 1e-10);
    EXPECT_NEAR(result.z[3], 0, 1e-10);  // no sliding
  } else {
    const double direction = speed > 0 ? 1 : -1;
    EXPECT_NEAR(tangent, -direction * friction * normal, 1e-10);
    // γ = the sliding speed after the step.
    EXPECT_NEAR(result.z[3], std::abs(speed) - friction * normal / m, 1e-10);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, StewartTrinkle,
                         ::testing::Values(SlidingCase{1.0, 0.3}, SlidingCase{0.01, 0.3}, SlidingCase{-1.0, 0.5},
                                           SlidingCase{0.0, 0.5}, SlidingCase{1.0, 0.0}),
                         [](const ::testing::TestParamInfo<SlidingCase>& param) {
                           return "case" + std::to_string(param.index);
                         });

TEST(AnitescuPotra, SlidingContactSeparates) {
  // The relaxation's side effect: after the step, u_N = μ u_T (> 0) instead of 0.
  World world;
  world.bodies = {box("block", 0.4, 0.2, 2.0, {0, 0.1})};
  world.ground = Ground{0};
  std::vector<Contact> contacts = detect_contacts(world, 1e-9);
  contacts.resize(1);
  contacts[0].arm_a = Eigen::Vector2d::Zero();
  const ContactSpace space = contact_space(world, contacts);
  const double h = 0.01;
  const double mu = 0.3;
  const Eigen::Vector3d v_free(1.0, -10 * h, 0);
  const Lcp lcp = anitescu_potra_lcp(space, space.normal * v_free, space.tangent * v_free, mu);
  const Result result = solve(lcp, Method::Lemke);
  ASSERT_TRUE(result.solved());
  const Eigen::Index m = 1;
  const Eigen::VectorXd normal = result.z.segment(0, m) + result.z.segment(m, m);
  const Eigen::VectorXd tangent = mu * (result.z.segment(0, m) - result.z.segment(m, m));
  const Eigen::Vector3d v_after =
      v_free + space.inverse_mass.cwiseProduct(
                   Eigen::VectorXd(space.normal.transpose() * normal + space.tangent.transpose() * tangent));
  // Closed form: vx⁺ = (vx − μ g h) / (1 + μ²), vy⁺ = μ vx⁺.
  const double vx = (1.0 - mu * 10 * h) / (1 + mu * mu);
  EXPECT_NEAR(v_after.x(), vx, 1e-10);
  EXPECT_NEAR(v_after.y(), mu * vx, 1e-10);
  EXPECT_GT(v_after.y(), 0);
  // pgs solves it too: the relaxed problem is positive semidefinite.
  EXPECT_TRUE(solve(lcp, Method::Pgs).solved());
}

TEST(SlidingAcceleration, MatrixIsNotSymmetric) {
  const World world = test::chapter_block();
  const auto contacts = detect_contacts(world, 1e-9);
  const Lcp lcp = sliding_acceleration_level_lcp(world, contacts, {0, -10}, 0.5, Eigen::Vector2d(1, 1));
  // Row k: J_N,k M⁻¹ (J_N − μ J_T)ᵀ; J_T·e_θ = r × t = h/2 for both corners, so
  // W_kj − μ (r_k×n)(r_j×t)/I.
  const double I = 1.0 / 12;
  EXPECT_NEAR(lcp.M(0, 1), 1 - 0.25 / I - 0.5 * (-0.5) * 0.25 / I, 1e-12);
  EXPECT_NEAR(lcp.M(1, 0), 1 - 0.25 / I - 0.5 * (0.5) * 0.25 / I, 1e-12);
  EXPECT_THROW((void)sliding_acceleration_level_lcp(world, contacts, {0, -10}, 0.5, Eigen::Vector2d(1, 0)),
               InvalidProblem);
}

}  // namespace
}  // namespace perp::contact::contact_signorini_test
