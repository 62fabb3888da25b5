// Property test (issue 15, "no false claim at any scale"): random LCPs of six classes at the scales
// 1e-150, 1, 1e150 and mixed (M and q at different scales), solved by every LCP method; every
// claim is checked independently of the library:
//   - solved: the relative test of docs/solvers.md, recomputed here by plain loops in long double;
//   - infeasible: contradicted by brute-force enumeration of the 2^n active sets (n <= 8), done
//     here on the unit-scale data with Eigen's FullPivLU and the relative test;
//   - a ray said to prove infeasibility: a Farkas certificate (v >= 0, Mᵀv <= 0, qᵀv < 0).
// Hand-derived facts make the test able to fail beyond those checks: a P-matrix (PD, P
// non-symmetric) LCP has exactly one solution, so lemke, enum and auto must solve it at every
// scale, and no method may call it infeasible; strictly copositive M likewise always has a solution.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::solvers_property_test {
namespace {

constexpr double kTolerance = 1e-8;

// ‖min(z/Z, w/W)‖∞ with Z = ‖z‖∞ (1 when z = 0) and W = ‖q‖∞ (max_i Σ_j |M_ij z_j| when q = 0).
long double independent_relative_residual(const Eigen::MatrixXd& M, const Eigen::VectorXd& q,
                                          const Eigen::VectorXd& z) {
  const Eigen::Index n = q.size();
  long double Z = 0;
  for (Eigen::Index i = 0; i < n; ++i) Z = std::max(Z, std::fabs(static_cast<long double>(z[i])));
  if (Z == 0) Z = 1;
  std::vector<long double> w(static_cast<std::size_t>(n));
  long double W = 0, homogeneous = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    long double sum = q[i], size = std::fabs(static_cast<long double>(q[i]));
    for (Eigen::Index j = 0; j < n; ++j) {
      const long double term = static_cast<long double>(M(i, j)) * z[j];
      sum += term;
      size += std::fabs(term);
    }
    w[static_cast<std::size_t>(i)] = sum;
    W = std::max(W, std::fabs(static_cast<long double>(q[i])));
    homogeneous = std::max(homogeneous, size - std::fabs(static_cast<long double>(q[i])));
  }
  if (W == 0) W = homogeneous;
  // The library computes w in double: its rounding, up to (n + 1)·2^-53·max_i Σ_j |M_ij z_j|, is
  // allowed on top of the tolerance (w here is summed in long double).
  const long double rounding = W > 0 ? (n + 1) * 0x1p-53L * homogeneous / W : 0.0L;
  long double worst = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const long double wi = w[static_cast<std::size_t>(i)];
    const long double ws = wi == 0 ? 0.0L : (W == 0 ? HUGE_VALL : wi / W);
    worst = std::max(worst, std::fabs(std::min(static_cast<long double>(z[i]) / Z, ws)));
  }
  return std::max(0.0L, worst - rounding);
}

// Some active set α gives z_α = −M_αα⁻¹ q_α >= 0 and w >= 0 at relative round-off (1e-9): a
// solution exists. Unit-scale copies (M/‖M‖, q/‖q‖: the same solution set up to scaling z).
bool brute_force_finds_a_solution(const Eigen::MatrixXd& M0, const Eigen::VectorXd& q0) {
  const Eigen::Index n = q0.size();
  const double m_scale = M0.cwiseAbs().maxCoeff(), q_scale = q0.cwiseAbs().maxCoeff();
  if (q_scale == 0) return true;  // z = 0
  const Eigen::MatrixXd M = m_scale > 0 ? Eigen::MatrixXd(M0 / m_scale) : M0;
  const Eigen::VectorXd q = q0 / q_scale;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    std::vector<Eigen::Index> alpha;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (mask & (1u << i)) alpha.push_back(i);
    }
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    if (!alpha.empty()) {
      const Eigen::MatrixXd sub = M(alpha, alpha);
      const Eigen::FullPivLU<Eigen::MatrixXd> lu(sub);
      if (!lu.isInvertible()) continue;
      z(alpha) = lu.solve(Eigen::VectorXd(-q(alpha)));
      if (!z.allFinite()) continue;
    }
    if (independent_relative_residual(M, q, z) <= 1e-9L) return true;
  }
  return false;
}

bool farkas_certificate(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& ray) {
  const Eigen::Index n = q.size();
  const double size = ray.cwiseAbs().maxCoeff();
  if (!(size > 0) || ray.minCoeff() < -1e-10 * size) return false;
  const Eigen::VectorXd v = (ray / size).cwiseMax(0.0);
  for (Eigen::Index i = 0; i < n; ++i) {
    long double sum = 0, magnitude = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      sum += static_cast<long double>(M(j, i)) * v[j];
      magnitude += std::fabs(static_cast<long double>(M(j, i)) * v[j]);
    }
    if (sum > 1e-10L * magnitude) return false;
  }
  long double qv = 0, magnitude = 0;
  for (Eigen::Index j = 0; j < n; ++j) {
    qv += static_cast<long double>(q[j]) * v[j];
    magnitude += std::fabs(static_cast<long double>(q[j]) * v[j]);
  }
  return qv < -1e-10L * magnitude;
}

enum class Kind { Pd, PsdSingular, PNonsymmetric, Copositive, Indefinite, DegenerateQ };
const char* name(Kind kind) {
  switch (kind) {
    case Kind::Pd: return "PD";
    case Kind::PsdSingular: return "PSD singular";
    case Kind::PNonsymmetric: return "P non-symmetric";
    case Kind::Copositive: return "strictly copositive";
    case Kind::Indefinite: return "indefinite";
    case Kind::DegenerateQ: return "PD, degenerate q";
  }
  return "?";
}
// A P-matrix or strictly copositive M: the LCP has a solution for every q.
bool always_solvable(Kind kind) { return kind != Kind::PsdSingular && kind != Kind::Indefinite; }
bool p_matrix(Kind kind) { return kind == Kind::Pd || kind == Kind::PNonsymmetric || kind == Kind::DegenerateQ; }

Lcp random_problem(Kind kind, Eigen::Index n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto random_matrix = [&](Eigen::Index rows, Eigen::Index cols) {
    Eigen::MatrixXd A(rows, cols);
    for (double& x : A.reshaped()) x = u(rng);
    return A;
  };
  Lcp problem{Eigen::MatrixXd(n, n), Eigen::VectorXd(n)};
  for (double& x : problem.q) x = u(rng);
  switch (kind) {
    case Kind::Pd:
    case Kind::DegenerateQ: {
      const Eigen::MatrixXd A = random_matrix(n, n);
      problem.M = A * A.transpose() + 0.1 * Eigen::MatrixXd::Identity(n, n);
      break;
    }
    case Kind::PsdSingular: {
      const Eigen::MatrixXd B = random_matrix(n, std::max<Eigen::Index>(1, n / 2));
      problem.M = B * B.transpose();
      break;
    }
    case Kind::PNonsymmetric: {
      // Positive definite symmetric part plus a skew part: PD (not symmetric), hence P.
      const Eigen::MatrixXd A = random_matrix(n, n), K = random_matrix(n, n);
      problem.M = A * A.transpose() + 0.1 * Eigen::MatrixXd::Identity(n, n) + 3.0 * (K - K.transpose());
      break;
    }
    case Kind::Copositive:
      problem.M = random_matrix(n, n).cwiseAbs();
      problem.M.diagonal().array() += 0.5;  // nonnegative with a positive diagonal: strictly copositive
      break;
    case Kind::Indefinite:
      problem.M = random_matrix(n, n);
      break;
  }
  if (kind == Kind::DegenerateQ) {
    // q = −M z* with z* having zeros: w* = 0 where z* = 0 too (degenerate pairs), and q has the
    // corresponding mixed signs.
    Eigen::VectorXd star(n);
    for (Eigen::Index i = 0; i < n; ++i) star[i] = i % 2 == 0 ? 0.0 : std::abs(u(rng)) + 0.1;
    problem.q = -problem.M * star;
  }
  return problem;
}

struct Scale {
  const char* name;
  double m, q;
};

TEST(Property, EveryClaimOfEveryMethodHoldsAtEveryScale) {
  const std::vector<Scale> scales = {{"1e-150", 1e-150, 1e-150}, {"1", 1, 1}, {"1e150", 1e150, 1e150},
                                     {"mixed M 1e100, q 1e-100", 1e100, 1e-100},
                                     {"mixed M 1e-100, q 1e100", 1e-100, 1e100}};
  const std::vector<Kind> kinds = {Kind::Pd,         Kind::PsdSingular, Kind::PNonsymmetric,
                                   Kind::Copositive, Kind::Indefinite,  Kind::DegenerateQ};
  std::mt19937 rng(15);
  SolveOptions options;
  options.tolerance = kTolerance;
  int solved = 0, claims = 0, proofs = 0;
  for (const Kind kind : kinds) {
    for (int trial = 0; trial < 4; ++trial) {
      const Eigen::Index n = 2 + trial * 2;  // 2, 4, 6, 8
      const Lcp unit = random_problem(kind, n, rng);
      const bool solvable = brute_force_finds_a_solution(unit.M, unit.q);
      if (always_solvable(kind)) {
        ASSERT_TRUE(solvable) << name(kind) << " n = " << n << ": the brute force must find the solution";
      }
      for (const Scale& scale : scales) {
        const Lcp problem{unit.M * scale.m, unit.q * scale.q};
        for (const Method method : lcp_methods()) {
          const std::string where = std::string(name(kind)) + ", n = " + std::to_string(n) + ", scale " +
                                    scale.name + ", " + to_string(method);
          Result result;
          try {
            result = solve(problem, method, options);
          } catch (const InvalidProblem& e) {
            // interior-point refuses a non-monotone M; nothing else may refuse a valid problem
            EXPECT_EQ(method, Method::InteriorPoint) << where << ": " << e.what();
            continue;
          }
          ++claims;
          ASSERT_EQ(result.z.size(), n) << where;
          ASSERT_TRUE(result.z.allFinite()) << where;
          EXPECT_TRUE(std::isfinite(result.relative_residual)) << where;
          if (result.solved()) {
            ++solved;
            EXPECT_LE(independent_relative_residual(problem.M, problem.q, result.z), kTolerance + 1e-14L)
                << where << ": solved at z the relative test rejects; " << result.message;
          }
          if (result.status == Status::Infeasible) {
            ++proofs;
            EXPECT_FALSE(solvable) << where << ": infeasible, but an active set solves it; " << result.message;
          }
          if (result.ray && result.message.find("proves the LCP infeasible") != std::string::npos) {
            ++proofs;
            EXPECT_FALSE(solvable) << where << ": a proof of infeasibility for a solvable LCP";
            EXPECT_TRUE(farkas_certificate(problem.M, problem.q, *result.ray)) << where;
          }
          if (always_solvable(kind)) {
            EXPECT_NE(result.status, Status::Infeasible) << where;
          }
          // Methods guaranteed to finish on these classes, at any scale.
          const bool must_solve =
              (p_matrix(kind) && (method == Method::Lemke || method == Method::Enum || method == Method::Auto ||
                                  method == Method::Murty)) ||
              (kind == Kind::Copositive && (method == Method::Lemke || method == Method::Auto));
          if (must_solve) {
            EXPECT_TRUE(result.solved()) << where << ": " << to_string(result.status) << ", " << result.message;
          }
        }
      }
    }
  }
  // The run is not vacuous: most claims are solutions, and the singular/indefinite classes give
  // some proofs of infeasibility.
  EXPECT_GT(solved, claims / 2) << solved << " of " << claims;
  EXPECT_GT(proofs, 0);
  std::printf("property: %d runs, %d solved, %d proofs of infeasibility, all checked\n", claims, solved, proofs);
}

}  // namespace
}  // namespace perp::solvers_property_test
