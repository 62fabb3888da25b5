#pragma once
/// \file
/// Options for `solve`. Every field has a documented default; `validate` checks them all
/// and names the field that is wrong.

#include <Eigen/Dense>
#include <optional>

namespace perp {

/// Options that only Lemke's method reads.
struct LemkeOptions {
  /// Covering vector d > 0 of the augmented problem w = M z + q + d z0 (Lemke 1965).
  /// Default: all ones. Must be sized n, finite and strictly positive.
  std::optional<Eigen::VectorXd> covering_vector;
  /// Entries of the pivot column with magnitude <= pivot_tolerance are treated as zero in the
  /// ratio test (default 1e-12, relative to ‖pivot column‖∞ when that exceeds 1).
  double pivot_tolerance = 1e-12;
  /// After the pivots end, re-solve M_αα z_α = −q_α on the final basis with LU and keep the
  /// result when its residual is no worse (removes round-off accumulated by the updates).
  bool refine = true;
};

struct SolveOptions {
  /// The problem counts as solved when the natural residual ‖min(z, w)‖∞ <= tolerance
  /// (absolute, in the units of z and w). Default 1e-8; must be finite and > 0.
  double tolerance = 1e-8;
  /// Iteration limit: pivots (lemke, murty) or sweeps (pgs, psor). 0 = the method's default:
  /// lemke and murty max(1000, 50·n) pivots, pgs/psor 10000 sweeps. Must be >= 0.
  int max_iterations = 0;
  /// Warm start z for the iterative methods (pgs, psor). Sized n, finite. Pivoting methods
  /// (enum, lemke, murty) start from their own basis and ignore it.
  std::optional<Eigen::VectorXd> initial_guess;
  /// Relaxation ω ∈ (0, 2) for psor (default 1.2 when unset). pgs is psor with ω = 1 and
  /// accepts only an unset value or exactly 1.
  std::optional<double> relaxation;
  /// enum: list every distinct solution in `Result::solutions` instead of stopping at the first.
  bool all_solutions = false;
  /// Record the per-iteration natural residual in `Result::history` (default on).
  bool record_history = true;
  /// Options that only Lemke reads.
  LemkeOptions lemke;

  /// Throws `InvalidProblem` naming the first bad field; n is the problem size, used to check
  /// `initial_guess` and `lemke.covering_vector`.
  void validate(Eigen::Index n) const;

  /// `max_iterations`, or `fallback` when it is 0.
  [[nodiscard]] int iteration_limit(int fallback) const { return max_iterations > 0 ? max_iterations : fallback; }
};

}  // namespace perp
