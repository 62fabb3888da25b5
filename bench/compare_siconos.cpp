// Side-by-side timing of perp and Siconos numerics (Debian libsiconos-numerics-dev) on the
// dense SPD problems of problems.hpp:
//   - perp Lemke vs Siconos' lexicographic Lemke (lcp_lexicolemke, SICONOS_LCP_LEMKE);
//   - perp PGS vs Siconos' projected Gauss–Seidel (lcp_pgs, SICONOS_LCP_PGS);
//   - perp newton-fb / newton-min vs Siconos' lcp_newton_FB / lcp_newton_minFB (FB line search).
//
// Each solver is timed with std::chrono::steady_clock around the solve call alone (problem
// conversion and option setup are done once, outside the timed region); the figure is the
// median of k runs after one untimed warm-up run, k larger for small n. Residuals are computed
// here, the same way for both libraries, from the returned z: ‖min(z, M z + q)‖∞.
//
// Usage: compare_siconos [max_n]   (sizes n = 10, 100, 200, 500, 1000 up to max_n)
//
// Siconos is a comparison target only: nothing in perp links to it.

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "perp/perp.hpp"
#include "problems.hpp"
#include "siconos_lcp.hpp"

// Siconos numerics' C API (its headers add the extern "C" themselves).
#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <NumericsVerbose.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

namespace {

using perp::bench::SiconosLcp;
using perp::bench::SiconosOptions;

constexpr double kPgsTolerance = 1e-8;
constexpr int kPgsSweepLimit = 10000;
constexpr double kNewtonTolerance = 1e-8;
constexpr int kNewtonStepLimit = 200;

/// Natural residual ‖min(z, M z + q)‖∞, computed independently of either library.
double independent_residual(const perp::Lcp& problem, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = problem.M * z + problem.q;
  return z.cwiseMin(w).lpNorm<Eigen::Infinity>();
}

/// Odd repetition counts, so the median is one measured run.
int repetitions_for(Eigen::Index n) {
  if (n <= 10) return 201;
  if (n <= 100) return 51;
  if (n <= 200) return 21;
  if (n <= 500) return 7;
  return 3;
}

/// Runs `solve_once` once untimed, then `repetitions` times timed; returns the median in ms.
double median_ms(int repetitions, const std::function<void()>& solve_once) {
  solve_once();
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(repetitions));
  for (int k = 0; k < repetitions; ++k) {
    const auto start = std::chrono::steady_clock::now();
    solve_once();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  const auto middle = times.begin() + static_cast<std::ptrdiff_t>(times.size() / 2);
  std::nth_element(times.begin(), middle, times.end());
  return *middle;
}


/// One row of a table: what each library returned for one n.
struct Row {
  Eigen::Index n = 0;
  double perp_ms = 0;
  int perp_iterations = 0;
  double perp_residual = 0;
  std::string perp_status;
  double siconos_ms = 0;
  int siconos_iterations = 0;
  double siconos_residual = 0;
  int siconos_info = 0;
};

Row compare_lemke(const perp::Lcp& problem) {
  const Eigen::Index n = problem.size();
  const int pivot_limit = static_cast<int>(10 * n + 1000);
  const int repetitions = repetitions_for(n);
  Row row;
  row.n = n;

  perp::SolveOptions options;
  options.max_iterations = pivot_limit;
  options.record_history = false;  // Siconos keeps no per-pivot history either
  perp::Result result;
  row.perp_ms = median_ms(repetitions, [&] { result = perp::solve(problem, perp::Method::Lemke, options); });
  row.perp_iterations = result.iterations;
  row.perp_residual = independent_residual(problem, result.z);
  row.perp_status = perp::to_string(result.status);

  const SiconosLcp lcp(problem);
  const SiconosOptions lemke(solver_options_create(SICONOS_LCP_LEMKE));
  lemke->iparam[SICONOS_IPARAM_MAX_ITER] = pivot_limit;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  int info = 0;
  row.siconos_ms = median_ms(repetitions, [&] { lcp_lexicolemke(lcp.get(), z.data(), w.data(), &info, lemke.get()); });
  row.siconos_iterations = lemke->iparam[SICONOS_IPARAM_ITER_DONE];
  row.siconos_residual = independent_residual(problem, z);
  row.siconos_info = info;
  return row;
}

/// perp's `method` against a Siconos iterative solver (`solver_id`, run by `run`), both from z = 0
/// (Siconos' z is reset before every run) with the same iteration limit; perp stops at
/// `tolerance` on ‖min(z, w)‖∞, Siconos at `siconos_tolerance` (dparam[SICONOS_DPARAM_TOL]) on
/// its own relative test.
using SiconosSolve = void (*)(LinearComplementarityProblem*, double*, double*, int*, SolverOptions*);
Row compare_from_zero(const perp::Lcp& problem, perp::Method method, int solver_id, SiconosSolve run, double tolerance,
                      int iteration_limit, double siconos_tolerance) {
  const Eigen::Index n = problem.size();
  const int repetitions = repetitions_for(n);
  Row row;
  row.n = n;

  perp::SolveOptions options;
  options.tolerance = tolerance;
  options.max_iterations = iteration_limit;
  options.record_history = false;
  perp::Result result;
  row.perp_ms = median_ms(repetitions, [&] { result = perp::solve(problem, method, options); });
  row.perp_iterations = result.iterations;
  row.perp_residual = independent_residual(problem, result.z);
  row.perp_status = perp::to_string(result.status);

  const SiconosLcp lcp(problem);
  const SiconosOptions siconos(solver_options_create(solver_id));
  siconos->iparam[SICONOS_IPARAM_MAX_ITER] = iteration_limit;
  siconos->dparam[SICONOS_DPARAM_TOL] = siconos_tolerance;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd w = Eigen::VectorXd::Zero(n);
  int info = 0;
  row.siconos_ms = median_ms(repetitions, [&] {
    z.setZero();
    run(lcp.get(), z.data(), w.data(), &info, siconos.get());
  });
  row.siconos_iterations = siconos->iparam[SICONOS_IPARAM_ITER_DONE];
  row.siconos_residual = independent_residual(problem, z);
  row.siconos_info = info;
  return row;
}

/// perp pgs against Siconos lcp_pgs, perp at kPgsTolerance.
Row compare_pgs(const perp::Lcp& problem, double siconos_tolerance) {
  return compare_from_zero(problem, perp::Method::Pgs, SICONOS_LCP_PGS, lcp_pgs, kPgsTolerance, kPgsSweepLimit,
                           siconos_tolerance);
}

/// perp's Newton `method` against a Siconos Newton solver, perp at kNewtonTolerance.
Row compare_newton(const perp::Lcp& problem, perp::Method method, int solver_id, SiconosSolve run,
                   double siconos_tolerance) {
  return compare_from_zero(problem, method, solver_id, run, kNewtonTolerance, kNewtonStepLimit, siconos_tolerance);
}

void print_header(const char* iterations_name) {
  std::printf("%6s | %10s %8s %10s %-15s | %10s %8s %10s %4s | %8s\n", "n", "perp ms", iterations_name, "residual",
              "status", "siconos ms", iterations_name, "residual", "info", "sic/perp");
  std::printf("%s\n", std::string(112, '-').c_str());
}

void print_row(const Row& row) {
  std::printf("%6td | %10.3f %8d %10.2e %-15s | %10.3f %8d %10.2e %4d | %8.2f\n", static_cast<std::ptrdiff_t>(row.n),
              row.perp_ms, row.perp_iterations, row.perp_residual, row.perp_status.c_str(), row.siconos_ms,
              row.siconos_iterations, row.siconos_residual, row.siconos_info, row.siconos_ms / row.perp_ms);
}

}  // namespace

int main(int argc, char** argv) {
  numerics_set_verbose(0);  // Siconos reports through a global verbosity flag and printf

  const long max_n = perp::bench::max_n_argument(argc, argv);
  if (max_n == 0) return EXIT_FAILURE;
  std::vector<perp::Lcp> problems;
  for (const Eigen::Index n : {10, 100, 200, 500, 1000}) {
    if (n <= max_n) problems.push_back(perp::bench::spd_problem(n));
  }

  std::printf("perp vs Siconos numerics on M = A^T A + 0.1 I, A and q uniform in [-1, 1]\n");
  std::printf(
      "(bench/problems.hpp, seed %llu + n). Times: median of k runs after a warm-up, k = 201, 51, 21,\n"
      "7, 3 for n = 10, 100, 200, 500, 1000. residual = ||min(z, Mz + q)||_inf of the returned z,\n"
      "computed here for both. info = Siconos' return code (0 = success).\n\n",
      static_cast<unsigned long long>(perp::bench::kProblemSeed));

  std::printf(
      "Lemke: perp lemke (lexicographic ratio test) vs Siconos lcp_lexicolemke;\n"
      "pivot limit 10 n + 1000 for both.\n");
  print_header("pivots");
  for (const perp::Lcp& problem : problems) print_row(compare_lemke(problem));

  std::printf(
      "\nPGS, same nominal tolerance %.0e and sweep limit %d for both. The two stop on different\n"
      "measures: perp when ||min(z, w)||_inf <= tol (absolute); Siconos (lcp_compute_error) when\n"
      "||min(z, w)||_2 / ||q||_2 <= tol (relative to q, 2-norm), checked after every sweep.\n",
      kPgsTolerance, kPgsSweepLimit);
  print_header("sweeps");
  for (const perp::Lcp& problem : problems) print_row(compare_pgs(problem, kPgsTolerance));

  std::printf(
      "\nPGS, same guarantee: Siconos' tolerance set to %.0e / ||q||_2, so that its stopping test\n"
      "implies ||min(z, w)||_inf <= ||min(z, w)||_2 <= %.0e, perp's criterion.\n",
      kPgsTolerance, kPgsTolerance);
  print_header("sweeps");
  for (const perp::Lcp& problem : problems) print_row(compare_pgs(problem, kPgsTolerance / problem.q.norm()));

  std::printf(
      "\nSemismooth Newton, step limit %d, the same guarantee as above: perp ||min(z, w)||_inf <= %.0e,\n"
      "Siconos' relative test with tolerance %.0e / ||q||_2. perp newton-fb vs Siconos lcp_newton_FB\n"
      "(FB reformulation, line search on the FB merit):\n",
      kNewtonStepLimit, kNewtonTolerance, kNewtonTolerance);
  print_header("steps");
  for (const perp::Lcp& problem : problems) {
    print_row(compare_newton(problem, perp::Method::NewtonFb, SICONOS_LCP_NEWTON_FB_FBLSA, lcp_newton_FB,
                             kNewtonTolerance / problem.q.norm()));
  }
  std::printf("\nperp newton-min vs Siconos lcp_newton_minFB (min-map Newton direction, FB merit line search):\n");
  print_header("steps");
  for (const perp::Lcp& problem : problems) {
    print_row(compare_newton(problem, perp::Method::NewtonMin, SICONOS_LCP_NEWTON_MIN_FBLSA, lcp_newton_minFB,
                             kNewtonTolerance / problem.q.norm()));
  }

  return EXIT_SUCCESS;
}
