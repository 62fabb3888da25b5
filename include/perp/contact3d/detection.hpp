#pragma once
/// \file
/// Contact detection in 3D: which points of the bodies touch (or nearly touch) each other, the
/// ground and the planes, with a signed gap and a frame (n, t1, t2) per point.
///
/// - Bodies against the ground and the planes: closed forms (sphere: its lowest point; box: each of
///   its 8 corners; capsule: the lowest point of each end ball; cylinder: the lowest rim point of
///   each cap, or 4 rim points at the body's ±x, ±y of the cap that faces the plane when the axis
///   is along the normal to within 1e-6 rad), so that a box resting flat on a plane has four
///   contacts.
/// - Body against body (fixed bodies, such as static boxes, included; two fixed bodies never
///   touch): FCL 0.7 (Debian `libfcl-dev`). The broad phase is FCL's dynamic AABB tree, built once a
///   call over the bodies' bounding boxes grown by the margin (O(N log N)); the narrow phase is
///   `fcl::collide` on the pair, body a's shape grown by the margin so that near contacts (gap <=
///   margin) are found too: gap = margin − FCL's depth. FCL's box–box test returns a manifold
///   (up to 4 points for a face on a face); its other pairs return one point.

#include <Eigen/Dense>
#include <vector>

#include "perp/contact/sides.hpp"
#include "perp/contact3d/body.hpp"

namespace perp::contact3d {

/// `Contact::body_b` of a contact with the ground; planes are −2 − (index in `World::planes`): the
/// planar numbering (perp/contact/sides.hpp).
using contact::kGround;
using contact::plane_id;
using contact::plane_of;

struct Contact {
  int body_a = 0;
  /// The other body's index, or `kGround`, or −2 − p for plane p.
  int body_b = kGround;
  /// The contact's identity within its pair, kept from step to step for the warm start: the box
  /// corner (0–7, bit i set = +half edge along body axis i), the capsule end (0: −z, 1: +z), the
  /// cylinder cap (0, 1) times 8 plus the rim point (0–3, or 4 for the lowest point), 0 for a
  /// sphere; for FCL's body–body contacts, the point's place in FCL's list for the pair.
  int feature = 0;
  /// The contact point on body a (world frame).
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  /// Unit normal from body b to body a (an impulse Λ_N n pushes a away from b).
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  /// Orthonormal tangents: (n, t1, t2) is a right-handed frame (t1 × t2 = n).
  Eigen::Vector3d tangent1 = Eigen::Vector3d::UnitX();
  Eigen::Vector3d tangent2 = Eigen::Vector3d::UnitY();
  /// Signed distance along n (m): negative = penetration.
  double gap = 0;
  /// Contact point minus each body's centre (arm_b is zero for the ground and planes).
  Eigen::Vector3d arm_a = Eigen::Vector3d::Zero();
  Eigen::Vector3d arm_b = Eigen::Vector3d::Zero();
};

/// (t1, t2) for the unit normal n: t1 = the unit vector along n × e, e the first coordinate axis
/// (x, y, z) whose |n_k| is within 0.1 of the smallest, and t2 = n × t1 (so that a contact keeps
/// its frame between steps, also where round-off tilts its normal off a coordinate axis).
void tangent_frame(const Eigen::Vector3d& n, Eigen::Vector3d& t1, Eigen::Vector3d& t2);

/// Every contact with gap <= `margin` (m, finite, >= 0): each non-fixed body against the ground and
/// the planes, then the pairs of bodies (at least one not fixed) in the order the broad phase gives
/// them, body_a < body_b. Does not validate the world.
[[nodiscard]] std::vector<Contact> detect_contacts(const World& world, double margin);
/// The same, where `frozen` (empty, or one per body) marks bodies left out of the search against
/// each other, against fixed bodies and against the ground and the planes (those that slept through
/// the last step: StepOptions::sleeping); a frozen body is still searched against every other body.
[[nodiscard]] std::vector<Contact> detect_contacts(const World& world, double margin, const std::vector<char>& frozen);

}  // namespace perp::contact3d
