#include "simulate.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

#include "perp/perp.hpp"
#include "png.hpp"

namespace perp::cli {
namespace {

using contact::Body;
using contact::World;

/// Numbers in the CSV files: 12 significant digits, enough for plotting and checking; −0 as 0.
std::string csv_number(double value) {
  if (value == 0) value = 0;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  return buffer;
}

std::ofstream open_output(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot write '" + path.string() + "'");
  return out;
}

/// A progress bar on stderr, shown only when stderr is a terminal and the run has taken more
/// than a second; redrawn at most ten times a second.
class Progress {
 public:
  explicit Progress(long total) : total_(total), enabled_(isatty(STDERR_FILENO) != 0) {}
  void update(long done) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) return;
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
  std::chrono::steady_clock::time_point last_ = start_;
};

/// The plot: x and y of every body, its angle, and the energies, against time. Long runs are
/// thinned to at most ~2000 points per curve.
void write_plot(const std::filesystem::path& path, const std::vector<double>& times,
                const std::vector<std::vector<double>>& states, const std::vector<Body>& bodies,
                const std::vector<std::array<double, 3>>& energies) {
  const std::size_t stride = std::max<std::size_t>(1, times.size() / 2000);
  std::vector<double> t;
  for (std::size_t i = 0; i < times.size(); i += stride) t.push_back(times[i]);
  auto thinned = [&](auto value) {
    std::vector<double> out;
    for (std::size_t i = 0; i < times.size(); i += stride) out.push_back(value(i));
    return out;
  };
  std::vector<Series> x_series;
  std::vector<Series> y_series;
  std::vector<Series> angle_series;
  const std::size_t shown = std::min<std::size_t>(bodies.size(), 8);  // legend room
  for (std::size_t b = 0; b < shown; ++b) {
    x_series.push_back({bodies[b].name, t, thinned([&](std::size_t i) { return states[i][6 * b]; }), palette(b)});
    y_series.push_back({bodies[b].name, t, thinned([&](std::size_t i) { return states[i][6 * b + 1]; }), palette(b)});
    angle_series.push_back(
        {bodies[b].name, t, thinned([&](std::size_t i) { return states[i][6 * b + 2]; }), palette(b)});
  }
  const std::vector<Series> energy_series{
      {"kinetic", t, thinned([&](std::size_t i) { return energies[i][0]; }), palette(0)},
      {"potential", t, thinned([&](std::size_t i) { return energies[i][1]; }), palette(1)},
      {"total", t, thinned([&](std::size_t i) { return energies[i][2]; }), palette(3)},
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
  if (args.solver) scene.options.method = from_string<Method>(*args.solver);
  const std::filesystem::path out(args.out);
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error) throw InvalidProblem("cannot create '" + out.string() + "': " + error.message());

  std::ofstream trajectory = open_output(out / "trajectory.csv");
  std::ofstream contacts = open_output(out / "contacts.csv");
  std::ofstream energy_csv = open_output(out / "energy.csv");
  const std::vector<Body>& bodies = scene.world.bodies;
  trajectory << "t";
  for (const Body& body : bodies) {
    for (const char* column : {"x", "y", "angle", "vx", "vy", "omega"}) trajectory << "," << body.name << "." << column;
  }
  trajectory << "\n";
  contacts << "t,body_a,body_b,x,y,gap,normal_impulse,tangent_impulse\n";
  energy_csv << "t,kinetic,potential,total,dissipated\n";

  std::vector<double> times;
  std::vector<std::vector<double>> states;
  std::vector<std::array<double, 3>> energies;
  const contact::Energy initial = contact::energy(scene.world, scene.options.gravity);
  auto record = [&](double t, const World& world) {
    std::vector<double> state;
    trajectory << csv_number(t);
    for (const Body& body : world.bodies) {
      for (double value : {body.position.x(), body.position.y(), body.angle, body.velocity.x(), body.velocity.y(),
                           body.angular_velocity}) {
        trajectory << "," << csv_number(value);
        state.push_back(value);
      }
    }
    trajectory << "\n";
    const contact::Energy e = contact::energy(world, scene.options.gravity);
    energy_csv << csv_number(t) << "," << csv_number(e.kinetic) << "," << csv_number(e.potential) << ","
               << csv_number(e.total()) << "," << csv_number(initial.total() - e.total()) << "\n";
    times.push_back(t);
    states.push_back(std::move(state));
    energies.push_back({e.kinetic, e.potential, e.total()});
  };
  record(0, scene.world);

  const long steps = scene.step_count();
  Progress progress(steps);
  std::size_t most_contacts = 0;
  Status first_failure = Status::Solved;
  long first_failure_step = -1;
  double solve_ms = 0;
  double step_ms = 0;
  const long unsolved =
      contact::simulate(scene, [&](long k, double t, const World& world, const contact::StepReport& report) {
        const double t_start = static_cast<double>(k) * scene.options.timestep;
        for (std::size_t c = 0; c < report.contacts.size(); ++c) {
          const contact::Contact& contact = report.contacts[c];
          const auto i = static_cast<Eigen::Index>(c);
          contacts << csv_number(t_start) << "," << bodies[static_cast<std::size_t>(contact.body_a)].name << ","
                   << (contact.body_b == contact::kGround ? std::string("ground")
                                                          : bodies[static_cast<std::size_t>(contact.body_b)].name)
                   << "," << csv_number(contact.point.x()) << "," << csv_number(contact.point.y()) << ","
                   << csv_number(contact.gap) << "," << csv_number(report.normal_impulse[i]) << ","
                   << csv_number(report.tangent_impulse[i]) << "\n";
        }
        most_contacts = std::max(most_contacts, report.contacts.size());
        if (report.status != Status::Solved && first_failure_step < 0) {
          first_failure = report.status;
          first_failure_step = k;
        }
        solve_ms += report.solve_ms;
        step_ms += report.step_ms;
        record(t, world);
        progress.update(k + 1);
      });
  progress.finish();
  trajectory.close();
  contacts.close();
  energy_csv.close();
  if (!trajectory || !contacts || !energy_csv) throw InvalidProblem("error while writing into '" + out.string() + "'");
  write_plot(out / "plot.png", times, states, bodies, energies);

  const std::array<double, 3>& last = energies.back();
  std::printf("%s: %ld steps of %g s, %zu bodies, up to %zu active contacts\n", args.scene.c_str(), steps,
              scene.options.timestep, bodies.size(), most_contacts);
  std::printf("energy: %.6g J at t = 0, %.6g J at t = %g s\n", initial.total(), last[2], times.back());
  std::printf("time: %.3g ms stepping, of which %.3g ms in the LCP solver (%.0f%%)\n", step_ms, solve_ms,
              step_ms > 0 ? 100 * solve_ms / step_ms : 0.0);
  if (unsolved > 0) {
    std::printf("warning: %ld steps ended without a solved LCP (first: step %ld, %s)\n", unsolved, first_failure_step,
                to_string(first_failure).c_str());
  }
  std::printf("wrote %s/{trajectory.csv, contacts.csv, energy.csv, plot.png}\n", out.string().c_str());
  return unsolved == 0 ? 0 : 1;
}

}  // namespace perp::cli
