#include "perp/contact/body.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "perp/core/error.hpp"
#include "step_scratch.hpp"

namespace perp::contact {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
// Aggregate deduction is C++20, but clang before 17 (the fuzz build's Debian clang 14) needs the guide.
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// The checks run for every body at every step: the test inline, the message in a call of its own.
[[noreturn, gnu::noinline]] void not_positive(double value, const std::string& body, const char* field) {
  throw InvalidProblem("body \"" + body + "\": " + field + " must be finite and > 0, got " + std::to_string(value));
}

[[noreturn, gnu::noinline]] void not_finite(const std::string& body, const char* field) {
  throw InvalidProblem("body \"" + body + "\": " + field + " is not finite");
}

inline void require_positive(double value, const std::string& body, const char* field) {
  if (!std::isfinite(value) || value <= 0) [[unlikely]]
    not_positive(value, body, field);
}

inline void require_finite_value(double value, const std::string& body, const char* field) {
  if (!std::isfinite(value)) [[unlikely]]
    not_finite(body, field);
}

/// Per-side friction >= 0 and restitution in [0, 1], where set; `what()` names the side (built only
/// for the message: World::validate runs at every step, over every body).
template <class Describe>
void require_material(const std::optional<double>& friction, const std::optional<double>& restitution,
                      const Describe& what) {
  if (friction && (!std::isfinite(*friction) || *friction < 0)) {
    throw InvalidProblem(what() + ": friction must be finite and >= 0, got " + number_text(*friction));
  }
  if (restitution && (!std::isfinite(*restitution) || *restitution < 0 || *restitution > 1)) {
    throw InvalidProblem(what() + ": restitution must be in [0, 1], got " + number_text(*restitution));
  }
}

}  // namespace

const char* shape_name(const Shape& shape) {
  return std::visit(Overloaded{[](const Disk&) { return "disk"; }, [](const Box&) { return "box"; },
                               [](const Rod&) { return "rod"; }},
                    shape);
}

double Body::moment_of_inertia() const {
  if (inertia) return *inertia;
  return std::visit(Overloaded{[&](const Disk& d) { return mass * d.radius * d.radius / 2; },
                               [&](const Box& b) { return mass * (b.width * b.width + b.height * b.height) / 12; },
                               [&](const Rod& r) { return mass * r.length * r.length / 12; }},
                    shape);
}

double Body::bounding_radius() const {
  return std::visit(
      Overloaded{[](const Disk& d) { return d.radius; }, [](const Box& b) { return std::hypot(b.width, b.height) / 2; },
                 [](const Rod& r) { return r.length / 2; }},
      shape);
}

Eigen::Vector2d Body::axis() const { return {std::cos(angle), std::sin(angle)}; }

Eigen::Vector2d Body::to_world(const Eigen::Vector2d& local) const {
  const double c = std::cos(angle);
  const double s = std::sin(angle);
  return position + Eigen::Vector2d(c * local.x() - s * local.y(), s * local.x() + c * local.y());
}

void Body::validate() const {
  if (name.empty()) throw InvalidProblem("body: name must not be empty");
  if (const std::size_t k = name.find('\0'); k != std::string::npos) {
    throw InvalidProblem("body '" + name.substr(0, k) + "…': name holds a NUL character at byte " + std::to_string(k) +
                         " (it would cut the name short in C strings and files)");
  }
  require_positive(mass, name, "mass");
  if (inertia) require_positive(*inertia, name, "inertia");
  std::visit(Overloaded{[&](const Disk& d) { require_positive(d.radius, name, "radius"); },
                        [&](const Box& b) {
                          require_positive(b.width, name, "width");
                          require_positive(b.height, name, "height");
                        },
                        [&](const Rod& r) { require_positive(r.length, name, "length"); }},
             shape);
  require_finite_value(position.x(), name, "position[0]");
  require_finite_value(position.y(), name, "position[1]");
  require_finite_value(angle, name, "angle");
  require_finite_value(velocity.x(), name, "velocity[0]");
  require_finite_value(velocity.y(), name, "velocity[1]");
  require_finite_value(angular_velocity, name, "angular_velocity");
  require_finite_value(force.x(), name, "force[0]");
  require_finite_value(force.y(), name, "force[1]");
  require_finite_value(torque, name, "torque");
  require_material(friction, restitution, [&] { return "body \"" + name + "\""; });
}

double combine_friction(const std::optional<double>& a, const std::optional<double>& b, double fallback) {
  if (!a && !b) return fallback;
  return std::sqrt(a.value_or(fallback) * b.value_or(fallback));
}

double combine_restitution(const std::optional<double>& a, const std::optional<double>& b, double fallback) {
  return std::max(a.value_or(fallback), b.value_or(fallback));
}

void World::validate() const {
  // Checked at every step, so without an allocation per body: the names' hashes in one open
  // addressing table (a node-based set allocated a node per body, half of a step of 210 bodies
  // asleep; a tree of copies before it was a sixth of a 10 000-body step without contacts).
  const std::size_t count = bodies.size();
  std::size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  const std::size_t mask = capacity - 1;
  std::vector<std::uint32_t> slots(capacity, 0);  // a body's index + 1; 0: empty
  const std::hash<std::string_view> hash;
  for (std::size_t i = 0; i < count; ++i) {
    const Body& body = bodies[i];
    body.validate();
    if (body.name == "ground") throw InvalidProblem("body name \"ground\" is reserved for the ground");
    for (std::size_t slot = hash(body.name) & mask;; slot = (slot + 1) & mask) {
      if (slots[slot] == 0) {
        slots[slot] = static_cast<std::uint32_t>(i + 1);
        break;
      }
      if (bodies[slots[slot] - 1].name == body.name) {
        throw InvalidProblem("body name \"" + body.name + "\" is used twice");
      }
    }
  }
  if (ground && !std::isfinite(ground->height)) throw InvalidProblem("ground: height is not finite");
  for (std::size_t p = 0; p < planes.size(); ++p) {
    const Plane& plane = planes[p];
    const auto what = [&] {
      return "planes[" + std::to_string(p) + "]" + (plane.name.empty() ? "" : " \"" + plane.name + "\"");
    };
    if (!plane.point.allFinite()) throw InvalidProblem(what() + ": point is not finite");
    if (!plane.normal.allFinite() || !(plane.normal.norm() > 0) || !std::isfinite(plane.normal.norm())) {
      throw InvalidProblem(what() + ": normal must be finite and non-zero");
    }
    require_material(plane.friction, plane.restitution, what);
  }
}

Eigen::VectorXd generalized_velocity(const std::vector<Body>& bodies) {
  Eigen::VectorXd v;
  generalized_velocity_into(bodies, v);
  return v;
}

void generalized_velocity_into(const std::vector<Body>& bodies, Eigen::VectorXd& v) {
  v.resize(3 * static_cast<Eigen::Index>(bodies.size()));
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const auto k = 3 * static_cast<Eigen::Index>(i);
    v[k] = bodies[i].velocity.x();
    v[k + 1] = bodies[i].velocity.y();
    v[k + 2] = bodies[i].angular_velocity;
  }
}

Eigen::VectorXd inverse_mass_diagonal(const std::vector<Body>& bodies) {
  Eigen::VectorXd inverse;
  inverse_mass_diagonal_into(bodies, inverse);
  return inverse;
}

void inverse_mass_diagonal_into(const std::vector<Body>& bodies, Eigen::VectorXd& inverse) {
  inverse.resize(3 * static_cast<Eigen::Index>(bodies.size()));
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const auto k = 3 * static_cast<Eigen::Index>(i);
    const bool fixed = bodies[i].fixed;
    inverse[k] = fixed ? 0.0 : 1 / bodies[i].mass;
    inverse[k + 1] = inverse[k];
    inverse[k + 2] = fixed ? 0.0 : 1 / bodies[i].moment_of_inertia();
  }
}

Eigen::Vector3d free_velocity_change(const Body& body, const Eigen::Vector2d& gravity, double h) {
  Eigen::Vector3d change;
  change.head<2>() = h * (gravity + body.force / body.mass);
  change[2] = body.torque == 0 ? 0.0 : h * body.torque / body.moment_of_inertia();
  return change;
}

}  // namespace perp::contact
