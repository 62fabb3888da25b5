#include "perp/solvers/box_lcp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "box_passes.hpp"
#include "entry/detail.hpp"
#include "entry/pipeline.hpp"
#include "perp/core/residual.hpp"
#include "perp/core/error.hpp"
#include "perp/core/ncp.hpp"
#include "pivoting/dantzig.hpp"
#include "newton/newton.hpp"
#include "splitting/pgs.hpp"
#include "newton/path.hpp"

namespace perp {
namespace {

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

// The Newton family and path (`fixed_box`) through the MCP form; with friction coupling, inside the
// friction passes (box_passes.hpp), each fixed box warm-started from the last point.
Result box_newton(const BoxLcp& problem, const std::function<Result(const BoxLcp&, const SolveOptions&)>& fixed_box,
                  const SolveOptions& options) {
  if (problem.friction.empty()) return fixed_box(problem, options);
  BoxLcp fixed{problem.M, problem.q, {}, {}, {}};
  SolveOptions pass_options = options;
  const auto pass = [&](int, Eigen::VectorXd& lo, Eigen::VectorXd& hi, Eigen::VectorXd& z, Eigen::VectorXd& w,
                        Result& total) -> detail::FixedBoxOutcome {
    fixed.lower = lo;
    fixed.upper = hi;
    pass_options.initial_guess = z;
    Result result = fixed_box(fixed, pass_options);
    total.iterations += result.iterations;
    for (const double h : result.history) record_history(total.history, h);
    z = std::move(result.z);
    w = problem.slack(z);
    return {result.status, std::move(result.message)};
  };
  return detail::friction_passes(
      problem, detail::bounded_start(problem.lower, problem.upper, problem.friction, options), options, pass);
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
    // Measured on contact problems with coupled friction (bench/HISTORY.md, compare_bullet): pgs
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
      return solve_psor(problem, options, 1.0);
    case Method::Psor:
      return solve_psor(problem, options, options.relaxation.value_or(kDefaultRelaxation));
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
