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
/// entry is not positive, 1/max_j W_jj, or 1 when no diagonal entry is positive).
///
/// Each step solves (H + εB) d = −Φ, where H = A + B W is an element of the B-subdifferential of Φ
/// (A, B block-diagonal, d×d a contact; H lives on the pattern of W closed under the contacts' row
/// blocks, so memory is O(d·nnz(W))) and εB is the Jacobian's part from W + ε·max_j W_jj·I, with
/// ε = clamp(relative error, 1e-12, 1e-2) (×100, up to 6 tries, while the factorization fails). ε
/// vanishes with the error, so the tail stays quadratic, and in practice it keeps the system solvable where
/// W is singular. The system is solved by SuiteSparse's KLU where H has at most 4 000 rows and W
/// at most 30 entries a row on average, else by Eigen's SparseLU (COLAMD ordering); the pattern
/// analysed once (friction_newton.cpp, `NewtonLu`, with the measurements). The step length comes from Armijo backtracking on ψ = ½‖Φ‖² against the largest ψ of the
/// last `options.newton.nonmonotone_memory` + 1 iterates (`armijo`, `backtrack`, `max_backtracks`
/// as for the LCP Newton family; `line_search = false` takes t = 1). When no Newton step is
/// accepted, a step along −HᵀΦ is tried; when that fails too the iteration ends
/// `no-solution-found`. When the smallest relative error has not fallen by 0.1 % in 6 steps (Newton
/// cycling between pieces of Φ), the iteration restarts from the best point after 50 block
/// Gauss–Seidel sweeps (per contact, the projection r_i ← P_K(r_i − û_i/‖W_ii‖_F) iterated); after
/// 60 steps without that progress it ends `no-solution-found`.
///
/// Result: z = r (the iterate with the smallest relative error seen, always finite), w = u =
/// W r + q recomputed from it, residual = `friction_contact_residuals(problem, r).relative_error`,
/// `Solved` only when that is <= options.tolerance; history = the relative error after each Newton
/// step; iterations = Newton steps (limit `options.iteration_limit(200)`); method "newton-ac".
[[nodiscard]] Result solve_newton_ac(const FrictionContact& problem, const SolveOptions& options,
                                     const Eigen::VectorXd& r0);

}  // namespace perp::detail
