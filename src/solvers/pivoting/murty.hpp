#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// Murty's least-index principal pivoting method (Murty 1974; Cottle–Pang–Stone §4.2): from
/// α = ∅, solve M_αα z_α = −q_α, and flip the least index i with z_i < 0 (i ∈ α) or w_i < 0
/// (i ∉ α). Finite for P-matrices; on other matrices it can meet a singular M_αα or return to an
/// active set it has seen, and then reports `NotApplicable`.

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// The problem and options are assumed validated (use `solve`).
[[nodiscard]] Result solve_murty(const Lcp& problem, const SolveOptions& options);

}  // namespace perp
