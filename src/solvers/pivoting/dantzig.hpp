#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
/// Cottle–Dantzig principal pivoting for the box LCP (Cottle–Pang–Stone §4.2; Baraff 1994,
/// "Fast contact force computation for nonpenetrating rigid bodies"), the method of ODE's and
/// Bullet's dSolveLCP.
///
/// The indices are driven into complementarity one at a time, free components (both bounds
/// infinite) first. Each processed index is clamped (in C: w_i = 0, lower_i <= z_i <= upper_i) or
/// at a bound (z_i = lower_i with w_i >= 0, or z_i = upper_i with w_i <= 0). Driving index d moves
/// z_d in the direction that brings w_d towards 0 while z_C follows so that w_C stays 0:
///   Δz_d = s,  Δz_C = −s M_CC⁻¹ M_Cd,  Δw_d = s (M_dd − M_dC M_CC⁻¹ M_Cd),
/// and the step is the first event of the ratio test: w_d reaches 0 (d joins C), z_d reaches its
/// bound, a clamped z_i reaches a bound (i leaves C) or a bounded w_i of the opposite sign reaches
/// 0 (i joins C). On a P-matrix every pivot s·Δw_d is positive and the method ends in finitely many
/// steps at the unique solution.
///
/// Cost: for symmetric M, M_CC is kept as a Cholesky factor that gains a row in O(|C|²) and loses
/// one by Givens rotations in O(|C|²); one step costs O(n·|C|). For a non-symmetric M, M_CC is
/// LU-factorized afresh whenever C changes, O(|C|³) per change: fine up to a few hundred
/// unknowns, slow beyond.
///
/// Friction coupling (`BoxLcp::friction`) is the outer loop of every fixed-box method,
/// `detail::friction_passes` (box_passes.hpp): the coupled bounds are fixed to ±μ|z_normal| at the
/// last solution (0 at the start), the fixed-box problem is solved (after the first pass
/// warm-started from the last clamped set, its factor and the bounded set, as far as they stay
/// complementary under the new bounds; the coupled components are driven last, their bounds
/// re-read from the normals on reaching the first of them, so pass 1 is ODE's findex rule), and the
/// loop ends when the solution meets the tolerance with its own bounds (the relative residual, as
/// the pipeline judges it) or after `SolveOptions::max_friction_passes` solves.

#include <vector>

#include "entry/detail.hpp"
#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// `solve` has validated the problem and options. `Result::residual` is the box
/// natural residual of the returned z. Statuses: solved; not-applicable when a pivot is not
/// positive (M is not a P-matrix on the clamped set: the message names the driving index, the set
/// and the pivot) or when z_d could move without bound; max-iterations when the pivot limit
/// (`SolveOptions::max_iterations`, per fixed-box solve, default max(1000, 50·n)) or the friction
/// pass limit is reached; numerical-failure when the end point misses the tolerance.
[[nodiscard]] Result solve_dantzig(const BoxLcp& problem, const SolveOptions& options);

/// The same, the indices driven in `order` instead of index order. Which index is driven when
/// changes the pivots (and, where the solution is not unique, which one is returned), not what is
/// proved: `auto` on a symmetric LCP drives first the indices that a few PGS sweeps left positive,
/// the clamped set's likely members, largest first (auto_lcp.cpp; on bench/'s singular contact
/// family 35–40 % fewer instructions than index order at n = 100–200). Used where there is no
/// friction coupling, every lower bound is finite (an LCP's box form: lower 0) and `order` is a
/// permutation of 0..n−1; otherwise the order of the overload above.
[[nodiscard]] Result solve_dantzig(const BoxLcp& problem, const SolveOptions& options,
                                   const std::vector<Eigen::Index>& order);

/// An LCP on its box [0, +∞) without the box form's copy of M, with the matrix scan the caller
/// already made (`scan.symmetric` chooses the Cholesky path): the same pivots, point, status and
/// message as `solve_dantzig(to_box_lcp(problem), options, order)`. `order` as above (empty, or
/// not a permutation: index order).
[[nodiscard]] Result solve_dantzig(const Lcp& problem, const SolveOptions& options,
                                   const std::vector<Eigen::Index>& order, const detail::MatrixScan& scan);

}  // namespace perp
