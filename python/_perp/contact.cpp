// perp._perp: the contact layer — the Painlevé rod and scene simulation.
#include <pybind11/stl.h>

#include <cstdio>
#include <numbers>
#include <optional>

#include "common.hpp"
#include "perp/contact/step_sensitivity.hpp"

namespace perp::python {

namespace {

using contact::Body;
using contact::World;

/// The validated rod of `perp.painleve` and `perp.painleve_world`.
contact::PainleveRod painleve_rod(double theta, double mu, double theta_dot, double mass, double half_length,
                                  double gravity) {
  contact::PainleveRod rod;
  rod.theta = theta;
  rod.friction = mu;
  rod.theta_dot = theta_dot;
  rod.mass = mass;
  rod.half_length = half_length;
  rod.gravity = gravity;
  rod.validate();
  return rod;
}

py::dict painleve(double theta, double mu, double theta_dot, double mass, double half_length, double gravity) {
  const contact::PainleveRod rod = painleve_rod(theta, mu, theta_dot, mass, half_length, gravity);
  const contact::PainleveAnalysis a = contact::analyze_painleve(rod);
  py::dict d;
  d["alpha"] = a.alpha;
  d["beta"] = a.beta;
  d["regime"] = contact::to_string(a.regime);
  d["solutions"] = a.solutions;
  return d;
}

/// The regime at every (θ, μ) of a grid, as small integers in the order of `PainleveRegime`.
py::array_t<int> painleve_regimes(const FArray& thetas, const FArray& mus, double theta_dot, double mass,
                                  double half_length, double gravity) {
  const Eigen::VectorXd t = to_vector(thetas, "theta");
  const Eigen::VectorXd u = to_vector(mus, "mu");
  py::array_t<int> out({u.size(), t.size()});
  auto grid = out.mutable_unchecked<2>();
  for (Eigen::Index i = 0; i < u.size(); ++i) {
    for (Eigen::Index j = 0; j < t.size(); ++j) {
      const contact::PainleveRod rod = painleve_rod(t[j], u[i], theta_dot, mass, half_length, gravity);
      grid(i, j) = static_cast<int>(contact::analyze_painleve(rod).regime);
    }
  }
  return out;
}

/// The name of the method that answered the step's solve; empty where the step ran none.
std::string step_method_name(const contact::StepReport& report) {
  return report.ran_solve() ? to_string(report.result.method) : std::string();
}

// ---------------------------------------------------------------------------------------------
// World, Body, shapes and one Moreau–Jean step.

Eigen::Vector2d pair_from(const py::handle& value, const char* name) {
  FArray a;
  try {
    a = py::reinterpret_borrow<py::object>(value).cast<FArray>();
  } catch (const py::cast_error&) {
    throw py::type_error(std::string(name) + ": expected two real numbers");
  }
  const Eigen::VectorXd v = to_vector(a, name);
  if (v.size() != 2) throw py::value_error(std::string(name) + ": expected 2 entries, got " + std::to_string(v.size()));
  return v;
}

py::array_t<double> pair_to(const Eigen::Vector2d& v) { return copy_to_numpy(Eigen::VectorXd(v)); }

contact::FrictionModel friction_model_from(const std::string& name) {
  if (name == "coulomb") return contact::FrictionModel::Coulomb;
  if (name == "stewart-trinkle") return contact::FrictionModel::StewartTrinkle;
  if (name == "anitescu-potra") return contact::FrictionModel::AnitescuPotra;
  throw InvalidProblem("friction_model: '" + name + "' is not one of coulomb, stewart-trinkle, anitescu-potra");
}

py::dict contacts_dict(const std::vector<contact::Contact>& contacts) {
  const auto n = static_cast<py::ssize_t>(contacts.size());
  py::array_t<int> a(n), b(n);
  py::array_t<double> point({n, py::ssize_t{2}}), normal({n, py::ssize_t{2}}), gap(n), arm_a({n, py::ssize_t{2}}),
      arm_b({n, py::ssize_t{2}});
  for (py::ssize_t i = 0; i < n; ++i) {
    const contact::Contact& c = contacts[static_cast<std::size_t>(i)];
    a.mutable_at(i) = c.body_a;
    b.mutable_at(i) = c.body_b;
    gap.mutable_at(i) = c.gap;
    for (py::ssize_t k = 0; k < 2; ++k) {
      point.mutable_at(i, k) = c.point[k];
      normal.mutable_at(i, k) = c.normal[k];
      arm_a.mutable_at(i, k) = c.arm_a[k];
      arm_b.mutable_at(i, k) = c.arm_b[k];
    }
  }
  py::dict d;
  d["body_a"] = a;
  d["body_b"] = b;
  d["point"] = point;
  d["normal"] = normal;
  d["gap"] = gap;
  d["arm_a"] = arm_a;
  d["arm_b"] = arm_b;
  return d;
}

}  // namespace

py::list fallback_list(py::ssize_t steps, const std::vector<std::pair<long, std::string>>& fallbacks) {
  py::list list;
  for (py::ssize_t k = 0; k < steps; ++k) list.append("");
  for (const auto& [k, text] : fallbacks) list[static_cast<std::size_t>(k)] = text;
  return list;
}

py::dict criteria_dict(const FrictionContactResiduals& r) {
  py::dict d;
  d["absolute_error"] = r.absolute_error;
  d["relative_error"] = r.relative_error;
  d["signorini"] = r.signorini;
  d["coulomb"] = r.coulomb;
  d["complementarity"] = r.complementarity;
  d["dissipation"] = r.dissipation;
  return d;
}

namespace {

/// One Moreau–Jean step of `world` under `o` (a copy: the interrupt hook and the method options are
/// set on it, not on the caller's object), with `method_options` read into `o.solve` as a solve's
/// keywords are, and with `derivatives` the step's StepSensitivity (`degenerate`, `minimum_norm`).
py::dict step_world(World& world, contact::MoreauJeanOptions o, const py::dict& method_options, bool derivatives,
                    const std::string& degenerate, bool minimum_norm) {
  o.solve.interrupt = signal_hook();
  read_method_options(o.solve, method_options);
  // The step runs on a copy without the GIL, so that another Python thread touching `world`
  // meanwhile cannot race with it; the copy replaces the world afterwards.
  World copy = world;
  contact::StepReport report;
  std::optional<contact::StepSensitivity> derivative;
  std::optional<World> before;
  if (derivatives) before = world;
  {
    py::gil_scoped_release release;
    report = contact::moreau_jean_step(copy, o);
    if (derivatives) {
      SensitivityOptions so;
      if (degenerate == "free") {
        so.degenerate = DegenerateRule::Free;
      } else if (degenerate != "bound") {
        throw InvalidProblem("degenerate: expected \"bound\" or \"free\", got \"" + degenerate + "\"");
      }
      so.minimum_norm = minimum_norm;
      derivative.emplace(*before, o, report, so);
    }
  }
  raise_pending();  // Ctrl-C during the step's solve: its KeyboardInterrupt (the world is left as it was)
  world = std::move(copy);
  py::dict d;
  d["derivatives"] = derivative ? py::cast(std::move(*derivative)) : py::none();
  d["contacts"] = contacts_dict(report.contacts);
  d["normal_impulse"] = copy_to_numpy(report.normal_impulse);
  d["tangent_impulse"] = copy_to_numpy(report.tangent_impulse);
  d["status"] = status_object(report.status);
  d["method"] = step_method_name(report);
  d["iterations"] = report.result.iterations;
  d["residual"] = report.result.residual;
  d["relative_residual"] = report.result.relative_residual;
  d["message"] = report.result.message;
  d["sleeping_bodies"] = report.sleeping_bodies;
  d["solve_ms"] = report.solve_ms;
  d["step_ms"] = report.step_ms;
  d["problem_size"] = static_cast<long long>(report.lcp_size);
  d["criteria"] = criteria_dict(report.criteria);
  d["warm_started"] = report.warm_started;
  d["projected_contacts"] = report.projected_contacts;
  d["projection_status"] = status_object(report.projection_status);
  d["split_contacts"] = report.split_contacts;
  d["split_status"] = status_object(report.split_status);
  d["fallback"] = report.fallback;
  d["law"] = law_name(report.law);
  return d;
}

std::string shape_repr(const contact::Shape& shape) {
  char text[96];
  if (const auto* disk = std::get_if<contact::Disk>(&shape)) {
    std::snprintf(text, sizeof text, "Disk(radius=%g)", disk->radius);
  } else if (const auto* box = std::get_if<contact::Box>(&shape)) {
    std::snprintf(text, sizeof text, "Box(width=%g, height=%g)", box->width, box->height);
  } else {
    std::snprintf(text, sizeof text, "Rod(length=%g)", std::get<contact::Rod>(shape).length);
  }
  return text;
}

/// contact::MoreauJeanOptions as perp._perp.MoreauJeanOptions: a field a setting under its C++ name,
/// default-constructed from the C++ initializers (the one source of perp.StepOptions' and
/// perp.moreau_jean_step's defaults); the solve's tolerance and iteration limit under the Python
/// spellings `tol` and `max_iter` (None: 0, the method's default), the enums by their names, gravity
/// as a pair. Values are checked by `validate()`, which the step calls.
void bind_step_options(py::module_& m) {
  using Options = contact::MoreauJeanOptions;
  py::class_<Options>(m, "MoreauJeanOptions",
                      "The options of one Moreau–Jean step (C++ contact::MoreauJeanOptions); defaults are C++'s.")
      .def(py::init<>())
      .def_readwrite("timestep", &Options::timestep)
      .def_readwrite("theta", &Options::theta)
      .def_readwrite("restitution", &Options::restitution)
      .def_readwrite("friction", &Options::friction)
      .def_property(
          "friction_model", [](const Options& o) { return contact::to_string(o.friction_model); },
          [](Options& o, const std::string& name) { o.friction_model = friction_model_from(name); })
      .def_readwrite("activation_tolerance", &Options::activation_tolerance)
      .def_readwrite("projection", &Options::projection)
      .def_property(
          "gravity", [](const Options& o) { return py::make_tuple(o.gravity.x(), o.gravity.y()); },
          [](Options& o, const py::object& v) { o.gravity = pair_from(v, "gravity"); })
      .def_property(
          "method", [](const Options& o) { return to_string(o.method); },
          [](Options& o, const std::string& name) { o.method = from_string<Method>(name); })
      .def_property(
          "tol", [](const Options& o) { return o.solve.tolerance; },
          [](Options& o, double tol) { o.solve.tolerance = tol; }, "The step's solve tolerance (C++ solve.tolerance).")
      .def_property(
          "max_iter",
          [](const Options& o) -> std::optional<int> {
            if (o.solve.max_iterations == 0) return std::nullopt;
            return o.solve.max_iterations;
          },
          [](Options& o, const py::object& max_iter) { set_max_iter(o.solve, max_iter); },
          "The step's solve iteration limit (C++ solve.max_iterations; None: the method's default).")
      .def_readwrite("baumgarte", &Options::baumgarte)
      .def_readwrite("slop", &Options::slop)
      .def_readwrite("split_impulse", &Options::split_impulse)
      .def_readwrite("speculative", &Options::speculative)
      .def_readwrite("sleeping", &Options::sleeping)
      .def_readwrite("sleep_speed", &Options::sleep_speed)
      .def_readwrite("sleep_time", &Options::sleep_time)
      .def_readwrite("dense_pivoting_max_size", &Options::dense_pivoting_max_size)
      .def("validate", &Options::validate, "Raises InvalidProblem naming the first bad field.");
}

void bind_world(py::module_& m) {
  using py::arg;
  py::class_<contact::Disk>(m, "Disk", "A disk of radius r > 0 centred on the body's position.")
      .def(py::init([](double radius) { return contact::Disk{radius}; }), arg("radius"))
      .def_readwrite("radius", &contact::Disk::radius)
      .def("__repr__", [](const contact::Disk& d) { return shape_repr(d); });
  py::class_<contact::Box>(m, "Box", "A rectangle of width w (body x axis) and height h, centred on the body.")
      .def(py::init([](double width, double height) { return contact::Box{width, height}; }), arg("width"),
           arg("height"))
      .def_readwrite("width", &contact::Box::width)
      .def_readwrite("height", &contact::Box::height)
      .def("__repr__", [](const contact::Box& b) { return shape_repr(b); });
  py::class_<contact::Rod>(m, "Rod", "A thin rod of length L along the body's x axis (touches the ground, planes, disks and boxes).")
      .def(py::init([](double length) { return contact::Rod{length}; }), arg("length"))
      .def_readwrite("length", &contact::Rod::length)
      .def("__repr__", [](const contact::Rod& r) { return shape_repr(r); });

  py::class_<Body>(m, "Body", "A planar rigid body: shape, mass, pose (x, y, angle) and velocity (vx, vy, omega).")
      .def(py::init([](std::string name, contact::Shape shape, double mass, const py::object& position, double angle,
                       const py::object& velocity, double angular_velocity, std::optional<double> inertia, bool fixed,
                       std::optional<double> friction, std::optional<double> restitution) {
             Body b;
             b.fixed = fixed;
             b.friction = friction;
             b.restitution = restitution;
             b.name = std::move(name);
             b.shape = shape;
             b.mass = mass;
             b.position = pair_from(position, "position");
             b.angle = angle;
             b.velocity = pair_from(velocity, "velocity");
             b.angular_velocity = angular_velocity;
             b.inertia = inertia;
             b.validate();
             return b;
           }),
           arg("name"), arg("shape"), arg("mass"), arg("position") = py::make_tuple(0.0, 0.0), arg("angle") = 0.0,
           arg("velocity") = py::make_tuple(0.0, 0.0), arg("angular_velocity") = 0.0, arg("inertia") = py::none(),
           arg("fixed") = false, arg("friction") = py::none(), arg("restitution") = py::none())
      .def_readwrite("name", &Body::name)
      .def_readwrite("fixed", &Body::fixed, "A static (or, with a velocity, kinematic) body of infinite mass.")
      .def_readwrite("friction", &Body::friction, "This body's Coulomb coefficient; None: the step's.")
      .def_readwrite("restitution", &Body::restitution, "This body's restitution; None: the step's.")
      .def_readwrite("shape", &Body::shape)
      .def_readwrite("mass", &Body::mass)
      .def_readwrite("inertia", &Body::inertia)
      .def_property(
          "position", [](const Body& b) { return pair_to(b.position); },
          [](Body& b, const py::object& v) { b.position = pair_from(v, "position"); })
      .def_readwrite("angle", &Body::angle)
      .def_property(
          "velocity", [](const Body& b) { return pair_to(b.velocity); },
          [](Body& b, const py::object& v) { b.velocity = pair_from(v, "velocity"); })
      .def_readwrite("angular_velocity", &Body::angular_velocity)
      .def_property(
          "force", [](const Body& b) { return pair_to(b.force); },
          [](Body& b, const py::object& v) { b.force = pair_from(v, "force"); },
          "Applied force (fx, fy), N, world frame, through the centre, held over every step beside gravity.")
      .def_readwrite("torque", &Body::torque, "Applied torque, N*m, held over every step.")
      .def_property_readonly("moment_of_inertia", &Body::moment_of_inertia)
      .def("validate", &Body::validate)
      .def("__repr__", [](const Body& b) {
        char text[160];
        std::snprintf(text, sizeof text, ", mass=%g, position=(%g, %g), angle=%g, velocity=(%g, %g), omega=%g)",
                      b.mass, b.position.x(), b.position.y(), b.angle, b.velocity.x(), b.velocity.y(),
                      b.angular_velocity);
        return "Body('" + b.name + "', " + shape_repr(b.shape) + text;
      });

  py::class_<contact::Plane>(m, "Plane",
                             "A static half-plane (wall, slope): the solid is normal . (x - point) <= 0.")
      .def(py::init([](const py::object& point, const py::object& normal, std::string name,
                       std::optional<double> friction, std::optional<double> restitution) {
             contact::Plane p;
             p.point = pair_from(point, "point");
             p.normal = pair_from(normal, "normal");
             p.name = std::move(name);
             p.friction = friction;
             p.restitution = restitution;
             World probe;
             probe.planes = {p};
             probe.validate();
             return p;
           }),
           arg("point"), arg("normal"), arg("name") = "", arg("friction") = py::none(),
           arg("restitution") = py::none())
      .def_readwrite("name", &contact::Plane::name)
      .def_property(
          "point", [](const contact::Plane& p) { return pair_to(p.point); },
          [](contact::Plane& p, const py::object& v) { p.point = pair_from(v, "point"); })
      .def_property(
          "normal", [](const contact::Plane& p) { return pair_to(p.normal); },
          [](contact::Plane& p, const py::object& v) { p.normal = pair_from(v, "normal"); })
      .def_readwrite("friction", &contact::Plane::friction)
      .def_readwrite("restitution", &contact::Plane::restitution)
      .def("__repr__", [](const contact::Plane& p) {
        char text[128];
        std::snprintf(text, sizeof text, "point=(%g, %g), normal=(%g, %g)", p.point.x(), p.point.y(), p.normal.x(),
                      p.normal.y());
        return "Plane(" + std::string(text) + (p.name.empty() ? "" : ", name='" + p.name + "'") + ")";
      });

  py::class_<World>(m, "World",
                    "Bodies and an optional ground (the half-plane y <= height): what moreau_jean_step advances.")
      .def(py::init([](std::vector<Body> bodies, std::optional<double> ground, std::vector<contact::Plane> planes) {
             World w;
             w.bodies = std::move(bodies);
             if (ground) w.ground = contact::Ground{*ground};
             w.planes = std::move(planes);
             w.validate();
             return w;
           }),
           arg("bodies") = std::vector<Body>{}, arg("ground") = py::none(),
           arg("planes") = std::vector<contact::Plane>{})
      .def_property(
          "planes", [](const World& w) { return w.planes; },
          [](World& w, std::vector<contact::Plane> planes) {
            w.planes = std::move(planes);
            w.impulses.clear();
          },
          "A list of copies of the walls and slopes (assign a list to replace them).")
      .def_property(
          "bodies", [](const World& w) { return w.bodies; },
          [](World& w, std::vector<Body> bodies) {
            w.bodies = std::move(bodies);
            w.impulses.clear();
            w.rod_sides.clear();  // its entries name bodies by index
          },
          "A list of copies of the bodies (assign a list to replace them; `set_body` for one).")
      .def_property(
          "ground", [](const World& w) -> std::optional<double> {
            if (!w.ground) return std::nullopt;
            return w.ground->height;
          },
          [](World& w, std::optional<double> height) {
            if (height) {
              w.ground = contact::Ground{*height};
            } else {
              w.ground.reset();
            }
          })
      .def("add", [](World& w, const Body& b) { w.bodies.push_back(b); }, arg("body"))
      .def("__len__", [](const World& w) { return w.bodies.size(); })
      .def(
          "body",
          [](const World& w, const std::string& name) {
            for (const Body& b : w.bodies) {
              if (b.name == name) return b;
            }
            throw py::key_error("no body '" + name + "'");
          },
          arg("name"), "A copy of the body called `name`.")
      .def(
          "set_body",
          [](World& w, std::size_t index, const Body& b) {
            if (index >= w.bodies.size()) throw py::index_error("body index out of range");
            w.bodies[index] = b;
            w.rod_sides.clear();  // a body moved by hand: the rods' sides are read from where they are
          },
          arg("index"), arg("body"))
      .def_property(
          "state",
          [](const World& w) {
            py::array_t<double> out({static_cast<py::ssize_t>(w.bodies.size()), py::ssize_t{6}});
            for (std::size_t i = 0; i < w.bodies.size(); ++i) {
              const Body& b = w.bodies[i];
              const double row[6] = {b.position.x(), b.position.y(), b.angle, b.velocity.x(), b.velocity.y(),
                                     b.angular_velocity};
              for (py::ssize_t k = 0; k < 6; ++k) out.mutable_at(static_cast<py::ssize_t>(i), k) = row[k];
            }
            return out;
          },
          [](World& w, const FArray& state) {
            const Eigen::MatrixXd s = to_matrix(state, "state");
            if (s.rows() != static_cast<Eigen::Index>(w.bodies.size()) || s.cols() != 6) {
              throw py::value_error("state: expected shape (" + std::to_string(w.bodies.size()) + ", 6), got (" +
                                    std::to_string(s.rows()) + ", " + std::to_string(s.cols()) + ")");
            }
            for (std::size_t i = 0; i < w.bodies.size(); ++i) {
              Body& b = w.bodies[i];
              const auto r = static_cast<Eigen::Index>(i);
              b.position = {s(r, 0), s(r, 1)};
              b.angle = s(r, 2);
              b.velocity = {s(r, 3), s(r, 4)};
              b.angular_velocity = s(r, 5);
            }
            w.rod_sides.clear();  // as set_body
          },
          "(bodies, 6): x, y, angle, vx, vy, omega per body (a copy; assign to set).")
      .def(
          "energy",
          [](const World& w, const FArray& gravity) {
            const contact::Energy e = contact::energy(w, pair_from(gravity, "gravity"));
            return py::make_tuple(e.kinetic, e.potential, e.total());
          },
          arg("gravity"))
      .def(
          "contacts", [](const World& w, double margin) { return contacts_dict(contact::detect_contacts(w, margin)); },
          arg("margin") = 0.0, "Every contact with gap <= margin, as arrays (body_a, body_b, point, normal, gap, ...).")
      .def("validate", &World::validate)
      .def("clear_impulses", [](World& w) { w.impulses.clear(); }, "Forget the warm start of the next step.")
      .def("copy", [](const World& w) { return w; })
      .def("__copy__", [](const World& w) { return w; })
      .def("__deepcopy__", [](const World& w, py::dict) { return w; }, arg("memo"))
      .def("__repr__", [](const World& w) {
        std::string text = "<perp.World " + std::to_string(w.bodies.size()) + " bodies";
        if (w.ground) text += ", ground at y = " + number_text(w.ground->height);
        return text + ">";
      });

  m.def("moreau_jean_step", &step_world, arg("world"), arg("options"), arg("method_options") = py::dict(),
        arg("derivatives") = false, arg("degenerate") = "bound", arg("minimum_norm") = false,
        "One Moreau–Jean step of `world` (in place) under `options` (a MoreauJeanOptions); returns the "
        "step's report as a dict. perp.moreau_jean_step and perp.step_world wrap it.");
  m.def(
      "painleve_world",
      [](double theta, double mu, double theta_dot, double mass, double half_length, double gravity,
         double sliding_speed) {
        return contact::painleve_world(painleve_rod(theta, mu, theta_dot, mass, half_length, gravity), sliding_speed);
      },
      arg("theta"), arg("mu"), arg("theta_dot"), arg("mass"), arg("half_length"), arg("gravity"),
      arg("sliding_speed"));
}

}  // namespace

/// perp._perp.simulate_json and simulate_file (simulate.cpp).
void bind_simulate(py::module_& m);

void bind_contact(py::module_& m) {
  bind_step_options(m);
  bind_world(m);
  using py::arg;
  m.def("painleve", &painleve, arg("theta"), arg("mu"), arg("theta_dot"), arg("mass"), arg("half_length"),
        arg("gravity"));
  m.def("painleve_regimes", &painleve_regimes, arg("theta"), arg("mu"), arg("theta_dot"), arg("mass"),
        arg("half_length"), arg("gravity"));
  m.def("critical_mu", []() {
    const contact::CriticalFriction c = contact::painleve_critical_friction();
    return py::make_tuple(c.friction, c.theta);
  });
  bind_simulate(m);
}

}  // namespace perp::python
