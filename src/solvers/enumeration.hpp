#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// Enumeration of active sets: for each α ⊆ {0..n−1}, solve M_αα z_α = −q_α with z_ᾱ = 0 and
/// keep z when z >= 0 and w = M z + q >= 0. Exponential (2ⁿ systems), so limited to n <= 25.

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

// kMaxEnumerationSize (the largest n accepted) and kEnumerationBudget (active sets examined when
// `SolveOptions::max_iterations` is 0: 2^18 = 262144, every set at n <= 18; past it the solve ends
// `MaxIterations` with the point of smallest residual seen) are in solvers/options.hpp.

/// `solve` has validated the problem and options. Returns the first solution in
/// order of increasing |α|, or with `all_solutions` every distinct one (in `solutions`, and the
/// first in z). Ends `Infeasible` when no active set gives a solution and every M_αα was
/// nonsingular (a proof), `NoSolutionFound` when some M_αα was singular, `MaxIterations` when
/// the budget (`max_iterations`, default `kEnumerationBudget`) ran out first.
[[nodiscard]] Result solve_enumeration(const Lcp& problem, const SolveOptions& options);

}  // namespace perp
