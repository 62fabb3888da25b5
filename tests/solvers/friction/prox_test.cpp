// The stop on progress shared by nsgs and prox (StallRule and StallWatch in
// src/solvers/friction/impulse/stall_rule.hpp) on error sequences written by hand, and prox's use of it
// (issue 38): a problem prox cannot solve ends early as stalled, with the error of the point it
// returns; problems it solves slowly are not cut.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include <Eigen/Dense>

#include "perp/core/friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "../../../src/solvers/friction/impulse/nsgs.hpp"
#include "../../../src/solvers/friction/impulse/stall_rule.hpp"
#include "two_contacts_3d.hpp"

namespace perp::solvers_prox_test {
namespace {

using detail::StallRule;
using detail::StallWatch;

// Feeds e(s) at every step 1, 2, …, last to a watch started at e(0); returns the step at which it
// says stalled, or 0.
template <class Error>
int stalled_at(Error error, int last, double horizon, double tolerance, StallWatch& watch) {
  for (int s = 1; s <= last; ++s) {
    if (watch.stalled(s, error(s), horizon, tolerance)) return s;
  }
  return 0;
}

// e(s) = 0.5 · 0.99^s reaches 1e-8 at s = ln(5e7)/ln(1/0.99) = 1763.9: with a horizon of 10 000
// steps every window's geometric projection is below the tolerance, so the watch never stops it.
TEST(StallWatch, GeometricRunThatReachesTheToleranceIsNotCut) {
  const auto error = [](int s) { return 0.5 * std::pow(0.99, s); };
  StallWatch watch(StallRule{}, error(0));
  EXPECT_EQ(stalled_at(error, 1764, 10000, 1e-8, watch), 0);
  EXPECT_LE(error(1764), 1e-8);
}

// The same run with a horizon of 1 000 steps and projections from step 100: at the first window's
// end (step 100) the rate is ln(1/0.99) a step and the error at step 1 000 is projected at
// 0.5 · 0.99^100 · 0.99^900 = 0.5 · 0.99^1000 = 2.16e-5, above 1e-8: stalled there.
TEST(StallWatch, GeometricRunTooSlowForItsBudgetStopsAtTheFirstWindow) {
  const StallRule rule{.min_steps = 100, .slowing = 0.75, .flat = 0.00995, .project_from = 100};
  const auto error = [](int s) { return 0.5 * std::pow(0.99, s); };
  StallWatch watch(rule, error(0));
  EXPECT_EQ(stalled_at(error, 1000, 1000, 1e-8, watch), 100);
  const double projected = 0.5 * std::pow(0.99, 1000);
  EXPECT_NEAR(projected, 2.1586e-5, 1e-9);
  EXPECT_NE(watch.describe("step", "steps", 1e-8).find("steps 0-100 (the same factor each step) the error after 1000 steps would be near 2.158"),
            std::string::npos)
      << watch.describe("step", "steps", 1e-8);
  EXPECT_DOUBLE_EQ(watch.best(), error(100));
}

// A flat error (the best moves by less than 1 %) stops at the first window's end whatever the
// horizon, and even before `project_from`: from e(1) = 1.005e-3 to e(100) = 1.00005e-3, a fall of
// 0.5 %.
TEST(StallWatch, FlatRunStopsAtTheFirstWindow) {
  const auto error = [](int s) { return 1e-3 * (1 + 0.005 / s); };
  StallWatch watch(StallRule{}, error(1));
  EXPECT_EQ(stalled_at(error, 10000, 10000, 1e-8, watch), 100);
}

// e(s) = 1/s, a power law, the watch started at e(1) = 1: window [0, 100] falls by ln 100 at a rate of
// ln(100)/100 a step; window [100, 200] by ln 2 at ln(2)/100, under ¾ of the first: slowing, and
// the power law through its ends, p = ln 2 / ln 2 = 1, projects (1/200)·(10000/200)^−1 = 1e-4 at
// step 10 000. Not cut before `project_from` (1 000): the windows end at 400 and 800 and go on;
// at 1 600 the projection is again 1e-4 (p = 1), past 1 000 sweeps: stalled there.
TEST(StallWatch, PowerLawRunStopsPastProjectFrom) {
  const auto error = [](int s) { return 1.0 / s; };
  StallWatch watch(StallRule{}, error(1));
  EXPECT_EQ(stalled_at(error, 10000, 10000, 1e-8, watch), 1600);
  const std::string why = watch.describe("sweep", "sweeps", 1e-8);
  EXPECT_NE(why.find("sweeps 800-1600 (slowing as a power law) the error after 10000 sweeps would be near 1e-04"),
            std::string::npos)
      << why;
  // The same run asked for 1e-4 at 10 000 steps: the projection meets it, so it is never cut.
  StallWatch lenient(StallRule{}, error(1));
  EXPECT_EQ(stalled_at(error, 10000, 10000, 1.0001e-4, lenient), 0);
}

// auto's hand-over rule (kNsgsHandoff, nsgs.hpp) on the same run e(s) = 1/s with auto's budget of
// 1 000 sweeps as the horizon, checked at every step: the first window [0, 25] is geometric (rate
// ln(25)/25 = 0.129; its projection to 1 000, 0.04 · exp(−0.129 · 975), is far below 1e-8, and
// 25 < project_from anyway); the second [25, 50] slows (rate ln(2)/25 = 0.028 <= 0.75 · 0.129: a
// power law, p = 1) and projects (1/50) · (1000/50)^−1 = 1e-3 at sweep 1 000, above 1e-8, and 50 is
// at project_from: handed over there, where kNsgsStall goes on to 1 600 (the test above).
TEST(StallWatch, HandoffRuleCutsAPowerLawAtTheSecondWindow) {
  const auto error = [](int s) { return 1.0 / s; };
  StallWatch watch(detail::kNsgsHandoff, error(1));
  EXPECT_EQ(stalled_at(error, 1000, 1000, 1e-8, watch), 50);
  const std::string why = watch.describe("sweep", "sweeps", 1e-8);
  EXPECT_NE(why.find("sweeps 25-50 (slowing as a power law) the error after 1000 sweeps would be near 0.001"),
            std::string::npos)
      << why;
  // A geometric run that reaches the tolerance within the budget is not handed over: 0.5 · 0.97^s
  // meets 1e-8 at s = ln(5e7)/ln(1/0.97) = 582.01, so at step 583.
  const auto fast = [](int s) { return 0.5 * std::pow(0.97, s); };
  StallWatch kept(detail::kNsgsHandoff, fast(1));
  EXPECT_EQ(stalled_at(fast, 583, 1000, 1e-8, kept), 0);
  EXPECT_LE(fast(583), 1e-8);
}

// Two 3D contacts with a diagonally dominant W (nsgs_test.cpp's LinearRateRunStillSolves): prox
// solves them at 1e-12, but its error stays near 1.2e-13 (round-off of ‖F‖ against max(‖q‖, ‖r‖,
// ‖u‖) ≈ 1) below that, so 1e-16 cannot be reached. Before the stop on progress prox ran its 1 000
// outer iterations there (6 007 sweeps); now it ends stalled, as no-solution-found, within a few
// hundred, with the error of the point it returns recomputed here from r.
FrictionContact two_contacts() { return test::two_contacts_3d(); }

// The outer iterations a prox message reports ("after N proximal iterations"), or -1.
int outer_iterations(const std::string& message) {
  const std::string mark = " proximal iterations";
  const std::size_t end = message.find(mark);
  if (end == std::string::npos) return -1;
  std::size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(message[begin - 1]))) --begin;
  return begin == end ? -1 : std::stoi(message.substr(begin, end - begin));
}

TEST(ProxStall, ToleranceBelowRoundOffEndsEarly) {
  const FrictionContact problem = two_contacts();
  const Result solvable = solve(problem, Method::Prox, {.tolerance = 1e-12});
  ASSERT_TRUE(solvable.solved()) << solvable.message;
  const Result result = solve(problem, Method::Prox, {.tolerance = 1e-16});
  EXPECT_EQ(result.status, Status::NoSolutionFound) << result.message;
  EXPECT_NE(result.message.find("stalled"), std::string::npos) << result.message;
  const int outer = outer_iterations(result.message);
  EXPECT_GT(outer, 0) << result.message;
  EXPECT_LE(outer, 300) << result.message;  // of prox.max_outer = 1000
  EXPECT_LT(result.iterations, 6007);
  ASSERT_TRUE(result.z.allFinite());
  const double error = friction_contact_residuals(problem, result.z).relative_error;
  EXPECT_GT(error, 1e-16);
  EXPECT_LE(error, 1e-12);  // the point is as good as round-off lets it be
  EXPECT_NEAR(result.residual, error, 1e-3 * error);
}

// prox from a first ρ 5 000 times W's mean diagonal (friction_contact.prox.rho = 1e4): its
// proximal steps are so short that the error stays at 5.4e-2 for ~90 outer iterations while ρ is
// cut tenfold every 25 of them, then falls to 1e-12 within 20 (119 in all). A rule on the error
// alone cut it at 100 (flat over 50-100); the watch starts afresh at each cut of ρ, so it solves.
TEST(ProxStall, FlatWhileRhoIsCutStillSolves) {
  const FrictionContact problem = two_contacts();
  SolveOptions options{.tolerance = 1e-12};
  options.friction_contact.prox.rho = 1e4;
  const Result result = solve(problem, Method::Prox, options);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_GT(outer_iterations(result.message), 100) << result.message;
  EXPECT_LE(friction_contact_residuals(problem, result.z).relative_error, 1e-12 * (1 + 1e-6));
}

}  // namespace
}  // namespace perp::solvers_prox_test
