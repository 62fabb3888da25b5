#pragma once
/// \file
/// Enumeration of active sets: for each α ⊆ {0..n−1}, solve M_αα z_α = −q_α with z_ᾱ = 0 and
/// keep z when z >= 0 and w = M z + q >= 0. Exponential (2ⁿ systems), so limited to n <= 25.

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Largest n enumeration accepts; larger problems get `InvalidProblem`.
inline constexpr Eigen::Index kMaxEnumerationSize = 25;

/// Active sets enum examines when `SolveOptions::max_iterations` is 0: 2^18 = 262144, a run of
/// about a second (every set at n <= 18). Past it the solve ends `MaxIterations` with the point
/// of smallest residual seen; set `max_iterations` (CLI `--max-iter`) to go further.
inline constexpr int kEnumerationBudget = 1 << 18;

/// The problem and options are assumed validated (use `solve`). Returns the first solution in
/// order of increasing |α|, or with `all_solutions` every distinct one (in `solutions`, and the
/// first in z). Ends `Infeasible` when no active set gives a solution and every M_αα was
/// nonsingular (a proof), `NoSolutionFound` when some M_αα was singular, `MaxIterations` when
/// the budget (`max_iterations`, default `kEnumerationBudget`) ran out first.
[[nodiscard]] Result solve_enumeration(const Lcp& problem, const SolveOptions& options);

}  // namespace perp
