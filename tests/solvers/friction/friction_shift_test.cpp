// The fixed point on de Saxcé's shift (private kernel, friction_shift.cpp) and its place in auto on
// a planar FactoredFrictionContact.

#include "../../../src/solvers/friction/convex/friction_shift.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::solvers_friction_shift_test {
namespace {

using Eigen::VectorXd;
using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// A box (mass 1, inertia J = 1) on two corners (∓a, −b) = (∓1, −0.5) on the ground, moving at
/// v = (2, −1), ω = 0: rows per contact normal (0, 1, r_x), tangent (1, 0, −r_y).
FactoredFrictionContact sliding_box(double mu) {
  FactoredFrictionContact problem;
  problem.dimension = 2;
  const double a = 1.0;
  const double b = 0.5;
  std::vector<Eigen::Triplet<double>> entries;
  for (int i = 0; i < 2; ++i) {
    const double rx = i == 0 ? -a : a;
    entries.emplace_back(2 * i, 1, 1.0);
    entries.emplace_back(2 * i, 2, rx);
    entries.emplace_back(2 * i + 1, 0, 1.0);
    entries.emplace_back(2 * i + 1, 2, b);
  }
  problem.H.resize(4, 3);
  problem.H.setFromTriplets(entries.begin(), entries.end());
  problem.inverse_mass = VectorXd::Ones(3);
  problem.q = (VectorXd(4) << -1.0, 2.0, -1.0, 2.0).finished();
  problem.mu = VectorXd::Constant(2, mu);
  return problem;
}

FrictionContact shell_of(const FactoredFrictionContact& problem) {
  FrictionContact shell;
  shell.dimension = problem.dimension;
  shell.q = problem.q;
  shell.mu = problem.mu;
  return shell;
}

/// Coulomb's law at (r, u), each condition on its own, to `slack` (velocities and impulses here are
/// of order 1): r in the cone, u_N >= 0, r_N u_N = 0, and either sticking (u_T = 0) or sliding
/// with r_T = −μ r_N sign(u_T).
void expect_coulomb(const VectorXd& r, const VectorXd& u, const VectorXd& mu, double slack) {
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    const double rn = r[2 * i];
    const double rt = r[2 * i + 1];
    const double un = u[2 * i];
    const double ut = u[2 * i + 1];
    SCOPED_TRACE("contact " + std::to_string(i));
    EXPECT_GE(rn, -slack);
    EXPECT_LE(std::abs(rt), mu[i] * rn + slack);
    EXPECT_GE(un, -slack);
    EXPECT_NEAR(rn * un, 0.0, slack);
    if (std::abs(ut) > slack) {
      EXPECT_NEAR(rt, -mu[i] * rn * (ut > 0 ? 1.0 : -1.0), slack);
    }
  }
}

/// The fixed point from r = 0 to 1e-12.
Result shifts_from_rest(const FactoredFrictionContact& problem) {
  SolveOptions options;
  options.tolerance = 1e-12;
  FrictionContactResiduals residuals;
  return detail::solve_by_shifts(problem.H, problem.inverse_mass, shell_of(problem), options,
                                 VectorXd::Zero(problem.size()), residuals);
}

TEST(ShiftFixedPoint, SlidingBoxByHand) {
  // Both corners slide (u_T > 0) with u_N = 0: the momentum balance gives R1 + R2 = 1 (the fall
  // stopped), ω unchanged so a (R2 − R1) = μ b (R1 + R2): R2 − R1 = 0.25 at μ = 0.5; u_T = 2 − μ = 1.5.
  const FactoredFrictionContact problem = sliding_box(0.5);
  const Result result = shifts_from_rest(problem);
  ASSERT_EQ(result.status, Status::Solved) << result.message;
  const VectorXd expected = (VectorXd(4) << 0.375, -0.1875, 0.625, -0.3125).finished();
  EXPECT_LT((result.z - expected).lpNorm<Eigen::Infinity>(), 1e-12) << result.z.transpose();
  // One convex program gives the statuses (both sliding up), its Newton point the exact solution.
  EXPECT_EQ(result.iterations, 1);
  EXPECT_THAT(result.message, ::testing::HasSubstr("1 of them kept"));
  const VectorXd u = problem.velocity(result.z);
  EXPECT_LT((result.w - u).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_NEAR(u[1], 1.5, 1e-12);
  EXPECT_NEAR(u[3], 1.5, 1e-12);
  expect_coulomb(result.z, u, problem.mu, 1e-12);
}

TEST(ShiftFixedPoint, StickingBoxByHand) {
  // μ = 3 holds the box: u = 0 at both corners. v' = (2, −1, 0) + (R_T, R_N, Σ r_x R_N,i + b R_T,i)
  // = 0 with R_T = −2 in all, R_N = 1 in all, and −R1 + R2 + 0.5 (−2) = 0: R2 − R1 = 1, so R1 = 0,
  // R2 = 1, and the tangent impulse on the loaded corner, |−2| < 3. u is unique; r need not be.
  const FactoredFrictionContact problem = sliding_box(3.0);
  const Result result = shifts_from_rest(problem);
  ASSERT_EQ(result.status, Status::Solved) << result.message;
  const VectorXd u = problem.velocity(result.z);
  EXPECT_LT(u.lpNorm<Eigen::Infinity>(), 1e-12) << u.transpose();
  EXPECT_NEAR(result.z[0] + result.z[2], 1.0, 1e-12);
  EXPECT_NEAR(result.z[1] + result.z[3], -2.0, 1e-12);
  expect_coulomb(result.z, u, problem.mu, 1e-12);
}

/// A planar heap: `bodies` disks (3 dofs, mass and inertia in [0.5, 2]) and `contacts` contacts
/// between random pairs or with the ground, unit normals at random angles, lever arms of 0.5.
FactoredFrictionContact random_heap(int bodies, int contacts, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> pick(-1, bodies - 1);
  FactoredFrictionContact problem;
  problem.dimension = 2;
  std::vector<Eigen::Triplet<double>> entries;
  for (int k = 0; k < contacts; ++k) {
    const int first = pick(generator);
    int second = pick(generator);
    while (second == first || second < 0) second = pick(generator);
    const double angle = 3.14159265358979 * (0.25 + 0.5 * unit(generator));
    const double nx = std::cos(angle);
    const double ny = std::sin(angle);
    // Body `second` is pushed along n, `first` (or the ground, -1) the other way.
    for (const int body : {first, second}) {
      if (body < 0) continue;
      const double sign = body == second ? 1.0 : -1.0;
      const double arm = 0.5;
      entries.emplace_back(2 * k, 3 * body, sign * nx);
      entries.emplace_back(2 * k, 3 * body + 1, sign * ny);
      entries.emplace_back(2 * k + 1, 3 * body, sign * -ny);
      entries.emplace_back(2 * k + 1, 3 * body + 1, sign * nx);
      entries.emplace_back(2 * k + 1, 3 * body + 2, sign * arm);
    }
  }
  problem.H.resize(2 * contacts, 3 * bodies);
  problem.H.setFromTriplets(entries.begin(), entries.end());
  problem.inverse_mass.resize(3 * bodies);
  for (Eigen::Index j = 0; j < problem.inverse_mass.size(); ++j) problem.inverse_mass[j] = 1.0 / (0.5 + 1.5 * unit(generator));
  problem.q.resize(2 * contacts);
  for (int k = 0; k < contacts; ++k) {
    problem.q[2 * k] = -1.0 + 1.2 * unit(generator);
    problem.q[2 * k + 1] = -1.0 + 2.0 * unit(generator);
  }
  problem.mu.resize(contacts);
  for (int k = 0; k < contacts; ++k) problem.mu[k] = 0.1 + 0.5 * unit(generator);
  return problem;
}

TEST(ShiftFixedPoint, RandomHeapsCheckedFromTheirVelocities) {
  int solved = 0;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    const FactoredFrictionContact problem = random_heap(8, 14, seed);
    SolveOptions options;
    options.tolerance = 1e-10;
    FrictionContactResiduals residuals;
    const Result result = detail::solve_by_shifts(problem.H, problem.inverse_mass, shell_of(problem), options,
                                                  VectorXd::Zero(problem.size()), residuals);
    SCOPED_TRACE("seed " + std::to_string(seed) + ": " + result.message);
    // The returned point and its criteria are those of r, whatever the status.
    const VectorXd u = problem.velocity(result.z);
    EXPECT_LT((result.w - u).lpNorm<Eigen::Infinity>(), 1e-12);
    EXPECT_DOUBLE_EQ(residuals.relative_error, result.residual);
    if (result.status != Status::Solved) continue;
    ++solved;
    EXPECT_LE(result.residual, 1e-10);
    expect_coulomb(result.z, u, problem.mu, 1e-8);
  }
  EXPECT_EQ(solved, 20);  // measured: every one of these
}

TEST(ShiftFixedPoint, AutoOnTheFactorsTriesItAfterTheSweeps) {
  const FactoredFrictionContact problem = sliding_box(0.5);
  SolveOptions options;
  options.tolerance = 1e-12;
  options.friction_contact.automatic.nsgs_sweeps = 1;
  options.friction_contact.automatic.shift_updates = 20;
  FrictionContactResiduals criteria;
  const Result result = solve(problem, Method::Auto, options, criteria);
  ASSERT_EQ(result.status, Status::Solved) << result.message;
  EXPECT_THAT(result.message, ::testing::HasSubstr("fixed point on de Saxce's shift"));
  EXPECT_THAT(result.attempt_order, ::testing::Not(::testing::HasSubstr("W formed")));
  const VectorXd expected = (VectorXd(4) << 0.375, -0.1875, 0.625, -0.3125).finished();
  EXPECT_LT((result.z - expected).lpNorm<Eigen::Infinity>(), 1e-12);

  options.friction_contact.automatic.shift_updates = 0;  // the default, not tried: W formed, the chain from the sweeps
  const Result without = solve(problem, Method::Auto, options, criteria);
  EXPECT_THAT(without.attempt_order, ::testing::Not(::testing::HasSubstr("de Saxce")));
  EXPECT_THAT(without.attempt_order, ::testing::HasSubstr("W formed"));  // the route in full; the message one line
}

// A box at rest on two corners, pressed down (q_N = −1, q_T = 0): statically indeterminate, every
// r = (½, t, ½, −t) with |t| <= μ/2 gives u = 0. Anitescu–Potra's relaxation has unique velocities
// (u = 0), which are Coulomb's. Checked from u recomputed from the returned r.
void expect_box_at_rest(const FactoredFrictionContact& problem, const Result& result) {
  ASSERT_EQ(result.status, Status::Solved) << result.message;
  EXPECT_THAT(result.message, ::testing::HasSubstr("Anitescu-Potra's relaxation"));
  EXPECT_THAT(result.attempt_order, ::testing::Not(::testing::HasSubstr("W formed")));
  const VectorXd u = problem.velocity(result.z);
  EXPECT_LT(u.lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_NEAR(result.z[0], 0.5, 1e-12);
  EXPECT_NEAR(result.z[2], 0.5, 1e-12);
  EXPECT_NEAR(result.z[1] + result.z[3], 0.0, 1e-12);
  expect_coulomb(result.z, u, problem.mu, 1e-12);
}

FactoredFrictionContact box_at_rest() {
  FactoredFrictionContact problem = sliding_box(0.5);
  problem.q = (VectorXd(4) << -1.0, 0.0, -1.0, 0.0).finished();
  return problem;
}

// From r = 0 with no contact sliding at the free velocity, auto solves the relaxation before any
// sweep (a structure's first step from rest).
TEST(ShiftFixedPoint, AutoSolvesAStructureFromRestByTheRelaxationFirst) {
  const FactoredFrictionContact problem = box_at_rest();
  SolveOptions options;
  options.tolerance = 1e-12;
  FrictionContactResiduals criteria;
  const Result result = solve(problem, Method::Auto, options, criteria);
  expect_box_at_rest(problem, result);
  EXPECT_THAT(result.message, ::testing::HasSubstr("from rest"));
  EXPECT_THAT(result.message, ::testing::Not(::testing::HasSubstr("nsgs")));
  EXPECT_EQ(result.iterations, 1);  // one program, no sweep

  // Sliding (the box of the tests above, q_T = 2): neither route tries the relaxation.
  options.friction_contact.automatic.nsgs_sweeps = 1;
  const Result sliding = solve(sliding_box(0.5), Method::Auto, options, criteria);
  EXPECT_THAT(sliding.message, ::testing::Not(::testing::HasSubstr("relaxation")));
}

// From a warm start that is not a solution, one sweep does not solve it; auto sees no contact
// sliding at the sweep's point and solves the relaxation after it. The warm start has the second
// corner open and the sweep closes it, so the statuses change and the status solve of the sweeps
// (nsgs.hpp, solve_nsgs_factored) is not tried.
TEST(ShiftFixedPoint, AutoSolvesAStructureAtRestByTheRelaxationAfterTheSweeps) {
  const FactoredFrictionContact problem = box_at_rest();
  SolveOptions options;
  options.tolerance = 1e-12;
  options.friction_contact.automatic.nsgs_sweeps = 1;
  options.initial_guess = (VectorXd(4) << 0.3, 0.0, 0.0, 0.0).finished();
  FrictionContactResiduals criteria;
  const Result result = solve(problem, Method::Auto, options, criteria);
  expect_box_at_rest(problem, result);
  EXPECT_THAT(result.message, ::testing::HasSubstr("nsgs on the factors of W"));
  EXPECT_THAT(result.message, ::testing::Not(::testing::HasSubstr("from rest")));
  EXPECT_THAT(result.message, ::testing::Not(::testing::HasSubstr("statuses")));

  // Both corners closed from the start and after the sweep: the statuses hold over the two checks
  // and the status solve returns a point of the same set (u = 0, r_N = ½ at each corner).
  options.initial_guess = (VectorXd(4) << 0.3, 0.0, 0.3, 0.0).finished();
  const Result by_statuses = solve(problem, Method::Auto, options, criteria);
  ASSERT_EQ(by_statuses.status, Status::Solved) << by_statuses.message;
  EXPECT_THAT(by_statuses.message, ::testing::HasSubstr("a solve on the contacts' statuses"));
  const VectorXd u = problem.velocity(by_statuses.z);
  EXPECT_LT(u.lpNorm<Eigen::Infinity>(), 1e-12);
  EXPECT_NEAR(by_statuses.z[0], 0.5, 1e-12);
  EXPECT_NEAR(by_statuses.z[2], 0.5, 1e-12);
  expect_coulomb(by_statuses.z, u, problem.mu, 1e-12);
}

TEST(ShiftFixedPoint, NegativeUpdateBudgetIsRefused) {
  SolveOptions options;
  options.friction_contact.automatic.shift_updates = -1;
  FrictionContactResiduals criteria;
  try {
    (void)solve(sliding_box(0.5), Method::Auto, options, criteria);
    FAIL() << "expected InvalidProblem";
  } catch (const InvalidProblem& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("friction_contact.automatic.shift_updates"));
  }
}

}  // namespace
}  // namespace perp::solvers_friction_shift_test
