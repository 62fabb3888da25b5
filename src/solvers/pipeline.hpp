#pragma once
// The one solve pipeline (not installed): every `solve(problem, method, options)` is
//   validate once → refuse what the method table says it does not take → trivial case → run the
//   method → finish (z finite, w and the residuals recomputed from z) → one "solved" judgement → time.
// A problem type supplies only what differs, as a `Steps` struct with static members:
//   static constexpr ProblemKind kind;
//   static void check(const Problem&, Method, const SolveOptions&);      // its own refusals (throw)
//   static std::optional<Result> trivial(const Problem&, const SolveOptions&);  // z = 0 solves exactly
//   static Result run(const Problem&, Method, const SolveOptions&);      // the method's kernel, or auto
//   static void finish(const Problem&, const SolveOptions&, Result&);    // recompute from z
// `Problem::validate()` and `SolveOptions::validate(size)` come first; nothing later validates again.

#include <chrono>
#include <optional>

#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// The refusals every type shares, read from the method table: a method that does not accept
/// `kind` (the message lists those that do), `all_solutions` outside an Lcp, pgs with a
/// relaxation other than 1. Throws `InvalidProblem`.
void check_method(Method method, ProblemKind kind, const SolveOptions& options);

/// The one judgement, on the relative residual recomputed from z: a claim of `Solved` that misses
/// the tolerance becomes `NumericalFailure`; any other status whose point meets it becomes `Solved`
/// (the message keeps what the method said). Formats a message only when it changes the status.
/// A status left `NotRun` by a method becomes `NoSolutionFound`, so `solve` never returns `NotRun`.
void settle(Result& result, double tolerance);

/// One run of `method` through the trivial case, the kernel, finish and the judgement (no
/// validation): what `solve` does after validating, and what `auto` does for each method it tries.
template <class Steps, class Problem>
Result attempt(const Problem& problem, Method method, const SolveOptions& options) {
  std::optional<Result> trivial = Steps::trivial(problem, options);
  Result result = trivial ? *std::move(trivial) : Steps::run(problem, method, options);
  Steps::finish(problem, options, result);
  settle(result, options.tolerance);
  if (method != Method::Auto) result.method = method;  // auto: the method that answered
  return result;
}

/// The whole pipeline: validate, refuse, `attempt`, time.
template <class Steps, class Problem>
Result solve_through(const Problem& problem, Method method, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  check_method(method, Steps::kind, options);
  Steps::check(problem, method, options);
  const auto start = std::chrono::steady_clock::now();
  Result result = attempt<Steps>(problem, method, options);
  result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace perp::detail
