#pragma once
/// \file
/// Batches: many independent LCPs solved on a pool of threads (`solve_many`).

#include <span>
#include <string>
#include <vector>

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// One problem's outcome in a batch: its `Result`, or the error that stopped its solve.
struct BatchResult {
  /// What `solve(problem, method, options)` returned; empty (default) when `error` is set.
  Result result;
  /// The `what()` of the exception that `solve` threw for this problem (`InvalidProblem` for bad
  /// input, `std::bad_alloc` as "out of memory"); empty when the solve ran.
  std::string error;
  /// The exception was `std::bad_alloc`.
  bool out_of_memory = false;
  [[nodiscard]] bool ok() const { return error.empty(); }
};

/// Solves every problem of `problems` with `solve(problem, method, options)` on `threads` worker
/// threads (0: `std::thread::hardware_concurrency()`; never more threads than problems; the calling
/// thread is one of them). Each worker takes the next unsolved problem in turn, so long and short
/// solves share the load. The solves are independent (no state is shared between them) and the
/// results come back in input order, one per problem: a problem whose solve throws (bad input, out
/// of memory; invalid `options` make every item fail alike) gets its `error` set and the others are
/// solved all the same. `options.interrupt` is also polled between problems: once it answers true,
/// every problem not yet started gets status `interrupted` (its message says it was not solved), and
/// those running end as their solve's poll sees it. `options.time_limit` applies to each problem.
/// Nothing is thrown but `std::system_error` when a thread cannot be started.
[[nodiscard]] std::vector<BatchResult> solve_many(std::span<const Lcp> problems, Method method = Method::Auto,
                                                  const SolveOptions& options = {}, unsigned threads = 0);

}  // namespace perp
