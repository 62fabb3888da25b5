#pragma once
// The one solve pipeline (not installed): every `solve(problem, method, options)` is
//   validate once → refuse what the method table says it does not take → trivial case → run the
//   method → finish (z finite, w and the residuals recomputed from z) → one "solved" judgement → time.
// A problem type supplies only what differs, as a `Steps` struct:
//   static constexpr ProblemKind kind;
//   static void check(const Problem&, Method, const SolveOptions&);      // its own refusals (throw)
//   static std::optional<Result> trivial(const Problem&, const SolveOptions&);  // z = 0 solves exactly
//   static Result run(const Problem&, Method, const SolveOptions&);      // the method's kernel, or auto
//   static void finish(const Problem&, const SolveOptions&, Result&);    // recompute from z
// and, only where "solved" reads more than the relative residual (the frictional contact problem:
// its physical criteria too), its own judgement in place of `settle`:
//   void judge(const Problem&, const SolveOptions&, Result&);
// The members may be static (the linear types) or not: a type whose steps hand something on (the
// frictional contact problem: the residuals a method formed, so finish does not form them again)
// passes a `Steps` object to `attempt`/`solve_through` and reads it afterwards.
// `Problem::validate()` and `SolveOptions::validate(size)` come first; nothing later validates again.

#include <chrono>
#include <optional>

#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"
#include "stop.hpp"

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

/// `Steps::finish`, then the judgement: `Steps::judge` where the type has its own, else `settle`.
template <class Steps, class Problem>
void conclude(Steps& steps, const Problem& problem, const SolveOptions& options, Result& result) {
  steps.finish(problem, options, result);
  if constexpr (requires { steps.judge(problem, options, result); }) {
    steps.judge(problem, options, result);
  } else {
    settle(result, options.tolerance);
  }
}

/// One run of `method` through the trivial case, the kernel, finish and the judgement (no
/// validation): what `solve` does after validating, and what `auto` does for each method it tries.
template <class Steps, class Problem>
Result attempt(Steps& steps, const Problem& problem, Method method, const SolveOptions& options) {
  std::optional<Result> trivial = steps.trivial(problem, options);
  Result result = trivial ? *std::move(trivial) : steps.run(problem, method, options);
  conclude(steps, problem, options, result);
  if (method != Method::Auto) result.method = method;  // auto: the method that answered
  return result;
}
template <class Steps, class Problem>
Result attempt(const Problem& problem, Method method, const SolveOptions& options) {
  Steps steps;
  return attempt(steps, problem, method, options);
}

/// The whole pipeline: validate, refuse, `attempt`, time.
template <class Steps, class Problem>
Result solve_through(Steps& steps, const Problem& problem, Method method, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  check_method(method, Steps::kind, options);
  steps.check(problem, method, options);
  const StopScope stop(options);  // time_limit's deadline and the interrupt hook, for every method run
  if (!options.measure_time) return attempt(steps, problem, method, options);  // time_ms stays 0
  const auto start = std::chrono::steady_clock::now();
  Result result = attempt(steps, problem, method, options);
  result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}
template <class Steps, class Problem>
Result solve_through(const Problem& problem, Method method, const SolveOptions& options) {
  Steps steps;
  return solve_through(steps, problem, method, options);
}

}  // namespace perp::detail
