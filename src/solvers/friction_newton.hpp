#pragma once
// Private kernel of the frictional contact methods (not installed): the global semismooth Newton
// method on the Alart–Curnier function ("newton-ac").

#include <Eigen/Dense>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// Semismooth Newton on the Alart–Curnier function of the frictional contact problem,
/// started at r0 (sized n; the caller has validated problem and options).
///
/// Per contact i, with u = W r + q, x_N = r_N − ρ_N u_N and s = μ_i max(0, x_N):
///   Φ_N = r_N − max(0, x_N),   Φ_T = r_T − P_{D(s)}(r_T − ρ_T u_T)
/// (D(s) the disk of radius s, in 2D the interval [−s, s]); Φ = 0 exactly at a solution of the
/// Coulomb law. ρ_N = 1/W_NN,i and ρ_T = 1/mean(W_TT,i) from the diagonal of W (where a diagonal
/// entry is not positive, 1/max_j W_jj, or 1 when no diagonal entry is positive). Each step solves
/// H d = −Φ with H = A + B W ∈ ∂_B Φ (A, B block-diagonal, d×d a contact, H on the pattern of W
/// closed under the contacts' row blocks, so memory is O(d·nnz(W))) by Eigen's SparseLU, the
/// pattern analysed once; when the factorization fails or its solution is not finite, H + εI is
/// factorized instead (ε from 1e-10 to 1e-2 times max|diag H|, ×100 each try); the step length
/// comes from Armijo backtracking on ½‖Φ‖² with the reference value of the last
/// `options.newton.nonmonotone_memory` + 1 iterates (`armijo`, `backtrack`, `max_backtracks` as for
/// the LCP Newton family; `line_search = false` takes t = 1). When no Newton step is accepted, a
/// step along −Hᵀ Φ is tried; when that fails too the iteration ends `no-solution-found`.
///
/// Result: z = r (the iterate with the smallest relative error seen, always finite), w = u =
/// W r + q recomputed from it, residual = `friction_contact_residuals(problem, r).relative_error`,
/// `Solved` only when that is <= options.tolerance; history = the relative error after each Newton
/// step; iterations = Newton steps (limit `options.iteration_limit(200)`); method "newton-ac".
[[nodiscard]] Result solve_newton_ac(const FrictionContact& problem, const SolveOptions& options,
                                     const Eigen::VectorXd& r0);

}  // namespace perp::detail
