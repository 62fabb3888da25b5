#include "perp/contact/detection.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>
#include <cstdio>
#include <numeric>
#include <string>

#include "perp/core/error.hpp"
#include "sleeping.hpp"
#include "step_scratch.hpp"

namespace perp::contact {
namespace {

using Eigen::Vector2d;
using Polygon = std::array<Vector2d, 4>;

/// Up to this many bodies the broad phase tests every pair (45 box tests for 10 bodies, 120 for 16) instead of
/// building the grid: for a 10-disk world its sort, keys and hash map cost more than the tests.
constexpr int kAllPairsMaxBodies = 16;

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
  if (b >= 0) contact.arm_b = point - world.bodies[static_cast<std::size_t>(b)].position;
  out.push_back(contact);
}

/// Corners of a box in counter-clockwise order, starting bottom-left in the body frame; face k
/// runs from corner k to corner k+1, so its outward normal is the edge turned clockwise.
/// The same arithmetic as Body::to_world, with the rotation's cosine and sine taken once for the
/// four corners (box–box pairs made sin and cos a quarter of a pyramid's detection).
Polygon box_corners(const Body& body, const Box& box) {
  const double hx = box.width / 2;
  const double hy = box.height / 2;
  const double c = std::cos(body.angle);
  const double s = std::sin(body.angle);
  const auto corner = [&](double x, double y) {
    return Vector2d(body.position + Vector2d(c * x - s * y, s * x + c * y));
  };
  return {corner(-hx, -hy), corner(hx, -hy), corner(hx, hy), corner(-hx, hy)};
}

Vector2d face_normal(const Polygon& poly, int face) {
  const Vector2d edge = poly[static_cast<std::size_t>((face + 1) % 4)] - poly[static_cast<std::size_t>(face)];
  return Vector2d(edge.y(), -edge.x()).normalized();
}

/// Contacts of body `index` with the static half-plane {x : normal · (x − origin) <= 0}, reported
/// with `id` as body_b (kGround, or a plane's id).
void plane_contacts(std::vector<Contact>& out, const World& world, int index, int id, const Vector2d& origin,
                    const Vector2d& normal, double margin) {
  const Body& body = world.bodies[static_cast<std::size_t>(index)];
  if (normal.dot(body.position - origin) - body.bounding_radius() > margin) return;
  auto vertex = [&](const Vector2d& point) {
    const double gap = normal.dot(point - origin);
    if (gap <= margin) add_contact(out, world, index, id, point, normal, gap);
  };
  if (const auto* disk = std::get_if<Disk>(&body.shape)) {
    vertex(body.position - disk->radius * normal);
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

/// A disk of `radius` centred at `centre`, belonging to body `a`, against box `b`: the closest
/// point of the rectangle to the centre (a rod's end point is a disk of radius 0).
void round_box(std::vector<Contact>& out, const World& world, int a, const Vector2d& centre, double radius, int b,
               double margin) {
  const Body& box_body = world.bodies[static_cast<std::size_t>(b)];
  const Box& box = std::get<Box>(box_body.shape);
  const double hx = box.width / 2;
  const double hy = box.height / 2;
  const double c = std::cos(box_body.angle);
  const double s = std::sin(box_body.angle);
  const Vector2d d = centre - box_body.position;
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
  add_contact(out, world, a, b, centre - radius * normal, normal, gap);
}

void disk_box(std::vector<Contact>& out, const World& world, int a, int b, double margin) {
  const Body& disk_body = world.bodies[static_cast<std::size_t>(a)];
  round_box(out, world, a, disk_body.position, std::get<Disk>(disk_body.shape).radius, b, margin);
}

/// The end points of rod `a`.
std::array<Vector2d, 2> rod_ends(const Body& body) {
  const double half = std::get<Rod>(body.shape).length / 2;
  return {body.to_world({-half, 0}), body.to_world({half, 0})};
}

/// A disk of `radius` at `centre` (body `a`) against rod `b`: the closest point of the segment.
/// `interior_only`: only where that point lies strictly inside the segment (a box corner against
/// the rod; the rod's end points are handled against the box), with the normal across the rod on
/// the side of `side` (the box's centre: a corner that went past the rod in an impact is then an
/// overlap, not a contact on the other side).
void round_rod(std::vector<Contact>& out, const World& world, int a, const Vector2d& centre, double radius, int b,
               double margin, bool interior_only, const Vector2d& side) {
  const Body& rod_body = world.bodies[static_cast<std::size_t>(b)];
  const auto [p, q] = rod_ends(rod_body);
  const Vector2d along = q - p;
  const double t = std::clamp(along.dot(centre - p) / along.squaredNorm(), 0.0, 1.0);
  if (interior_only && (t <= 0 || t >= 1)) return;
  const Vector2d closest = p + t * along;
  const Vector2d d = centre - closest;
  const double distance = d.norm();
  Vector2d normal;
  if (interior_only || distance == 0) {
    // Across the rod, on the side of `side` (the rod's left normal when on it).
    const Vector2d left = Vector2d(-along.y(), along.x()).normalized();
    normal = left.dot(side - closest) >= 0 ? left : Vector2d(-left);
  } else {
    normal = d / distance;
  }
  const double gap = normal.dot(d) - radius;
  if (gap > margin) return;
  add_contact(out, world, a, b, centre - radius * normal, normal, gap);
}

void disk_rod(std::vector<Contact>& out, const World& world, int a, int b, double margin) {
  const Body& disk_body = world.bodies[static_cast<std::size_t>(a)];
  round_rod(out, world, a, disk_body.position, std::get<Disk>(disk_body.shape).radius, b, margin, false,
            disk_body.position);
}

/// The side `world.rod_sides` remembers for end `end` of rod `a` against rod `b`, or 0.
int remembered_side(const World& world, int a, int end, int b) {
  for (const RodSide& memory : world.rod_sides) {
    if (memory.rod == a && memory.end == end && memory.other == b) return memory.side;
  }
  return 0;
}

/// End `end` of rod `a` against rod `b`: the closest point of b's segment (strictly inside it
/// where `interior_only`). Against b's length the normal is across b, on the remembered side where
/// there is one and else on the side the end is on; against b's end, along the line of the two
/// ends (two ends at one point give no direction and no contact).
void rod_end_rod(std::vector<Contact>& out, const World& world, int a, int end, int b, double margin,
                 bool interior_only) {
  const Vector2d point = rod_ends(world.bodies[static_cast<std::size_t>(a)])[static_cast<std::size_t>(end)];
  const auto [p, q] = rod_ends(world.bodies[static_cast<std::size_t>(b)]);
  const Vector2d along = q - p;
  const double t = std::clamp(along.dot(point - p) / along.squaredNorm(), 0.0, 1.0);
  const bool inside = t > 0 && t < 1;
  if (interior_only && !inside) return;
  const Vector2d d = point - (p + t * along);
  Vector2d normal;
  if (inside) {
    const Vector2d left = Vector2d(-along.y(), along.x()).normalized();
    int side = remembered_side(world, a, end, b);
    if (side == 0) side = left.dot(d) >= 0 ? 1 : -1;
    normal = side > 0 ? left : Vector2d(-left);
  } else {
    const double distance = d.norm();
    if (distance == 0) return;
    normal = d / distance;
  }
  const double gap = normal.dot(d);
  if (gap > margin) return;
  add_contact(out, world, a, b, point, normal, gap);
}

/// Rod `a` against rod `b`: each end of a against b's closed segment (an end against an end is
/// found here, once), each end of b strictly inside a. Two segments that do not cross come closest
/// at an end of one of them, so these four cover every first touch.
void rod_rod(std::vector<Contact>& out, const World& world, int a, int b, double margin) {
  for (int end = 0; end < 2; ++end) rod_end_rod(out, world, a, end, b, margin, false);
  for (int end = 0; end < 2; ++end) rod_end_rod(out, world, b, end, a, margin, true);
}

/// Rod `a` against box `b`: the rod's end points against the box, and the box's corners against
/// the rod's length.
void rod_box(std::vector<Contact>& out, const World& world, int a, int b, double margin) {
  for (const Vector2d& end : rod_ends(world.bodies[static_cast<std::size_t>(a)])) {
    round_box(out, world, a, end, 0.0, b, margin);
  }
  const Body& box_body = world.bodies[static_cast<std::size_t>(b)];
  for (const Vector2d& corner : box_corners(box_body, std::get<Box>(box_body.shape))) {
    round_rod(out, world, b, corner, 0.0, a, margin, true, box_body.position);
  }
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
  const bool rod_i = std::holds_alternative<Rod>(si);
  const bool rod_j = std::holds_alternative<Rod>(sj);
  if (disk_i && disk_j) {
    disk_disk(out, world, i, j, margin);
  } else if (disk_i && box_j) {
    disk_box(out, world, i, j, margin);
  } else if (box_i && disk_j) {
    disk_box(out, world, j, i, margin);
  } else if (box_i && box_j) {
    box_box(out, world, i, j, margin);
  } else if (disk_i && rod_j) {
    disk_rod(out, world, i, j, margin);
  } else if (rod_i && disk_j) {
    disk_rod(out, world, j, i, margin);
  } else if (rod_i && box_j) {
    rod_box(out, world, i, j, margin);
  } else if (box_i && rod_j) {
    rod_box(out, world, j, i, margin);
  } else if (rod_i && rod_j) {
    rod_rod(out, world, i, j, margin);
  }
}

/// Overlapping bodies make the contact count grow as N²: refuse past `contact_limit`, naming the
/// deepest overlap (the likeliest cause), before a problem of that size is ever built.
[[noreturn]] void refuse_contact_count(const std::vector<Contact>& contacts, const World& world, std::size_t cap) {
  const auto deepest = std::min_element(contacts.begin(), contacts.end(),
                                        [](const Contact& x, const Contact& y) { return x.gap < y.gap; });
  const auto name = [&](int index) {
    if (index == kGround) return std::string("the ground");
    if (index < kGround) return "plane " + std::to_string(plane_of(index));
    return "'" + world.bodies[static_cast<std::size_t>(index)].name + "'";
  };
  char depth[32];
  std::snprintf(depth, sizeof depth, "%g", -deepest->gap);
  throw InvalidProblem("detect_contacts: more than " + std::to_string(cap) +
                       " contacts at once (contact_limit: 8192 + 16 per body); the deepest overlap is " +
                       name(deepest->body_a) + " with " + name(deepest->body_b) + " by " + depth +
                       " m: bodies that start inside each other collide pairwise, separate them");
}

/// Whether bodies i and j are a candidate pair: not both held, and their bounding disks (radii
/// `radius[i]`, `radius[j]`) grown by `margin` overlap on both axes.
bool close_pair(const World& world, const double* radius, const std::vector<char>& held, double margin, int i, int j) {
  if (held[static_cast<std::size_t>(i)] && held[static_cast<std::size_t>(j)]) return false;
  const Body& bi = world.bodies[static_cast<std::size_t>(i)];
  const Body& bj = world.bodies[static_cast<std::size_t>(j)];
  const double reach = radius[i] + radius[j] + margin;
  return std::abs(bi.position.x() - bj.position.x()) <= reach && std::abs(bi.position.y() - bj.position.y()) <= reach;
}

/// Calls visit(i, j) for every pair i < j, in increasing order, whose bounding disks grown by
/// `margin` overlap on both axes and that are not both held: the broad phase of a world of at most
/// kAllPairsMaxBodies bodies (every pair tested), without a list.
template <class Visit>
void for_each_close_pair(const World& world, double margin, const std::vector<char>& held, Visit&& visit) {
  const auto count = static_cast<int>(world.bodies.size());
  if (count < 2) return;
  std::array<double, kAllPairsMaxBodies> radius{};
  for (int i = 0; i < count; ++i) radius[static_cast<std::size_t>(i)] = world.bodies[static_cast<std::size_t>(i)].bounding_radius();
  for (int i = 0; i < count; ++i) {
    for (int j = i + 1; j < count; ++j) {
      if (close_pair(world, radius.data(), held, margin, i, j)) visit(i, j);
    }
  }
}

/// The pairs (i < j) whose bounding disks, grown by `margin`, overlap and that are not both held
/// (`held[i]`: fixed, or frozen by the caller), in increasing order. A uniform grid of cells of
/// side s = 2 R + margin, R the largest bounding radius among all but the largest tenth of the
/// bodies (so that one long rod or a wide fixed table does not make every cell huge): a body whose
/// bounding disk fits (2 R_i + margin <= s) is filed under the cell of its centre and meets only the
/// bodies of the 3×3 cells around it; the few larger ones are checked against every body.
/// O(N + pairs) for bodies of similar sizes, where a sweep along x meets O(N^1.5) candidate pairs on
/// a square heap; nothing when every body is held (a pile asleep). Up to kAllPairsMaxBodies bodies
/// detection tests every pair instead (`for_each_close_pair`): the same pairs, which the grid's
/// sort, keys and hash map cost more to find.
std::vector<std::pair<int, int>> candidate_pairs(const World& world, double margin, const std::vector<char>& held) {
  const auto count = static_cast<int>(world.bodies.size());
  std::vector<std::pair<int, int>> pairs;
  if (count < 2 || std::all_of(held.begin(), held.end(), [](char h) { return h != 0; })) return pairs;
  std::vector<double> radius(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) radius[static_cast<std::size_t>(i)] = world.bodies[static_cast<std::size_t>(i)].bounding_radius();
  const auto overlapping = [&](int i, int j) { return close_pair(world, radius.data(), held, margin, i, j); };
  std::vector<double> sorted = radius;
  const auto tenth = static_cast<std::ptrdiff_t>(sorted.size() - 1 - sorted.size() / 10);
  std::nth_element(sorted.begin(), sorted.begin() + tenth, sorted.end());
  const double side = 2 * sorted[static_cast<std::size_t>(tenth)] + margin;
  std::vector<int> large;
  // Cells as (column, row) keys, clamped so that far-out coordinates stay representable (bodies
  // clamped together are merely checked against each other: more work, never a missed pair).
  constexpr double kClamp = 1099511627776.0;  // 2^40 cells
  using Key = std::pair<std::int64_t, std::int64_t>;
  const auto cell = [&](int i) {
    const Eigen::Vector2d& x = world.bodies[static_cast<std::size_t>(i)].position;
    const auto index = [&](double v) {
      const double c = side > 0 ? std::floor(v / side) : 0.0;
      return static_cast<std::int64_t>(std::clamp(c, -kClamp, kClamp));
    };
    return Key{index(x.x()), index(x.y())};
  };
  std::vector<std::pair<Key, int>> filed;
  filed.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    if (!(side > 0) || 2 * radius[static_cast<std::size_t>(i)] + margin > side) {
      large.push_back(i);
    } else {
      filed.emplace_back(cell(i), i);
    }
  }
  std::sort(filed.begin(), filed.end());
  // The run [first, last) of `filed` in each occupied cell.
  struct KeyHash {
    std::size_t operator()(const Key& key) const {
      // In unsigned arithmetic: cells far out (up to ±2^40) would overflow a signed product.
      const auto x = static_cast<std::uint64_t>(key.first);
      const auto y = static_cast<std::uint64_t>(key.second);
      return std::hash<std::uint64_t>{}(x * 73856093u ^ y * 19349663u);
    }
  };
  std::unordered_map<Key, std::pair<std::size_t, std::size_t>, KeyHash> runs;
  runs.reserve(filed.size());
  for (std::size_t u = 0; u < filed.size();) {
    std::size_t end = u;
    while (end < filed.size() && filed[end].first == filed[u].first) ++end;
    runs.emplace(filed[u].first, std::pair{u, end});
    u = end;
  }
  const auto run = [&](const Key& key) {
    const auto found = runs.find(key);
    const auto at = [&](std::size_t k) { return filed.begin() + static_cast<std::ptrdiff_t>(k); };
    return found == runs.end() ? std::pair{filed.end(), filed.end()}
                               : std::pair{at(found->second.first), at(found->second.second)};
  };
  for (std::size_t u = 0; u < filed.size();) {
    const Key key = filed[u].first;
    std::size_t end = u;
    while (end < filed.size() && filed[end].first == key) ++end;
    for (std::int64_t dx = -1; dx <= 1; ++dx) {
      for (std::int64_t dy = -1; dy <= 1; ++dy) {
        const Key neighbour{key.first + dx, key.second + dy};
        if (neighbour < key) continue;  // each pair of cells once
        const auto [first, last] = neighbour == key ? std::pair{filed.begin() + static_cast<std::ptrdiff_t>(u),
                                                                filed.begin() + static_cast<std::ptrdiff_t>(end)}
                                                    : run(neighbour);
        for (std::size_t p = u; p < end; ++p) {
          for (auto q = first; q != last; ++q) {
            const int i = filed[p].second;
            const int j = q->second;
            if (neighbour == key && j <= i) continue;  // within a cell, each pair once
            if (overlapping(i, j)) pairs.emplace_back(std::min(i, j), std::max(i, j));
          }
        }
      }
    }
    u = end;
  }
  for (const int l : large) {
    for (int j = 0; j < count; ++j) {
      if (j == l) continue;
      const bool j_large = 2 * radius[static_cast<std::size_t>(j)] + margin > side || !(side > 0);
      if (j_large && j < l) continue;  // a pair of large bodies once
      if (overlapping(l, j)) pairs.emplace_back(std::min(l, j), std::max(l, j));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

std::size_t contact_limit(const World& world) { return kMaxContacts + 16 * world.bodies.size(); }

std::vector<RodSide> rod_sides_of(const World& world, const std::vector<Contact>& contacts) {
  std::vector<RodSide> sides;
  const auto is_rod = [&](int body) {
    return body >= 0 && std::holds_alternative<Rod>(world.bodies[static_cast<std::size_t>(body)].shape);
  };
  for (const Contact& contact : contacts) {
    if (!is_rod(contact.body_a) || !is_rod(contact.body_b)) continue;
    const auto ends = rod_ends(world.bodies[static_cast<std::size_t>(contact.body_a)]);
    const int end = contact.point == ends[0] ? 0 : contact.point == ends[1] ? 1 : -1;
    if (end < 0) continue;  // not an end of body a (not a contact rod_end_rod made)
    const auto [p, q] = rod_ends(world.bodies[static_cast<std::size_t>(contact.body_b)]);
    const Vector2d along = q - p;
    const double t = along.dot(contact.point - p) / along.squaredNorm();
    if (!(t > 0 && t < 1)) continue;  // against b's end: the normal joins the two ends, no side to keep
    const Vector2d left(-along.y(), along.x());
    sides.push_back({contact.body_a, end, contact.body_b, left.dot(contact.normal) >= 0 ? 1 : -1});
  }
  return sides;
}

std::vector<Contact> detect_contacts(const World& world, double margin) { return detect_contacts(world, margin, {}); }

std::vector<Contact> detect_contacts(const World& world, double margin, const std::vector<char>& frozen) {
  DetectionScratch scratch;
  std::vector<Contact> contacts;
  detect_contacts_into(world, margin, frozen, scratch, contacts);
  return contacts;
}

void detect_contacts_into(const World& world, double margin, const std::vector<char>& frozen,
                          DetectionScratch& scratch, std::vector<Contact>& contacts) {
  if (!std::isfinite(margin) || margin < 0) {
    throw InvalidProblem("detect_contacts: margin must be finite and >= 0, got " + std::to_string(margin));
  }
  if (!frozen.empty() && frozen.size() != world.bodies.size()) {
    throw InvalidProblem("detect_contacts: frozen has " + std::to_string(frozen.size()) + " entries for " +
                         std::to_string(world.bodies.size()) + " bodies (one per body, or none)");
  }
  contacts.clear();
  const std::size_t count = world.bodies.size();
  std::vector<char>& held = scratch.held;
  held.assign(count, 0);
  bool all_held = true;
  for (std::size_t i = 0; i < count; ++i) {
    // Held: still (a static fixed body, or one frozen by the caller). A kinematic body (fixed, with a
    // velocity) is not held: it is searched against frozen bodies, so that it wakes what it meets.
    held[i] = (world.bodies[i].fixed && detail::motionless(world.bodies[i])) || (!frozen.empty() && frozen[i]);
    all_held = all_held && held[i];
  }
  if (all_held) return;  // nothing moves: no pair or surface is searched (a pile asleep)
  contacts.reserve(2 * count);  // a resting pile's count (its vector is not grown step by step)
  const std::size_t cap = contact_limit(world);
  for (std::size_t i = 0; i < count; ++i) {
    if (held[i] || world.bodies[i].fixed) continue;  // fixed bodies do not touch the ground or planes
    const int body = static_cast<int>(i);
    if (world.ground) {
      plane_contacts(contacts, world, body, kGround, Vector2d(0, world.ground->height), Vector2d::UnitY(), margin);
    }
    for (std::size_t p = 0; p < world.planes.size(); ++p) {
      const Plane& plane = world.planes[p];
      plane_contacts(contacts, world, body, plane_id(p), plane.point, plane.unit_normal(), margin);
    }
  }
  const auto narrow = [&](int i, int j) {
    if (world.bodies[static_cast<std::size_t>(i)].fixed && world.bodies[static_cast<std::size_t>(j)].fixed) return;
    pair_contacts(contacts, world, i, j, margin);
    if (contacts.size() > cap) refuse_contact_count(contacts, world, cap);
  };
  if (count <= static_cast<std::size_t>(kAllPairsMaxBodies)) {
    // Few bodies: every pair tested, each searched as it is accepted. The grid emits exactly the
    // pairs `for_each_close_pair` accepts (each cell meets its 3×3 neighbours, the large bodies
    // meet all), in the same increasing order, so the contacts are the same.
    for_each_close_pair(world, margin, held, narrow);
  } else {
    for (const auto& [i, j] : candidate_pairs(world, margin, held)) narrow(i, j);
  }
  if (contacts.size() > cap) refuse_contact_count(contacts, world, cap);
}

}  // namespace perp::contact
