#include "perp/solvers/options.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_options_test {
namespace {

using testing::HasSubstr;

std::string message_for(const SolveOptions& o, Eigen::Index n = 2) {
  try {
    o.validate(n);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

TEST(SolveOptions, DefaultsAreValid) {
  EXPECT_EQ(message_for(SolveOptions{}), "");
  EXPECT_EQ(SolveOptions{}.tolerance, 1e-8);
  EXPECT_EQ(SolveOptions{}.iteration_limit(77), 77);
  EXPECT_EQ(SolveOptions{.max_iterations = 5}.iteration_limit(77), 5);
}

TEST(SolveOptions, EachBadFieldIsNamed) {
  EXPECT_THAT(message_for({.tolerance = 0}), HasSubstr("tolerance must be finite and > 0"));
  EXPECT_THAT(message_for({.tolerance = std::numeric_limits<double>::quiet_NaN()}), HasSubstr("tolerance"));
  EXPECT_THAT(message_for({.max_iterations = -1}), HasSubstr("max_iterations must be >= 0"));
  EXPECT_THAT(message_for({.initial_guess = Eigen::VectorXd::Zero(3)}),
              HasSubstr("initial_guess: expected size 2, got 3"));
  EXPECT_THAT(message_for({.initial_guess = Eigen::Vector2d(0, std::numeric_limits<double>::infinity())}),
              HasSubstr("initial_guess[1] is infinite"));
  EXPECT_THAT(message_for({.relaxation = 2.0}), HasSubstr("relaxation must be in (0, 2)"));
  EXPECT_THAT(message_for({.relaxation = 0.0}), HasSubstr("relaxation"));
  SolveOptions bad_d;
  bad_d.lemke.covering_vector = Eigen::Vector2d(1, 0);
  EXPECT_THAT(message_for(bad_d), HasSubstr("lemke.covering_vector[1] must be > 0"));
  bad_d.lemke.covering_vector = Eigen::Vector3d(1, 1, 1);
  EXPECT_THAT(message_for(bad_d), HasSubstr("lemke.covering_vector: expected size 2, got 3"));
  SolveOptions bad_pivot;
  bad_pivot.lemke.pivot_tolerance = -1;
  EXPECT_THAT(message_for(bad_pivot), HasSubstr("lemke.pivot_tolerance"));
}

TEST(SolveOptions, SolveValidatesBeforeWorking) {
  const Lcp block = testing_problems::two_contact_block();
  EXPECT_THROW((void)solve(block, Method::Lemke, {.tolerance = -1}), InvalidProblem);
  try {
    (void)solve(block, Method::Pgs, {.relaxation = 1.5});
    FAIL();
  } catch (const InvalidProblem& e) {
    EXPECT_THAT(e.what(), HasSubstr("use method psor"));
  }
}

TEST(SolveOptions, NewtonAndInteriorPointFieldsAreNamed) {
  const auto newton = [](auto set) {
    SolveOptions o;
    set(o.newton);
    return message_for(o);
  };
  EXPECT_THAT(newton([](NewtonOptions& n) { n.armijo = 0.5; }), HasSubstr("newton.armijo must be in (0, 0.5)"));
  EXPECT_THAT(newton([](NewtonOptions& n) { n.backtrack = 1; }), HasSubstr("newton.backtrack must be in (0, 1)"));
  EXPECT_THAT(newton([](NewtonOptions& n) { n.max_backtracks = -1; }), HasSubstr("newton.max_backtracks"));
  EXPECT_THAT(newton([](NewtonOptions& n) { n.nonmonotone_memory = -2; }), HasSubstr("newton.nonmonotone_memory"));
  EXPECT_THAT(newton([](NewtonOptions& n) { n.descent_rho = -1; }), HasSubstr("newton.descent_rho"));
  EXPECT_THAT(newton([](NewtonOptions& n) { n.penalty = 0; }), HasSubstr("newton.penalty must be in (0, 1]"));
  EXPECT_THAT(newton([](NewtonOptions& n) { n.smoothing_mu = -1; }), HasSubstr("newton.smoothing_mu"));
  EXPECT_THAT(newton([](NewtonOptions& n) { n.smoothing_factor = 1; }), HasSubstr("newton.smoothing_factor"));
  SolveOptions o;
  o.interior_point.step_fraction = 1.0;
  EXPECT_THAT(message_for(o), HasSubstr("interior_point.step_fraction must be in (0, 1)"));
  EXPECT_EQ(newton([](NewtonOptions& n) { n.penalty = 1.0; }), "");  // λ = 1 is plain FB, allowed
}

TEST(SolveOptions, DantzigAndFrictionFieldsAreNamed) {
  SolveOptions o;
  o.dantzig.pivot_tolerance = 0;
  EXPECT_THAT(message_for(o), HasSubstr("dantzig.pivot_tolerance must be in (0, 1)"));
  o.dantzig.pivot_tolerance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(message_for(o), HasSubstr("dantzig.pivot_tolerance"));
  o = SolveOptions{};
  o.max_friction_passes = 0;
  EXPECT_THAT(message_for(o), HasSubstr("max_friction_passes must be >= 1, got 0"));
}

}  // namespace
}  // namespace perp::solvers_options_test
