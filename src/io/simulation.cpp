#include "perp/io/simulation.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <utility>

#include "perp/contact/detection.hpp"
#include "perp/core/error.hpp"

namespace perp {

StagedFiles::StagedFiles(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) throw InvalidProblem("cannot create '" + dir_.string() + "': " + error.message());
}

StagedFiles::~StagedFiles() {
  if (committed_) return;
  std::error_code ignored;
  for (const std::string& name : names_) std::filesystem::remove(staged(name), ignored);
}

std::filesystem::path StagedFiles::staged(const std::string& name) const {
  return dir_ / ("." + name + ".partial-" + std::to_string(getpid()));
}

std::filesystem::path StagedFiles::temporary(const std::string& name) {
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
  return staged(name);
}

void StagedFiles::commit() {
  for (const std::string& name : names_) {
    std::error_code error;
    std::filesystem::rename(staged(name), dir_ / name, error);
    if (error) throw InvalidProblem("cannot rename into '" + (dir_ / name).string() + "': " + error.message());
  }
  committed_ = true;
}

std::string csv_number(double value) {
  if (value == 0) value = 0;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  return buffer;
}

std::string csv_field(const std::string& text) {
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

std::ofstream open_output(const std::filesystem::path& path) {
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot write '" + path.string() + "'");
  return out;
}

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

/// Refuses a run whose CSVs would not fit on the disk holding `out`: each step writes one
/// trajectory row (1 + 6 numbers per body) and one energy row (5 numbers), estimated at 12 bytes
/// a number (the %.12g text and its comma, a typical length). Contacts add more.
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

/// Keeps every stride-th frame, at most 2·capacity of them: when full, every other kept frame is
/// dropped (frame i holds step i·stride, so the even ones stay) and the stride doubles.
class FrameSampler {
 public:
  explicit FrameSampler(std::size_t capacity) : capacity_(std::max<std::size_t>(capacity, 1)) {}

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
  long stride_ = 1;
  std::vector<SimulationFrame> frames_;
};

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
  const std::vector<Body>& bodies = scene.world.bodies;
  const long steps = scene.step_count();
  require_room(files.dir(), steps, bodies.size());
  // A pile of bodies inside each other is refused now, naming the deepest overlap, rather than
  // at the first step after the CSVs were opened (detect_contacts enforces contact_limit).
  (void)contact::detect_contacts(scene.world, 0.0);

  std::ofstream trajectory = open_output(files.temporary("trajectory.csv"));
  std::ofstream contacts = open_output(files.temporary("contacts.csv"));
  std::ofstream energy_csv = open_output(files.temporary("energy.csv"));
  std::ofstream steps_csv = open_output(files.temporary("steps.csv"));
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

  SimulationRecord record;
  record.steps = steps;
  record.initial_energy = contact::energy(scene.world, scene.options.gravity);
  record.last_energy = record.initial_energy.total();
  const std::size_t capacity =
      options.frame_capacity > 0
          ? options.frame_capacity
          : std::clamp<std::size_t>(options.frame_budget / (15 * std::max<std::size_t>(bodies.size(), 1)), 50, 2000);
  FrameSampler sampler(capacity);
  SimulationFrame last;

  // One trajectory and energy row; returns the energy.
  const auto write_state = [&](double t, const World& world) {
    require_finite(t, "the time", t);
    trajectory << csv_number(t);
    for (const Body& body : world.bodies) {
      constexpr std::array<const char*, 6> kWhat = {"x", "y", "the angle", "vx", "vy", "omega"};
      std::size_t k = 0;
      for (double value : {body.position.x(), body.position.y(), body.angle, body.velocity.x(), body.velocity.y(),
                           body.angular_velocity}) {
        require_finite(value, std::string(kWhat[k++]) + " of body '" + body.name + "'", t);
        trajectory << "," << csv_number(value);
      }
    }
    trajectory << "\n";
    const contact::Energy e = contact::energy(world, scene.options.gravity);
    const double dissipated = record.initial_energy.total() - e.total();
    require_finite(e.kinetic, "the kinetic energy", t);
    require_finite(e.potential, "the potential energy", t);
    require_finite(e.total(), "the total energy", t);
    require_finite(dissipated, "the dissipated energy", t);
    energy_csv << csv_number(t) << "," << csv_number(e.kinetic) << "," << csv_number(e.potential) << ","
               << csv_number(e.total()) << "," << csv_number(dissipated) << "\n";
    record.last_time = t;
    record.last_energy = e.total();
    return e;
  };
  {
    const contact::Energy e = write_state(0, scene.world);
    sampler.add({.step = 0, .t = 0, .state = pose_of(scene.world), .kinetic = e.kinetic, .potential = e.potential});
  }

  record.unsolved =
      contact::simulate(scene, [&](long k, double t, const World& world, const contact::StepReport& report) {
        const double t_start = static_cast<double>(k) * scene.options.timestep;
        double deepest = 0;
        for (std::size_t c = 0; c < report.contacts.size(); ++c) {
          const contact::Contact& contact = report.contacts[c];
          const auto i = static_cast<Eigen::Index>(c);
          const std::string& a = bodies[static_cast<std::size_t>(contact.body_a)].name;
          for (const double value : {contact.point.x(), contact.point.y(), contact.gap, report.normal_impulse[i],
                                     report.tangent_impulse[i]}) {
            require_finite(value, "a contact point, gap or impulse of body '" + a + "'", t_start);
          }
          deepest = std::min(deepest, contact.gap);
          contacts << csv_number(t_start) << "," << csv_field(a) << "," << csv_field(surface_name(contact.body_b))
                   << "," << csv_number(contact.point.x()) << "," << csv_number(contact.point.y()) << ","
                   << csv_number(contact.gap) << "," << csv_number(report.normal_impulse[i]) << ","
                   << csv_number(report.tangent_impulse[i]) << "\n";
        }
        const FrictionContactResiduals& c = report.criteria;
        const Result& solved = report.result;
        const std::string method = report.ran_solve() ? to_string(solved.method) : "none";
        steps_csv << k << "," << csv_number(t) << "," << report.contacts.size() << "," << to_string(report.status) << ","
                  << method << "," << solved.iterations << "," << csv_number(solved.residual) << ","
                  << csv_number(c.signorini) << "," << csv_number(c.coulomb) << ","
                  << csv_number(c.complementarity) << "," << csv_number(c.dissipation) << "," << report.warm_started
                  << "," << csv_number(report.solve_ms) << "," << csv_number(report.step_ms) << ","
                  << report.fallback << "\n";
        record.most_contacts = std::max(record.most_contacts, report.contacts.size());
        ++record.steps_by_method[method];
        record.fallbacks += report.fallback.empty() ? 0 : 1;
        record.most_iterations = std::max(record.most_iterations, solved.iterations);
        if (report.status != Status::Solved && record.first_failure_step < 0) {
          record.first_failure = report.status;
          record.first_failure_step = k;
        }
        if (deepest < record.deepest_overlap) {
          record.deepest_overlap = deepest;
          record.deepest_overlap_step = k;
        }
        record.solve_ms += report.solve_ms;
        record.step_ms += report.step_ms;
        const contact::Energy e = write_state(t, world);
        const long step = k + 1;
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
  contacts.close();
  energy_csv.close();
  steps_csv.close();
  if (!trajectory || !contacts || !energy_csv || !steps_csv) {
    throw InvalidProblem("error while writing into '" + files.dir().string() + "'");
  }
  record.frame_stride = sampler.stride();
  record.frames = sampler.finish(std::move(last));
  return record;
}

}  // namespace perp
