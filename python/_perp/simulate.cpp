// perp._perp: a scene run from start to end (perp.simulate), recorded in memory.
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

#include "common.hpp"
#include "perp/io/hdf5.hpp"

namespace perp::python {

namespace {

using contact::Body;
using contact::World;

py::dict shape_dict(const contact::Shape& shape) {
  py::dict d;
  d["type"] = contact::shape_name(shape);
  if (const auto* disk = std::get_if<contact::Disk>(&shape)) {
    d["radius"] = disk->radius;
  } else if (const auto* box = std::get_if<contact::Box>(&shape)) {
    d["width"] = box->width;
    d["height"] = box->height;
  } else if (const auto* rod = std::get_if<contact::Rod>(&shape)) {
    d["length"] = rod->length;
  }
  return d;
}

/// Everything a run records, filled without the GIL.
struct Recording {
  std::vector<double> times;
  std::vector<double> state;   // per sample: 6 per body
  std::vector<double> energy;  // per sample: kinetic, potential, total
  std::vector<Status> status;
  std::vector<std::string> method;
  std::vector<std::pair<long, std::string>> fallbacks;  // only the steps that fell back (rare)
  std::vector<int> iterations;
  std::vector<double> residual, relative_residual, solve_ms, step_ms;
  std::vector<long long> problem_size, offsets{0};
  // one entry per active contact of every step
  std::vector<long long> contact_step;
  std::vector<int> body_a, body_b;
  std::vector<double> point, normal, gap, normal_impulse, tangent_impulse;

  void sample(double t, const World& world, const Eigen::Vector2d& gravity) {
    times.push_back(t);
    for (const Body& b : world.bodies) {
      for (double v : {b.position.x(), b.position.y(), b.angle, b.velocity.x(), b.velocity.y(), b.angular_velocity}) {
        state.push_back(v);
      }
    }
    const contact::Energy e = contact::energy(world, gravity);
    energy.insert(energy.end(), {e.kinetic, e.potential, e.total()});
  }
};

template <class T>
py::array_t<T> array_of(const std::vector<T>& values, std::vector<py::ssize_t> shape) {
  py::array_t<T> out(shape);
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

/// Bytes recorded per sample (time, 6 numbers a body, 3 energies) and per step (its report, without
/// the method's name and the rare fallbacks), and per active contact.
constexpr double kStepBytes = 8.0 * 8 + 32;
constexpr double kContactBytes = 8.0 * 11;

py::dict simulate_scene(const contact::Scene& given, double max_bytes) {
  given.validate();
  // A copy whose step solves poll the interpreter's signal handlers (SolveOptions::interrupt), so
  // that Ctrl-C also ends a single long step; the step that saw it ends `interrupted` and the run
  // raises below.
  contact::Scene scene = given;
  scene.options.solve.interrupt = signal_hook();
  const auto nb = static_cast<py::ssize_t>(scene.world.bodies.size());
  const long steps = scene.step_count();
  const double per_sample = 8.0 * static_cast<double>(1 + 6 * nb + 3) + kStepBytes;
  const double estimate = per_sample * static_cast<double>(steps + 1);
  if (!(max_bytes > 0)) throw InvalidProblem("max_bytes: expected > 0, got " + number_text(max_bytes));
  if (estimate > max_bytes) {
    char text[200];
    std::snprintf(text, sizeof text, "%ld steps of %ld bodies would record about %.3g MB before any contact, more than "
                  "max_bytes = %.3g; shorten the duration, lengthen the timestep or raise max_bytes",
                  steps, static_cast<long>(nb), estimate / 1e6, max_bytes);
    throw InvalidProblem(text);
  }
  Recording rec;
  long unsolved = 0;
  // Ctrl-C during a run: every kSignalPeriod of stepping the interpreter's signal handlers run,
  // under the GIL taken back for them; the exception one raises (KeyboardInterrupt) ends the run.
  static constexpr auto kSignalPeriod = std::chrono::milliseconds(50);
  auto checked_at = std::chrono::steady_clock::now();
  const auto check_signals = [&checked_at] {
    const auto now = std::chrono::steady_clock::now();
    if (now - checked_at < kSignalPeriod) return;
    checked_at = now;
    const py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  };
  {
    py::gil_scoped_release release;
    (void)contact::detect_contacts(scene.world, 0.0);  // refuse a pile of overlapping bodies before running
    rec.sample(0, scene.world, scene.options.gravity);
    unsolved = contact::simulate(scene, [&](long k, double t, const World& world, const contact::StepReport& report) {
      if (report.status == Status::Interrupted) {
        const py::gil_scoped_acquire gil;
        raise_pending();
      }
      check_signals();
      rec.sample(t, world, scene.options.gravity);
      rec.status.push_back(report.status);
      rec.method.push_back(report.ran_solve() ? to_string(report.result.method) : std::string());
      rec.iterations.push_back(report.result.iterations);
      rec.residual.push_back(report.result.residual);
      rec.relative_residual.push_back(report.result.relative_residual);
      if (!report.fallback.empty()) rec.fallbacks.emplace_back(k, report.fallback);
      rec.solve_ms.push_back(report.solve_ms);
      rec.step_ms.push_back(report.step_ms);
      rec.problem_size.push_back(static_cast<long long>(report.lcp_size));
      for (std::size_t c = 0; c < report.contacts.size(); ++c) {
        const contact::Contact& ct = report.contacts[c];
        const auto i = static_cast<Eigen::Index>(c);
        rec.contact_step.push_back(k);
        rec.body_a.push_back(ct.body_a);
        rec.body_b.push_back(ct.body_b);
        rec.point.insert(rec.point.end(), {ct.point.x(), ct.point.y()});
        rec.normal.insert(rec.normal.end(), {ct.normal.x(), ct.normal.y()});
        rec.gap.push_back(ct.gap);
        rec.normal_impulse.push_back(report.normal_impulse[i]);
        rec.tangent_impulse.push_back(report.tangent_impulse[i]);
      }
      rec.offsets.push_back(static_cast<long long>(rec.gap.size()));
      const double recorded = per_sample * static_cast<double>(k + 2) + kContactBytes * static_cast<double>(rec.gap.size());
      if (recorded > max_bytes) {
        throw InvalidProblem("simulate stopped at step " + std::to_string(k) + " of " + std::to_string(steps) +
                             ": the recording (" + std::to_string(rec.gap.size()) +
                             " contacts so far) passed max_bytes = " + number_text(max_bytes));
      }
    });
  }
  const auto samples = static_cast<py::ssize_t>(rec.times.size());
  const auto contacts = static_cast<py::ssize_t>(rec.gap.size());
  const auto n_steps = static_cast<py::ssize_t>(rec.status.size());
  py::dict d;
  d["t"] = array_of(rec.times, {samples});
  d["state"] = array_of(rec.state, {samples, nb, 6});
  d["energy"] = array_of(rec.energy, {samples, 3});
  py::list status;
  for (Status s : rec.status) status.append(status_object(s));
  d["status"] = status;
  d["method"] = rec.method;
  d["iterations"] = array_of(rec.iterations, {n_steps});
  d["residual"] = array_of(rec.residual, {n_steps});
  d["relative_residual"] = array_of(rec.relative_residual, {n_steps});
  d["fallback"] = fallback_list(n_steps, rec.fallbacks);
  d["solve_ms"] = array_of(rec.solve_ms, {n_steps});
  d["step_ms"] = array_of(rec.step_ms, {n_steps});
  d["problem_size"] = array_of(rec.problem_size, {n_steps});
  d["offsets"] = array_of(rec.offsets, {n_steps + 1});
  py::dict c;
  c["step"] = array_of(rec.contact_step, {contacts});
  c["body_a"] = array_of(rec.body_a, {contacts});
  c["body_b"] = array_of(rec.body_b, {contacts});
  c["point"] = array_of(rec.point, {contacts, 2});
  c["normal"] = array_of(rec.normal, {contacts, 2});
  c["gap"] = array_of(rec.gap, {contacts});
  c["normal_impulse"] = array_of(rec.normal_impulse, {contacts});
  c["tangent_impulse"] = array_of(rec.tangent_impulse, {contacts});
  d["contacts"] = c;
  py::list bodies;
  for (const Body& b : scene.world.bodies) {
    py::dict body;
    body["name"] = b.name;
    body["shape"] = shape_dict(b.shape);
    body["mass"] = b.mass;
    body["inertia"] = b.moment_of_inertia();
    bodies.append(body);
  }
  d["bodies"] = bodies;
  d["ground"] = scene.world.ground ? py::object(py::float_(scene.world.ground->height)) : py::none();
  d["timestep"] = scene.options.timestep;
  d["duration"] = scene.duration;
  d["steps"] = steps;
  d["unsolved"] = unsolved;
  d["gravity"] = py::make_tuple(scene.options.gravity.x(), scene.options.gravity.y());
  return d;
}

/// Every dataset of an HDF5 file (io/hdf5.hpp): numbers as numpy arrays of their shape, text as
/// lists of str; and the root group's attributes.
py::tuple read_hdf5_file(const std::string& path) {
  Hdf5Contents contents;
  {
    const py::gil_scoped_release released;
    contents = read_hdf5(path);
  }
  py::dict datasets;
  for (auto& [name, dataset] : contents.datasets) {
    std::vector<py::ssize_t> shape(dataset.shape.begin(), dataset.shape.end());
    switch (dataset.kind) {
      case Hdf5Dataset::Kind::Real: datasets[py::str(name)] = array_of(dataset.reals, shape); break;
      case Hdf5Dataset::Kind::Integer: datasets[py::str(name)] = array_of(dataset.integers, shape); break;
      case Hdf5Dataset::Kind::Text: datasets[py::str(name)] = py::cast(dataset.texts); break;
    }
  }
  return py::make_tuple(datasets, py::cast(contents.numbers), py::cast(contents.texts));
}

}  // namespace

void bind_simulate(py::module_& m);

void bind_simulate(py::module_& m) {
  using py::arg;
  m.def(
      "simulate_json", [](const std::string& text, const std::string& source, double max_bytes) {
        std::vector<std::string> deprecations;
        contact::Scene scene = parse_scene_json(text, source, &deprecations);
        warn_deprecations(deprecations);
        return simulate_scene(std::move(scene), max_bytes);
      },
      arg("text"), arg("source"), arg("max_bytes"));
  m.def("read_hdf5", &read_hdf5_file, arg("path"));
  m.def(
      "simulate_file",
      [](const std::string& path, double max_bytes) {
        std::vector<std::string> deprecations;
        contact::Scene scene = read_scene_file(path, &deprecations);
        warn_deprecations(deprecations);
        return simulate_scene(std::move(scene), max_bytes);
      },
      arg("path"), arg("max_bytes"));
}

}  // namespace perp::python
