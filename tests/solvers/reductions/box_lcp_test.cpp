// solve(BoxLcp): every box method on hand-derived problems, friction coupling, agreement on random
// problems, bad input, a non-P matrix and warm starts. Residuals are recomputed here from z.
#include "perp/solvers/box_lcp.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"
#include "../test_problems.hpp"
#include "../relative_check.hpp"

namespace perp::solvers_box_lcp_test {
namespace {

using testing::HasSubstr;
constexpr double kInf = std::numeric_limits<double>::infinity();

BoxLcp box(Eigen::MatrixXd M, Eigen::VectorXd q, Eigen::VectorXd lower, Eigen::VectorXd upper,
           std::vector<FrictionCoupling> friction = {}) {
  return {std::move(M), std::move(q), std::move(lower), std::move(upper), std::move(friction)};
}

// Checks r against the expected z (and w = M z + q), with the residual recomputed from r.z.
void expect_solution(const BoxLcp& p, const Result& r, const Eigen::VectorXd& z, double tolerance,
                     const std::string& what) {
  ASSERT_TRUE(r.solved()) << what << ": " << to_string(r.status) << ": " << r.message;
  ASSERT_EQ(r.z.size(), p.size()) << what;
  EXPECT_LE(natural_residual(p, r.z), 1e-8) << what;
  EXPECT_DOUBLE_EQ(r.residual, natural_residual(p, r.z)) << what;
  EXPECT_TRUE(r.w.isApprox(p.slack(r.z), 1e-12) || (r.w - p.slack(r.z)).norm() < 1e-12) << what;
  for (Eigen::Index i = 0; i < z.size(); ++i) EXPECT_NEAR(r.z[i], z[i], tolerance) << what << " z[" << i << "]";
}

// M = [2], q = [−4]: the unconstrained minimizer z = 2.
//   box [0, 1]:  z = 1 at the upper bound, w = 2·1 − 4 = −2 <= 0.
//   box [0, 3]:  z = 2 inside, w = 0.
// M = [2], q = [4], box [−1, 3]: unconstrained z = −2 < −1, so z = −1 at the lower bound, w = 2 >= 0.
TEST(SolveBoxLcp, OneDimensionalUpperInteriorAndLower) {
  const BoxLcp upper = box(Eigen::MatrixXd::Constant(1, 1, 2), Eigen::VectorXd::Constant(1, -4),
                           Eigen::VectorXd::Constant(1, 0), Eigen::VectorXd::Constant(1, 1));
  const BoxLcp interior = box(Eigen::MatrixXd::Constant(1, 1, 2), Eigen::VectorXd::Constant(1, -4),
                              Eigen::VectorXd::Constant(1, 0), Eigen::VectorXd::Constant(1, 3));
  const BoxLcp lower = box(Eigen::MatrixXd::Constant(1, 1, 2), Eigen::VectorXd::Constant(1, 4),
                           Eigen::VectorXd::Constant(1, -1), Eigen::VectorXd::Constant(1, 3));
  for (const Method m : box_lcp_methods()) {
    const Result a = solve(upper, m);
    expect_solution(upper, a, Eigen::VectorXd::Constant(1, 1), 1e-9, to_string(m) + " upper");
    EXPECT_NEAR(a.w[0], -2, 1e-9);
    const Result b = solve(interior, m);
    expect_solution(interior, b, Eigen::VectorXd::Constant(1, 2), 1e-8, to_string(m) + " interior");
    const Result c = solve(lower, m);
    expect_solution(lower, c, Eigen::VectorXd::Constant(1, -1), 1e-9, to_string(m) + " lower");
    EXPECT_NEAR(c.w[0], 2, 1e-9);
  }
}

// M = [[2, 1], [1, 2]], q = (−3, 3), both in [−1, 1]. Unconstrained: z = (3, −3), outside the box.
// z = (1, −1): w = (2 − 1 − 3, 1 − 2 + 3) = (−2, 2): z_0 at its upper bound with w_0 <= 0, z_1 at its
// lower bound with w_1 >= 0: the solution (M is positive definite, so the only one).
TEST(SolveBoxLcp, OppositeCornersOfTheBox) {
  const BoxLcp p =
      box(Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(-3, 3), Eigen::Vector2d(-1, -1), Eigen::Vector2d(1, 1));
  for (const Method m : box_lcp_methods()) {
    const Result r = solve(p, m);
    expect_solution(p, r, Eigen::Vector2d(1, -1), 1e-9, to_string(m));
    EXPECT_NEAR(r.w[0], -2, 1e-8);
    EXPECT_NEAR(r.w[1], 2, 1e-8);
  }
}

// Free, upper-only and fixed components. M = [[4, 1, 0], [1, 3, 1], [0, 1, 2]], q = (−1, −8, 2);
// z_0 free, z_1 in (−∞, 2], z_2 fixed at 1, z_3 in [−2, +∞) with M_33 = 1, q_3 = 5 (decoupled).
// z_2 = 1. z_0 free: 4 z_0 + z_1 − 1 = 0. If z_1 were inside: z_0 + 3 z_1 + 1 − 8 = 0, so
// (1 − z_1)/4 + 3 z_1 = 7, z_1 = 27/11 > 2: z_1 = 2 at its upper bound, z_0 = −1/4,
// w_1 = −1/4 + 6 + 1 − 8 = −5/4 <= 0. w_2 = 2 + 2 + 2 = 6 (any sign: z_2 is fixed).
// z_3: z_3 + 5 = 0 gives −5 < −2, so z_3 = −2 at its lower bound, w_3 = 3 >= 0.
TEST(SolveBoxLcp, FreeUpperOnlyFixedAndLowerOnlyComponents) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(4, 4);
  M.topLeftCorner(3, 3) << 4, 1, 0, 1, 3, 1, 0, 1, 2;
  M(3, 3) = 1;
  const BoxLcp p =
      box(M, Eigen::Vector4d(-1, -8, 2, 5), Eigen::Vector4d(-kInf, -kInf, 1, -2), Eigen::Vector4d(kInf, 2, 1, kInf));
  for (const Method m : box_lcp_methods()) {
    const Result r = solve(p, m, {.tolerance = 1e-10});
    expect_solution(p, r, Eigen::Vector4d(-0.25, 2, 1, -2), 1e-8, to_string(m));
    EXPECT_NEAR(r.w[0], 0, 1e-8) << to_string(m);
    EXPECT_NEAR(r.w[1], -1.25, 1e-8) << to_string(m);
    EXPECT_NEAR(r.w[2], 6, 1e-8) << to_string(m);
    EXPECT_NEAR(r.w[3], 3, 1e-8) << to_string(m);
  }
}

// Every component free: the box LCP is the linear system M z = −q. M = [[2, 1], [1, 2]],
// q = (−1, 0): z = (2/3, −1/3).
TEST(SolveBoxLcp, AllFreeIsALinearSystem) {
  const BoxLcp p = box(Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(-1, 0), Eigen::Vector2d(-kInf, -kInf),
                       Eigen::Vector2d(kInf, kInf));
  for (const Method m : box_lcp_methods()) {
    expect_solution(p, solve(p, m, {.tolerance = 1e-10}), Eigen::Vector2d(2.0 / 3, -1.0 / 3), 1e-9, to_string(m));
  }
}

// One contact: normal z_0 >= 0, tangential z_1 coupled to it with μ = 1/2, Delassus-like
// M = [[2, 1/2], [1/2, 1]] (the contact point is off the centre of mass, so the directions couple).
//
// Sliding, q = (−2, −3): guess z_1 = μ z_0 (the upper bound) and w_0 = 0:
//   2 z_0 + z_0/4 − 2 = 0 → z_0 = 8/9, z_1 = 4/9;
//   w_1 = z_0/2 + z_1 − 3 = 4/9 + 4/9 − 3 = −19/9 <= 0: the contact slides (velocity −19/9)
//   against the friction impulse +4/9 at the cone's edge.
BoxLcp sliding_contact() {
  return box(Eigen::Matrix2d{{2, 0.5}, {0.5, 1}}, Eigen::Vector2d(-2, -3), Eigen::Vector2d(0, 0),
             Eigen::Vector2d(kInf, 0), {FrictionCoupling{1, 0, 0.5}});
}
// Sticking, q = (−2, −1/5): guess w = 0: 2 z_0 + z_1/2 = 2, z_0/2 + z_1 = 1/5 → z_1 = 1/5 − z_0/2,
//   7/4 z_0 = 19/10 → z_0 = 38/35, z_1 = −12/35; |z_1| = 12/35 < μ z_0 = 19/35: inside the cone,
//   w_1 = 0: the contact sticks.
BoxLcp sticking_contact() {
  return box(Eigen::Matrix2d{{2, 0.5}, {0.5, 1}}, Eigen::Vector2d(-2, -0.2), Eigen::Vector2d(0, -kInf),
             Eigen::Vector2d(kInf, kInf), {FrictionCoupling{1, 0, 0.5}});
}

TEST(SolveBoxLcp, FrictionSlidingContactEndsOnTheConeEdge) {
  const BoxLcp p = sliding_contact();
  for (const Method m : box_lcp_methods()) {
    const Result r = solve(p, m, {.tolerance = 1e-10});
    expect_solution(p, r, Eigen::Vector2d(8.0 / 9, 4.0 / 9), 1e-8, to_string(m));
    EXPECT_NEAR(r.z[1], 0.5 * r.z[0], 1e-9) << to_string(m);
    EXPECT_NEAR(r.w[1], -19.0 / 9, 1e-8) << to_string(m);
  }
}

TEST(SolveBoxLcp, FrictionStickingContactStaysInsideTheCone) {
  const BoxLcp p = sticking_contact();
  for (const Method m : box_lcp_methods()) {
    const Result r = solve(p, m, {.tolerance = 1e-10});
    expect_solution(p, r, Eigen::Vector2d(38.0 / 35, -12.0 / 35), 1e-8, to_string(m));
    EXPECT_LT(std::abs(r.z[1]), 0.5 * r.z[0]) << to_string(m);
    EXPECT_NEAR(r.w[1], 0, 1e-8) << to_string(m);
  }
}

// A random SPD box problem: M = AᵀA + 0.1 I, bounds of every kind (both finite, lower-only,
// upper-only, free, fixed), and optionally friction pairs (2k, 2k + 1) with μ in [0.2, 1].
BoxLcp random_box(Eigen::Index n, unsigned seed, bool with_friction) {
  const Lcp base = testing_problems::random_spd(n, seed);
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  BoxLcp p{base.M, 5 * base.q, Eigen::VectorXd(n), Eigen::VectorXd(n), {}};
  for (Eigen::Index i = 0; i < n; ++i) {
    const double a = -u(rng);
    const double b = u(rng);
    switch (i % 5) {
      case 0:
        p.lower[i] = a, p.upper[i] = b;
        break;
      case 1:
        p.lower[i] = a, p.upper[i] = kInf;
        break;
      case 2:
        p.lower[i] = -kInf, p.upper[i] = b;
        break;
      case 3:
        p.lower[i] = -kInf, p.upper[i] = kInf;
        break;
      default:
        p.lower[i] = p.upper[i] = a;
        break;
    }
  }
  if (with_friction) {
    for (Eigen::Index k = 0; 2 * k + 1 < n; k += 3) {
      p.lower[2 * k] = 0;
      p.upper[2 * k] = kInf;
      p.friction.push_back({2 * k + 1, 2 * k, 0.2 + 0.8 * u(rng)});
    }
  }
  return p;
}

TEST(SolveBoxLcp, MethodsAgreeOnRandomSpdProblems) {
  for (const Eigen::Index n : {Eigen::Index{7}, Eigen::Index{40}, Eigen::Index{150}}) {
    const BoxLcp p = random_box(n, static_cast<unsigned>(n), false);
    const Result reference = solve(p, Method::Dantzig, {.tolerance = 1e-10});
    ASSERT_TRUE(reference.solved()) << n << ": " << reference.message;
    for (const Method m : box_lcp_methods()) {
      // (At n = 150 the Newton family needs the box model's line-search watchdog: without it the
      // non-monotone search bounced between two points until the stall test stopped it.)
      const bool splitting = m == Method::Pgs || m == Method::Psor;
      const Result r = solve(p, m, {.tolerance = 1e-10, .max_iterations = splitting ? 200000 : 0});
      ASSERT_TRUE(r.solved()) << n << " " << to_string(m) << ": " << r.message;
      EXPECT_LE(testing_relative::relative(p, r.z), 1e-10);  // the relative test (docs/solvers.md)
      // M positive definite: one solution, which every method must find.
      EXPECT_LE((r.z - reference.z).cwiseAbs().maxCoeff(), 1e-6) << n << " " << to_string(m);
    }
  }
}

TEST(SolveBoxLcp, FrictionCoupledRandomProblemsAreSolved) {
  for (const unsigned seed : {3u, 4u, 5u}) {
    const BoxLcp p = random_box(30, seed, true);
    for (const Method m : {Method::Dantzig, Method::Pgs, Method::NewtonFb, Method::Auto}) {
      const Result r = solve(p, m, {.tolerance = 1e-9, .max_iterations = m == Method::Pgs ? 100000 : 0});
      ASSERT_TRUE(r.solved()) << seed << " " << to_string(m) << ": " << r.message;
      EXPECT_LE(testing_relative::relative(p, r.z), 1e-9);  // the relative test (docs/solvers.md)
      for (const FrictionCoupling& c : p.friction) {
        EXPECT_LE(std::abs(r.z[c.index]), c.mu * r.z[c.normal] + 1e-9);
      }
    }
  }
}

TEST(SolveBoxLcp, AutoTriesPgsFirstOnLargeFrictionCoupledProblems) {
  // Above n = 200 with friction coupling, auto's order is pgs, dantzig, newton-fb (measured by
  // compare_bullet: pgs settles the coupled bounds where fixed-box passes may not); below, dantzig.
  const BoxLcp large = random_box(210, 7u, true);
  const Result r = solve(large, Method::Auto, {.tolerance = 1e-9});
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_LE(testing_relative::relative(large, r.z), 1e-9);
  EXPECT_THAT(r.message, HasSubstr("auto (pgs: "));
  const BoxLcp small = random_box(30, 3u, true);
  EXPECT_THAT(solve(small, Method::Auto).message, HasSubstr("auto (dantzig: "));
}

// Nonsymmetric P-matrix (principal minors 2, 2, 5): dantzig's LU path. M = [[2, 1], [−1, 2]],
// q = (−1, −1), z >= 0: 2 z_0 + z_1 = 1, −z_0 + 2 z_1 = 1 → z = (1/5, 3/5) > 0, w = 0.
TEST(SolveBoxLcp, DantzigLuPathOnANonsymmetricPMatrix) {
  const BoxLcp p = box(Eigen::Matrix2d{{2, 1}, {-1, 2}}, Eigen::Vector2d(-1, -1), Eigen::Vector2d(0, 0),
                       Eigen::Vector2d(kInf, kInf));
  for (const Method m : box_lcp_methods()) {
    if (m == Method::Pgs || m == Method::Psor) continue;  // not symmetric: no convergence theory for PGS
    expect_solution(p, solve(p, m, {.tolerance = 1e-10}), Eigen::Vector2d(0.2, 0.6), 1e-9, to_string(m));
  }
  // A larger diagonally dominant nonsymmetric problem, with box bounds: dantzig agrees with newton-min.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const Eigen::Index n = 60;
  BoxLcp big{Eigen::MatrixXd(n, n),
             Eigen::VectorXd(n),
             Eigen::VectorXd::Constant(n, -0.3),
             Eigen::VectorXd::Constant(n, 0.4),
             {}};
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = 0; i < n; ++i) big.M(i, j) = u(rng);
  big.M.diagonal().array() += static_cast<double>(n);
  for (Eigen::Index i = 0; i < n; ++i) big.q[i] = 30 * u(rng);
  const Result dantzig = solve(big, Method::Dantzig, {.tolerance = 1e-10});
  const Result newton = solve(big, Method::NewtonMin, {.tolerance = 1e-10});
  ASSERT_TRUE(dantzig.solved()) << dantzig.message;
  ASSERT_TRUE(newton.solved()) << newton.message;
  EXPECT_LE((dantzig.z - newton.z).cwiseAbs().maxCoeff(), 1e-8);
}

// The Cholesky path (symmetric M) and the LU path (the same M with an asymmetry of 1e-9, far above
// the 1e-14 symmetry test) pivot through the same sets, with clamped indices leaving and rejoining,
// to the same z up to the perturbation.
TEST(SolveBoxLcp, DantzigCholeskyAndLuPathsAgree) {
  const BoxLcp symmetric = random_box(80, 17, false);
  BoxLcp perturbed = symmetric;
  perturbed.M(0, 1) += 1e-9;
  const Result a = solve(symmetric, Method::Dantzig, {.tolerance = 1e-10});
  const Result b = solve(perturbed, Method::Dantzig, {.tolerance = 1e-10});
  ASSERT_TRUE(a.solved()) << a.message;
  ASSERT_TRUE(b.solved()) << b.message;
  EXPECT_GT(a.iterations, 80);  // more pivots than indices: sets changed along the way
  EXPECT_LE((a.z - b.z).cwiseAbs().maxCoeff(), 1e-6);
}

// Small integer data make ties in the ratio test (several events at the same step) and zero steps
// common. On positive definite M = J Jᵀ + I dantzig must solve every such problem; on the singular
// J Jᵀ it must solve it or say why, never return a wrong "solved".
TEST(SolveBoxLcp, DantzigOnDegenerateIntegerProblems) {
  int solved_singular = 0;
  for (unsigned seed = 0; seed < 400; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> digit(-3, 3);
    const Eigen::Index n = 2 + seed % 12;
    const Eigen::Index rank = seed % 2 ? n : std::max<Eigen::Index>(1, n / 2);
    Eigen::MatrixXd J(n, rank);
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = 0; j < rank; ++j) J(i, j) = digit(rng);
    BoxLcp p{J * J.transpose(), Eigen::VectorXd(n), Eigen::VectorXd(n), Eigen::VectorXd(n), {}};
    if (seed % 2) p.M += Eigen::MatrixXd::Identity(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      p.q[i] = digit(rng);
      p.lower[i] = seed % 5 == 0 ? 0.0 : -std::abs(digit(rng));
      p.upper[i] = std::abs(digit(rng)) + (seed % 3 == 0 ? 0.0 : 1.0);
    }
    const Result r = solve(p, Method::Dantzig);
    ASSERT_TRUE(r.z.allFinite());
    EXPECT_EQ(r.solved(), natural_residual(p, r.z) <= 1e-8) << seed;
    if (seed % 2) {
      EXPECT_TRUE(r.solved()) << seed << ": " << r.message;
    } else if (r.solved()) {
      ++solved_singular;
    } else {
      EXPECT_TRUE(r.status == Status::NotApplicable || r.status == Status::NumericalFailure)
          << seed << ": " << r.message;
    }
  }
  EXPECT_GT(solved_singular, 150);  // of 200: most singular problems with finite boxes still pivot through
}

// M = [[1, 2], [2, 1]] is symmetric indefinite; q = (−1, −3), z >= 0. Dantzig clamps z_0 = 1
// (w_0 = 0), then w_1 = 2 − 3 = −1 < 0 asks to raise z_1, but the pivot 1 − 2·2/1 = −3 is negative.
TEST(SolveBoxLcp, DantzigReportsANonPMatrixCleanly) {
  const BoxLcp p =
      box(Eigen::Matrix2d{{1, 2}, {2, 1}}, Eigen::Vector2d(-1, -3), Eigen::Vector2d(0, 0), Eigen::Vector2d(kInf, kInf));
  const Result r = solve(p, Method::Dantzig);
  EXPECT_EQ(r.status, Status::NotApplicable);
  EXPECT_THAT(r.message, HasSubstr("index 1"));
  EXPECT_THAT(r.message, HasSubstr("{0}"));
  EXPECT_THAT(r.message, HasSubstr("-3"));
  ASSERT_EQ(r.z.size(), 2);
  EXPECT_TRUE(r.z.allFinite());
  EXPECT_DOUBLE_EQ(r.residual, natural_residual(p, r.z));
  // Nonsymmetric with a negative pivot 1 − 3·2 = −5 (LU path).
  const BoxLcp lu =
      box(Eigen::Matrix2d{{1, 2}, {3, 1}}, Eigen::Vector2d(-1, -4), Eigen::Vector2d(0, 0), Eigen::Vector2d(kInf, kInf));
  const Result s = solve(lu, Method::Dantzig);
  EXPECT_EQ(s.status, Status::NotApplicable);
  EXPECT_THAT(s.message, HasSubstr("-5"));
  // A free component on a singular direction: z_0 could move forever.
  const BoxLcp singular = box(Eigen::MatrixXd::Zero(1, 1), Eigen::VectorXd::Constant(1, -1),
                              Eigen::VectorXd::Constant(1, -kInf), Eigen::VectorXd::Constant(1, kInf));
  const Result t = solve(singular, Method::Dantzig);
  EXPECT_EQ(t.status, Status::NotApplicable);
  EXPECT_THAT(t.message, HasSubstr("without bound"));
}

TEST(SolveBoxLcp, BadInputThrowsNamingTheField) {
  const auto message_of = [](const BoxLcp& p, Method m = Method::Dantzig) {
    try {
      (void)solve(p, m);
    } catch (const InvalidProblem& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  BoxLcp p = sliding_contact();
  p.lower[0] = 2;
  p.upper[0] = 1;
  EXPECT_THAT(message_of(p), HasSubstr("lower[0]"));
  p = sliding_contact();
  p.upper = Eigen::Vector3d(1, 1, 1);
  EXPECT_THAT(message_of(p), HasSubstr("upper: expected size 2"));
  p = sliding_contact();
  p.q = Eigen::Vector3d(1, 1, 1);
  EXPECT_NE(message_of(p), "no exception");
  p = sliding_contact();
  p.friction[0].normal = 5;
  EXPECT_THAT(message_of(p), HasSubstr("friction[0].normal"));
  p = sliding_contact();
  p.friction[0].index = -1;
  EXPECT_THAT(message_of(p), HasSubstr("friction[0].index"));
  p = sliding_contact();
  p.q[1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(message_of(p), HasSubstr("q"));
  p = sliding_contact();
  p.lower[0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(message_of(p), HasSubstr("lower[0] is NaN"));
  EXPECT_THAT(message_of(sliding_contact(), Method::Lemke), HasSubstr("does not accept a BoxLcp"));
  SolveOptions bad;
  bad.dantzig.pivot_tolerance = -1;
  EXPECT_THROW((void)solve(sliding_contact(), Method::Dantzig, bad), InvalidProblem);
  EXPECT_THROW((void)solve(sliding_contact(), Method::Pgs, {.relaxation = 1.5}), InvalidProblem);
  SolveOptions all;
  all.all_solutions = true;
  for (const Method m : box_lcp_methods()) {
    EXPECT_THROW((void)solve(sliding_contact(), m, all), InvalidProblem) << to_string(m);
  }
}

TEST(SolveBoxLcp, EmptyAndTrivialProblems) {
  const BoxLcp empty = box(Eigen::MatrixXd(0, 0), Eigen::VectorXd(0), Eigen::VectorXd(0), Eigen::VectorXd(0));
  // z = mid(lo, hi, 0) = (0, 1) with w = (1, 0): w_0 >= 0 at z_0 = lower, w_1 = 0 inside: solved at once.
  const BoxLcp trivial =
      box(Eigen::Matrix2d{{1, 0}, {0, 1}}, Eigen::Vector2d(1, -1), Eigen::Vector2d(0, 1), Eigen::Vector2d(1, 2));
  for (const Method m : box_lcp_methods()) {
    const Result e = solve(empty, m);
    EXPECT_TRUE(e.solved()) << to_string(m);
    EXPECT_EQ(e.z.size(), 0);
    const Result t = solve(trivial, m);
    EXPECT_TRUE(t.solved()) << to_string(m);
    EXPECT_EQ(t.z, Eigen::Vector2d(0, 1)) << to_string(m);
    EXPECT_EQ(t.iterations, 0) << to_string(m);
  }
}

TEST(SolveBoxLcp, WarmStartFromTheSolution) {
  const BoxLcp p = random_box(20, 9, false);
  const Result cold = solve(p, Method::NewtonFb, {.tolerance = 1e-10});
  ASSERT_TRUE(cold.solved()) << cold.message;
  for (const Method m : {Method::Pgs, Method::NewtonFb, Method::NewtonMin}) {
    const Result again = solve(p, m, {.tolerance = 1e-9, .initial_guess = cold.z});
    ASSERT_TRUE(again.solved()) << to_string(m) << ": " << again.message;
    EXPECT_LE(again.iterations, 1) << to_string(m);
  }
  const Result cold_pgs = solve(p, Method::Pgs, {.tolerance = 1e-9});
  EXPECT_GT(cold_pgs.iterations, 1);
  // Friction problems too: PGS from the sliding solution stops after one sweep.
  const Result warm =
      solve(sliding_contact(), Method::Pgs, {.tolerance = 1e-9, .initial_guess = Eigen::Vector2d(8.0 / 9, 4.0 / 9)});
  ASSERT_TRUE(warm.solved());
  EXPECT_EQ(warm.iterations, 1);
}

TEST(SolveBoxLcp, AutoReportsItsAttempts) {
  const Result r = solve(sliding_contact(), Method::Auto);
  ASSERT_TRUE(r.solved()) << r.message;
  EXPECT_EQ(r.method, Method::Dantzig);
  EXPECT_THAT(r.message, HasSubstr("auto (dantzig: solved)"));
  // Indefinite: dantzig cannot pivot; auto must fall back (the Newton family first here).
  // M = [[1, 2], [2, 1]], q = (−1, −3), z in [0, 10]²: z = (0, 3) gives w = (5, 0): a solution.
  const BoxLcp indefinite =
      box(Eigen::Matrix2d{{1, 2}, {2, 1}}, Eigen::Vector2d(-1, -3), Eigen::Vector2d(0, 0), Eigen::Vector2d(10, 10));
  const Result fallback = solve(indefinite, Method::Auto);
  ASSERT_TRUE(fallback.solved()) << fallback.message;
  EXPECT_LE(natural_residual(indefinite, fallback.z), 1e-8);
  EXPECT_THAT(fallback.message, HasSubstr("dantzig: not-applicable"));
  EXPECT_NE(fallback.method, Method::Dantzig);
}

TEST(SolveBoxLcp, LcpAsABoxAgreesWithTheLcpSolvers) {
  const Lcp lcp = testing_problems::random_spd(50, 21);
  const Result as_box = solve(to_box_lcp(lcp), Method::Dantzig, {.tolerance = 1e-10});
  const Result as_lcp = solve(lcp, Method::Dantzig, {.tolerance = 1e-10});
  const Result lemke = solve(lcp, Method::Lemke, {.tolerance = 1e-10});
  ASSERT_TRUE(as_box.solved() && as_lcp.solved() && lemke.solved());
  EXPECT_LE((as_box.z - lemke.z).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LE((as_lcp.z - lemke.z).cwiseAbs().maxCoeff(), 1e-9);
}

// The outer loop's limit: one pass drives the normal first (z_1 at 0: z_0 = 1), then reads the
// tangent's bounds ±μ z_0 = ±1/2 from it (ODE's rule) and drives z_1 to 1/2 while z_0 follows,
// 2 z_0 + 1/4 = 2: z = (7/8, 1/2), which does not meet its own bounds ±7/16, so one pass ends
// max-iterations. (Each later pass solves 2 z_0 + z_1/2 = 2 with z_1 = z_0/2 from the previous
// pass: z_0 ← 1 − z_0/8, a contraction by 1/8, so the default limit needs about 10 passes for 1e-8.)
// The pivot limit likewise: a random 20-unknown problem needs more than one pivot.
TEST(SolveBoxLcp, DantzigLimitsEndMaxIterations) {
  const Result one_pass = solve(sliding_contact(), Method::Dantzig, {.max_friction_passes = 1});
  EXPECT_EQ(one_pass.status, Status::MaxIterations);
  EXPECT_NEAR(one_pass.z[0], 7.0 / 8, 1e-15);
  EXPECT_NEAR(one_pass.z[1], 1.0 / 2, 1e-15);
  EXPECT_THAT(one_pass.message, HasSubstr("max_friction_passes"));
  // The tangent's upper bound was 1/2 (ODE's rule, read from z_0 = 1 in the pass) and is 7/16 at
  // the pass's end: it moved by 1/16.
  EXPECT_THAT(one_pass.message, HasSubstr("the bound of component 1 still moved by 0.0625 in the last pass"));
  EXPECT_DOUBLE_EQ(one_pass.residual, natural_residual(sliding_contact(), one_pass.z));
  // newton-fb goes through the same passes: from z = 0 the tangent's bounds are [0, 0], the fixed
  // box gives z = (1, 0), whose bounds ±1/2 moved by 1/2, and the same message.
  const Result newton = solve(sliding_contact(), Method::NewtonFb, {.max_friction_passes = 1});
  EXPECT_EQ(newton.status, Status::MaxIterations);
  EXPECT_NEAR(newton.z[0], 1.0, 1e-10);
  EXPECT_EQ(newton.z[1], 0.0);
  EXPECT_THAT(newton.message, HasSubstr("the bound of component 1 still moved by 0.5 in the last pass"));
  const Result one_pivot = solve(random_box(20, 2, false), Method::Dantzig, {.max_iterations = 1});
  EXPECT_EQ(one_pivot.status, Status::MaxIterations);
  EXPECT_THAT(one_pivot.message, HasSubstr("pivot limit 1"));
  EXPECT_TRUE(one_pivot.z.allFinite());
}

// The friction passes stop on the relative residual, the pipeline's judgement. With q scaled by
// s the solution and the coupled bounds scale by s at every pass (z_0 ← s(1 − z_0/8s), the same
// contraction by 1/8), so the passes are the same. An absolute test (dantzig's before) stops at
// s = 1e-6 after about 2 passes (residual s/128 < 1e-8), at a point the judgement then fails
// (relative residual about 1e-2).
TEST(SolveBoxLcp, FrictionPassesDoNotDependOnTheScaleOfQ) {
  BoxLcp small = sliding_contact();
  small.q *= 1e-6;
  const auto passes = [](const Result& r) {
    const std::string::size_type at = r.message.find("settled after ");
    return at == std::string::npos ? std::string("none") : r.message.substr(at);
  };
  for (const Method m : {Method::Dantzig, Method::NewtonFb}) {
    const Result unit = solve(sliding_contact(), m);
    const Result scaled = solve(small, m);
    ASSERT_TRUE(unit.solved()) << to_string(m) << ": " << unit.message;
    ASSERT_TRUE(scaled.solved()) << to_string(m) << ": " << scaled.message;
    EXPECT_NE(passes(unit), "none") << unit.message;
    EXPECT_EQ(passes(scaled), passes(unit)) << to_string(m);
    EXPECT_LE((scaled.z - 1e-6 * Eigen::Vector2d(8.0 / 9, 4.0 / 9)).cwiseAbs().maxCoeff(), 1e-6 * 1e-7) << to_string(m);
  }
}

TEST(SolveBoxLcp, MethodList) {
  EXPECT_EQ(box_lcp_methods(),
            (std::vector<Method>{Method::Pgs, Method::Psor, Method::NewtonFb, Method::NewtonMin, Method::PenalizedFb,
                                 Method::Smoothing, Method::Path, Method::Dantzig, Method::Auto}));
}

}  // namespace
}  // namespace perp::solvers_box_lcp_test
