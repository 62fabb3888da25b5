// Moreau–Jean steps per second on piles of disks (Google Benchmark).
//
//   build-bench/bench/contact_bench
//   build-bench/bench/contact_bench --benchmark_filter=frictionless
//
// A pile is a hexagonally packed block of touching disks (radius 0.05 m, mass 1 kg) on the
// ground, `columns` ≈ 1.5 √N wide; without walls it spreads while it is stepped, so every
// benchmark first takes 20 untimed steps (2 for 1000 disks) and then times one step per
// iteration on the evolving pile. Counters, averaged over the timed steps:
//   contacts       active contacts per step
//   lcp_size       size of the step's LCP (contacts, or 4 × contacts with friction)
//   solver_share   time in `solve` / time of the whole step (detection, Jacobians, W, solve,
//                  update), from StepReport::solve_ms and step_ms
//   iterations     pivots (lemke) or sweeps (pgs) per step
//   unsolved       steps whose LCP did not end Solved (each is still advanced, see moreau_jean.hpp)
// items_per_second is steps per second of CPU time; 1000 / Time (ms, wall) is the wall-clock rate.

#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "perp/perp.hpp"

namespace {

using perp::contact::Body;
using perp::contact::World;

World disk_pile(int count) {
  constexpr double kRadius = 0.05;
  const int columns = std::max(2, static_cast<int>(std::lround(1.5 * std::sqrt(count))));
  World world;
  world.ground = perp::contact::Ground{0.0};
  for (int k = 0; k < count; ++k) {
    const int row = k / columns;
    const int column = k % columns;
    Body body;
    body.name = "disk" + std::to_string(k);
    body.shape = perp::contact::Disk{kRadius};
    body.mass = 1.0;
    body.position = {2 * kRadius * column + (row % 2 == 1 ? kRadius : 0.0), kRadius + row * kRadius * std::sqrt(3.0)};
    world.bodies.push_back(body);
  }
  return world;
}

void run_pile(benchmark::State& state, perp::Method method, double friction) {
  World world = disk_pile(static_cast<int>(state.range(0)));
  perp::contact::MoreauJeanOptions options;
  options.timestep = 1e-3;
  options.friction = friction;
  options.method = method;
  // Impulses are about m g h ≈ 1e-2 N·s; 1e-8 absolute is 1e-6 of that.
  options.solve.record_history = false;
  // Settle the first contacts (fewer steps for the 1000-disk pile, whose steps take seconds).
  const int warmup = state.range(0) >= 1000 ? 2 : 20;
  for (int k = 0; k < warmup; ++k) (void)perp::contact::moreau_jean_step(world, options);
  double contacts = 0;
  double lcp_size = 0;
  double solve_ms = 0;
  double step_ms = 0;
  double iterations = 0;
  double unsolved = 0;
  for (auto _ : state) {
    const perp::contact::StepReport report = perp::contact::moreau_jean_step(world, options);
    contacts += static_cast<double>(report.contacts.size());
    lcp_size += static_cast<double>(report.lcp_size);
    solve_ms += report.solve_ms;
    step_ms += report.step_ms;
    iterations += report.result.iterations;
    if (report.status != perp::Status::Solved) unsolved += 1;
  }
  const auto avg = benchmark::Counter::kAvgIterations;
  state.counters["contacts"] = benchmark::Counter(contacts, avg);
  state.counters["lcp_size"] = benchmark::Counter(lcp_size, avg);
  state.counters["iterations"] = benchmark::Counter(iterations, avg);
  state.counters["solver_share"] = step_ms > 0 ? solve_ms / step_ms : 0.0;
  state.counters["unsolved"] = unsolved;
  state.SetItemsProcessed(state.iterations());
}

void BM_pile_frictionless_lemke(benchmark::State& state) { run_pile(state, perp::Method::Lemke, 0.0); }
void BM_pile_frictionless_pgs(benchmark::State& state) { run_pile(state, perp::Method::Pgs, 0.0); }
void BM_pile_frictionless_auto(benchmark::State& state) { run_pile(state, perp::Method::Auto, 0.0); }
void BM_pile_friction_lemke(benchmark::State& state) { run_pile(state, perp::Method::Lemke, 0.3); }
void BM_pile_friction_auto(benchmark::State& state) { run_pile(state, perp::Method::Auto, 0.3); }

// Fixed iteration counts for the large piles keep the run within a few minutes on 2 cores.
BENCHMARK(BM_pile_frictionless_lemke)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(100);
BENCHMARK(BM_pile_frictionless_lemke)->Unit(benchmark::kMillisecond)->Arg(1000)->Iterations(5);
BENCHMARK(BM_pile_frictionless_pgs)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(100);
BENCHMARK(BM_pile_frictionless_pgs)->Unit(benchmark::kMillisecond)->Arg(1000)->Iterations(5);
// auto: lemke, then murty (n <= 200) and pgs when lemke fails; above n = 1000 it first tries a
// Cholesky factorisation of W (O(n³)), so the 1000-disk pile is left to the explicit methods.
BENCHMARK(BM_pile_frictionless_auto)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(100);
// With friction the LCP is 4 × contacts and dense: about 8000 for 1000 disks, a 0.5 GB matrix
// per step, so friction stops at 100 disks.
BENCHMARK(BM_pile_friction_lemke)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(100);
BENCHMARK(BM_pile_friction_auto)->Unit(benchmark::kMillisecond)->Arg(10)->Arg(100);

}  // namespace

BENCHMARK_MAIN();
