#include "perp/solvers/box_lcp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "detail.hpp"
#include "pipeline.hpp"
#include "perp/core/residual.hpp"
#include "perp/core/error.hpp"
#include "perp/core/ncp.hpp"
#include "dantzig.hpp"
#include "newton.hpp"
#include "perp/solvers/path.hpp"

namespace perp {
namespace {

using detail::kPgsRefreshEvery;
// pgs/psor: a residual this many times the smallest seen means the sweeps diverge (a converging
// run does not lose ten orders of magnitude on the way); the run stops there with the best point.
constexpr double kPgsDivergence = 1e10;
using detail::kInfinity;

// z = mid(lo(0), hi(0), 0): the trivial candidate (the LCP's z = 0 when q >= 0).
std::optional<Result> trivial_result(const BoxLcp& problem) {
  const Eigen::Index n = problem.size();
  Result result;
  if (n == 0) {
    result.status = Status::Solved;
    result.message = "empty problem (n = 0)";
    return result;
  }
  Eigen::VectorXd lo, hi;
  problem.bounds_at(Eigen::VectorXd::Zero(n), lo, hi);
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n).cwiseMax(lo).cwiseMin(hi);
  // natural_residual(problem, z), with w = M z + q = q when z = 0 (every box holds 0): no product.
  Eigen::VectorXd w = (z.array() == 0.0).all() ? problem.q : problem.slack(z);
  problem.bounds_at(z, lo, hi);
  if (natural_residual(z, w, lo, hi) != 0.0) return std::nullopt;
  result.w = std::move(w);
  result.z = std::move(z);
  result.status = Status::Solved;
  result.message = "z = 0 projected onto the bounds solves exactly";
  return result;
}

// The start z of an iterative method: the warm start or 0, projected onto the fixed bounds first and
// then onto the coupled bounds of the projected normals.
Eigen::VectorXd start_point(const BoxLcp& problem, const SolveOptions& options) {
  Eigen::VectorXd z = options.initial_guess.value_or(Eigen::VectorXd::Zero(problem.size()));
  // (A coupled component's own lower/upper entries may be anything; it is overwritten below.)
  z = z.cwiseMax(problem.lower).cwiseMin(problem.upper);
  for (const FrictionCoupling& c : problem.friction) {
    const double bound = c.mu * std::abs(z[c.normal]);
    z[c.index] = std::clamp(options.initial_guess ? (*options.initial_guess)[c.index] : 0.0, -bound, bound);
  }
  return z;
}

// Projected Gauss–Seidel / SOR on the box (Cryer 1971; ODE's quickstep for the coupling):
//   z_i ← mid(lo_i, hi_i, z_i − ω w_i / M_ii),
// with a coupled component's bounds ∓μ|z_j| read from the current z_j at its own update. A free row
// (both bounds infinite: the u of an MLCP) is solved exactly for z_i; it needs M_ii != 0, a bounded
// row M_ii > 0 (the projected step must move towards w_i = 0). The MLCP's pgs and psor run here.
}  // namespace

Result detail::box_psor(const BoxLcp& problem, const SolveOptions& options, double relaxation) {
  const char* name = relaxation == 1.0 ? "pgs" : "psor";
  const Eigen::Index n = problem.size();
  const Eigen::MatrixXd& M = problem.M;
  Eigen::VectorXd z = start_point(problem, options);
  Result result;
  result.method = name;
  std::vector<char> coupled(static_cast<std::size_t>(n), 0);
  for (const FrictionCoupling& c : problem.friction) coupled[static_cast<std::size_t>(c.index)] = 1;
  for (Eigen::Index i = 0; i < n; ++i) {
    const bool free = !coupled[static_cast<std::size_t>(i)] && problem.lower[i] == -kInfinity &&
                      problem.upper[i] == kInfinity;
    if (free ? M(i, i) == 0.0 : !(M(i, i) > 0.0)) {
      result.status = Status::NotApplicable;
      result.message = "M(" + std::to_string(i) + ", " + std::to_string(i) + ") = " + number_text(M(i, i)) +
                       (free ? ": projected Gauss-Seidel divides by the diagonal of a free row"
                             : ": projected Gauss-Seidel needs a positive diagonal on a bounded row");
      result.z = std::move(z);
      return result;
    }
  }
  // normal[i] >= 0: component i is coupled to z_normal[i] with coefficient mu[i].
  std::vector<Eigen::Index> normal(static_cast<std::size_t>(n), -1);
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(n);
  for (const FrictionCoupling& c : problem.friction) {
    normal[static_cast<std::size_t>(c.index)] = c.normal;
    mu[c.index] = c.mu;
  }
  const Eigen::VectorXd step = M.diagonal().cwiseInverse() * relaxation;
  const int limit = options.iteration_limit(kDefaultSweeps);
  Eigen::VectorXd w = problem.slack(z);
  Eigen::VectorXd lo = problem.lower;
  Eigen::VectorXd hi = problem.upper;
  problem.bounds_at(z, lo, hi);
  // The point of smallest residual seen (sweep 0: the start): what a diverging run returns.
  Eigen::VectorXd best = z;
  double best_residual = natural_residual(z, w, lo, hi);
  int best_sweep = 0;
  lo = problem.lower;
  hi = problem.upper;
  Status status = Status::MaxIterations;
  std::string message;
  int sweep = 1;
  for (; sweep <= limit; ++sweep) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index j = normal[static_cast<std::size_t>(i)];
      if (j >= 0) {
        hi[i] = mu[i] * std::abs(z[j]);
        lo[i] = -hi[i];
      }
      const double updated = std::clamp(z[i] - step[i] * w[i], lo[i], hi[i]);
      const double change = updated - z[i];
      if (change == 0.0) continue;
      z[i] = updated;
      w.noalias() += change * M.col(i);
    }
    if (sweep % kPgsRefreshEvery == 0) w = problem.slack(z);
    problem.bounds_at(z, lo, hi);
    double residual = natural_residual(z, w, lo, hi);
    if (!std::isfinite(residual) || residual > kPgsDivergence * std::max(best_residual, options.tolerance)) {
      message = (std::isfinite(residual) ? "the residual grew to " + number_text(residual) + " at sweep "
                                         : std::string("iterates stopped being finite at sweep ")) +
                std::to_string(sweep) + ": the iteration diverges (is M positive definite?); returning the point of " +
                "smallest residual " + number_text(best_residual) + ", sweep " + std::to_string(best_sweep);
      z = best;
      status = Status::NumericalFailure;
      break;
    }
    if (residual < best_residual) {
      best = z;
      best_residual = residual;
      best_sweep = sweep;
    }
    bool converged = false;
    if (residual <= options.tolerance || sweep % kPgsRefreshEvery == 0) {  // the relative test on an exact w
      w = problem.slack(z);
      residual = natural_residual(z, w, lo, hi);
      converged = relative_residual(problem, z, w) <= options.tolerance;
    }
    if (options.record_history) record_history(result.history, residual);
    if (converged) {
      status = Status::Solved;
      message = "converged after " + std::to_string(sweep) + " sweeps";
      break;
    }
  }
  if (status == Status::MaxIterations) message = "sweep limit " + std::to_string(limit) + " reached";
  result.iterations = std::min(sweep, limit);
  result.z = std::move(z);
  result.status = status;
  result.message = std::move(message);
  return result;
}

namespace {

// The Newton family and path (`fixed_box`) through the MCP form. With friction coupling, an outer
// loop fixes the coupled bounds at the last iterate and solves the fixed box, warm-started, until z
// meets its own bounds.
Result box_newton(const BoxLcp& problem, const std::function<Result(const BoxLcp&, const SolveOptions&)>& fixed_box,
                  const SolveOptions& options) {
  if (problem.friction.empty()) return fixed_box(problem, options);
  BoxLcp fixed{problem.M, problem.q, {}, {}, {}};
  SolveOptions pass_options = options;
  Eigen::VectorXd z = start_point(problem, options);
  Result total;
  for (int pass = 1;; ++pass) {
    problem.bounds_at(z, fixed.lower, fixed.upper);
    pass_options.initial_guess = z;
    Result result = fixed_box(fixed, pass_options);
    total.iterations += result.iterations;
    for (const double h : result.history) record_history(total.history, h);
    z = result.z;
    if (!result.solved()) {
      total.status = result.status;
      total.message = "friction pass " + std::to_string(pass) + ": " + result.message;
      break;
    }
    if (relative_residual(problem, z, problem.slack(z)) <= options.tolerance) {
      total.status = Status::Solved;
      total.message = result.message + "; friction bounds settled after " + std::to_string(pass) + " passes";
      break;
    }
    if (pass >= options.max_friction_passes) {
      total.status = Status::MaxIterations;
      total.message = "friction pass limit " + std::to_string(options.max_friction_passes) +
                      " (max_friction_passes) reached with the bounds +-mu|z_normal| still moving";
      break;
    }
  }
  total.z = std::move(z);
  return total;
}

bool symmetric_with_positive_diagonal(const Eigen::MatrixXd& M) {
  if (M.size() == 0) return true;
  if (!(M.diagonal().minCoeff() > 0.0)) return false;
  return detail::scan_matrix(M).symmetric;
}

Result run_method(const BoxLcp& problem, Method method, const SolveOptions& options);

// What the box LCP supplies to the pipeline (pipeline.hpp).
struct BoxSteps {
  static constexpr ProblemKind kind = ProblemKind::BoxLcp;
  static void check(const BoxLcp&, Method, const SolveOptions&) {}
  static std::optional<Result> trivial(const BoxLcp& problem, const SolveOptions&) { return trivial_result(problem); }
  static Result run(const BoxLcp& problem, Method method, const SolveOptions& options) {
    return run_method(problem, method, options);
  }
  // z sized and finite, w = M z + q and the box residuals recomputed from z, whatever the method kept.
  static void finish(const BoxLcp& problem, const SolveOptions&, Result& result) {
    const Eigen::Index n = problem.size();
    if (result.z.size() != n) result.z = Eigen::VectorXd::Zero(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      if (!std::isfinite(result.z[i])) result.z[i] = 0.0;
    }
    result.w = problem.slack(result.z);
    Eigen::VectorXd lo, hi;  // natural_residual(problem, z), reading the w just formed
    problem.bounds_at(result.z, lo, hi);
    result.residual = natural_residual(result.z, result.w, lo, hi);
    result.relative_residual = relative_residual(problem, result.z, result.w);
  }
};


// Above this size auto tries pgs before dantzig on friction-coupled problems; below it the exact
// pivoting answer costs little (compare_bullet: a few ms at n = 99).
constexpr Eigen::Index kFrictionPgsFirstSize = 200;

Result box_auto(const BoxLcp& problem, const SolveOptions& options) {
  SolveOptions attempt_options = options;
  attempt_options.relaxation.reset();  // pgs runs with ω = 1 inside auto
  const bool spd_like = symmetric_with_positive_diagonal(problem.M);
  std::vector<Method> order;
  std::string reason;
  if (spd_like && !problem.friction.empty() && problem.size() > kFrictionPgsFirstSize) {
    // Measured on contact problems with coupled friction (bench/README.md, compare_bullet): pgs
    // re-reads the coupled bounds at every update and solves them in tens to hundreds of sweeps,
    // while the fixed-box passes of dantzig and newton-fb converge linearly and may not settle.
    order = {Method::Pgs, Method::Dantzig, Method::NewtonFb};
    reason = "M is symmetric with a positive diagonal, n > " + std::to_string(kFrictionPgsFirstSize) +
             " and friction couples bounds to normals: pgs first (it updates the coupled bounds within each sweep), "
             "dantzig and newton-fb (passes over fixed boxes) as fallbacks";
  } else if (spd_like) {
    order = {Method::Dantzig, Method::NewtonFb, Method::Pgs};
    reason =
        "M is symmetric with a positive diagonal: dantzig pivots exactly when M is positive definite, newton-fb "
        "and pgs are the fallbacks";
  } else {
    order = {Method::NewtonFb, Method::NewtonMin, Method::Dantzig};
    reason = "M is not symmetric with a positive diagonal: the Newton family first, dantzig (LU path) as the fallback";
  }
  return detail::first_that_solves(
      order, [&](Method method) { return detail::attempt<BoxSteps>(problem, method, attempt_options); }, reason);
}

Result run_method(const BoxLcp& problem, Method method, const SolveOptions& options) {
  switch (method) {
    case Method::Dantzig:
      return solve_dantzig(problem, options);
    case Method::Pgs:
      return detail::box_psor(problem, options, 1.0);
    case Method::Psor:
      return detail::box_psor(problem, options, options.relaxation.value_or(kDefaultRelaxation));
    case Method::NewtonFb:
    case Method::NewtonMin:
    case Method::PenalizedFb:
    case Method::Smoothing:
      return box_newton(
          problem,
          [&](const BoxLcp& p, const SolveOptions& o) { return solve_newton(p, *detail::reformulation_of(method), o); },
          options);
    case Method::Path:
      return box_newton(
          problem, [](const BoxLcp& p, const SolveOptions& o) { return solve_path(p, o); }, options);
    case Method::Auto:
      return box_auto(problem, options);
    default:
      break;
  }
  throw InvalidProblem("method '" + to_string(method) + "' does not accept a BoxLcp");  // the table says it does
}

}  // namespace

Result solve(const BoxLcp& problem, Method method, const SolveOptions& options) {
  return detail::solve_through<BoxSteps>(problem, method, options);
}

std::vector<Method> box_lcp_methods() { return methods_for(ProblemKind::BoxLcp); }

}  // namespace perp
