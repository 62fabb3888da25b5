#pragma once
// Private: Lemke's method on a sparse M, in revised form (lemke_sparse.cpp). Not installed.
//
// The same path as the dense kernel (lemke.cpp): the augmented problem w = M z + q + d z0, d = 1
// (or `lemke.covering_vector`), z0 leaving the basis first when it attains the minimum ratio,
// ties broken by the lexicographic rule on the rows of B⁻¹, the data scaled by a power of two to
// unit size. What differs is how B⁻¹ is applied: never formed, but through a sparse LU of the
// basis' core (the rows whose w is nonbasic × the basic z's, the only part of B that is not an
// identity column) and product-form eta updates between refactorizations. A pivot then costs a
// sparse solve rather than the dense kernel's O(n·k) update of B⁻¹: on the Stewart–Trinkle LCP
// of a packed heap (3 000–4 000 unknowns, M as sparse as the Delassus matrix) seconds instead of
// minutes (bench/HISTORY.md, "Sparse Lemke on the packed heaps").

#include <Eigen/SparseCore>

#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// Lemke's method on the LCP (M, q) with M sparse (n×n, q sized n, both finite; `InvalidProblem`
/// naming the field otherwise). n = 0 or q >= 0: z = 0, solved, no pivot. Reads `tolerance`,
/// `max_iterations` (0: `default_pivots(n)`), `record_history` and `lemke` (`covering_vector`,
/// `pivot_tolerance`, `refine`: the final basis refactorized and its point kept when no worse);
/// emits no trace events. z is the basic z's values, w = M z + q and both residuals recomputed from
/// z. Status as the dense kernel's: `Solved` when z0 left the basis and the relative residual
/// meets the tolerance (`NumericalFailure` when it misses); `RayTermination` with `Result::ray`
/// (its message says whether the direction certifies infeasibility); `MaxIterations` at the pivot
/// limit; `NumericalFailure` when a basis cannot be factorized or the values overflow.
[[nodiscard]] Result solve_lemke_sparse(const Eigen::SparseMatrix<double>& M, const Eigen::VectorXd& q,
                                        const SolveOptions& options);

}  // namespace perp::detail
