// perp._perp: 3D scenes (issue 36) from Python: a whole run (perp.simulate on a "dimension": 3
// scene) recorded in memory, and a scene stepped one step at a time (perp.World3).
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "perp/contact3d/scene.hpp"
#include "perp/io/scene3d.hpp"

namespace perp::python {

namespace {

using Body3 = contact3d::Body;
using World3 = contact3d::World;

constexpr py::ssize_t kStateColumns = 13;  // x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz

template <class T>
py::array_t<T> array_from(const std::vector<T>& values, std::vector<py::ssize_t> shape) {
  py::array_t<T> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

void append_state(std::vector<double>& out, const World3& world) {
  for (const Body3& b : world.bodies) {
    const Eigen::Quaterniond& q = b.orientation;
    for (const double v :
         {b.position.x(), b.position.y(), b.position.z(), q.w(), q.x(), q.y(), q.z(), b.velocity.x(), b.velocity.y(),
          b.velocity.z(), b.angular_velocity.x(), b.angular_velocity.y(), b.angular_velocity.z()}) {
      out.push_back(v);
    }
  }
}

py::dict shape3_dict(const contact3d::Shape& shape) {
  py::dict d;
  d["type"] = contact3d::shape_name(shape.kind);
  switch (shape.kind) {
    case contact3d::ShapeKind::Sphere:
      d["radius"] = shape.radius;
      break;
    case contact3d::ShapeKind::Box:
      d["size"] = py::make_tuple(shape.size.x(), shape.size.y(), shape.size.z());
      break;
    case contact3d::ShapeKind::Capsule:
    case contact3d::ShapeKind::Cylinder:
      d["radius"] = shape.radius;
      d["length"] = shape.length;
      break;
  }
  return d;
}

py::list bodies_list(const World3& world) {
  py::list bodies;
  for (const Body3& b : world.bodies) {
    py::dict body;
    body["name"] = b.name;
    body["shape"] = shape3_dict(b.shape);
    body["mass"] = b.mass;
    body["fixed"] = b.fixed;
    bodies.append(body);
  }
  return bodies;
}

/// The active contacts of steps, as flat arrays (one entry per contact of every step recorded).
struct Contacts3 {
  std::vector<long long> step;
  std::vector<int> body_a, body_b, feature;
  std::vector<double> point, normal, tangent1, tangent2, gap, impulse, impulse_world;

  void add(long long k, const contact3d::StepReport& report) {
    for (std::size_t c = 0; c < report.contacts.size(); ++c) {
      const contact3d::Contact& ct = report.contacts[c];
      const auto at = 3 * static_cast<Eigen::Index>(c);
      const Eigen::Vector3d r = report.impulses.segment<3>(at);
      const Eigen::Vector3d world_impulse = r[0] * ct.normal + r[1] * ct.tangent1 + r[2] * ct.tangent2;
      step.push_back(k);
      body_a.push_back(ct.body_a);
      body_b.push_back(ct.body_b);
      feature.push_back(ct.feature);
      for (const auto& [out, v] :
           {std::pair{&point, ct.point}, std::pair{&normal, ct.normal}, std::pair{&tangent1, ct.tangent1},
            std::pair{&tangent2, ct.tangent2}, std::pair{&impulse, r}, std::pair{&impulse_world, world_impulse}}) {
        out->insert(out->end(), {v.x(), v.y(), v.z()});
      }
      gap.push_back(ct.gap);
    }
  }

  [[nodiscard]] py::dict dict() const {
    const auto n = static_cast<py::ssize_t>(gap.size());
    py::dict d;
    d["step"] = array_from(step, {n});
    d["body_a"] = array_from(body_a, {n});
    d["body_b"] = array_from(body_b, {n});
    d["feature"] = array_from(feature, {n});
    d["point"] = array_from(point, {n, 3});
    d["normal"] = array_from(normal, {n, 3});
    d["tangent1"] = array_from(tangent1, {n, 3});
    d["tangent2"] = array_from(tangent2, {n, 3});
    d["gap"] = array_from(gap, {n});
    d["impulse"] = array_from(impulse, {n, 3});
    d["impulse_world"] = array_from(impulse_world, {n, 3});
    return d;
  }
};

/// Runs the interpreter's signal handlers at most every 50 ms of stepping (Ctrl-C ends the run
/// with KeyboardInterrupt); called without the GIL.
class SignalCheck {
 public:
  void operator()() {
    const auto now = std::chrono::steady_clock::now();
    if (now - checked_at_ < std::chrono::milliseconds(50)) return;
    checked_at_ = now;
    const py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }

 private:
  std::chrono::steady_clock::time_point checked_at_ = std::chrono::steady_clock::now();
};

/// Bytes a sample (time, 13 numbers a body, 3 energies, the step's report) and a contact take.
constexpr double kStep3Bytes = 8.0 * 6 + 32;
constexpr double kContact3Bytes = 8.0 * 23;

py::dict simulate3d_scene(const contact3d::Scene& scene, double max_bytes) {
  scene.validate();
  if (!(max_bytes > 0)) throw InvalidProblem("max_bytes: expected > 0, got " + number_text(max_bytes));
  const auto nb = static_cast<py::ssize_t>(scene.world.bodies.size());
  const long steps = scene.step_count();
  const double per_sample = 8.0 * static_cast<double>(1 + kStateColumns * nb + 3) + kStep3Bytes;
  if (per_sample * static_cast<double>(steps + 1) > max_bytes) {
    char text[220];
    std::snprintf(text, sizeof text,
                  "%ld steps of %ld bodies would record about %.3g MB before any contact, more than "
                  "max_bytes = %.3g; shorten the duration, lengthen the timestep or raise max_bytes",
                  steps, static_cast<long>(nb), per_sample * static_cast<double>(steps + 1) / 1e6, max_bytes);
    throw InvalidProblem(text);
  }
  World3 world = scene.world;
  // The step's solves poll the interpreter's signal handlers (SolveOptions::interrupt), so that
  // Ctrl-C also ends a single long step: that step ends `interrupted` and the run raises.
  contact3d::StepOptions options = scene.options;
  options.solve.interrupt = signal_hook();
  std::vector<double> times, state, energy, residual, solve_ms, step_ms;
  std::vector<int> iterations;
  std::vector<long long> offsets{0};
  std::vector<Status> status;
  std::vector<std::string> method;
  std::vector<std::pair<long, std::string>> fallbacks;  // only the steps that fell back
  Contacts3 contacts;
  long unsolved = 0;
  const auto sample = [&](double t) {
    times.push_back(t);
    append_state(state, world);
    const contact::Energy e = contact3d::energy(world, scene.options.gravity);
    energy.insert(energy.end(), {e.kinetic, e.potential, e.total()});
  };
  {
    py::gil_scoped_release release;
    SignalCheck check_signals;
    sample(0);
    const double h = scene.options.timestep;
    for (long k = 0; k < steps; ++k) {
      check_signals();
      const contact3d::StepReport report = contact3d::moreau_jean_step(world, options);
      if (report.status == Status::Interrupted) {
        const py::gil_scoped_acquire gil;
        raise_pending();
      }
      if (report.status != Status::Solved) ++unsolved;
      sample(static_cast<double>(k + 1) * h);
      status.push_back(report.status);
      method.push_back(report.ran_solve() ? to_string(report.result.method) : std::string());
      iterations.push_back(report.result.iterations);
      residual.push_back(report.result.residual);
      if (!report.fallback.empty()) fallbacks.emplace_back(k, report.fallback);
      solve_ms.push_back(report.solve_ms);
      step_ms.push_back(report.step_ms);
      contacts.add(k, report);
      offsets.push_back(static_cast<long long>(contacts.gap.size()));
      const double recorded =
          per_sample * static_cast<double>(k + 2) + kContact3Bytes * static_cast<double>(contacts.gap.size());
      if (recorded > max_bytes) {
        throw InvalidProblem("simulate stopped at step " + std::to_string(k) + " of " + std::to_string(steps) +
                             ": the recording (" + std::to_string(contacts.gap.size()) +
                             " contacts so far) passed max_bytes = " + number_text(max_bytes));
      }
    }
  }
  const auto samples = static_cast<py::ssize_t>(times.size());
  const auto n_steps = static_cast<py::ssize_t>(status.size());
  py::dict d;
  d["t"] = array_from(times, {samples});
  d["state"] = array_from(state, {samples, nb, kStateColumns});
  d["energy"] = array_from(energy, {samples, 3});
  py::list status_list;
  for (const Status s : status) status_list.append(status_object(s));
  d["status"] = status_list;
  d["method"] = method;
  d["iterations"] = array_from(iterations, {n_steps});
  d["residual"] = array_from(residual, {n_steps});
  d["fallback"] = fallback_list(n_steps, fallbacks);
  d["solve_ms"] = array_from(solve_ms, {n_steps});
  d["step_ms"] = array_from(step_ms, {n_steps});
  d["offsets"] = array_from(offsets, {n_steps + 1});
  d["contacts"] = contacts.dict();
  d["bodies"] = bodies_list(scene.world);
  d["ground"] = scene.world.ground ? py::object(py::float_(scene.world.ground->height)) : py::none();
  d["timestep"] = scene.options.timestep;
  d["duration"] = scene.duration;
  d["steps"] = steps;
  d["unsolved"] = unsolved;
  const Eigen::Vector3d& g = scene.options.gravity;
  d["gravity"] = py::make_tuple(g.x(), g.y(), g.z());
  return d;
}

/// A 3D scene stepped from Python: the scene's world and options, and the time reached.
struct Stepper3 {
  contact3d::Scene scene;
  double t = 0;
  long steps = 0;
};

py::array_t<double> state_of(const World3& world) {
  std::vector<double> values;
  append_state(values, world);
  return array_from(values, {static_cast<py::ssize_t>(world.bodies.size()), kStateColumns});
}

void set_state(World3& world, const FArray& state) {
  const auto nb = static_cast<py::ssize_t>(world.bodies.size());
  if (state.ndim() != 2 || state.shape(0) != nb || state.shape(1) != kStateColumns) {
    std::string got = "(";
    for (py::ssize_t i = 0; i < state.ndim(); ++i) got += (i > 0 ? ", " : "") + std::to_string(state.shape(i));
    if (state.ndim() == 1) got += ",";  // as Python writes a 1-tuple
    throw InvalidProblem("state: expected shape (" + std::to_string(nb) + ", 13), got " + got + ")");
  }
  World3 next = world;
  for (py::ssize_t i = 0; i < nb; ++i) {
    for (py::ssize_t k = 0; k < kStateColumns; ++k) {
      if (!std::isfinite(state.at(i, k))) {
        throw InvalidProblem("state[" + std::to_string(i) + ", " + std::to_string(k) + "] (body \"" +
                             world.bodies[static_cast<std::size_t>(i)].name + "\") must be finite, got " +
                             number_text(state.at(i, k)));
      }
    }
    Body3& b = next.bodies[static_cast<std::size_t>(i)];
    b.position = {state.at(i, 0), state.at(i, 1), state.at(i, 2)};
    b.orientation = Eigen::Quaterniond(state.at(i, 3), state.at(i, 4), state.at(i, 5), state.at(i, 6));
    b.velocity = {state.at(i, 7), state.at(i, 8), state.at(i, 9)};
    b.angular_velocity = {state.at(i, 10), state.at(i, 11), state.at(i, 12)};
  }
  next.validate();        // names the body and the field (a quaternion that is not unit, …)
  next.impulses.clear();  // a new state: the last step's impulses are no warm start for it
  world = std::move(next);
}

py::dict step_dict(const contact3d::StepReport& report, long k) {
  Contacts3 contacts;
  contacts.add(k, report);
  py::dict d;
  d["contacts"] = contacts.dict();
  d["status"] = status_object(report.status);
  d["method"] = report.ran_solve() ? to_string(report.result.method) : std::string();
  d["iterations"] = report.result.iterations;
  d["residual"] = report.result.residual;
  d["criteria"] = criteria_dict(report.criteria);
  d["warm_started"] = report.warm_started;
  d["solve_ms"] = report.solve_ms;
  d["step_ms"] = report.step_ms;
  d["law"] = std::string(law_name(report.law));
  d["fallback"] = report.fallback;
  d["split_contacts"] = report.split_contacts;
  d["split_status"] = status_object(report.split_status);
  d["sleeping_bodies"] = report.sleeping_bodies;
  return d;
}

/// The step options of the friction model and the drift correction, as a dict (the scene's keys).
py::dict model_options(const contact3d::StepOptions& o) {
  py::dict d;
  d["friction_model"] = contact::to_string(o.friction_model);
  d["facets"] = o.solve.friction_contact.lemke.facets;
  d["baumgarte"] = o.baumgarte;
  d["slop"] = o.slop;
  d["split_impulse"] = o.split_impulse;
  d["sleeping"] = o.sleeping;
  d["sleep_speed"] = o.sleep_speed;
  d["sleep_time"] = o.sleep_time;
  return d;
}

/// The scene's options with the given keys replaced (None: the scene's), validated.
contact3d::StepOptions with_overrides(contact3d::StepOptions o, const std::optional<std::string>& friction_model,
                                      std::optional<int> facets, std::optional<double> baumgarte,
                                      std::optional<double> slop, std::optional<bool> split_impulse) {
  if (friction_model) o.friction_model = from_string<contact::FrictionModel>(*friction_model);
  if (facets) o.solve.friction_contact.lemke.facets = *facets;
  if (baumgarte) o.baumgarte = *baumgarte;
  if (slop) o.slop = *slop;
  if (split_impulse) o.split_impulse = *split_impulse;
  o.validate();
  return o;
}

/// `read(arguments..., &deprecations)`, a 3D scene reader, with each deprecated key it met raised
/// as a DeprecationWarning.
template <class Reader, class... Arguments>
contact3d::Scene scene3d_of(const Reader& read, const Arguments&... arguments) {
  std::vector<std::string> deprecations;
  contact3d::Scene scene = read(arguments..., &deprecations);
  warn_deprecations(deprecations);
  return scene;
}

}  // namespace

void bind_contact3d(py::module_& m) {
  using py::arg;
  m.def(
      "scene_dimension",
      [](const std::string& text, const std::string& source) { return scene_dimension(text, source); }, arg("text"),
      arg("source"));
  m.def(
      "scene_file_dimension", [](const std::string& path) { return scene_file_dimension(path); }, arg("path"));
  m.def(
      "simulate3d_json",
      [](const std::string& text, const std::string& source, double max_bytes) {
        return simulate3d_scene(scene3d_of(parse_scene3d_json, text, source), max_bytes);
      },
      arg("text"), arg("source"), arg("max_bytes"));
  m.def(
      "simulate3d_file",
      [](const std::string& path, double max_bytes) {
        return simulate3d_scene(scene3d_of(read_scene3d_file, path), max_bytes);
      },
      arg("path"), arg("max_bytes"));

  py::class_<Stepper3>(m, "Stepper3", "A 3D scene stepped one step at a time (perp.World3 wraps it).")
      .def_static(
          "from_json",
          [](const std::string& text, const std::string& source) {
            Stepper3 s{scene3d_of(parse_scene3d_json, text, source)};
            s.scene.validate();
            return s;
          },
          arg("text"), arg("source"))
      .def_static(
          "from_file",
          [](const std::string& path) {
            Stepper3 s{scene3d_of(read_scene3d_file, path)};
            s.scene.validate();
            return s;
          },
          arg("path"))
      .def_property(
          "state", [](const Stepper3& s) { return state_of(s.scene.world); },
          [](Stepper3& s, const FArray& state) { set_state(s.scene.world, state); })
      .def_readonly("t", &Stepper3::t)
      .def_readonly("steps", &Stepper3::steps)
      .def_property_readonly("timestep", [](const Stepper3& s) { return s.scene.options.timestep; })
      .def_property_readonly("duration", [](const Stepper3& s) { return s.scene.duration; })
      .def_property_readonly("bodies", [](const Stepper3& s) { return bodies_list(s.scene.world); })
      .def_property_readonly("ground",
                             [](const Stepper3& s) -> py::object {
                               return s.scene.world.ground ? py::object(py::float_(s.scene.world.ground->height))
                                                           : py::none();
                             })
      .def_property_readonly("gravity",
                             [](const Stepper3& s) {
                               const Eigen::Vector3d& g = s.scene.options.gravity;
                               return py::make_tuple(g.x(), g.y(), g.z());
                             })
      .def("energy",
           [](const Stepper3& s) {
             const contact::Energy e = contact3d::energy(s.scene.world, s.scene.options.gravity);
             return py::make_tuple(e.kinetic, e.potential);
           })
      .def(
          "step",
          [](Stepper3& s, const std::optional<std::string>& friction_model, std::optional<int> facets,
             std::optional<double> baumgarte, std::optional<double> slop, std::optional<bool> split_impulse) {
            contact3d::StepReport report;
            contact3d::StepOptions options =
                with_overrides(s.scene.options, friction_model, facets, baumgarte, slop, split_impulse);
            options.solve.interrupt = signal_hook();  // Ctrl-C ends a long step `interrupted`
            {
              py::gil_scoped_release release;
              report = contact3d::moreau_jean_step(s.scene.world, options);
            }
            if (report.status == Status::Interrupted) raise_pending();
            const long k = s.steps;
            ++s.steps;
            s.t = static_cast<double>(s.steps) * s.scene.options.timestep;
            return step_dict(report, k);
          },
          arg("friction_model") = py::none(), arg("facets") = py::none(), arg("baumgarte") = py::none(),
          arg("slop") = py::none(), arg("split_impulse") = py::none(),
          "One Moreau–Jean step (the scene's options, those given replaced for this step); returns the "
          "step's report as a dict.")
      .def_property_readonly(
          "model_options", [](const Stepper3& s) { return model_options(s.scene.options); },
          "The scene's friction model, drift correction and sleeping options (friction_model, facets, baumgarte, "
          "slop, split_impulse, sleeping, sleep_speed, sleep_time).");
}

}  // namespace perp::python
