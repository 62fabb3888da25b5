#pragma once
// Nonlinear complementarity problems from MCPLIB and the literature, with their known solutions,
// shared by the path and Newton tests, and the 2-D obstacle-type MCP with a sparse Jacobian that
// tests/solvers/sparse_mcp_test.cpp solves and bench/sparse_mcp_bench.cpp times.

#include <Eigen/SparseCore>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "perp/core/ncp.hpp"

namespace perp::mcp_problems {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// The family of Kojima–Shindo and Josephy, which differ in three coefficients of F_2 and F_3:
///   F_2 = 2x1² + x1 + x2² + a x3 + 2x4 − 2,   F_3 = 3x1² + x1x2 + 2x2² + 2x3 + b x4 − c.
inline Ncp kojima_shindo_family(double a, double b, double c) {
  Ncp p;
  p.n = 4;
  p.F = [=](const Eigen::VectorXd& x) {
    Eigen::Vector4d f;
    f << 3 * x[0] * x[0] + 2 * x[0] * x[1] + 2 * x[1] * x[1] + x[2] + 3 * x[3] - 6,
        2 * x[0] * x[0] + x[0] + x[1] * x[1] + a * x[2] + 2 * x[3] - 2,
        3 * x[0] * x[0] + x[0] * x[1] + 2 * x[1] * x[1] + 2 * x[2] + b * x[3] - c,
        x[0] * x[0] + 3 * x[1] * x[1] + 2 * x[2] + 3 * x[3] - 3;
    return Eigen::VectorXd(f);
  };
  p.J = [=](const Eigen::VectorXd& x) {
    Eigen::Matrix4d j;
    j << 6 * x[0] + 2 * x[1], 2 * x[0] + 4 * x[1], 1, 3,  //
        4 * x[0] + 1, 2 * x[1], a, 2,                     //
        6 * x[0] + x[1], x[0] + 4 * x[1], 2, b,           //
        2 * x[0], 6 * x[1], 2, 3;
    return Eigen::MatrixXd(j);
  };
  return p;
}

/// Kojima–Shindo (MCPLIB "kojshin"): two solutions, (1, 0, 3, 0) (nondegenerate) and
/// (√6/2, 0, 0, 1/2), where z_3 = F_3 = 0 (degenerate).
inline Ncp kojima_shindo() { return kojima_shindo_family(10, 9, 9); }

/// Josephy (MCPLIB "josephy"): one solution (√6/2, 0, 0, 1/2).
inline Ncp josephy() { return kojima_shindo_family(3, 3, 1); }

/// Mathiesen's Walrasian equilibrium (Pang–Gabriel's form). By hand the solutions are exactly
/// (λ, 0, 0, 0) with 0 <= λ <= 3: x4 > 0 forces x1 = 3 and then a contradiction in F2, x3 > 0 one in
/// F3, and with x3 = x4 = 0, F1 = −x2 >= 0 forces x2 = 0.
inline Ncp mathiesen() {
  Ncp p;
  p.n = 4;
  p.F = [](const Eigen::VectorXd& x) {
    Eigen::Vector4d f;
    f << -x[1] + x[2] + x[3], x[0] - (4.5 * x[2] + 2.7 * x[3]) / (x[1] + 1),
        5 - x[0] - (0.5 * x[2] + 0.3 * x[3]) / (x[2] + 1), 3 - x[0];
    return Eigen::VectorXd(f);
  };
  p.J = [](const Eigen::VectorXd& x) {
    const double a = x[1] + 1, b = x[2] + 1;
    Eigen::Matrix4d j;
    j << 0, -1, 1, 1,                                                       //
        1, (4.5 * x[2] + 2.7 * x[3]) / (a * a), -4.5 / a, -2.7 / a,         //
        -1, 0, -(0.5 * b - (0.5 * x[2] + 0.3 * x[3])) / (b * b), -0.3 / b,  //
        -1, 0, 0, 0;
    return Eigen::MatrixXd(j);
  };
  return p;
}

/// Billups' example, built to defeat merit-function methods: F(x) = (x − 1)² − 1.01 on x >= 0,
/// one solution 1 + √1.01; the merit has a local minimum at x = 0 that is not a solution.
inline Ncp billups() {
  Ncp p;
  p.n = 1;
  p.F = [](const Eigen::VectorXd& x) { return Eigen::VectorXd::Constant(1, (x[0] - 1) * (x[0] - 1) - 1.01); };
  p.J = [](const Eigen::VectorXd& x) { return Eigen::MatrixXd::Constant(1, 1, 2 * (x[0] - 1)); };
  return p;
}
inline const double kBillupsSolution = 1 + std::sqrt(1.01);

/// Hock–Schittkowski 35 as the KKT MCP of min 9 − 8x1 − 6x2 − 4x3 + 2x1² + 2x2² + x3² + 2x1x2 +
/// 2x1x3 s.t. x1 + x2 + 2x3 <= 3, x >= 0: unknowns (x, μ), solution (4/3, 7/9, 4/9, 2/9) (by hand:
/// the constraint is active and ∇f = (−2/9, −2/9, −4/9) = −μ(1, 1, 2)).
inline Ncp hs35() {
  Ncp p;
  p.n = 4;
  static const Eigen::Matrix4d kJ{{4, 2, 2, 1}, {2, 4, 0, 1}, {2, 0, 2, 2}, {-1, -1, -2, 0}};
  p.F = [](const Eigen::VectorXd& x) { return Eigen::VectorXd(kJ * x + Eigen::Vector4d(-8, -6, -4, 3)); };
  p.J = [](const Eigen::VectorXd&) { return Eigen::MatrixXd(kJ); };
  return p;
}
inline const Eigen::Vector4d kHs35Solution(4.0 / 3, 7.0 / 9, 4.0 / 9, 2.0 / 9);

/// The Murphy–Sherali–Soyster Cournot oligopoly (5 firms): inverse demand p(Q) = 5000^(1/γ) Q^(−1/γ),
/// γ = 1.1; firm i's marginal cost c_i + (L_i q_i)^(1/β_i) with c = (10, 8, 6, 4, 2), L_i = 5,
/// β = (1.2, 1.1, 1, 0.9, 0.8). F_i = c_i + (L_i q_i)^(1/β_i) − p(Q) − q_i p'(Q) ⊥ 0 <= q_i <= cap_i.
inline Mcp nash_cournot(double capacity = kInf) {
  static const double c[5] = {10, 8, 6, 4, 2};
  static const double beta[5] = {1.2, 1.1, 1.0, 0.9, 0.8};
  constexpr double L = 5, gamma = 1.1;
  Mcp p;
  p.F = [](const Eigen::VectorXd& q) {
    const double Q = q.sum();
    const double price = std::pow(5000.0, 1 / gamma) * std::pow(Q, -1 / gamma);
    const double slope = -price / (gamma * Q);
    Eigen::VectorXd f(5);
    for (int i = 0; i < 5; ++i) f[i] = c[i] + std::pow(L * q[i], 1 / beta[i]) - price - q[i] * slope;
    return f;
  };
  p.J = [](const Eigen::VectorXd& q) {
    const double Q = q.sum();
    const double price = std::pow(5000.0, 1 / gamma) * std::pow(Q, -1 / gamma);
    const double slope = -price / (gamma * Q);
    const double curvature = price * (1 / gamma) * (1 / gamma + 1) / (Q * Q);
    Eigen::MatrixXd j(5, 5);
    for (int i = 0; i < 5; ++i) {
      for (int k = 0; k < 5; ++k) j(i, k) = -slope - q[i] * curvature;
      j(i, i) += -slope + (L / beta[i]) * std::pow(L * q[i], 1 / beta[i] - 1);
    }
    return j;
  };
  p.lower = Eigen::VectorXd::Zero(5);
  p.upper = Eigen::VectorXd::Constant(5, capacity);
  return p;
}
/// The literature's solution (Murphy–Sherali–Soyster; Harker), to the 4 decimals printed there.
inline const Eigen::VectorXd kNashSolution =
    (Eigen::VectorXd(5) << 15.4293, 12.4986, 9.6635, 7.1651, 5.1326).finished();

/// The 2-D obstacle-type problem on the unit square, an m×m grid of interior nodes (n = m²,
/// h = 1/(m + 1)): F(u) = s (A u + κu³ − f), −0.1 <= u <= 0.1, A the 5-point Laplacian / h²,
/// κ = 1000, f(x, y) = 60 sin(2πx) sin(2πy) (both bounds are active on large sets), with
/// J(u) = s (A + 3κ diag(u²)) given sparse (`Mcp::J_sparse`). The factor s > 0 does not change the
/// solutions: s = h² is the finite-element scaling (`fe_scaling`, J's entries O(1)), s = 1 the
/// finite-difference one (J's entries up to 8/h²).
inline Mcp obstacle_2d(int m, bool fe_scaling) {
  using Sparse = Eigen::SparseMatrix<double>;
  const int n = m * m;
  const double h = 1.0 / (m + 1);
  const double s = fe_scaling ? h * h : 1.0;
  const double pi = std::acos(-1.0);
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(5 * n));
  Eigen::VectorXd f(n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < m; ++j) {
      const int k = i * m + j;
      entries.emplace_back(k, k, 4 * s / (h * h));
      if (i > 0) entries.emplace_back(k, k - m, -s / (h * h));
      if (i + 1 < m) entries.emplace_back(k, k + m, -s / (h * h));
      if (j > 0) entries.emplace_back(k, k - 1, -s / (h * h));
      if (j + 1 < m) entries.emplace_back(k, k + 1, -s / (h * h));
      f[k] = s * 60 * std::sin(2 * pi * (i + 1) * h) * std::sin(2 * pi * (j + 1) * h);
    }
  }
  Sparse A(n, n);
  A.setFromTriplets(entries.begin(), entries.end());
  const double kappa = 1000 * s;
  Mcp p;
  p.F = [A, f, kappa](const Eigen::VectorXd& u) {
    return Eigen::VectorXd(A * u + kappa * u.array().cube().matrix() - f);
  };
  p.J_sparse = [A, kappa](const Eigen::VectorXd& u) {
    Sparse J = A;
    for (Eigen::Index i = 0; i < J.rows(); ++i) J.coeffRef(i, i) += 3 * kappa * u[i] * u[i];
    return J;
  };
  p.lower = Eigen::VectorXd::Constant(n, -0.1);
  p.upper = Eigen::VectorXd::Constant(n, 0.1);
  return p;
}

}  // namespace perp::mcp_problems
