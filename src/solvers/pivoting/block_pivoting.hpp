#pragma once
// A kernel of the solvers layer (private, not installed): call it through `solve`, which validates
// the problem and options, handles the trivial case and recomputes the result from z.
//
// Block principal pivoting (Júdice & Pires, "A block principal pivoting algorithm for large-scale
// strictly monotone linear complementarity problems", Comput. Oper. Res. 21 (1994); Kostreva 1978
// for the block exchange; Murty 1974 and Cottle–Pang–Stone §4.2 for the least-index rule): from a
// set F, solve M_FF z_F = −q_F with z = 0 off F and w = M z + q, then move the indices on the wrong
// side (z_i < 0 in F, w_i < 0 off F) across, all of them at once while that lowers their count,
// else the least one alone. Finite on P-matrices; elsewhere it may cycle or meet a singular block.

#include <Eigen/Core>

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp {
namespace detail {

/// Júdice–Pires' p̄: block exchanges in a row that do not lower the count of wrong indices before
/// the single-index backup takes over.
inline constexpr int kBlockStrikes = 3;

/// The exchange rule of block principal pivoting, shared by `solve_block_pivoting` and auto's
/// stack-resident kernel at n <= 16 (`principal_pivot_small`, lemke_small.cpp), so the two take
/// the same decisions. Header-only and constexpr: the small kernel keeps its arrays on the stack and
/// pays no call for it.
class BlockExchange {
 public:
  /// For a problem of n unknowns: no point has more than n wrong indices, so the first one counts
  /// as progress.
  explicit constexpr BlockExchange(Eigen::Index n) : fewest_(n + 1) {}

  /// How many of a point's `wrong` > 0 wrong indices (in ascending order) cross this round: every
  /// one while their count falls below its fewest so far, or for kBlockStrikes rounds in a row that
  /// it does not (Júdice–Pires); then 1, the least (Murty's rule, finite on P-matrices), until the
  /// count falls below its best again.
  constexpr Eigen::Index moved(Eigen::Index wrong) {
    if (wrong < fewest_) {
      fewest_ = wrong;
      strikes_ = 0;
    } else {
      ++strikes_;
    }
    return single() ? 1 : wrong;
  }

  /// Whether the rule is in its single-index stretch: the next `moved` returns 1 unless the count
  /// falls below its best.
  [[nodiscard]] constexpr bool single() const { return strikes_ > kBlockStrikes; }

  /// From now on single exchanges until the count falls below its best: for a block exchange whose
  /// principal block turned out singular (block_pivoting.cpp undoes it and moves the least index).
  constexpr void single_from_now() { strikes_ = kBlockStrikes + 1; }

 private:
  Eigen::Index fewest_;
  int strikes_ = 0;  // rounds in a row that did not lower the count
};

}  // namespace detail

/// `Method::BlockPivoting` on an Lcp of any size. F starts as {i : q_i < 0}, or as the support
/// {i : z_i > 0} of `options.initial_guess` when one is given. M_FF z_F = −q_F is solved by
/// Cholesky where M is symmetric (then LDLᵀ where that fails, whose exactly zero pivots count as
/// zero: such a singular block with −q_F in its range yields a solution of its system), else by LU with
/// partial pivoting; a block whose reciprocal condition estimate is below about 5ε, or whose
/// solution is not finite or does not satisfy the system to round-off, counts as singular. A
/// singular starting block restarts from F = ∅ (Murty's start, w = q); a singular block after a
/// block exchange undoes it and moves the least index alone; a singular block after a single move
/// ends the run `NotApplicable`, naming its size and the index. A set repeated within a stretch of
/// single moves ends it `NotApplicable` (Murty's rule does not cycle on a P-matrix); more than
/// `options.iteration_limit(default_block_rounds(n))` rounds end it `MaxIterations`. `Solved` only
/// when the relative residual of the returned z (z_F clipped at 0) meets the tolerance.
/// iterations = rounds, history the natural residual of each point, trace events "block-pivoting"
/// (`TraceKind::PrincipalPivot`, one per point). The problem and options are assumed validated.
[[nodiscard]] Result solve_block_pivoting(const Lcp& problem, const SolveOptions& options);

}  // namespace perp
