#pragma once
// The small problems of the lean route (solve.cpp, issue 19; private, not installed): up to
// kSmallLcp the Lemke tableau (lemke.cpp), the re-solve on its final basis and auto's principal
// pivoting kernel (lemke_small.cpp) live on the stack.

#include <Eigen/Core>

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

// The small-problem route's one size. Up to it: solve.cpp's lean route takes lemke and auto
// (solve_small), auto first tries the triangular sweep and block principal pivoting on the stack
// before Lemke (bench/HISTORY.md, "The fixed cost of small solves"), and Lemke's tableau lives on the
// stack (2.4 KB of values, 0.9 KB of indices), so a small solve allocates nothing but its result
// (issue 19: the fixed cost of small solves).
inline constexpr Eigen::Index kSmallLcp = 16;

// Solves the k×k system a x = b in place (a row-major, k <= kSmallLcp; x holds b on entry) by
// Gaussian elimination with partial pivoting in plain loops (Eigen's LU costs more in set-up than in
// arithmetic at this size). False when a pivot is exactly zero or x is not finite.
bool solve_small_system(double* a, double* x, Eigen::Index k);

// Re-solve M_αα z_α = −q_α on the final complementary basis, α = {z_i > 0}; keep it when no
// worse. Up to kSmallLcp the system, its LU and the point kept for comparison live on the
// stack; the candidate is recomputed in the result's own z and w (detail::recompute_point: the
// natural residual, which is what detail::polish_on_active_set compares above that size; the
// relative one is measured once, on the point kept).
// Called on a result with z sized n <= kSmallLcp, w and the natural residual recomputed from z.
void refine_lemke_small(const Lcp& problem, Result& result);

// relative_residual(problem, z, w) (core/residual.cpp) with z and w sized n, equal to it bit for bit
// (the same long double scales and quotients; tests/solvers/auto_lcp_test.cpp compares the two): one
// pass over q and two over z and w, without its size checks, bounds or calls (0.24k of the 2.1k
// instructions of a small solve at n = 2: bench/HISTORY.md, issue 19). q = 0 calls relative_residual.
[[nodiscard]] double relative_residual_small(const Lcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w);

// At most this many flips per unknown before the kernel gives up: a positive definite M needed 1–3
// solves on random problems of n <= 16, Murty's example lcp_exp_murty 5 flips at n = 6; a general
// M that fails costs these solves before Lemke.
inline constexpr int kAutoDirectFlipsPerUnknown = 1;

// auto's first try at n <= kSmallLcp: where M is triangular with a positive diagonal (a
// P-matrix: one solution), one projected Gauss–Seidel sweep from z = 0 (forward on a lower
// triangular M, backward on an upper one) is exact (substitution, each z_i clipped at 0). Checks the
// triangles first (the first nonzero entry on the wrong side ends each test: a test or two on most
// matrices); `Solved` only when the relative residual of the returned z (w = M z + q from it) meets
// options.tolerance. True: `result` holds it, method = Method::Pgs, iterations = 1, history its
// natural residual, message `solved_message`, the trace pgs.cpp's "pgs" Sweep events (iteration 0
// and 1). False: `result` is to be discarded. Requires 1 <= n <= kSmallLcp and validated data.
// lcp_trivial, lcp_trivial_block (diagonal), lcp_exp_murty and lcp_exp_murty2 (Murty's examples,
// upper triangular as read) are such M.
[[nodiscard]] bool triangular_sweep_small(const Lcp& problem, const SolveOptions& options, const char* solved_message,
                                          Result& result);

// Up to this size auto's second try (after the triangular sweep) examines the complementary bases
// one by one: 2^n of them, each at most a 2×2 solve, cost less than setting up a pivoting method
// (bench/HISTORY.md, "Two unknowns: the bases one by one").
inline constexpr Eigen::Index kAutoEnumerateSize = 2;

// enum's search (enumeration.cpp) on the stack for n <= kAutoEnumerateSize: the active sets α in its
// order (by size, then by index: ∅, {0}, {1}, {0, 1}), each the point z_α = −M_αα⁻¹ q_α (partial
// pivoting at 2×2; a zero pivot skips the set), z = 0 elsewhere; a point with some z_i below −1e-12 of
// its largest entry, or some w_i = (M z + q)_i below −tolerance·max|q| outside α, is passed over.
// The first other point, z clipped at 0 with w and both residuals computed from it, that meets
// options.tolerance answers: true, `result` holds it, method = Method::Enum, iterations = the sets
// examined, history empty (enum records none), message `solved_message`. None (a problem without a
// solution, or one whose solutions all have a singular M_αα) returns false: `result` is then to be
// discarded, and the caller goes on (block pivoting, Lemke). Requires 1 <= n <= kAutoEnumerateSize,
// validated data and some q_i < 0.
[[nodiscard]] bool enumerate_small(const Lcp& problem, const SolveOptions& options, const char* solved_message,
                                   Result& result);

// Block principal pivoting (Júdice–Pires; Cottle–Pang–Stone §4.2 for Murty's rule) from
// α = {i : q_i < 0}, with M_αα z_α = −q_α solved on the stack: the indices on the wrong side
// (z_i < 0 for i ∈ α, w_i < 0 for i ∉ α, beyond round-off: 1e-12 of the terms' scale) change sides
// by `solve_block_pivoting`'s exchange rule (detail::BlockExchange, block_pivoting.hpp: all of them
// while that lowers their count, or for kBlockStrikes flips that do not; then the least one alone,
// Murty's least-index rule, finite on P-matrices, until the count falls below its best). It is that
// method's algorithm from the same start, less its fallbacks, as auto's fast first try: it gives up
// where the method would go on (a singular M_αα, which the method meets by restarting from α = ∅ or
// by a single move; more than kAutoDirectFlipsPerUnknown·n flips against the method's
// default_block_rounds(n)), and it ignores options.initial_guess.
// The point is z_α clipped at 0; w = M z + q and both residuals are computed from it and `Solved`
// is set only when the relative residual meets options.tolerance. Any other ending (a singular M_αα, more
// than kAutoDirectFlipsPerUnknown·n flips, the tolerance missed) returns false, for the caller to
// try another method; `result` (a fresh one) may then hold a partial point and is to be discarded.
// True: `result` holds the solution, method = Method::BlockPivoting, iterations = the flips, history
// the natural residual of each point, message `solved_message`. Trace events "block-pivoting" (PrincipalPivot,
// one per point: iteration 0 lists the starting set as entered, each later one the indices that
// moved, `active_size` and `residual`).
// Requires 1 <= n <= kSmallLcp and validated data.
[[nodiscard]] bool principal_pivot_small(const Lcp& problem, const SolveOptions& options, const char* solved_message,
                                         Result& result);

// Lemke's path on a full tableau on the stack, auto's third try at n <= kSmallLcp: the same
// rules as lemke.cpp's kernel (covering vector e; z0 enters at row lexmin (q_i, e_iᵀ); the
// complement of the leaving variable enters next; z0 leaves as soon as it attains the minimum
// ratio, else the lexicographic minimum of (x_p, B⁻¹_p·)/t_p; pivot entries at or below
// options.lemke.pivot_tolerance times the column's largest count as zero), without that kernel's
// revised form, data scaling, refinement on the final basis, trace or messages: each pivot updates
// the n × (2n + 2) tableau [B⁻¹, B⁻¹(−M), B⁻¹(−e), B⁻¹q] in place. It answers only where the path
// ends with z0 leaving and the point z (clipped at 0; w = M z + q and both residuals computed from
// it) meets options.tolerance: then true, `result` holds it, method = Method::Lemke, iterations =
// the pivots, history the natural residual after each pivot (lemke.cpp's), message
// `solved_message`. Everything else (a ray, the pivot limit options.iteration_limit(default_pivots(n)),
// a non-finite tableau, the tolerance missed, a covering vector, refinement turned off, a trace)
// returns false, and the
// caller runs solve_lemke, which reports such endings; `result` is then to be discarded.
// Requires 1 <= n <= kSmallLcp, validated data and some q_i < 0.
// Kept beside solve_lemke for speed alone: without it auto's small solves that end in Lemke take
// 1.0–2.9× as long, median 1.7 (bench/README.md, "Why auto keeps its own small Lemke").
[[nodiscard]] bool lemke_small(const Lcp& problem, const SolveOptions& options, const char* solved_message,
                               Result& result);

}  // namespace perp::detail
