#include "perp/solvers/factored_lcp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "entry/detail.hpp"
#include "entry/pipeline.hpp"
#include "entry/scratch.hpp"
#include "friction/convex/friction_ipm.hpp"
#include "friction/convex/proportioning.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {
namespace {

/// The largest problem the other methods get formed (8000² doubles: 512 MB).
constexpr Eigen::Index kFormedMaxSize = 8000;
/// It stops when its residual has not halved in this many steps, or in kFactoredNearStall steps once
/// it is within kNearTolerances (1e4) tolerances: on the packed heaps of 10 000 disks it stalls near
/// 1e-8 and the sweeps after it finish (bench/README.md, "The Newton matrix's factor: CHOLMOD").
constexpr int kFactoredStall = 20;
constexpr int kFactoredNearStall = 8;
/// The crossover is tried from the step whose residual is below this many sqrt(tolerance).
constexpr double kCrossoverReach = 10.0;
/// After a failed try, the next waits for the residual to fall below this fraction of it.
constexpr double kCrossoverEvery = 0.1;
/// And a try waits for the interior point's statuses to be clear: at most kCrossoverUndecided rows,
/// plus one in kCrossoverUndecidedShare, whose λ_k d_k and w_k are within a factor
/// kCrossoverUndecidedRatio of each other. Measured at every try (bench/README.md, "The crossover's
/// gate (stop 48)"): on the 1 000-disk heap 123 of the 127 tries that solved had at most 8 such
/// rows and 83 of the 152 that failed more; on the 10 000-disk heap's landing (1e-6) 319 of 345
/// tries failed, nearly all with 15–1 500 such rows, each costing about three interior steps.
constexpr Eigen::Index kCrossoverUndecided = 8;
constexpr Eigen::Index kCrossoverUndecidedShare = 4000;
constexpr double kCrossoverUndecidedRatio = 10.0;
/// Where neither the interior point nor its crossover solved: MPRGP (proportioning.hpp) from the
/// best point, at most kPolishSteps steps, the error checked every kPolishEvery, to kPolishMargin
/// of the tolerance (the caller may judge z on a frictional law's error, which the LCP's residual
/// only approximates: at the tolerance itself, a 1 000-disk heap's step ended at 1.2e-10 for 1e-10).
/// On that heap's stalled steps (the interior point at 1e-9 to 3e-8) it reached 1e-11 in 110–510
/// steps, where 2 000 projected Gauss–Seidel sweeps ended above 1e-10 (bench/README.md, "Packed step, stop 38").
constexpr int kPolishSteps = 2000;
constexpr int kPolishEvery = 10;
/// Before MPRGP: the proximal crossover (friction_ipm.hpp) from the best point, ρ = this times N_B's
/// largest diagonal, at most this many proximal points and factorizations. On the 1 000-disk heap
/// between walls (convex model, 10 s, six trajectories at 1e-10) it solved all 114 solves the
/// interior point left short, nearly all within the first proximal point's Newton sets (1–18
/// factorizations), where MPRGP from the same points had left 18 steps unsolved (bench/README.md,
/// "The proximal crossover (stop 51)").
constexpr double kProximalRegularization = 1e-6;
constexpr int kProximalCentres = 20;
constexpr int kProximalFactorizations = 24;
/// MPRGP stops where its error, above ten targets, has not halved in this many steps: on the
/// 10 000-disk heap's late steps (20 000 contacts) it wandered between 1e-9 and 2e-8 for all 2 000
/// steps (about 3 s a step); on the 1 000-disk heap none of its 17 polishes is cut short (all solve).
constexpr int kPolishStall = 300;
constexpr double kPolishMargin = 0.1;
/// pgs and psor on the factors: the error checked every kSweepCheckEvery sweeps; they stop where the
/// best error has not fallen by 1 % in kSweepNoProgress sweeps. (The split impulse's sweeps on the
/// 10 000-disk heap's landing fell linearly, then stayed at one value to three digits — 2e-6,
/// 1.2e-4 — for the rest of their 1 000 sweeps: bench/README.md, "The split impulse's warm start
/// (stop 48)".)
constexpr int kSweepCheckEvery = 50;
constexpr int kSweepNoProgress = 100;
constexpr double kSweepProgress = 0.99;
/// From a warm start: sweeps first, the error checked every kWarmEvery (a structure at rest keeps
/// its active set, and sweeps from the last step's multipliers settle in a few dozen).
constexpr int kWarmSweeps = 60;
constexpr int kWarmEvery = 10;
constexpr double kWarmMargin = 0.1;
/// The interior point runs again from the cold start where the warm run ends above this many
/// tolerances.
constexpr double kColdRetry = 1e3;

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// w, the natural residual and the relative one (docs/solvers.md: Z = ‖z‖∞, W = ‖c‖∞) from z: the
/// pipeline's `finish` (it judges the status on them after).
void factored_finish(const FactoredLcp& problem, Result& result) {
  result.w = problem.slack(result.z);
  result.residual = natural_residual(result.z, result.w);
  const long double W = problem.c.lpNorm<Eigen::Infinity>();
  static const Eigen::VectorXd none;
  result.relative_residual = W > 0 ? scaled_natural_residual(result.z, result.w, none, none,
                                                             z_scale(result.z, none, none), W)
                                   : result.residual;
}

/// The relative natural residual of z (W = ‖c‖∞), the measure the kernels below stop on; run only
/// where some c_k < 0 (the trivial case takes c >= 0), so W > 0.
double relative_error(const FactoredLcp& problem, const Eigen::VectorXd& z) {
  const long double W = problem.c.lpNorm<Eigen::Infinity>();
  static const Eigen::VectorXd none;
  return scaled_natural_residual(z, problem.slack(z), none, none, z_scale(z, none, none), W);
}

/// The rows of z whose status is not yet clear: λ_k d_k and w_k within kCrossoverUndecidedRatio of
/// each other (d_k: row k's diagonal of A M⁻¹ Aᵀ; w = A M⁻¹ Aᵀ z + c).
Eigen::Index undecided_rows(const FactoredLcp& problem, const detail::ConeProgram& program, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = problem.slack(z);
  Eigen::Index undecided = 0;
  for (Eigen::Index k = 0; k < z.size(); ++k) {
    const double impulse = z[k] * program.row_diagonal[k];
    if (impulse < kCrossoverUndecidedRatio * w[k] && w[k] < kCrossoverUndecidedRatio * impulse) ++undecided;
  }
  return undecided;
}

/// How a run of `polish` ended short of its tolerance: at its sweep limit, on the rule on progress,
/// or at a fixed point of the sweeps (a sweep that moved no row: no later sweep moves one either).
enum class SweepEnd { Limit, NoProgress, FixedPoint };

/// Projected Gauss–Seidel sweeps on the program's rows from z (v = M⁻¹ Aᵀ z kept current: a row
/// costs its nonzeros twice), over-relaxed by ω (1: plain; psor), the error checked every `every`
/// sweeps and after a sweep that changed nothing (a fixed point: the sweeps stop there); returns
/// the best point seen and its error (and in `swept`, if given, the sweeps run). With `end`, they
/// also stop where the best error has not fallen below kSweepProgress of itself in kSweepNoProgress
/// sweeps, and `end` says which of the three stops ended a run short of the tolerance. Rows with a
/// zero diagonal (on fixed dofs only) are left as they are.
std::pair<Eigen::VectorXd, double> polish(const detail::ConeProgram& program, const Eigen::VectorXd& c,
                                          Eigen::VectorXd z, int sweeps, int every, double tolerance,
                                          const std::function<double(const Eigen::VectorXd&)>& error_of,
                                          int* swept = nullptr, double omega = 1.0, SweepEnd* end = nullptr) {
  Eigen::VectorXd v = (program.At * z).cwiseQuotient(program.mass);
  Eigen::VectorXd best = z;
  double best_error = error_of(z);
  if (swept != nullptr) *swept = 0;
  if (end != nullptr) *end = SweepEnd::Limit;
  double progress_mark = best_error;
  int progress_sweep = 0;
  // The rows' entries and M⁻¹Aᵀ's (each entry over its column's mass), read in place: a row's update
  // of v then multiplies where it divided (six divisions a planar contact's row, every sweep: a
  // quarter of the 10 000-disk heap's time went to these sweeps, bench/README.md, "The interior
  // point's centring (stop 49)").
  RowSparse compressed_rows;
  const RowSparse* rows = &program.A;
  if (!rows->isCompressed()) {
    compressed_rows = program.A;
    compressed_rows.makeCompressed();
    rows = &compressed_rows;
  }
  const int* const outer = rows->outerIndexPtr();
  const int* const inner = rows->innerIndexPtr();
  const double* const values = rows->valuePtr();
  detail::RecycledVector<double> recycled;
  std::vector<double>& update = *recycled;
  update.resize(static_cast<std::size_t>(rows->nonZeros()));
  for (Eigen::Index p = 0; p < rows->nonZeros(); ++p)
    update[static_cast<std::size_t>(p)] = values[p] / program.mass[inner[p]];
  detail::RecycledVector<double> recycled_steps;  // ω / d_k; 0 for a row held out (d_k = 0)
  std::vector<double>& step = *recycled_steps;
  step.resize(static_cast<std::size_t>(rows->rows()));
  for (Eigen::Index k = 0; k < rows->rows(); ++k) {
    const double d = program.row_diagonal[k];
    step[static_cast<std::size_t>(k)] = d > 0 ? omega / d : 0.0;
  }
  double* const velocity = v.data();
  for (int sweep = 1; sweep <= sweeps && best_error > tolerance; ++sweep) {
    if (detail::stop_requested()) break;  // the pipeline's judgement names the stop
    if (swept != nullptr) *swept = sweep;
    bool moved = false;
    for (Eigen::Index k = 0; k < rows->rows(); ++k) {
      const double row_step = step[static_cast<std::size_t>(k)];
      if (!(row_step > 0)) continue;
      double w = c[k];
      for (int p = outer[k]; p < outer[k + 1]; ++p) w += values[p] * velocity[inner[p]];
      const double next = std::max(0.0, z[k] - row_step * w);
      const double delta = next - z[k];
      if (delta == 0) continue;
      moved = true;
      z[k] = next;
      for (int p = outer[k]; p < outer[k + 1]; ++p) velocity[inner[p]] += delta * update[static_cast<std::size_t>(p)];
    }
    // A sweep that changed nothing is a fixed point: no later sweep moves z either.
    if (moved && sweep % every != 0 && sweep != sweeps) continue;
    const double error = error_of(z);
    if (!std::isfinite(error)) break;
    if (error < best_error) {
      best = z;
      best_error = error;
    }
    if (!moved) {
      if (end != nullptr) *end = SweepEnd::FixedPoint;
      break;
    }
    if (best_error < kSweepProgress * progress_mark) {
      progress_mark = best_error;
      progress_sweep = sweep;
    } else if (end != nullptr && sweep - progress_sweep >= kSweepNoProgress) {
      *end = SweepEnd::NoProgress;
      break;
    }
  }
  return {std::move(best), best_error};
}

/// The interior point on the factors, with its crossovers and the polishing sweeps, where z = 0 does
/// not solve (n > 0, some c_k < 0); the pipeline recomputes w and the residuals from z and judges.
Result interior_point_on_factors(const FactoredLcp& problem, const SolveOptions& options) {
  Result result;
  result.method = Method::InteriorPoint;
  const Eigen::Index n = problem.size();
  Eigen::VectorXd z0 = options.initial_guess.value_or(Eigen::VectorXd::Zero(n)).cwiseMax(0.0);
  const detail::ConeProgram program = detail::ConeProgram::restricted(problem.A, problem.inverse_mass);
  std::optional<detail::ActiveRowsFactor> rows_factor;  // one ordering for every crossover of this solve
  Eigen::VectorXd e = problem.c;
  const auto error_of = [&](const Eigen::VectorXd& z) { return relative_error(problem, z); };
  // The crossover to the vertex the interior point approaches (from its active rows), tried once
  // the interior point is within kCrossoverReach of the tolerance's square root.
  Eigen::VectorXd vertex;
  double vertex_error = detail::kInfinity;
  int crossovers = 0;
  const double reach = kCrossoverReach * std::sqrt(options.tolerance);
  double last_try = reach;
  const Eigen::Index undecided_limit = kCrossoverUndecided + n / kCrossoverUndecidedShare;
  // The vertex of `lambda`'s active rows, kept where it is the best so far; true once it solves.
  const auto try_vertex = [&](const Eigen::VectorXd& lambda) {
    if (!rows_factor) rows_factor.emplace(program);
    Eigen::VectorXd candidate = detail::active_set_crossover(program, *rows_factor, problem.c, lambda).cwiseMax(0.0);
    const double candidate_error = error_of(candidate);
    if (candidate_error < vertex_error) {
      vertex = std::move(candidate);
      vertex_error = candidate_error;
    }
    return vertex_error <= options.tolerance;
  };
  const auto crossover = [&](const Eigen::VectorXd& lambda, double, double error) {
    // Once within reach, and then each time the residual has fallen tenfold since the last try
    // (a try forms and factors the active rows' matrix: about three steps' cost), where few rows
    // are undecided.
    if (error > last_try || undecided_rows(problem, program, lambda) > undecided_limit) return false;
    last_try = kCrossoverEvery * error;
    ++crossovers;
    return try_vertex(lambda);
  };
  // A warm start (the last time step's multipliers, say) is first taken to the vertex of its own
  // active rows: where the active set has not changed, that solves without an interior point.
  if (options.initial_guess.has_value() && z0.maxCoeff() > 0) {
    // To a tenth of the tolerance: the caller may judge z on another measure (a frictional law's
    // relative error) that the sweeps' natural residual only approximates.
    auto [swept, swept_error] =
        polish(program, problem.c, z0, kWarmSweeps, kWarmEvery, kWarmMargin * options.tolerance, error_of);
    if (swept_error <= kWarmMargin * options.tolerance) {
      result.z = std::move(swept);
      result.status = Status::Solved;
      result.message = "projected Gauss-Seidel sweeps from the initial guess: relative residual " +
                       number_text(swept_error) + " (no interior point)";
      return result;
    }
    if (try_vertex(z0)) {
      result.z = vertex;
      result.status = Status::Solved;
      result.message = "the crossover from the initial guess's active set: relative residual " +
                       number_text(vertex_error) + " (no interior point)";
      return result;
    }
  }
  const detail::InteriorOutcome outcome =
      detail::mehrotra_on_cones(program, e, z0, error_of, crossover, options.tolerance,
                                options.iteration_limit(kDefaultConeInteriorSteps), kFactoredStall,
                                options.record_history ? &result.history : nullptr, kFactoredNearStall);
  result.z = outcome.lambda;
  result.iterations = outcome.steps;
  result.message = "interior point on the factors: " + std::to_string(outcome.steps) + " steps, stopped by " +
                   outcome.stop + " at relative residual " + number_text(outcome.error);
  double error = outcome.error;
  if (vertex_error < error) {
    result.z = vertex;
    error = vertex_error;
    result.message += "; the crossover to an active set (" + std::to_string(crossovers) + " tried" +
                      (options.initial_guess.has_value() ? ", and one from the initial guess" : "") +
                      "): relative residual " + number_text(vertex_error);
  }
  bool limit_reached = outcome.limit_reached;
  // Where the interior point stalled short of the tolerance (degenerate vertices of packed heaps):
  // MPRGP from the best point, whose active set is nearly right.
  const auto sweep_from_best = [&] {
    if (error <= options.tolerance) return;
    // First the proximal crossover from the best point (friction_ipm.hpp): where the interior
    // point stalls on a degenerate vertex its statuses are nearly right, and the proximal term keeps
    // the Newton points near it on the redundant rows' null space.
    if (!rows_factor) rows_factor.emplace(program);
    detail::ProximalOutcome proximal =
        detail::proximal_crossover(program, *rows_factor, problem.c, result.z, error_of, options.tolerance,
                                   kProximalRegularization, kProximalCentres, kProximalFactorizations);
    if (proximal.error < error) {
      result.z = std::move(proximal.lambda);
      error = proximal.error;
      result.message += "; the proximal crossover from that point (" + std::to_string(proximal.factorizations) +
                        " factorizations, " + std::to_string(proximal.centres) +
                        " proximal points): relative residual " + number_text(error);
    }
    if (error <= options.tolerance) return;
    detail::ProportioningOutcome polished = detail::proportioning(
        program, problem.c, result.z, kPolishSteps, kPolishEvery, kPolishMargin * options.tolerance, error_of,
        kPolishStall);
    if (polished.error < error) {
      result.z = std::move(polished.lambda);
      error = polished.error;
      result.message += "; then MPRGP from that point (" + std::to_string(polished.iterations) +
                        " steps): relative residual " + number_text(error);
    }
    // Still short: the crossover to the vertex of MPRGP's active set (its statuses are those of a
    // point much nearer the answer than the interior point's last).
    if (error <= options.tolerance) return;
    ++crossovers;
    try_vertex(result.z);
    if (vertex_error < error) {
      result.z = vertex;
      error = vertex_error;
      result.message += "; the crossover from its active set: relative residual " + number_text(error);
    }
  };
  sweep_from_best();
  if (error > kColdRetry * options.tolerance && z0.maxCoeff() > 0) {
    // From a warm start pushed inside the orthant the interior point can stall far from the
    // answer (a 36-disk heap after a split impulse: 8.7e-3 for 60 steps, the sweeps after it 5e-5,
    // where the same problem from the cold start solves in 15): once more from z = 0, with its
    // crossovers and sweeps, where the warm run ended far from the tolerance. (Just above it, on
    // the 1 000-disk heap, the cold run never did better: measured on 4 such steps.)
    last_try = reach;
    Eigen::VectorXd cold_e = problem.c;
    const detail::InteriorOutcome cold =
        detail::mehrotra_on_cones(program, cold_e, Eigen::VectorXd::Zero(n), error_of, crossover, options.tolerance,
                                  options.iteration_limit(kDefaultConeInteriorSteps), kFactoredStall,
                                  options.record_history ? &result.history : nullptr, kFactoredNearStall);
    result.iterations += cold.steps;
    result.message += "; from the cold start: " + std::to_string(cold.steps) + " steps, stopped by " + cold.stop +
                      " at relative residual " + number_text(cold.error);
    if (cold.error < error) {
      result.z = cold.lambda;
      error = cold.error;
      limit_reached = cold.limit_reached;
    }
    if (vertex_error < error) {
      result.z = vertex;
      error = vertex_error;
      result.message += "; its crossover: relative residual " + number_text(vertex_error);
    }
    sweep_from_best();
  }
  result.status = error <= options.tolerance ? Status::Solved
                  : limit_reached            ? Status::MaxIterations
                                             : Status::NoSolutionFound;
  return result;
}

/// pgs and psor on the factors: projected Gauss–Seidel sweeps on the rows of A from the initial
/// guess (0 by default), v = M⁻¹ Aᵀ z kept current, over-relaxed by ω (psor: `relaxation`, default
/// kDefaultRelaxation), the error checked every kSweepCheckEvery sweeps, at most `max_iterations`
/// sweeps (0: kDefaultSweeps). Nothing is formed.
Result sweeps_on_factors(const FactoredLcp& problem, Method method, const SolveOptions& options) {
  Result result;
  result.method = method;
  const double omega = method == Method::Psor ? options.relaxation.value_or(kDefaultRelaxation) : 1.0;
  const Eigen::Index n = problem.size();
  const Eigen::VectorXd z0 = options.initial_guess.value_or(Eigen::VectorXd::Zero(n)).cwiseMax(0.0);
  const detail::ConeProgram program = detail::ConeProgram::restricted(problem.A, problem.inverse_mass);
  const auto error_of = [&](const Eigen::VectorXd& z) { return relative_error(problem, z); };
  const int sweeps = options.iteration_limit(kDefaultSweeps);
  SweepEnd end = SweepEnd::Limit;
  auto [z, error] = polish(program, problem.c, z0, sweeps, kSweepCheckEvery, options.tolerance, error_of,
                           &result.iterations, omega, &end);
  result.z = std::move(z);
  const bool solved = error <= options.tolerance;
  result.status = solved ? Status::Solved : end == SweepEnd::Limit ? Status::MaxIterations : Status::NoSolutionFound;
  std::string ending;
  if (!solved) {
    switch (end) {
      case SweepEnd::Limit:
        ending = " at the sweep limit " + std::to_string(sweeps);
        break;
      case SweepEnd::NoProgress:
        ending = " after " + std::to_string(result.iterations) + " sweeps, no lower by 1 % in the last " +
                 std::to_string(kSweepNoProgress);
        break;
      case SweepEnd::FixedPoint:
        ending = " at a fixed point of the sweeps (sweep " + std::to_string(result.iterations) + " moved no row)";
        break;
    }
  }
  result.message = std::string(method == Method::Psor ? "over-relaxed (omega " + number_text(omega) + ") " : "") +
                   "projected Gauss-Seidel on the factors: relative residual " + number_text(error) + ending;
  return result;
}

/// The pipeline's steps for interior-point, auto, pgs and psor on the factors (auto is the interior point). Its
/// column of the method table is the Lcp's: every other LCP method runs on the formed `Lcp`.
struct FactoredLcpSteps {
  static constexpr ProblemKind kind = ProblemKind::Lcp;
  static void check(const FactoredLcp&, Method, const SolveOptions&) {}
  static std::optional<Result> trivial(const FactoredLcp& problem, const SolveOptions&) {
    const Eigen::Index n = problem.size();
    if (n > 0 && problem.c.minCoeff() < 0) return std::nullopt;
    Result result;
    result.method = Method::InteriorPoint;
    result.z = Eigen::VectorXd::Zero(n);
    result.status = Status::Solved;
    result.message = n == 0 ? "empty problem" : "c >= 0: z = 0 solves (w = c)";
    return result;
  }
  static Result run(const FactoredLcp& problem, Method method, const SolveOptions& options) {
    return method == Method::Pgs || method == Method::Psor ? sweeps_on_factors(problem, method, options)
                                                            : interior_point_on_factors(problem, options);
  }
  static void finish(const FactoredLcp& problem, const SolveOptions&, Result& result) {
    factored_finish(problem, result);
  }
};

}  // namespace

void FactoredLcp::validate() const {
  if (A.rows() != c.size() || A.cols() != inverse_mass.size()) {
    throw InvalidProblem("A: expected " + std::to_string(c.size()) + "x" + std::to_string(inverse_mass.size()) +
                         " (c's size x inverse_mass's size), got " + std::to_string(A.rows()) + "x" +
                         std::to_string(A.cols()));
  }
  detail::validate_factors(A, "A", inverse_mass);
  require_finite(c, "c");
}

Eigen::VectorXd FactoredLcp::slack(const Eigen::VectorXd& z) const {
  require_size(z, c.size(), "z");
  return detail::factored_product(A, inverse_mass, z, c);
}

Lcp FactoredLcp::assembled() const {
  const Eigen::SparseMatrix<double> scaled = A * inverse_mass.asDiagonal();
  const Eigen::SparseMatrix<double> M = scaled * Eigen::SparseMatrix<double>(A.transpose());
  return {Eigen::MatrixXd(M), c};
}

Result solve(const FactoredLcp& problem, Method method, const SolveOptions& options) {
  if (method == Method::InteriorPoint || method == Method::Auto || method == Method::Pgs || method == Method::Psor) {
    return detail::solve_through<FactoredLcpSteps>(problem, method, options);
  }
  // The other methods run on the formed LCP (validated here first, so that a bad A or M⁻¹ is named).
  problem.validate();
  options.validate(problem.size());
  if (problem.size() > kFormedMaxSize) {
    Result refused = detail::refused(method, problem.size(),
                                     to_string(method) + " needs the matrix formed: " +
                                         std::to_string(problem.size()) + " rows, more than " +
                                         std::to_string(kFormedMaxSize) +
                                         " (a dense n x n matrix); interior-point and auto work on the factors");
    refused.w = problem.c;
    return refused;
  }
  return solve(problem.assembled(), method, options);
}

}  // namespace perp
