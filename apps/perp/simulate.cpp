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
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <variant>
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

/// Above this many bodies the plot shows the run's aggregates instead of a curve a body: issue 38's
/// "more than ~10 bodies". The palette's first ten hues are its distinct ones (the next ten are
/// darker and lighter variants of them), so eleven curves or more already repeat a hue.
constexpr std::size_t kBodiesPlottedOneByOne = 10;

/// How many configurations the many-body plot draws (evenly spaced kept frames, first and last).
constexpr std::size_t kSnapshots = 4;

using Outline = std::vector<std::array<double, 2>>;

/// A body's outline at (x, y, angle) in world coordinates: a disk from its centre out along its x
/// axis and once around (the radius drawn shows its rotation), a box by its corners, a rod by its
/// two ends.
Outline outline(const contact::Shape& shape, double x, double y, double angle) {
  const double c = std::cos(angle);
  const double s = std::sin(angle);
  const auto world = [&](double u, double v) { return std::array<double, 2>{x + c * u - s * v, y + s * u + c * v}; };
  Outline points;
  if (const auto* disk = std::get_if<contact::Disk>(&shape)) {
    constexpr int kArc = 32;
    points.push_back({x, y});
    for (int k = 0; k <= kArc; ++k) {
      const double a = 2 * std::numbers::pi * k / kArc;
      points.push_back(world(disk->radius * std::cos(a), disk->radius * std::sin(a)));
    }
  } else if (const auto* box = std::get_if<contact::Box>(&shape)) {
    const double w = box->width / 2;
    const double h = box->height / 2;
    points = {world(-w, -h), world(w, -h), world(w, h), world(-w, h)};
  } else if (const auto* rod = std::get_if<contact::Rod>(&shape)) {
    points = {world(-rod->length / 2, 0), world(rod->length / 2, 0)};
  }
  return points;
}

/// The configurations at up to kSnapshots kept frames (the first, the last and evenly between),
/// each a panel of the bodies' outlines, the ground and the planes, all on the same axes.
std::vector<Panel> snapshot_panels(const SimulationRecord& record, const contact::World& world) {
  const std::vector<SimulationFrame>& frames = record.frames;
  std::vector<std::size_t> chosen;
  const std::size_t count = std::min(kSnapshots, frames.size());
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = count == 1 ? 0 : (k * (frames.size() - 1) + (count - 1) / 2) / (count - 1);
    if (chosen.empty() || chosen.back() != i) chosen.push_back(i);
  }
  const std::vector<Body>& bodies = world.bodies;
  double x_lo = std::numeric_limits<double>::infinity();
  double x_hi = -x_lo;
  double y_lo = x_lo;
  double y_hi = -x_lo;
  for (const std::size_t i : chosen) {
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      const double r = bodies[b].bounding_radius();
      x_lo = std::min(x_lo, frames[i].state[3 * b] - r);
      x_hi = std::max(x_hi, frames[i].state[3 * b] + r);
      y_lo = std::min(y_lo, frames[i].state[3 * b + 1] - r);
      y_hi = std::max(y_hi, frames[i].state[3 * b + 1] + r);
    }
  }
  if (world.ground) {
    y_lo = std::min(y_lo, world.ground->height);
    y_hi = std::max(y_hi, world.ground->height);
  }
  if (!(x_hi > x_lo) || !(y_hi > y_lo)) return {};
  const double pad = 0.05 * std::max(x_hi - x_lo, y_hi - y_lo);
  const std::array<double, 2> xs{x_lo - pad, x_hi + pad};
  const std::array<double, 2> ys{y_lo - pad, y_hi + pad};
  const double reach = 2 * ((xs[1] - xs[0]) + (ys[1] - ys[0]));  // past every edge of the axes
  const Rgb kSolid{0.45, 0.45, 0.45};
  std::vector<Panel> panels;
  for (const std::size_t i : chosen) {
    char title[64];
    std::snprintf(title, sizeof title, "configuration at t = %.4g s", frames[i].t);
    Panel panel{.title = title, .x_label = "x (m)", .y_label = "y (m)", .x_range = xs, .y_range = ys,
                .equal_aspect = true};
    if (world.ground) {
      const double g = world.ground->height;
      panel.regions.push_back({"", {{xs[0] - reach, g}, {xs[1] + reach, g}, {xs[1] + reach, g - reach},
                                     {xs[0] - reach, g - reach}}, kSolid, 0.3});
    }
    for (const contact::Plane& plane : world.planes) {
      const Eigen::Vector2d n = plane.unit_normal();
      const Eigen::Vector2d a = plane.point - reach * Eigen::Vector2d(-n.y(), n.x());
      const Eigen::Vector2d b = plane.point + reach * Eigen::Vector2d(-n.y(), n.x());
      panel.series.push_back({"", {a.x(), b.x()}, {a.y(), b.y()}, kSolid, 2});
    }
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      const double* pose = &frames[i].state[3 * b];
      panel.regions.push_back({"", outline(bodies[b].shape, pose[0], pose[1], pose[2]), palette(b), 0.5});
    }
    panels.push_back(std::move(panel));
  }
  return panels;
}

/// The plot, from the run's frames: x, y and angle of every body and the energies against time; for
/// more than kBodiesPlottedOneByOne bodies, the run's aggregates: the bodies' highest, mean and
/// lowest height, the active contacts, the deepest overlap, the energies, the solver's iterations,
/// criterion and time per step (`record.step_samples`, steps.csv's columns), and snapshots of the
/// configuration.
void write_plot(const std::filesystem::path& path, PlotFormat format, const SimulationRecord& record,
                const contact::World& world, const std::string& scene_name) {
  const std::vector<Body>& bodies = world.bodies;
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
    Panel overlap_panel{.title = "deepest overlap", .x_label = "t (s)", .y_label = "overlap (m)"};
    overlap_panel.series = {
        series_of("deepest overlap", palette(3), [](const SimulationFrame& f) { return std::max(0.0, -f.deepest_overlap); })};
    // Per step (steps.csv's columns), from t = h on: the worst step of each sample's span.
    std::vector<double> step_t;
    step_t.reserve(record.step_samples.size());
    for (const StepSample& sample : record.step_samples) step_t.push_back(sample.t);
    const auto per_step = [&](const std::string& label, Rgb color, auto value) {
      Series s{label, step_t, {}, color};
      s.y.reserve(record.step_samples.size());
      for (const StepSample& sample : record.step_samples) s.y.push_back(value(sample));
      return s;
    };
    std::vector<std::string> span_note;
    if (record.step_span > 1) {
      span_note.push_back("each point: the most of " + std::to_string(record.step_span) + " steps");
    }
    Panel contact_panel{.title = "active contacts", .x_label = "t (s)", .y_label = "contacts", .notes = span_note};
    contact_panel.series = {per_step("contacts", palette(0), [](const StepSample& s) {
      return static_cast<double>(s.contacts);
    })};
    Panel iteration_panel{.title = "solver iterations per step", .x_label = "t (s)", .y_label = "iterations",
                          .notes = span_note};
    iteration_panel.series = {
        per_step("iterations", palette(4), [](const StepSample& s) { return static_cast<double>(s.iterations); })};
    Panel criterion_panel{.title = "solver criterion per step (steps.csv's residual; 0 not drawn)",
                          .x_label = "t (s)",
                          .y_label = "residual",
                          .log_y = true,
                          .notes = span_note};
    criterion_panel.series = {per_step("residual", palette(5), [](const StepSample& s) { return s.residual; })};
    Panel time_panel{.title = "time per step", .x_label = "t (s)", .y_label = "ms", .notes = span_note};
    time_panel.series = {per_step("step", palette(0), [](const StepSample& s) { return s.step_ms; }),
                         per_step("solve", palette(1), [](const StepSample& s) { return s.solve_ms; })};
    figure.panels = {{height_panel, 220},    {contact_panel, 200},   {overlap_panel, 200}, {energy_panel, 220},
                     {iteration_panel, 200}, {criterion_panel, 200}, {time_panel, 200}};
    // The snapshots two to a row, each row as tall as the scene's aspect asks at that width (the
    // plot area is the panel less 88 px of margins across and 64 px down), within [140, 560] px.
    const std::vector<Panel> snapshots = snapshot_panels(record, world);
    constexpr std::size_t kPerRow = 2;
    for (std::size_t k = 0; k < snapshots.size(); k += kPerRow) {
      const Panel& first = snapshots[k];
      const double aspect = ((*first.y_range)[1] - (*first.y_range)[0]) / ((*first.x_range)[1] - (*first.x_range)[0]);
      const double plot_width = static_cast<double>(figure.width) / static_cast<double>(kPerRow) - 88;
      const int height = static_cast<int>(std::clamp(aspect * plot_width, 76.0, 496.0)) + 64;
      figure.rows.emplace_back(std::vector<Panel>(snapshots.begin() + static_cast<std::ptrdiff_t>(k),
                                                  snapshots.begin() + static_cast<std::ptrdiff_t>(std::min(k + kPerRow, snapshots.size()))),
                               height);
    }
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

}  // namespace

// SIGINT, SIGTERM or SIGHUP during a run: noted by the handler, and the run stops at its next
// step (by `Stopped`, which is no std::exception), so that StagedFiles' destructor removes the
// temporary folder and --out stays as it was. A second signal ends the process at once.
namespace {
volatile std::sig_atomic_t stop_signal = 0;
}  // namespace

extern "C" void note_stop_signal(int signal) {
  if (stop_signal != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  stop_signal = signal;
}

void stop_if_signalled() {
  if (stop_signal != 0) throw Stopped{stop_signal};
}

StopHandlers::StopHandlers() {
  stop_signal = 0;
  struct sigaction action {};
  action.sa_handler = note_stop_signal;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &action, &previous_[i]);
}

StopHandlers::~StopHandlers() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
}

int stopped_exit(const Stopped& stopped, const SimulateArguments& args) {
  if (args.dump.empty()) {
    std::fprintf(stderr, "\nperp: simulate stopped by signal %d; '%s' is as it was, no temporary files left\n",
                 stopped.signal, args.out.c_str());
  } else {
    std::fprintf(stderr, "\nperp: simulate stopped by signal %d; '%s' and '%s' are as they were, no temporary files left\n",
                 stopped.signal, args.out.c_str(), args.dump.c_str());
  }
  return 128 + stopped.signal;
}

void check_dump_arguments(const SimulateArguments& args) {
  if (args.dump_every < 0) throw InvalidProblem("--dump-every must be >= 0, got " + std::to_string(args.dump_every));
  if (args.dump_max < 1) throw InvalidProblem("--dump-max must be >= 1, got " + std::to_string(args.dump_max));
  if (args.dump.empty()) return;
  // --out and --dump are each replaced as a whole at the end of the run: neither may be the other or
  // hold it.
  const auto normal = [](const std::string& path) {
    std::error_code error;
    std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, error), error);
    if (error) p = std::filesystem::absolute(path).lexically_normal();
    return p.has_filename() ? p : p.parent_path();
  };
  const std::filesystem::path a = normal(args.out);
  const std::filesystem::path b = normal(args.dump);
  const auto within = [](const std::filesystem::path& inner, const std::filesystem::path& outer) {
    const std::filesystem::path relative = inner.lexically_relative(outer);
    return !relative.empty() && *relative.begin() != "..";
  };
  if (within(a, b) || within(b, a)) {
    throw InvalidProblem("--dump '" + args.dump + "' and --out '" + args.out +
                         "' overlap: each folder is replaced as a whole at the end of the run; give --dump a folder "
                         "beside --out (e.g. --dump " + args.out + "-dump)");
  }
}

void print_fallbacks(long fallbacks) {
  if (fallbacks > 0) {
    std::printf("note: %ld step%s fell back (steps.csv's fallback column says from what to what)\n", fallbacks,
                fallbacks == 1 ? "" : "s");
  }
}

void print_dumps(const SimulateArguments& args, long dumped, long left_out, long first_left_out) {
  if (args.dump.empty()) return;
  std::printf("dumped %ld %s into %s/ (step-NNNNN.hdf5, fclib; replay one with perp solve FILE)\n", dumped,
              dumped == 1 ? "step's frictional contact problem" : "steps' frictional contact problems",
              folder_text(args.dump).c_str());
  if (left_out > 0) {
    std::printf("warning: %ld more step%s to dump left out past --dump-max %ld (first: step %ld)\n", left_out,
                left_out == 1 ? "" : "s", args.dump_max, first_left_out);
  }
}

namespace {

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

std::optional<std::pair<std::string, std::string>> method_flag(const SimulateArguments& args) {
  if (args.method && args.solver) {
    throw InvalidProblem("--method " + *args.method + " and --solver " + *args.solver +
                         ": --solver is the deprecated spelling of --method; give --method alone");
  }
  if (args.method) return std::pair{"--method " + *args.method, *args.method};
  if (!args.solver) return std::nullopt;
  std::fprintf(stderr, "perp: warning: --solver is deprecated; use --method (--solver is read until the next release)\n");
  return std::pair{"--solver " + *args.solver, *args.solver};
}

int run_simulate(const SimulateArguments& args) {
  const auto flag = method_flag(args);
  if (scene_file_dimension(args.scene) == 3) return run_simulate3d(args);  // simulate3d.cpp
  contact::Scene scene = read_scene_file(args.scene);
  if (flag) {
    scene.options.method = from_string<Method>(flag->second);
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
      throw InvalidProblem(flag->first + " cannot solve this scene's steps (" +
                           (coulomb ? "the Coulomb model" : "an LCP friction model") + "); use one of " + names);
    }
  }
  apply_solve_flags(args, scene.options.solve);
  SimulationOutputOptions output = output_options(args);
  const bool plot = args.plot != "none";
  const PlotFormat plot_format = plot ? plot_format_from_name(args.plot) : PlotFormat::Png;
  const StopHandlers handlers;
  SimulationRecord record;
  std::vector<std::string> written_names;
  double run_seconds = 0;    // write_simulation: the steps and the tables
  double pages_seconds = 0;  // the plot, the viewer, the commit
  check_dump_arguments(args);
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
                 scene.world, scene_name);
    }
    write_viewer_html(files.temporary("view.html"), scene, record, scene_name);
    stop_if_signalled();
    files.commit();
    if (dump) dump->commit();
    pages_seconds = seconds_since(pages);
    written_names = files.names();
  } catch (const Stopped& stopped) {
    return stopped_exit(stopped, args);
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
  print_fallbacks(record.fallbacks);
  if (record.unsolved > 0) {
    std::printf("warning: %ld step%s ended unsolved by %s (first: step %ld, %s)\n", record.unsolved,
                record.unsolved == 1 ? "" : "s", solver, record.first_failure_step,
                to_string(record.first_failure).c_str());
  }
  std::string written;
  for (const std::string& name : written_names) written += (written.empty() ? "" : ", ") + name;
  std::printf("wrote %s/{%s}\n", folder_text(args.out).c_str(), written.c_str());
  print_dumps(args, record.dumped, record.dumps_left_out, record.first_left_out);
  return record.unsolved == 0 ? 0 : 1;
}

}  // namespace perp::cli
