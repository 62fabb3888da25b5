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
#include "perp/solvers/friction_contact.hpp"
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

/// A CSV field per RFC 4180: quoted (with its quotes doubled) when it holds a comma, a quote, or
/// a line break, so that a body named "a,b" or "top\nblock" keeps the header's columns.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::ofstream open_output(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot write '" + path.string() + "'");
  return out;
}

/// The run's five outputs, written under temporary names in `--out` and renamed over the final
/// ones only once the whole run has succeeded: a run that fails part-way (an exception, a write
/// error) leaves the previous run's files as they were and no mix of two runs. The temporary
/// files are removed on failure.
class AtomicOutputs {
 public:
  static constexpr std::array<const char*, 5> kNames = {"trajectory.csv", "contacts.csv", "energy.csv", "steps.csv",
                                                        "plot.png"};

  explicit AtomicOutputs(std::filesystem::path dir) : dir_(std::move(dir)) {}
  AtomicOutputs(const AtomicOutputs&) = delete;
  AtomicOutputs& operator=(const AtomicOutputs&) = delete;
  ~AtomicOutputs() {
    if (committed_) return;
    std::error_code ignored;
    for (const char* name : kNames) std::filesystem::remove(temporary(name), ignored);
  }

  [[nodiscard]] std::filesystem::path temporary(const char* name) const {
    return dir_ / ("." + std::string(name) + ".partial-" + std::to_string(getpid()));
  }

  /// Renames every temporary file over its final name.
  void commit() {
    for (const char* name : kNames) {
      std::error_code error;
      std::filesystem::rename(temporary(name), dir_ / name, error);
      if (error) throw InvalidProblem("cannot rename into '" + (dir_ / name).string() + "': " + error.message());
    }
    committed_ = true;
  }

 private:
  std::filesystem::path dir_;
  bool committed_ = false;
};

/// The numbers a CSV row is about to carry must be finite (no output of the tool holds inf or
/// NaN): otherwise the run stops with the body, the quantity and the time named.
void require_finite(double value, const std::string& what, double t) {
  if (std::isfinite(value)) return;
  char number[64];
  std::snprintf(number, sizeof number, "at t = %g s, ", t);
  char shown[32];
  std::snprintf(shown, sizeof shown, "%g", value);
  throw InvalidProblem(std::string(number) + what + " is " + shown +
                       ": the scene's magnitudes (sizes, masses, velocities, timestep) overflow the range of double; "
                       "the previous files in --out are left as they were");
}

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

/// What the plot keeps of a run: every `stride`-th recorded state, at most 2·kPlotSamples of
/// them; when full, every other sample is dropped and the stride doubles. Memory stays
/// O(kPlotSamples · bodies) however many steps run (the CSVs are streamed, never held).
class PlotSamples {
 public:
  static constexpr std::size_t kPlotSamples = 2000;

  void add(double t, std::vector<double> state, const std::array<double, 3>& energy) {
    if (seen_++ % stride_ != 0) return;
    if (times.size() == 2 * kPlotSamples) {
      for (std::size_t i = 1; 2 * i < times.size(); ++i) {  // sample 0 stays where it is
        times[i] = times[2 * i];
        states[i] = std::move(states[2 * i]);
        energies[i] = energies[2 * i];
      }
      times.resize(kPlotSamples);
      states.resize(kPlotSamples);
      energies.resize(kPlotSamples);
      stride_ *= 2;
      if ((seen_ - 1) % stride_ != 0) return;
    }
    times.push_back(t);
    states.push_back(std::move(state));
    energies.push_back(energy);
  }

  std::vector<double> times;
  std::vector<std::vector<double>> states;
  std::vector<std::array<double, 3>> energies;

 private:
  std::size_t stride_ = 1;
  std::size_t seen_ = 0;
};

/// Refuses a run whose CSVs would not fit on the disk holding `out`: each step writes one
/// trajectory row (1 + 6 numbers per body) and one energy row (5 numbers), estimated at 12
/// bytes a number (the %.12g text and its comma, a typical length). Contacts add more.
void require_room(const std::filesystem::path& out, long steps, std::size_t bodies) {
  const double per_step = 12.0 * static_cast<double>(1 + 6 * bodies + 5);
  const double estimate = per_step * (static_cast<double>(steps) + 1);
  std::error_code error;
  const std::filesystem::space_info space = std::filesystem::space(out, error);
  if (error) return;  // unknown: let the writes report it
  if (estimate > static_cast<double>(space.available)) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "%ld steps would write about %.3g GB of CSV (%.0f bytes a step), more than the %.3g GB free in '%s'",
                  steps, estimate / 1e9, per_step, static_cast<double>(space.available) / 1e9, out.string().c_str());
    throw InvalidProblem(text);
  }
}

/// The plot: x and y of every body, its angle, and the energies, against time, from the
/// decimated samples (at most 2 · PlotSamples::kPlotSamples points per curve).
void write_plot(const std::filesystem::path& path, const std::vector<double>& times,
                const std::vector<std::vector<double>>& states, const std::vector<Body>& bodies,
                const std::vector<std::array<double, 3>>& energies) {
  const std::vector<double>& t = times;
  auto series_of = [&](auto value) {
    std::vector<double> out;
    for (std::size_t i = 0; i < times.size(); ++i) out.push_back(value(i));
    return out;
  };
  std::vector<Series> x_series;
  std::vector<Series> y_series;
  std::vector<Series> angle_series;
  const std::size_t shown = std::min<std::size_t>(bodies.size(), 8);  // legend room
  for (std::size_t b = 0; b < shown; ++b) {
    x_series.push_back({bodies[b].name, t, series_of([&](std::size_t i) { return states[i][6 * b]; }), palette(b)});
    y_series.push_back({bodies[b].name, t, series_of([&](std::size_t i) { return states[i][6 * b + 1]; }), palette(b)});
    angle_series.push_back(
        {bodies[b].name, t, series_of([&](std::size_t i) { return states[i][6 * b + 2]; }), palette(b)});
  }
  const std::vector<Series> energy_series{
      {"kinetic", t, series_of([&](std::size_t i) { return energies[i][0]; }), palette(0)},
      {"potential", t, series_of([&](std::size_t i) { return energies[i][1]; }), palette(1)},
      {"total", t, series_of([&](std::size_t i) { return energies[i][2]; }), palette(3)},
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
  const std::filesystem::path out(args.out);
  std::error_code error;
  std::filesystem::create_directories(out, error);
  if (error) throw InvalidProblem("cannot create '" + out.string() + "': " + error.message());
  require_room(out, scene.step_count(), scene.world.bodies.size());
  // A pile of bodies inside each other is refused now, naming the deepest overlap, rather than
  // at the first step after the CSVs were opened (detect_contacts enforces contact_limit).
  (void)contact::detect_contacts(scene.world, 0.0);

  AtomicOutputs outputs(out);
  std::ofstream trajectory = open_output(outputs.temporary("trajectory.csv"));
  std::ofstream contacts = open_output(outputs.temporary("contacts.csv"));
  std::ofstream energy_csv = open_output(outputs.temporary("energy.csv"));
  std::ofstream steps_csv = open_output(outputs.temporary("steps.csv"));
  const std::vector<Body>& bodies = scene.world.bodies;
  trajectory << "t";
  for (const Body& body : bodies) {
    for (const char* column : {"x", "y", "angle", "vx", "vy", "omega"}) {
      trajectory << "," << csv_field(body.name + "." + column);
    }
  }
  trajectory << "\n";
  contacts << "t,body_a,body_b,x,y,gap,normal_impulse,tangent_impulse\n";
  energy_csv << "t,kinetic,potential,total,dissipated\n";
  // One row a step: that the step was solved, and by how much (criteria of the frictional contact
  // problem; zero for the LCP models, which report their own residual).
  steps_csv << "step,t,contacts,status,method,iterations,residual,signorini,coulomb,complementarity,dissipation,"
               "warm_started,solve_ms,step_ms,fallback\n";
  const auto surface_name = [&](int index) {
    if (index >= 0) return bodies[static_cast<std::size_t>(index)].name;
    if (index == contact::kGround) return std::string("ground");
    const std::size_t p = contact::plane_of(index);
    const std::string& name = scene.world.planes[p].name;
    return name.empty() ? "plane" + std::to_string(p) : name;
  };

  PlotSamples samples;
  const contact::Energy initial = contact::energy(scene.world, scene.options.gravity);
  double last_time = 0;
  double last_energy = initial.total();
  auto record = [&](double t, const World& world) {
    std::vector<double> state;
    require_finite(t, "the time", t);
    trajectory << csv_number(t);
    for (const Body& body : world.bodies) {
      constexpr std::array<const char*, 6> kWhat = {"x", "y", "the angle", "vx", "vy", "omega"};
      std::size_t k = 0;
      for (double value : {body.position.x(), body.position.y(), body.angle, body.velocity.x(), body.velocity.y(),
                           body.angular_velocity}) {
        require_finite(value, std::string(kWhat[k++]) + " of body '" + body.name + "'", t);
        trajectory << "," << csv_number(value);
        state.push_back(value);
      }
    }
    trajectory << "\n";
    const contact::Energy e = contact::energy(world, scene.options.gravity);
    require_finite(e.kinetic, "the kinetic energy", t);
    require_finite(e.potential, "the potential energy", t);
    require_finite(e.total(), "the total energy", t);
    require_finite(initial.total() - e.total(), "the dissipated energy", t);
    energy_csv << csv_number(t) << "," << csv_number(e.kinetic) << "," << csv_number(e.potential) << ","
               << csv_number(e.total()) << "," << csv_number(initial.total() - e.total()) << "\n";
    samples.add(t, std::move(state), {e.kinetic, e.potential, e.total()});
    last_time = t;
    last_energy = e.total();
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
          const std::string& a = bodies[static_cast<std::size_t>(contact.body_a)].name;
          for (const double value : {contact.point.x(), contact.point.y(), contact.gap, report.normal_impulse[i],
                                     report.tangent_impulse[i]}) {
            require_finite(value, "a contact point, gap or impulse of body '" + a + "'", t_start);
          }
          contacts << csv_number(t_start) << "," << csv_field(a) << "," << csv_field(surface_name(contact.body_b))
                   << "," << csv_number(contact.point.x()) << "," << csv_number(contact.point.y()) << ","
                   << csv_number(contact.gap) << "," << csv_number(report.normal_impulse[i]) << ","
                   << csv_number(report.tangent_impulse[i]) << "\n";
        }
        const FrictionContactResiduals& c = report.criteria;
        steps_csv << k << "," << csv_number(t) << "," << report.contacts.size() << "," << to_string(report.status) << ","
                  << (report.method.empty() ? "none" : report.method) << "," << report.iterations << ","
                  << csv_number(report.residual) << "," << csv_number(c.signorini) << "," << csv_number(c.coulomb) << ","
                  << csv_number(c.complementarity) << "," << csv_number(c.dissipation) << "," << report.warm_started
                  << "," << csv_number(report.solve_ms) << "," << csv_number(report.step_ms) << ","
                  << report.fallback << "\n";
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
  steps_csv.close();
  if (!trajectory || !contacts || !energy_csv || !steps_csv) {
    throw InvalidProblem("error while writing into '" + out.string() + "'");
  }
  write_plot(outputs.temporary("plot.png"), samples.times, samples.states, bodies, samples.energies);
  outputs.commit();

  std::printf("%s: %ld steps of %g s, %zu bodies, up to %zu active contacts\n", args.scene.c_str(), steps,
              scene.options.timestep, bodies.size(), most_contacts);
  std::printf("energy: %.6g J at t = 0, %.6g J at t = %g s\n", initial.total(), last_energy, last_time);
  std::printf("time: %.3g ms stepping, of which %.3g ms in the LCP solver (%.0f%%)\n", step_ms, solve_ms,
              step_ms > 0 ? 100 * solve_ms / step_ms : 0.0);
  if (unsolved > 0) {
    std::printf("warning: %ld steps ended without a solved LCP (first: step %ld, %s)\n", unsolved, first_failure_step,
                to_string(first_failure).c_str());
  }
  std::printf("wrote %s/{trajectory.csv, contacts.csv, energy.csv, steps.csv, plot.png}\n", out.string().c_str());
  return unsolved == 0 ? 0 : 1;
}

}  // namespace perp::cli
