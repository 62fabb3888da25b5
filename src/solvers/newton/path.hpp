#pragma once
// A kernel of the solvers layer (private, not installed since issue 14): call it through `solve`.
// Its entries still validate the problem and the options themselves (a second pass through `solve`,
// small beside one path's pivots).
//
/// `path`: a PATH-class method for the MCP (and so for the NCP, the LCP and the box LCP with fixed
/// bounds), after Ralph (1994) and Dirkse–Ferris (1995), with Billups' proximal perturbation.
///
/// The iterates live in the space of the normal map (Robinson): for x ∈ ℝⁿ, z = π(x) is its
/// projection onto the box [l, u] and
///   F_B(x) = F(π(x)) + x − π(x),
/// whose zeros x give the solutions z = π(x) of the MCP. A major iteration at x_k (z_k = π(x_k))
/// linearizes F at z_k, M = J(z_k) + δI, and follows the piecewise-linear path of the affine normal
/// map A_k by complementary pivoting:
///   A_k(x(t)) = (1 − t) F_B(x_k),  t from 0 (x = x_k) to 1 (the Newton point, A_k(x) = 0),
/// a Lemke-type pivoting whose covering vector is the current residual F_B(x_k) and whose first
/// basis is the active set of x_k (after an accepted full step, the last basis of the previous
/// path). The path search then takes the point x(τ) of that path with the largest τ ∈ {1, β, β², …}
/// that satisfies ‖F_B(x(τ))‖ <= (1 − σ τ) R, R the largest merit of the last
/// `nonmonotone_memory` + 1 iterates (non-monotone), with a watchdog: after that many steps without
/// a new best merit, the iteration returns to the best point and searches monotonically.
///
/// The start (crash): of x = z₀ − F(z₀) (the projected step's active set) and the x closest to z₀
/// with π(x) = z₀, the one with the smaller merit.
///
/// When the linearization is singular or its path fails (a ray, or t turning back to 0), the path is
/// recomputed with δ = 10⁻⁶·max(1, ‖J‖∞), then 10 times larger, up to 10⁶·max(1, ‖J‖∞); the next
/// iteration starts from δ/10. When no δ gives a step, the point is a stationary point of the merit:
/// the method restarts with proximal-point steps (Billups–Ferris): it solves the MCP of
/// G(z) = F(z) + λ(z − z̄) from the best point z̄ (λ > −λ_min of J's symmetric part, so the
/// subproblem is strongly monotone near z̄), moves z̄ to that solution, and repeats until the merit of
/// F falls below the stuck value, then resumes on F itself.
///
/// Options: `SolveOptions::newton`'s armijo (σ), backtrack (β), max_backtracks and nonmonotone_memory;
/// `max_iterations` bounds the major iterations, proximal subproblems' iterations included (default
/// 200). Each path is limited to max(1000, 20 n) pivots. Dense: each pivot costs O(n²).
///
/// An `Mcp` with `J_sparse` takes the sparse route: the Newton point of each linearization is found
/// by block pivoting (primal-dual active set) with sparse LDLᵀ/LU solves of the free block, at most
/// 60 solves, and the search runs along the segment from x_k to it in normal-map space; the rest is
/// as above (docs/solvers.md, "Sparse nonlinear problems").

#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

// Each entry validates the problem and the options first, as `solve` does (`InvalidProblem` naming
// the field): a direct call is checked as `solve(problem, Method::Path, options)` is.

/// `path` on an MCP (an NCP through `to_mcp`), from `initial_guess` (default 0) projected onto the
/// box. `Result::w` is F(z), `iterations` the major iterations. Statuses: solved; max-iterations;
/// no-solution-found (the message gives the merit and what was tried). Throws `InvalidProblem` when
/// F or J returns the wrong size or is not finite at the start point.
[[nodiscard]] Result solve_path(const Mcp& problem, const SolveOptions& options);

/// `path` on an LCP (F = M z + q, J = M: the first path is Lemke's method with the residual as
/// covering vector; singular M is handled by the proximal perturbation). The end point is polished
/// on its active set.
[[nodiscard]] Result solve_path(const Lcp& problem, const SolveOptions& options);

/// `path` on a box LCP with its `lower`/`upper` as fixed bounds (`problem.friction` is not read:
/// `solve(BoxLcp)` runs the friction passes around it, as for the Newton family). `Result::residual`
/// is the box natural residual.
[[nodiscard]] Result solve_path(const BoxLcp& problem, const SolveOptions& options);

}  // namespace perp
