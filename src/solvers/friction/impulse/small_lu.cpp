#include "small_lu.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

// The status solve's small dense LU (nsgs_factored.cpp), moved here whole.

namespace perp::detail {

/// LU with partial pivoting of the m × m column-major `a` in place (L unit lower, U upper; row k
/// swapped with row swaps[k] at step k), for the status solve's small systems without Eigen's
/// dynamic kernels. As Eigen's PartialPivLU, a column with no nonzero pivot is left as it is (no
/// swap, no division) and the factorization goes on; `small_lu_solve` then treats it as Eigen's
/// triangular solves do (below). Returns false only where a column holds a NaN.
bool small_lu(double* a, int m, int* swaps) {
  for (int k = 0; k < m; ++k) {
    int pivot_row = k;
    double largest = std::abs(a[k + k * m]);
    for (int i = k + 1; i < m; ++i) {
      const double x = std::abs(a[i + k * m]);
      if (x > largest) {
        largest = x;
        pivot_row = i;
      }
    }
    swaps[k] = pivot_row;
    if (std::isnan(largest)) return false;
    if (largest == 0) continue;  // nothing to eliminate below a zero pivot
    if (pivot_row != k) {
      for (int j = 0; j < m; ++j) std::swap(a[k + j * m], a[pivot_row + j * m]);
    }
    const double pivot = a[k + k * m];
    for (int i = k + 1; i < m; ++i) a[i + k * m] /= pivot;
    for (int j = k + 1; j < m; ++j) {
      const double factor = a[k + j * m];
      if (factor == 0) continue;
      double* const column = a + j * m;
      const double* const lower = a + k * m;
      for (int i = k + 1; i < m; ++i) column[i] -= lower[i] * factor;
    }
  }
  return true;
}

/// x := K⁻¹ x (transposed: K⁻ᵀ x) from `small_lu`'s factors. As Eigen's triangular solves, an
/// unknown whose right side is exactly 0 when its pivot is reached is left 0 (not divided): on an
/// exactly singular, consistent system the free unknowns are set to 0 (the status solve's answers
/// before this kernel replaced Eigen's, e.g. a box at rest on two sticking corners).
void small_lu_solve(const double* a, int m, const int* swaps, double* x, bool transposed) {
  if (!transposed) {
    for (int k = 0; k < m; ++k) std::swap(x[k], x[swaps[k]]);
    for (int j = 0; j < m; ++j) {  // L y = P x (unit diagonal)
      const double xj = x[j];
      if (xj != 0) {
        for (int i = j + 1; i < m; ++i) x[i] -= a[i + j * m] * xj;
      }
    }
    for (int j = m - 1; j >= 0; --j) {  // U x = y
      if (x[j] != 0) x[j] /= a[j + j * m];
      const double xj = x[j];
      if (xj != 0) {
        for (int i = 0; i < j; ++i) x[i] -= a[i + j * m] * xj;
      }
    }
    return;
  }
  for (int i = 0; i < m; ++i) {  // Uᵀ y = x
    double s = x[i];
    for (int k = 0; k < i; ++k) s -= a[k + i * m] * x[k];
    x[i] = s != 0 ? s / a[i + i * m] : 0.0;
  }
  for (int i = m - 1; i >= 0; --i) {  // Lᵀ z = y (unit diagonal)
    double s = x[i];
    for (int k = i + 1; k < m; ++k) s -= a[k + i * m] * x[k];
    x[i] = s;
  }
  for (int k = m - 1; k >= 0; --k) std::swap(x[k], x[swaps[k]]);  // x = Pᵀ z
}

/// The reciprocal condition number of K in the 1-norm as LAPACK and Eigen estimate it
/// (`PartialPivLU::rcond`: Hager's estimate of ‖K⁻¹‖₁ refined as Higham's, at most 4 steps, and
/// the alternating-sign vector's bound), from `small_lu`'s factors and ‖K‖₁.
double small_lu_rcond(const double* a, int m, const int* swaps, double norm) {
  if (norm == 0) return 0;
  if (m == 1) return 1;
  std::array<double, kSmallLuMax> v{};
  std::array<double, kSmallLuMax> sign{};
  std::array<double, kSmallLuMax> old_sign{};
  const auto l1 = [&](const std::array<double, kSmallLuMax>& x) {
    double s = 0;
    for (int i = 0; i < m; ++i) s += std::abs(x[static_cast<std::size_t>(i)]);
    return s;
  };
  for (int i = 0; i < m; ++i) v[static_cast<std::size_t>(i)] = 1.0 / m;
  small_lu_solve(a, m, swaps, v.data(), false);
  double lower = l1(v);
  double old_lower = lower;
  int index = -1;
  int old_index = -1;
  for (int k = 0; k < 4; ++k) {
    for (int i = 0; i < m; ++i) sign[static_cast<std::size_t>(i)] = v[static_cast<std::size_t>(i)] < 0 ? -1.0 : 1.0;
    if (k > 0 && std::equal(sign.begin(), sign.begin() + m, old_sign.begin())) break;
    v = sign;
    small_lu_solve(a, m, swaps, v.data(), true);
    index = 0;
    for (int i = 1; i < m; ++i) {
      if (std::abs(v[static_cast<std::size_t>(i)]) > std::abs(v[static_cast<std::size_t>(index)])) index = i;
    }
    if (index == old_index) break;
    v.fill(0);
    v[static_cast<std::size_t>(index)] = 1;
    small_lu_solve(a, m, swaps, v.data(), false);
    lower = l1(v);
    if (lower <= old_lower) break;
    old_sign = sign;
    old_index = index;
    old_lower = lower;
  }
  double alternating = 1;
  for (int i = 0; i < m; ++i) {
    v[static_cast<std::size_t>(i)] = alternating * (1 + static_cast<double>(i) / static_cast<double>(m - 1));
    alternating = -alternating;
  }
  small_lu_solve(a, m, swaps, v.data(), false);
  const double inverse_norm = std::max(lower, 2 * l1(v) / (3.0 * m));
  return inverse_norm == 0 ? 0.0 : (1 / inverse_norm) / norm;
}

/// An upper bound on ‖K⁻¹‖₁ from `small_lu`'s factors (P K = L U) in two triangular solves:
/// |U⁻¹ L⁻¹| <= M(U)⁻¹ M(L)⁻¹ entry by entry, M(T) the comparison matrix of T (|t_ii| on the
/// diagonal, −|t_ij| off it; its inverse is nonnegative), so ‖K⁻¹‖₁ <= the largest column sum of
/// M(U)⁻¹ M(L)⁻¹, the largest entry of M(L)⁻ᵀ M(U)⁻ᵀ e (every term added is nonnegative: the bound
/// carries only a relative round-off of order m ε). Returns +∞ where U has a zero pivot or the
/// bound is not finite.
double small_lu_inverse_norm_bound(const double* a, int m) {
  std::array<double, kSmallLuMax> y{};
  for (int i = 0; i < m; ++i) {  // M(U)ᵀ y = e: row i of M(U)ᵀ is column i of U, above its diagonal
    const double* const column = a + i * m;
    double s = 1;
    for (int k = 0; k < i; ++k) s += std::abs(column[k]) * y[static_cast<std::size_t>(k)];
    const double pivot = std::abs(column[i]);
    if (!(pivot > 0)) return std::numeric_limits<double>::infinity();
    y[static_cast<std::size_t>(i)] = s / pivot;
  }
  double largest = 0;
  for (int i = m - 1; i >= 0; --i) {  // M(L)ᵀ z = y (unit diagonal): column i of L, below its diagonal
    const double* const column = a + i * m;
    double s = y[static_cast<std::size_t>(i)];
    for (int k = i + 1; k < m; ++k) s += std::abs(column[k]) * y[static_cast<std::size_t>(k)];
    y[static_cast<std::size_t>(i)] = s;  // z_i over y_i: the entries below i already hold z
    largest = std::max(largest, s);
  }
  return std::isfinite(largest) ? largest : std::numeric_limits<double>::infinity();
}

/// The status solve's gate on K's conditioning: `small_lu_rcond(...) > min_rcond`,
/// with the estimate skipped where the bound above already proves it. The estimate is a lower bound
/// on ‖K⁻¹‖₁ (Hager, Higham: ‖K⁻¹ x‖₁ for vectors with ‖x‖₁ = 1), so its reciprocal condition is at
/// least the true one; where 1 / (‖K‖₁ · bound) exceeds the gate tenfold (a margin far above the
/// round-off of either side at such a condition), the estimate would pass it too: the same decision
/// in one pair of triangular solves instead of its up to ten.
bool small_lu_well_conditioned(const double* a, int m, const int* swaps, double norm, double min_rcond) {
  if (norm > 0 && m > 1) {
    const double bound = small_lu_inverse_norm_bound(a, m);
    if (std::isfinite(bound) && 1 / (norm * bound) > 10 * min_rcond) return true;
  }
  return small_lu_rcond(a, m, swaps, norm) > min_rcond;
}

}  // namespace perp::detail
