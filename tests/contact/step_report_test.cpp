// What a step's report says: the solver's Result in the layout of the model's unknowns, the warm
// start, the problem a method steps through; and the loops that validate once, which step through
// advance_unchecked, exactly as the public entry and still refusing a non-finite state.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "../../src/contact/advance.hpp"
#include "perp/contact/moreau_jean.hpp"
#include "perp/contact/step_sensitivity.hpp"
#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_step_report_test {
namespace {

using test::refusal;

TEST(StepReport, KeepsTheSolversResultInTheLayoutOfItsUnknowns) {
  World world = test::chapter_block();
  MoreauJeanOptions options;
  options.friction = 0.3;
  // The frictional contact problem: r = (Λ_N,k, Λ_T,k)_k, interleaved per contact.
  const StepReport coulomb = moreau_jean_step(world, options);
  ASSERT_TRUE(coulomb.ran_solve());
  ASSERT_EQ(coulomb.contacts.size(), 2u);
  EXPECT_EQ(coulomb.status, coulomb.result.status);
  ASSERT_EQ(coulomb.result.z.size(), 4);
  EXPECT_EQ(coulomb.result.w.size(), 4);
  for (Eigen::Index k = 0; k < 2; ++k) {
    EXPECT_EQ(coulomb.result.z[2 * k], coulomb.normal_impulse[k]);
    EXPECT_EQ(coulomb.result.z[2 * k + 1], coulomb.tangent_impulse[k]);
  }
  EXPECT_LE(coulomb.result.relative_residual, options.solve.tolerance);
  EXPECT_FALSE(coulomb.result.message.empty());
  // The LCP models, by a chosen method: the method that answered is a Method, and the solve's time
  // is taken around the solve (not before it).
  const auto step = [&](FrictionModel model, Method method) {
    options.friction_model = model;
    options.method = method;
    StepReport report = moreau_jean_step(world, options);
    EXPECT_TRUE(report.ran_solve());
    EXPECT_EQ(report.result.method, method);
    EXPECT_GT(report.solve_ms, 0.0);
    EXPECT_GE(report.step_ms, report.solve_ms);
    return report;
  };
  // Stewart–Trinkle: z = [Λ_N, β⁺, β⁻, γ], Λ_T = β⁺ − β⁻.
  const StepReport stewart = step(FrictionModel::StewartTrinkle, Method::Lemke);
  ASSERT_EQ(stewart.result.z.size(), 8);
  EXPECT_EQ(stewart.result.z.head(2), stewart.normal_impulse);
  EXPECT_EQ(stewart.result.z.segment(2, 2) - stewart.result.z.segment(4, 2), stewart.tangent_impulse);
  // Anitescu–Potra on its factors (the convex law in the global form, by the interior point): z = r
  // interleaved per contact as the Coulomb model's, and its criteria are the convex law's.
  const StepReport convex = step(FrictionModel::AnitescuPotra, Method::InteriorPoint);
  ASSERT_EQ(convex.result.z.size(), 4);
  EXPECT_EQ(convex.law, FrictionLaw::Convex);
  for (Eigen::Index k = 0; k < 2; ++k) {
    EXPECT_EQ(convex.result.z[2 * k], convex.normal_impulse[k]);
    EXPECT_EQ(convex.result.z[2 * k + 1], convex.tangent_impulse[k]);
  }
  EXPECT_LE(convex.criteria.relative_error, options.solve.tolerance);
  // The block rests on two corners: both laws give the same total normal impulse (its weight m g h).
  EXPECT_NEAR(convex.normal_impulse.sum(), coulomb.normal_impulse.sum(), 1e-9);
  // No active contact: no solve, and the step is solved.
  world.bodies[0].position.y() += 1;
  const StepReport lifted = moreau_jean_step(world, options);
  EXPECT_FALSE(lifted.ran_solve());
  EXPECT_EQ(lifted.status, Status::Solved);
  EXPECT_EQ(lifted.result.status, Status::NotRun);
  EXPECT_EQ(lifted.result.z.size(), 0);
}

// The dense pivoting cap: Lemke on the Stewart–Trinkle LCP (4 unknowns a contact) pivots within the
// cap; past it the method is not applicable, and the step says so and falls back to auto.
TEST(StepReport, DensePivotingMaxSizeCapsTheStewartTrinkleLcp) {
  MoreauJeanOptions options;
  options.friction = 0.3;
  options.method = Method::Lemke;
  World world = test::chapter_block();  // 2 contacts: 8 unknowns
  const StepReport pivoted = moreau_jean_step(world, options);
  EXPECT_TRUE(pivoted.fallback.empty()) << pivoted.fallback;
  EXPECT_EQ(pivoted.result.method, Method::Lemke);
  EXPECT_EQ(pivoted.status, Status::Solved);
  options.dense_pivoting_max_size = 7;
  world = test::chapter_block();
  const StepReport capped = moreau_jean_step(world, options);
  EXPECT_EQ(capped.fallback, "lemke: not-applicable");
  EXPECT_EQ(capped.status, Status::Solved);
  EXPECT_LE(capped.result.relative_residual, options.solve.tolerance);
  // The same impulses either way (the step's problem has one solution here).
  EXPECT_NEAR((capped.normal_impulse - pivoted.normal_impulse).lpNorm<Eigen::Infinity>(), 0.0,
              1e-9 * pivoted.normal_impulse.lpNorm<Eigen::Infinity>());
  options.dense_pivoting_max_size = -1;
  EXPECT_NE(refusal([&] { (void)moreau_jean_step(world, options); }).find("dense_pivoting_max_size must be >= 0"),
            std::string::npos);
}

TEST(MoreauJean, CoulombStepsWarmStartFromTheLastImpulses) {
  // The resting block: from the second step on, both corners start from last step's impulse,
  // which already solves the step.
  World world = test::chapter_block();
  MoreauJeanOptions options;
  options.gravity = {0, -10};
  options.friction = 0.3;
  const StepReport first = moreau_jean_step(world, options);
  ASSERT_EQ(first.status, Status::Solved);
  EXPECT_EQ(first.warm_started, 0u);
  // The solver's own account of the solve travels with the report.
  EXPECT_NE(first.result.message.find("relative error"), std::string::npos) << first.result.message;
  ASSERT_EQ(world.impulses.size(), 2u);
  for (int k = 0; k < 20; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    ASSERT_EQ(report.status, Status::Solved);
    EXPECT_EQ(report.warm_started, 2u);
    EXPECT_LE(report.result.iterations, 2) << "step " << k;
    EXPECT_EQ(report.lcp_size, 4);
    // The default tolerance 1e-8 on the relative error bounds the natural map's error by
    // 1e-8 · max(‖q‖, ‖r‖, ‖u‖) = 1e-8 · ‖q‖ = 1e-8 · √2 g h (both corners approach at g h), and
    // with it the approach velocity and the cone violation; products by r_N = g h / 2.
    const double scale = 10 * options.timestep;
    EXPECT_LE(report.criteria.signorini, 1e-8 * std::sqrt(2.0) * scale);
    EXPECT_LE(report.criteria.coulomb, 1e-8 * std::sqrt(2.0) * scale);
    EXPECT_LE(report.criteria.complementarity, 1e-8 * scale * scale);
    EXPECT_LE(report.criteria.dissipation, 1e-8 * scale * scale);
  }
  // Lifted off the ground, no contact: the cache empties.
  world.bodies[0].position.y() += 1;
  const StepReport lifted = moreau_jean_step(world, options);
  EXPECT_TRUE(world.impulses.empty());
  EXPECT_TRUE(!lifted.ran_solve() && lifted.result.message.empty());
}

TEST(MoreauJean, CoulombWithAnLcpMethodStepsThroughTheLcpOfTheSameLaw) {
  // pgs (an LCP method) on the frictionless block: the frictionless LCP, one unknown a contact;
  // lemke with friction: the frictional contact problem (2 slots a contact), pivoted internally;
  // murty with friction: the Stewart–Trinkle LCP, 4 unknowns a contact.
  World world = test::chapter_block();
  MoreauJeanOptions options;
  options.method = Method::Pgs;
  StepReport report = moreau_jean_step(world, options);
  EXPECT_EQ(report.status, Status::Solved);
  EXPECT_EQ(report.lcp_size, 2);
  // Every model keeps its impulses for the next step's warm start.
  ASSERT_EQ(world.impulses.size(), 2u);
  EXPECT_EQ(world.impulses[0].normal, report.normal_impulse[0]);
  EXPECT_EQ(world.impulses[1].normal, report.normal_impulse[1]);
  options.friction = 0.3;
  options.method = Method::Lemke;
  report = moreau_jean_step(world, options);
  EXPECT_EQ(report.status, Status::Solved);
  EXPECT_EQ(report.lcp_size, 4);
  EXPECT_EQ(world.impulses.size(), 2u);
  options.method = Method::Murty;
  report = moreau_jean_step(world, options);
  EXPECT_EQ(report.lcp_size, 8);
  // A method of neither kind for this problem is refused by name.
  options.method = Method::Schur;
  EXPECT_THROW((void)moreau_jean_step(world, options), InvalidProblem);
}

TEST(Advance, StepsExactlyAsTheCheckedEntry) {
  World checked = test::disk_heap_between_walls(12);
  World unchecked = checked;
  MoreauJeanOptions options;
  options.friction = 0.5;
  options.timestep = 1.0 / 60;
  for (int k = 0; k < 60; ++k) {
    const StepReport a = moreau_jean_step(checked, options);
    const StepReport b = advance_unchecked(unchecked, options);
    ASSERT_EQ(a.status, b.status) << "step " << k;
    ASSERT_EQ(a.contacts.size(), b.contacts.size()) << "step " << k;
    ASSERT_EQ(a.result.iterations, b.result.iterations) << "step " << k;
    for (std::size_t i = 0; i < checked.bodies.size(); ++i) {
      ASSERT_EQ(checked.bodies[i].position, unchecked.bodies[i].position) << "step " << k << ", body " << i;
      ASSERT_EQ(checked.bodies[i].angular_velocity, unchecked.bodies[i].angular_velocity) << "step " << k;
    }
  }
}

TEST(Advance, RefusesANonFiniteStateAsValidateDoes) {
  const MoreauJeanOptions options;
  for (int field = 0; field < 4; ++field) {
    World world = test::chapter_block();
    Body& body = world.bodies[0];
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    if (field == 0) body.position.x() = nan;
    if (field == 1) body.angle = inf;
    if (field == 2) body.velocity.y() = -inf;
    if (field == 3) body.angular_velocity = nan;
    const std::string expected = refusal([&] { world.validate(); });
    ASSERT_FALSE(expected.empty()) << "field " << field;
    EXPECT_EQ(refusal([&] { (void)advance_unchecked(world, options); }), expected) << "field " << field;
    EXPECT_EQ(refusal([&] { (void)moreau_jean_step(world, options); }), expected) << "field " << field;
  }
}

TEST(Rollout, ValidatesOnceBeforeItsFirstStep) {
  MoreauJeanOptions options;
  options.timestep = -1;
  const std::string message = refusal([&] { (void)rollout(test::chapter_block(), options, 3); });
  EXPECT_NE(message.find("timestep"), std::string::npos) << message;
  World named_twice = test::chapter_block();
  named_twice.bodies.push_back(named_twice.bodies[0]);
  EXPECT_THROW((void)rollout(named_twice, MoreauJeanOptions{}, 1), InvalidProblem);
  const Rollout run = rollout(test::chapter_block(), MoreauJeanOptions{}, 3);
  EXPECT_EQ(run.reports.size(), 3u);
}

// MoreauJeanOptions::keep_problem: off, the report holds no problem; on, the Coulomb step's problem,
// which the returned impulses answer (criteria recomputed here from W = H M⁻¹ Hᵀ formed apart), and
// whose global form (the packed-step chain's) reduces to the same local problem.
TEST(StepReport, KeepsTheFrictionalContactProblemOnlyWhenAsked) {
  MoreauJeanOptions options;
  options.friction = 0.3;
  World world = test::chapter_block();
  EXPECT_FALSE(moreau_jean_step(world, options).problem.has_value());
  options.keep_problem = true;
  world = test::chapter_block();
  const StepReport kept = moreau_jean_step(world, options);
  ASSERT_TRUE(kept.problem.has_value());
  EXPECT_FALSE(kept.problem->global);
  const FactoredFrictionContact& local = kept.problem->local;
  ASSERT_EQ(local.contacts(), 2);
  ASSERT_EQ(local.size(), kept.result.z.size());
  // W formed here, densely, from the factors: H M⁻¹ Hᵀ.
  const Eigen::MatrixXd H = Eigen::MatrixXd(local.H);
  const Eigen::MatrixXd W = H * local.inverse_mass.asDiagonal() * H.transpose();
  EXPECT_NEAR((Eigen::MatrixXd(local.assembled().W) - W).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  const Eigen::VectorXd r = kept.result.z;
  const Eigen::VectorXd u = W * r + local.q;
  for (Eigen::Index k = 0; k < 2; ++k) {
    // Resting on two corners, sticking: u = 0 and r inside the cone, r_N > 0.
    EXPECT_GT(r[2 * k], 0.0);
    EXPECT_LE(std::abs(r[2 * k + 1]), local.mu[k] * r[2 * k] + 1e-12);
    EXPECT_NEAR(u[2 * k], 0.0, 1e-9);
    EXPECT_NEAR(u[2 * k + 1], 0.0, 1e-9);
  }
  // The total normal impulse carries the weight: m g h.
  EXPECT_NEAR(r[0] + r[2], 9.81 * options.timestep, 1e-9);
  // The global form: its local problem is the same W and q, r the same; v = Δv = M⁻¹ H r.
  const GlobalFrictionContact global = global_problem(*kept.problem);
  global.validate();
  EXPECT_EQ(global.law, FrictionLaw::Coulomb);
  const FrictionContact reduced = local_problem(global);
  EXPECT_NEAR((Eigen::MatrixXd(reduced.W) - W).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  EXPECT_NEAR((reduced.q - local.q).cwiseAbs().maxCoeff(), 0.0, 1e-15);
  const Eigen::VectorXd v = global_velocity(global, r);
  EXPECT_NEAR((Eigen::MatrixXd(global.H).transpose() * v + global.b - u).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  // A packed step (more contacts than the dense pivoting takes) is solved through the global form.
  options.dense_pivoting_max_size = 4;
  world = test::chapter_block();
  const StepReport packed = moreau_jean_step(world, options);
  ASSERT_TRUE(packed.problem.has_value());
  EXPECT_TRUE(packed.problem->global);
  // The LCP models pose no frictional contact problem: nothing kept.
  options.dense_pivoting_max_size = 1000;
  options.friction_model = FrictionModel::StewartTrinkle;
  world = test::chapter_block();
  const StepReport lcp = moreau_jean_step(world, options);
  EXPECT_TRUE(lcp.ran_solve());
  EXPECT_FALSE(lcp.problem.has_value());
}

}  // namespace
}  // namespace perp::contact::contact_step_report_test
