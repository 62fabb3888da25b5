// The cost of derivatives after a solve (docs/sensitivity.md), on the spd family of problems.hpp.
//
//   build-bench/bench/sensitivity_bench
//
// BM_solve/<n>:        one `solve` (auto) per iteration — the reference;
// BM_derivatives/<n>:  building `LcpSensitivity` (sorting, one LU of the free block) and one vjp;
// BM_vjp/<n>:          one more vjp on an object already built (two triangular solves).
// The ratio BM_derivatives / BM_solve is the figure the issue asks for.

#include <benchmark/benchmark.h>

#include <map>

#include "perp/perp.hpp"
#include "perp/solvers/sensitivity.hpp"
#include "problems.hpp"

namespace {

struct Solved {
  perp::Lcp problem;
  Eigen::VectorXd z;
};

const Solved& solved(Eigen::Index n) {
  static std::map<Eigen::Index, Solved> cache;
  auto found = cache.find(n);
  if (found == cache.end()) {
    perp::Lcp problem = perp::bench::spd_problem(n);
    perp::SolveOptions options;
    options.tolerance = 1e-12;
    const perp::Result r = perp::solve(problem, perp::Method::Auto, options);
    found = cache.emplace(n, Solved{std::move(problem), r.z}).first;
  }
  return found->second;
}

void BM_solve(benchmark::State& state) {
  const Solved& s = solved(state.range(0));
  perp::SolveOptions options;
  options.record_history = false;
  for (auto _ : state) {
    perp::Result r = perp::solve(s.problem, perp::Method::Auto, options);
    benchmark::DoNotOptimize(r.z.data());
  }
}

void BM_derivatives(benchmark::State& state) {
  const Solved& s = solved(state.range(0));
  const Eigen::VectorXd z_bar = Eigen::VectorXd::Ones(s.z.size());
  int free = 0;
  for (auto _ : state) {
    perp::LcpSensitivity sensitivity(s.problem, s.z);
    auto g = sensitivity.vjp(z_bar);
    benchmark::DoNotOptimize(g.q.data());
    free = 0;
    for (perp::ComponentState c : sensitivity.states()) free += c == perp::ComponentState::Free ? 1 : 0;
  }
  state.counters["free"] = free;
}

void BM_vjp(benchmark::State& state) {
  const Solved& s = solved(state.range(0));
  const perp::LcpSensitivity sensitivity(s.problem, s.z);
  const Eigen::VectorXd z_bar = Eigen::VectorXd::Ones(s.z.size());
  for (auto _ : state) {
    auto g = sensitivity.vjp(z_bar);
    benchmark::DoNotOptimize(g.q.data());
  }
}

BENCHMARK(BM_solve)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_derivatives)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_vjp)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
