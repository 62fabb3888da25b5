// Google Benchmark suite for perp::classify (matrix classes with witnesses).
//
//   build-bench/bench/classify_bench
//   build-bench/bench/classify_bench --benchmark_filter=exact_p
//
// Families, each at n = 10, 20, 100, 1000:
//   BM_classify_spd        the dense SPD problems of problems.hpp (Cholesky decides PD, and PD
//                          settles P, P0, copositivity and sufficiency)
//   BM_classify_p_matrix   a P-matrix that is neither PD, triangular, Z nor diagonally dominant
//                          (2×2 blocks [[1, -3], [0.1, 1]] under a random symmetric permutation):
//                          the exact P/P0 enumeration visits all 2ⁿ − 1 nodes for n <= 20; beyond
//                          the limit P stays undecided and only the O(n²)/O(n³) tests run
//   BM_classify_cheap      ClassifyOptions::cheap() (what Method::Auto runs) on the same P-matrix
//   BM_classify_cheap_spd  the cheap report on the SPD problems; it factorizes only above n = 1000
//                          (n = 2000 here), where recommend's order depends on PD
// and BM_exact_p_test: the P-matrix at n = 12..22, with `nodes` = 2ⁿ − 1 principal minors
// checked; BM_copositive_exact: Kaplan's test on the Horn-like cyclic matrix for n = 5..12.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>

#include "perp/analysis/classify.hpp"
#include "problems.hpp"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;

MatrixXd p_matrix(Index n) {
  MatrixXd M = MatrixXd::Zero(n, n);
  for (Index b = 0; 2 * b + 1 < n; ++b) M.block(2 * b, 2 * b, 2, 2) << 1, -3, 0.1, 1;
  if (n % 2 == 1) M(n - 1, n - 1) = 1;
  std::mt19937 rng(static_cast<unsigned>(n));
  Eigen::PermutationMatrix<Eigen::Dynamic> perm(n);
  perm.setIdentity();
  std::shuffle(perm.indices().data(), perm.indices().data() + n, rng);
  return perm * M * perm.transpose();
}

// Cyclic: 1 on the diagonal, -1 next to it, +1 elsewhere (the Horn matrix for n = 5):
// copositive for n = 5, with 2×2 blocks that are all PSD, so only the exact test decides.
MatrixXd cyclic(Index n) {
  MatrixXd H(n, n);
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < n; ++j) {
      const Index d = std::min((i - j + n) % n, (j - i + n) % n);
      H(i, j) = d == 0 ? 1.0 : (d == 1 ? -1.0 : 1.0);
    }
  }
  return H;
}

void run(benchmark::State& state, const MatrixXd& M, const perp::ClassifyOptions& options) {
  perp::MatrixReport report;
  for (auto _ : state) {
    report = perp::classify(M, options);
    benchmark::DoNotOptimize(report.answers.data());
  }
  int decided = 0;
  for (const auto& answer : report.answers) decided += answer.holds.has_value() ? 1 : 0;
  state.counters["decided"] = decided;
  state.counters["p_decided"] = report[perp::MatrixClass::P].holds.has_value() ? 1 : 0;
}

void BM_classify_spd(benchmark::State& state) {
  const MatrixXd M = perp::bench::spd_problem(state.range(0)).M;
  run(state, M, {});
}

void BM_classify_p_matrix(benchmark::State& state) { run(state, p_matrix(state.range(0)), {}); }

void BM_classify_cheap(benchmark::State& state) {
  run(state, p_matrix(state.range(0)), perp::ClassifyOptions::cheap());
}

void BM_classify_cheap_spd(benchmark::State& state) {
  run(state, perp::bench::spd_problem(state.range(0)).M, perp::ClassifyOptions::cheap());
}

void BM_exact_p_test(benchmark::State& state) {
  perp::ClassifyOptions options;
  options.max_minor_size = 40;
  options.max_copositive_size = 0;  // P and P0 only (copositivity is decided by its own test)
  const MatrixXd M = p_matrix(state.range(0));
  run(state, M, options);
  state.counters["nodes"] = static_cast<double>((Index{1} << state.range(0)) - 1);
}

void BM_copositive_exact(benchmark::State& state) {
  perp::ClassifyOptions options;
  options.max_copositive_size = 30;
  options.max_minor_size = 0;
  run(state, cyclic(state.range(0)), options);
}

}  // namespace

BENCHMARK(BM_classify_spd)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(20)->Arg(100)->Arg(1000);
BENCHMARK(BM_classify_p_matrix)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(20)->Arg(100)->Arg(1000);
BENCHMARK(BM_classify_cheap)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(20)->Arg(100)->Arg(1000);
BENCHMARK(BM_classify_cheap_spd)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(20)->Arg(100)->Arg(1000)->Arg(2000);
BENCHMARK(BM_exact_p_test)->Unit(benchmark::kMillisecond)->DenseRange(12, 22, 2);
BENCHMARK(BM_copositive_exact)->Unit(benchmark::kMillisecond)->DenseRange(5, 13, 2);

BENCHMARK_MAIN();
