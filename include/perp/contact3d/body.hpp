#pragma once
/// \file
/// Rigid bodies in three dimensions (issue 36, first slice): the state that the 3D Moreau–Jean step
/// (contact3d/moreau_jean.hpp) advances. z is up by convention (the ground is the plane z = h).
///
/// A body's state is its centre of mass x ∈ ℝ³, a unit quaternion q (body frame → world frame,
/// Eigen's (w, x, y, z)), its linear velocity v and its angular velocity ω, both in the world frame.
/// Its inertia tensor is kept in the body frame (I_b, about the centre of mass); the world inertia
/// is I = R I_b Rᵀ with R = R(q).

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <optional>
#include <string>
#include <vector>

namespace perp::contact3d {

/// The range of a 3D world (m from the origin along each axis, and m/s): a body's shape must lie
/// within it and its points move slower (`Body::validate`), so that the detection's bounding
/// boxes and their sums stay finite.
inline constexpr double kWorldExtent = 1e9;

enum class ShapeKind {
  Sphere,    ///< `radius`
  Box,       ///< `size`: full edge lengths along the body's x, y, z axes
  Capsule,   ///< `radius`, `length`: a segment of that length along the body z axis, swept by a ball
  Cylinder,  ///< `radius`, `length`: its height, along the body z axis
};

/// "sphere", "box", "capsule" or "cylinder".
[[nodiscard]] const char* shape_name(ShapeKind kind);

/// A convex shape centred on the body's centre of mass, in the body frame.
struct Shape {
  ShapeKind kind = ShapeKind::Sphere;
  /// Sphere, capsule and cylinder radius (m, finite, > 0). Default 0.5.
  double radius = 0.5;
  /// Box edge lengths (m, each finite, > 0). Default (1, 1, 1).
  Eigen::Vector3d size = Eigen::Vector3d::Ones();
  /// Capsule segment length (m, finite, >= 0) and cylinder height (m, finite, > 0). Default 1.
  double length = 1;

  [[nodiscard]] static Shape sphere(double radius);
  [[nodiscard]] static Shape box(const Eigen::Vector3d& size);
  [[nodiscard]] static Shape capsule(double radius, double length);
  [[nodiscard]] static Shape cylinder(double radius, double length);

  /// The inertia tensor about the centre, in the body frame, of the solid shape of mass `mass`
  /// with uniform density (diagonal: the body axes are principal axes):
  ///   sphere  2/5 m r²;   box  m/12 (l_y² + l_z², l_x² + l_z², l_x² + l_y²);
  ///   cylinder  I_zz = m r²/2, I_xx = I_yy = m (3 r² + l²)/12;
  ///   capsule  (cylinder of mass m_c and two hemispheres of total mass m_h, split by volume)
  ///     I_zz = m_c r²/2 + 2/5 m_h r², I_xx = m_c (l²/12 + r²/4) + m_h (2/5 r² + l²/4 + 3/8 l r).
  [[nodiscard]] Eigen::Matrix3d inertia(double mass) const;
  /// Radius of the smallest ball about the centre that holds the shape.
  [[nodiscard]] double bounding_radius() const;
};

struct Body {
  /// Unique within a world; names the body in messages and CSV columns.
  std::string name;
  Shape shape;
  Eigen::Vector3d position = Eigen::Vector3d::Zero();
  /// Body → world rotation, a unit quaternion (|q| within 1e-6 of 1; the step renormalizes it).
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();
  /// World-frame linear velocity (m/s) of the centre of mass and angular velocity (rad/s).
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();
  /// kg, finite, > 0 (validated also for fixed bodies, where it enters nothing).
  double mass = 1;
  /// Body-frame inertia about the centre (kg m², symmetric positive definite); unset = the
  /// shape's, `Shape::inertia(mass)`.
  std::optional<Eigen::Matrix3d> inertia;
  /// A fixed body (a static box, or a kinematic one when its velocities are not zero) has infinite
  /// mass: contacts and gravity never change its velocity; fixed bodies do not touch each other,
  /// the ground or planes.
  bool fixed = false;
  /// Coulomb coefficient (>= 0) and Newton restitution (in [0, 1]) of this body's side of a
  /// contact; unset = the step's. Combined as in 2D (contact/body.hpp: `combine_friction`, the
  /// geometric mean; `combine_restitution`, the larger).
  std::optional<double> friction;
  std::optional<double> restitution;

  /// `inertia` when set, otherwise the shape's.
  [[nodiscard]] Eigen::Matrix3d body_inertia() const;
  /// R(q), body → world.
  [[nodiscard]] Eigen::Matrix3d rotation() const { return orientation.toRotationMatrix(); }
  /// I⁻¹ in the world frame, R I_b⁻¹ Rᵀ (zero for a fixed body).
  [[nodiscard]] Eigen::Matrix3d world_inverse_inertia() const;
  /// World coordinates of a point given in the body frame.
  [[nodiscard]] Eigen::Vector3d to_world(const Eigen::Vector3d& local) const;
  /// Throws `InvalidProblem` naming the body and the field: an empty name, a non-finite or
  /// non-positive mass, radius, size or length (a capsule's length may be 0), a non-finite
  /// position, velocity or quaternion, a shape reaching beyond `kWorldExtent` from the origin or a
  /// point speed |v| + |ω| r above it, a quaternion whose norm is not within 1e-6 of 1, an inertia
  /// that is not finite, symmetric and positive definite, friction < 0 or restitution outside [0, 1].
  void validate() const;
};

/// The ground: the half-space z <= height, surface normal +z.
struct Ground {
  double height = 0;
};

/// A static half-space {x : normal · (x − point) <= 0}; `normal` (finite, non-zero; normalized where
/// used) points out of the solid. A slope of angle α rising along +x has normal (−sin α, 0, cos α).
struct Plane {
  std::string name;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  std::optional<double> friction;
  std::optional<double> restitution;

  [[nodiscard]] Eigen::Vector3d unit_normal() const { return normal.normalized(); }
};

/// The impulse (normal, t1, t2; N·s) a contact carried in the last step, by the contact's identity:
/// its two sides (`Contact::body_a`, `body_b`) and `feature` (contact3d/detection.hpp), kept to
/// warm-start the next step's solve.
struct ContactImpulse {
  int body_a = 0;
  int body_b = -1;
  int feature = 0;
  /// (normal, t1, t2) in the contact's frame.
  Eigen::Vector3d impulse = Eigen::Vector3d::Zero();
  /// The same impulse in the world frame (on body a).
  Eigen::Vector3d world_impulse = Eigen::Vector3d::Zero();
  /// The contact point in body a's frame: the next step matches its contacts of the same pair to
  /// the nearest of these (a narrow phase need not list a manifold's points in the same order).
  Eigen::Vector3d local_point = Eigen::Vector3d::Zero();
};

struct World {
  std::vector<Body> bodies;
  std::optional<Ground> ground;
  std::vector<Plane> planes;
  /// Written by the step, read by the next one as its warm start; clearing it costs iterations only.
  std::vector<ContactImpulse> impulses;
  /// With `StepOptions::sleeping`: how long each body has been at rest (seconds, one per body;
  /// written by the step).
  std::vector<double> rest_time;

  /// Validates every body, requires unique names, a finite ground height, planes with a finite
  /// point and a finite non-zero normal, friction >= 0 and restitution in [0, 1] where set.
  void validate() const;
  /// 6 per body: (v, ω).
  [[nodiscard]] Eigen::Index dofs() const { return 6 * static_cast<Eigen::Index>(bodies.size()); }
};

/// Kinetic energy ½ m |v|² + ½ ωᵀ I ω of one body (world frame).
[[nodiscard]] double kinetic_energy(const Body& body);
/// Angular momentum about the body's own centre, I ω = R I_b Rᵀ ω (world frame).
[[nodiscard]] Eigen::Vector3d angular_momentum(const Body& body);

}  // namespace perp::contact3d
