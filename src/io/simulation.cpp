#include "perp/io/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string_view>
#include <utility>

#include "perp/contact/detection.hpp"
#include "perp/core/error.hpp"
#include "perp/io/fclib.hpp"
#include "simulation_output.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp {

std::vector<std::string> simulation_output_names() {
  std::vector<std::string> names(kSimulationCsvFiles.begin(), kSimulationCsvFiles.end());
  names.insert(names.end(), {kSimulationHdf5File, "plot.png", "plot.svg", "view.html"});
  return names;
}

SimulationFormat simulation_format_from_name(const std::string& name) {
  if (name == "csv") return SimulationFormat::Csv;
  if (name == "hdf5") return SimulationFormat::Hdf5;
  if (name == "both") return SimulationFormat::Both;
  throw InvalidProblem("--format " + name + ": expected csv, hdf5 or both");
}

std::string step_dump_name(long step) {
  char name[48];
  std::snprintf(name, sizeof name, "step-%05ld.hdf5", step);
  return name;
}

bool is_step_dump_name(const std::string& name) {
  constexpr std::string_view kPrefix = "step-";
  constexpr std::string_view kSuffix = ".hdf5";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) || !name.ends_with(kSuffix)) {
    return false;
  }
  const std::string_view digits(name.data() + kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void write_step_fclib(const std::filesystem::path& path, const contact::StepReport& report, long step, double t) {
  detail::write_step_fclib(path,
                           detail::outcome_of(report),
                           step, t);
}

std::string csv_number(double value) {
  std::string text;
  detail::append_csv_number(text, value);
  return text;
}

std::string csv_field(const std::string& field) {
  // A field a spreadsheet would read as a formula (=, +, -, @, a tab or a carriage return first)
  // gets a leading apostrophe (OWASP's CSV-injection rule).
  const bool formula = !field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos;
  const std::string text = formula ? "'" + field : field;
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

namespace {

using contact::Body;
using contact::World;

/// The numbers a CSV row is about to carry must be finite (no output holds inf or NaN): otherwise
/// the run stops with the body, the quantity and the time named.
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

/// Refuses a run whose CSVs would not fit on the disk holding `out`: each recorded step (every
/// `every`-th) writes one trajectory row (1 + 6 numbers per body) and one energy row (5 numbers),
/// estimated at 12 bytes a number (the %.12g text and its comma, a typical length; simulation.h5
/// takes 8). Contacts add more.
void require_room(const std::filesystem::path& out, long steps, long every, std::size_t bodies) {
  const double per_step = 12.0 * static_cast<double>(1 + 6 * bodies + 5);
  const double estimate = per_step * (static_cast<double>(steps / every) + 2);
  std::error_code error;
  const std::filesystem::space_info space = std::filesystem::space(out, error);
  if (error) return;  // unknown: let the writes report it
  if (estimate > static_cast<double>(space.available)) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "%ld steps would write about %.3g GB of CSV (%.0f bytes a recorded step), more than the %.3g GB free "
                  "in '%s'",
                  steps, estimate / 1e9, per_step, static_cast<double>(space.available) / 1e9, out.string().c_str());
    throw InvalidProblem(text);
  }
}

/// Keeps every stride-th frame, at most 2·capacity of them: when full, every other kept frame is
/// dropped (frame i holds step i·stride, so the even ones stay) and the stride doubles.
class FrameSampler {
 public:
  // Every `every`-th step at first (the trajectory's rows).
  FrameSampler(std::size_t capacity, long every) : capacity_(std::max<std::size_t>(capacity, 1)), stride_(every) {}

  [[nodiscard]] bool wants(long step) const { return step % stride_ == 0; }

  void add(SimulationFrame frame) {
    if (frames_.size() == 2 * capacity_) {
      for (std::size_t i = 1; 2 * i < frames_.size(); ++i) frames_[i] = std::move(frames_[2 * i]);
      frames_.resize(capacity_);
      stride_ *= 2;
    }
    if (frame.step % stride_ == 0) frames_.push_back(std::move(frame));
  }

  /// The run's frames, with `last` appended when its step is not one of them.
  std::vector<SimulationFrame> finish(SimulationFrame last) {
    if (frames_.empty() || frames_.back().step != last.step) frames_.push_back(std::move(last));
    return std::move(frames_);
  }
  [[nodiscard]] long stride() const { return stride_; }

 private:
  std::size_t capacity_;
  long stride_;
  std::vector<SimulationFrame> frames_;
};

/// Adds one step's sample to `record.step_samples`: merged into the last sample while the step lies
/// in its span; when 2 · capacity samples are held, neighbours are merged in pairs first and the
/// span doubles.
void add_step_sample(SimulationRecord& record, const StepSample& sample) {
  const auto merge = [](StepSample& into, const StepSample& later) {
    into.t = later.t;
    into.contacts = std::max(into.contacts, later.contacts);
    into.iterations = std::max(into.iterations, later.iterations);
    into.residual = std::max(into.residual, later.residual);
    into.solve_ms = std::max(into.solve_ms, later.solve_ms);
    into.step_ms = std::max(into.step_ms, later.step_ms);
  };
  std::vector<StepSample>& samples = record.step_samples;
  if (!samples.empty() && sample.first_step < samples.back().first_step + record.step_span) {
    merge(samples.back(), sample);
    return;
  }
  if (samples.size() >= 2 * SimulationRecord::kStepSampleCapacity) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < samples.size(); i += 2, ++kept) {
      StepSample merged = samples[i];
      if (i + 1 < samples.size()) merge(merged, samples[i + 1]);
      samples[kept] = merged;
    }
    samples.resize(kept);
    record.step_span *= 2;
    if (sample.first_step < samples.back().first_step + record.step_span) {
      merge(samples.back(), sample);
      return;
    }
  }
  samples.push_back(sample);
}

std::vector<double> pose_of(const World& world) {
  std::vector<double> state;
  state.reserve(3 * world.bodies.size());
  for (const Body& body : world.bodies) {
    state.push_back(body.position.x());
    state.push_back(body.position.y());
    state.push_back(body.angle);
  }
  return state;
}

}  // namespace

SimulationRecord write_simulation(const contact::Scene& scene, StagedFiles& files,
                                  const SimulationOutputOptions& options) {
  scene.validate();
  // --dump: the steps keep their frictional contact problem (a copy of the scene's options, the
  // scene itself as given); only the Coulomb model on a frictional contact method poses one.
  std::optional<contact::Scene> dumping;
  detail::StepDumps dumps(options);
  if (options.dump != nullptr) {
    const std::vector<Method> cone = friction_contact_methods();
    const bool on_cone = scene.options.friction_model == contact::FrictionModel::Coulomb &&
                         std::find(cone.begin(), cone.end(), scene.options.method) != cone.end();
    if (!on_cone) {
      const bool coulomb = scene.options.friction_model == contact::FrictionModel::Coulomb;
      throw InvalidProblem(
          std::string("--dump writes the steps' frictional contact problem, which only the Coulomb model on a "
                      "frictional contact method poses; this scene's steps solve an LCP (") +
          (coulomb ? "the method " + to_string(scene.options.method) + " takes an LCP"
                   : std::string("friction_model is not coulomb")) +
          "): use friction_model coulomb with --solver auto or another frictional contact method");
    }
    dumping = scene;
    dumping->options.keep_problem = true;
  }
  const contact::Scene& stepped = dumping ? *dumping : scene;
  const std::vector<Body>& bodies = scene.world.bodies;
  const long steps = scene.step_count();
  if (options.every < 1) throw InvalidProblem("every (--every) must be >= 1, got " + std::to_string(options.every));
  require_room(files.staging(), steps, options.every, bodies.size());
  // A pile of bodies inside each other is refused now, naming the deepest overlap, rather than
  // at the first step after the CSVs were opened (detect_contacts enforces contact_limit).
  (void)contact::detect_contacts(scene.world, 0.0);

  using detail::Column;
  using Kind = detail::Column::Kind;
  detail::SimulationSinks sinks(files, options, 2, scene.options.timestep);
  std::vector<std::string> names;
  names.reserve(bodies.size());
  for (const Body& body : bodies) names.push_back(body.name);
  detail::StateTable trajectory(sinks, names, {"x", "y", "angle", "vx", "vy", "omega"});
  detail::OutputTable energy_table(sinks, "energy",
                                   {{"t"}, {"kinetic"}, {"potential"}, {"total"}, {"dissipated"}});
  // One row a step: that the step was solved, and by how much (criteria of the frictional contact
  // problem; zero for the LCP models, which report their own residual).
  detail::OutputTable steps_table(
      sinks, "steps",
      {{"step", Kind::Integer}, {"t"}, {"contacts", Kind::Integer}, {"status", Kind::Text}, {"method", Kind::Text},
       {"iterations", Kind::Integer}, {"residual"}, {"signorini"}, {"coulomb"}, {"complementarity"},
       {"dissipation"}, {"warm_started", Kind::Integer}, {"solve_ms"}, {"step_ms"}, {"fallback", Kind::Text}});
  // The names a contact's sides may take: the bodies, "ground", the planes (simulation.h5 stores
  // indices into this list).
  std::vector<std::string> plane_names;
  for (std::size_t p = 0; p < scene.world.planes.size(); ++p) {
    const std::string& name = scene.world.planes[p].name;
    plane_names.push_back(name.empty() ? "plane" + std::to_string(p) : name);
  }
  const detail::Surfaces surfaces(names, plane_names);
  std::optional<detail::OutputTable> contacts_table;
  if (options.contacts) {
    contacts_table.emplace(sinks, "contacts",
                           std::vector<Column>{{"t"},
                                               {"body_a", Kind::Surface},
                                               {"body_b", Kind::Surface},
                                               {"x"},
                                               {"y"},
                                               {"gap"},
                                               {"normal_impulse"},
                                               {"tangent_impulse"}},
                           surfaces.names());
  }

  SimulationRecord record;
  record.steps = steps;
  record.every = options.every;
  record.initial_energy = contact::energy(scene.world, scene.options.gravity);
  record.last_energy = record.initial_energy.total();
  const std::size_t capacity =
      options.frame_capacity > 0
          ? options.frame_capacity
          : std::clamp<std::size_t>(options.frame_budget / (15 * std::max<std::size_t>(bodies.size(), 1)), 50, 2000);
  FrameSampler sampler(capacity, options.every);
  SimulationFrame last;

  // One trajectory and energy row.
  std::vector<double> state;
  const auto write_state = [&](double t, const World& world, const contact::Energy& e) {
    require_finite(t, "the time", t);
    state.clear();
    for (const Body& body : world.bodies) {
      constexpr std::array<const char*, 6> kWhat = {"x", "y", "the angle", "vx", "vy", "omega"};
      std::size_t k = 0;
      for (double value : {body.position.x(), body.position.y(), body.angle, body.velocity.x(), body.velocity.y(),
                           body.angular_velocity}) {
        // The message is built only for a value that is not finite (this runs for every number).
        if (!std::isfinite(value)) require_finite(value, std::string(kWhat[k]) + " of body '" + body.name + "'", t);
        ++k;
        state.push_back(value);
      }
    }
    trajectory.add(t, state);
    const double dissipated = record.initial_energy.total() - e.total();
    require_finite(e.kinetic, "the kinetic energy", t);
    require_finite(e.potential, "the potential energy", t);
    require_finite(e.total(), "the total energy", t);
    require_finite(dissipated, "the dissipated energy", t);
    energy_table.real(t).real(e.kinetic).real(e.potential).real(e.total()).real(dissipated).end_row();
  };
  {
    const contact::Energy e = contact::energy(scene.world, scene.options.gravity);
    write_state(0, scene.world, e);
    sampler.add({.step = 0, .t = 0, .state = pose_of(scene.world), .kinetic = e.kinetic, .potential = e.potential});
  }

  record.unsolved =
      contact::simulate(stepped, [&](long k, double t, const World& world, const contact::StepReport& report) {
        const double t_start = static_cast<double>(k) * scene.options.timestep;
        double deepest = 0;
        for (std::size_t c = 0; c < report.contacts.size(); ++c) {
          const contact::Contact& contact = report.contacts[c];
          const auto i = static_cast<Eigen::Index>(c);
          deepest = std::min(deepest, contact.gap);
          if (!contacts_table) continue;
          const std::string& a = bodies[static_cast<std::size_t>(contact.body_a)].name;
          for (const double value : {contact.point.x(), contact.point.y(), contact.gap, report.normal_impulse[i],
                                     report.tangent_impulse[i]}) {
            if (!std::isfinite(value)) require_finite(value, "a contact point, gap or impulse of body '" + a + "'", t_start);
          }
          contacts_table->real(t_start)
              .surface(contact.body_a, a)
              .surface(surfaces.index(contact.body_b), surfaces.name(contact.body_b))
              .real(contact.point.x())
              .real(contact.point.y())
              .real(contact.gap)
              .real(report.normal_impulse[i])
              .real(report.tangent_impulse[i])
              .end_row();
        }
        const FrictionContactResiduals& c = report.criteria;
        const Result& solved = report.result;
        const std::string method = report.ran_solve() ? to_string(solved.method) : "none";
        steps_table.integer(k)
            .real(t)
            .integer(static_cast<std::int64_t>(report.contacts.size()))
            .text(to_string(report.status))
            .text(method)
            .integer(solved.iterations)
            .real(solved.residual)
            .real(c.signorini)
            .real(c.coulomb)
            .real(c.complementarity)
            .real(c.dissipation)
            .integer(static_cast<std::int64_t>(report.warm_started))
            .real(report.solve_ms)
            .real(report.step_ms)
            .text(report.fallback)
            .end_row();
        record.most_contacts = std::max(record.most_contacts, report.contacts.size());
        ++record.steps_by_method[method];
        record.fallbacks += report.fallback.empty() ? 0 : 1;
        record.most_iterations = std::max(record.most_iterations, solved.iterations);
        add_step_sample(record, {.first_step = k,
                                 .t = t,
                                 .contacts = report.contacts.size(),
                                 .iterations = solved.iterations,
                                 .residual = solved.residual,
                                 .solve_ms = report.solve_ms,
                                 .step_ms = report.step_ms});
        if (report.status != Status::Solved && record.first_failure_step < 0) {
          record.first_failure = report.status;
          record.first_failure_step = k;
        }
        dumps.offer(k, t_start,
                    detail::outcome_of(report));
        if (deepest < record.deepest_overlap) {
          record.deepest_overlap = deepest;
          record.deepest_overlap_step = k;
        }
        record.solve_ms += report.solve_ms;
        record.step_ms += report.step_ms;
        if (report.step_ms > record.slowest_step_ms) {
          record.slowest_step_ms = report.step_ms;
          record.slowest_step = k;
        }
        const long step = k + 1;
        const contact::Energy e = contact::energy(world, scene.options.gravity);
        record.last_time = t;
        record.last_energy = e.total();
        if (detail::recorded_step(step, options.every, steps)) write_state(t, world, e);
        if (sampler.wants(step) || step == steps) {
          SimulationFrame frame{.step = step,
                                .t = t,
                                .state = pose_of(world),
                                .kinetic = e.kinetic,
                                .potential = e.potential,
                                .deepest_overlap = deepest};
          frame.contacts.reserve(report.contacts.size());
          for (std::size_t ci = 0; ci < report.contacts.size(); ++ci) {
            const contact::Contact& contact = report.contacts[ci];
            const auto i = static_cast<Eigen::Index>(ci);
            const Eigen::Vector2d impulse =
                report.normal_impulse[i] * contact.normal + report.tangent_impulse[i] * contact.tangent();
            frame.contacts.push_back({contact.point.x(), contact.point.y(), impulse.x(), impulse.y()});
          }
          if (step == steps) last = frame;
          sampler.add(std::move(frame));
        }
        if (options.progress) options.progress(step, steps);
      });
  trajectory.close();
  energy_table.close();
  steps_table.close();
  if (contacts_table) contacts_table->close();
  sinks.close();
  record.frame_stride = sampler.stride();
  record.frames = sampler.finish(std::move(last));
  record.dumped = dumps.dumped;
  record.dumps_left_out = dumps.left_out;
  record.first_left_out = dumps.first_left_out;
  return record;
}

}  // namespace perp
