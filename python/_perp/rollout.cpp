// perp._perp.RolloutRun: a run of a planar scene with a force per step, and its derivatives
// (contact/step_sensitivity.hpp), for perp.rollout, perp.rollout_gradient and perp.torch.rollout.
// The steps, the derivatives and the adjoints run without the GIL; Ctrl-C ends them as it ends
// perp.simulate.

#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common.hpp"
#include "perp/contact/step_sensitivity.hpp"
#include "perp/io/scene.hpp"

namespace perp::python {

// A namespace of its own: the unity build compiles this file with the module's others.
namespace rollout_binding {

using contact::World;

/// The most a run keeps of its states (a world a step).
constexpr double kMaxBytes = 4e9;

std::string expected_shape_text(std::initializer_list<py::ssize_t> shape) {
  std::string text = "(";
  bool first = true;
  for (py::ssize_t d : shape) {
    text += (first ? "" : ", ") + std::to_string(d);
    first = false;
  }
  return text + ")";
}

/// A C-ordered float64 array of exactly `shape`, every entry finite; ValueError naming `name`, the
/// shape expected and got, or the first non-finite entry by its index.
using CArray = py::array_t<double, py::array::c_style | py::array::forcecast>;
CArray checked(const py::object& value, const char* name, std::initializer_list<py::ssize_t> shape,
               const std::string& meaning) {
  CArray a = value.cast<CArray>();
  bool same = a.ndim() == static_cast<py::ssize_t>(shape.size());
  py::ssize_t d = 0;
  for (py::ssize_t n : shape) same = same && a.shape(d++) == n;
  if (!same) {
    throw py::value_error(std::string(name) + ": expected shape " + expected_shape_text(shape) + " " + meaning +
                          ", got " + shape_text(a));
  }
  const double* data = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    if (std::isfinite(data[i])) continue;
    std::string index;
    py::ssize_t rest = i;
    std::vector<py::ssize_t> at(shape.size());
    for (auto k = static_cast<py::ssize_t>(shape.size()); k-- > 0;) {
      at[static_cast<std::size_t>(k)] = rest % a.shape(k);
      rest /= a.shape(k);
    }
    for (std::size_t k = 0; k < at.size(); ++k) index += (k > 0 ? ", " : "") + std::to_string(at[k]);
    throw py::value_error(std::string(name) + "[" + index + "] is " + number_text(data[i]) +
                          ", expected a finite number");
  }
  return a;
}

/// Ctrl-C between steps: the interpreter's signal handlers run every 50 ms of stepping (and after a
/// step whose solve saw one); the exception a handler raises ends the run.
class SignalCheck {
 public:
  void operator()(int /*step*/, const contact::StepReport& report) {
    const auto now = std::chrono::steady_clock::now();
    if (report.status != Status::Interrupted && now - checked_at_ < std::chrono::milliseconds(50)) return;
    checked_at_ = now;
    const py::gil_scoped_acquire gil;
    if (PyErr_Occurred() != nullptr || PyErr_CheckSignals() != 0) throw py::error_already_set();
  }

 private:
  std::chrono::steady_clock::time_point checked_at_ = std::chrono::steady_clock::now();
};

/// A recorded run and, once asked for, its derivatives.
class RolloutRun {
 public:
  RolloutRun(contact::Scene scene, long steps, const py::object& forces, const py::object& friction,
             const py::object& restitution, const py::object& initial_state)
      : scene_(std::move(scene)) {
    World& world = scene_.world;
    contact::MoreauJeanOptions& options = scene_.options;
    if (!friction.is_none()) options.friction = friction.cast<double>();
    if (!restitution.is_none()) options.restitution = restitution.cast<double>();
    if (!std::isfinite(options.friction) || options.friction < 0) {
      throw InvalidProblem("friction: expected a finite number >= 0, got " + number_text(options.friction));
    }
    if (!std::isfinite(options.restitution) || options.restitution < 0 || options.restitution > 1) {
      throw InvalidProblem("restitution: expected a number in [0, 1], got " + number_text(options.restitution));
    }
    scene_.validate();
    if (steps < 0) steps = scene_.step_count();
    const auto bodies = static_cast<py::ssize_t>(world.bodies.size());
    // Every state is kept (a world a step): refuse what would not fit before running.
    const double bytes = static_cast<double>(steps + 1) * (static_cast<double>(bodies) * sizeof(contact::Body) + 512.0);
    if (bytes > kMaxBytes) {
      throw InvalidProblem("steps: " + std::to_string(steps) + " steps of " + std::to_string(bodies) +
                           " bodies would keep about " + number_text(std::round(bytes / 1e6)) +
                           " MB of states, more than " + number_text(kMaxBytes / 1e6) + " MB: run fewer steps");
    }
    const auto n = static_cast<py::ssize_t>(steps);
    if (!initial_state.is_none()) {
      const CArray state =
          checked(initial_state, "initial_state", {2, bodies, 3}, "(positions and velocities, bodies, 3)");
      const auto s = state.unchecked<3>();
      for (py::ssize_t i = 0; i < bodies; ++i) {
        contact::Body& b = world.bodies[static_cast<std::size_t>(i)];
        b.position = {s(0, i, 0), s(0, i, 1)};
        b.angle = s(0, i, 2);
        b.velocity = {s(1, i, 0), s(1, i, 1)};
        b.angular_velocity = s(1, i, 2);
      }
    }
    Eigen::MatrixXd per_step;
    if (!forces.is_none()) {
      const CArray f = checked(forces, "forces", {n, bodies, 3}, "(steps, bodies, 3: fx, fy, torque)");
      per_step = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(f.data(), n,
                                                                                                          3 * bodies);
    }
    SignalCheck check;
    options.solve.interrupt = signal_hook();
    {
      py::gil_scoped_release release;
      run_ = contact::rollout(world, options, static_cast<int>(steps), per_step, std::ref(check));
    }
    options.solve.interrupt = nullptr;
  }

  [[nodiscard]] py::ssize_t steps() const { return static_cast<py::ssize_t>(run_.reports.size()); }
  [[nodiscard]] py::ssize_t bodies() const { return static_cast<py::ssize_t>(scene_.world.bodies.size()); }

  /// (steps + 1, bodies, 3) of positions (velocity = false) or velocities.
  [[nodiscard]] py::array_t<double> states(bool velocity) const {
    py::array_t<double> out({steps() + 1, bodies(), py::ssize_t{3}});
    auto o = out.mutable_unchecked<3>();
    for (py::ssize_t k = 0; k <= steps(); ++k) {
      const World& w = run_.states[static_cast<std::size_t>(k)];
      for (py::ssize_t i = 0; i < bodies(); ++i) {
        const contact::Body& b = w.bodies[static_cast<std::size_t>(i)];
        o(k, i, 0) = velocity ? b.velocity.x() : b.position.x();
        o(k, i, 1) = velocity ? b.velocity.y() : b.position.y();
        o(k, i, 2) = velocity ? b.angular_velocity : b.angle;
      }
    }
    return out;
  }

  [[nodiscard]] py::dict report() const {
    py::array_t<bool> solved(steps());
    py::array_t<long long> contacts(steps());
    py::list status;
    for (py::ssize_t k = 0; k < steps(); ++k) {
      const contact::StepReport& r = run_.reports[static_cast<std::size_t>(k)];
      solved.mutable_at(k) = r.status == Status::Solved;
      contacts.mutable_at(k) = static_cast<long long>(r.contacts.size());
      status.append(status_object(r.status));
    }
    py::list names;
    for (const contact::Body& b : scene_.world.bodies) names.append(b.name);
    py::dict d;
    d["solved"] = solved;
    d["contacts"] = contacts;
    d["status"] = status;
    d["names"] = names;
    d["timestep"] = scene_.options.timestep;
    d["friction"] = scene_.options.friction;
    d["restitution"] = scene_.options.restitution;
    return d;
  }

  /// Builds the derivatives (again, under other options).
  void differentiate(const std::string& degenerate, bool minimum_norm, double tol) {
    SensitivityOptions so;
    so.tolerance = tol;
    so.minimum_norm = minimum_norm;
    if (degenerate == "free") {
      so.degenerate = DegenerateRule::Free;
    } else if (degenerate != "bound") {
      throw InvalidProblem("degenerate: expected \"bound\" or \"free\", got \"" + degenerate + "\"");
    }
    if (!(tol > 0 && tol < 1)) throw InvalidProblem("tol: expected a number in (0, 1), got " + number_text(tol));
    SignalCheck check;
    py::gil_scoped_release release;
    derivatives_.reset();
    derivatives_.emplace(run_, scene_.options, so, std::ref(check));
    degenerate_ = degenerate;
  }

  /// The gradients of L = Σ_k ⟨weights[k], (q_k, v_k)⟩ over every state k = 0 … steps:
  /// initial_state (2, bodies, 3), forces (steps, bodies, 3), friction and restitution.
  [[nodiscard]] py::dict vjp(const py::object& weights) const {
    const contact::RolloutSensitivity& s = sensitivity();
    const CArray w =
        checked(weights, "weights", {steps() + 1, 2, bodies(), 3}, "(steps + 1, positions and velocities, bodies, 3)");
    const Eigen::Index n = 3 * bodies();
    const double* data = w.data();
    const auto block = [&](py::ssize_t k, int which) {
      return Eigen::Map<const Eigen::VectorXd>(data + (2 * k + which) * n, n);
    };
    std::vector<contact::StepState> bars(static_cast<std::size_t>(steps()));
    for (py::ssize_t k = 0; k < steps(); ++k) {
      bars[static_cast<std::size_t>(k)] = {block(k + 1, 0), block(k + 1, 1)};
    }
    contact::RolloutGradient g;
    {
      py::gil_scoped_release release;
      g = s.vjp(bars);
    }
    py::array_t<double> initial({py::ssize_t{2}, bodies(), py::ssize_t{3}});
    auto out = initial.mutable_unchecked<3>();
    for (py::ssize_t i = 0; i < bodies(); ++i) {
      for (py::ssize_t c = 0; c < 3; ++c) {
        out(0, i, c) = g.q[3 * i + c] + block(0, 0)[3 * i + c];
        out(1, i, c) = g.v[3 * i + c] + block(0, 1)[3 * i + c];
      }
    }
    py::array_t<double> forces({steps(), bodies(), py::ssize_t{3}});
    Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(forces.mutable_data(), steps(),
                                                                                       n) = g.forces;
    py::dict d;
    d["initial_state"] = initial;
    d["forces"] = forces;
    d["friction"] = g.friction;
    d["restitution"] = g.restitution;
    return d;
  }

  /// The Jacobians of the final state (2, bodies, 3) by one adjoint per output component:
  /// initial_state (2, bodies, 3, 2, bodies, 3), forces (2, bodies, 3, steps, bodies, 3),
  /// friction and restitution (2, bodies, 3).
  [[nodiscard]] py::dict jacobian() const {
    const contact::RolloutSensitivity& s = sensitivity();
    const py::ssize_t nb = bodies();
    const py::ssize_t n = 3 * nb;
    const py::ssize_t outputs = 2 * n;
    py::array_t<double> initial({py::ssize_t{2}, nb, py::ssize_t{3}, py::ssize_t{2}, nb, py::ssize_t{3}});
    py::array_t<double> forces({py::ssize_t{2}, nb, py::ssize_t{3}, steps(), nb, py::ssize_t{3}});
    py::array_t<double> friction({py::ssize_t{2}, nb, py::ssize_t{3}});
    py::array_t<double> restitution({py::ssize_t{2}, nb, py::ssize_t{3}});
    double* initial_data = initial.mutable_data();
    double* forces_data = forces.mutable_data();
    double* friction_data = friction.mutable_data();
    double* restitution_data = restitution.mutable_data();
    const py::ssize_t per_force = steps() * n;
    {
      py::gil_scoped_release release;
      for (py::ssize_t o = 0; o < outputs; ++o) {
        Eigen::Map<Eigen::VectorXd> row(initial_data + o * outputs, outputs);
        if (steps() == 0) {  // the final state is the initial one
          row = Eigen::VectorXd::Unit(outputs, o);
          friction_data[o] = restitution_data[o] = 0;
          continue;
        }
        std::vector<contact::StepState> bars(static_cast<std::size_t>(steps()));
        bars.back().q = Eigen::VectorXd::Zero(n);
        bars.back().v = Eigen::VectorXd::Zero(n);
        (o < n ? bars.back().q[o] : bars.back().v[o - n]) = 1;
        const contact::RolloutGradient g = s.vjp(bars);
        row << g.q, g.v;
        friction_data[o] = g.friction;
        restitution_data[o] = g.restitution;
        Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(forces_data + o * per_force,
                                                                                           steps(), n) = g.forces;
      }
    }
    py::dict d;
    d["initial_state"] = initial;
    d["forces"] = forces;
    d["friction"] = friction;
    d["restitution"] = restitution;
    return d;
  }

  /// What the derivatives say about switches: at_switch (steps,), switches (a list of dicts),
  /// rules (one sentence a step), geometry_exact, degenerate.
  [[nodiscard]] py::dict switch_report() const {
    const contact::RolloutSensitivity& s = sensitivity();
    py::array_t<bool> at_switch(steps());
    for (py::ssize_t k = 0; k < steps(); ++k) at_switch.mutable_at(k) = false;
    py::list switches;
    for (const contact::ContactSwitch& sw : s.switches()) {
      at_switch.mutable_at(sw.step) = true;
      py::dict d;
      d["step"] = sw.step;
      d["contact"] = sw.contact;
      d["body_a"] = sw.body_a;
      d["body_b"] = sw.body_b;
      d["kind"] = contact::to_string(sw.kind);
      d["piece"] = contact::to_string(sw.piece);
      switches.append(d);
    }
    py::list rules;
    for (std::size_t k = 0; k < s.steps(); ++k) rules.append(s.step(k).rule());
    py::dict d;
    d["at_switch"] = at_switch;
    d["switches"] = switches;
    d["rules"] = rules;
    d["geometry_exact"] = s.geometry_exact();
    d["degenerate"] = degenerate_;
    return d;
  }

 private:
  [[nodiscard]] const contact::RolloutSensitivity& sensitivity() const {
    if (!derivatives_) throw InvalidProblem("RolloutRun: call differentiate() first");
    return *derivatives_;
  }

  contact::Scene scene_;
  contact::Rollout run_;
  std::optional<contact::RolloutSensitivity> derivatives_;
  std::string degenerate_ = "bound";
};

contact::Scene scene_of(const std::string& text, bool is_path, const std::string& source) {
  std::vector<std::string> deprecations;
  contact::Scene scene;
  {
    py::gil_scoped_release release;
    scene = is_path ? read_scene_file(text, &deprecations) : parse_scene_json(text, source, &deprecations);
  }
  warn_deprecations(deprecations);
  return scene;
}

}  // namespace rollout_binding

void bind_rollout(py::module_& m) {
  using py::arg;
  using rollout_binding::RolloutRun;
  using rollout_binding::scene_of;
  py::class_<RolloutRun>(m, "RolloutRun", "A recorded run of a planar scene and its derivatives (perp.rollout).")
      .def(py::init([](const std::string& text, bool is_path, const std::string& source, long steps,
                       const py::object& forces, const py::object& friction, const py::object& restitution,
                       const py::object& initial_state) {
             return RolloutRun(scene_of(text, is_path, source), steps, forces, friction, restitution, initial_state);
           }),
           arg("text"), arg("is_path"), arg("source"), arg("steps"), arg("forces"), arg("friction"), arg("restitution"),
           arg("initial_state"))
      .def_property_readonly("steps", &RolloutRun::steps)
      .def_property_readonly("bodies", &RolloutRun::bodies)
      .def_property_readonly("positions", [](const RolloutRun& r) { return r.states(false); })
      .def_property_readonly("velocities", [](const RolloutRun& r) { return r.states(true); })
      .def("report", &RolloutRun::report)
      .def("differentiate", &RolloutRun::differentiate, arg("degenerate"), arg("minimum_norm"), arg("tol"))
      .def("vjp", &RolloutRun::vjp, arg("weights"))
      .def("jacobian", &RolloutRun::jacobian)
      .def("switch_report", &RolloutRun::switch_report);
}

}  // namespace perp::python
