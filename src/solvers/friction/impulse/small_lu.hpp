#pragma once
// Private (not installed): LU with partial pivoting of small dense column-major systems on the stack,
// its solves and condition tests, for nsgs' status solve (nsgs_factored.cpp). Sizes up to
// kSmallLuMax; the full comments at the definitions (small_lu.cpp).

#include "nsgs.hpp"

namespace perp::detail {

/// The largest system: the status solve's, 2 unknowns for each of kStatusSolveMaxContacts contacts.
inline constexpr int kSmallLuMax = 2 * static_cast<int>(kStatusSolveMaxContacts);

/// LU of the m × m column-major `a` in place (row k swapped with swaps[k] at step k); false only
/// where a column holds a NaN. A column without a nonzero pivot is left as it is.
bool small_lu(double* a, int m, int* swaps);
/// x := K⁻¹ x (transposed: K⁻ᵀ x) from `small_lu`'s factors; an unknown whose right side is exactly
/// 0 at its pivot stays 0.
void small_lu_solve(const double* a, int m, const int* swaps, double* x, bool transposed);
/// LAPACK's and Eigen's estimate of K's reciprocal condition number in the 1-norm (‖K‖₁ = `norm`).
double small_lu_rcond(const double* a, int m, const int* swaps, double norm);
/// A proven upper bound on ‖K⁻¹‖₁ from the comparison matrices of the factors; +∞ at a zero pivot.
double small_lu_inverse_norm_bound(const double* a, int m);
/// `small_lu_rcond(...) > min_rcond`, decided by the bound alone where it passes tenfold.
bool small_lu_well_conditioned(const double* a, int m, const int* swaps, double norm, double min_rcond);

}  // namespace perp::detail
