#pragma once
// Private helpers of the contact layer (not installed): the planar cross product, and the material
// of one side of a contact (what moreau_jean.cpp, and contact3d's, combine into a contact's μ and e,
// and what rollout.cpp differentiates through the same rules).
#include <optional>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"

namespace perp::contact::detail {

/// The planar cross product a × b = a_x b_y − a_y b_x (so that (ω × r)·d = ω (r × d)).
inline double cross(const Eigen::Vector2d& a, const Eigen::Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }

/// A body's, a plane's, or the ground's (none of its own).
struct Side {
  std::optional<double> friction;
  std::optional<double> restitution;
};

/// The side `index` of a contact (its `body_b` numbering, perp/contact/sides.hpp) in a planar
/// `World` or a `contact3d::World`: both number their sides alike and give bodies and planes an
/// optional friction and restitution.
template <class AnyWorld>
Side side_of(const AnyWorld& world, int index) {
  if (index >= 0) {
    const auto& body = world.bodies[static_cast<std::size_t>(index)];
    return {body.friction, body.restitution};
  }
  if (index == kGround) return {};
  const auto& plane = world.planes[plane_of(index)];
  return {plane.friction, plane.restitution};
}

}  // namespace perp::contact::detail
