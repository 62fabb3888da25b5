#include "simulate.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "perp/perp.hpp"
#include "perp/io/simulation.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "png.hpp"

namespace perp::cli {
namespace {

using contact::Body;
using contact::World;

/// A progress bar on stderr, shown only when stderr is a terminal and the run has taken more
/// than a second (PERP_PROGRESS_DELAY_MS in the environment sets that delay, for the tests);
/// redrawn at most ten times a second.
class Progress {
 public:
  explicit Progress(long total) : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {
    if (const char* delay = std::getenv("PERP_PROGRESS_DELAY_MS")) delay_ = std::chrono::milliseconds(std::atol(delay));
  }
  void update(long done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < delay_ || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    draw(done);
  }
  void finish() {
    if (!shown_) return;
    draw(total_);
    std::fprintf(stderr, "\n");
  }

 private:
  void draw(long done) {
    shown_ = true;
    constexpr int kWidth = 40;
    const double fraction = static_cast<double>(done) / static_cast<double>(total_);
    const int filled = static_cast<int>(fraction * kWidth);
    std::fprintf(stderr, "\r[%s%s] %3d%% step %ld/%ld", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(kWidth - filled), ' ').c_str(), static_cast<int>(fraction * 100),
                 done, total_);
    std::fflush(stderr);
  }

  long total_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_ - std::chrono::seconds(1);  // the first redraw is not held back
  std::chrono::steady_clock::duration delay_ = std::chrono::seconds(1);
};

/// The plot: x and y of every body, its angle, and the energies, against time, from the run's
/// decimated frames.
void write_plot(const std::filesystem::path& path, const SimulationRecord& record, const std::vector<Body>& bodies) {
  const std::vector<SimulationFrame>& frames = record.frames;
  std::vector<double> t;
  for (const SimulationFrame& f : frames) t.push_back(f.t);
  auto series_of = [&](auto value) {
    std::vector<double> out;
    for (const SimulationFrame& f : frames) out.push_back(value(f));
    return out;
  };
  std::vector<Series> x_series;
  std::vector<Series> y_series;
  std::vector<Series> angle_series;
  const std::size_t shown = std::min<std::size_t>(bodies.size(), 8);  // legend room
  for (std::size_t b = 0; b < shown; ++b) {
    x_series.push_back({bodies[b].name, t, series_of([&](const SimulationFrame& f) { return f.state[3 * b]; }), palette(b)});
    y_series.push_back({bodies[b].name, t, series_of([&](const SimulationFrame& f) { return f.state[3 * b + 1]; }), palette(b)});
    angle_series.push_back(
        {bodies[b].name, t, series_of([&](const SimulationFrame& f) { return f.state[3 * b + 2]; }), palette(b)});
  }
  const std::vector<Series> energy_series{
      {"kinetic", t, series_of([](const SimulationFrame& f) { return f.kinetic; }), palette(0)},
      {"potential", t, series_of([](const SimulationFrame& f) { return f.potential; }), palette(1)},
      {"total", t, series_of([](const SimulationFrame& f) { return f.kinetic + f.potential; }), palette(3)},
  };
  constexpr int kWidth = 1000;
  constexpr int kPanel = 230;
  Canvas canvas(kWidth, 4 * kPanel);
  draw_panel(canvas, 0, 0, kWidth, kPanel, "x (m)", x_series);
  draw_panel(canvas, 0, kPanel, kWidth, 2 * kPanel, "y (m)", y_series);
  draw_panel(canvas, 0, 2 * kPanel, kWidth, 3 * kPanel, "angle (rad)", angle_series);
  draw_panel(canvas, 0, 3 * kPanel, kWidth, 4 * kPanel, "energy (j) vs t (s)", energy_series);
  canvas.write_png(path);
}

}  // namespace

int run_simulate(const SimulateArguments& args) {
  contact::Scene scene = read_scene_file(args.scene);
  if (args.solver) {
    scene.options.method = from_string<Method>(*args.solver);
    // Checked here, before anything is written, rather than at the first contact: the LCP
    // models take an LCP method; the Coulomb model also a frictional contact one.
    const std::vector<Method> lcp = lcp_methods();
    const std::vector<Method> cone = friction_contact_methods();
    const auto among = [&](const std::vector<Method>& methods) {
      return std::find(methods.begin(), methods.end(), scene.options.method) != methods.end();
    };
    const bool coulomb = scene.options.friction_model == contact::FrictionModel::Coulomb;
    if (!among(lcp) && !(coulomb && among(cone))) {
      std::string names;
      for (const Method m : lcp) names += (names.empty() ? "" : ", ") + to_string(m);
      if (coulomb) {
        for (const Method m : cone) {
          if (std::find(lcp.begin(), lcp.end(), m) == lcp.end()) names += ", " + to_string(m);
        }
      }
      throw InvalidProblem("--solver " + *args.solver + " cannot solve this scene's steps (" +
                           (coulomb ? "the Coulomb model" : "an LCP friction model") + "); use one of " + names);
    }
  }
  StagedFiles files(args.out);
  Progress progress(scene.step_count());
  const SimulationRecord record = write_simulation(scene, files, {.progress = [&](long done, long) { progress.update(done); }});
  progress.finish();
  write_plot(files.temporary("plot.png"), record, scene.world.bodies);
  files.commit();

  std::printf("%s: %ld steps of %g s, %zu bodies, up to %zu active contacts\n", args.scene.c_str(), record.steps,
              scene.options.timestep, scene.world.bodies.size(), record.most_contacts);
  std::printf("energy: %.6g J at t = 0, %.6g J at t = %g s\n", record.initial_energy.total(), record.last_energy,
              record.last_time);
  std::printf("time: %.3g ms stepping, of which %.3g ms in the LCP solver (%.0f%%)\n", record.step_ms, record.solve_ms,
              record.step_ms > 0 ? 100 * record.solve_ms / record.step_ms : 0.0);
  if (record.unsolved > 0) {
    std::printf("warning: %ld steps ended without a solved LCP (first: step %ld, %s)\n", record.unsolved,
                record.first_failure_step, to_string(record.first_failure).c_str());
  }
  std::printf("wrote %s/{trajectory.csv, contacts.csv, energy.csv, steps.csv, plot.png}\n", args.out.c_str());
  return record.unsolved == 0 ? 0 : 1;
}

}  // namespace perp::cli
