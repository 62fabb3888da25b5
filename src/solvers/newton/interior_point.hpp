#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// Primal–dual path-following interior-point method for monotone LCPs, with Mehrotra's
/// predictor–corrector. Iterates keep z > 0 and w > 0 and drive w − (M z + q) and z∘w to zero
/// together (an infeasible-start method); each step solves (M + Z⁻¹W) Δz = rhs twice with one
/// factorization (Cholesky when M is symmetric, LU otherwise).
///
/// The method needs M positive semidefinite (xᵀMx >= 0 for all x, M need not be symmetric):
/// it checks this first, by Cholesky of the symmetric part shifted by 1e-10·max|M|, and returns
/// `Status::NotApplicable` when it fails. Stopping test: the natural residual ‖min(z, M z + q)‖∞
/// of the iterate, or of the crossover point (`InteriorPointOptions::crossover`).

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Statuses: solved; not-applicable (M not positive semidefinite); no-solution-found when the
/// iterates diverge (a feasible monotone LCP has bounded central-path iterates, so this is
/// evidence of infeasibility, not a proof); max-iterations; numerical-failure. Assumes valid input.
[[nodiscard]] Result solve_interior_point(const Lcp& problem, const SolveOptions& options);

}  // namespace perp
