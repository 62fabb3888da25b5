// solve_many (solvers/batch.hpp) on 10⁴ LCPs of n = 20 (the spd family of problems.hpp, one seed per
// problem): a loop of single `solve` calls against solve_many on 1 and 2 threads, each the median of
// several runs taken in turn (so that a change in the machine's load hits all three alike), in µs
// per problem; the speed-up is the 1-thread time over the 2-thread time. Every result is checked
// (solved, and the same z as the single solve).
//
// Usage: batch_bench [method]   (default lemke; any LCP method name, e.g. auto)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "perp/perp.hpp"
#include "problems.hpp"

namespace {

constexpr int kProblems = 10000;
constexpr Eigen::Index kSize = 20;
constexpr int kRuns = 7;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace

int main(int argc, char** argv) {
  const perp::Method method = perp::from_string<perp::Method>(argc > 1 ? argv[1] : "lemke");
  std::vector<perp::Lcp> problems;
  problems.reserve(kProblems);
  for (int k = 0; k < kProblems; ++k) {
    perp::Lcp p = perp::bench::spd_problem(kSize);
    // A different q per problem (the same M): q rotated and scaled, so no two solves are alike.
    std::rotate(p.q.begin(), p.q.begin() + (k % kSize), p.q.end());
    p.q *= 1.0 + 0.001 * k;
    problems.push_back(std::move(p));
  }
  perp::SolveOptions options;
  options.record_history = false;
  std::vector<perp::Result> single(problems.size());
  std::vector<double> loop_ms, one_ms, two_ms;
  std::vector<perp::BatchResult> one, two;
  for (int run = 0; run < kRuns; ++run) {
    double start = now_ms();
    for (std::size_t i = 0; i < problems.size(); ++i) single[i] = perp::solve(problems[i], method, options);
    loop_ms.push_back(now_ms() - start);
    start = now_ms();
    one = perp::solve_many(problems, method, options, 1);
    one_ms.push_back(now_ms() - start);
    start = now_ms();
    two = perp::solve_many(problems, method, options, 2);
    two_ms.push_back(now_ms() - start);
  }
  int wrong = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const bool same = one[i].ok() && two[i].ok() && one[i].result.z == single[i].z && two[i].result.z == single[i].z;
    if (!same || !single[i].solved()) ++wrong;
  }
  const double per = 1000.0 / kProblems;  // ms per batch → µs per problem
  std::printf("solve_many: %d LCPs of n = %td (bench spd M, q varied), method %s, median of %d runs in turn\n",
              kProblems, static_cast<std::ptrdiff_t>(kSize), perp::to_string(method).c_str(), kRuns);
  std::printf("  loop of single solves : %8.2f us/problem\n", median(loop_ms) * per);
  std::printf("  solve_many, 1 thread  : %8.2f us/problem\n", median(one_ms) * per);
  std::printf("  solve_many, 2 threads : %8.2f us/problem  (speed-up over 1 thread %.2f)\n", median(two_ms) * per,
              median(one_ms) / median(two_ms));
  std::printf("  results differing from the single solves or not solved: %d\n", wrong);
  return wrong == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
