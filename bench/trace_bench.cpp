// The cost of SolveOptions::trace (issue 17) when it is unset: Lemke and PGS through `solve` on the
// bench problems (problems.hpp), timed by this one source built against two libraries, the one
// before the trace existed and the one with it; bench/trace_overhead.sh runs both in alternation
// and prints the ratios. Built against a library with the trace, it also times a solve that traces
// to a callback counting the events (the cost when it is set).
//
// Output, one line per case: METHOD N MEDIAN_MS [TRACED_MEDIAN_MS EVENTS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "perp/solvers/solve.hpp"
#include "problems.hpp"

namespace {

// Median over `runs` solves of the wall time of one, after one warm-up solve.
template <class Solve>
double median_ms(int runs, Solve&& solve_once) {
  (void)solve_once();
  std::vector<double> times;
  for (int k = 0; k < runs; ++k) {
    const auto start = std::chrono::steady_clock::now();
    const perp::Result result = solve_once();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (result.z.size() == 0) std::abort();  // keeps the solve from being optimized away
  }
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2), times.end());
  return times[times.size() / 2];
}

template <class Options>
void run_case(perp::Method method, Eigen::Index n, int runs, int max_iterations) {
  const perp::Lcp problem = perp::bench::spd_problem(n);
  Options options;
  options.max_iterations = max_iterations;
  const double plain = median_ms(runs, [&] { return perp::solve(problem, method, options); });
  std::printf("%s %ld %.6f", perp::to_string(method).c_str(), static_cast<long>(n), plain);
  if constexpr (requires(Options o) { o.trace; }) {
    long events = 0;
    Options traced = options;
    traced.trace = [&events](const auto&) { ++events; };
    const double with = median_ms(runs, [&] { return perp::solve(problem, method, traced); });
    std::printf(" %.6f %ld", with, events / (runs + 1));
  }
  std::printf("\n");
}

}  // namespace

int main() {
  using Options = perp::SolveOptions;
  const struct {
    perp::Method method;
    Eigen::Index n;
    int runs;
    int max_iterations;  // pgs: a fixed number of sweeps (the bench problems need thousands)
  } cases[] = {
      {perp::Method::Lemke, 10, 2001, 0}, {perp::Method::Lemke, 100, 201, 0}, {perp::Method::Lemke, 500, 21, 0},
      {perp::Method::Pgs, 10, 2001, 100}, {perp::Method::Pgs, 100, 201, 100}, {perp::Method::Pgs, 500, 21, 100},
  };
  for (const auto& c : cases) run_case<Options>(c.method, c.n, c.runs, c.max_iterations);
  return 0;
}
