#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// The Newton family ([chapter] §1.6): semismooth Newton on an NCP-function reformulation
/// Φ(z) = 0 of the LCP, NCP or MCP, globalized by a line search on the merit Ψ = ½‖Φ‖².
///
/// Each component i of Φ depends on the bounds of z_i (φ is the chosen NCP function):
///   [l, +∞): φ(z_i − l_i, F_i)        (−∞, u]: φ(u_i − z_i, −F_i)       free: F_i
///   [l, u] : φ(z_i − l_i, φ(u_i − z_i, −F_i))   (the bounded extension; l = u fixes z_i = l)
/// so its Jacobian is H = D_a + D_b J, with J = ∂F/∂z and diagonal D_a, D_b. Where a pair
/// (a, b) is at φ's kink (0, 0), the element of the generalized Jacobian is the limit along the
/// direction that moves every such z_i by one (De Luca–Facchinei–Kanzow 1996), so that H stays
/// an element of the B-subdifferential.
///
/// A step solves H d = −Φ: when J is symmetric, the rows where D_b ≈ 0 are eliminated and the
/// remaining system (J_RR + D_a/D_b) is symmetric and, for a monotone problem, positive definite:
/// Cholesky; otherwise, or when Cholesky fails, LU. When the system is singular (its solution is
/// not finite or does not satisfy it) or d is not a descent direction of Ψ, the step is along
/// −∇Ψ = −Hᵀ Φ. Armijo backtracking (monotone or non-monotone) chooses the step length.
///
/// The stopping test is the problem's natural residual ‖z − mid(l, u, z − F)‖∞ <= tolerance
/// (for the LCP/NCP, ‖min(z, F)‖∞), recorded in `Result::history` after each step.

#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Which reformulation the Newton iteration solves.
enum class Reformulation {
  FischerBurmeister,  ///< newton-fb: φ_FB(a, b) = √(a² + b²) − a − b; merit ½‖Φ_FB‖²
  MinMap,             ///< newton-min: Φ = z − mid(l, u, z − F); line search on the FB merit
  PenalizedFb,        ///< penalized-fb: φ_λ = λ φ_FB − (1 − λ) a₊ b₊ (`NewtonOptions::penalty`)
  Smoothing,          ///< smoothing: φ_μ = √(a² + b² + 2μ) − a − b with μ → 0, then μ = 0
};

/// Semismooth Newton on an LCP (F = M z + q, J = M). Assumes `problem` and `options` are valid
/// (`solve` checks them). Statuses: solved; max-iterations; no-solution-found when the line
/// search stalls at a point that is not a solution (a stationary point of the merit function,
/// which is all that is possible when the problem has no solution).
[[nodiscard]] Result solve_newton(const Lcp& problem, Reformulation reformulation, const SolveOptions& options);

/// The same on a box LCP with fixed bounds (F = M z + q, J = M, bounds `lower`/`upper`), from
/// `initial_guess` (default 0) projected onto the box. Friction coupling is the caller's outer loop
/// (`solve(BoxLcp)`): `problem.friction` must be empty here. Once two iterates agree on the sets
/// (at lower: z_i − w_i <= l_i, at upper: z_i − w_i >= u_i, the rest clamped), the clamped block is
/// solved exactly and the point kept when it meets the tolerance. After nonmonotone_memory + 1
/// steps without a new best merit, the line search's reference falls back to the current merit
/// (a watchdog against full steps bouncing between two points). `Result::residual` is the box
/// natural residual.
[[nodiscard]] Result solve_newton(const BoxLcp& problem, Reformulation reformulation, const SolveOptions& options);

/// The same on an MCP (an NCP goes through `to_mcp`). `Result::w` is F(z). Throws
/// `InvalidProblem` when F or J returns the wrong size, when F or J is not finite at the start
/// point, or J is not finite at an accepted iterate; a trial point of the line search where F is
/// not finite is rejected (the step is shortened) instead.
[[nodiscard]] Result solve_newton(const Mcp& problem, Reformulation reformulation, const SolveOptions& options);

}  // namespace perp
