#include "auto_lcp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "detail.hpp"
#include "newton_linear.hpp"
#include "perp/core/box_lcp.hpp"
#include "perp/core/residual.hpp"
#include "dantzig.hpp"
#include "lemke.hpp"
#include "newton.hpp"
#include "pgs.hpp"

namespace perp::detail {
namespace {

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

// The vertex of α reached from z: z_N = 0 and z_α + δ with M_αα δ = −(M_αα z_α + q_α), so
// w_α = 0. From z rather than from 0, so that where M_αα is singular (and the vertex one of many)
// the regularized solve stays near the iterate, whose z_α is positive. Empty when M_αα could not
// be factored (not positive semidefinite), or with `definite_only` set, when it has no plain
// Cholesky factor (singular or indefinite; `singular` is then set).
std::optional<Eigen::VectorXd> vertex_from(const Lcp& problem, const Eigen::VectorXd& z,
                                           const std::vector<Eigen::Index>& alpha, bool definite_only,
                                           bool& singular) {
  Eigen::VectorXd point = Eigen::VectorXd::Zero(problem.size());
  if (alpha.empty()) return point;
  const Eigen::MatrixXd block = problem.M(alpha, alpha);
  const Eigen::VectorXd start = z(alpha).cwiseMax(0.0);
  const Eigen::VectorXd slack = block * start + problem.q(alpha);
  Eigen::VectorXd delta;
  if (definite_only) {
    const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> cholesky(block);
    if (cholesky.info() != Eigen::Success) {
      singular = true;
      return std::nullopt;
    }
    delta = cholesky.solve(-slack);
  } else {
    SemidefiniteSolver solver;
    if (!solver.compute(block)) return std::nullopt;
    solver.solve(block, -slack, delta);
  }
  if (!delta.allFinite()) return std::nullopt;
  point(alpha) = start + delta;
  return point;
}

// Block principal pivoting (Kostreva 1978; Júdice–Pires 1994) from the active set of (z, w):
// solve for the vertex of α, then move every infeasible index across (z_i < 0 leaves α, w_i < 0
// joins it). Sign tests are relative to round-off (detail::sign_feasible's scales). Full exchanges
// can cycle, so instead of Júdice–Pires' fallback to single exchanges the run stops as soon as the
// infeasible count fails to fall below `progress` times its best so far: it is a fast path, and
// the caller has others. Stops also at a vertex that meets the tolerance, after `limit` vertices,
// or when a block cannot be factored.
struct Pivoting {
  std::optional<Result> result;  // set when solved
  Eigen::VectorXd z;             // the last vertex (or the start)
  int vertices = 0;
  bool singular = false;         // stopped at a block M_aa without a Cholesky factor (`definite_only`)
  Eigen::Index block_size = 0;   // |a| of that block
};

// Vertices block pivoting may visit from the start, and from a PGS point whose active set held,
// and the fall of the infeasible count per vertex it must keep up (else it stops).
constexpr int kColdVertices = 12;
constexpr double kColdProgress = 0.6;
constexpr int kWarmVertices = 30;
constexpr double kWarmProgress = 0.9;

// With `trace` set, each vertex is an event of method "block-pivoting": the indices that crossed
// to reach it (the first lists its whole set α as entered), |α| and the vertex's natural residual.
// With `definite_only`, a block M_aa that has no plain Cholesky factor ends the run (`singular`).
Pivoting block_pivoting(const Lcp& problem, Eigen::VectorXd z, const Eigen::VectorXd& w, double tolerance, int limit,
                        double progress, const TraceCallback& trace, bool definite_only = false) {
  const Eigen::Index n = problem.size();
  const DataScale scale = data_scale(problem);
  std::vector<char> in(static_cast<std::size_t>(n), 0);
  std::vector<Eigen::Index> alpha;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (z[i] > w[i]) in[static_cast<std::size_t>(i)] = 1;
  }
  Pivoting out;
  // The first vertex is measured against the size of the starting active set: on a singular
  // contact matrix most of those indices come out infeasible (80 % on bench/'s family, 43 % on its
  // positive definite one).
  Eigen::Index best = std::max<Eigen::Index>(1, std::count(in.begin(), in.end(), 1));
  std::vector<char> traced_in;  // the set of the last traced vertex
  for (; out.vertices < limit; ++out.vertices) {
    alpha.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      if (in[static_cast<std::size_t>(i)] != 0) alpha.push_back(i);
    }
    std::optional<Eigen::VectorXd> vertex = vertex_from(problem, z, alpha, definite_only, out.singular);
    if (!vertex) {
      out.block_size = static_cast<Eigen::Index>(alpha.size());
      break;
    }
    Result candidate = make_result(problem, std::move(*vertex), Method::Pgs);
    z = candidate.z;
    if (trace) {
      TraceEvent event;
      event.method = "block-pivoting";
      event.kind = TraceKind::PrincipalPivot;
      event.iteration = out.vertices + 1;
      traced_in.resize(static_cast<std::size_t>(n), 0);
      for (Eigen::Index i = 0; i < n; ++i) {
        const char now = in[static_cast<std::size_t>(i)];
        if (now && !traced_in[static_cast<std::size_t>(i)]) event.entered.push_back(i);
        if (!now && traced_in[static_cast<std::size_t>(i)]) event.left.push_back(i);
      }
      traced_in = in;
      event.active_size = static_cast<Eigen::Index>(alpha.size());
      event.residual = candidate.residual;
      trace(event);
    }
    if (candidate.relative_residual <= tolerance) {
      candidate.status = Status::Solved;
      ++out.vertices;
      out.result = std::move(candidate);
      break;
    }
    const double z_floor = -z_sign_tolerance(candidate.z, 1e-13);
    const double w_floor = -w_sign_tolerance(scale, candidate.z, 1e-13);
    Eigen::Index infeasible = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool inside = in[static_cast<std::size_t>(i)] != 0;
      if ((inside && candidate.z[i] < z_floor) || (!inside && candidate.w[i] < w_floor)) {
        ++infeasible;
      }
    }
    if (infeasible == 0) break;  // feasible to round-off yet not at the tolerance: leave it to others
    // Measured progress: on a positive definite M the count falls by half or more per vertex; on a
    // singular one (contact with more contacts than freedoms) it crawls, and other methods win.
    if (static_cast<double>(infeasible) > progress * static_cast<double>(best)) {
      ++out.vertices;
      break;
    }
    best = std::min(best, infeasible);
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool inside = in[static_cast<std::size_t>(i)] != 0;
      if (inside && candidate.z[i] < z_floor) in[static_cast<std::size_t>(i)] = 0;
      if (!inside && candidate.w[i] < w_floor) in[static_cast<std::size_t>(i)] = 1;
    }
  }
  out.z = std::move(z);
  return out;
}

// A pivoting finish (dantzig, then Lemke) from scratch; the first that solves or proves there is
// no solution, else the one with the smaller residual.
Result pivot(const Lcp& problem, const SolveOptions& options, std::string& log) {
  Result dantzig = solve_dantzig(to_box_lcp(problem), options);
  dantzig.method = Method::Dantzig;
  log += "; dantzig: " + to_string(dantzig.status);
  if (dantzig.solved()) return dantzig;
  Result lemke = solve_lemke(problem, options);
  lemke.method = Method::Lemke;
  log += "; lemke: " + to_string(lemke.status);
  if (lemke.solved() || lemke.status == Status::Infeasible || lemke.residual <= dantzig.residual) return lemke;
  return dantzig;
}

Result finish(Result result, const std::string& log) {
  result.message = "auto (" + log + "): " + result.message;
  return result;
}

// The pivoting finish, and the classified order where it neither solves nor proves infeasibility.
Result pivot_or_classified(const Lcp& problem, const SolveOptions& options, ClassifiedAuto classified,
                           std::string& log) {
  Result result = pivot(problem, options, log);
  if (result.solved() || result.status == Status::Infeasible) return finish(std::move(result), log);
  log += "; the classified order";
  return finish(classified(problem, options), log);
}

// The measured route for a symmetric M with a positive diagonal (see solve_auto_lcp).
Result symmetric_route(const Lcp& problem, const SolveOptions& options, ClassifiedAuto classified) {
  const Eigen::Index n = problem.size();
  std::string log = "symmetric with a positive diagonal";
  Eigen::VectorXd z = options.initial_guess.value_or(Eigen::VectorXd::Zero(n)).cwiseMax(0.0);
  Eigen::VectorXd w = problem.slack(z);
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
  // it visits settle quickly (positive definite M), abandoned after kColdVertices.
  // From z = 0 the starting set {q_i < 0} is a blind guess, and a singular block there says only
  // that M is not positive definite; a caller's initial guess may name the solution's own set,
  // whose vertex the regularized solve finds even where M_aa is singular (redundant contacts).
  const bool definite_only = !options.initial_guess.has_value();
  Pivoting cold =
      block_pivoting(problem, z, w, options.tolerance, kColdVertices, kColdProgress, options.trace, definite_only);
  vertices += cold.vertices;
  if (cold.result) return pivoted(cold, "the start", 0);
  if (cold.singular) {
    // A principal block without a Cholesky factor: M is not positive definite. On a singular
    // positive semidefinite M (contact with more contacts than freedoms) PGS crawls (0.89-0.97 per
    // sweep on bench/'s contact family) and the regularized vertices leave most indices
    // infeasible, so the probes would only add to the pivoting solve that follows them.
    log += "; block principal pivoting from the start: M_aa of " + std::to_string(cold.block_size) +
           " components has no Cholesky factor (M is not positive definite to round-off): principal pivoting";
    return pivot_or_classified(problem, options, classified, log);
  }
  log += "; block principal pivoting from the start: stopped after " + std::to_string(cold.vertices) +
         (cold.vertices == 1 ? " vertex" : " vertices") + " (too few infeasible indices fixed); pgs, its rate measured";

  // 2. PGS in chunks; block pivoting again from its point once the active set holds still.
  SolveOptions chunk_options = options;
  chunk_options.record_history = true;
  chunk_options.relaxation.reset();
  double before = natural_residual(z, w);
  std::vector<Eigen::Index> alpha, previous, tried;
  std::vector<double> history;
  int sweeps = 0;
  double rate = 1.0;
  Result last;
  while (sweeps < kAutoSweepBudget) {
    chunk_options.initial_guess = z;
    chunk_options.max_iterations = std::min(kChunk, kAutoSweepBudget - sweeps);
    last = solve_psor(problem, chunk_options, 1.0);
    sweeps += last.iterations;
    if (options.record_history) history.insert(history.end(), last.history.begin(), last.history.end());
    if (last.solved()) {
      last.iterations = sweeps + vertices;
      last.history = std::move(history);
      return finish(std::move(last), log + "; pgs: solved after " + std::to_string(sweeps) + " sweeps");
    }
    if (last.status == Status::NumericalFailure) {
      log += "; pgs: " + to_string(last.status) + " (" + last.message + ")";
      break;
    }
    rate = sweep_rate(last.history, before);
    before = last.residual;
    z = last.z;
    active_set(z, last.w, alpha);
    if (alpha == previous && alpha != tried) {
      tried = alpha;
      Pivoting warm = block_pivoting(problem, z, last.w, options.tolerance, kWarmVertices, kWarmProgress, options.trace);
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
            ? std::log(options.tolerance * std::max(1.0, problem.q.cwiseAbs().maxCoeff()) / std::max(before, 1e-300)) /
                  std::log(rate)
            : 1e300;
    if ((rate > kAutoSlowRate || needed > static_cast<double>(n))) {
      log += text(
          "; pgs: %.0f sweeps at %.3f per sweep (about %.0f more to the tolerance, more than a pivoting "
          "solve costs): principal pivoting",
          sweeps, rate, std::min(needed, 1e9));
      return pivot_or_classified(problem, options, classified, log);
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
  return pivot_or_classified(problem, options, classified, log);
}

}  // namespace

Result solve_auto_lcp(const Lcp& problem, const SolveOptions& options, ClassifiedAuto classified) {
  if (auto trivial = trivial_result(problem, Method::Auto)) return *std::move(trivial);
  const Eigen::Index n = problem.size();
  if (n <= kAutoPivotFirstSize) {
    Result lemke = solve_lemke(problem, options, kAutoLemkeSolved);
    if (lemke.solved()) return lemke;  // its method is "lemke"
    Result fallback = classified(problem, options);
    fallback.message = "auto (n <= 40: lemke first; lemke: " + to_string(lemke.status) +
                       "; then the classified order): " + fallback.message;
    return fallback;
  }
  if (problem.M.diagonal().minCoeff() > 0.0 && scan_matrix(problem.M).symmetric) {
    return symmetric_route(problem, options, classified);
  }
  return classified(problem, options);
}

}  // namespace perp::detail
