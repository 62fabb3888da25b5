#pragma once
// `auto` on an LCP (private; called by solve.cpp's dispatch on the unit-scaled problem).

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// The order that the matrix report implies (solve.cpp's classified chain: classify, recommend,
/// first_that_solves), which `solve_auto_lcp` runs where its measured route does not apply.
using ClassifiedAuto = Result (*)(const Lcp& problem, const SolveOptions& options);

/// Up to this size `auto` starts with Lemke, whose few pivots cost less than any probe.
inline constexpr Eigen::Index kAutoPivotFirstSize = 40;
/// A PGS rate (residual ratio per sweep, second half of a chunk) above this counts as slow.
inline constexpr double kAutoSlowRate = 0.85;
/// At most this many PGS sweeps before newton-min takes over (a good rate without a vertex).
inline constexpr int kAutoSweepBudget = 400;

/// `auto` for the LCP, steered by measured cost rather than by proven classes alone:
///   - n <= kAutoPivotFirstSize: Lemke; where it does not solve, the classified chain.
///   - M symmetric (detail::kSymmetry) with a positive diagonal: projected Gauss–Seidel in chunks
///     of 8 sweeps, each chunk's residual ratio per sweep measured. Whenever the active
///     set α = {z_i > w_i} is the same at the end of two chunks, the vertex z_α + δ with
///     M_αα δ = −w_α (Cholesky, or the regularized one where M_αα is singular) is tried: exact to
///     round-off where α is right. While the rate predicts that PGS reaches the tolerance in fewer
///     sweeps than n (about the cost of a pivoting solve), the sweeps go on; a slower rate switches
///     to Cottle–Dantzig principal pivoting (then Lemke), and a spent budget with a good rate to
///     newton-min warm-started from the PGS point.
///   - otherwise: the classified chain.
/// The message names every switch and its reason; `Result::method` the method that produced z.
/// Statuses are judged on the relative residual of the returned z (solved only at the tolerance).
[[nodiscard]] Result solve_auto_lcp(const Lcp& problem, const SolveOptions& options, ClassifiedAuto classified);

}  // namespace perp::detail
