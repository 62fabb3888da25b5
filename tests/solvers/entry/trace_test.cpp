// SolveOptions::trace (issue 17): the events of each method against hand-derived tableaux and
// independently recomputed residuals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/box_lcp.hpp"
#include "perp/solvers/solve.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_trace_test {
namespace {

using testing::ElementsAre;
using testing::IsEmpty;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A copy of every event (the vectors are copied, the method name kept as a string).
struct Recorded {
  std::string method;
  TraceEvent event;
};

std::vector<Recorded> traced(const Lcp& problem, Method method, SolveOptions options, Result* result = nullptr) {
  std::vector<Recorded> events;
  options.trace = [&](const TraceEvent& e) { events.push_back({e.method, e}); };
  Result r = solve(problem, method, options);
  if (result != nullptr) *result = std::move(r);
  return events;
}

std::vector<std::string> names(const std::vector<PivotVariable>& variables) {
  std::vector<std::string> out;
  for (const PivotVariable& v : variables) out.push_back(to_string(v));
  return out;
}

TEST(Trace, PivotVariableNamesAreTheChaptersOneBased) {
  EXPECT_EQ(to_string(PivotVariable{PivotVariable::Kind::W, 0}), "w1");
  EXPECT_EQ(to_string(PivotVariable{PivotVariable::Kind::Z, 1}), "z2");
  EXPECT_EQ(to_string(PivotVariable{PivotVariable::Kind::Z0, 0}), "z0");
  EXPECT_EQ(to_string(TraceKind::Pivot), "pivot");
  EXPECT_EQ(to_string(TraceKind::NewtonStep), "newton-step");
}

// [chapter] §1.4: M = [[1, 0], [2, 1]], q = (−1, −3), d = 1. By hand (w = M z + q + d z0):
//  1. z0 enters at max(1, 3) = 3; w2 leaves (row 2); w1 = 2, z0 = 3. Ratio test −q/d = (1, 3).
//  2. z2 enters: w1 = 2 − z2, z0 = 3 − z2: ratios (2, 3), w1 leaves at z2 = 2; z0 = 1.
//  3. z1 enters: z2 = 2 − z1, z0 = 1 − z1: ratios (2, 1), z0 leaves at z1 = 1: z = (1, 1).
// The natural residual of the z read from the basis: z = 0, w = (−1, −3) → 3; z = (0, 2),
// w = (−1, −1) → 1; then 0.
TEST(Trace, LemkeFollowsTheChaptersHandPivots) {
  Result result;
  const std::vector<Recorded> events = traced(testing_problems::chapter_lemke_example(), Method::Lemke, {}, &result);
  ASSERT_TRUE(result.solved()) << result.message;
  ASSERT_EQ(events.size(), 3u);
  const std::vector<std::string> entering{"z0", "z2", "z1"}, leaving{"w2", "w1", "z0"};
  const std::vector<double> ratio{3, 2, 1}, z0{3, 1, 0}, residual{3, 1, 0};
  const std::vector<std::vector<std::string>> basis{{"w1", "z0"}, {"z2", "z0"}, {"z2", "z1"}};
  const std::vector<std::vector<double>> values{{2, 3}, {2, 1}, {1, 1}}, ratios{{1, 3}, {2, 3}, {2, 1}};
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("pivot " + std::to_string(k + 1));
    const TraceEvent& e = events[k].event;
    EXPECT_EQ(events[k].method, "lemke");
    EXPECT_EQ(e.kind, TraceKind::Pivot);
    EXPECT_EQ(e.iteration, static_cast<int>(k + 1));
    ASSERT_TRUE(e.entering && e.leaving && e.ratio && e.z0 && e.residual);
    EXPECT_EQ(to_string(*e.entering), entering[k]);
    EXPECT_EQ(to_string(*e.leaving), leaving[k]);
    EXPECT_DOUBLE_EQ(*e.ratio, ratio[k]);
    EXPECT_DOUBLE_EQ(*e.z0, z0[k]);
    EXPECT_DOUBLE_EQ(*e.residual, residual[k]);
    EXPECT_EQ(names(e.basis), basis[k]);
    EXPECT_THAT(e.values, testing::Pointwise(testing::DoubleEq(), values[k]));
    EXPECT_THAT(e.ratios, testing::Pointwise(testing::DoubleEq(), ratios[k]));
  }
}

// An exercise of [chapter] §1.4, M = I, q = (−1, −1), degenerate: the first ratio test ties (1, 1) and the
// lexicographic rule takes row 2 ((−1, 0, 1) <lex (−1, 1, 0)); then z2 enters with w1 = 0 − z2
// (ratio 0: a degenerate pivot, w1 leaves) and z0 = 1 − z2; then z1 enters, z2 = z1 grows (no
// candidate) and z0 = 1 − z1 leaves at 1.
TEST(Trace, LemkeOnTheDegenerateExercise) {
  const Lcp exercise{Eigen::Matrix2d::Identity(), Eigen::Vector2d(-1, -1)};
  const std::vector<Recorded> events = traced(exercise, Method::Lemke, {});
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(to_string(*events[0].event.leaving), "w2");
  EXPECT_THAT(events[0].event.ratios, ElementsAre(1.0, 1.0));
  EXPECT_EQ(to_string(*events[1].event.entering), "z2");
  EXPECT_EQ(to_string(*events[1].event.leaving), "w1");
  EXPECT_EQ(*events[1].event.ratio, 0.0);
  EXPECT_THAT(events[1].event.ratios, ElementsAre(0.0, 1.0));
  EXPECT_EQ(to_string(*events[2].event.entering), "z1");
  EXPECT_EQ(to_string(*events[2].event.leaving), "z0");
  EXPECT_THAT(events[2].event.ratios, ElementsAre(kInf, 1.0));
  EXPECT_EQ(names(events[2].event.basis), (std::vector<std::string>{"z2", "z1"}));
  EXPECT_THAT(events[2].event.values, ElementsAre(1.0, 1.0));
}

// Data far from unit scale: the tableau holds 2^e (M, q); the trace reports the problem's units.
TEST(Trace, LemkeReportsTheProblemsUnits) {
  Lcp scaled = testing_problems::chapter_lemke_example();
  scaled.M *= 1000.0;
  scaled.q *= 1000.0;  // same z, w and z0 scaled by 1000
  const std::vector<Recorded> events = traced(scaled, Method::Lemke, {});
  ASSERT_EQ(events.size(), 3u);
  EXPECT_DOUBLE_EQ(*events[0].event.z0, 3000.0);
  EXPECT_DOUBLE_EQ(*events[0].event.ratio, 3000.0);               // z0 entering
  EXPECT_DOUBLE_EQ(*events[1].event.ratio, 2.0);                  // z2 entering: z unscaled
  EXPECT_THAT(events[1].event.values, ElementsAre(2.0, 1000.0));  // z2, z0
}

// A textbook projected Gauss–Seidel, written out here, for the residuals of each sweep.
std::vector<double> textbook_pgs_residuals(const Lcp& p, int sweeps) {
  Eigen::VectorXd z = Eigen::VectorXd::Zero(p.size());
  std::vector<double> out{natural_residual(z, p.M * z + p.q)};
  for (int k = 0; k < sweeps; ++k) {
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      const double wi = p.M.row(i).dot(z) + p.q[i];
      z[i] = std::max(0.0, z[i] - wi / p.M(i, i));
    }
    out.push_back(natural_residual(z, p.M * z + p.q));
  }
  return out;
}

// M = [[2, 1], [1, 2]], q = (−1, −1): each sweep cuts the error by 4 (z → (1/3, 1/3)); by hand the
// residuals are 1 (z = 0), 1/4 (z = (1/2, 1/4)), 1/16 (z = (3/8, 5/16)), …
TEST(Trace, PgsResidualsDecreaseAndMatchARecomputation) {
  const Lcp p{(Eigen::Matrix2d() << 2, 1, 1, 2).finished(), Eigen::Vector2d(-1, -1)};
  Result result;
  const std::vector<Recorded> events = traced(p, Method::Pgs, {.tolerance = 1e-12}, &result);
  ASSERT_TRUE(result.solved());
  ASSERT_EQ(events.size(), static_cast<std::size_t>(result.iterations) + 1);
  EXPECT_EQ(*events[0].event.residual, 1.0);
  EXPECT_EQ(*events[1].event.residual, 0.25);
  EXPECT_EQ(*events[2].event.residual, 0.0625);
  EXPECT_THAT(events[0].event.entered, IsEmpty());
  EXPECT_THAT(events[1].event.entered, ElementsAre(0, 1));
  EXPECT_EQ(events[1].event.active_size, 2);
  const std::vector<double> textbook = textbook_pgs_residuals(p, result.iterations);
  for (std::size_t k = 0; k < events.size(); ++k) {
    EXPECT_EQ(events[k].event.kind, TraceKind::Sweep);
    EXPECT_EQ(events[k].event.iteration, static_cast<int>(k));
    EXPECT_NEAR(*events[k].event.residual, textbook[k], 1e-15);
    if (k > 0) {
      EXPECT_LT(*events[k].event.residual, *events[k - 1].event.residual);
    }
  }
}

// A random SPD problem: residuals agree with the textbook sweep and with Result::history.
TEST(Trace, PgsOnARandomSpdProblemMatchesTheTextbookSweep) {
  std::mt19937_64 engine(17);
  std::uniform_real_distribution<double> u(-1, 1);
  const Eigen::Index n = 20;
  Eigen::MatrixXd A(n, n);
  for (double& x : A.reshaped()) x = u(engine);
  Eigen::VectorXd q(n);
  for (double& x : q) x = u(engine);
  const Lcp p{A.transpose() * A + Eigen::MatrixXd::Identity(n, n), q};
  Result result;
  const std::vector<Recorded> events = traced(p, Method::Pgs, {.max_iterations = 60}, &result);
  ASSERT_EQ(events.size(), static_cast<std::size_t>(result.iterations) + 1);
  const std::vector<double> textbook = textbook_pgs_residuals(p, result.iterations);
  std::vector<char> active(static_cast<std::size_t>(n), 0);
  for (std::size_t k = 0; k < events.size(); ++k) {
    const TraceEvent& e = events[k].event;
    EXPECT_NEAR(*e.residual, textbook[k], 1e-12 * std::max(1.0, textbook[k]));
    if (k > 0) {
      EXPECT_NEAR(*e.residual, result.history[k - 1], 1e-12);
    }
    for (const Eigen::Index i : e.entered) active[static_cast<std::size_t>(i)] = 1;
    for (const Eigen::Index i : e.left) active[static_cast<std::size_t>(i)] = 0;
    EXPECT_EQ(*e.active_size, std::count(active.begin(), active.end(), 1));
  }
  // The set the changes add up to is the returned z's support.
  for (Eigen::Index i = 0; i < n; ++i) EXPECT_EQ(active[static_cast<std::size_t>(i)] == 1, result.z[i] > 0.0) << i;
}

// Warm start z = (0, 1) on q = (−2, 1/2): sweep 1 sets z1 = 1/2 and then z2 = max(0, 1 − 3/2) = 0
// (index 0 enters, 1 leaves; w = (−1, 1): residual 1); sweep 2 reaches z = (1, 0), w = (0, 3/2).
TEST(Trace, PgsActiveSetChanges) {
  const Lcp p{(Eigen::Matrix2d() << 2, 1, 1, 2).finished(), Eigen::Vector2d(-2, 0.5)};
  const std::vector<Recorded> events = traced(p, Method::Pgs, {.initial_guess = Eigen::Vector2d(0, 1)});
  ASSERT_EQ(events.size(), 3u);
  EXPECT_THAT(events[0].event.entered, ElementsAre(1));
  EXPECT_EQ(*events[0].event.residual, 1.0);
  EXPECT_THAT(events[1].event.entered, ElementsAre(0));
  EXPECT_THAT(events[1].event.left, ElementsAre(1));
  EXPECT_EQ(*events[1].event.residual, 1.0);
  EXPECT_THAT(events[2].event.entered, IsEmpty());
  EXPECT_THAT(events[2].event.left, IsEmpty());
  EXPECT_EQ(*events[2].event.residual, 0.0);
}

// Murty on the example of [chapter] §1.4: w1 = −1 < 0 flips index 0 (z = (1, 0), w = (0, −1): residual 1),
// then w2 < 0 flips index 1 (z = (1, 1), residual 0).
TEST(Trace, MurtyNamesTheIndexThatChangesSet) {
  const std::vector<Recorded> events = traced(testing_problems::chapter_lemke_example(), Method::Murty, {});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.kind, TraceKind::PrincipalPivot);
  EXPECT_THAT(events[0].event.entered, ElementsAre(0));
  EXPECT_EQ(*events[0].event.residual, 1.0);
  EXPECT_THAT(events[1].event.entered, ElementsAre(1));
  EXPECT_EQ(*events[1].event.active_size, 2);
  EXPECT_EQ(*events[1].event.residual, 0.0);
}

// Dantzig on M = [[2, 1], [1, 2]], q = (−1, −1): index 0 is driven from w0 = −1 and joins C at
// z0 = 1/2 (step 1/2); index 1 (w1 = −1/2) then joins at z1 = 1/3 (step 1/3, the Schur pivot 3/2).
TEST(Trace, DantzigDrivesEachIndexIntoTheClampedSet) {
  const Lcp p{(Eigen::Matrix2d() << 2, 1, 1, 2).finished(), Eigen::Vector2d(-1, -1)};
  Result result;
  const std::vector<Recorded> events = traced(p, Method::Dantzig, {}, &result);
  ASSERT_TRUE(result.solved());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(*events[0].event.driving, 0);
  EXPECT_THAT(events[0].event.entered, ElementsAre(0));
  EXPECT_DOUBLE_EQ(*events[0].event.step, 0.5);
  EXPECT_EQ(*events[1].event.driving, 1);
  EXPECT_THAT(events[1].event.entered, ElementsAre(1));
  EXPECT_DOUBLE_EQ(*events[1].event.step, 1.0 / 3.0);
  EXPECT_EQ(*events[1].event.active_size, 2);
}

// newton-min on M = [[2, 1], [1, 2]], q = (−1, 0) from z = 0: the start's set {i : z_i > F_i} is {0};
// row 1 sits at the min's tie z_1 − F_1 = 0 (a kink) where the first step is computed. FB merit at
// the start: φ(0, −1) = 2, φ(0, 0) = 0, Ψ = 2. The solution is z = (1/2, 0), w = (0, 1/2).
TEST(Trace, NewtonReportsMeritStepAndSets) {
  const Lcp p{(Eigen::Matrix2d() << 2, 1, 1, 2).finished(), Eigen::Vector2d(-1, 0)};
  Result result;
  const std::vector<Recorded> events = traced(p, Method::NewtonMin, {}, &result);
  ASSERT_TRUE(result.solved()) << result.message;
  ASSERT_EQ(events.size(), static_cast<std::size_t>(result.iterations) + 1);
  const TraceEvent& start = events[0].event;
  EXPECT_EQ(start.kind, TraceKind::NewtonStep);
  EXPECT_EQ(start.iteration, 0);
  EXPECT_DOUBLE_EQ(*start.merit, 2.0);
  EXPECT_EQ(*start.residual, 1.0);
  EXPECT_FALSE(start.step.has_value());
  EXPECT_THAT(start.entered, ElementsAre(0));
  const TraceEvent& first = events[1].event;
  EXPECT_THAT(first.kinks, ElementsAre(1));
  ASSERT_TRUE(first.step.has_value());
  EXPECT_GT(*first.step, 0.0);
  EXPECT_LE(*first.step, 1.0);
  ASSERT_NE(first.direction, nullptr);
  EXPECT_THAT(std::string(first.direction), testing::AnyOf("newton", "levenberg-marquardt", "gradient"));
  const TraceEvent& last = events.back().event;
  EXPECT_LE(*last.residual, 1e-8);
  EXPECT_NEAR(*last.merit, 0.0, 1e-14);
  for (std::size_t k = 1; k < events.size(); ++k) EXPECT_EQ(*events[k].event.residual, result.history[k - 1]);
}

// newton-fb marks the same row: its FB pair (z_1, F_1) = (0, 0) is the kink.
TEST(Trace, NewtonFbKinkIsTheFbPairAtTheOrigin) {
  const Lcp p{(Eigen::Matrix2d() << 2, 1, 1, 2).finished(), Eigen::Vector2d(-1, 0)};
  const std::vector<Recorded> events = traced(p, Method::NewtonFb, {});
  ASSERT_GE(events.size(), 2u);
  EXPECT_THAT(events[1].event.kinks, ElementsAre(1));
  EXPECT_EQ(events[1].method, "newton-fb");
}

TEST(Trace, InteriorPointStepsFromTheStart) {
  const Lcp p{(Eigen::Matrix2d() << 2, 1, 1, 2).finished(), Eigen::Vector2d(-1, 1)};
  Result result;
  const std::vector<Recorded> events = traced(p, Method::InteriorPoint, {}, &result);
  ASSERT_TRUE(result.solved()) << result.message;
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].event.iteration, 0);
  // Start z = (1, 1), w = M z + q = (2, 4): zᵀw / n = 3.
  EXPECT_DOUBLE_EQ(*events[0].event.mu, 3.0);
  for (std::size_t k = 1; k < events.size(); ++k) {
    EXPECT_EQ(events[k].event.kind, TraceKind::InteriorStep);
    ASSERT_TRUE(events[k].event.step.has_value());
    EXPECT_GT(*events[k].event.step, 0.0);
    EXPECT_LE(*events[k].event.step, 1.0);
  }
}

// The trace observes; the solve is the same with and without it, and every event carries the
// method's name from the one name table (`to_string(Method)`).
TEST(Trace, DoesNotChangeTheSolve) {
  std::mt19937_64 engine(3);
  std::uniform_real_distribution<double> u(-1, 1);
  const Eigen::Index n = 12;
  Eigen::MatrixXd A(n, n);
  for (double& x : A.reshaped()) x = u(engine);
  Eigen::VectorXd q(n);
  for (double& x : q) x = u(engine);
  const Lcp p{A.transpose() * A + 0.1 * Eigen::MatrixXd::Identity(n, n), q};
  for (const Method m : {Method::Lemke, Method::Murty, Method::Pgs, Method::Psor, Method::NewtonFb, Method::NewtonMin,
                         Method::Smoothing, Method::InteriorPoint, Method::Dantzig, Method::Auto}) {
    SCOPED_TRACE(to_string(m));
    const Result plain = solve(p, m);
    Result with;
    const std::vector<Recorded> events = traced(p, m, {}, &with);
    EXPECT_EQ(plain.z, with.z);
    EXPECT_EQ(plain.iterations, with.iterations);
    EXPECT_EQ(plain.status, with.status);
    EXPECT_FALSE(events.empty());
    if (m == Method::Auto) continue;  // auto traces the methods it runs under their names (below)
    for (const Recorded& r : events) EXPECT_EQ(r.method, to_string(m));  // the one name table's
  }
}

TEST(Trace, AutoTracesEachMethodUnderItsName) {
  const std::vector<Recorded> events = traced(testing_problems::chapter_lemke_example(), Method::Auto, {});
  ASSERT_FALSE(events.empty());
  for (const Recorded& r : events) EXPECT_NE(r.method, "auto");
}

// auto on a symmetric positive definite M with n > 40 starts with block principal pivoting from
// z = 0: its first vertex's set is {i : q_i < 0} (z_i > w_i = q_i), each later one moves the
// infeasible indices across, and the last is the solution (exact to round-off).
TEST(Trace, AutoTracesBlockPivotingVertices) {
  std::mt19937_64 engine(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const Eigen::Index n = 60;
  Eigen::MatrixXd A(n, n);
  for (double& x : A.reshaped()) x = u(engine);
  Eigen::VectorXd q(n);
  for (double& x : q) x = u(engine);
  Eigen::MatrixXd M = A.transpose() * A + Eigen::MatrixXd::Identity(n, n);
  M = (0.5 * (M + M.transpose())).eval();
  const Lcp p{M, q};
  Result result;
  const std::vector<Recorded> all = traced(p, Method::Auto, {}, &result);
  ASSERT_TRUE(result.solved()) << result.message;
  ASSERT_THAT(result.attempt_order, testing::HasSubstr("block principal pivoting from the start: solved"));
  std::vector<TraceEvent> vertices;
  for (const Recorded& r : all) {
    if (r.method == "block-pivoting") vertices.push_back(r.event);
  }
  ASSERT_FALSE(vertices.empty());
  std::vector<Eigen::Index> negative;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (q[i] < 0) negative.push_back(i);
  }
  EXPECT_EQ(vertices[0].entered, negative);
  EXPECT_THAT(vertices[0].left, IsEmpty());
  std::vector<char> in(static_cast<std::size_t>(n), 0);
  for (std::size_t k = 0; k < vertices.size(); ++k) {
    EXPECT_EQ(vertices[k].kind, TraceKind::PrincipalPivot);
    EXPECT_EQ(vertices[k].iteration, static_cast<int>(k + 1));
    for (const Eigen::Index i : vertices[k].entered) in[static_cast<std::size_t>(i)] = 1;
    for (const Eigen::Index i : vertices[k].left) in[static_cast<std::size_t>(i)] = 0;
    EXPECT_EQ(*vertices[k].active_size, std::count(in.begin(), in.end(), 1));
  }
  // The last vertex is the returned point: its set is the support of z, its residual the result's.
  for (Eigen::Index i = 0; i < n; ++i) EXPECT_EQ(in[static_cast<std::size_t>(i)] == 1, result.z[i] > 0.0) << i;
  EXPECT_NEAR(*vertices.back().residual, result.residual, 1e-12);
}

TEST(Trace, AnExceptionFromTheCallbackEndsTheSolve) {
  SolveOptions options;
  options.trace = [](const TraceEvent&) { throw std::runtime_error("stop"); };
  EXPECT_THROW((void)solve(testing_problems::chapter_lemke_example(), Method::Lemke, options), std::runtime_error);
}

}  // namespace
}  // namespace perp::solvers_trace_test
