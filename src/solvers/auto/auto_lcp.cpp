#include "auto_lcp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "auto_vertices.hpp"
#include "pivoting/dantzig.hpp"
#include "entry/detail.hpp"
#include "pivoting/lemke.hpp"
#include "pivoting/lemke_small.hpp"
#include "newton/newton.hpp"
#include "perp/core/residual.hpp"
#include "splitting/pgs.hpp"

namespace perp::detail {
namespace {

using auto_route::block_pivoting;
using auto_route::kColdProgress;
using auto_route::kColdVertices;
using auto_route::kWarmProgress;
using auto_route::kWarmVertices;
using auto_route::NewtonFinish;
using auto_route::Pivoting;
using auto_route::projected_newton;

// Sweeps between two looks at the rate and the active set: a look costs about two products with M.
constexpr int kChunk = 8;

std::string text(const char* pattern, double a, double b = 0, double c = 0) {
  char buffer[200];
  std::snprintf(buffer, sizeof buffer, pattern, a, b, c);
  return buffer;
}

// The residual ratio per sweep over the second half of one chunk's history (its geometric mean):
// PGS's first sweeps are fast on every problem; the later ones tell a singular contact matrix
// (0.93–0.99 per sweep at sweeps 5–8 on bench/'s contact family) from a positive definite one
// (about 0.8).
double sweep_rate(const std::vector<double>& history, double before) {
  if (history.empty() || !(before > 0.0)) return 1.0;
  const std::size_t half = history.size() / 2;
  const double start = half == 0 ? before : history[half - 1];
  const double after = history.back();
  if (!(after > 0.0)) return 0.0;
  if (!(start > 0.0)) return 1.0;
  return std::min(1.0, std::pow(after / start, 1.0 / static_cast<double>(history.size() - half)));
}

// {i : z_i > w_i}, the components the point says are positive at the solution.
void active_set(const Eigen::VectorXd& z, const Eigen::VectorXd& w, std::vector<Eigen::Index>& alpha) {
  alpha.clear();
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    if (z[i] > w[i]) alpha.push_back(i);
  }
}

// A pivoting finish (dantzig, then Lemke) from scratch; the first that solves or proves there is
// no solution, else the one with the smaller residual. Dantzig drives first the indices that
// `point` (a PGS point after `sweeps` sweeps) has positive, largest first, the clamped set's likely
// members, then the rest in index order: on bench/'s singular contact family 35–40 % fewer
// instructions than index order at n = 100–200 (bench/HISTORY.md, issue 19, the last section).
// Where that order does not solve, index order.
Result pivot(const Lcp& problem, const MatrixScan& scan, const SolveOptions& options, std::string& log,
             const Eigen::VectorXd& point, int sweeps) {
  std::vector<Eigen::Index> order(static_cast<std::size_t>(problem.size()));
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<Eigen::Index>(k);
  if (point.allFinite()) {
    std::stable_sort(order.begin(), order.end(), [&point](Eigen::Index a, Eigen::Index b) {
      return std::max(point[a], 0.0) > std::max(point[b], 0.0);
    });
  }
  Result dantzig = solve_dantzig(problem, options, order, scan);
  log += text("; dantzig, the indices positive after %.0f pgs sweeps first: ", sweeps) + to_string(dantzig.status);
  if (!dantzig.solved()) {
    dantzig = solve_dantzig(problem, options, {}, scan);
    log += "; dantzig in index order: " + to_string(dantzig.status);
  }
  dantzig.method = Method::Dantzig;
  if (dantzig.solved()) return dantzig;
  Result lemke = solve_lemke(problem, options);
  lemke.method = Method::Lemke;
  log += "; lemke: " + to_string(lemke.status);
  if (lemke.solved() || lemke.status == Status::Infeasible || lemke.residual <= dantzig.residual) return lemke;
  return dantzig;
}

// The route taken in full in `attempt_order` (perp solve --verbose, the JSON), and one line: the
// method that answered and its message.
Result finish(Result result, const std::string& log) {
  if (!result.attempts.empty()) {  // the classified order's (first_that_solves): its line stands
    result.attempt_order = log + "; then the classified order: " + result.attempt_order;
    return result;
  }
  result.attempt_order = log;
  result.message = one_line("auto (" + to_string(result.method) + "): " + result.message);
  return result;
}

// The pivoting finish, and the classified order where it neither solves nor proves infeasibility.
Result pivot_or_classified(const Lcp& problem, const MatrixScan& scan, const SolveOptions& options,
                           ClassifiedAuto classified, std::string& log, const Eigen::VectorXd& point, int sweeps) {
  Result result = pivot(problem, scan, options, log, point, sweeps);
  if (result.solved() || result.status == Status::Infeasible) return finish(std::move(result), log);
  log += "; the classified order";
  return finish(classified(problem, options), log);
}

// What the symmetric route computes of M and q once: the scan (symmetry, max|M|), data_scale's
// maxima from it, and 1/M_ii for the sweeps.
struct RouteScales {
  MatrixScan scan;
  DataScale scale;
  Eigen::VectorXd inverse_diagonal;
};

// One `sweep` trace event of `pgs` for a chunk of the route's bare sweeps: `iteration` = the sweeps
// so far, `active_size` = #{z_i > 0}, `residual` the natural residual with w exact at z.
void trace_chunk(const TraceCallback& trace, int sweeps, const Eigen::VectorXd& z, double residual) {
  TraceEvent event;
  event.method = "pgs";
  event.kind = TraceKind::Sweep;
  event.iteration = sweeps;
  event.active_size = static_cast<Eigen::Index>((z.array() > 0.0).count());
  event.residual = residual;
  trace(event);
}

// The PGS point as auto's answer (`point` its result from z, judged solved after `sweeps` sweeps).
Result pgs_answer(Result point, int sweeps, int iterations, std::vector<double> history, const std::string& log) {
  point.status = Status::Solved;
  point.iterations = iterations;
  point.history = std::move(history);
  point.message = "converged after " + std::to_string(sweeps) + " sweeps";
  return finish(std::move(point), log + "; pgs: solved after " + std::to_string(sweeps) + " sweeps");
}

// The route for a symmetric M where PGS crawls or a starting block is singular (see
// solve_auto_lcp, step 2'): PGS in chunks from z, projected Newton (projected_newton) each time the
// active set {z_i > w_i} is the same at the end of two chunks, at most kAutoSettleSweeps sweeps in
// all, then the pivoting finish.
Result settle_then_newton(const Lcp& problem, const RouteScales& measured, const SolveOptions& options,
                          ClassifiedAuto classified, std::string& log, Eigen::VectorXd z, int sweeps, int vertices,
                          std::vector<double> history) {
  const DataScale& scale = measured.scale;
  Eigen::VectorXd w = problem.slack(z);
  std::vector<Eigen::Index> alpha, previous;
  bool compared = false;  // `previous` holds the set of the chunk before
  int steps = 0, tries = 0;
  while (sweeps < kAutoSettleSweeps && tries < kAutoSettleTries) {
    // The sweeps alone (pgs.hpp's kernel without solve_psor's per-call checks, which cost as much
    // as the sweeps here); w recomputed from z every kPgsRefreshEvery sweeps.
    const int batch = std::min(kChunk, kAutoSettleSweeps - sweeps);
    gauss_seidel_sweeps(problem.M, measured.inverse_diagonal, z, w, batch);
    sweeps += batch;
    if (sweeps % kPgsRefreshEvery < batch) w = problem.slack(z);
    if (!z.allFinite() || !w.allFinite()) {
      log += "; pgs: the iterates stopped being finite";
      break;
    }
    if (options.record_history || options.trace) {
      // Recomputed apart from the sweeps' w, so that observing does not change the iterates.
      const double residual = natural_residual(z, problem.slack(z));
      if (options.record_history) record_history(history, residual);
      if (options.trace) trace_chunk(options.trace, sweeps, z, residual);
    }
    if (may_meet(scale, z, w, options.tolerance)) {
      Result last = make_result(problem, z, Method::Pgs);
      if (last.relative_residual <= options.tolerance) {
        return pgs_answer(std::move(last), sweeps, sweeps + vertices + steps, std::move(history), log);
      }
      w = std::move(last.w);
    }
    active_set(z, w, alpha);
    if (compared && alpha == previous) {
      ++tries;
      NewtonFinish run = projected_newton(problem, scale, z, problem.slack(z), options.tolerance, options.trace);
      steps += run.steps;
      if (run.result) {
        Result result = std::move(*run.result);
        result.iterations = sweeps + vertices + steps;
        result.history = std::move(history);
        const auto free = (result.z.array() > 0.0 || result.w.array() < 0.0).count();
        result.message =
            "the vertex of a free set of " + std::to_string(free) +
            " components, exact to round-off (M_FF z_F = -q_F, " +
            (run.regularized ? "M_FF singular: the least-norm step by the regularized Cholesky)" : "Cholesky)");
        return finish(std::move(result),
                      log + text("; pgs until its active set held (%.0f sweeps), projected newton: solved at step "
                                 "%.0f of try %.0f",
                                 sweeps, run.steps, tries));
      }
      z = std::move(run.z);
      w = std::move(run.w);
      compared = false;
      continue;
    }
    previous.swap(alpha);
    compared = true;
  }
  log +=
      text("; pgs and projected newton: not solved after %.0f sweeps and %.0f steps in %.0f tries: principal pivoting",
           sweeps, steps, tries);
  return pivot_or_classified(problem, measured.scan, options, classified, log, z, sweeps);
}

// One chunk of the measured route's PGS (solve_auto_lcp, step 2): `count` bare sweeps from z with
// w = M z + q exact, the natural residual after each (with the sweep's w) in `history`, and after
// each the exact test where detail::may_meet says the point may meet the tolerance (w recomputed),
// as solve_psor runs them, without its per-call checks, start product and best-point copies, which
// cost as much as the sweeps at n = 100. On return w is exact at z. Where the iterates stop being
// finite, z and w are put back to the chunk's start (`finite` false). With a trace, one `sweep`
// event of `pgs` per chunk (`iteration` = sweeps so far, `residual` with w recomputed,
// `active_size` = #{z_i > 0}), formed apart from the iterates so that observing changes nothing.
struct PgsChunk {
  int sweeps = 0;
  bool solved = false;
  bool finite = true;
  double residual = 0;  // natural residual at the end, w exact
  std::vector<double> history;
};

void pgs_chunk(const Lcp& problem, const DataScale& scale, const Eigen::VectorXd& inverse_diagonal,
               const SolveOptions& options, int count, int done, Eigen::VectorXd& z, Eigen::VectorXd& w,
               PgsChunk& out) {
  out.sweeps = 0;
  out.solved = false;
  out.finite = true;
  out.history.clear();
  const Eigen::VectorXd start_z = z, start_w = w;
  for (int sweep = 0; sweep < count && !out.solved; ++sweep) {
    gauss_seidel_sweeps(problem.M, inverse_diagonal, z, w, 1);
    ++out.sweeps;
    if (!z.allFinite() || !w.allFinite()) {
      out.finite = false;
      z = start_z;
      w = start_w;
      return;
    }
    double residual = natural_residual(z, w);
    if (may_meet(scale, z, w, options.tolerance)) {
      w = problem.slack(z);
      residual = natural_residual(z, w);
      out.solved = relative_residual(problem, z, w) <= options.tolerance;
    }
    out.history.push_back(residual);
  }
  if (!out.solved) w = problem.slack(z);
  out.residual = natural_residual(z, w);
  if (options.trace) trace_chunk(options.trace, done + out.sweeps, z, out.residual);
}

// The measured route for a symmetric M with a positive diagonal (see solve_auto_lcp).
Result symmetric_route(const Lcp& problem, const MatrixScan& scan, const SolveOptions& options,
                       ClassifiedAuto classified) {
  const Eigen::Index n = problem.size();
  std::string log = "symmetric with a positive diagonal";
  Eigen::VectorXd z = options.initial_guess.value_or(Eigen::VectorXd::Zero(n)).cwiseMax(0.0);
  Eigen::VectorXd w = problem.slack(z);
  const RouteScales measured{
      scan, {problem.q.cwiseAbs().maxCoeff(), scan.largest}, problem.M.diagonal().cwiseInverse()};
  const DataScale& scale = measured.scale;
  int vertices = 0;
  const auto pivoted = [&](Pivoting& run, const std::string& from, int sweeps) {
    Result result = std::move(*run.result);
    result.iterations = sweeps + vertices;
    result.message = "the vertex of an active set of " + std::to_string((result.z.array() > result.w.array()).count()) +
                     " components, exact to round-off (M_aa z_a = -q_a, Cholesky)";
    return finish(std::move(result), log + "; block principal pivoting from " + from + ": solved at vertex " +
                                         std::to_string(run.vertices));
  };
  // 1. Block principal pivoting from the start: a few Cholesky factorizations when the active sets
  // it visits settle quickly (positive definite M), abandoned after kColdVertices; only up to
  // kAutoColdPivotingSize, or with an initial guess (auto_lcp.hpp). Above that size from z = 0,
  // PGS comes first (step 2), whose point, once its active set holds, leaves block pivoting 1 or 2
  // vertices where the start takes 3 to 6, and on a singular M orders dantzig's indices without a
  // failed factorization first.
  // From z = 0 the starting set {q_i < 0} is a blind guess, and a singular block there says only
  // that M is not positive definite; a caller's initial guess may name the solution's own set,
  // whose vertex the regularized solve finds even where M_aa is singular (redundant contacts).
  const bool definite_only = !options.initial_guess.has_value();
  if (n > kAutoColdPivotingSize && definite_only) {
    log += "; pgs first (n > " + std::to_string(kAutoColdPivotingSize) +
           " without an initial guess: block principal pivoting from its point), its rate measured";
  } else {
    Pivoting cold = block_pivoting(problem, scale, z, w, options.tolerance, kColdVertices, kColdProgress, options.trace,
                                   definite_only);
    vertices += cold.vertices;
    if (cold.result) return pivoted(cold, "the start", 0);
    if (cold.singular) {
      // A principal block without a Cholesky factor: M is not positive definite. On a singular
      // positive semidefinite M (contact with more contacts than freedoms) PGS crawls (0.89-0.97
      // per sweep on bench/'s contact family) and the regularized vertices leave most indices
      // infeasible, so the probes would only add to the pivoting solve that follows them.
      // kAutoOrderSweeps PGS sweeps order dantzig's indices (pivot).
      static_assert(kAutoColdPivotingSize <= kAutoSettleMinSize, "a cold start never reaches step 2'");
      log += "; block principal pivoting from the start: M_aa of " + std::to_string(cold.block_size) +
             " components has no Cholesky factor (M is not positive definite to round-off): principal pivoting";
      gauss_seidel_sweeps(problem.M, measured.inverse_diagonal, z, w, kAutoOrderSweeps);
      return pivot_or_classified(problem, scan, options, classified, log, z, kAutoOrderSweeps);
    }
    log += "; block principal pivoting from the start: stopped after " + std::to_string(cold.vertices) +
           (cold.vertices == 1 ? " vertex" : " vertices") +
           " (too few infeasible indices fixed); pgs, its rate measured";
  }

  // 2. PGS in chunks; block pivoting again from its point once the active set holds still.
  double before = natural_residual(z, w);
  std::vector<Eigen::Index> alpha, previous, tried;
  std::vector<double> history;
  int sweeps = 0;
  double rate = 1.0;
  PgsChunk last;
  while (sweeps < kAutoSweepBudget) {
    pgs_chunk(problem, scale, measured.inverse_diagonal, options, std::min(kChunk, kAutoSweepBudget - sweeps), sweeps,
              z, w, last);
    sweeps += last.sweeps;
    if (options.record_history) history.insert(history.end(), last.history.begin(), last.history.end());
    if (last.solved) {
      return pgs_answer(make_result(problem, z, Method::Pgs), sweeps, sweeps + vertices, std::move(history), log);
    }
    if (!last.finite) {
      log += "; pgs: numerical-failure (the iterates stopped being finite at sweep " + std::to_string(sweeps) + ")";
      break;
    }
    rate = sweep_rate(last.history, before);
    before = last.residual;
    active_set(z, w, alpha);
    if (alpha == previous && alpha != tried) {
      tried = alpha;
      Pivoting warm =
          block_pivoting(problem, scale, z, w, options.tolerance, kWarmVertices, kWarmProgress, options.trace);
      vertices += warm.vertices;
      if (warm.result) {
        warm.result->history = std::move(history);
        return pivoted(warm,
                       text("the pgs point (%.0f sweeps at %.3f per sweep, the active set unchanged over the last "
                            "8)",
                            sweeps, rate),
                       sweeps);
      }
    }
    previous.swap(alpha);
    // Sweeps still needed at this rate, against about n sweeps for a pivoting solve.
    const double needed =
        rate > 0.0 && rate < 1.0
            ? std::log(options.tolerance * std::max(1.0, scale.q_max) / std::max(before, 1e-300)) / std::log(rate)
            : 1e300;
    if ((rate > kAutoSlowRate || needed > static_cast<double>(n))) {
      log += text(
          "; pgs: %.0f sweeps at %.3f per sweep (about %.0f more to the tolerance, more than a pivoting "
          "solve costs)",
          sweeps, rate, std::min(needed, 1e9));
      if (n > kAutoSettleMinSize && n <= kAutoSettleMaxSize) {
        log += ": pgs and projected newton";
        return settle_then_newton(problem, measured, options, classified, log, std::move(z), sweeps, vertices,
                                  std::move(history));
      }
      log += ": principal pivoting";
      return pivot_or_classified(problem, scan, options, classified, log, z, sweeps);
    }
  }
  // A good rate but no vertex yet: semismooth Newton from the PGS point.
  log += text("; pgs: %.0f sweeps at %.3f per sweep, %.0f vertices tried: newton-min from the pgs point", sweeps, rate,
              vertices);
  SolveOptions newton_options = options;
  newton_options.initial_guess = z;
  Result newton = solve_newton(problem, Reformulation::MinMap, newton_options);
  newton.method = Method::NewtonMin;
  log += "; newton-min: " + to_string(newton.status);
  if (newton.solved()) return finish(std::move(newton), log);
  return pivot_or_classified(problem, scan, options, classified, log, z, sweeps);
}

}  // namespace

bool auto_direct_tries(const Lcp& problem, const SolveOptions& options, Result& result) {
  return triangular_sweep_small(problem, options, kAutoSweepSolved, result) ||  // method "pgs"
         (problem.size() <= kAutoEnumerateSize &&
          enumerate_small(problem, options, kAutoEnumerateSolved, result)) ||   // "enum"
         principal_pivot_small(problem, options, kAutoDirectSolved, result) ||  // "block-pivoting"
         lemke_small(problem, options, kAutoStackLemkeSolved, result);          // "lemke"
}

Result solve_auto_lcp(const Lcp& problem, const SolveOptions& options, ClassifiedAuto classified) {
  if (auto trivial = trivial_result(problem, Method::Auto)) return *std::move(trivial);
  const Eigen::Index n = problem.size();
  if (n <= kAutoPivotFirstSize) {
    const bool direct = n <= kSmallLcp;
    if (direct) {
      Result tried;
      if (auto_direct_tries(problem, options, tried)) return tried;
    }
    Result lemke = solve_lemke(problem, options, direct ? kAutoDirectThenLemkeSolved : kAutoLemkeSolved);
    if (lemke.solved()) return lemke;  // its method is "lemke"
    Result fallback = classified(problem, options);
    fallback.attempt_order = std::string(direct ? "n <= 16: block principal pivoting, then lemke; block pivoting: not solved"
                                                : "n <= 40: lemke first") +
                             "; lemke: " + to_string(lemke.status) + "; then the classified order: " + fallback.attempt_order;
    fallback.attempts.insert(fallback.attempts.begin(),
                             {Method::Lemke, lemke.status, lemke.iterations, lemke.relative_residual, lemke.message});
    // The message stays first_that_solves' one line ("auto (<trail>): …"); the first tries are in
    // attempt_order and the attempts.
    return fallback;
  }
  if (problem.M.diagonal().minCoeff() > 0.0) {
    const MatrixScan scan = scan_matrix(problem.M);  // also dantzig's: its Cholesky path and scale
    if (scan.symmetric) return symmetric_route(problem, scan, options, classified);
  }
  return classified(problem, options);
}

}  // namespace perp::detail
