#pragma once
// The relative test of docs/solvers.md ("When a point counts as solved"), written out again for
// the tests with plain loops in long double, independently of src/core/residual.cpp:
//   Z = ‖z‖∞ (z = 0: the largest finite bound, else 1), W = ‖q‖∞ (q = 0: max_i Σ_j |M_ij z_j|),
//   relative residual = ‖z/Z − mid(lo/Z, hi/Z, z/Z − w/W)‖∞ (LCP: ‖min(z/Z, w/W)‖∞),
// with w = M z + q summed here in long double; the library sums w in double, and that rounding,
// (n + 1)·2^-53·max_i Σ_j |M_ij z_j| / W, is subtracted (so a true claim is never refused here).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/mlcp.hpp"

namespace perp::testing_relative {

inline long double relative(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z,
                            const Eigen::VectorXd& lo, const Eigen::VectorXd& hi) {
  const Eigen::Index n = q.size();
  if (n == 0) return 0;
  long double Z = 0;
  for (Eigen::Index i = 0; i < n; ++i) Z = std::max(Z, std::fabs(static_cast<long double>(z[i])));
  if (Z == 0) {
    for (Eigen::Index i = 0; i < n; ++i) {
      if (std::isfinite(lo[i])) Z = std::max(Z, std::fabs(static_cast<long double>(lo[i])));
      if (std::isfinite(hi[i])) Z = std::max(Z, std::fabs(static_cast<long double>(hi[i])));
    }
    if (Z == 0) Z = 1;
  }
  std::vector<long double> w(static_cast<std::size_t>(n));
  long double W = 0, terms = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    long double sum = q[i], size = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      const long double term = static_cast<long double>(M(i, j)) * z[j];
      sum += term;
      size += std::fabs(term);
    }
    w[static_cast<std::size_t>(i)] = sum;
    W = std::max(W, std::fabs(static_cast<long double>(q[i])));
    terms = std::max(terms, size);
  }
  if (W == 0) W = terms;
  const long double rounding = W > 0 ? (n + 1) * 0x1p-53L * terms / W : 0.0L;
  long double worst = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const long double wi = w[static_cast<std::size_t>(i)];
    const long double ws = wi == 0 ? 0.0L : (W == 0 ? (wi > 0 ? HUGE_VALL : -HUGE_VALL) : wi / W);
    const long double zs = z[i] / Z;
    const long double l = std::isfinite(lo[i]) ? lo[i] / Z : static_cast<long double>(lo[i]);
    const long double h = std::isfinite(hi[i]) ? hi[i] / Z : static_cast<long double>(hi[i]);
    worst = std::max(worst, std::fabs(zs - std::min(h, std::max(l, zs - ws))));
  }
  return std::max(0.0L, worst - rounding);
}

inline long double relative(const Lcp& problem, const Eigen::VectorXd& z) {
  const Eigen::Index n = problem.size();
  return relative(problem.M, problem.q, z, Eigen::VectorXd::Zero(n),
                  Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity()));
}

inline long double relative(const BoxLcp& problem, const Eigen::VectorXd& z) {
  Eigen::VectorXd lo, hi;
  problem.bounds_at(z, lo, hi);
  return relative(problem.M, problem.q, z, lo, hi);
}

// u free (its rows count |w_i|/W), v in [0, +∞).
inline long double relative(const Mlcp& problem, const Eigen::VectorXd& z) {
  const Eigen::Index n = problem.equalities(), m = problem.complementarities();
  const double inf = std::numeric_limits<double>::infinity();
  Eigen::VectorXd lo(n + m), hi = Eigen::VectorXd::Constant(n + m, inf);
  lo << Eigen::VectorXd::Constant(n, -inf), Eigen::VectorXd::Zero(m);
  return relative(problem.matrix(), problem.offset(), z, lo, hi);
}

}  // namespace perp::testing_relative
