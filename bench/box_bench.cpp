// Google Benchmark suite for perp's box-LCP methods on the box LCPs of problems.hpp.
//
//   build-bench/bench/box_bench
//   build-bench/bench/box_bench --benchmark_filter='BM_box/contact-friction/dantzig'
//
// BM_box/<problem>/<method>/<n>: one solve per benchmark iteration, with the counters
//   n            the problem's size (the contact problems round the requested n to 3k)
//   iterations   Result::iterations (pivots for dantzig, sweeps for pgs, Newton steps)
//   residual     perp::natural_residual(BoxLcp, z) recomputed here from the returned z
// Problems: contact-fixed (fixed friction boxes), contact-friction (tangents coupled to their
// normal by μ), spd-nub (dense SPD with free leading rows); see problems.hpp. A solve that does
// not end `Solved` marks the row as an error naming its status, so a regression in correctness
// cannot hide behind a good time.

#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <utility>

#include "perp/perp.hpp"
#include "problems.hpp"

namespace {

using perp::bench::BoxVariant;

/// Each problem is generated once and reused by every benchmark (generation is not timed).
const perp::BoxLcp& problem_of(BoxVariant variant, Eigen::Index n) {
  static std::map<std::pair<BoxVariant, Eigen::Index>, perp::BoxLcp> cache;
  const auto key = std::make_pair(variant, n);
  auto found = cache.find(key);
  if (found == cache.end()) found = cache.emplace(key, perp::bench::box_problem(variant, n)).first;
  return found->second;
}

void run_box(benchmark::State& state, BoxVariant variant, perp::Method method) {
  const perp::BoxLcp& problem = problem_of(variant, state.range(0));
  perp::SolveOptions options;
  options.record_history = false;  // a diagnostic, not part of the solve
  perp::Result result;
  for (auto _ : state) {
    result = perp::solve(problem, method, options);
    benchmark::DoNotOptimize(result.z.data());
  }
  state.counters["n"] = static_cast<double>(problem.size());
  state.counters["iterations"] = result.iterations;
  const double residual = perp::natural_residual(problem, result.z);
  state.counters["residual"] = residual;
  if (!result.solved()) {
    state.SkipWithError(("not solved: " + perp::to_string(result.status) + " after " +
                         std::to_string(result.iterations) + " iterations, residual " + perp::number_text(residual) +
                         " (" + result.message + ")")
                            .c_str());
  }
}

// n = 1000 costs up to a second per solve for the pivoting and Newton methods on a 2-core
// machine, so those rows run a fixed small number of iterations.
[[maybe_unused]] const bool box_registered = [] {
  const perp::Method methods[] = {perp::Method::Dantzig, perp::Method::Pgs, perp::Method::NewtonFb, perp::Method::Auto};
  for (const BoxVariant variant : perp::bench::kBoxVariants) {
    for (const perp::Method method : methods) {
      const std::string name = "BM_box/" + std::string(perp::bench::to_string(variant)) + "/" + perp::to_string(method);
      benchmark::RegisterBenchmark(name.c_str(), run_box, variant, method)
          ->Unit(benchmark::kMillisecond)
          ->Arg(100)
          ->Arg(500);
      benchmark::RegisterBenchmark(name.c_str(), run_box, variant, method)
          ->Unit(benchmark::kMillisecond)
          ->Arg(1000)
          ->Iterations(5);
    }
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
