#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// Projected Gauss–Seidel and projected SOR over bounds (Cryer 1971; [chapter] §1.4; ODE's
/// quickstep for the friction coupling), the one PGS of every problem type:
///   z_i ← mid(lo_i, hi_i, z_i − ω w_i / M_ii),  w = M z + q kept exact by a column update after
/// each change, so one sweep costs one pass over M (a matrix–vector product) and the natural
/// residual of every sweep is available in O(n). The LCP runs it on [0, ∞), the box LCP on its
/// bounds (a friction-coupled component's ∓μ|z_j| read from the current z_j at its own update),
/// the MLCP as a box LCP with its u rows free (−∞, ∞), each solved exactly for z_i.
/// Converges for symmetric positive definite M (ω ∈ (0, 2)); needs M_ii > 0 on a bounded row and
/// M_ii != 0 on a free one.

#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// `solve` has validated the problem and options. `relaxation` is ω ∈ (0, 2) (1 = PGS). Ends
/// `Solved`, `MaxIterations` (the last iterate), `NotApplicable` (a diagonal entry it cannot
/// divide by, named, before any sweep) or `NumericalFailure` when the sweeps diverge (the residual
/// grows 1e10-fold or stops being finite; the point of smallest residual seen is returned).
/// The LCP's result has w and both residuals recomputed from z (`auto` calls it directly); the
/// box LCP's leaves them to the pipeline's finish.
[[nodiscard]] Result solve_psor(const Lcp& problem, const SolveOptions& options, double relaxation);
[[nodiscard]] Result solve_psor(const BoxLcp& problem, const SolveOptions& options, double relaxation);

namespace detail {

/// The start z of an iterative method over bounds: the warm start or 0, projected onto the fixed
/// bounds [lower, upper] first and then onto the coupled bounds ∓μ|z_normal| of `friction`.
[[nodiscard]] Eigen::VectorXd bounded_start(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                                            const std::vector<FrictionCoupling>& friction,
                                            const SolveOptions& options);

/// `sweeps` plain Gauss–Seidel sweeps on the LCP (bounds [0, ∞)) from z with w = M z + q kept by
/// column updates, and nothing else: no checks, no residual, no history. `inverse_diagonal` is
/// 1 / M_ii (M_ii > 0, checked by the caller). For a caller that runs its own tests between
/// batches of sweeps (`auto`'s route on singular M); w drifts by round-off and should be
/// recomputed now and then.
void gauss_seidel_sweeps(const Eigen::MatrixXd& M, const Eigen::VectorXd& inverse_diagonal, Eigen::VectorXd& z,
                         Eigen::VectorXd& w, int sweeps);

}  // namespace detail
}  // namespace perp
