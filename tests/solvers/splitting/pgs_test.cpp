#include "perp/solvers/solve.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/box_lcp.hpp"
#include "perp/solvers/mlcp.hpp"
#include "../../../src/solvers/splitting/pgs.hpp"
#include "../test_problems.hpp"

namespace perp::solvers_pgs_test {
namespace {

using namespace testing_problems;
using testing::HasSubstr;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Pgs, OneByOneConvergesInOneSweep) {
  // z ← max(0, 0 − (−2)/4) = 0.5, exact after one sweep.
  const Result r = solve(Lcp{Eigen::MatrixXd::Constant(1, 1, 4.0), Eigen::VectorXd::Constant(1, -2.0)}, Method::Pgs);
  ASSERT_TRUE(r.solved());
  EXPECT_DOUBLE_EQ(r.z[0], 0.5);
  EXPECT_EQ(r.iterations, 1);
}

TEST(Pgs, FirstSweepOfTheBlockByHand) {
  // Sweep 1 from z = 0: z_0 = 10/1.75 = 40/7; w_1 = 0.25·40/7 − 10 → z_1 = (10 − 10/7)/1.75 = 240/49.
  const Result r = solve(two_contact_block(), Method::Pgs, {.max_iterations = 1});
  EXPECT_EQ(r.status, Status::MaxIterations);
  EXPECT_NEAR(r.z[0], 40.0 / 7, 1e-13);
  EXPECT_NEAR(r.z[1], 240.0 / 49, 1e-13);
  ASSERT_EQ(r.history.size(), 1u);
  EXPECT_NEAR(r.history[0], natural_residual(two_contact_block(), r.z), 1e-12);
}

TEST(Pgs, ConvergesOnTheBlockWithMonotoneHistory) {
  // Relative to ‖q‖∞ = 10 (docs/solvers.md): 1e-13 is the absolute 1e-12 checked below.
  const Result r = solve(two_contact_block(), Method::Pgs, {.tolerance = 1e-13});
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z[0], 5, 1e-11);
  EXPECT_NEAR(r.z[1], 5, 1e-11);
  EXPECT_EQ(r.history.size(), static_cast<std::size_t>(r.iterations));
  EXPECT_LE(r.history.back(), 1e-12);
  EXPECT_LT(r.history.back(), r.history.front());
}

// The textbook sweep, one row at a time with w recomputed from scratch: an independent check of
// the grouped, incrementally updated sweep in the library.
Eigen::VectorXd reference_sweeps(const Lcp& p, Eigen::VectorXd z, double omega, int sweeps) {
  for (int s = 0; s < sweeps; ++s) {
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      const double wi = p.M.row(i).dot(z) + p.q[i];
      z[i] = std::max(0.0, z[i] - omega * wi / p.M(i, i));
    }
  }
  return z;
}

// Runs pgs (ω = 1) and psor (ω = 1.3) for at most seven sweeps and compares z with
// `reference(ω, sweeps)` at the same count (a few small cases are exact after fewer sweeps:
// residual 0 stops them). Returns how many of the two ran all seven.
template <class Problem, class Reference>
int expect_sweeps_match(const Problem& p, const Reference& reference) {
  int full_runs = 0;
  for (const double omega : {1.0, 1.3}) {
    SolveOptions o{.tolerance = 1e-300, .max_iterations = 7};
    if (omega != 1.0) o.relaxation = omega;
    const Result r = solve(p, omega == 1.0 ? Method::Pgs : Method::Psor, o);
    EXPECT_GE(r.iterations, 1);
    EXPECT_LE(r.iterations, 7);
    full_runs += r.iterations == 7 ? 1 : 0;
    const Eigen::VectorXd expected = reference(omega, r.iterations);
    EXPECT_LE((r.z - expected).cwiseAbs().maxCoeff(), 1e-12 * (1 + expected.cwiseAbs().maxCoeff()))
        << "n = " << p.size() << ", omega = " << omega;
  }
  return full_runs;
}

TEST(Psor, SweepsMatchTheTextbookIterationForEverySizeModFour) {
  int full_runs = 0;
  for (const Eigen::Index n : {1, 2, 3, 5, 7, 9, 13}) {
    Lcp p = random_spd(n, static_cast<unsigned>(100 + n));
    p.M(0, n - 1) += 0.05;  // not symmetric: the row and column orders must both be right
    p.q[0] = -1.0;          // never q >= 0, which is answered without sweeping
    full_runs += expect_sweeps_match(
        p, [&](double omega, int sweeps) { return reference_sweeps(p, Eigen::VectorXd::Zero(n), omega, sweeps); });
  }
  EXPECT_GE(full_runs, 10);  // of 14
}

TEST(Psor, OverRelaxationAndWarmStart) {
  const Lcp p = random_spd(80, 5);
  const Result pgs = solve(p, Method::Pgs, {.tolerance = 1e-10, .max_iterations = 100000});
  const Result psor = solve(p, Method::Psor, {.tolerance = 1e-10, .max_iterations = 100000, .relaxation = 1.5});
  ASSERT_TRUE(pgs.solved()) << pgs.message;
  ASSERT_TRUE(psor.solved()) << psor.message;
  EXPECT_EQ(psor.method, Method::Psor);
  EXPECT_LE((pgs.z - psor.z).cwiseAbs().maxCoeff(), 1e-7);
  // Warm start at the solution: done after one sweep.
  const Result warm = solve(p, Method::Pgs, {.tolerance = 1e-9, .initial_guess = pgs.z});
  ASSERT_TRUE(warm.solved());
  EXPECT_EQ(warm.iterations, 1);
}

// One rule for every problem type (LCP, box LCP, MLCP): a diagonal PGS cannot divide by is known
// before the first sweep, so the method does not apply (not a breakdown on the way).
TEST(Pgs, NonPositiveDiagonalIsNotApplicableNamingTheRow) {
  const Lcp p{Eigen::Matrix3d{{1, 0, 0}, {0, 2, 0}, {0, 0, -1}}, Eigen::Vector3d(-1, -1, -1)};
  const Result r = solve(p, Method::Pgs);
  EXPECT_EQ(r.status, Status::NotApplicable);
  EXPECT_THAT(r.message, testing::HasSubstr("M(2, 2) = -1"));
  EXPECT_TRUE(r.z.allFinite());
}

TEST(Pgs, DivergenceEndsFiniteAndNotSolved) {
  // Non-symmetric with a positive diagonal but strong coupling: the sweeps grow without bound.
  const Lcp p{Eigen::Matrix2d{{1, -10}, {-10, 1}}, Eigen::Vector2d(-1, -1)};
  const Result r = solve(p, Method::Pgs, {.max_iterations = 5000});
  EXPECT_FALSE(r.solved());
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_TRUE(r.w.allFinite());
}

// Issue 14: the LCP, the box LCP and the MLCP share one kernel and one rule for a diverging run.
// By hand from z = 0: z_0 = 1, then w_1 = −10 − 1 → z_1 = 11; next z_0 = 1 + 110 = 111,
// z_1 = 11 + 1100 = 1111, ...: a hundredfold per sweep. The run stops once the residual has grown
// 1e10-fold past the smallest seen and returns that point (no worse than the start's residual 1).
TEST(Pgs, DivergenceStopsWithTheBestPoint) {
  const Lcp p{Eigen::Matrix2d{{1, -10}, {-10, 1}}, Eigen::Vector2d(-1, -1)};
  const Result r = solve(p, Method::Pgs);
  EXPECT_EQ(r.status, Status::NumericalFailure) << r.message;
  EXPECT_THAT(r.message, HasSubstr("diverges"));
  EXPECT_LT(r.iterations, 20);
  EXPECT_LE(r.residual, 1.0);
  EXPECT_DOUBLE_EQ(r.residual, natural_residual(p, r.z));
}

// The textbook sweep over bounds, one row at a time with w recomputed from scratch and a coupled
// row's bounds ∓μ|z_j| read from the current z_j: an independent check of the grouped sweep.
Eigen::VectorXd reference_box_sweeps(const BoxLcp& p, Eigen::VectorXd z, double omega, int sweeps) {
  for (int s = 0; s < sweeps; ++s) {
    for (Eigen::Index i = 0; i < p.size(); ++i) {
      double lo = p.lower[i], hi = p.upper[i];
      for (const FrictionCoupling& c : p.friction) {
        if (c.index == i) hi = c.mu * std::abs(z[c.normal]), lo = -hi;
      }
      const double wi = p.M.row(i).dot(z) + p.q[i];
      z[i] = std::clamp(z[i] - omega * wi / p.M(i, i), lo, hi);
    }
  }
  return z;
}

// Bounds of every kind by row (free, finite box, lower only, upper only) and, from n = 5 on, a
// friction pair whose coupled row comes before and after its normal in the groups of four.
BoxLcp mixed_box(Eigen::Index n, unsigned seed) {
  const Lcp base = random_spd(n, seed);
  BoxLcp p{base.M, 3 * base.q, Eigen::VectorXd(n), Eigen::VectorXd(n), {}};
  p.M(0, n - 1) += 0.05;  // not symmetric: the row and column orders must both be right
  for (Eigen::Index i = 0; i < n; ++i) {
    switch (i % 4) {
      case 0:
        p.lower[i] = -kInf, p.upper[i] = kInf;
        break;
      case 1:
        p.lower[i] = -0.5, p.upper[i] = 0.25;
        break;
      case 2:
        p.lower[i] = 0.0, p.upper[i] = kInf;
        break;
      default:
        p.lower[i] = -kInf, p.upper[i] = 0.5;
        break;
    }
  }
  if (n >= 5) {
    p.friction.push_back({4, 2, 0.5});  // after its normal, in the next group
    p.friction.push_back({1, n >= 7 ? n - 1 : 3, 0.3});  // before its normal (in a later group from n = 7)
  }
  return p;
}

TEST(Pgs, BareSweepsMatchTheHandSweepAndTheTextbookIteration) {
  // auto's bare kernel: one sweep of the block from z = 0 gives the hand values of
  // FirstSweepOfTheBlockByHand, and w stays M z + q (kept by column updates, checked here afresh).
  const Lcp block = two_contact_block();
  Eigen::VectorXd z = Eigen::VectorXd::Zero(2), w = block.q;
  detail::gauss_seidel_sweeps(block.M, block.M.diagonal().cwiseInverse(), z, w, 1);
  EXPECT_NEAR(z[0], 40.0 / 7, 1e-13);
  EXPECT_NEAR(z[1], 240.0 / 49, 1e-13);
  EXPECT_LE((w - (block.M * z + block.q)).cwiseAbs().maxCoeff(), 1e-12);
  // Seven rows (one group of four and one of three), three sweeps from a nonzero start: the
  // textbook iteration's point.
  Eigen::MatrixXd A(7, 7);
  for (Eigen::Index k = 0; k < A.size(); ++k) A.data()[k] = std::sin(1.0 + static_cast<double>(k));
  const Lcp p{A.transpose() * A + Eigen::MatrixXd::Identity(7, 7), Eigen::VectorXd::LinSpaced(7, -3.0, 2.0)};
  const Eigen::VectorXd start = Eigen::VectorXd::LinSpaced(7, 0.0, 0.6);
  z = start;
  w = p.M * z + p.q;
  detail::gauss_seidel_sweeps(p.M, p.M.diagonal().cwiseInverse(), z, w, 3);
  EXPECT_LE((z - reference_sweeps(p, start, 1.0, 3)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((w - (p.M * z + p.q)).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(PgsOverBounds, BoxSweepsMatchTheTextbookIterationForEverySizeModFour) {
  int full_runs = 0;
  for (const Eigen::Index n : {1, 2, 3, 5, 7, 9, 13}) {
    const BoxLcp p = mixed_box(n, static_cast<unsigned>(200 + n));
    const Eigen::VectorXd start = Eigen::VectorXd::Zero(n).cwiseMax(p.lower).cwiseMin(p.upper);
    full_runs += expect_sweeps_match(
        p, [&](double omega, int sweeps) { return reference_box_sweeps(p, start, omega, sweeps); });
  }
  EXPECT_GE(full_runs, 10);  // of 14
}

// Every problem type's PGS traces its sweeps: event 0 is the start, one event per sweep, the last
// residual that of the returned z recomputed here, and the last active set {i : lo_i < z_i < hi_i}
// the one derived by hand.
template <class Problem>
std::vector<TraceEvent> traced_pgs(const Problem& problem, Result& result) {
  std::vector<TraceEvent> events;
  SolveOptions options{.tolerance = 1e-12};
  options.trace = [&](const TraceEvent& e) { events.push_back(e); };
  result = solve(problem, Method::Pgs, options);
  return events;
}

TEST(PgsOverBounds, TracesTheBoxLcpAndTheMlcp) {
  // The sliding contact of box_lcp_test: z = (8/9, 4/9), z_1 at its coupled upper bound μ z_0, so
  // only z_0 is strictly inside its bounds at the end.
  const BoxLcp sliding{Eigen::Matrix2d{{2, 0.5}, {0.5, 1}}, Eigen::Vector2d(-2, -3), Eigen::Vector2d(0, 0),
                       Eigen::Vector2d(kInf, 0), {FrictionCoupling{1, 0, 0.5}}};
  Result r;
  std::vector<TraceEvent> events = traced_pgs(sliding, r);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z[0], 8.0 / 9, 1e-10);
  ASSERT_EQ(events.size(), static_cast<std::size_t>(r.iterations) + 1);
  EXPECT_EQ(events.front().iteration, 0);
  EXPECT_EQ(events.back().iteration, r.iterations);
  EXPECT_EQ(events.back().kind, TraceKind::Sweep);
  EXPECT_STREQ(events.back().method, "pgs");
  EXPECT_EQ(events.back().active_size, 1);
  EXPECT_NEAR(*events.back().residual, natural_residual(sliding, r.z), 1e-14);

  // The MLCP (u free): A = 2, C = D = B = 1, a = −4, b = −3 has u = 1, v = 2 > 0, both inside.
  const Mlcp mlcp{Eigen::MatrixXd::Constant(1, 1, 2.0), Eigen::MatrixXd::Constant(1, 1, 1.0),
                  Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::MatrixXd::Constant(1, 1, 1.0),
                  Eigen::VectorXd::Constant(1, -4.0), Eigen::VectorXd::Constant(1, -3.0)};
  events = traced_pgs(mlcp, r);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_NEAR(r.z[0], 1.0, 1e-10);
  EXPECT_NEAR(r.z[1], 2.0, 1e-10);
  ASSERT_EQ(events.size(), static_cast<std::size_t>(r.iterations) + 1);
  EXPECT_EQ(events.back().active_size, 2);
  EXPECT_NEAR(*events.back().residual, natural_residual(mlcp, r.z), 1e-12);
}

}  // namespace
}  // namespace perp::solvers_pgs_test
