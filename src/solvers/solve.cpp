#include "perp/solvers/solve.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "detail.hpp"
#include "perp/analysis/classify.hpp"
#include "perp/core/box_lcp.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/dantzig.hpp"
#include "perp/solvers/enumeration.hpp"
#include "perp/solvers/interior_point.hpp"
#include "perp/solvers/lemke.hpp"
#include "perp/solvers/murty.hpp"
#include "perp/solvers/newton.hpp"
#include "perp/solvers/pgs.hpp"
#include "perp/solvers/recommend.hpp"

namespace perp {
namespace {

constexpr double kDefaultRelaxation = 1.2;

Result run(const Lcp& problem, Method method, const SolveOptions& options);
Result run(const Mcp& problem, Method method, const SolveOptions& options);
template <class Problem>
Result first_that_solves(const Problem& problem, const std::vector<Method>& order, const SolveOptions& options,
                         const std::string& reason);

// The order comes from the cheap matrix report (O(n²) tests, Cholesky factorizations only where
// the order depends on them, exact enumerations only for n <= 6) and its recommendation.
Result solve_auto(const Lcp& problem, const SolveOptions& options) {
  if (auto trivial = detail::trivial_result(problem, "auto")) return *std::move(trivial);
  const Eigen::Index n = problem.size();
  ClassifyOptions cheap = ClassifyOptions::cheap();
  cheap.symmetric_factorization_above = kRecommendPgsFirstSize;  // where the order depends on PD/PSD
  const Recommendation recommendation = recommend(classify(problem.M, cheap), n);
  SolveOptions attempt_options = options;
  attempt_options.relaxation.reset();  // pgs runs with ω = 1 inside auto
  return first_that_solves(problem, recommendation.order, attempt_options, recommendation.reason);
}

// Runs the methods in turn (detail::first_that_solves).
template <class Problem>
Result first_that_solves(const Problem& problem, const std::vector<Method>& order, const SolveOptions& options,
                         const std::string& reason) {
  return detail::first_that_solves(
      order, [&](Method method) { return run(problem, method, options); }, reason);
}

// dantzig on the LCP: the box [0, +∞).
Result solve_dantzig_lcp(const Lcp& problem, const SolveOptions& options) {
  if (auto trivial = detail::trivial_result(problem, "dantzig")) return *std::move(trivial);
  return solve_dantzig(to_box_lcp(problem), options);
}

Result run(const Lcp& problem, Method method, const SolveOptions& options) {
  switch (method) {
    case Method::Enum:
      return solve_enumeration(problem, options);
    case Method::Lemke:
      return solve_lemke(problem, options);
    case Method::Murty:
      return solve_murty(problem, options);
    case Method::Pgs:
      return solve_psor(problem, options, 1.0);
    case Method::Psor:
      return solve_psor(problem, options, options.relaxation.value_or(kDefaultRelaxation));
    case Method::NewtonFb:
    case Method::NewtonMin:
    case Method::PenalizedFb:
    case Method::Smoothing:
      return solve_newton(problem, *detail::reformulation_of(method), options);
    case Method::InteriorPoint:
      return solve_interior_point(problem, options);
    case Method::Auto:
      return solve_auto(problem, options);
    case Method::Dantzig:
      return solve_dantzig_lcp(problem, options);
    case Method::Schur:
    case Method::Nsgs:
    case Method::NewtonAc:
    case Method::Prox:
      break;
  }
  throw InvalidProblem("method '" + to_string(method) + "' does not accept an Lcp");
}

Result run(const Mcp& problem, Method method, const SolveOptions& options) {
  if (const std::optional<Reformulation> reformulation = detail::reformulation_of(method)) {
    return solve_newton(problem, *reformulation, options);
  }
  if (method == Method::Auto) {
    return first_that_solves(problem, {Method::NewtonFb, Method::NewtonMin, Method::Smoothing}, options,
                             "F is nonlinear: the Newton family, the FB reformulation first");
  }
  throw InvalidProblem("method '" + to_string(method) + "' does not accept an Mcp");
}

Result timed(const auto& problem, Method method, const SolveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Result result = run(problem, method, options);
  const auto stop = std::chrono::steady_clock::now();
  result.time_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  if (method != Method::Auto) result.method = to_string(method);
  return result;
}

}  // namespace

Result solve(const Lcp& problem, Method method, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  if (method == Method::Pgs && options.relaxation && *options.relaxation != 1.0) {
    throw InvalidProblem("relaxation " + std::to_string(*options.relaxation) +
                         " given for pgs, which is psor with relaxation 1; use method psor");
  }
  return timed(problem, method, options);
}

Result solve(const Ncp& problem, Method method, const SolveOptions& options) {
  return solve(to_mcp(problem), method, options);
}

Result solve(const Mcp& problem, Method method, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  if (!accepts_nonlinear(method)) {
    throw InvalidProblem("method '" + to_string(method) +
                         "' needs an Lcp (the matrix M); for an Ncp or Mcp use newton-fb, newton-min, penalized-fb, "
                         "smoothing or auto");
  }
  return timed(problem, method, options);
}

}  // namespace perp
