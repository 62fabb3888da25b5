#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// Projected Gauss–Seidel and projected SOR (Cryer 1971; chapter §1.4):
///   z_i ← max(0, z_i − ω w_i / M_ii),  w = M z + q kept exact by a column update after each
/// change, so one sweep costs one pass over M (a matrix–vector product) and the natural residual
/// of every sweep is available in O(n).
/// Converges for symmetric positive definite M (ω ∈ (0, 2)); needs M_ii > 0.

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// `solve` has validated the problem and options. `relaxation` is ω ∈ (0, 2)
/// (1 = PGS). Ends `Solved`, `MaxIterations`, or `NumericalFailure` naming the row of a
/// zero/negative diagonal or the sweep at which the iterates stopped being finite.
[[nodiscard]] Result solve_psor(const Lcp& problem, const SolveOptions& options, double relaxation);

}  // namespace perp
