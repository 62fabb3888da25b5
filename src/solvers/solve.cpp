#include "perp/solvers/solve.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "detail.hpp"
#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/enumeration.hpp"
#include "perp/solvers/lemke.hpp"
#include "perp/solvers/murty.hpp"
#include "perp/solvers/pgs.hpp"
#include "perp/solvers/recommend.hpp"

namespace perp {
namespace {

constexpr double kDefaultRelaxation = 1.2;

Result run(const Lcp& problem, Method method, const SolveOptions& options);

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

  std::string log;
  Result best;
  bool have_best = false;
  for (const Method method : recommendation.order) {
    Result attempt = run(problem, method, attempt_options);
    attempt.method = to_string(method);
    log += (log.empty() ? "" : "; ") + to_string(method) + ": " + to_string(attempt.status);
    if (attempt.solved()) {
      attempt.message = "auto (" + log + "): " + attempt.message;
      return attempt;
    }
    if (!have_best || attempt.residual < best.residual) {
      best = std::move(attempt);
      have_best = true;
    }
  }
  best.message = "auto: no method solved (" + log + "); returning " + best.method + "'s point: " + best.message +
                 " [order chosen because " + recommendation.reason + "]";
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
    case Method::Auto:
      return solve_auto(problem, options);
  }
  throw InvalidProblem("unknown method value " + std::to_string(static_cast<int>(method)));
}

}  // namespace

Result solve(const Lcp& problem, Method method, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  if (method == Method::Pgs && options.relaxation && *options.relaxation != 1.0) {
    throw InvalidProblem("relaxation " + std::to_string(*options.relaxation) +
                         " given for pgs, which is psor with relaxation 1; use method psor");
  }
  const auto start = std::chrono::steady_clock::now();
  Result result = run(problem, method, options);
  const auto stop = std::chrono::steady_clock::now();
  result.time_ms = std::chrono::duration<double, std::milli>(stop - start).count();
  if (method != Method::Auto) result.method = to_string(method);
  return result;
}

}  // namespace perp
