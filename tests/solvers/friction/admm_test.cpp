// ADMM on the frictional contact problem (admm.cpp), on W formed and on its factors: Coulomb's law
// checked condition by condition at (r, u = H M⁻¹ Hᵀ r + q) recomputed here.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::solvers_admm_test {
namespace {

using Eigen::VectorXd;
using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// `bodies` planar bodies (x, y, θ; inverse masses 1, 1, 6) stacked in an order, each contact between
/// an upper body b and a lower one a < b (or the ground, a = −1) with a normal tilted at most 0.6 rad
/// from the vertical: normal row (n_x, n_y, ℓ × n) on the upper body and its negative on the lower,
/// tangent row likewise with t = (−n_y, n_x). Lifting body k by k·c separates every contact, so the
/// problem has a solution (W = H M⁻¹ Hᵀ positive semidefinite, redundant where contacts outnumber
/// the dofs they touch).
FactoredFrictionContact random_pile(int bodies, int contacts, double mu, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  FactoredFrictionContact problem;
  problem.dimension = 2;
  std::vector<Eigen::Triplet<double>> entries;
  for (int c = 0; c < contacts; ++c) {
    const int b = std::uniform_int_distribution<int>(0, bodies - 1)(random);
    const int a = std::uniform_int_distribution<int>(-1, b - 1)(random);
    const double angle = 1.5707963267948966 + 0.6 * unit(random);
    const double nx = std::cos(angle);
    const double ny = std::sin(angle);
    const double lx = 0.5 * unit(random);
    const double ly = -0.5;
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? b : a;
      if (body < 0) continue;
      const double sign = side == 0 ? 1.0 : -1.0;
      const double rx = side == 0 ? lx : -lx;
      const double ry = side == 0 ? ly : -ly;
      entries.emplace_back(2 * c, 3 * body, sign * nx);
      entries.emplace_back(2 * c, 3 * body + 1, sign * ny);
      entries.emplace_back(2 * c, 3 * body + 2, sign * (rx * ny - ry * nx));
      entries.emplace_back(2 * c + 1, 3 * body, sign * -ny);
      entries.emplace_back(2 * c + 1, 3 * body + 1, sign * nx);
      entries.emplace_back(2 * c + 1, 3 * body + 2, sign * (rx * nx + ry * ny));
    }
  }
  problem.H.resize(2 * contacts, 3 * bodies);
  problem.H.setFromTriplets(entries.begin(), entries.end());
  problem.H.makeCompressed();
  problem.inverse_mass.resize(3 * bodies);
  for (int k = 0; k < bodies; ++k) {
    problem.inverse_mass.segment(3 * k, 3) << 1.0, 1.0, 6.0;
  }
  problem.q.resize(2 * contacts);
  for (int c = 0; c < contacts; ++c) {
    problem.q[2 * c] = -0.2 + 0.1 * unit(random);  // approaching
    problem.q[2 * c + 1] = 0.3 * unit(random);
  }
  problem.mu = VectorXd::Constant(contacts, mu);
  return problem;
}

/// u = H M⁻¹ Hᵀ r + q, from the factors, without the library's product.
VectorXd velocity_of(const FactoredFrictionContact& problem, const VectorXd& r) {
  const VectorXd impulse = problem.H.transpose() * r;
  return problem.H * problem.inverse_mass.cwiseProduct(impulse) + problem.q;
}

/// Coulomb's law, each condition on its own, to `slack`: r in the cone, u_N >= 0, r_N u_N = 0, and
/// u_T = 0 (stick) or r_T = −μ r_N sign(u_T) (slide).
void expect_coulomb(const VectorXd& r, const VectorXd& u, const VectorXd& mu, double slack) {
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    SCOPED_TRACE("contact " + std::to_string(i));
    const double rn = r[2 * i];
    const double rt = r[2 * i + 1];
    const double un = u[2 * i];
    const double ut = u[2 * i + 1];
    EXPECT_GE(rn, -slack);
    EXPECT_LE(std::abs(rt), mu[i] * rn + slack);
    EXPECT_GE(un, -slack);
    EXPECT_NEAR(rn * un, 0.0, slack);
    if (std::abs(ut) > slack) {
      EXPECT_NEAR(rt, -mu[i] * rn * (ut > 0 ? 1.0 : -1.0), slack);
    }
  }
}

TEST(Admm, OneContactSlidingByHand) {
  // W = diag(2, 1), q = (−2, 3), μ = 0.5: sliding forward, 2 r_N − 2 = 0 → r = (1, −0.5),
  // u = (0, 2.5) (derived by hand; the same case as friction_contact_test's slide).
  const FrictionContact problem =
      friction_contact_from_dense(2, Eigen::Vector2d(2, 1).asDiagonal().toDenseMatrix(), Eigen::Vector2d(-2, 3),
                                  VectorXd::Constant(1, 0.5));
  const Result result = solve(problem, Method::Admm, {.tolerance = 1e-12});
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_EQ(result.method, Method::Admm);
  EXPECT_NEAR(result.z[0], 1.0, 1e-10);
  EXPECT_NEAR(result.z[1], -0.5, 1e-10);
}

TEST(Admm, FactoredAndFormedMeetCoulombOnARandomPile) {
  for (const double mu : {0.0, 0.3, 0.8}) {
    SCOPED_TRACE("mu " + std::to_string(mu));
    const FactoredFrictionContact factored = random_pile(12, 30, mu, 7);
    FrictionContactResiduals criteria;
    // ADMM converges linearly, slowly at the end: 1e-7 here (5.7e-9 after its 5 000 iterations at μ 0.8).
    const Result on_factors = solve(factored, Method::Admm, {.tolerance = 1e-7}, criteria);
    ASSERT_TRUE(on_factors.solved()) << on_factors.message;
    const VectorXd u = velocity_of(factored, on_factors.z);
    expect_coulomb(on_factors.z, u, factored.mu, 1e-5);
    // The same problem with W formed.
    const Result formed = solve(factored.assembled(), Method::Admm, {.tolerance = 1e-7});
    ASSERT_TRUE(formed.solved()) << formed.message;
    expect_coulomb(formed.z, velocity_of(factored, formed.z), factored.mu, 1e-5);
    // The velocities of the bodies (M⁻¹ Hᵀ r) agree where the impulses need not (redundant contacts).
    const VectorXd v_factors = factored.inverse_mass.cwiseProduct(factored.H.transpose() * on_factors.z);
    const VectorXd v_formed = factored.inverse_mass.cwiseProduct(factored.H.transpose() * formed.z);
    EXPECT_LE((v_factors - v_formed).lpNorm<Eigen::Infinity>(), 1e-5);
  }
}

TEST(Admm, IterationLimitReturnsTheBestPointUnsolved) {
  const FactoredFrictionContact factored = random_pile(12, 30, 0.5, 11);
  FrictionContactResiduals criteria;
  SolveOptions options;
  options.tolerance = 1e-12;
  options.max_iterations = 10;
  const Result result = solve(factored, Method::Admm, options, criteria);
  EXPECT_EQ(result.status, Status::MaxIterations);
  EXPECT_EQ(result.iterations, 10);
  EXPECT_GT(result.residual, 1e-12);
  // The residual is the relative error of the returned point, recomputed (u from the factors here).
  FrictionContact shell;
  shell.dimension = 2;
  shell.q = factored.q;
  shell.mu = factored.mu;
  const double recomputed = friction_contact_residuals(shell, result.z, velocity_of(factored, result.z)).relative_error;
  EXPECT_NEAR(result.residual, recomputed, 1e-12 * recomputed);
}

}  // namespace
}  // namespace perp::solvers_admm_test
