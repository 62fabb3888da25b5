#include "perp/contact3d/body.hpp"

#include <cmath>
#include <numbers>
#include <set>
#include <string>

#include "perp/core/error.hpp"

namespace perp::contact3d {
namespace {

[[noreturn]] void bad_body(const std::string& body, const std::string& what) {
  throw InvalidProblem("body \"" + body + "\": " + what);
}

void require_positive(double value, const std::string& body, const char* field) {
  if (!std::isfinite(value) || value <= 0)
    bad_body(body, std::string(field) + " must be finite and > 0, got " + number_text(value));
}

void require_finite(const Eigen::Vector3d& value, const std::string& body, const char* field) {
  for (Eigen::Index i = 0; i < 3; ++i) {
    if (!std::isfinite(value[i]))
      bad_body(body, std::string(field) + "[" + std::to_string(i) + "] is " + number_text(value[i]));
  }
}

void require_material(const std::optional<double>& friction, const std::optional<double>& restitution,
                      const std::string& where) {
  if (friction && (!std::isfinite(*friction) || *friction < 0)) {
    throw InvalidProblem(where + ": friction must be finite and >= 0, got " + number_text(*friction));
  }
  if (restitution && (!std::isfinite(*restitution) || *restitution < 0 || *restitution > 1)) {
    throw InvalidProblem(where + ": restitution must be in [0, 1], got " + number_text(*restitution));
  }
}

}  // namespace

const char* shape_name(ShapeKind kind) {
  switch (kind) {
    case ShapeKind::Sphere:
      return "sphere";
    case ShapeKind::Box:
      return "box";
    case ShapeKind::Capsule:
      return "capsule";
    case ShapeKind::Cylinder:
      return "cylinder";
  }
  return "?";
}

Shape Shape::sphere(double radius) { return {.kind = ShapeKind::Sphere, .radius = radius}; }
Shape Shape::box(const Eigen::Vector3d& size) { return {.kind = ShapeKind::Box, .size = size}; }
Shape Shape::capsule(double radius, double length) {
  return {.kind = ShapeKind::Capsule, .radius = radius, .length = length};
}
Shape Shape::cylinder(double radius, double length) {
  return {.kind = ShapeKind::Cylinder, .radius = radius, .length = length};
}

Eigen::Matrix3d Shape::inertia(double mass) const {
  const double r2 = radius * radius;
  Eigen::Vector3d diagonal = Eigen::Vector3d::Zero();
  switch (kind) {
    case ShapeKind::Sphere:
      diagonal.setConstant(0.4 * mass * r2);
      break;
    case ShapeKind::Box: {
      const Eigen::Vector3d s = size.cwiseProduct(size);
      diagonal = mass / 12.0 * Eigen::Vector3d(s.y() + s.z(), s.x() + s.z(), s.x() + s.y());
      break;
    }
    case ShapeKind::Cylinder: {
      const double side = mass * (3 * r2 + length * length) / 12.0;
      diagonal = Eigen::Vector3d(side, side, 0.5 * mass * r2);
      break;
    }
    case ShapeKind::Capsule: {
      // Mass split by volume between the cylinder (π r² l) and the two hemispheres (4/3 π r³).
      const double cylinder_volume = length;  // both divided by π r²
      const double spheres_volume = 4.0 / 3.0 * radius;
      const double m_c = mass * cylinder_volume / (cylinder_volume + spheres_volume);
      const double m_h = mass - m_c;
      const double l = length;
      const double side = m_c * (l * l / 12.0 + r2 / 4.0) + m_h * (0.4 * r2 + l * l / 4.0 + 3.0 / 8.0 * l * radius);
      diagonal = Eigen::Vector3d(side, side, 0.5 * m_c * r2 + 0.4 * m_h * r2);
      break;
    }
  }
  return diagonal.asDiagonal();
}

double Shape::bounding_radius() const {
  switch (kind) {
    case ShapeKind::Sphere:
      return radius;
    case ShapeKind::Box:
      return 0.5 * size.norm();
    case ShapeKind::Capsule:
      return 0.5 * length + radius;
    case ShapeKind::Cylinder:
      return std::hypot(radius, 0.5 * length);
  }
  return 0;
}

Eigen::Matrix3d Body::body_inertia() const { return inertia ? *inertia : shape.inertia(mass); }

Eigen::Matrix3d Body::world_inverse_inertia() const {
  if (fixed) return Eigen::Matrix3d::Zero();
  const Eigen::Matrix3d R = rotation();
  return R * body_inertia().inverse() * R.transpose();
}

Eigen::Vector3d Body::to_world(const Eigen::Vector3d& local) const { return position + orientation * local; }

void Body::validate() const {
  if (name.empty()) throw InvalidProblem("body: name must not be empty");
  require_positive(mass, name, "mass");
  switch (shape.kind) {
    case ShapeKind::Sphere:
      require_positive(shape.radius, name, "radius");
      break;
    case ShapeKind::Box:
      for (Eigen::Index i = 0; i < 3; ++i) {
        const std::string field = "size[" + std::to_string(i) + "]";
        require_positive(shape.size[i], name, field.c_str());
      }
      break;
    case ShapeKind::Capsule:
      require_positive(shape.radius, name, "radius");
      if (!std::isfinite(shape.length) || shape.length < 0) {
        bad_body(name, "length must be finite and >= 0, got " + number_text(shape.length));
      }
      break;
    case ShapeKind::Cylinder:
      require_positive(shape.radius, name, "radius");
      require_positive(shape.length, name, "length");
      break;
  }
  require_finite(position, name, "position");
  require_finite(velocity, name, "velocity");
  require_finite(angular_velocity, name, "angular_velocity");
  // FCL's tree (detection.cpp) fails on boxes whose bounds overflow: the world is kept in range.
  const double reach = position.cwiseAbs().maxCoeff() + shape.bounding_radius();
  if (!(reach <= kWorldExtent)) {
    bad_body(name, "the shape reaches " + number_text(reach) + " m from the origin along an axis, beyond " +
                       number_text(kWorldExtent) + " m");
  }
  const double speed = velocity.stableNorm() + angular_velocity.stableNorm() * shape.bounding_radius();
  if (!(speed <= kWorldExtent)) {
    bad_body(name, "a point of the body moves at " + number_text(speed) + " m/s (|v| + |ω| r), beyond " +
                       number_text(kWorldExtent) + " m/s");
  }
  const Eigen::Vector4d q = orientation.coeffs();
  for (Eigen::Index i = 0; i < 4; ++i) {
    if (!std::isfinite(q[i])) bad_body(name, "orientation is not finite");
  }
  if (std::abs(q.norm() - 1) > 1e-6) {
    bad_body(name, "orientation must be a unit quaternion, got norm " + number_text(q.norm()));
  }
  if (inertia) {
    const Eigen::Matrix3d& I = *inertia;
    if (!I.allFinite()) bad_body(name, "inertia is not finite");
    if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-12 * I.cwiseAbs().maxCoeff()) {
      bad_body(name, "inertia must be symmetric");
    }
    const Eigen::LLT<Eigen::Matrix3d> llt(I);
    if (llt.info() != Eigen::Success) bad_body(name, "inertia must be positive definite");
  }
  require_material(friction, restitution, "body \"" + name + "\"");
}

void World::validate() const {
  std::set<std::string> names;
  for (const Body& body : bodies) {
    body.validate();
    if (!names.insert(body.name).second) throw InvalidProblem("body \"" + body.name + "\": name is not unique");
  }
  if (ground && !std::isfinite(ground->height)) {
    throw InvalidProblem("ground: height is " + number_text(ground->height));
  }
  for (std::size_t p = 0; p < planes.size(); ++p) {
    const Plane& plane = planes[p];
    const std::string where = "plane " + std::to_string(p) + (plane.name.empty() ? "" : " \"" + plane.name + "\"");
    if (!plane.point.allFinite()) throw InvalidProblem(where + ": point is not finite");
    if (!plane.normal.allFinite() || plane.normal.norm() == 0) {
      throw InvalidProblem(where + ": normal must be finite and non-zero");
    }
    require_material(plane.friction, plane.restitution, where);
  }
}

double kinetic_energy(const Body& body) {
  const Eigen::Matrix3d R = body.rotation();
  const Eigen::Vector3d w = R.transpose() * body.angular_velocity;
  return 0.5 * body.mass * body.velocity.squaredNorm() + 0.5 * w.dot(body.body_inertia() * w);
}

Eigen::Vector3d angular_momentum(const Body& body) {
  const Eigen::Matrix3d R = body.rotation();
  return R * (body.body_inertia() * (R.transpose() * body.angular_velocity));
}

}  // namespace perp::contact3d
