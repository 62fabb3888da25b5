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
/// auto's message when Lemke, its first try at n <= kAutoPivotFirstSize, solves: a fixed text
/// (lemke.hpp's kLemkeSolved after the route), so that the success path formats nothing.
inline constexpr const char* kAutoLemkeSolved = "auto (n <= 40: lemke first; lemke: solved): z0 left the basis";
/// Up to lemke_small.hpp's kSmallLcp (16) `auto` first runs block principal pivoting on the
/// stack (detail::principal_pivot_small), then Lemke: the messages when the one or the other solves.
/// The first names auto, the route (bpp: block principal pivoting) and its status ("ok") in 14
/// characters, inside std::string's small buffer: no allocation, no copy to the heap (a longer text
/// cost 13 % of the instructions of a solve at n = 2; bench/HISTORY.md, issue 19).
inline constexpr const char* kAutoDirectSolved = "auto (bpp): ok";
/// Before it, where M is triangular with a positive diagonal, one pgs sweep, exact there
/// (detail::triangular_sweep_small): its message when it solves, as short.
inline constexpr const char* kAutoSweepSolved = "auto (pgs): ok";
/// Then, at n <= lemke_small.hpp's kAutoEnumerateSize (2), the complementary bases one by one
/// (detail::enumerate_small, enum's order): its message when one solves, as short.
inline constexpr const char* kAutoEnumerateSolved = "auto (enum): ok";
/// Then Lemke's path on a full tableau on the stack (detail::lemke_small), where M_αα was singular
/// or the flips ran out (lcp_CPS_1, lcp_CPS_4, lcp_Pang_isolated_sol: none is a P-matrix). Its
/// message names the route alone, in 12 characters (the small buffer holds 15).
inline constexpr const char* kAutoStackLemkeSolved = "auto (lemke)";
/// Where that gives up too, lemke.cpp's kernel, which reports the path's ending.
inline constexpr const char* kAutoDirectThenLemkeSolved =
    "auto (n <= 16: block principal pivoting, then lemke; block pivoting: not solved; lemke: solved): z0 left the "
    "basis";
/// A PGS rate (residual ratio per sweep, second half of a chunk) above this counts as slow.
inline constexpr double kAutoSlowRate = 0.85;
/// At most this many PGS sweeps before newton-min takes over (a good rate without a vertex).
inline constexpr int kAutoSweepBudget = 400;

/// Above kAutoSettleMinSize and up to kAutoSettleMaxSize, a symmetric M on which PGS crawls or
/// whose starting block is singular goes to PGS and projected Newton before any principal pivoting
/// (step 2' below); elsewhere straight to pivoting. The route needs 50–140 sweeps on bench/'s
/// contact family, each costing n², against a pivoting solve's ~n pivots: side by side with
/// dantzig (bench/HISTORY.md, the last section) it took 1.7× dantzig's time at n = 100, 1.1× at
/// 200 and 0.7–0.9× at 500 in compare_auto, 0.4–1.2× at 250–450 and 1.0–1.4× at 600 in a loop.
inline constexpr Eigen::Index kAutoSettleMinSize = 200;
inline constexpr Eigen::Index kAutoSettleMaxSize = 500;
/// At most this many PGS sweeps, and this many runs of projected Newton steps, in step 2' before
/// principal pivoting takes over (bench/'s contact family: solved in the first or second run).
inline constexpr int kAutoSettleSweeps = 160;
inline constexpr int kAutoSettleTries = 2;
/// Where auto goes to principal pivoting without a PGS point (a starting block without a Cholesky
/// factor, outside step 2'), this many PGS sweeps from the start first: dantzig drives first the
/// indices they leave positive (bench/'s contact family: 4 sweeps cut as many pivots as 8).
inline constexpr int kAutoOrderSweeps = 4;

/// auto's symmetric route starts with block principal pivoting from z = 0 only up to this size;
/// above it, without an initial guess, PGS comes first and block pivoting starts from its point
/// (auto_lcp.cpp, step 1). Measured on bench/'s spd and contact families, the two orders side by
/// side (bench/HISTORY.md, "PGS before block pivoting above n = 100"): the cold start is faster at
/// n = 100 on the spd family (0.062 against 0.083 ms), the two even at 105–115, PGS first faster
/// from 110–125 on and on the contact family from 110 on (n = 200: 0.43 against 0.52 ms on spd,
/// 0.38 against 0.50 on contact; n = 1000: 16.9 against 19.8 and 25.7 against 36.6).
inline constexpr Eigen::Index kAutoColdPivotingSize = 100;

/// auto's first tries at 1 <= n <= kSmallLcp on validated data with some q_i < 0, in order,
/// each into `result` (a try that fails leaves it to be overwritten): one PGS sweep on a triangular
/// M, at n <= kAutoEnumerateSize the complementary bases one by one, block principal pivoting on
/// the stack, Lemke's path on a stack tableau (lemke_small.hpp). True when one answers (its
/// message the fixed text above). Shared by solve_auto_lcp and solve.cpp's lean route.
[[nodiscard]] bool auto_direct_tries(const Lcp& problem, const SolveOptions& options, Result& result);

/// `auto` for the LCP, steered by measured cost rather than by proven classes alone:
///   - n <= kSmallLcp (16): on a triangular M with a positive diagonal, one PGS sweep
///     (exact there: detail::triangular_sweep_small); at n <= 2 the complementary bases one by one
///     (detail::enumerate_small); then block principal pivoting on the stack
///     from α = {q_i < 0} (detail::principal_pivot_small), then as below;
///   - n <= kAutoPivotFirstSize: Lemke; where it does not solve, the classified chain.
///   - M symmetric (detail::kSymmetry) with a positive diagonal:
///     1. where n <= kAutoColdPivotingSize or an initial guess is given: block principal pivoting
///        from the start (the vertex of α = {z_i > w_i}: z_α + δ with
///        M_αα δ = −w_α by Cholesky; from a PGS point (step 2) also by the regularized one where
///        M_αα is singular; then every
///        infeasible index moves across), for as long as its infeasible count keeps falling by
///        a factor 0.7 per vertex (positive definite M: 3–6 vertices to the exact solution). From
///        z = 0 (no initial guess), a block M_αα without a plain Cholesky factor (M not positive
///        definite) skips step 2 for principal pivoting (dantzig, then Lemke, then the classified
///        chain). Above kAutoColdPivotingSize from z = 0, step 2 first;
///     2. projected Gauss–Seidel in chunks of 8 sweeps, the rate measured over each chunk's second
///        half; block pivoting again (regularized where M_αα is singular) once the active set is the
///        same at the end of two chunks.
///        While the rate predicts fewer than n more sweeps to the tolerance (about a pivoting
///        solve), the sweeps go on; a rate above kAutoSlowRate, or more sweeps, switches to
///        step 2' (kAutoSettleMinSize < n <= kAutoSettleMaxSize) or Cottle–Dantzig principal
///        pivoting (then Lemke, then the classified chain);
///     2'. PGS in chunks again, and each time the active set is the same at the end of two chunks,
///        projected Newton steps on ½zᵀMz + qᵀz over z >= 0 (the free set's Newton step by Cholesky,
///        or its least-norm step by the regularized Cholesky where M_FF is singular; a projected
///        backtracking search): the vertex they reach is exact to round-off. After
///        kAutoSettleSweeps sweeps or kAutoSettleTries runs, principal pivoting as above;
///     3. after kAutoSweepBudget sweeps, newton-min warm-started from the PGS point.
///   - otherwise: the classified chain.
/// Dantzig on this route drives first the indices that the last PGS point leaves positive, largest
/// first (kAutoOrderSweeps sweeps from the start where there is none yet), then index order where
/// that does not solve (auto_lcp.cpp, `pivot`).
/// The message names every switch and its reason; `Result::method` the method that produced z.
/// Statuses are judged on the relative residual of the returned z (solved only at the tolerance).
[[nodiscard]] Result solve_auto_lcp(const Lcp& problem, const SolveOptions& options, ClassifiedAuto classified);

}  // namespace perp::detail
