#pragma once
/// \file
/// Planar rigid bodies (disks, boxes, rods) and the ground half-plane.
///
/// A body has three generalised coordinates q = (x, y, angle) — the centre of mass and the
/// counter-clockwise rotation in radians — and velocities v = (vx, vy, omega). Its mass matrix is
/// diag(m, m, I), so M⁻¹ is block-diagonal and never needs a dense inverse.

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace perp::contact {

/// A disk of radius r > 0 centred on the body's position. Default inertia m r² / 2.
struct Disk {
  double radius = 0;
};

/// A rectangle of width w > 0 (along the body's x axis at angle 0) and height h > 0, centred on
/// the body's position. Default inertia m (w² + h²) / 12.
struct Box {
  double width = 0;
  double height = 0;
};

/// A segment (thin rod) of length L > 0 centred on the body's position, along the body's x axis
/// at angle 0. Default inertia m L² / 12 (= m l²/3 for half-length l). Rods touch the ground,
/// planes, disks and boxes by their end points (and a disk or a box corner along their length),
/// and other rods by an end against the other's length or end (`World::rod_sides`).
struct Rod {
  double length = 0;
};

using Shape = std::variant<Disk, Box, Rod>;

/// "disk", "box" or "rod".
[[nodiscard]] const char* shape_name(const Shape& shape);

struct Body {
  /// Free text, used in CSV column names ("ball.x"); must be non-empty and unique in a world.
  std::string name;
  Shape shape = Disk{};
  /// Mass m > 0, finite.
  double mass = 0;
  /// Moment of inertia about the centre; unset = the shape's uniform-density value. If set,
  /// finite and > 0.
  std::optional<double> inertia;
  Eigen::Vector2d position = Eigen::Vector2d::Zero();
  /// Counter-clockwise rotation in radians.
  double angle = 0;
  Eigen::Vector2d velocity = Eigen::Vector2d::Zero();
  double angular_velocity = 0;
  /// An applied force (N, world frame, through the centre) and torque (N·m) held constant over
  /// every step beside gravity: v_free = v + h g + h M⁻¹ (force, torque). Zero by default; finite.
  /// A fixed body ignores them; with sleeping on, a body that has a non-zero one never sleeps.
  Eigen::Vector2d force = Eigen::Vector2d::Zero();
  double torque = 0;
  /// A fixed body (a static obstacle, or a kinematic one when its velocity is non-zero) has
  /// infinite mass: contacts and gravity never change its velocity, it moves only by its own
  /// (constant) velocity, and fixed bodies do not touch each other, the ground or planes. Its
  /// `mass` is still validated (> 0) but enters nothing.
  bool fixed = false;
  /// This body's Coulomb coefficient (>= 0) and Newton restitution (in [0, 1]); unset = the
  /// step's `MoreauJeanOptions::friction` and `restitution`. A contact combines its two sides by
  /// `combine_friction` and `combine_restitution`.
  std::optional<double> friction;
  std::optional<double> restitution;

  /// `inertia` when set, otherwise the shape's default.
  [[nodiscard]] double moment_of_inertia() const;
  /// Radius of the smallest disk about the centre that holds the shape (for bounding boxes).
  [[nodiscard]] double bounding_radius() const;
  /// The unit vector of the body's x axis, (cos angle, sin angle).
  [[nodiscard]] Eigen::Vector2d axis() const;
  /// World coordinates of a point given in the body's frame.
  [[nodiscard]] Eigen::Vector2d to_world(const Eigen::Vector2d& local) const;
  /// Throws `InvalidProblem` naming the body and the field: empty name, non-positive or
  /// non-finite mass, size or inertia, non-finite position/angle/velocity.
  void validate() const;
};

/// The half-plane y <= height; its surface normal is +y.
struct Ground {
  double height = 0;
};

/// A static half-plane obstacle (a wall, a slope): the solid is {x : normal · (x − point) <= 0},
/// and `normal` (any finite non-zero vector, normalized where it is used) points out of the solid. Every non-fixed body touches it like the
/// ground. A slope of angle α rising to the right has normal (−sin α, cos α).
struct Plane {
  /// Free text for messages and CSVs; may be empty.
  std::string name;
  Eigen::Vector2d point = Eigen::Vector2d::Zero();
  Eigen::Vector2d normal = Eigen::Vector2d::UnitY();
  /// As `Body::friction` and `Body::restitution`, for the plane's side of a contact.
  std::optional<double> friction;
  std::optional<double> restitution;

  /// The unit outward normal.
  [[nodiscard]] Eigen::Vector2d unit_normal() const { return normal.normalized(); }
};

/// The Coulomb coefficient of a contact from its two sides (unset: `fallback`, the scene's): the
/// geometric mean √(μ_a μ_b), Box2D's rule (a frictionless side makes the contact frictionless);
/// exactly `fallback` when neither side sets one.
[[nodiscard]] double combine_friction(const std::optional<double>& a, const std::optional<double>& b,
                                      double fallback);
/// The restitution of a contact from its two sides: the larger, max(e_a, e_b) (a bouncy ball
/// bounces on a dead floor), unset sides taking `fallback`.
[[nodiscard]] double combine_restitution(const std::optional<double>& a, const std::optional<double>& b,
                                         double fallback);

/// The impulse a contact carried in the last step, kept to warm-start the next one. A contact is
/// the same contact in the next step when it joins the same two bodies and comes at the same
/// place in detection's list of that pair's contacts (`ordinal`: 0 for the first, 1 for the
/// second; a box on a face has two).
struct ContactImpulse {
  int body_a = 0;
  int body_b = -1;
  int ordinal = 0;
  double normal = 0;   ///< N·s
  double tangent = 0;  ///< N·s, along `Contact::tangent()`
  /// The split impulse's multiplier of the contact (the drift correction's pseudo-impulse, N·s;
  /// `StepReport::split_impulse`): the start of the next step's split where it is solved by sweeps.
  double split = 0;
};

/// An end of one rod against another rod's length, as detection last found it: the side of the
/// other rod the end was on. A rod has no thickness, so once an end has passed the other rod's
/// line (an impact's overshoot, O(h·v)), geometry alone would put it on the far side; detection
/// keeps the side it remembers, and the pass shows as an overlap that the step corrects.
struct RodSide {
  int rod = 0;    ///< the body whose end it is
  int end = 0;    ///< 0: the end at −L/2 along the rod's axis, 1: at +L/2
  int other = 0;  ///< the rod whose length it meets
  int side = 1;   ///< +1: on the side of the other rod's left normal (−t_y, t_x), t its axis; −1: the other
};

/// Bodies and an optional ground: the state that time stepping advances.
struct World {
  std::vector<Body> bodies;
  std::optional<Ground> ground;
  /// Walls and slopes (static half-planes), beside the ground.
  std::vector<Plane> planes;
  /// The impulses of the last step's active contacts (written by `moreau_jean_step`, read by the
  /// next step as its warm start where the step's method takes one; empty at the start).
  /// Clearing it only costs the next step some iterations.
  std::vector<ContactImpulse> impulses;
  /// With `MoreauJeanOptions::sleeping`: how long each body has been at rest (seconds, one per body;
  /// written by `moreau_jean_step`, empty at the start). Ignored otherwise.
  std::vector<double> rest_time;
  /// The sides of the rod ends that detection found near another rod's length in the last step
  /// (written by `moreau_jean_step`, read by `detect_contacts`; empty at the start). Clear it when
  /// moving bodies by hand (Python's `set_body` and `state` do), since an entry would otherwise
  /// keep an end on a side it no longer is; clearing it while an end has just passed a rod's line
  /// lets that end through.
  std::vector<RodSide> rod_sides;

  /// Validates every body, requires unique names, a finite ground height, planes with a finite
  /// point and a finite non-zero normal, friction >= 0 and restitution in [0, 1] where set.
  void validate() const;
  /// Number of generalised coordinates, 3 per body.
  [[nodiscard]] Eigen::Index dofs() const { return 3 * static_cast<Eigen::Index>(bodies.size()); }
};

/// The stacked generalised velocities (vx, vy, omega) of every body, 3 per body.
[[nodiscard]] Eigen::VectorXd generalized_velocity(const std::vector<Body>& bodies);
/// The diagonal of M⁻¹: (1/m, 1/m, 1/I) per body, and (0, 0, 0) for a fixed body.
[[nodiscard]] Eigen::VectorXd inverse_mass_diagonal(const std::vector<Body>& bodies);
/// What a step of length h adds to a free body's (vx, vy, ω) before contact: h g + h M⁻¹ (force,
/// torque), from gravity and the body's applied force and torque (a fixed body's caller skips it).
[[nodiscard]] Eigen::Vector3d free_velocity_change(const Body& body, const Eigen::Vector2d& gravity, double h);

}  // namespace perp::contact
