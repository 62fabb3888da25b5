#include "perp/solvers/solve.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/enumeration.hpp"
#include "perp/solvers/interior_point.hpp"
#include "perp/solvers/lemke.hpp"
#include "perp/solvers/murty.hpp"
#include "perp/solvers/newton.hpp"
#include "perp/solvers/pgs.hpp"

namespace perp {
namespace {

// Auto's limits: enumeration costs 2ⁿ small LU solves, Murty one LU per pivot.
constexpr Eigen::Index kAutoEnumerationLimit = 16;
constexpr Eigen::Index kAutoMurtyLimit = 200;
// Above this size a symmetric positive definite problem goes to PGS first: a sweep costs one
// matrix-vector product while a Lemke pivot grows toward O(n²) with the number of basic z's.
constexpr Eigen::Index kAutoPgsFirstSize = 1000;

constexpr double kDefaultRelaxation = 1.2;

// The reformulation a method of the Newton family solves; empty for the other methods.
std::optional<Reformulation> reformulation_of(Method method) {
  switch (method) {
    case Method::NewtonFb:
      return Reformulation::FischerBurmeister;
    case Method::NewtonMin:
      return Reformulation::MinMap;
    case Method::PenalizedFb:
      return Reformulation::PenalizedFb;
    case Method::Smoothing:
      return Reformulation::Smoothing;
    default:
      return std::nullopt;
  }
}

Result run(const Lcp& problem, Method method, const SolveOptions& options);
Result run(const Mcp& problem, Method method, const SolveOptions& options);
template <class Problem>
Result first_that_solves(const Problem& problem, const std::vector<Method>& order, const SolveOptions& options);

struct Structure {
  bool symmetric = false;
  bool positive_diagonal = false;
  bool positive_definite = false;  // of the symmetric part, by Cholesky; only tested where it matters
};

// Cheap tests of M: O(n²), plus one Cholesky (O(n³)/3) only for the large symmetric problems whose
// method order depends on it.
Structure inspect(const Eigen::MatrixXd& M) {
  Structure s;
  const Eigen::Index n = M.rows();
  if (n == 0) return s;
  // Relative to the largest entry, so that the answer does not depend on the units of M.
  s.symmetric = (M - M.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * M.cwiseAbs().maxCoeff();
  s.positive_diagonal = M.diagonal().minCoeff() > 0.0;
  if (s.symmetric && s.positive_diagonal && n > kAutoPgsFirstSize) {
    const Eigen::LLT<Eigen::MatrixXd> cholesky(M);
    s.positive_definite = cholesky.info() == Eigen::Success;
  }
  return s;
}

Result solve_auto(const Lcp& problem, const SolveOptions& options) {
  const Eigen::Index n = problem.size();
  const Structure s = inspect(problem.M);
  std::vector<Method> order;
  if (s.symmetric && s.positive_definite && n > kAutoPgsFirstSize) {
    order = {Method::Pgs, Method::Lemke};
  } else {
    order = {Method::Lemke};
    if (s.positive_diagonal && n <= kAutoMurtyLimit) order.push_back(Method::Murty);
    if (s.positive_diagonal) order.push_back(Method::Pgs);
    order.push_back(Method::NewtonFb);
    if (n <= kAutoEnumerationLimit) order.push_back(Method::Enum);
  }
  SolveOptions attempt_options = options;
  attempt_options.relaxation.reset();  // pgs runs with ω = 1 inside auto
  return first_that_solves(problem, order, attempt_options);
}

// Runs the methods in turn; returns the first that solves, or the attempt with the smallest residual.
template <class Problem>
Result first_that_solves(const Problem& problem, const std::vector<Method>& order, const SolveOptions& options) {
  std::string log;
  Result best;
  bool have_best = false;
  for (const Method method : order) {
    Result attempt = run(problem, method, options);
    log += (log.empty() ? "" : "; ") + to_string(method) + ": " + to_string(attempt.status);
    if (attempt.solved() || attempt.status == Status::Infeasible) {  // a solution, or a proof there is none
      attempt.message = "auto (" + log + "): " + attempt.message;
      return attempt;
    }
    if (!have_best || attempt.residual < best.residual) {
      best = std::move(attempt);
      have_best = true;
    }
  }
  best.message = "auto: no method solved (" + log + "); returning " + best.method + "'s point: " + best.message;
  return best;
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
      return solve_newton(problem, *reformulation_of(method), options);
    case Method::InteriorPoint:
      return solve_interior_point(problem, options);
    case Method::Auto:
      return solve_auto(problem, options);
  }
  throw InvalidProblem("unknown method value " + std::to_string(static_cast<int>(method)));
}

Result run(const Mcp& problem, Method method, const SolveOptions& options) {
  if (const std::optional<Reformulation> reformulation = reformulation_of(method)) {
    return solve_newton(problem, *reformulation, options);
  }
  if (method == Method::Auto) {
    return first_that_solves(problem, {Method::NewtonFb, Method::NewtonMin, Method::Smoothing}, options);
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
