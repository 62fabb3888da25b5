// Google Benchmark suite for perp's LCP methods on the dense SPD problems of problems.hpp (and, in
// BM_family, the Newton methods and interior point on the singular contact family beside them).
//
//   build-bench/bench/perp_bench                       all of it (about half a minute)
//   build-bench/bench/perp_bench --benchmark_filter=lemke
//
// Solver benchmarks report, besides time per solve:
//   iterations   pivots (lemke, murty) or sweeps (pgs, psor), Result::iterations
//   residual     natural residual ‖min(z, w)‖∞ of the returned z, Result::residual
//   ms_per_pivot (lemke) solve time / pivots, averaged over the benchmark's iterations
//   ms_per_iteration (newton-fb, newton-min, interior-point, path) solve time / Newton steps (path:
//                major iterations), likewise
// BM_corpus/<file>/<method> runs the Siconos LCP corpus (data/siconos/lcp) the same way; a
// method that does not solve a file shows as an error row naming its status.
// A solve that does not end `Solved` marks the benchmark as an error, so a regression in
// correctness cannot hide behind a good time.
//
// The last group sets the cost of one PGS sweep against one dense matrix–vector product
// y = M x of the same size (see the comment above BM_pgs_sweep_cost).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "perp/perp.hpp"
#include "problems.hpp"

namespace {

using perp::bench::spd_problem;

/// Each size is generated once and reused by every benchmark (generation is not timed).
const perp::Lcp& problem_of_size(Eigen::Index n) {
  static std::map<Eigen::Index, perp::Lcp> cache;
  auto found = cache.find(n);
  if (found == cache.end()) found = cache.emplace(n, spd_problem(n)).first;
  return found->second;
}

/// The same M with q = −M·1: the solution is z = 1, every component is active, and from z = 0
/// every z_i changes in every sweep — the worst case for a sweep, which then updates w by every
/// column of M.
const perp::Lcp& all_active_problem_of_size(Eigen::Index n) {
  static std::map<Eigen::Index, perp::Lcp> cache;
  auto found = cache.find(n);
  if (found == cache.end()) {
    perp::Lcp problem = problem_of_size(n);
    problem.q = -(problem.M * Eigen::VectorXd::Ones(n));
    found = cache.emplace(n, std::move(problem)).first;
  }
  return found->second;
}

/// Options for the timed solves: the library defaults (tolerance 1e-8 on the natural
/// residual, default iteration limits), without the per-iteration residual history, which is
/// a diagnostic a caller asks for and Siconos (the comparison target) does not keep.
perp::SolveOptions timed_options() {
  perp::SolveOptions options;
  options.record_history = false;
  return options;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Solves `problem` with `method` once per benchmark iteration and reports the counters
/// described at the top of the file. Stops with an error at the first solve that is not
/// `Solved`.
void run_solver(benchmark::State& state, perp::Method method, const perp::Lcp& problem,
                const perp::SolveOptions& options = timed_options()) {
  perp::Result result;
  double ms_per_pivot_sum = 0;
  for (auto _ : state) {
    result = perp::solve(problem, method, options);
    benchmark::DoNotOptimize(result.z.data());
    if (!result.solved()) {
      state.SkipWithError(("not solved: " + perp::to_string(result.status) + " after " +
                           std::to_string(result.iterations) + " iterations, residual " +
                           std::to_string(result.residual) + " (" + result.message + ")")
                              .c_str());
      break;
    }
    if (result.iterations > 0) ms_per_pivot_sum += result.time_ms / result.iterations;
  }
  state.counters["iterations"] = result.iterations;
  state.counters["residual"] = result.residual;
  // Result::time_ms is measured by `solve` itself; kAvgIterations divides the sum by the
  // number of benchmark iterations, giving the mean over all timed solves.
  if (method == perp::Method::Lemke) {
    state.counters["ms_per_pivot"] = benchmark::Counter(ms_per_pivot_sum, benchmark::Counter::kAvgIterations);
  } else if (method == perp::Method::NewtonFb || method == perp::Method::NewtonMin ||
             method == perp::Method::InteriorPoint || method == perp::Method::Path) {
    state.counters["ms_per_iteration"] = benchmark::Counter(ms_per_pivot_sum, benchmark::Counter::kAvgIterations);
  }
}

void run_solver(benchmark::State& state, perp::Method method) {
  run_solver(state, method, problem_of_size(state.range(0)));
}

void BM_lemke(benchmark::State& state) { run_solver(state, perp::Method::Lemke); }
void BM_murty(benchmark::State& state) { run_solver(state, perp::Method::Murty); }
void BM_pgs(benchmark::State& state) { run_solver(state, perp::Method::Pgs); }
void BM_psor(benchmark::State& state) { run_solver(state, perp::Method::Psor); }
void BM_newton_fb(benchmark::State& state) { run_solver(state, perp::Method::NewtonFb); }
void BM_newton_min(benchmark::State& state) { run_solver(state, perp::Method::NewtonMin); }
void BM_interior_point(benchmark::State& state) { run_solver(state, perp::Method::InteriorPoint); }
void BM_path(benchmark::State& state) { run_solver(state, perp::Method::Path); }

// Fixed iteration counts for the slow cases keep `make bench` within a few minutes on a
// 2-core machine; the fast ones let Google Benchmark pick (its default 0.5 s per case).
// Measured on such a machine: lemke n = 1000 ≈ 70 ms, murty n = 500 ≈ 1.6 s (one LU per pivot,
// about 1000 pivots), which is why murty stops at 500.
BENCHMARK(BM_lemke)->Unit(benchmark::kMillisecond)->Args({10})->Args({100})->Args({500});
BENCHMARK(BM_lemke)->Unit(benchmark::kMillisecond)->Args({1000})->Iterations(10);
BENCHMARK(BM_murty)->Unit(benchmark::kMillisecond)->Args({10})->Args({100});
BENCHMARK(BM_murty)->Unit(benchmark::kMillisecond)->Args({500})->Iterations(2);
BENCHMARK(BM_pgs)->Unit(benchmark::kMillisecond)->Args({10})->Args({100})->Args({500})->Args({1000});
BENCHMARK(BM_psor)->Unit(benchmark::kMillisecond)->Args({10})->Args({100})->Args({500})->Args({1000});
// One Newton step factors an n×n matrix (Cholesky of the reduced symmetric system here), so
// n = 1000 costs tens of milliseconds per step; a few repetitions suffice.
BENCHMARK(BM_newton_fb)->Unit(benchmark::kMillisecond)->Args({10})->Args({100})->Args({500});
BENCHMARK(BM_newton_fb)->Unit(benchmark::kMillisecond)->Args({1000})->Iterations(5);
BENCHMARK(BM_newton_min)->Unit(benchmark::kMillisecond)->Args({10})->Args({100})->Args({500});
BENCHMARK(BM_newton_min)->Unit(benchmark::kMillisecond)->Args({1000})->Iterations(5);
BENCHMARK(BM_path)->Unit(benchmark::kMillisecond)->Args({10})->Args({100})->Args({500});
BENCHMARK(BM_path)->Unit(benchmark::kMillisecond)->Args({1000})->Iterations(5);
BENCHMARK(BM_interior_point)->Unit(benchmark::kMillisecond)->Args({10})->Args({100})->Args({500});
BENCHMARK(BM_interior_point)->Unit(benchmark::kMillisecond)->Args({1000})->Iterations(5);

// The Newton methods and interior point on both families of problems.hpp side by side (issue 19):
// BM_family/<method>/<n>/<family>, family 0 the spd problem above, 1 the contact problem (M = J W Jᵀ,
// singular positive semidefinite), 2 its denser variant with ten contacts a body (interior point
// only, at tolerance 1e-10). Run with --benchmark_filter=BM_family.
const perp::Lcp& family_problem(Eigen::Index n, std::int64_t family) {
  static std::map<std::pair<Eigen::Index, std::int64_t>, perp::Lcp> cache;
  const std::pair key(n, family);
  auto found = cache.find(key);
  if (found == cache.end()) {
    found = cache.emplace(key, family == 0 ? spd_problem(n) : perp::bench::contact_problem(n, family == 1 ? 4 : 10))
                .first;
  }
  return found->second;
}
void BM_family(benchmark::State& state, perp::Method method) {
  perp::SolveOptions options = timed_options();
  if (state.range(1) == 2) options.tolerance = 1e-10;  // the figure docs/solvers.md quotes
  run_solver(state, method, family_problem(state.range(0), state.range(1)), options);
}
BENCHMARK_CAPTURE(BM_family, newton_fb, perp::Method::NewtonFb)
    ->Unit(benchmark::kMillisecond)
    ->ArgsProduct({{100, 1000}, {0, 1}})
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_family, newton_min, perp::Method::NewtonMin)
    ->Unit(benchmark::kMillisecond)
    ->ArgsProduct({{100, 1000}, {0, 1}})
    ->Iterations(5);
BENCHMARK_CAPTURE(BM_family, interior_point, perp::Method::InteriorPoint)
    ->Unit(benchmark::kMillisecond)
    ->ArgsProduct({{100, 1000}, {0, 1}})
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_family, interior_point, perp::Method::InteriorPoint)
    ->Unit(benchmark::kMillisecond)
    ->ArgsProduct({{100, 1000}, {2}})
    ->Iterations(1);

// ---------------------------------------------------------------------------------------------
// The Siconos corpus: every file × a few methods, registered at start-up from the data folder.

void run_corpus(benchmark::State& state, const perp::Lcp& problem, perp::Method method) {
  const perp::SolveOptions options = timed_options();
  perp::Result result;
  for (auto _ : state) {
    result = perp::solve(problem, method, options);
    benchmark::DoNotOptimize(result.z.data());
  }
  if (!result.solved()) {
    state.SkipWithError(("not solved: " + perp::to_string(result.status)).c_str());
    return;
  }
  state.counters["n"] = static_cast<double>(problem.size());
  state.counters["iterations"] = result.iterations;
  state.counters["residual"] = result.residual;
}

[[maybe_unused]] const bool corpus_registered = [] {
  const std::filesystem::path folder(PERP_BENCH_DATA_DIR);
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(folder)) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (entry.path().extension() == ".dat") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  static std::vector<perp::Lcp> problems;  // stable storage for the lambdas' references
  problems.reserve(files.size());
  for (const auto& file : files) {
    problems.push_back(perp::read_siconos_lcp(file));
    const perp::Lcp& problem = problems.back();
    for (const perp::Method method : {perp::Method::Lemke, perp::Method::Pgs, perp::Method::NewtonFb,
                                      perp::Method::NewtonMin, perp::Method::InteriorPoint}) {
      const std::string name = "BM_corpus/" + file.stem().string() + "/" + perp::to_string(method);
      benchmark::RegisterBenchmark(name.c_str(), [&problem, method](benchmark::State& state) {
        run_corpus(state, problem, method);
      })->Unit(benchmark::kMicrosecond);
    }
  }
  return true;
}();

// ---------------------------------------------------------------------------------------------
// PGS sweep vs dense matrix–vector product.
//
// A PGS solve limited to one sweep is not one sweep of work: `solve` first validates the
// problem (one pass over M checking for NaN/Inf), the method forms w = M z + q, does the sweep,
// and the result recomputes w = M z + q from the returned z. BM_pgs_single_sweep reports that
// whole call, because it is what a caller doing one sweep per time step pays.
//
// BM_pgs_sweep_cost isolates the sweep: each benchmark iteration times a 51-sweep and a
// 1-sweep solve from the same start and reports (t51 − t1) / 50 as its (manual) time, so the
// fixed per-call costs cancel. Two things to know when reading it:
//   - the sweep updates w by a column of M only for the z_i that change, so near the solution
//     (where roughly the active half of z still moves) a sweep can cost less than a full pass;
//     the second argument 1 runs the all-active problem (q = −M·1), where every z_i changes in
//     every sweep and the sweep does its full work: that is the figure to hold against 1.3×;
//   - the method refreshes w = M z + q every 64 sweeps against round-off; 51 sweeps do not
//     reach that, so add 1/64 of a matvec per sweep for a long run.
// The counter `sweep_over_matvec` is the ratio of that per-sweep time to a dense y = M x
// timed in the same loop (the same product BM_dense_matvec times on its own).
// The tolerance is far below anything reachable, so both solves run exactly their sweep limit
// and end `MaxIterations`; the benchmark checks the sweep count rather than the status.

perp::SolveOptions sweep_options(int sweeps) {
  perp::SolveOptions options;
  options.max_iterations = sweeps;
  options.record_history = false;
  options.tolerance = 1e-300;
  return options;
}

bool ran_exactly(benchmark::State& state, const perp::Result& result, int sweeps) {
  if (result.iterations == sweeps) return true;
  state.SkipWithError(("expected " + std::to_string(sweeps) + " sweeps, the solve did " +
                       std::to_string(result.iterations) + " (" + perp::to_string(result.status) + ")")
                          .c_str());
  return false;
}

void BM_pgs_single_sweep(benchmark::State& state) {
  const perp::Lcp& problem = problem_of_size(state.range(0));
  const perp::SolveOptions options = sweep_options(1);
  for (auto _ : state) {
    perp::Result result = perp::solve(problem, perp::Method::Pgs, options);
    benchmark::DoNotOptimize(result.z.data());
    if (!ran_exactly(state, result, 1)) break;
  }
}

void BM_dense_matvec(benchmark::State& state) {
  const perp::Lcp& problem = problem_of_size(state.range(0));
  const Eigen::VectorXd x = problem.q;  // any dense vector; values do not change the cost
  Eigen::VectorXd y(problem.size());
  for (auto _ : state) {
    y.noalias() = problem.M * x;
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
}

void BM_pgs_sweep_cost(benchmark::State& state) {
  constexpr int kLongRun = 51;
  constexpr int kMatvecs = 50;
  const perp::Lcp& problem =
      state.range(1) == 1 ? all_active_problem_of_size(state.range(0)) : problem_of_size(state.range(0));
  const perp::SolveOptions one = sweep_options(1);
  const perp::SolveOptions many = sweep_options(kLongRun);
  const Eigen::VectorXd x = problem.q;
  Eigen::VectorXd y(problem.size());
  double sweep_seconds = 0;
  double matvec_seconds = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    perp::Result long_run = perp::solve(problem, perp::Method::Pgs, many);
    benchmark::DoNotOptimize(long_run.z.data());
    const double t_long = seconds_since(start);

    start = std::chrono::steady_clock::now();
    perp::Result short_run = perp::solve(problem, perp::Method::Pgs, one);
    benchmark::DoNotOptimize(short_run.z.data());
    const double t_short = seconds_since(start);

    start = std::chrono::steady_clock::now();
    for (int k = 0; k < kMatvecs; ++k) {
      y.noalias() = problem.M * x;
      benchmark::DoNotOptimize(y.data());
      benchmark::ClobberMemory();
    }
    matvec_seconds += seconds_since(start) / kMatvecs;

    if (!ran_exactly(state, long_run, kLongRun) || !ran_exactly(state, short_run, 1)) break;
    const double per_sweep = (t_long - t_short) / (kLongRun - 1);
    sweep_seconds += per_sweep;
    state.SetIterationTime(per_sweep);
  }
  if (matvec_seconds > 0) state.counters["sweep_over_matvec"] = sweep_seconds / matvec_seconds;
}

BENCHMARK(BM_pgs_single_sweep)->Unit(benchmark::kMicrosecond)->Args({100})->Args({500})->Args({1000});
BENCHMARK(BM_dense_matvec)->Unit(benchmark::kMicrosecond)->Args({100})->Args({500})->Args({1000});
// The reported (manual) time is about 1/100 of the wall time an iteration takes (51 + 1 sweeps
// and 50 matvecs), so the minimum time is set to 1/100 of the default 0.5 s.
BENCHMARK(BM_pgs_sweep_cost)
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime()
    ->MinTime(0.005)
    ->ArgNames({"n", "all_active"})
    ->ArgsProduct({{100, 500, 1000}, {0, 1}});

}  // namespace

BENCHMARK_MAIN();
