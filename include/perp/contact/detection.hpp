#pragma once
/// \file
/// Contact detection with signed gaps ([chapter] §1.5: g_N > 0 apart, = 0 touching, < 0 overlap).
///
/// Pairs handled: every shape against the ground and the planes; disk–disk; disk–box; box–box;
/// rod–disk; rod–box; rod–rod (fixed bodies touch only bodies that are not fixed; a rod end against another rod keeps its side in `World::rod_sides`). A contact is reported when its gap is at most `margin`, so that time stepping can
/// decide activation from the predicted gap.

#include <Eigen/Dense>
#include <cstddef>
#include <optional>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/sides.hpp"

namespace perp::contact {

/// One contact point between body_a and body_b (or the ground). The normal points from b towards
/// a: a positive normal force pushes a along +normal and b along −normal.
struct Contact {
  int body_a = 0;
  int body_b = kGround;
  /// World position of the contact point (on body a's surface).
  Eigen::Vector2d point = Eigen::Vector2d::Zero();
  /// Unit normal, from b towards a (for the ground and a plane, its outward normal).
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

/// The base of `contact_limit`: 8192.
inline constexpr std::size_t kMaxContacts = 8192;
/// The most contacts one detection of `world` returns: kMaxContacts + 16 per body (a disk among
/// equal disks touches at most 6, a box on a face 2 per neighbour), so memory stays O(bodies).
[[nodiscard]] std::size_t contact_limit(const World& world);

/// Every contact of `world` with gap <= margin (margin >= 0, finite). Box–box contacts are the
/// incident box's face clipped against the reference face found by the separating-axis test
/// (corners of one box against a face of the other; a corner of the reference box shows up as
/// the clip point on the incident face). Pairs are found on a uniform grid of cells (bodies much
/// larger than most are checked against all), so large piles cost O(N log N + contacts). Throws
/// `InvalidProblem` for a bad margin.
///
/// At most `contact_limit(world)` contacts: past that (bodies piled inside each other give one contact
/// per overlapping pair, N² of them) it throws `InvalidProblem` naming the deepest overlap.
[[nodiscard]] std::vector<Contact> detect_contacts(const World& world, double margin = 0);

/// The same, with the bodies marked in `frozen` (one entry per body, or empty for none) treated as
/// fixed: no contact between two of them, nor between one of them and the ground or a plane, is
/// looked for; their contacts with the other bodies are. Time stepping passes the bodies that
/// slept through the last step, so that a sleeping pile costs no narrow phase. Throws
/// `InvalidProblem` when `frozen` has another size.
[[nodiscard]] std::vector<Contact> detect_contacts(const World& world, double margin, const std::vector<char>& frozen);

/// The sides of the rod ends in `contacts` (found by `detect_contacts` on `world`) that meet another
/// rod's length strictly inside it: what time stepping keeps in `World::rod_sides` for the next
/// detection, so that an end an impact carried past a rod's line is still seen from its side.
[[nodiscard]] std::vector<RodSide> rod_sides_of(const World& world, const std::vector<Contact>& contacts);

}  // namespace perp::contact
