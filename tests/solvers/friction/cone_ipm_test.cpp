// The interior point on 3D cones (cone_ipm.cpp): interior-point on a d = 3 FrictionContact (Coulomb's
// law by de Saxcé's shift around it) and on the convex law of a 3D GlobalFrictionContact. Every
// criterion is recomputed here from the returned r and u = H M⁻¹ Hᵀ r + q, not by the solver's code.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/core/global_friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::solvers_cone_ipm_test {
namespace {

using Eigen::Vector3d;
using Eigen::VectorXd;
using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// `contacts` contacts on one body of mass m that only translates (3 dofs), each with the normal
/// z and the tangents x, y: every contact's rows are the identity, so W = 1/m [I I …; I I …] and,
/// with more than one contact, the impulses are redundant (only their sum is determined).
FactoredFrictionContact translating_body(int contacts, double mass, const Vector3d& q_contact, double mu) {
  FactoredFrictionContact problem;
  problem.dimension = 3;
  std::vector<Eigen::Triplet<double>> entries;
  // Contact slots (normal, tangent x, tangent y) against the body's dofs (x, y, z).
  for (int c = 0; c < contacts; ++c) {
    entries.emplace_back(3 * c, 2, 1.0);
    entries.emplace_back(3 * c + 1, 0, 1.0);
    entries.emplace_back(3 * c + 2, 1, 1.0);
  }
  problem.H.resize(3 * contacts, 3);
  problem.H.setFromTriplets(entries.begin(), entries.end());
  problem.H.makeCompressed();
  problem.inverse_mass = VectorXd::Constant(3, 1.0 / mass);
  problem.q = q_contact.replicate(contacts, 1);
  problem.mu = VectorXd::Constant(contacts, mu);
  return problem;
}

/// u = H M⁻¹ Hᵀ r + q, formed here.
VectorXd velocity_of(const FactoredFrictionContact& problem, const VectorXd& r) {
  const VectorXd v = problem.inverse_mass.cwiseProduct(VectorXd(problem.H.transpose() * r));
  return VectorXd(problem.H * v) + problem.q;
}

/// Coulomb's law at (r, u), contact by contact, written out: r in the cone, u_N >= 0, r_N u_N = 0;
/// where r_N > 0 and u_T ≠ 0 the friction on the cone's boundary opposing u_T; where u_T = 0 nothing
/// more. Returns the worst violation, in the units of r·u or of u (so comparable with `tolerance`
/// times the problem's scale).
double coulomb_violation(const FactoredFrictionContact& problem, const VectorXd& r, const VectorXd& u) {
  double worst = 0;
  for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
    const double mu = problem.mu[i];
    const double rn = r[3 * i];
    const Eigen::Vector2d rt = r.segment<2>(3 * i + 1);
    const double un = u[3 * i];
    const Eigen::Vector2d ut = u.segment<2>(3 * i + 1);
    worst = std::max({worst, -rn, rt.norm() - mu * rn, -un, std::abs(rn * un)});
    // Maximal dissipation: r_T = −μ r_N u_T/‖u_T‖ when sliding, i.e. r_T·u_T + μ r_N ‖u_T‖ = 0.
    worst = std::max(worst, std::abs(rt.dot(ut) + mu * rn * ut.norm()));
  }
  return worst;
}

/// The convex law at (r, u), written out: r ∈ K_μ, u ∈ K_μ* (u_N >= μ‖u_T‖), rᵀu = 0 contact by
/// contact.
double convex_violation(const FactoredFrictionContact& problem, const VectorXd& r, const VectorXd& u) {
  double worst = 0;
  for (Eigen::Index i = 0; i < problem.contacts(); ++i) {
    const double mu = problem.mu[i];
    const Vector3d ri = r.segment<3>(3 * i);
    const Vector3d ui = u.segment<3>(3 * i);
    worst = std::max({worst, ri.tail<2>().norm() - mu * ri[0], mu * ui.tail<2>().norm() - ui[0], std::abs(ri.dot(ui))});
  }
  return worst;
}

TEST(ConeInteriorPoint, OneStickingContact) {
  // m = 2, q = (−1, 0.2, 0.1), μ = 0.5: at rest u = r/m + q = 0 gives r = −m q = (2, −0.4, −0.2),
  // ‖r_T‖ = 0.447 <= μ r_N = 1: it sticks, under Coulomb's law and the convex law alike.
  const FactoredFrictionContact problem = translating_body(1, 2.0, Vector3d(-1, 0.2, 0.1), 0.5);
  const Vector3d expected(2, -0.4, -0.2);
  const SolveOptions options{.tolerance = 1e-10};
  FrictionContactResiduals criteria;
  const Result coulomb = solve(problem, Method::InteriorPoint, options, criteria);
  ASSERT_TRUE(coulomb.solved()) << coulomb.message;
  EXPECT_LE((coulomb.z - expected).lpNorm<Eigen::Infinity>(), 1e-8) << coulomb.z.transpose();
  EXPECT_LE(velocity_of(problem, coulomb.z).lpNorm<Eigen::Infinity>(), 1e-8);
  EXPECT_LE(coulomb_violation(problem, coulomb.z, velocity_of(problem, coulomb.z)), 1e-8);
}

TEST(ConeInteriorPoint, OneSlidingContactCoulombAndConvex) {
  // m = 1, q = (−1, 2, 0), μ = 0.5. Coulomb: u_N = 0, so r_N = 1, r_T = −μ r_N x̂ = (−0.5, 0) and
  // u_T = (1.5, 0). The convex law: r on the cone's boundary, u = r + q on the dual cone's, r ⊥ u:
  // r = (ρ, −μρ, 0) with ρ(ρ − 1) − μρ(2 − μρ) = 0, ρ = (1 + 2μ)/(1 + μ²) = 1.6, so
  // r = (1.6, −0.8, 0), u = (0.6, 1.2, 0): the contact lifts by μ‖u_T‖ = 0.6.
  const FactoredFrictionContact problem = translating_body(1, 1.0, Vector3d(-1, 2, 0), 0.5);
  const SolveOptions options{.tolerance = 1e-10};
  FrictionContactResiduals criteria;
  const Result coulomb = solve(problem, Method::InteriorPoint, options, criteria);
  ASSERT_TRUE(coulomb.solved()) << coulomb.message;
  EXPECT_LE((coulomb.z - Vector3d(1, -0.5, 0)).lpNorm<Eigen::Infinity>(), 1e-8) << coulomb.z.transpose();
  const VectorXd u = velocity_of(problem, coulomb.z);
  EXPECT_LE((u - Vector3d(0, 1.5, 0)).lpNorm<Eigen::Infinity>(), 1e-8) << u.transpose();
  EXPECT_LE(coulomb_violation(problem, coulomb.z, u), 1e-8);

  // The convex law through the global form: M = I, H (dofs × n) = the local rows transposed,
  // q = 0 and b = the local q, so that u = Hᵀ v + b with v = M⁻¹ H r.
  GlobalFrictionContact global;
  global.dimension = 3;
  global.law = FrictionLaw::Convex;
  global.M.resize(3, 3);
  global.M.setIdentity();
  global.H = Eigen::SparseMatrix<double>(problem.H.transpose());
  global.q = VectorXd::Zero(3);
  global.b = problem.q;
  global.mu = problem.mu;
  const Result convex = solve(global, Method::InteriorPoint, options);
  ASSERT_TRUE(convex.solved()) << convex.message;
  EXPECT_LE((convex.z - Vector3d(1.6, -0.8, 0)).lpNorm<Eigen::Infinity>(), 1e-8) << convex.z.transpose();
  const VectorXd lifted = velocity_of(problem, convex.z);
  EXPECT_LE((lifted - Vector3d(0.6, 1.2, 0)).lpNorm<Eigen::Infinity>(), 1e-8) << lifted.transpose();
  EXPECT_LE(convex_violation(problem, convex.z, lifted), 1e-8);
}

TEST(ConeInteriorPoint, TwoRedundantContactsOnOneBody) {
  // Two contacts with the same rows on one body: only r₁ + r₂ is determined, the velocity is unique.
  // Sticking: r₁ + r₂ = −m q = (1, −0.2, 0), u = 0. Sliding (q_T = (2, 0)): r₁ + r₂ = (1, −0.5, 0),
  // u = (0, 1.5, 0) at both.
  const SolveOptions options{.tolerance = 1e-10};
  for (const Vector3d& q : {Vector3d(-1, 0.2, 0), Vector3d(-1, 2, 0)}) {
    const bool sliding = q[1] > 1;
    const FactoredFrictionContact problem = translating_body(2, 1.0, q, 0.5);
    FrictionContactResiduals criteria;
    const Result result = solve(problem, Method::InteriorPoint, options, criteria);
    ASSERT_TRUE(result.solved()) << result.message;
    const Vector3d sum = result.z.head<3>() + result.z.tail<3>();
    const Vector3d expected_sum = sliding ? Vector3d(1, -0.5, 0) : Vector3d(1, -0.2, 0);
    const Vector3d expected_u = sliding ? Vector3d(0, 1.5, 0) : Vector3d::Zero();
    EXPECT_LE((sum - expected_sum).lpNorm<Eigen::Infinity>(), 1e-8) << result.z.transpose();
    const VectorXd u = velocity_of(problem, result.z);
    EXPECT_LE((u.head<3>() - expected_u).lpNorm<Eigen::Infinity>(), 1e-8) << u.transpose();
    EXPECT_LE((u.tail<3>() - expected_u).lpNorm<Eigen::Infinity>(), 1e-8) << u.transpose();
    EXPECT_LE(coulomb_violation(problem, result.z, u), 1e-8);
  }
}

TEST(ConeInteriorPoint, FrictionlessContactKeepsNoTangentialImpulse) {
  // μ = 0: the tangential rows drop out of the cone program; r_T = 0, r_N = 1, u_T = q_T.
  const FactoredFrictionContact problem = translating_body(1, 1.0, Vector3d(-1, 0.3, -0.4), 0.0);
  FrictionContactResiduals criteria;
  const Result result = solve(problem, Method::InteriorPoint, SolveOptions{.tolerance = 1e-10}, criteria);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LE((result.z - Vector3d(1, 0, 0)).lpNorm<Eigen::Infinity>(), 1e-8) << result.z.transpose();
}

/// A 3D pile: `bodies` rigid bodies (6 dofs: translation, rotation; inverse masses 1 and 6), each
/// contact between an upper body b and a lower one a < b (or the ground) with a normal tilted at
/// most 0.5 rad from z at a random arm: the rows (n, ℓ × n) on b and their negatives on a, likewise
/// for the two tangents. Lifting body k by k·c separates every contact, so the convex law has a
/// solution; the contacts outnumber the dofs (redundant).
FactoredFrictionContact random_pile(int bodies, int contacts, double mu, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  FactoredFrictionContact problem;
  problem.dimension = 3;
  std::vector<Eigen::Triplet<double>> entries;
  for (int c = 0; c < contacts; ++c) {
    const int b = std::uniform_int_distribution<int>(0, bodies - 1)(random);
    const int a = std::uniform_int_distribution<int>(-1, b - 1)(random);
    Vector3d n(0.5 * unit(random), 0.5 * unit(random), 1.0);
    n.normalize();
    const Vector3d t1 = n.cross(Vector3d::UnitY()).normalized();
    const Vector3d t2 = n.cross(t1);
    const Vector3d arm(0.5 * unit(random), 0.5 * unit(random), -0.5);
    const Vector3d directions[3] = {n, t1, t2};
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? b : a;
      if (body < 0) continue;
      const double sign = side == 0 ? 1.0 : -1.0;
      const Vector3d lever = side == 0 ? arm : Vector3d(-arm);
      for (int k = 0; k < 3; ++k) {
        const Vector3d torque = lever.cross(directions[k]);
        for (int j = 0; j < 3; ++j) {
          entries.emplace_back(3 * c + k, 6 * body + j, sign * directions[k][j]);
          entries.emplace_back(3 * c + k, 6 * body + 3 + j, sign * torque[j]);
        }
      }
    }
  }
  problem.H.resize(3 * contacts, 6 * bodies);
  problem.H.setFromTriplets(entries.begin(), entries.end());
  problem.H.makeCompressed();
  problem.inverse_mass.resize(6 * bodies);
  for (int k = 0; k < bodies; ++k) problem.inverse_mass.segment(6 * k, 6) << 1, 1, 1, 6, 6, 6;
  // q: gravity's velocity on each body pushed through the rows, plus a random sliding part.
  VectorXd free_velocity = VectorXd::Zero(6 * bodies);
  for (int k = 0; k < bodies; ++k) {
    free_velocity.segment<3>(6 * k) = Vector3d(0.3 * unit(random), 0.3 * unit(random), -1.0);
  }
  problem.q = problem.H * free_velocity;
  problem.mu = VectorXd::Constant(contacts, mu);
  return problem;
}

/// The convex law of `problem` as a 3D GlobalFrictionContact: M = diag(1 / inverse_mass), H's
/// transpose, q = 0 and b = the local q (so that W = H M⁻¹ Hᵀ and the local q are the problem's).
GlobalFrictionContact convex_global(const FactoredFrictionContact& problem) {
  GlobalFrictionContact global;
  global.dimension = 3;
  global.law = FrictionLaw::Convex;
  global.M = Eigen::SparseMatrix<double>(problem.inverse_mass.cwiseInverse().asDiagonal());
  global.H = Eigen::SparseMatrix<double>(problem.H.transpose());
  global.q = VectorXd::Zero(problem.inverse_mass.size());
  global.b = problem.q;
  global.mu = problem.mu;
  return global;
}

TEST(ConeInteriorPoint, RandomPilesConvexAndCoulomb) {
  const SolveOptions options{.tolerance = 1e-8};
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const FactoredFrictionContact problem = random_pile(6, 20, 0.6, seed);
    const GlobalFrictionContact global = convex_global(problem);
    // auto (the interior point, then admm from its point if needed) solves; interior-point alone
    // solves or stops at its round-off floor saying so (a status true of the point returned).
    for (const Method method : {Method::InteriorPoint, Method::Auto}) {
      const Result convex = solve(global, method, options);
      if (method == Method::InteriorPoint && !convex.solved()) {
        EXPECT_GT(cone_residuals(3, problem.mu, convex.z, velocity_of(problem, convex.z), FrictionLaw::Convex,
                                 problem.q.norm()).relative_error, options.tolerance) << "seed " << seed;
        EXPECT_LT(convex.residual, 1e-5) << "seed " << seed << ": " << convex.message;
        continue;
      }
      ASSERT_TRUE(convex.solved()) << "seed " << seed << ": " << convex.message;
      const VectorXd u = velocity_of(problem, convex.z);
      const double scale = std::max({problem.q.norm(), convex.z.norm(), u.norm()});
      EXPECT_LE(convex_violation(problem, convex.z, u), 1e-6 * scale * scale) << "seed " << seed;
      EXPECT_LE(cone_residuals(3, problem.mu, convex.z, u, FrictionLaw::Convex, problem.q.norm()).relative_error,
                options.tolerance);
    }
    // Coulomb's law: solved, or else it says it is not; where solved, the criteria hold.
    FrictionContactResiduals criteria;
    const Result coulomb = solve(problem, Method::InteriorPoint, options, criteria);
    if (coulomb.solved()) {
      const VectorXd uc = velocity_of(problem, coulomb.z);
      const double scale_c = std::max({problem.q.norm(), coulomb.z.norm(), uc.norm()});
      EXPECT_LE(coulomb_violation(problem, coulomb.z, uc), 1e-6 * scale_c * scale_c) << "seed " << seed;
    } else {
      EXPECT_GT(friction_contact_residuals(problem.assembled(), coulomb.z).relative_error, options.tolerance);
    }
  }
}

TEST(ConeInteriorPoint, SolvesInTurnOnOneThreadKeepTheirOwnAnswers) {
  // The interior point keeps its pattern arrays and factor on the thread between solves (its
  // analysis reused where the pattern is the last one): piles A (seed 5) and B (seed 6, another
  // pattern and size) solved as A, A, B, A give A's answer each time, to the last bit, and each one
  // meets the convex law (recomputed here).
  const SolveOptions options{.tolerance = 1e-8};
  const FactoredFrictionContact a = random_pile(6, 20, 0.6, 5);
  const FactoredFrictionContact b = random_pile(9, 31, 0.4, 6);
  const Result first = solve(convex_global(a), Method::Auto, options);
  ASSERT_TRUE(first.solved()) << first.message;
  for (const FactoredFrictionContact* problem : {&a, &b, &a}) {
    const Result again = solve(convex_global(*problem), Method::Auto, options);
    ASSERT_TRUE(again.solved()) << again.message;
    const VectorXd u = velocity_of(*problem, again.z);
    EXPECT_LE(cone_residuals(3, problem->mu, again.z, u, FrictionLaw::Convex, problem->q.norm()).relative_error,
              options.tolerance);
    if (problem == &a) {
      EXPECT_EQ(again.z, first.z);
    } else {
      EXPECT_EQ(again.z.size(), 93);
    }
  }
}

}  // namespace
}  // namespace perp::solvers_cone_ipm_test
