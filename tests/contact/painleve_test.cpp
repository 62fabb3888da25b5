#include "perp/contact/painleve.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact/signorini.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::contact::contact_painleve_test {
namespace {

PainleveRod rod_at(double theta, double mu, double theta_dot = 0, double mass = 1, double half_length = 1) {
  PainleveRod rod;
  rod.theta = theta;
  rod.friction = mu;
  rod.theta_dot = theta_dot;
  rod.mass = mass;
  rod.half_length = half_length;
  return rod;
}

TEST(Painleve, ClosedFormMatchesTheGenericContactLayer) {
  // The rod's Jacobian, mass matrix and friction direction (sliding along +x) must give the
  // same α and β as the Newton–Euler derivation.
  for (double theta : {0.2, 0.7, std::atan(2.0), 1.3}) {
    for (double mu : {0.0, 0.5, 4.0 / 3.0, 2.0}) {
      for (double theta_dot : {0.0, -1.5, 2.5}) {
        const PainleveRod rod = rod_at(theta, mu, theta_dot, 2.5, 0.7);
        const World world = painleve_world(rod);
        const auto contacts = detect_contacts(world, 1e-9);
        ASSERT_EQ(contacts.size(), 1u);
        // A is the contact point, below the centre and to its right.
        EXPECT_NEAR(contacts[0].point.x(), 0.7 * std::cos(theta), 1e-12);
        const Lcp lcp =
            sliding_acceleration_level_lcp(world, contacts, {0, -rod.gravity}, mu, Eigen::VectorXd::Ones(1));
        const PainleveAnalysis analysis = analyze_painleve(rod);
        EXPECT_NEAR(lcp.M(0, 0), analysis.alpha, 1e-12) << theta << " " << mu << " " << theta_dot;
        EXPECT_NEAR(lcp.q[0], analysis.beta, 1e-12) << theta << " " << mu << " " << theta_dot;
      }
    }
  }
}

TEST(Painleve, AlphaByHandAtFortyFiveDegrees) {
  // θ = 45°: cos = sin = 1/√2, α = (1 + 3/2 (1 − μ)) / m; μ = 1 gives 1/m, μ = 5/3 gives 0.
  EXPECT_NEAR(analyze_painleve(rod_at(std::numbers::pi / 4, 1.0, 0, 2.0)).alpha, 0.5, 1e-14);
  EXPECT_NEAR(analyze_painleve(rod_at(std::numbers::pi / 4, 5.0 / 3.0)).alpha, 0, 1e-14);
  // β = −g + l θ̇² sin θ.
  EXPECT_NEAR(analyze_painleve(rod_at(std::numbers::pi / 4, 1.0, 3.0, 1, 2.0)).beta, -9.81 + 2 * 9 / std::sqrt(2.0),
              1e-12);
}

TEST(Painleve, Regimes) {
  const double theta = std::atan(2.0);
  // θ̇ = 0: β = −g < 0. Small μ: contact with λ_N = −β/α; large μ: inconsistent.
  const PainleveAnalysis contact = analyze_painleve(rod_at(theta, 0.5));
  EXPECT_EQ(contact.regime, PainleveRegime::Contact);
  ASSERT_EQ(contact.solutions.size(), 1u);
  EXPECT_NEAR(contact.alpha * contact.solutions[0] + contact.beta, 0, 1e-12);
  EXPECT_GT(contact.solutions[0], 0);
  const PainleveAnalysis inconsistent = analyze_painleve(rod_at(theta, 2.0));
  EXPECT_LT(inconsistent.alpha, 0);
  EXPECT_EQ(inconsistent.regime, PainleveRegime::Inconsistent);
  EXPECT_TRUE(inconsistent.solutions.empty());
  // Spinning fast enough that β > 0 (l θ̇² sin θ > g).
  const PainleveAnalysis indeterminate = analyze_painleve(rod_at(theta, 2.0, 4.0));
  EXPECT_GT(indeterminate.beta, 0);
  EXPECT_EQ(indeterminate.regime, PainleveRegime::Indeterminate);
  ASSERT_EQ(indeterminate.solutions.size(), 2u);
  EXPECT_EQ(indeterminate.solutions[0], 0);
  EXPECT_NEAR(indeterminate.alpha * indeterminate.solutions[1] + indeterminate.beta, 0, 1e-12);
  EXPECT_EQ(analyze_painleve(rod_at(theta, 0.5, 4.0)).regime, PainleveRegime::Separating);
  EXPECT_EQ(to_string(PainleveRegime::Inconsistent), "inconsistent");
}

TEST(Painleve, AlphaZeroWithinRoundOffIsDegenerate) {
  // At the critical point (atan 2, 4/3) α = 1 + 3·(1/5 − (4/3)(2/5)) = 0 exactly; in floating point
  // it comes out 2.2e-16, which read as contact with λ_N = 4.4e16 before.
  const PainleveAnalysis critical = analyze_painleve(rod_at(std::atan(2.0), 4.0 / 3.0));
  EXPECT_LE(std::abs(critical.alpha), 1e-15);
  EXPECT_EQ(critical.regime, PainleveRegime::Degenerate);
  EXPECT_TRUE(critical.solutions.empty());  // θ̇ = 0: β = −g < 0, no λ_N >= 0 can hold the end up
  EXPECT_EQ(to_string(PainleveRegime::Degenerate), "degenerate");
  // The same point spinning fast (β > 0): λ_N = 0 only.
  const PainleveAnalysis spinning = analyze_painleve(rod_at(std::atan(2.0), 4.0 / 3.0, 4.0));
  EXPECT_GT(spinning.beta, 0);
  EXPECT_EQ(spinning.regime, PainleveRegime::Degenerate);
  ASSERT_EQ(spinning.solutions.size(), 1u);
  EXPECT_EQ(spinning.solutions[0], 0.0);
  // α = 0 at θ = π/4, μ = 5/3 as well; a step of μ by 1e-9 leaves it (|α| ~ 1e-9 >> round-off).
  EXPECT_EQ(analyze_painleve(rod_at(std::numbers::pi / 4, 5.0 / 3.0)).regime, PainleveRegime::Degenerate);
  EXPECT_EQ(analyze_painleve(rod_at(std::numbers::pi / 4, 5.0 / 3.0 - 1e-9)).regime, PainleveRegime::Contact);
  EXPECT_EQ(analyze_painleve(rod_at(std::numbers::pi / 4, 5.0 / 3.0 + 1e-9)).regime, PainleveRegime::Inconsistent);
}

TEST(Painleve, SolutionsSolveTheLcpAndLemkeAgrees) {
  // Where a solution exists, Lemke on the generic layer's LCP finds one of the listed ones;
  // where none exists, it ends on a ray.
  for (double mu : {0.3, 1.0, 1.5, 3.0}) {
    const PainleveRod rod = rod_at(1.0, mu);
    const PainleveAnalysis analysis = analyze_painleve(rod);
    const World world = painleve_world(rod);
    const auto contacts = detect_contacts(world, 1e-9);
    const Result result =
        solve(sliding_acceleration_level_lcp(world, contacts, {0, -rod.gravity}, mu, Eigen::VectorXd::Ones(1)),
              Method::Lemke);
    if (analysis.solutions.empty()) {
      EXPECT_FALSE(result.solved()) << mu;
    } else {
      ASSERT_TRUE(result.solved()) << mu;
      EXPECT_NEAR(result.z[0], analysis.solutions.back(), 1e-9) << mu;
    }
  }
}

TEST(Painleve, CriticalFrictionIsFourThirdsAtAtanTwo) {
  const CriticalFriction critical = painleve_critical_friction();
  EXPECT_DOUBLE_EQ(critical.friction, 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(critical.theta, std::atan(2.0));
  // Independent check: scan θ; just above μ_c some θ near atan 2 has α < 0, just below none does.
  auto some_alpha_negative = [](double mu) {
    for (int i = 1; i < 20000; ++i) {
      const double theta = i * (std::numbers::pi / 2) / 20000;
      if (analyze_painleve(rod_at(theta, mu)).alpha < 0) return true;
    }
    return false;
  };
  EXPECT_TRUE(some_alpha_negative(4.0 / 3.0 + 1e-3));
  EXPECT_FALSE(some_alpha_negative(4.0 / 3.0 - 1e-3));
  EXPECT_NEAR(analyze_painleve(rod_at(std::atan(2.0), 4.0 / 3.0)).alpha, 0, 1e-14);
  // Independent of m, l, g: α's sign only depends on θ and μ.
  EXPECT_LT(analyze_painleve(rod_at(std::atan(2.0), 1.34, 0, 7.0, 0.2)).alpha, 0);
}

TEST(Painleve, MoreauJeanAdvancesInTheInconsistentRegime) {
  // α < 0 and β < 0: no contact force exists, but the velocity-level step has a solution — an
  // impulse (Stewart 1998's measure solution: a tangential impact) that stops the sliding.
  const PainleveRod rod = rod_at(std::atan(2.0), 1.5);
  ASSERT_EQ(analyze_painleve(rod).regime, PainleveRegime::Inconsistent);
  World world = painleve_world(rod);
  MoreauJeanOptions options;
  options.friction = rod.friction;
  options.gravity = {0, -rod.gravity};
  options.method = Method::Lemke;
  const StepReport first = moreau_jean_step(world, options);
  ASSERT_EQ(first.status, Status::Solved);
  ASSERT_EQ(first.contacts.size(), 1u);
  // Far more than the weight's impulse m g h: an impulsive force.
  EXPECT_GT(first.normal_impulse[0], 10 * rod.mass * rod.gravity * options.timestep);
  // Coulomb holds: |Λ_T| <= μ Λ_N.
  EXPECT_LE(std::abs(first.tangent_impulse[0]), rod.friction * first.normal_impulse[0] + 1e-12);
  for (int k = 0; k < 500; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved) << "step " << k;
  }
  const Body& body = world.bodies[0];
  EXPECT_TRUE(body.position.allFinite() && body.velocity.allFinite() && std::isfinite(body.angle));
  // The rod stays above the ground (up to O(h) penetration).
  const double lowest = body.position.y() - rod.half_length * std::abs(std::sin(body.angle));
  EXPECT_GT(lowest, -1e-3);
}

TEST(Painleve, ValidateNamesTheField) {
  EXPECT_THROW((void)analyze_painleve(rod_at(0, 1)), InvalidProblem);
  EXPECT_THROW((void)analyze_painleve(rod_at(2, 1)), InvalidProblem);
  EXPECT_THROW((void)analyze_painleve(rod_at(1, -1)), InvalidProblem);
  EXPECT_THROW((void)analyze_painleve(rod_at(1, 1, 0, 0)), InvalidProblem);
  EXPECT_THROW((void)analyze_painleve(rod_at(1, 1, 0, 1, -1)), InvalidProblem);
}

}  // namespace
}  // namespace perp::contact::contact_painleve_test
