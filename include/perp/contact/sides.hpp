#pragma once
/// \file
/// How a contact names its other side, in the plane and in 3D alike (`perp::contact::Contact` and
/// `perp::contact3d::Contact`, `body_b`): a body's index (>= 0), the ground (`kGround`), or plane p
/// of `World::planes` (−2 − p, so every static surface is < 0).

#include <cstddef>

namespace perp::contact {

/// `Contact::body_b` for a contact with the ground.
inline constexpr int kGround = -1;
/// `Contact::body_b` for a contact with `World::planes[p]`: −2 − p.
[[nodiscard]] inline constexpr int plane_id(std::size_t p) { return -2 - static_cast<int>(p); }
/// The index in `World::planes` of a plane's `body_b` (< kGround).
[[nodiscard]] inline constexpr std::size_t plane_of(int body_b) { return static_cast<std::size_t>(-2 - body_b); }

}  // namespace perp::contact
