#pragma once
/// \file
/// Options for `solve`. Every field has a documented default; `validate` checks them all
/// and names the field that is wrong. The trace types (`TraceEvent`, `TraceCallback`) are
/// solvers/trace.hpp's.

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "perp/solvers/method.hpp"
#include "perp/solvers/trace.hpp"

namespace perp {

/// The defaults that `SolveOptions::max_iterations = 0` and an unset `SolveOptions::relaxation`
/// stand for (`method_table()` names the one of each method).
/// pgs and psor (LCP, box LCP, MLCP), nsgs: sweeps; prox: nsgs sweeps of all its subproblems together.
inline constexpr int kDefaultSweeps = 10000;
/// psor: the relaxation ω when `SolveOptions::relaxation` is unset.
inline constexpr double kDefaultRelaxation = 1.2;
/// newton-fb, newton-min, penalized-fb and newton-ac: Newton steps.
inline constexpr int kDefaultNewtonSteps = 200;
/// interior-point on an `Lcp`: predictor-corrector steps.
inline constexpr int kDefaultInteriorSteps = 200;
/// interior-point on a planar `FrictionContact` and on a `FactoredLcp`: predictor-corrector steps
/// on the cones (the frictional one then sweeps with nsgs from its best point).
inline constexpr int kDefaultConeInteriorSteps = 100;
/// path: major iterations (linearizations, the proximal subproblems' iterations included).
inline constexpr int kDefaultMajorIterations = 200;
/// smoothing: Newton steps of all μ stages together.
inline constexpr int kDefaultSmoothingSteps = 1000;
/// enum: active sets examined (a run of about a second at n = 25).
inline constexpr int kEnumerationBudget = 1 << 18;
/// enum on an `Lcp`: the largest n it accepts (it may examine 2^n active sets); larger is refused
/// with `InvalidProblem`, as an MLCP with more than `MlcpOptions::enum_max_complementarities` pairs.
inline constexpr Eigen::Index kMaxEnumerationSize = 25;
/// lemke, murty, dantzig (per fixed-box solve): max(1000, 50·n) pivots.
[[nodiscard]] constexpr int default_pivots(Eigen::Index n) {
  return n > 1 << 24 ? 1 << 30 : (50 * n > 1000 ? static_cast<int>(50 * n) : 1000);
}
/// block-pivoting: rounds, each one principal solve M_FF z_F = −q_F: max(100, 10·n). Fewer than
/// murty's pivots because a round may exchange many indices at once (bench/'s positive definite
/// family took 2–5 rounds at n = 100–500, bench/HISTORY.md), and a round factors a block of up to n
/// rows, so a matrix on which the method cannot finish stops after about as much work as 10 n
/// factorizations.
[[nodiscard]] constexpr int default_block_rounds(Eigen::Index n) {
  return n > 1 << 24 ? 1 << 30 : (10 * n > 100 ? static_cast<int>(10 * n) : 100);
}

/// How often `SolveOptions::interrupt` is polled at most, in milliseconds.
inline constexpr int kInterruptPollMs = 20;

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

/// Options of the MLCP methods (solvers/mlcp.hpp).
struct MlcpOptions {
  /// schur and lemke: A (for lemke, the pivot block of u and v_J) is eliminated only when the
  /// estimate of its reciprocal 1-norm condition number, from the LU factorization of the
  /// row/column-equilibrated matrix (power-of-two scaling, so units alone do not count), is >= this;
  /// below it schur returns not-applicable (the Schur complement B − D A⁻¹ C would carry an error
  /// of about ε / rcond relative to its size). In (0, 1]; default 1e-10.
  double schur_min_rcond = 1e-10;
  /// schur: the method that solves the LCP of the Schur complement; any method that accepts an
  /// `Lcp` (`lcp_methods()`). Default auto.
  Method schur_lcp_method = Method::Auto;
  /// enum: the largest number m of complementarity pairs it accepts (it may examine 2^m active
  /// sets); above it, not-applicable. In [0, 30]; default 25.
  int enum_max_complementarities = 25;
};

/// The order in which nsgs visits the contacts within a sweep.
enum class ContactOrder {
  Natural,  ///< 0, 1, …, nc − 1.
  Random,   ///< A fresh random permutation every sweep, from `NsgsOptions::seed`.
  Given,    ///< `NsgsOptions::permutation`, every sweep.
};

/// Options of nsgs, read also by the nsgs sweeps that prox and auto run (`friction_contact.nsgs`).
struct NsgsOptions {
  /// Over-relaxation ω ∈ (0, 2): r_i ← ω r_i* + (1 − ω) r_i, r_i* the exact local solution
  /// (projected back onto the cone when ω > 1). Default 1 (plain Gauss–Seidel).
  double relaxation = 1.0;
  /// Contact ordering within a sweep. Default natural.
  ContactOrder order = ContactOrder::Natural;
  /// Seed of the random ordering (`ContactOrder::Random`). Default 0.
  std::uint64_t seed = 0;
  /// The order of `ContactOrder::Given`: a permutation of 0 … nc − 1 (checked against the problem).
  std::vector<Eigen::Index> permutation;
  /// nsgs computes the full relative error (one product with W) before the first sweep, after sweeps
  /// 1, 2, 4, 8, … below `error_every`, then every `error_every` sweeps, and at the last. >= 1;
  /// default 10.
  int error_every = 10;
};

/// Options of the 3D local solve of one contact, read by every method that sweeps contacts in 3D:
/// nsgs, and prox and auto through it (`friction_contact.local`).
struct LocalSolveOptions {
  /// The Alart–Curnier Newton stops when the contact's local relative error is <= tolerance.
  /// In (0, 1); default 1e-14.
  double tolerance = 1e-14;
  /// Newton steps before the projection fallback, which then gets 20× as many iterations. >= 1;
  /// default 50.
  int iterations = 50;
};

/// Options of prox (`friction_contact.prox`).
struct ProxOptions {
  /// The first ρ of W + ρI; 0 = automatic (the mean of W's diagonal, or 1 if that is not
  /// positive). Finite and >= 0; default 0.
  double rho = 0;
  /// The most outer (proximal) iterations. >= 1; default 1000.
  int max_outer = 1000;
  /// Anderson acceleration of the outer fixed point r = S_ρ(r) over the last `anderson` steps (a
  /// combined point, projected on the cones, is taken when its error is at most twice the plain
  /// step's). ρ then shrinks tenfold when 25 outer iterations of easy subproblems did not cut the
  /// error tenfold. 0 turns the acceleration off, and ρ then halves whenever the outer error falls
  /// by less than half. In [0, 50]; default 20.
  int anderson = 20;
};

/// Options of lemke on a `FrictionContact` (alone and in auto's chain), read also by the 3D time
/// step's stewart-trinkle model (contact3d/moreau_jean.hpp) (`friction_contact.lemke`).
struct FrictionLemkeOptions {
  /// On a 3D problem: the number k >= 3 of facets of the polyhedral cone that replaces the Coulomb
  /// cone (an inner approximation; 2D is exact with its two directions). Default 8.
  int facets = 8;
  /// The largest LCP size (unknowns r_N, k friction directions and λ per contact) it forms; above
  /// it, not-applicable. Up to 200 unknowns, and in 3D, lemke pivots on the dense tableau; a larger
  /// planar LCP on its sparse M (sparse Lemke, docs/solvers.md). >= 1; default 4000.
  Eigen::Index lcp_max_size = 4000;
};

/// Options of auto on a `FrictionContact` or a `FactoredFrictionContact` (`friction_contact.automatic`;
/// `auto` is a C++ keyword).
struct FrictionAutoOptions {
  /// The sweeps given to nsgs before newton-ac takes over, and the first part of the second nsgs
  /// after it (capped by `max_iterations`); the packed planar step's chain gives each of its nsgs
  /// runs a fifth of them (contact/global_step.hpp). >= 1; default 1000.
  int nsgs_sweeps = 1000;
  /// On a planar problem given by its factors (a time step's): the most updates of the fixed point
  /// on de Saxcé's shift tried after those sweeps, before W is formed. >= 0; default 0 (not tried:
  /// on the 100- and 1 000-disk heaps it cost more than it saved; docs/solvers.md).
  int shift_updates = 0;
};

/// Options of the frictional contact methods (solvers/friction_contact.hpp: nsgs, prox, lemke on a
/// `FrictionContact`, auto), one struct per method: a method reads its own and, where it runs
/// another method inside, that one's. The stopping test is `SolveOptions::tolerance` on Siconos'
/// relative error; `SolveOptions::max_iterations` bounds the sweeps (0: `kDefaultSweeps`), for prox
/// all inner sweeps together.
struct FrictionContactOptions {
  /// nsgs: relaxation, contact order, error checks.
  NsgsOptions nsgs;
  /// The 3D local solve of one contact.
  LocalSolveOptions local;
  /// prox: ρ, outer iterations, Anderson acceleration.
  ProxOptions prox;
  /// lemke: the polyhedral cone's facets, the largest LCP.
  FrictionLemkeOptions lemke;
  /// auto: the first nsgs sweeps, the shift updates.
  FrictionAutoOptions automatic;

  /// Throws `InvalidProblem` naming the first bad field by its path (`friction_contact.prox.rho`).
  /// With `contacts` >= 0 (nc of the problem) it also checks that `nsgs.permutation` is a
  /// permutation of 0 … nc − 1 when the order is `Given`.
  void validate(Eigen::Index contacts = -1) const;
};

struct SolveOptions {
  /// The problem counts as solved when its relative residual (dimensionless; frictional contact:
  /// Siconos' relative error) is <= tolerance: core/residual.hpp defines "solved" for every problem
  /// type. Default 1e-8; must be finite and > 0.
  double tolerance = 1e-8;
  /// Iteration limit: pivots (lemke, murty; dantzig: per fixed-box solve), rounds (block-pivoting), sweeps (pgs,
  /// psor, nsgs, prox), Newton steps, major iterations (path) or active sets (enum). 0 = the method's default:
  /// `default_pivots(n)` = max(1000, 50·n) pivots, `default_block_rounds(n)` = max(100, 10·n) rounds,
  /// `kDefaultSweeps` = 10000 sweeps, `kDefaultNewtonSteps` = 200 steps (newton-ac too),
  /// `kDefaultInteriorSteps` = 200 steps (interior-point on an Lcp), `kDefaultConeInteriorSteps` = 100 steps
  /// (interior-point on a FrictionContact or a FactoredLcp), `kDefaultSmoothingSteps` = 1000 steps (all μ stages
  /// together), `kDefaultMajorIterations` = 200 (path), `kEnumerationBudget` = 2^18 active sets
  /// (`method_info(m).default_limit` says which). Must be >= 0.
  int max_iterations = 0;
  /// Warm start z for the iterative methods (pgs, psor, the Newton family; the interior-point
  /// method moves it inside z > 0). Sized n, finite. block-pivoting starts from its support
  /// {i : z_i > 0} instead of {i : q_i < 0}. The other pivoting methods (enum, lemke, murty,
  /// dantzig) start from their own basis and ignore it. Default: z = 0 (projected onto the bounds
  /// of an MCP or box LCP).
  std::optional<Eigen::VectorXd> initial_guess;
  /// Relaxation ω ∈ (0, 2) for psor (`kDefaultRelaxation` = 1.2 when unset). pgs is psor with ω = 1
  /// and accepts only an unset value or exactly 1.
  std::optional<double> relaxation;
  /// enum: list every distinct solution in `Result::solutions` instead of stopping at the first.
  bool all_solutions = false;
  /// enum with `all_solutions`: stop once this many distinct solutions are listed (0 = no limit, the
  /// default). A search that stops before the last active set (this, `time_limit`, `interrupt` or
  /// `max_iterations` after a solution was found) is still `Solved` and its message says
  /// "stopped … with N distinct solutions, K of 2^n active sets examined; more may exist". >= 0.
  int max_solutions = 0;
  /// Box LCP with friction coupling, dantzig and the Newton family: the most fixed-box solves (passes
  /// of the outer loop that re-reads the bounds ±μ|z_normal| from the last solution) before
  /// `MaxIterations`. pgs/psor re-read the bounds at every update instead. Default 50, must be >= 1.
  int max_friction_passes = 50;
  /// Record the per-iteration natural residual in `Result::history` (default on).
  bool record_history = true;
  /// Measure the solve's wall-clock time into `Result::time_ms` (default on). Off, the solve reads
  /// no clock and `time_ms` is 0: for loops of many tiny solves that time themselves, where the two
  /// clock reads are half of a 2-unknown solve (0.05 of 0.09 µs on the bench machine; bench/HISTORY.md,
  /// "The clock of a small solve").
  bool measure_time = true;
  /// Wall-clock limit of the whole solve in seconds (auto and every fallback chain included: one
  /// deadline, fixed when the solve starts, for all the methods it runs and the solves nested in it).
  /// Every iterative method checks it between iterations (pivots, sweeps, steps, active sets; the
  /// steady clock is read about every 0.25 ms, not at every check) and ends `Status::TimeLimit` with
  /// its last point once the deadline has passed, so a solve overruns it by about 0.25 ms or one
  /// iteration. Default +inf (none); must be > 0 (NaN refused).
  double time_limit = std::numeric_limits<double>::infinity();
  /// Polled with the clock, at most every `kInterruptPollMs` milliseconds, by the same checks:
  /// returning true ends the solve `Status::Interrupted` with the last point (the Python bindings
  /// set it to run the interpreter's signal handlers, so Ctrl-C stops a long solve). Unset by default;
  /// runs on the solving thread; an exception it throws ends the solve.
  std::function<bool()> interrupt;
  /// Called after every iteration of lemke, murty, dantzig, pgs, psor, the Newton family and the
  /// interior-point method with what it did (`TraceEvent`; `perp solve --trace`). Unset by default:
  /// the kernels then test it once per iteration and build nothing (bench/HISTORY.md, "Tracing").
  /// The callback runs on the solving thread; an exception it throws ends the solve.
  TraceCallback trace;
  /// Options that only Lemke reads.
  LemkeOptions lemke;
  /// Options of the Newton family.
  NewtonOptions newton;
  /// Options of the interior-point method.
  InteriorPointOptions interior_point;
  /// Options of the Dantzig method (box LCPs, and LCPs as the box [0, +∞)).
  DantzigOptions dantzig;
  /// Options of the MLCP methods.
  MlcpOptions mlcp;
  /// Options of the frictional contact methods (their `tolerance` is on Siconos' relative error).
  FrictionContactOptions friction_contact;

  /// Throws `InvalidProblem` naming the first bad field; n is the problem size, used to check
  /// `initial_guess` and `lemke.covering_vector`.
  void validate(Eigen::Index n) const;

  /// `max_iterations`, or `fallback` when it is 0.
  [[nodiscard]] int iteration_limit(int fallback) const { return max_iterations > 0 ? max_iterations : fallback; }
};

}  // namespace perp
