// The small problems of Lemke's method (lemke_small.hpp): the re-solve on the final basis that
// runs on the stack.

#include "lemke_small.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "detail.hpp"

namespace perp::detail {

void refine_lemke_small(const Lcp& problem, Result& result) {
  const Eigen::Index n = result.z.size();
  std::array<Eigen::Index, kStackTableau> active{};
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (result.z[i] > 0.0) active[static_cast<std::size_t>(k++)] = i;
  }
  if (k == 0) return;
  // M_αα (row-major, k×k) and −q_α, then Gaussian elimination with partial pivoting and back
  // substitution in plain loops (Eigen's LU costs more in set-up than in arithmetic at this size).
  std::array<double, kStackTableau * kStackTableau> a;
  std::array<double, kStackTableau> x;
  const auto at = [&](Eigen::Index i, Eigen::Index j) -> double& { return a[static_cast<std::size_t>(i * k + j)]; };
  for (Eigen::Index i = 0; i < k; ++i) {
    const Eigen::Index row = active[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < k; ++j) at(i, j) = problem.M(row, active[static_cast<std::size_t>(j)]);
    x[static_cast<std::size_t>(i)] = -problem.q[row];
  }
  for (Eigen::Index c = 0; c < k; ++c) {
    Eigen::Index pivot = c;
    for (Eigen::Index i = c + 1; i < k; ++i) {
      if (std::abs(at(i, c)) > std::abs(at(pivot, c))) pivot = i;
    }
    if (!(std::abs(at(pivot, c)) > 0.0)) return;  // M_αα singular: the pivoted point stays
    if (pivot != c) {
      for (Eigen::Index j = c; j < k; ++j) std::swap(at(c, j), at(pivot, j));
      std::swap(x[static_cast<std::size_t>(c)], x[static_cast<std::size_t>(pivot)]);
    }
    for (Eigen::Index i = c + 1; i < k; ++i) {
      const double factor = at(i, c) / at(c, c);
      if (factor == 0.0) continue;
      for (Eigen::Index j = c + 1; j < k; ++j) at(i, j) -= factor * at(c, j);
      x[static_cast<std::size_t>(i)] -= factor * x[static_cast<std::size_t>(c)];
    }
  }
  for (Eigen::Index i = k - 1; i >= 0; --i) {
    double sum = x[static_cast<std::size_t>(i)];
    for (Eigen::Index j = i + 1; j < k; ++j) sum -= at(i, j) * x[static_cast<std::size_t>(j)];
    x[static_cast<std::size_t>(i)] = sum / at(i, i);
    if (!std::isfinite(x[static_cast<std::size_t>(i)])) return;
  }
  // The candidate in the result's own z and w, the pivoted point kept to restore.
  std::array<double, kStackTableau> z_kept;
  std::array<double, kStackTableau> w_kept;
  std::copy(result.z.data(), result.z.data() + n, z_kept.data());
  std::copy(result.w.data(), result.w.data() + n, w_kept.data());
  const double residual = result.residual;
  result.z.setZero();
  for (Eigen::Index i = 0; i < k; ++i) result.z[active[static_cast<std::size_t>(i)]] = x[static_cast<std::size_t>(i)];
  detail::recompute_point(problem, result);
  if (result.residual > residual) {  // worse: the pivoted point stays
    std::copy(z_kept.data(), z_kept.data() + n, result.z.data());
    std::copy(w_kept.data(), w_kept.data() + n, result.w.data());
    result.residual = residual;
  }
}

}  // namespace perp::detail
