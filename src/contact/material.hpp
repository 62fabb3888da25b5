#pragma once
// The material of one side of a contact (not installed): what moreau_jean.cpp combines into a
// contact's μ and e, and what step_sensitivity.cpp differentiates through the same rules.
#include <optional>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"

namespace perp::contact::detail {

/// A body's, a plane's, or the ground's (none of its own).
struct Side {
  std::optional<double> friction;
  std::optional<double> restitution;
};

inline Side side_of(const World& world, int index) {
  if (index >= 0) {
    const Body& body = world.bodies[static_cast<std::size_t>(index)];
    return {body.friction, body.restitution};
  }
  if (index == kGround) return {};
  const Plane& plane = world.planes[plane_of(index)];
  return {plane.friction, plane.restitution};
}

}  // namespace perp::contact::detail
