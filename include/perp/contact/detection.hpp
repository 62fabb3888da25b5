#pragma once
/// \file
/// Contact detection with signed gaps (chapter §1.5: g_N > 0 apart, = 0 touching, < 0 overlap).
///
/// Pairs handled: every shape against the ground; disk–disk; disk–box; box–box. Rods touch the
/// ground only. A contact is reported when its gap is at most `margin`, so that time stepping can
/// decide activation from the predicted gap.

#include <Eigen/Dense>
#include <cstddef>
#include <optional>
#include <vector>

#include "perp/contact/body.hpp"

namespace perp::contact {

/// `Contact::body_b` for a contact with the ground.
inline constexpr int kGround = -1;

/// One contact point between body_a and body_b (or the ground). The normal points from b towards
/// a: a positive normal force pushes a along +normal and b along −normal.
struct Contact {
  int body_a = 0;
  int body_b = kGround;
  /// World position of the contact point (on body a's surface).
  Eigen::Vector2d point = Eigen::Vector2d::Zero();
  /// Unit normal, from b towards a.
  Eigen::Vector2d normal = Eigen::Vector2d::UnitY();
  /// Signed gap along the normal (negative: overlap).
  double gap = 0;
  /// Lever arms: the contact point minus the centre of a, and of b (zero for the ground).
  Eigen::Vector2d arm_a = Eigen::Vector2d::Zero();
  Eigen::Vector2d arm_b = Eigen::Vector2d::Zero();

  /// The tangent (normal.y, −normal.x): for the ground, +x. Tangential forces and velocities are
  /// measured along it.
  [[nodiscard]] Eigen::Vector2d tangent() const { return {normal.y(), -normal.x()}; }
};

/// The most contacts one detection returns: 8192 (each step solves a dense LCP of that size).
inline constexpr std::size_t kMaxContacts = 8192;

/// Every contact of `world` with gap <= margin (margin >= 0, finite). Box–box contacts are the
/// incident box's face clipped against the reference face found by the separating-axis test
/// (corners of one box against a face of the other; a corner of the reference box shows up as
/// the clip point on the incident face). Pairs are found by a sweep over x-extents, so large
/// piles cost O(N log N + contacts). Throws `InvalidProblem` for a bad margin.
///
/// At most `kMaxContacts` contacts: past that (bodies piled inside each other give one contact
/// per overlapping pair, N² of them) it throws `InvalidProblem` naming the deepest overlap.
[[nodiscard]] std::vector<Contact> detect_contacts(const World& world, double margin = 0);

}  // namespace perp::contact
