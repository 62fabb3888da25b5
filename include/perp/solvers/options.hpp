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

/// Options of the Newton family (newton-fb, newton-min, penalized-fb, smoothing).
struct NewtonOptions {
  /// Armijo's sufficient-decrease constant σ ∈ (0, 1/2): a step t is taken when
  /// Ψ(z + t d) <= Ψ_ref + σ t ∇Ψᵀd. Default 1e-4.
  double armijo = 1e-4;
  /// Backtracking factor β ∈ (0, 1): t = 1, β, β², … Default 0.5.
  double backtrack = 0.5;
  /// Backtracking steps tried before the line search gives up (default 40, >= 0).
  int max_backtracks = 40;
  /// Non-monotone line search: Ψ_ref is the largest merit of the last `nonmonotone_memory` + 1
  /// iterates (Grippo–Lampariello–Lucidi), which lets Newton take full steps across a narrow
  /// valley that a monotone search would crawl along (on the dense SPD benchmark at n = 1000:
  /// 10 steps instead of 26). 0: monotone Armijo, Ψ_ref = Ψ(z_k). Default 3.
  int nonmonotone_memory = 3;
  /// false: take the full Newton step t = 1 every iteration, without any test (pure local
  /// Newton, for experiments; it can diverge far from a solution). Default true.
  bool line_search = true;
  /// The Newton direction d is used when ∇Ψᵀd <= −descent_rho ‖d‖^2.1 (De Luca–Facchinei–Kanzow);
  /// otherwise, or when the Newton system is singular, the step is along −∇Ψ. Default 1e-8.
  double descent_rho = 1e-8;
  /// λ ∈ (0, 1] of the penalized FB φ_λ = λ φ_FB − (1 − λ) a₊ b₊ (penalized-fb). Default 0.95.
  double penalty = 0.95;
  /// smoothing: the first μ (0 = automatic: from the start point's FB residual), and the factor
  /// in (0, 1) that shrinks μ each time the smoothed system is solved to within √μ. Defaults 0, 0.1.
  double smoothing_mu = 0;
  double smoothing_factor = 0.1;
};

/// Options of the interior-point method.
struct InteriorPointOptions {
  /// Fraction of the step to the boundary of z > 0, w > 0 that is taken, in (0, 1). Default 0.995.
  double step_fraction = 0.995;
  /// Once the iterates have separated the pairs, guess the active set {i : z_i > w_i}, solve
  /// M_αα z_α = −q_α and keep the result when it solves to the tolerance (an exact vertex instead
  /// of an interior point near it). Default on.
  bool crossover = true;
};

/// Options of the Dantzig principal pivoting method for box LCPs (solvers/dantzig.hpp).
struct DantzigOptions {
  /// A pivot (the Schur complement s = M_dd − M_dC M_CC⁻¹ M_Cd of the driving index d on the
  /// clamped set C) with s < −pivot_tolerance·max_i |M_ii| proves M is not a P-matrix there and ends
  /// the solve `NotApplicable`; |s| <= pivot_tolerance·max_i |M_ii| counts as zero curvature (z_d may
  /// only move to a bound, never join C). Default 1e-12; must be finite and in (0, 1).
  double pivot_tolerance = 1e-12;
};

struct SolveOptions {
  /// The problem counts as solved when the natural residual ‖min(z, w)‖∞ <= tolerance
  /// (absolute, in the units of z and w). Default 1e-8; must be finite and > 0.
  double tolerance = 1e-8;
  /// Iteration limit: pivots (lemke, murty; dantzig: per fixed-box solve), sweeps (pgs, psor) or Newton steps. 0 = the
  /// method's default: lemke, murty and dantzig max(1000, 50·n) pivots, pgs/psor 10000 sweeps, newton-fb, newton-min,
  /// penalized-fb and interior-point 200 steps, smoothing 1000 steps (all μ stages together).
  /// Must be >= 0.
  int max_iterations = 0;
  /// Warm start z for the iterative methods (pgs, psor, the Newton family; the interior-point
  /// method moves it inside z > 0). Sized n, finite. Pivoting methods (enum, lemke, murty,
  /// dantzig) start from their own basis and ignore it. Default: z = 0 (projected onto the bounds
  /// of an MCP or box LCP).
  std::optional<Eigen::VectorXd> initial_guess;
  /// Relaxation ω ∈ (0, 2) for psor (default 1.2 when unset). pgs is psor with ω = 1 and
  /// accepts only an unset value or exactly 1.
  std::optional<double> relaxation;
  /// enum: list every distinct solution in `Result::solutions` instead of stopping at the first.
  bool all_solutions = false;
  /// Box LCP with friction coupling, dantzig and the Newton family: the most fixed-box solves (passes
  /// of the outer loop that re-reads the bounds ±μ|z_normal| from the last solution) before
  /// `MaxIterations`. pgs/psor re-read the bounds at every update instead. Default 50, must be >= 1.
  int max_friction_passes = 50;
  /// Record the per-iteration natural residual in `Result::history` (default on).
  bool record_history = true;
  /// Options that only Lemke reads.
  LemkeOptions lemke;
  /// Options of the Newton family.
  NewtonOptions newton;
  /// Options of the interior-point method.
  InteriorPointOptions interior_point;
  /// Options of the Dantzig method (box LCPs, and LCPs as the box [0, +∞)).
  DantzigOptions dantzig;

  /// Throws `InvalidProblem` naming the first bad field; n is the problem size, used to check
  /// `initial_guess` and `lemke.covering_vector`.
  void validate(Eigen::Index n) const;

  /// `max_iterations`, or `fallback` when it is 0.
  [[nodiscard]] int iteration_limit(int fallback) const { return max_iterations > 0 ? max_iterations : fallback; }
};

}  // namespace perp
