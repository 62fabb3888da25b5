#include "perp/solvers/friction_contact.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/io/siconos.hpp"
#include "../../../src/solvers/friction/impulse/nsgs.hpp"

namespace perp::solvers_friction_contact_test {
namespace {

using testing::HasSubstr;

// The methods that run on a FrictionContact today (newton-ac is wired by another change).
const std::vector<Method> kMethods = {Method::Nsgs, Method::NewtonAc, Method::Prox, Method::Admm, Method::Lemke,
                                     Method::Auto};

FrictionContact one_contact(int d, const Eigen::MatrixXd& W, const Eigen::VectorXd& q, double mu) {
  return friction_contact_from_dense(d, W, q, Eigen::VectorXd::Constant(1, mu));
}

std::string error_of(const FrictionContact& problem, Method method, const SolveOptions& options = {}) {
  try {
    (void)solve(problem, method, options);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

// Checks the contract of every result: z, w finite and sized, w = W z + q, residual = relative error.
void expect_consistent(const FrictionContact& problem, const Result& result) {
  ASSERT_EQ(result.z.size(), problem.size());
  ASSERT_EQ(result.w.size(), problem.size());
  EXPECT_TRUE(result.z.allFinite());
  EXPECT_TRUE(result.w.isApprox(problem.velocity(result.z), 1e-14) || result.w.norm() == 0);
  EXPECT_EQ(result.residual, friction_contact_residuals(problem, result.z).relative_error);
  if (result.solved()) {
    EXPECT_LE(result.residual, 1e-8);
  } else {
    EXPECT_GT(result.residual, 1e-14);
  }
  EXPECT_LE(result.history.size(), static_cast<std::size_t>(std::max(result.iterations, 1)));
}

struct HandCase {
  const char* name;
  int d;
  Eigen::MatrixXd W;
  Eigen::VectorXd q;
  double mu;
  Eigen::VectorXd r;  // derived by hand
};

// W = [[2, 0], [0, 1]], μ = 0.5 unless said. Stick: r = −W⁻¹q. Slide forward (u_T > 0): r_T = −μ r_N,
// 2 r_N + q_N = 0. Non-symmetric W = [[2, 0.5], [0.3, 1]]: sliding forward, (2 − 0.25) r_N = 2 → r_N = 8/7,
// r_T = −4/7, u_T = 0.3·8/7 − 4/7 + 3 > 0.
std::vector<HandCase> hand_cases() {
  Eigen::Matrix2d W2;
  W2 << 2, 0, 0, 1;
  Eigen::Matrix2d N2;
  N2 << 2, 0.5, 0.3, 1;
  Eigen::Matrix3d W3 = Eigen::Vector3d(2, 1, 1).asDiagonal();
  std::vector<HandCase> cases;
  cases.push_back({"2d-take-off", 2, W2, Eigen::Vector2d(1, 3), 0.5, Eigen::Vector2d(0, 0)});
  cases.push_back({"2d-grazing", 2, W2, Eigen::Vector2d(0, 3), 0.5, Eigen::Vector2d(0, 0)});
  cases.push_back({"2d-stick", 2, W2, Eigen::Vector2d(-2, 0.2), 0.5, Eigen::Vector2d(1, -0.2)});
  cases.push_back({"2d-slide-forward", 2, W2, Eigen::Vector2d(-2, 3), 0.5, Eigen::Vector2d(1, -0.5)});
  cases.push_back({"2d-slide-backward", 2, W2, Eigen::Vector2d(-2, -3), 0.5, Eigen::Vector2d(1, 0.5)});
  cases.push_back({"2d-frictionless", 2, W2, Eigen::Vector2d(-2, 3), 0.0, Eigen::Vector2d(1, 0)});
  cases.push_back({"2d-nonsymmetric-slide", 2, N2, Eigen::Vector2d(-2, 3), 0.5, Eigen::Vector2d(8.0 / 7, -4.0 / 7)});
  cases.push_back({"3d-take-off", 3, W3, Eigen::Vector3d(1, 1, 1), 0.5, Eigen::Vector3d(0, 0, 0)});
  cases.push_back({"3d-grazing", 3, W3, Eigen::Vector3d(0, -1, 2), 0.5, Eigen::Vector3d(0, 0, 0)});
  cases.push_back({"3d-stick", 3, W3, Eigen::Vector3d(-2, 0.1, 0.2), 0.5, Eigen::Vector3d(1, -0.1, -0.2)});
  // Sliding along (3, 4)/5: r_T = −0.5·(3, 4)/5, u_T = r_T + q_T = (2.7, 3.6), parallel to q_T.
  cases.push_back({"3d-slide", 3, W3, Eigen::Vector3d(-2, 3, 4), 0.5, Eigen::Vector3d(1, -0.3, -0.4)});
  cases.push_back({"3d-frictionless", 3, W3, Eigen::Vector3d(-2, 3, 4), 0.0, Eigen::Vector3d(1, 0, 0)});
  return cases;
}

TEST(FrictionContactSolve, OneContactByHandEveryMethod) {
  for (const HandCase& c : hand_cases()) {
    const FrictionContact problem = one_contact(c.d, c.W, c.q, c.mu);
    for (const Method method : kMethods) {
      SCOPED_TRACE(std::string(c.name) + " " + to_string(method));
      const Result result = solve(problem, method, {.tolerance = 1e-14});
      expect_consistent(problem, result);
      if (method == Method::Admm && !c.W.isApprox(c.W.transpose())) {
        // admm's x-update is a quadratic program: a non-symmetric W is refused, not approximated.
        EXPECT_EQ(result.status, Status::NotApplicable);
        EXPECT_THAT(result.message, HasSubstr("symmetric W"));
        continue;
      }
      const bool polyhedral_slide = method == Method::Lemke && c.d == 3 && std::string(c.name) == "3d-slide";
      if (polyhedral_slide) {
        // (3, 4)/5 is not one of the 8 facet directions: the inner polygon's answer is not Coulomb's.
        EXPECT_FALSE(result.solved());
        EXPECT_THAT(result.message, HasSubstr("polyhedral cone with 8 facets"));
        EXPECT_LT(result.residual, 0.1);
        continue;
      }
      ASSERT_TRUE(result.solved()) << result.message;
      EXPECT_LE((result.z - c.r).norm(), 1e-12 * (1 + c.r.norm())) << result.z.transpose();
      EXPECT_EQ(result.method, method == Method::Auto ? result.method : method);
    }
  }
}

TEST(FrictionContactSolve, OneContactCriteriaOnCoupledBlock) {
  // A 3D block with normal–tangential coupling and a tilted slide: no closed form, judged by the
  // four physical criteria.
  Eigen::Matrix3d W;
  W << 2, 0.3, -0.2, 0.3, 1, 0.1, -0.2, 0.1, 1.5;
  const FrictionContact problem = one_contact(3, W, Eigen::Vector3d(-1, 2, -3), 0.4);
  for (const Method method : {Method::Nsgs, Method::NewtonAc, Method::Prox, Method::Admm, Method::Auto}) {
    SCOPED_TRACE(to_string(method));
    const Result result = solve(problem, method, {.tolerance = 1e-13});
    ASSERT_TRUE(result.solved()) << result.message;
    const FrictionContactResiduals c = friction_contact_residuals(problem, result.z);
    EXPECT_LE(c.signorini, 1e-12);
    EXPECT_LE(c.coulomb, 1e-12);
    EXPECT_LE(c.complementarity, 1e-12);
    EXPECT_LE(c.dissipation, 1e-12);
    EXPECT_NEAR(std::hypot(result.z[1], result.z[2]), 0.4 * result.z[0], 1e-12);  // it slides
    EXPECT_GT(result.z[0], 0);
  }
}

// W = J M⁻¹ Jᵀ of planar bodies (x, y, θ) with contacts between random pairs or a body and the
// ground; nc <= 3·bodies/2 contacts keep W positive definite generically.
// Random planar contacts between bodies (b = -1: the ground), as the factors J, M⁻¹ of W.
FactoredFrictionContact random_planar_factors(int bodies, int contacts, std::uint32_t seed, double mu_max) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> pick(-1, bodies - 1);
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(2 * contacts, 3 * bodies);
  Eigen::VectorXd minv(3 * bodies);
  for (int b = 0; b < bodies; ++b) {
    const double m = 1 + 0.5 * (1 + unit(gen));
    minv.segment<3>(3 * b) << 1 / m, 1 / m, 1 / (0.1 * m);
  }
  for (int c = 0; c < contacts; ++c) {
    const int a = static_cast<int>(c % bodies);
    int b = pick(gen);
    if (b == a) b = -1;
    const double phi = 0.8 * unit(gen) + 1.5707963267948966;
    const Eigen::Vector2d n(std::cos(phi), std::sin(phi));
    const Eigen::Vector2d t(-n[1], n[0]);
    const Eigen::Vector2d arm(0.3 * unit(gen), -0.3);
    for (int k = 0; k < 2; ++k) {
      const Eigen::Vector2d v = k == 0 ? n : t;
      J.block<1, 3>(2 * c + k, 3 * a) << v[0], v[1], arm[0] * v[1] - arm[1] * v[0];
      if (b >= 0) J.block<1, 3>(2 * c + k, 3 * b) << -v[0], -v[1], -(-arm[0] * v[1] + arm[1] * v[0]);
    }
  }
  Eigen::VectorXd q(2 * contacts);
  Eigen::VectorXd mu(contacts);
  for (int c = 0; c < contacts; ++c) {
    q[2 * c] = unit(gen) - 0.6;  // mostly approaching
    q[2 * c + 1] = unit(gen);
    mu[c] = mu_max * 0.5 * (1 + unit(gen));
  }
  FactoredFrictionContact factored;
  factored.dimension = 2;
  factored.H = J.sparseView(0.0, 0.0);
  factored.inverse_mass = minv;
  factored.q = q;
  factored.mu = mu;
  return factored;
}

std::string error_of(const FactoredFrictionContact& problem) {
  FrictionContactResiduals criteria;
  try {
    (void)solve(problem, Method::Nsgs, {}, criteria);
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return "";
}

FrictionContact random_planar(int bodies, int contacts, std::uint32_t seed, double mu_max) {
  const FactoredFrictionContact f = random_planar_factors(bodies, contacts, seed, mu_max);
  const Eigen::MatrixXd J(f.H);
  const Eigen::MatrixXd W = J * f.inverse_mass.asDiagonal() * J.transpose();
  return friction_contact_from_dense(2, W, f.q, f.mu);
}

// The factored form: nsgs on the factors reaches the solution nsgs reaches on W (the same sweeps
// in exact arithmetic), w = H M⁻¹ Hᵀ z + q, the criteria are those of the returned point, auto
// and the methods that form W agree, and bad factors are refused by name.
TEST(FrictionContactSolve, FactoredFormAgreesWithW) {
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    const FactoredFrictionContact factored = random_planar_factors(12, 16, seed, 0.3);
    const FrictionContact problem = random_planar(12, 16, seed, 0.3);
    SolveOptions options;
    options.tolerance = 1e-10;
    const Result on_w = solve(problem, Method::Nsgs, options);
    for (const Method method : {Method::Nsgs, Method::Auto, Method::NewtonAc, Method::Lemke}) {
      SCOPED_TRACE(to_string(method));
      FrictionContactResiduals criteria;
      const Result result = solve(factored, method, options, criteria);
      ASSERT_EQ(result.z.size(), factored.size());
      EXPECT_TRUE(result.w.isApprox(factored.velocity(result.z), 1e-13));
      const FrictionContactResiduals again = friction_contact_residuals(problem, result.z);
      EXPECT_NEAR(criteria.relative_error, again.relative_error, 1e-12);
      EXPECT_NEAR(criteria.signorini, again.signorini, 1e-12);
      if (on_w.solved() && result.solved()) {
        EXPECT_LE((result.z - on_w.z).lpNorm<Eigen::Infinity>(), 1e-6 * (1 + on_w.z.lpNorm<Eigen::Infinity>()));
      }
      if (method == Method::Nsgs) {
        EXPECT_EQ(result.status, on_w.status);
      }
    }
  }
  FactoredFrictionContact bad = random_planar_factors(4, 3, 1, 0.3);
  bad.inverse_mass[2] = -1;
  EXPECT_NE(error_of(bad).find("inverse_mass[2]"), std::string::npos);
  bad = random_planar_factors(4, 3, 1, 0.3);
  bad.H.coeffRef(0, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of(bad).find("H(0, 0)"), std::string::npos);
  bad = random_planar_factors(4, 3, 1, 0.3);
  bad.inverse_mass.resize(5);
  EXPECT_NE(error_of(bad).find("H: expected"), std::string::npos);
}


TEST(FrictionContactSolve, RandomPlanarMethodsAgree) {
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const FrictionContact problem = random_planar(12, 16, seed, 0.3);
    const SolveOptions options{.tolerance = 1e-12};
    const Result reference = solve(problem, Method::Nsgs, options);
    ASSERT_TRUE(reference.solved()) << reference.message;
    expect_consistent(problem, reference);
    const FrictionContactResiduals c = friction_contact_residuals(problem, reference.z);
    const double scale = problem.q.lpNorm<Eigen::Infinity>() * (1 + reference.z.lpNorm<Eigen::Infinity>());
    EXPECT_LE(c.signorini, 1e-10);
    EXPECT_LE(c.coulomb, 1e-10);
    EXPECT_LE(c.complementarity, 1e-10 * scale);
    EXPECT_LE(c.dissipation, 1e-10 * scale);
    int active = 0;
    for (Eigen::Index i = 0; i < problem.contacts(); ++i) active += reference.z[2 * i] > 0;
    EXPECT_GT(active, 2);  // the test exercises contact, not only take-off
    for (const Method method : {Method::NewtonAc, Method::Prox, Method::Lemke, Method::Auto}) {
      SCOPED_TRACE(to_string(method));
      const Result result = solve(problem, method, options);
      ASSERT_TRUE(result.solved()) << result.message;
      expect_consistent(problem, result);
      EXPECT_LE((result.w - reference.w).lpNorm<Eigen::Infinity>(), 1e-9 * (1 + reference.w.lpNorm<Eigen::Infinity>()));
    }
  }
}

TEST(FrictionContactSolve, RedundantContactsSingularW) {
  // Every contact doubled (the same Jacobian rows, q and μ): W is singular (rank <= half its size)
  // and r is not unique, only u is; the methods are compared on u and on the criteria.
  const FrictionContact base = random_planar(8, 8, 11, 0.3);
  const Eigen::Index nc = base.contacts();
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(4 * nc, 2 * nc);  // [I; I]: u and r of the copies
  P.topRows(2 * nc).setIdentity();
  P.bottomRows(2 * nc).setIdentity();
  const Eigen::MatrixXd W = P * Eigen::MatrixXd(base.W) * P.transpose();
  Eigen::VectorXd mu(2 * nc);
  mu << base.mu, base.mu;
  const FrictionContact problem = friction_contact_from_dense(2, W, P * base.q, mu);
  const SolveOptions options{.tolerance = 1e-10, .max_iterations = 50000};
  const Result reference = solve(base, Method::Nsgs, options);
  ASSERT_TRUE(reference.solved());
  for (const Method method : {Method::Nsgs, Method::Prox, Method::Auto}) {
    SCOPED_TRACE(to_string(method));
    const Result result = solve(problem, method, options);
    ASSERT_TRUE(result.solved()) << result.message;
    expect_consistent(problem, result);
    // The copies' reactions add up to the single contact's: the same u as the original problem.
    EXPECT_LE((result.w.head(2 * nc) - reference.w).lpNorm<Eigen::Infinity>(), 1e-7);
    EXPECT_LE((result.w.tail(2 * nc) - reference.w).lpNorm<Eigen::Infinity>(), 1e-7);
    const FrictionContactResiduals c = friction_contact_residuals(problem, result.z);
    EXPECT_LE(std::max(c.signorini, c.coulomb), 1e-8);
  }
}

TEST(FrictionContactSolve, OrderingsAndRelaxation) {
  const FrictionContact problem = random_planar(10, 12, 7, 0.3);
  const Result natural = solve(problem, Method::Nsgs, {.tolerance = 1e-12});
  ASSERT_TRUE(natural.solved());
  SolveOptions options{.tolerance = 1e-12};
  options.friction_contact.nsgs.order = ContactOrder::Random;
  options.friction_contact.nsgs.seed = 42;
  std::vector<Result> results{solve(problem, Method::Nsgs, options)};
  options.friction_contact.nsgs.order = ContactOrder::Given;
  for (Eigen::Index i = problem.contacts() - 1; i >= 0; --i) options.friction_contact.nsgs.permutation.push_back(i);
  results.push_back(solve(problem, Method::Nsgs, options));
  options.friction_contact.nsgs.order = ContactOrder::Natural;
  options.friction_contact.nsgs.relaxation = 1.3;
  results.push_back(solve(problem, Method::Nsgs, options));
  options.friction_contact.nsgs.relaxation = 0.7;
  results.push_back(solve(problem, Method::Nsgs, options));
  for (const Result& result : results) {
    ASSERT_TRUE(result.solved()) << result.message;
    EXPECT_LE((result.w - natural.w).lpNorm<Eigen::Infinity>(), 1e-9);
  }
  // The same seed gives the same sweeps.
  options = SolveOptions{.tolerance = 1e-12};
  options.friction_contact.nsgs.order = ContactOrder::Random;
  options.friction_contact.nsgs.seed = 42;
  EXPECT_EQ(solve(problem, Method::Nsgs, options).z, results[0].z);
}

TEST(FrictionContactSolve, WarmStartFromTheSolution) {
  const FrictionContact problem = random_planar(12, 16, 5, 0.3);
  const Result cold = solve(problem, Method::Nsgs, {.tolerance = 1e-10});
  ASSERT_TRUE(cold.solved());
  EXPECT_GT(cold.iterations, 1);
  for (const Method method : {Method::Nsgs, Method::NewtonAc, Method::Prox, Method::Auto}) {
    const Result warm = solve(problem, method, {.tolerance = 1e-10, .initial_guess = cold.z});
    EXPECT_TRUE(warm.solved()) << to_string(method) << ": " << warm.message;
    EXPECT_LE(warm.iterations, 1) << to_string(method);
  }
}

TEST(FrictionContactSolve, TrivialProblems) {
  FrictionContact empty;
  empty.W.resize(0, 0);
  empty.q.resize(0);
  empty.mu.resize(0);
  for (const Method method : kMethods) {
    const Result result = solve(empty, method);
    EXPECT_TRUE(result.solved());
    EXPECT_EQ(result.z.size(), 0);
  }
  // q_N >= 0 everywhere, even with a warm start far away: r = 0 in 0 iterations.
  const FrictionContact separating = one_contact(2, Eigen::Matrix2d::Identity(), Eigen::Vector2d(0.5, -4), 0.2);
  const Result result = solve(separating, Method::Nsgs, {.initial_guess = Eigen::Vector2d(3, 1)});
  EXPECT_TRUE(result.solved());
  EXPECT_EQ(result.z, Eigen::Vector2d::Zero());
  EXPECT_EQ(result.iterations, 0);
  EXPECT_THAT(result.message, HasSubstr("r = 0 solves"));
}

TEST(FrictionContactSolve, NoSolutionEndsUnsolvedAndFinite) {
  // W = 0 or W = −I with q_N < 0: u_N = q_N − r_N < 0 for every r_N >= 0, so no r solves.
  for (const double w : {0.0, -1.0}) {
    Eigen::Matrix2d W = w * Eigen::Matrix2d::Identity();
    const FrictionContact problem = one_contact(2, W, Eigen::Vector2d(-1, 0.5), 0.3);
    for (const Method method : kMethods) {
      SCOPED_TRACE(std::to_string(w) + " " + to_string(method));
      const Result result = solve(problem, method, {.max_iterations = 50});
      EXPECT_FALSE(result.solved());
      expect_consistent(problem, result);
      // W = 0: u_N = −1 whatever r is. W = −I: u_N = −1 − r_N, so r_N >= −½ approaches at >= ½,
      // and r_N < −½ is outside the cone by more than ½.
      const FrictionContactResiduals c = friction_contact_residuals(problem, result.z);
      EXPECT_GE(std::max(c.signorini, c.coulomb), w == 0 ? 1.0 : 0.5);
      EXPECT_FALSE(result.message.empty());
    }
  }
  const FrictionContact problem3 = one_contact(3, Eigen::Matrix3d::Zero(), Eigen::Vector3d(-1, 0.5, 0.2), 0.3);
  const Result result = solve(problem3, Method::Nsgs, {.max_iterations = 20});
  EXPECT_FALSE(result.solved());
  EXPECT_TRUE(result.z.allFinite());
}

TEST(FrictionContactSolve, OverflowingIteratesEndNumericalFailureWithFiniteR) {
  // Two contacts whose normals push each other by −1e200 per unit: r_2 = 1e200 after contact 1's
  // update, then contact 1's b_N = −1 − 1e400 overflows; nsgs must stop with the last finite r. No
  // r solves it (r_1 > 0 forces u_2N = r_2 − 1e200 r_1 − 1 < 0 unless r_2 > 0, and symmetrically).
  Eigen::MatrixXd W = Eigen::MatrixXd::Identity(4, 4);
  W(0, 2) = -1e200;
  W(2, 0) = -1e200;
  const FrictionContact problem =
      friction_contact_from_dense(2, W, Eigen::Vector4d(-1, 0, -1, 0), Eigen::VectorXd::Constant(2, 0.3));
  const Result result = solve(problem, Method::Nsgs);
  EXPECT_EQ(result.status, Status::NumericalFailure) << result.message;
  EXPECT_THAT(result.message, HasSubstr("stopped being finite"));
  EXPECT_TRUE(result.z.allFinite());
  EXPECT_TRUE(result.w.allFinite());
  // No r solves it exactly, but r_N = −1e-200 at both contacts gives u_N = −1e-200 (the 1e200
  // couplings cancel the −1): within any tolerance. A method may claim that point, and only
  // when the criteria recomputed here confirm it.
  for (const Method method : {Method::Prox, Method::Auto, Method::NewtonAc}) {
    const Result other = solve(problem, method, {.max_iterations = 200});
    EXPECT_TRUE(other.z.allFinite()) << to_string(method);
    EXPECT_TRUE(other.w.allFinite()) << to_string(method);
    if (other.solved()) {
      const FrictionContactResiduals c = friction_contact_residuals(problem, other.z);
      EXPECT_LE(c.relative_error, 1e-8) << to_string(method);
      EXPECT_LE(std::max(c.signorini, c.coulomb), 1e-8) << to_string(method);
    }
  }
}

TEST(FrictionContactSolve, BadInputThrows) {
  const FrictionContact good = one_contact(2, Eigen::Matrix2d::Identity(), Eigen::Vector2d(-1, 0.5), 0.3);
  FrictionContact p = good;
  p.q = Eigen::Vector3d(-1, 0, 0);
  EXPECT_THAT(error_of(p, Method::Nsgs), HasSubstr("q: expected size 2"));
  p = good;
  p.W.coeffRef(0, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THAT(error_of(p, Method::Nsgs), HasSubstr("W(0, 1) is NaN"));
  p = good;
  p.mu[0] = -0.5;
  EXPECT_THAT(error_of(p, Method::Auto), HasSubstr("mu[0] is -0.5"));
  EXPECT_THAT(error_of(good, Method::Nsgs, {.initial_guess = Eigen::Vector3d::Zero()}), HasSubstr("initial_guess"));
  EXPECT_THAT(error_of(good, Method::Pgs), HasSubstr("'pgs' does not accept a FrictionContact"));
  EXPECT_EQ(error_of(good, Method::NewtonAc), "");  // a valid call
  SolveOptions options;
  options.friction_contact.nsgs.relaxation = 2.5;
  EXPECT_THAT(error_of(good, Method::Nsgs, options), HasSubstr("friction_contact.nsgs.relaxation must be in (0, 2)"));
  options = {};
  options.friction_contact.lemke.facets = 2;
  EXPECT_THAT(error_of(good, Method::Lemke, options), HasSubstr("friction_contact.lemke.facets must be >= 3"));
  options = {};
  options.friction_contact.nsgs.order = ContactOrder::Given;
  options.friction_contact.nsgs.permutation = {1};
  EXPECT_THAT(error_of(good, Method::Nsgs, options), HasSubstr("friction_contact.nsgs.permutation[0] is 1"));
  options.friction_contact.nsgs.permutation = {0, 0};
  EXPECT_THAT(error_of(good, Method::Nsgs, options), HasSubstr("expected 1 entries"));
  options = {};
  options.friction_contact.prox.rho = -1;
  EXPECT_THAT(error_of(good, Method::Prox, options), HasSubstr("friction_contact.prox.rho"));
  options = {};
  options.friction_contact.local.tolerance = 0;
  EXPECT_THAT(error_of(good, Method::Nsgs, options), HasSubstr("friction_contact.local.tolerance"));
  EXPECT_THAT(error_of(good, Method::Nsgs, {.tolerance = -1}), HasSubstr("tolerance"));
  // The refusals the pipeline reads from the method table, and those of the type itself.
  EXPECT_THAT(error_of(good, Method::Dantzig),
              HasSubstr("'dantzig' does not accept a FrictionContact; use lemke, interior-point, nsgs, newton-ac, "
                        "prox, admm or auto"));
  EXPECT_THAT(error_of(good, Method::Nsgs, {.all_solutions = true}),
              HasSubstr("the methods of a FrictionContact stop at the first solution"));
  options = {};
  options.lemke.covering_vector = Eigen::Vector2d::Ones();
  EXPECT_THAT(error_of(good, Method::Lemke, options), HasSubstr("lemke.covering_vector is not read"));
}

// The factored sweeps' kernel itself takes an uncompressed H (filled by insert(), as a user may, and
// as the kernel is called by other kernels as well as by solve): it sweeps a compressed copy and
// gives the compressed H's answer, which is r = (1, −0.25) by hand (below). Reading the free slots
// of the uncompressed arrays ended at a relative error of 0.86 here.
TEST(FrictionContactSolve, FactoredSweepsTakeAnUncompressedH) {
  Eigen::SparseMatrix<double, Eigen::RowMajor> H(2, 2);
  H.insert(0, 0) = 1.0;
  H.insert(1, 1) = 2.0;
  ASSERT_FALSE(H.isCompressed());
  Eigen::SparseMatrix<double, Eigen::RowMajor> compressed = H;
  compressed.makeCompressed();
  const Eigen::Vector2d inverse_mass(1.0, 0.5);
  FrictionContact shell;
  shell.dimension = 2;
  shell.q = Eigen::Vector2d(-1.0, 0.5);
  shell.mu = Eigen::VectorXd::Constant(1, 0.3);
  const SolveOptions options{.tolerance = 1e-12};
  FrictionContactResiduals from_uncompressed;
  FrictionContactResiduals from_compressed;
  const Result a =
      detail::solve_nsgs_factored(H, inverse_mass, shell, options, Eigen::Vector2d::Zero(), from_uncompressed);
  const Result b =
      detail::solve_nsgs_factored(compressed, inverse_mass, shell, options, Eigen::Vector2d::Zero(), from_compressed);
  ASSERT_EQ(a.status, Status::Solved) << a.message;
  EXPECT_LE((a.z - Eigen::Vector2d(1.0, -0.25)).lpNorm<Eigen::Infinity>(), 1e-10);
  EXPECT_EQ(a.z, b.z);
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(from_uncompressed.relative_error, from_compressed.relative_error);
  EXPECT_FALSE(H.isCompressed());  // the caller's H is left as it was
}

// In the plane the sweeps take a contact whose two rows of H share their columns in one pass over
// them (nsgs_factored.cpp), each column's additions in the order of the row-by-row loop. The same H
// with an explicit 0 stored in each tangent row, at a column its normal row lacks, has no such
// pair and is swept row by row: the same points, bit for bit (adding 0 · v changes no sum).
TEST(FrictionContactSolve, FactoredSweepsOverPairedRowsEqualTheRowByRowSweeps) {
  for (std::uint32_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(seed);
    const FactoredFrictionContact f = random_planar_factors(6, 8, seed, 0.5);
    using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
    const RowSparse& paired = f.H;
    std::vector<Eigen::Triplet<double>> entries;
    for (Eigen::Index row = 0; row < paired.rows(); ++row) {
      std::vector<bool> used(static_cast<std::size_t>(paired.cols()), false);
      for (RowSparse::InnerIterator it(paired, row); it; ++it) {
        entries.emplace_back(static_cast<int>(row), static_cast<int>(it.col()), it.value());
        used[static_cast<std::size_t>(it.col())] = true;
      }
      if (row % 2 == 1) {
        Eigen::Index spare = 0;
        while (used[static_cast<std::size_t>(spare)]) ++spare;
        entries.emplace_back(static_cast<int>(row), static_cast<int>(spare), 0.0);
      }
    }
    RowSparse unpaired(paired.rows(), paired.cols());
    unpaired.setFromTriplets(entries.begin(), entries.end());
    unpaired.makeCompressed();
    ASSERT_EQ(unpaired.nonZeros(), paired.nonZeros() + paired.rows() / 2);
    FrictionContact shell;
    shell.dimension = 2;
    shell.q = f.q;
    shell.mu = f.mu;
    const SolveOptions options{.tolerance = 1e-10, .max_iterations = 300};
    const Eigen::VectorXd r0 = Eigen::VectorXd::Zero(f.size());
    FrictionContactResiduals paired_criteria;
    FrictionContactResiduals unpaired_criteria;
    const Result a = detail::solve_nsgs_factored(paired, f.inverse_mass, shell, options, r0, paired_criteria);
    const Result b = detail::solve_nsgs_factored(unpaired, f.inverse_mass, shell, options, r0, unpaired_criteria);
    EXPECT_GT(a.iterations, 1);
    EXPECT_EQ(a.z, b.z);
    EXPECT_EQ(a.w, b.w);
    EXPECT_EQ(a.iterations, b.iterations);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(paired_criteria.relative_error, unpaired_criteria.relative_error);
    // The point itself, recomputed here: u = H M⁻¹ Hᵀ r + q from the dense factors.
    const Eigen::MatrixXd J(paired);
    const Eigen::VectorXd u = J * f.inverse_mass.asDiagonal() * J.transpose() * a.z + f.q;
    EXPECT_LE((u - a.w).lpNorm<Eigen::Infinity>(), 1e-12 * (1 + u.lpNorm<Eigen::Infinity>()));
  }
}

// The factored form enters through the same pipeline: the same refusals, the same trivial case,
// the method and the time set on every result. H is filled by insert() and left uncompressed, as a
// user may: the sweeps on the factors read H's compressed arrays, and they ended at a relative
// error of 0.86 on this problem before solve compressed such an H first.
TEST(FrictionContactSolve, FactoredFormThroughThePipeline) {
  FactoredFrictionContact factored;
  factored.dimension = 2;
  factored.H = Eigen::SparseMatrix<double, Eigen::RowMajor>(2, 2);
  factored.H.insert(0, 0) = 1.0;
  factored.H.insert(1, 1) = 2.0;
  factored.inverse_mass = Eigen::Vector2d(1.0, 0.5);
  factored.q = Eigen::Vector2d(-1.0, 0.5);
  factored.mu = Eigen::VectorXd::Constant(1, 0.3);
  const auto refusal = [&](Method method, const SolveOptions& options) {
    FrictionContactResiduals criteria;
    try {
      (void)solve(factored, method, options, criteria);
    } catch (const InvalidProblem& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(refusal(Method::Pgs, {}), HasSubstr("'pgs' does not accept a FrictionContact"));
  EXPECT_THAT(refusal(Method::Nsgs, {.all_solutions = true}), HasSubstr("stop at the first solution"));
  EXPECT_THAT(refusal(Method::Nsgs, {.initial_guess = Eigen::Vector3d::Zero()}), HasSubstr("initial_guess"));
  SolveOptions given;
  given.friction_contact.nsgs.order = ContactOrder::Given;
  given.friction_contact.nsgs.permutation = {0, 1};
  EXPECT_THAT(refusal(Method::Nsgs, given), HasSubstr("expected 1 entries"));
  // W = H M⁻¹ Hᵀ = diag(1, 2), q = (−1, 0.5), μ = 0.3: sticking needs |r_T| = 0.25 <= μ r_N = 0.3, so
  // r = (1, −0.25) and u = 0 (by hand).
  for (const Method method : friction_contact_methods()) {
    SCOPED_TRACE(to_string(method));
    FrictionContactResiduals criteria;
    const Result result = solve(factored, method, {.tolerance = 1e-10}, criteria);
    ASSERT_TRUE(result.solved()) << result.message;
    EXPECT_LE((result.z - Eigen::Vector2d(1.0, -0.25)).lpNorm<Eigen::Infinity>(), 1e-8);
    EXPECT_LE((result.w - factored.velocity(result.z)).lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_EQ(result.residual, result.relative_residual);
    EXPECT_EQ(criteria.relative_error, result.residual);
    if (method != Method::Auto) {
      EXPECT_EQ(result.method, method);
    }
    EXPECT_GE(result.time_ms, 0.0);
  }
  // q_N >= 0: r = 0 solves exactly, whatever the method and the warm start.
  factored.q = Eigen::Vector2d(0.5, -4.0);
  for (const Method method : {Method::Nsgs, Method::Lemke, Method::Auto}) {
    FrictionContactResiduals criteria;
    const Result result = solve(factored, method, {.initial_guess = Eigen::Vector2d(3, 1)}, criteria);
    EXPECT_TRUE(result.solved());
    EXPECT_EQ(result.z, Eigen::Vector2d::Zero());
    EXPECT_EQ(result.w, factored.q);
    EXPECT_EQ(result.iterations, 0);
    EXPECT_THAT(result.message, HasSubstr("r = 0 solves"));
    EXPECT_EQ(criteria.relative_error, 0.0);
  }
}

TEST(FrictionContactSolve, LemkeSizeGuard) {
  const FrictionContact problem = random_planar(12, 16, 1, 0.3);
  SolveOptions options;
  options.friction_contact.lemke.lcp_max_size = 63;  // 16 contacts · 4 unknowns = 64
  const Result result = solve(problem, Method::Lemke, options);
  EXPECT_EQ(result.status, Status::NotApplicable);
  EXPECT_THAT(result.message, HasSubstr("64 unknowns"));
  expect_consistent(problem, result);
}

TEST(FrictionContactSolve, MethodsList) {
  EXPECT_EQ(friction_contact_methods(), (std::vector<Method>{Method::Lemke, Method::InteriorPoint, Method::Nsgs,
                                                              Method::NewtonAc, Method::Prox, Method::Admm,
                                                              Method::Auto}));
}

TEST(FrictionContactSolve, InteriorPointPlanar) {
  // The symmetric planar hand cases: the interior point on W's convex program with de Saxcé's
  // shift, then its crossover, reaches the closed forms.
  for (const HandCase& c : hand_cases()) {
    if (c.d != 2 || !c.W.isApprox(c.W.transpose())) continue;
    SCOPED_TRACE(c.name);
    const FrictionContact problem = one_contact(2, c.W, c.q, c.mu);
    const Result result = solve(problem, Method::InteriorPoint, {.tolerance = 1e-13});
    expect_consistent(problem, result);
    ASSERT_TRUE(result.solved()) << result.message;
    EXPECT_LE((result.z - c.r).norm(), 1e-11 * (1 + c.r.norm())) << result.z.transpose();
    EXPECT_EQ(result.method, Method::InteriorPoint);
  }
  // Random planar problems, on W (factored by LDLᵀ) and on the factors: the velocities of nsgs.
  for (const std::uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const FrictionContact problem = random_planar(12, 16, seed, 0.3);
    const FactoredFrictionContact factored = random_planar_factors(12, 16, seed, 0.3);
    const SolveOptions options{.tolerance = 1e-11};
    const Result reference = solve(problem, Method::Nsgs, options);
    ASSERT_TRUE(reference.solved()) << reference.message;
    const Result on_w = solve(problem, Method::InteriorPoint, options);
    ASSERT_TRUE(on_w.solved()) << on_w.message;
    expect_consistent(problem, on_w);
    EXPECT_LE((on_w.w - reference.w).lpNorm<Eigen::Infinity>(), 1e-8 * (1 + reference.w.lpNorm<Eigen::Infinity>()));
    FrictionContactResiduals criteria;
    const Result on_factors = solve(factored, Method::InteriorPoint, options, criteria);
    ASSERT_TRUE(on_factors.solved()) << on_factors.message;
    EXPECT_LE((on_factors.w - reference.w).lpNorm<Eigen::Infinity>(),
              1e-8 * (1 + reference.w.lpNorm<Eigen::Infinity>()));
    EXPECT_NEAR(criteria.relative_error, friction_contact_residuals(problem, on_factors.z).relative_error, 1e-12);
  }
}

TEST(FrictionContactSolve, InteriorPointNotApplicableSaysWhy) {
  // In 3D interior-point applies (the second-order cones, cone_ipm.cpp): W = diag(2, 1, 1),
  // q = (−1, 0, 1), μ = 0.5 slides: r_N = 0.5 (u_N = 0), r_T = (0, −μ r_N) = (0, −0.25), u_T = (0, 0.75).
  Eigen::Matrix3d W3 = Eigen::Vector3d(2, 1, 1).asDiagonal();
  const Result spatial = solve(one_contact(3, W3, Eigen::Vector3d(-1, 0, 1), 0.5), Method::InteriorPoint);
  ASSERT_TRUE(spatial.solved()) << spatial.message;
  EXPECT_LE((spatial.z - Eigen::Vector3d(0.5, 0, -0.25)).lpNorm<Eigen::Infinity>(), 1e-7) << spatial.z.transpose();
  Eigen::Matrix2d N;
  N << 2, 0.5, 0.3, 1;
  const Result nonsymmetric = solve(one_contact(2, N, Eigen::Vector2d(-2, 3), 0.5), Method::InteriorPoint);
  EXPECT_EQ(nonsymmetric.status, Status::NotApplicable);
  EXPECT_THAT(nonsymmetric.message, HasSubstr("symmetric W"));
  Eigen::Matrix2d indefinite;
  indefinite << 1, 0, 0, -1;
  const Result negative = solve(one_contact(2, indefinite, Eigen::Vector2d(-2, 3), 0.5), Method::InteriorPoint);
  EXPECT_EQ(negative.status, Status::NotApplicable);
  EXPECT_THAT(negative.message, HasSubstr("positive semidefinite"));
}

// interior-point on files whose W is symmetric and positive semidefinite only to round-off, singular
// (BoxesStack1: 52 contacts, rank 78 of 156; FrictionContactProblem00727: 367 planar contacts): the
// LDLᵀ without pivoting of W itself breaks down, and before stop 43 the method refused both as "needs
// a positive semidefinite W". Now W + εI is factored and the point polished on W; the error is
// recomputed here from r, and the smallest eigenvalue of (W + Wᵀ)/2 checked against ε's bound.
TEST(FrictionContactSolve, InteriorPointFactorsWPlusEpsilonWhereTheLdltOfWBreaksDown) {
  for (const char* name : {"/fc3d/BoxesStack1-i100000-32.hdf5.dat", "/fc2d/FrictionContactProblem00727.dat"}) {
    const std::string path = std::string(PERP_SICONOS_FC_DIR) + name;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
    const FrictionContact problem = read_siconos_friction_contact(path);
    const Result result = solve(problem, Method::InteriorPoint, {.tolerance = 1e-8});
    ASSERT_TRUE(result.solved()) << name << ": " << result.message;
    EXPECT_EQ(result.method, Method::InteriorPoint);
    EXPECT_LE(friction_contact_residuals(problem, result.z).relative_error, 1e-8) << name;
    EXPECT_THAT(result.message, HasSubstr("on W + eps I")) << name;
    const Eigen::MatrixXd dense = Eigen::MatrixXd(problem.W);
    const Eigen::MatrixXd symmetric = 0.5 * (dense + dense.transpose());
    const Eigen::VectorXd eigenvalues = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric).eigenvalues();
    // Semidefinite to within the largest ε tried (1e-6 max|W_ij|), and singular or nearly so.
    EXPECT_GE(eigenvalues.minCoeff(), -1e-6 * dense.cwiseAbs().maxCoeff()) << name;
    EXPECT_LE(eigenvalues.minCoeff(), 1e-6 * eigenvalues.maxCoeff()) << name;
  }
}

// A test-only reader of Siconos' dense (storage 0) FrictionContactProblem files: d, nc, 0, the
// sizes twice, W column-major, q, μ (FC_FORMAT.md §1). The library's reader lives in io/.
std::optional<FrictionContact> read_dense_fc(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  int d = 0, storage = -1;
  Eigen::Index nc = 0, r0 = 0, c0 = 0, rows = 0, cols = 0;
  in >> d >> nc >> storage >> r0 >> c0 >> rows >> cols;
  if (!in || storage != 0) return std::nullopt;
  Eigen::MatrixXd W(rows, cols);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) in >> W(i, j);
  }
  Eigen::VectorXd q(rows), mu(nc);
  for (Eigen::Index i = 0; i < rows; ++i) in >> q[i];
  for (Eigen::Index i = 0; i < nc; ++i) in >> mu[i];
  if (!in) return std::nullopt;
  return friction_contact_from_dense(d, W, q, mu);
}

TEST(FrictionContactSolve, SiconosDenseFiles) {
  const std::vector<std::string> files = {"fc3d/FrictionContact3D_1c.dat",
                                          "fc3d/FC3D_Example1.dat",
                                          "fc3d/NESpheres_10_1.dat",
                                          "fc3d/Rover1039.dat",
                                          "fc3d/Rover4144.dat",
                                          "fc3d/Rover11035.dat",
                                          "fc2d/FrictionContactProblem00374.dat",
                                          "fc2d/FrictionContactProblem00394.dat",
                                          "fc2d/FC2D_SliderCrankLagrangian00000.dat"};
  int read = 0;
  for (const std::string& name : files) {
    const std::optional<FrictionContact> problem = read_dense_fc(std::string(PERP_SICONOS_FC_DIR) + "/" + name);
    if (!problem) continue;
    ++read;
    for (const Method method : {Method::Nsgs, Method::Auto}) {
      SCOPED_TRACE(name + " " + to_string(method));
      const Result result = solve(*problem, method, {.tolerance = 1e-8});
      expect_consistent(*problem, result);
      EXPECT_TRUE(method != Method::Auto || result.solved()) << result.message;
      std::printf("[ fc file  ] %-42s %-5s %-15s %6d sweeps  error %.2e  %.3f ms\n", name.c_str(),
                  to_string(method).c_str(), to_string(result.status).c_str(), result.iterations, result.residual,
                  result.time_ms);
    }
  }
  if (read == 0) GTEST_SKIP() << "no Siconos fc2d/fc3d files under " << PERP_SICONOS_FC_DIR;
}

// auto on a 3D problem given by W from r = 0 (Capsules-i101-404, 225 contacts): nsgs hands over
// by its rate (kNsgsHandoff) at the end of its second window (sweep 60: 1.2e-5 there, nearly flat
// since sweep 30), and newton-ac from r = 0, the first of the two Newton starts on a cold chain,
// solves (from nsgs' point after 200-400 sweeps newton-ac stalls at 1.1e-6 on this file). The
// error recomputed from r.
TEST(FrictionContactSolve, AutoIn3DHandsOverFromNsgsAndStartsNewtonAtZero) {
  const std::string path = std::string(PERP_SICONOS_FC_DIR) + "/fc3d/Capsules-i101-404.dat";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no " << path;
  const FrictionContact problem = read_siconos_friction_contact(path);
  const Result result = solve(problem, Method::Auto, {.tolerance = 1e-8});
  expect_consistent(problem, result);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_LE(friction_contact_residuals(problem, result.z).relative_error, 1e-8);
  EXPECT_EQ(result.method, Method::NewtonAc);
  ASSERT_GE(result.attempts.size(), 2U);
  EXPECT_EQ(result.attempts[0].method, Method::Nsgs);
  EXPECT_THAT(result.attempts[0].message, HasSubstr("handed over"));
  EXPECT_LE(result.attempts[0].iterations, 100);
  EXPECT_EQ(result.attempts[1].method, Method::NewtonAc);
  EXPECT_THAT(result.attempts[1].message, HasSubstr("from r = 0"));
  EXPECT_EQ(result.attempts[1].status, Status::Solved);
}

// A column of nc disks on the ground, 10⁵ contacts: contact i between disk i − 1 (or the ground)
// and disk i, W = J M⁻¹ Jᵀ block-tridiagonal (12 nonzeros a contact). Times a sweep against one
// product W·r; printed, not asserted.
TEST(FrictionContactSolve, SweepTimeAgainstOneProduct) {
  const Eigen::Index nc = 100000;
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(static_cast<std::size_t>(nc) * 12);
  for (Eigen::Index c = 0; c < nc; ++c) {
    // Disk c above (+), disk c − 1 below (−); normal (0, 1), tangent (1, 0) at radius 0.5.
    for (int k = 0; k < 2; ++k) {
      const Eigen::Index row = 2 * c + k;
      const double vx = k == 0 ? 0 : 1, vy = k == 0 ? 1 : 0;
      triplets.emplace_back(row, 3 * c, vx);
      triplets.emplace_back(row, 3 * c + 1, vy);
      triplets.emplace_back(row, 3 * c + 2, 0.5 * vx);  // arm (0, −0.5) × v
      if (c > 0) {
        triplets.emplace_back(row, 3 * (c - 1), -vx);
        triplets.emplace_back(row, 3 * (c - 1) + 1, -vy);
        triplets.emplace_back(row, 3 * (c - 1) + 2, 0.5 * vx);  // arm (0, +0.5) of the lower disk
      }
    }
  }
  Eigen::SparseMatrix<double> J(2 * nc, 3 * nc);
  J.setFromTriplets(triplets.begin(), triplets.end());
  Eigen::VectorXd minv(3 * nc);
  for (Eigen::Index b = 0; b < nc; ++b) minv.segment<3>(3 * b) << 1, 1, 8;
  FrictionContact problem;
  problem.dimension = 2;
  problem.W = J * minv.asDiagonal() * J.transpose();
  problem.q = Eigen::VectorXd::Zero(2 * nc);
  for (Eigen::Index c = 0; c < nc; ++c) {
    problem.q[2 * c] = -0.01 * (1 + static_cast<double>(c % 7));
    problem.q[2 * c + 1] = 0.02 * static_cast<double>((c % 5)) - 0.04;
  }
  problem.mu = Eigen::VectorXd::Constant(nc, 0.3);
  // Two runs of 33 and 63 sweeps, the error checked (error_every beyond reach) at the start, after
  // sweeps 1, 2, 4, 8, 16, 32 and at the last in both: their difference is 30 sweeps and nothing else.
  SolveOptions options;
  options.friction_contact.nsgs.error_every = 1000000;
  const auto time_of = [&](int sweeps, Result& out) {  // the fastest of three runs, against noise
    options.max_iterations = sweeps;
    double fastest = std::numeric_limits<double>::infinity();
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      out = solve(problem, Method::Nsgs, options);
      fastest = std::min(fastest,
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return fastest;
  };
  Result result;
  const double t33 = time_of(33, result);
  const double t63 = time_of(63, result);
  // W·r as the problem stores W (column-major) and as a row-major copy (what a sweep reads).
  const Eigen::SparseMatrix<double, Eigen::RowMajor> rows = problem.W;
  Eigen::VectorXd u(problem.size());
  const int products = 100;
  const auto t2 = std::chrono::steady_clock::now();
  for (int k = 0; k < products; ++k) u.noalias() = problem.W * result.z;
  const auto t3 = std::chrono::steady_clock::now();
  for (int k = 0; k < products; ++k) u.noalias() = rows * result.z;
  const auto t4 = std::chrono::steady_clock::now();
  const double per_sweep = (t63 - t33) / 30;
  const double per_product = std::chrono::duration<double, std::milli>(t3 - t2).count() / products;
  const double per_row_product = std::chrono::duration<double, std::milli>(t4 - t3).count() / products;
  std::printf(
      "[ timing   ] nc = %ld, nnz(W) = %ld: nsgs sweep %.3f ms; W*r %.3f ms (column-major, ratio %.2f), "
      "%.3f ms (row-major, ratio %.2f); solve of 63 sweeps %.1f ms in all, relative error %.2e\n",
      static_cast<long>(nc), static_cast<long>(problem.W.nonZeros()), per_sweep, per_product, per_sweep / per_product,
      per_row_product, per_sweep / per_row_product, t63, result.residual);
  EXPECT_TRUE(result.z.allFinite());
  EXPECT_LT(result.residual, 1.0);
}

// Auto's first nsgs on the factors solves for the point its contacts' statuses define once they
// hold over two error checks (nsgs.hpp, solve_nsgs_factored's `status_solve`); the method "nsgs"
// only sweeps. Two disks stacked on the ground, falling at g h = 0.1 (m0 = 1 below, m1 = 9 above,
// radius 0.1, vertical arms): the normal rows do not couple with the tangential ones, and by hand
// the normal impulses that stop both are r_N0 = (m0 + m1) g h = 1 at the ground and r_N1 = m1 g h =
// 0.9 between the disks. Gauss–Seidel on the normals contracts by m1 / (m0 + m1) = 0.9 a sweep
// (hundreds of sweeps to 1e-10).
TEST(FrictionContactSolve, AutoSolvesOnTheStatusesOfSmallPlanarProblems) {
  const double m0 = 1, m1 = 9, radius = 0.1;
  const double inertia0 = 0.5 * m0 * radius * radius, inertia1 = 0.5 * m1 * radius * radius;
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(4, 6);
  H.row(0) << 0, 1, 0, 0, 0, 0;                      // ground under disk 0: normal
  H.row(1) << 1, 0, radius, 0, 0, 0;                 // tangent (1, 0), arm (0, −r): r × t = r
  H.row(2) << 0, -1, 0, 0, 1, 0;                     // disk 1 on disk 0: normal (0, 1) at disk 1
  H.row(3) << -1, 0, -radius, 1, 0, radius;          // tangent: arms (0, −r) on 1, (0, r) on 0
  FactoredFrictionContact problem;
  problem.dimension = 2;
  problem.H = H.sparseView();
  problem.inverse_mass = (Eigen::VectorXd(6) << 1 / m0, 1 / m0, 1 / inertia0, 1 / m1, 1 / m1, 1 / inertia1).finished();
  problem.q = Eigen::Vector4d(-0.1, 0, 0, 0);
  problem.mu = Eigen::Vector2d(0.5, 0.5);
  // Warm-started (from r = 0 with no contact sliding, auto would take the relaxation from rest first).
  const SolveOptions options{.tolerance = 1e-10, .initial_guess = Eigen::Vector4d(0.5, 0, 0.5, 0)};
  FrictionContactResiduals criteria;
  const Result by_auto = solve(problem, Method::Auto, options, criteria);
  ASSERT_TRUE(by_auto.solved()) << by_auto.message;
  EXPECT_THAT(by_auto.message, HasSubstr("a solve on the contacts' statuses"));
  EXPECT_LE(by_auto.iterations, 4);
  EXPECT_NEAR(by_auto.z[0], 1.0, 1e-12);
  EXPECT_NEAR(by_auto.z[2], 0.9, 1e-12);
  EXPECT_NEAR(by_auto.z[1], 0.0, 1e-12);
  EXPECT_NEAR(by_auto.z[3], 0.0, 1e-12);
  const FrictionContact formed = problem.assembled();
  EXPECT_LE(friction_contact_residuals(formed, by_auto.z).relative_error, 1e-10);
  const Result by_nsgs = solve(problem, Method::Nsgs, options, criteria);
  ASSERT_TRUE(by_nsgs.solved()) << by_nsgs.message;
  EXPECT_THAT(by_nsgs.message, testing::Not(HasSubstr("statuses")));
  EXPECT_GT(by_nsgs.iterations, 100);
  EXPECT_LE((by_nsgs.z - by_auto.z).lpNorm<Eigen::Infinity>(), 1e-8);

  // Pushed sideways at the ground (q_T0 = 2, μ = 0.1): the bottom disk slides forward, so
  // r_T0 = −μ r_N0 exactly; the normals are still decoupled from the tangents and keep their values.
  problem.q[1] = 2;
  problem.mu[0] = 0.1;
  const Result sliding = solve(problem, Method::Auto, options, criteria);
  ASSERT_TRUE(sliding.solved()) << sliding.message;
  EXPECT_NEAR(sliding.z[0], 1.0, 1e-12);
  EXPECT_NEAR(sliding.z[2], 0.9, 1e-12);
  EXPECT_EQ(sliding.z[1], -0.1 * sliding.z[0]);
  EXPECT_LE(friction_contact_residuals(problem.assembled(), sliding.z).relative_error, 1e-10);
}

// A nearly singular reduced system is not returned by the status solve (nsgs_factored.cpp: its
// LU's condition estimate must exceed 1e-10, and its point must meet the tolerance when recomputed;
// the LU's pick on a line of solutions carries round-off times the condition): the sweeps carry the
// point. The statuses (all sticking, r_T = 0 exactly) hold from the start, so the status solve is
// tried at the first check. The two stacked disks above with
// the ground contact doubled: the second ground contact's rows are the first's times (1 + 1e-13),
// so the sticking set's system has a condition number near 1e13 and a line of solutions. By hand,
// the two ground contacts together carry (m0 + m1) g h = 1 (r_Na + (1 + 1e-13) r_Nb = 1) and the
// contact between the disks m1 g h = 0.9, with no tangential impulse.
TEST(FrictionContactSolve, StatusSolveLeavesANearlySingularSystemToTheSweeps) {
  const double m0 = 1, m1 = 9, radius = 0.1, twin = 1 + 1e-13;
  const double inertia0 = 0.5 * m0 * radius * radius, inertia1 = 0.5 * m1 * radius * radius;
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(6, 6);
  H.row(0) << 0, 1, 0, 0, 0, 0;              // ground under disk 0: normal
  H.row(1) << 1, 0, radius, 0, 0, 0;         // tangent
  H.row(2) = twin * H.row(0);                // the same contact again, scaled by 1 + 1e-13
  H.row(3) = twin * H.row(1);
  H.row(4) << 0, -1, 0, 0, 1, 0;             // disk 1 on disk 0: normal
  H.row(5) << -1, 0, -radius, 1, 0, radius;  // tangent
  FactoredFrictionContact problem;
  problem.dimension = 2;
  problem.H = H.sparseView();
  problem.inverse_mass = (Eigen::VectorXd(6) << 1 / m0, 1 / m0, 1 / inertia0, 1 / m1, 1 / m1, 1 / inertia1).finished();
  problem.q = (Eigen::VectorXd(6) << -0.1, 0, -0.1 * twin, 0, 0, 0).finished();
  problem.mu = Eigen::Vector3d(0.5, 0.5, 0.5);
  const SolveOptions options{.tolerance = 1e-10,
                             .initial_guess = (Eigen::VectorXd(6) << 0.25, 0, 0.25, 0, 0.5, 0).finished()};
  FrictionContactResiduals criteria;
  const Result result = solve(problem, Method::Auto, options, criteria);
  ASSERT_TRUE(result.solved()) << result.message;
  EXPECT_THAT(result.message, testing::Not(HasSubstr("statuses")));
  EXPECT_GT(result.iterations, 4);  // swept on: the statuses held from the first check
  EXPECT_NEAR(result.z[0] + twin * result.z[2], 1.0, 1e-8);
  EXPECT_NEAR(result.z[4], 0.9, 1e-8);
  EXPECT_NEAR(result.z[1], 0.0, 1e-8);
  EXPECT_NEAR(result.z[3], 0.0, 1e-8);
  EXPECT_NEAR(result.z[5], 0.0, 1e-8);
  EXPECT_LE(friction_contact_residuals(problem.assembled(), result.z).relative_error, 1e-10);
}

}  // namespace
}  // namespace perp::solvers_friction_contact_test
