#include "perp/contact/detection.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "perp/core/error.hpp"

namespace perp::contact {
namespace {

using Eigen::Vector2d;
using Polygon = std::array<Vector2d, 4>;

/// Appends a contact, filling the lever arms from the body centres.
void add_contact(std::vector<Contact>& out, const World& world, int a, int b, const Vector2d& point,
                 const Vector2d& normal, double gap) {
  Contact contact;
  contact.body_a = a;
  contact.body_b = b;
  contact.point = point;
  contact.normal = normal;
  contact.gap = gap;
  contact.arm_a = point - world.bodies[static_cast<std::size_t>(a)].position;
  if (b != kGround) contact.arm_b = point - world.bodies[static_cast<std::size_t>(b)].position;
  out.push_back(contact);
}

/// Corners of a box in counter-clockwise order, starting bottom-left in the body frame; face k
/// runs from corner k to corner k+1, so its outward normal is the edge turned clockwise.
Polygon box_corners(const Body& body, const Box& box) {
  const double hx = box.width / 2;
  const double hy = box.height / 2;
  return {body.to_world({-hx, -hy}), body.to_world({hx, -hy}), body.to_world({hx, hy}), body.to_world({-hx, hy})};
}

Vector2d face_normal(const Polygon& poly, int face) {
  const Vector2d edge = poly[static_cast<std::size_t>((face + 1) % 4)] - poly[static_cast<std::size_t>(face)];
  return Vector2d(edge.y(), -edge.x()).normalized();
}

void ground_contacts(std::vector<Contact>& out, const World& world, int index, double margin) {
  const Body& body = world.bodies[static_cast<std::size_t>(index)];
  const double height = world.ground->height;
  if (body.position.y() - body.bounding_radius() - height > margin) return;
  const Vector2d up = Vector2d::UnitY();
  auto vertex = [&](const Vector2d& point) {
    const double gap = point.y() - height;
    if (gap <= margin) add_contact(out, world, index, kGround, point, up, gap);
  };
  if (const auto* disk = std::get_if<Disk>(&body.shape)) {
    vertex(body.position - disk->radius * up);
  } else if (const auto* box = std::get_if<Box>(&body.shape)) {
    for (const Vector2d& corner : box_corners(body, *box)) vertex(corner);
  } else if (const auto* rod = std::get_if<Rod>(&body.shape)) {
    vertex(body.to_world({-rod->length / 2, 0}));
    vertex(body.to_world({rod->length / 2, 0}));
  }
}

void disk_disk(std::vector<Contact>& out, const World& world, int a, int b, double margin) {
  const Body& body_a = world.bodies[static_cast<std::size_t>(a)];
  const Body& body_b = world.bodies[static_cast<std::size_t>(b)];
  const double ra = std::get<Disk>(body_a.shape).radius;
  const double rb = std::get<Disk>(body_b.shape).radius;
  const Vector2d d = body_a.position - body_b.position;
  const double distance = d.norm();
  if (distance - ra - rb > margin) return;
  // Coincident centres have no normal; +y is as good as any and keeps the result finite.
  const Vector2d normal = distance > 0 ? Vector2d(d / distance) : Vector2d::UnitY();
  add_contact(out, world, a, b, body_a.position - ra * normal, normal, distance - ra - rb);
}

/// Disk `a` against box `b`: the closest point of the rectangle to the disk's centre.
void disk_box(std::vector<Contact>& out, const World& world, int a, int b, double margin) {
  const Body& disk_body = world.bodies[static_cast<std::size_t>(a)];
  const Body& box_body = world.bodies[static_cast<std::size_t>(b)];
  const double radius = std::get<Disk>(disk_body.shape).radius;
  const Box& box = std::get<Box>(box_body.shape);
  const double hx = box.width / 2;
  const double hy = box.height / 2;
  const double c = std::cos(box_body.angle);
  const double s = std::sin(box_body.angle);
  const Vector2d d = disk_body.position - box_body.position;
  const Vector2d local(c * d.x() + s * d.y(), -s * d.x() + c * d.y());
  const Vector2d clamped(std::clamp(local.x(), -hx, hx), std::clamp(local.y(), -hy, hy));
  Vector2d normal_local;
  double gap = 0;
  if (local != clamped) {
    const Vector2d diff = local - clamped;
    const double distance = diff.norm();
    normal_local = diff / distance;
    gap = distance - radius;
  } else {
    // Centre inside the box: leave through the nearest face.
    const double depth_x = hx - std::abs(local.x());
    const double depth_y = hy - std::abs(local.y());
    if (depth_x < depth_y) {
      normal_local = Vector2d(local.x() >= 0 ? 1 : -1, 0);
      gap = -depth_x - radius;
    } else {
      normal_local = Vector2d(0, local.y() >= 0 ? 1 : -1);
      gap = -depth_y - radius;
    }
  }
  if (gap > margin) return;
  const Vector2d normal(c * normal_local.x() - s * normal_local.y(), s * normal_local.x() + c * normal_local.y());
  add_contact(out, world, a, b, disk_body.position - radius * normal, normal, gap);
}

/// Largest separation of `other`'s corners from a face of `reference`, and that face.
std::pair<double, int> max_face_separation(const Polygon& reference, const Polygon& other) {
  double best = -INFINITY;
  int best_face = 0;
  for (int face = 0; face < 4; ++face) {
    const Vector2d n = face_normal(reference, face);
    double separation = INFINITY;
    for (const Vector2d& corner : other) {
      separation = std::min(separation, n.dot(corner - reference[static_cast<std::size_t>(face)]));
    }
    if (separation > best) {
      best = separation;
      best_face = face;
    }
  }
  return {best, best_face};
}

/// Keeps the part of segment [p, q] where f >= 0 (f affine); false when nothing is left.
template <class F>
bool clip_segment(Vector2d& p, Vector2d& q, F f) {
  const double fp = f(p);
  const double fq = f(q);
  if (fp < 0 && fq < 0) return false;
  if (fp < 0) p = p + (q - p) * (fp / (fp - fq));
  if (fq < 0) q = q + (p - q) * (fq / (fq - fp));
  return true;
}

void box_box(std::vector<Contact>& out, const World& world, int a, int b, double margin) {
  const Body& body_a = world.bodies[static_cast<std::size_t>(a)];
  const Body& body_b = world.bodies[static_cast<std::size_t>(b)];
  const Polygon poly_a = box_corners(body_a, std::get<Box>(body_a.shape));
  const Polygon poly_b = box_corners(body_b, std::get<Box>(body_b.shape));
  const auto [separation_a, face_a] = max_face_separation(poly_a, poly_b);
  const auto [separation_b, face_b] = max_face_separation(poly_b, poly_a);
  if (std::max(separation_a, separation_b) > margin) return;  // a separating axis

  // The reference face is the one of least overlap; ties (stacked boxes) go to a, so that the
  // choice does not flicker between steps.
  const double scale = std::max(body_a.bounding_radius(), body_b.bounding_radius());
  const bool reference_is_a = separation_a >= separation_b - 1e-9 * scale;
  const Polygon& reference = reference_is_a ? poly_a : poly_b;
  const Polygon& incident = reference_is_a ? poly_b : poly_a;
  const int reference_face = reference_is_a ? face_a : face_b;
  const int reference_body = reference_is_a ? a : b;
  const int incident_body = reference_is_a ? b : a;

  const Vector2d normal = face_normal(reference, reference_face);
  int incident_face = 0;
  double most_opposed = INFINITY;
  for (int face = 0; face < 4; ++face) {
    const double alignment = normal.dot(face_normal(incident, face));
    if (alignment < most_opposed) {
      most_opposed = alignment;
      incident_face = face;
    }
  }
  Vector2d p = incident[static_cast<std::size_t>(incident_face)];
  Vector2d q = incident[static_cast<std::size_t>((incident_face + 1) % 4)];
  const Vector2d r0 = reference[static_cast<std::size_t>(reference_face)];
  const Vector2d r1 = reference[static_cast<std::size_t>((reference_face + 1) % 4)];
  const Vector2d along = (r1 - r0).normalized();
  // Clip the incident face to the reference face's extent (its two side planes).
  if (!clip_segment(p, q, [&](const Vector2d& x) { return along.dot(x - r0); })) return;
  if (!clip_segment(p, q, [&](const Vector2d& x) { return along.dot(r1 - x); })) return;
  for (const Vector2d& point : {p, q}) {
    const double gap = normal.dot(point - r0);
    if (gap <= margin) add_contact(out, world, incident_body, reference_body, point, normal, gap);
  }
}

void pair_contacts(std::vector<Contact>& out, const World& world, int i, int j, double margin) {
  const Shape& si = world.bodies[static_cast<std::size_t>(i)].shape;
  const Shape& sj = world.bodies[static_cast<std::size_t>(j)].shape;
  const bool disk_i = std::holds_alternative<Disk>(si);
  const bool disk_j = std::holds_alternative<Disk>(sj);
  const bool box_i = std::holds_alternative<Box>(si);
  const bool box_j = std::holds_alternative<Box>(sj);
  if (disk_i && disk_j) {
    disk_disk(out, world, i, j, margin);
  } else if (disk_i && box_j) {
    disk_box(out, world, i, j, margin);
  } else if (box_i && disk_j) {
    disk_box(out, world, j, i, margin);
  } else if (box_i && box_j) {
    box_box(out, world, i, j, margin);
  }
  // Rods meet the ground only (documented in body.hpp).
}

/// Overlapping bodies make the contact count grow as N²: refuse past kMaxContacts, naming the
/// deepest overlap (the likeliest cause), before the dense LCP of that size is ever built.
[[noreturn]] void refuse_contact_count(const std::vector<Contact>& contacts, const World& world) {
  const auto deepest = std::min_element(contacts.begin(), contacts.end(),
                                        [](const Contact& x, const Contact& y) { return x.gap < y.gap; });
  const auto name = [&](int index) {
    return index == kGround ? std::string("the ground")
                            : "'" + world.bodies[static_cast<std::size_t>(index)].name + "'";
  };
  char depth[32];
  std::snprintf(depth, sizeof depth, "%g", -deepest->gap);
  throw InvalidProblem("detect_contacts: more than " + std::to_string(kMaxContacts) +
                       " contacts at once (the most one step solves, as a dense LCP); the deepest overlap is " +
                       name(deepest->body_a) + " with " + name(deepest->body_b) + " by " + depth +
                       " m: bodies that start inside each other collide pairwise, separate them");
}

}  // namespace

std::vector<Contact> detect_contacts(const World& world, double margin) {
  if (!std::isfinite(margin) || margin < 0) {
    throw InvalidProblem("detect_contacts: margin must be finite and >= 0, got " + std::to_string(margin));
  }
  std::vector<Contact> contacts;
  const auto count = static_cast<int>(world.bodies.size());
  if (world.ground) {
    for (int i = 0; i < count; ++i) ground_contacts(contacts, world, i, margin);
  }
  // Sweep and prune along x over bounding disks.
  std::vector<int> order(static_cast<std::size_t>(count));
  std::iota(order.begin(), order.end(), 0);
  auto low = [&](int i) {
    const Body& body = world.bodies[static_cast<std::size_t>(i)];
    return body.position.x() - body.bounding_radius();
  };
  std::sort(order.begin(), order.end(), [&](int i, int j) { return low(i) < low(j) || (low(i) == low(j) && i < j); });
  for (std::size_t u = 0; u < order.size(); ++u) {
    const int i = order[u];
    const Body& bi = world.bodies[static_cast<std::size_t>(i)];
    const double high_i = bi.position.x() + bi.bounding_radius() + margin;
    for (std::size_t k = u + 1; k < order.size() && low(order[k]) <= high_i; ++k) {
      const int j = order[k];
      const Body& bj = world.bodies[static_cast<std::size_t>(j)];
      if (std::abs(bi.position.y() - bj.position.y()) > bi.bounding_radius() + bj.bounding_radius() + margin) continue;
      pair_contacts(contacts, world, std::min(i, j), std::max(i, j), margin);
      if (contacts.size() > kMaxContacts) refuse_contact_count(contacts, world);
    }
  }
  if (contacts.size() > kMaxContacts) refuse_contact_count(contacts, world);
  return contacts;
}

}  // namespace perp::contact
