// VecWorld's step from C++ alone, for profilers and instruction counts (bench/README.md, "The small
// step's cost"): bench/vec_world_bench.py's 10-disk scenes, N worlds stepped S times on T threads,
// every world pushed by random forces and torques of up to 5 N / 5 N·m at each step (drawn before
// the timing, seed 3; not the Python bench's draws). Prints the wall and CPU time a world-step, the
// worlds solved at the last step, its worst criterion and the sum of the final positions (equal
// between two builds that compute the same steps).
//
//   vec_world_steps [pile|free|pile-1e-6] [worlds 400] [steps 100] [threads 1]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "perp/contact/vec_world.hpp"

namespace {

perp::contact::Scene scene(const std::string& kind) {
  perp::contact::Scene s;
  const double spread = kind == "free" ? 10.0 : 1.0;
  for (int k = 0; k < 10; ++k) {
    const int row = k / 5, col = k % 5;
    perp::contact::Body body;
    body.name = "d" + std::to_string(k);
    body.shape = perp::contact::Disk{0.1};
    body.mass = 1.0 + 0.05 * k;
    body.position = {spread * (0.21 * col + 0.1 * row), spread * (0.12 + 0.22 * row)};
    s.world.bodies.push_back(body);
  }
  if (kind != "free") s.world.ground = perp::contact::Ground{0.0};
  s.options.timestep = 0.01;
  s.options.friction = 0.4;
  s.options.restitution = 0.1;
  s.options.solve.tolerance = kind == "pile-1e-6" ? 1e-6 : 1e-10;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc > 1 ? argv[1] : "pile";
  if (kind != "pile" && kind != "free" && kind != "pile-1e-6") {
    std::fprintf(stderr, "scene: expected pile, free or pile-1e-6, got '%s'\n", kind.c_str());
    return 2;
  }
  const long worlds = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 400;
  const long steps = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 100;
  const long threads = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 1;
  if (worlds < 1 || steps < 1 || threads < 1 || worlds > 1000000 || steps > 1000000 || threads > 256) {
    std::fprintf(stderr, "worlds, steps, threads: expected 1-1000000, 1-1000000, 1-256\n");
    return 2;
  }
  perp::contact::VecWorld vec(scene(kind), static_cast<std::size_t>(worlds), static_cast<unsigned>(threads));
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> push(-5.0, 5.0);
  std::vector<std::vector<double>> forces(static_cast<std::size_t>(steps),
                                          std::vector<double>(static_cast<std::size_t>(worlds) * vec.bodies() * 3));
  for (auto& f : forces) {
    for (double& x : f) x = push(rng);
  }
  const std::clock_t cpu_start = std::clock();
  const auto wall_start = std::chrono::steady_clock::now();
  for (const auto& f : forces) vec.step(f);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  const double world_steps = static_cast<double>(worlds) * static_cast<double>(steps);
  long solved = 0;
  double worst = 0, sum = 0;
  for (std::size_t i = 0; i < vec.size(); ++i) {
    solved += vec.solved()[i];
    worst = std::max(worst, vec.criterion()[i]);
  }
  for (const double x : vec.positions()) sum += x;
  std::printf("%s: %ld worlds x %ld steps on %ld threads: %.3f us a world-step (wall), %.3f (CPU); last step %ld/%ld "
              "solved, worst criterion %.2e; sum of the final positions %.17g\n",
              kind.c_str(), worlds, steps, threads, wall * 1e6 / world_steps, cpu * 1e6 / world_steps, solved, worlds,
              worst, sum);
  return 0;
}
