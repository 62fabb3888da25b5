#include "simulate.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "perp/perp.hpp"
#include "perp/io/simulation.hpp"
#include "perp/io/viewer.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "plot.hpp"

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

/// Above this many bodies the plot shows the run's aggregates instead of a curve a body.
constexpr std::size_t kBodiesPlottedOneByOne = 15;

/// The plot, from the run's frames: x, y and angle of every body and the energies against time; for
/// more than kBodiesPlottedOneByOne bodies, the bodies' highest, mean and lowest height, the active
/// contacts, the deepest overlap and the energies.
void write_plot(const std::filesystem::path& path, PlotFormat format, const SimulationRecord& record,
                const std::vector<Body>& bodies, const std::string& scene_name) {
  const std::vector<SimulationFrame>& frames = record.frames;
  std::vector<double> t;
  t.reserve(frames.size());
  for (const SimulationFrame& f : frames) t.push_back(f.t);
  const auto series_of = [&](const std::string& label, Rgb color, auto value) {
    Series s{label, t, {}, color};
    s.y.reserve(frames.size());
    for (const SimulationFrame& f : frames) s.y.push_back(value(f));
    return s;
  };
  Panel energy_panel{.title = "energy", .x_label = "t (s)", .y_label = "energy (J)"};
  energy_panel.series = {
      series_of("kinetic", palette(0), [](const SimulationFrame& f) { return f.kinetic; }),
      series_of("potential", palette(1), [](const SimulationFrame& f) { return f.potential; }),
      series_of("total", palette(3), [](const SimulationFrame& f) { return f.kinetic + f.potential; }),
  };
  if (record.decimated()) {
    char note[96];
    std::snprintf(note, sizeof note, "one state every %ld steps shown", record.frame_stride);
    energy_panel.notes.emplace_back(note);
  }
  Figure figure{.title = "perp simulate " + scene_name};
  if (bodies.size() > kBodiesPlottedOneByOne) {
    // Many bodies: one curve each would be a tangle; the run's aggregates per recorded state.
    const std::size_t n = bodies.size();
    const auto heights = [n](const SimulationFrame& f, int which) {
      double lo = f.state[1];
      double hi = f.state[1];
      double sum = 0;
      for (std::size_t b = 0; b < n; ++b) {
        lo = std::min(lo, f.state[3 * b + 1]);
        hi = std::max(hi, f.state[3 * b + 1]);
        sum += f.state[3 * b + 1];
      }
      return which < 0 ? lo : which > 0 ? hi : sum / static_cast<double>(n);
    };
    Panel height_panel{.title = "height of the " + std::to_string(n) + " bodies", .x_label = "t (s)", .y_label = "y (m)"};
    height_panel.series = {
        series_of("highest", palette(0), [&](const SimulationFrame& f) { return heights(f, 1); }),
        series_of("mean", palette(1), [&](const SimulationFrame& f) { return heights(f, 0); }),
        series_of("lowest", palette(2), [&](const SimulationFrame& f) { return heights(f, -1); }),
    };
    Panel contact_panel{.title = "active contacts", .x_label = "t (s)", .y_label = "contacts"};
    contact_panel.series = {series_of("contacts", palette(0), [](const SimulationFrame& f) {
      return static_cast<double>(f.contacts.size());
    })};
    Panel overlap_panel{.title = "deepest overlap", .x_label = "t (s)", .y_label = "overlap (m)"};
    overlap_panel.series = {
        series_of("deepest overlap", palette(3), [](const SimulationFrame& f) { return std::max(0.0, -f.deepest_overlap); })};
    figure.panels = {{height_panel, 240}, {contact_panel, 240}, {overlap_panel, 240}, {energy_panel, 240}};
    write_figure(figure, path, format);
    return;
  }
  Panel x_panel{.title = "horizontal position", .x_label = "t (s)", .y_label = "x (m)"};
  Panel y_panel{.title = "height", .x_label = "t (s)", .y_label = "y (m)"};
  Panel angle_panel{.title = "rotation", .x_label = "t (s)", .y_label = "angle (rad)"};
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    const Rgb color = palette(b);
    x_panel.series.push_back(series_of(bodies[b].name, color, [b](const SimulationFrame& f) { return f.state[3 * b]; }));
    y_panel.series.push_back(
        series_of(bodies[b].name, color, [b](const SimulationFrame& f) { return f.state[3 * b + 1]; }));
    angle_panel.series.push_back(
        series_of(bodies[b].name, color, [b](const SimulationFrame& f) { return f.state[3 * b + 2]; }));
  }
  // Tall enough that the legend holds 15 bodies in one column.
  const int panel_height = bodies.size() > 12 ? 300 : 240;
  figure.panels = {{x_panel, panel_height}, {y_panel, panel_height}, {angle_panel, panel_height}, {energy_panel, 240}};
  write_figure(figure, path, format);
}

// SIGINT, SIGTERM or SIGHUP during a run: noted by the handler, and the run stops at its next
// step (by `Stopped`, which is no std::exception), so that StagedFiles' destructor removes the
// temporary folder and --out stays as it was. A second signal ends the process at once.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void note_stop_signal(int signal) {
  if (stop_signal != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_signal = signal;
}

struct Stopped {
  int signal;
};

void stop_if_signalled() {
  if (stop_signal != 0) throw Stopped{stop_signal};
}

// The handlers above for the lifetime of a run; the earlier ones restored after.
class StopHandlers {
 public:
  StopHandlers() {
    stop_signal = 0;
    struct sigaction action {};
    action.sa_handler = note_stop_signal;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &action, &previous_[i]);
  }
  StopHandlers(const StopHandlers&) = delete;
  StopHandlers& operator=(const StopHandlers&) = delete;
  ~StopHandlers() {
    for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
  }

 private:
  static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> previous_{};
};

/// --out and --dump are each replaced as a whole at the end of the run: neither may be the other or
/// hold it.
void require_apart(const std::string& out, const std::string& dump) {
  const auto normal = [](const std::string& path) {
    std::error_code error;
    std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, error), error);
    if (error) p = std::filesystem::absolute(path).lexically_normal();
    return p.has_filename() ? p : p.parent_path();
  };
  const std::filesystem::path a = normal(out);
  const std::filesystem::path b = normal(dump);
  const auto within = [](const std::filesystem::path& inner, const std::filesystem::path& outer) {
    const std::filesystem::path relative = inner.lexically_relative(outer);
    return !relative.empty() && *relative.begin() != "..";
  };
  if (within(a, b) || within(b, a)) {
    throw InvalidProblem("--dump '" + dump + "' and --out '" + out +
                         "' overlap: each folder is replaced as a whole at the end of the run; give --dump a folder "
                         "beside --out (e.g. --dump " + out + "-dump)");
  }
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SimulationOutputOptions output_options(const SimulateArguments& args) {
  if (args.every < 1) {
    throw InvalidProblem("--every " + std::to_string(args.every) +
                         ": K must be >= 1 (1 records every step, K every K-th)");
  }
  SimulationOutputOptions options;
  options.every = args.every;
  options.contacts = args.contacts;
  options.format = simulation_format_from_name(args.format);
  return options;
}

int run_simulate(const SimulateArguments& args) {
  if (scene_file_dimension(args.scene) == 3) return run_simulate3d(args);  // simulate3d.cpp
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
  SimulationOutputOptions output = output_options(args);
  const bool plot = args.plot != "none";
  const PlotFormat plot_format = plot ? plot_format_from_name(args.plot) : PlotFormat::Png;
  const StopHandlers handlers;
  SimulationRecord record;
  std::vector<std::string> written_names;
  double run_seconds = 0;    // write_simulation: the steps and the tables
  double pages_seconds = 0;  // the plot, the viewer, the commit
  if (args.dump_every < 0) throw InvalidProblem("--dump-every must be >= 0, got " + std::to_string(args.dump_every));
  if (args.dump_max < 1) throw InvalidProblem("--dump-max must be >= 1, got " + std::to_string(args.dump_max));
  if (!args.dump.empty()) require_apart(args.out, args.dump);
  try {
    StagedFiles files(args.out);
    // --dump's folder is replaced as a whole too, at the end of the run: it may hold only an earlier
    // dump's step-NNNNN.hdf5 files.
    std::optional<StagedFiles> dump;
    if (!args.dump.empty()) dump.emplace(args.dump, is_step_dump_name);
    Progress progress(scene.step_count());
    output.progress = [&](long done, long) {
      progress.update(done);
      stop_if_signalled();
    };
    output.dump = dump ? &*dump : nullptr;
    output.dump_every = args.dump_every;
    output.dump_limit = args.dump_max;
    const auto start = std::chrono::steady_clock::now();
    record = write_simulation(scene, files, output);
    run_seconds = seconds_since(start);
    progress.finish();
    const auto pages = std::chrono::steady_clock::now();
    const std::string scene_name = std::filesystem::path(args.scene).filename().string();
    if (plot) {
      write_plot(files.temporary(std::string("plot.") + extension(plot_format)), plot_format, record,
                 scene.world.bodies, scene_name);
    }
    write_viewer_html(files.temporary("view.html"), scene, record, scene_name);
    stop_if_signalled();
    files.commit();
    if (dump) dump->commit();
    pages_seconds = seconds_since(pages);
    written_names = files.names();
  } catch (const Stopped& stopped) {
    if (args.dump.empty()) {
      std::fprintf(stderr, "\nperp: simulate stopped by signal %d; '%s' is as it was, no temporary files left\n",
                   stopped.signal, args.out.c_str());
    } else {
      std::fprintf(stderr, "\nperp: simulate stopped by signal %d; '%s' and '%s' are as they were, no temporary files left\n",
                   stopped.signal, args.out.c_str(), args.dump.c_str());
    }
    return 128 + stopped.signal;
  }

  std::printf("%s: %ld step%s of %g s, %zu bod%s, up to %zu active contact%s\n", args.scene.c_str(), record.steps,
              record.steps == 1 ? "" : "s", scene.options.timestep, scene.world.bodies.size(),
              scene.world.bodies.size() == 1 ? "y" : "ies", record.most_contacts, record.most_contacts == 1 ? "" : "s");
  std::printf("energy: %.6g J at t = 0, %.6g J at t = %g s\n", record.initial_energy.total(), record.last_energy,
              record.last_time);
  // What each step solved: the frictional contact problem (the Coulomb model on a method of the
  // cone), the convex model (on its factors, or as a dense LCP on small steps: auto decides per
  // step), or an LCP.
  const std::vector<Method> cone_methods = friction_contact_methods();
  const bool on_cone = scene.options.friction_model == contact::FrictionModel::Coulomb &&
                       std::find(cone_methods.begin(), cone_methods.end(), scene.options.method) != cone_methods.end();
  const bool convex = scene.options.friction_model == contact::FrictionModel::AnitescuPotra &&
                      (scene.options.method == Method::Auto || scene.options.method == Method::InteriorPoint);
  const char* solver = on_cone ? "the frictional contact solver" : convex ? "the convex model's solver" : "the LCP solver";
  const long steps = std::max(1L, record.steps);
  std::printf("time: %.3g ms stepping (mean %.3g ms a step, slowest %.3g ms at step %ld), of which %.3g ms in %s (%.0f%%)\n",
              record.step_ms, record.step_ms / static_cast<double>(steps), record.slowest_step_ms, record.slowest_step,
              record.solve_ms, solver, record.step_ms > 0 ? 100 * record.solve_ms / record.step_ms : 0.0);
  // Writing: the run's wall-clock time less its steps' (the tables, the frames, the energies), and
  // the plot, the viewer page and the commit.
  const double tables_seconds = std::max(0.0, run_seconds - record.step_ms / 1000);
  std::printf("output: %.3g s writing (%.3g s the tables, %.3g s the plot, viewer and commit) beside %.3g s stepping\n",
              tables_seconds + pages_seconds, tables_seconds, pages_seconds, record.step_ms / 1000);
  if (record.fallbacks > 0) {
    std::printf("note: %ld step%s fell back (steps.csv's fallback column says from what to what)\n", record.fallbacks,
                record.fallbacks == 1 ? "" : "s");
  }
  if (record.unsolved > 0) {
    std::printf("warning: %ld step%s ended unsolved by %s (first: step %ld, %s)\n", record.unsolved,
                record.unsolved == 1 ? "" : "s", solver, record.first_failure_step,
                to_string(record.first_failure).c_str());
  }
  std::string written;
  for (const std::string& name : written_names) written += (written.empty() ? "" : ", ") + name;
  std::printf("wrote %s/{%s}\n", args.out.c_str(), written.c_str());
  if (!args.dump.empty()) {
    std::printf("dumped %ld %s into %s/ (step-NNNNN.hdf5, fclib; replay one with perp solve FILE)\n", record.dumped,
                record.dumped == 1 ? "step's frictional contact problem" : "steps' frictional contact problems",
                args.dump.c_str());
    if (record.dumps_left_out > 0) {
      std::printf("warning: %ld more step%s to dump left out past --dump-max %ld (first: step %ld)\n",
                  record.dumps_left_out, record.dumps_left_out == 1 ? "" : "s", args.dump_max, record.first_left_out);
    }
  }
  return record.unsolved == 0 ? 0 : 1;
}

}  // namespace perp::cli
