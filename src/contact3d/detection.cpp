#include "perp/contact3d/detection.hpp"

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "../contact/sleeping.hpp"

namespace perp::contact3d {
namespace {

/// Below this sine of the angle between a cylinder's axis and a plane's normal, the cylinder stands
/// flat on a cap: its lowest rim point is not unique, and the cap's four rim points are taken.
constexpr double kFlatCap = 1e-6;

/// `tangent_frame` takes the first coordinate axis whose |n_k| is within this of the smallest.
constexpr double kFrameAxisMargin = 0.1;

/// One contact of body `a` with a static surface {x : n·x <= offset} at the body point `point`.
void add_surface_point(const World& world, int a, int surface, int feature, const Eigen::Vector3d& point,
                       const Eigen::Vector3d& n, double offset, double margin, std::vector<Contact>& out) {
  const double gap = n.dot(point) - offset;
  if (!(gap <= margin)) return;
  Contact c;
  c.body_a = a;
  c.body_b = surface;
  c.feature = feature;
  c.point = point;
  c.normal = n;
  tangent_frame(n, c.tangent1, c.tangent2);
  c.gap = gap;
  c.arm_a = point - world.bodies[static_cast<std::size_t>(a)].position;
  out.push_back(c);
}

/// Body `a` against the half-space n·x <= offset (n unit), in closed form.
void surface_contacts(const World& world, int a, int surface, const Eigen::Vector3d& n, double offset, double margin,
                      std::vector<Contact>& out) {
  const Body& body = world.bodies[static_cast<std::size_t>(a)];
  const Shape& shape = body.shape;
  const Eigen::Matrix3d R = body.rotation();
  switch (shape.kind) {
    case ShapeKind::Sphere:
      add_surface_point(world, a, surface, 0, body.position - shape.radius * n, n, offset, margin, out);
      return;
    case ShapeKind::Box:
      for (int corner = 0; corner < 8; ++corner) {
        Eigen::Vector3d local;
        for (int axis = 0; axis < 3; ++axis) {
          local[axis] = ((corner >> axis) & 1 ? 0.5 : -0.5) * shape.size[axis];
        }
        add_surface_point(world, a, surface, corner, body.position + R * local, n, offset, margin, out);
      }
      return;
    case ShapeKind::Capsule: {
      const Eigen::Vector3d axis = R.col(2);
      for (int end = 0; end < 2; ++end) {
        const Eigen::Vector3d centre = body.position + (end == 0 ? -0.5 : 0.5) * shape.length * axis;
        add_surface_point(world, a, surface, end, centre - shape.radius * n, n, offset, margin, out);
      }
      return;
    }
    case ShapeKind::Cylinder: {
      const Eigen::Vector3d axis = R.col(2);
      const Eigen::Vector3d across = n - n.dot(axis) * axis;  // n's part in the caps' plane
      const double tilt = across.norm();
      for (int cap = 0; cap < 2; ++cap) {
        const double side = cap == 0 ? -0.5 : 0.5;
        const Eigen::Vector3d centre = body.position + side * shape.length * axis;
        if (tilt > kFlatCap) {
          add_surface_point(world, a, surface, 8 * cap + 4, centre - shape.radius * across / tilt, n, offset, margin,
                            out);
        } else if (side * n.dot(axis) < 0) {  // the cap that faces the surface
          const std::array<Eigen::Vector3d, 4> rim = {R.col(0), R.col(1), -R.col(0), -R.col(1)};
          for (int k = 0; k < 4; ++k) {
            add_surface_point(world, a, surface, 8 * cap + k, centre + shape.radius * rim[static_cast<std::size_t>(k)],
                              n, offset, margin, out);
          }
        }
      }
      return;
    }
  }
}

/// The FCL geometry of a shape grown by `grow` (m) on every side.
std::shared_ptr<fcl::CollisionGeometryd> fcl_geometry(const Shape& shape, double grow) {
  switch (shape.kind) {
    case ShapeKind::Sphere:
      return std::make_shared<fcl::Sphered>(shape.radius + grow);
    case ShapeKind::Box: {
      const Eigen::Vector3d size = shape.size + Eigen::Vector3d::Constant(2 * grow);
      return std::make_shared<fcl::Boxd>(size.x(), size.y(), size.z());
    }
    case ShapeKind::Capsule:
      return std::make_shared<fcl::Capsuled>(shape.radius + grow, shape.length);
    case ShapeKind::Cylinder:
      return std::make_shared<fcl::Cylinderd>(shape.radius + grow, shape.length + 2 * grow);
  }
  return nullptr;
}

fcl::Transform3d fcl_pose(const Body& body) {
  fcl::Transform3d pose = fcl::Transform3d::Identity();
  pose.translation() = body.position;
  pose.linear() = body.rotation();
  return pose;
}

/// Two face axes of a box pair whose separations differ by at most this (m) tie (below).
constexpr double kFaceTie = 1e-9;

/// The separation of boxes a and b along the unit n (from b to a): n·(c_a − c_b) minus each box's
/// support radius along n; the exact distance where n is the separating axis of largest separation.
double box_separation(const Body& a, const Body& b, const Eigen::Matrix3d& Ra, const Eigen::Matrix3d& Rb,
                      const Eigen::Vector3d& n) {
  double s = n.dot(a.position - b.position);
  for (int i = 0; i < 3; ++i) {
    s -= 0.5 * a.shape.size[i] * std::abs(n.dot(Ra.col(i))) + 0.5 * b.shape.size[i] * std::abs(n.dot(Rb.col(i)));
  }
  return s;
}

/// For two boxes whose contact FCL gave along a face axis, the first face axis (a's x, y, z, then
/// b's) whose separation ties with the largest, where two crossing axes tie. Boxes touching along an
/// edge (two boxes of a layer corner to corner) separate equally along two face axes, and FCL's pick
/// between them follows round-off, so the normal (and with it W) turned by 90° from one step to the
/// next and the warm start did not hold; the first tied axis is the same every step. Returns `n`
/// unchanged otherwise.
Eigen::Vector3d steady_box_normal(const Body& a, const Body& b, const Eigen::Vector3d& n) {
  const Eigen::Matrix3d Ra = a.rotation();
  const Eigen::Matrix3d Rb = b.rotation();
  std::array<Eigen::Vector3d, 6> axes;
  for (int i = 0; i < 3; ++i) {
    axes[static_cast<std::size_t>(i)] = Ra.col(i);
    axes[static_cast<std::size_t>(3 + i)] = Rb.col(i);
  }
  bool face = false;
  for (const Eigen::Vector3d& axis : axes) face = face || std::abs(std::abs(axis.dot(n)) - 1.0) <= 1e-9;
  if (!face) return n;
  std::array<double, 6> separation{};
  double largest = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < axes.size(); ++k) {
    if (axes[k].dot(a.position - b.position) < 0) axes[k] = -axes[k];
    separation[k] = box_separation(a, b, Ra, Rb, axes[k]);
    largest = std::max(largest, separation[k]);
  }
  if (!(box_separation(a, b, Ra, Rb, n) >= largest - kFaceTie)) return n;
  // The first tied axis, where another tied axis crosses it; a face against a face (a's and b's
  // axes along one line tie) keeps FCL's normal.
  std::size_t first = axes.size();
  for (std::size_t k = 0; k < axes.size(); ++k) {
    if (!(separation[k] >= largest - kFaceTie)) continue;
    if (first == axes.size()) {
      first = k;
    } else if (std::abs(axes[k].dot(axes[first])) < 1 - 1e-9) {
      return axes[first];
    }
  }
  return n;
}

struct PairSearch {
  const World* world = nullptr;
  double margin = 0;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>>* grown = nullptr;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>>* exact = nullptr;
  const std::vector<char>* frozen = nullptr;  // empty, or one per body
  std::vector<Contact> contacts;
};

/// The broad phase's callback: the narrow phase of one candidate pair. Returns false (go on).
bool narrow_phase(fcl::CollisionObjectd* first, fcl::CollisionObjectd* second, void* data) {
  auto& search = *static_cast<PairSearch*>(data);
  auto a = static_cast<int>(reinterpret_cast<std::intptr_t>(first->getUserData()));
  auto b = static_cast<int>(reinterpret_cast<std::intptr_t>(second->getUserData()));
  if (a == b) return false;
  if (a > b) std::swap(a, b);
  const Body& body_a = search.world->bodies[static_cast<std::size_t>(a)];
  const Body& body_b = search.world->bodies[static_cast<std::size_t>(b)];
  if (body_a.fixed && body_b.fixed) return false;
  if (!search.frozen->empty()) {
    // Still: frozen, or fixed and not moving (a kinematic body is searched against frozen ones).
    const auto still = [&](int i, const Body& body) {
      return (*search.frozen)[static_cast<std::size_t>(i)] || (body.fixed && contact::detail::motionless(body));
    };
    if (still(a, body_a) && still(b, body_b)) return false;
  }
  // Up to 8 points: FCL's box–box manifold has at most 8 (4 on a face–face contact).
  const fcl::CollisionRequestd request(8, true);
  fcl::CollisionResultd result;
  fcl::collide((*search.grown)[static_cast<std::size_t>(a)].get(), (*search.exact)[static_cast<std::size_t>(b)].get(),
               request, result);
  std::vector<fcl::Contactd> found;
  result.getContacts(found);
  int feature = 0;
  const bool boxes = body_a.shape.kind == ShapeKind::Box && body_b.shape.kind == ShapeKind::Box;
  for (const fcl::Contactd& point : found) {
    // FCL's normal points from its first object (a) to its second (b); ours from b to a.
    Eigen::Vector3d n = -point.normal;
    const double length = n.norm();
    if (!(length > 0) || !point.pos.allFinite() || !std::isfinite(point.penetration_depth)) continue;
    n /= length;
    if (boxes) n = steady_box_normal(body_a, body_b, n);
    Contact c;
    c.body_a = a;
    c.body_b = b;
    c.feature = feature++;
    c.point = point.pos;
    c.normal = n;
    tangent_frame(n, c.tangent1, c.tangent2);
    c.gap = search.margin - point.penetration_depth;
    c.arm_a = point.pos - body_a.position;
    c.arm_b = point.pos - body_b.position;
    search.contacts.push_back(c);
  }
  return false;
}

}  // namespace

void tangent_frame(const Eigen::Vector3d& n, Eigen::Vector3d& t1, Eigen::Vector3d& t2) {
  // The first axis within kFrameAxisMargin of the least aligned: a normal that round-off tilts off
  // an axis keeps its frame (with the least aligned axis alone, FCL's face normals (ε₁, ε₂, 1) took
  // e_x or e_y by the sign of |ε₁| − |ε₂|, turning the frame by 90° between steps and the warm
  // start's tangential impulses with it).
  const Eigen::Vector3d a = n.cwiseAbs();
  const double least = a.minCoeff();
  Eigen::Index axis = 0;
  while (axis < 2 && a[axis] > least + kFrameAxisMargin) ++axis;
  t1 = n.cross(Eigen::Vector3d::Unit(axis)).normalized();
  t2 = n.cross(t1);
}

std::vector<Contact> detect_contacts(const World& world, double margin) { return detect_contacts(world, margin, {}); }

std::vector<Contact> detect_contacts(const World& world, double margin, const std::vector<char>& frozen) {
  std::vector<Contact> contacts;
  const auto count = static_cast<int>(world.bodies.size());
  for (int a = 0; a < count; ++a) {
    if (world.bodies[static_cast<std::size_t>(a)].fixed) continue;
    if (!frozen.empty() && frozen[static_cast<std::size_t>(a)]) continue;
    if (world.ground)
      surface_contacts(world, a, kGround, Eigen::Vector3d::UnitZ(), world.ground->height, margin, contacts);
    for (std::size_t p = 0; p < world.planes.size(); ++p) {
      const Eigen::Vector3d n = world.planes[p].unit_normal();
      surface_contacts(world, a, -2 - static_cast<int>(p), n, n.dot(world.planes[p].point), margin, contacts);
    }
  }
  if (count < 2) return contacts;

  std::vector<std::unique_ptr<fcl::CollisionObjectd>> grown;
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> exact;
  grown.reserve(world.bodies.size());
  exact.reserve(world.bodies.size());
  for (int i = 0; i < count; ++i) {
    const Body& body = world.bodies[static_cast<std::size_t>(i)];
    const fcl::Transform3d pose = fcl_pose(body);
    grown.push_back(std::make_unique<fcl::CollisionObjectd>(fcl_geometry(body.shape, margin), pose));
    exact.push_back(std::make_unique<fcl::CollisionObjectd>(fcl_geometry(body.shape, 0.0), pose));
    grown.back()->setUserData(reinterpret_cast<void*>(static_cast<std::intptr_t>(i)));
    exact.back()->setUserData(reinterpret_cast<void*>(static_cast<std::intptr_t>(i)));
  }
  fcl::DynamicAABBTreeCollisionManagerd manager;
  std::vector<fcl::CollisionObjectd*> objects;
  objects.reserve(grown.size());
  for (auto& object : grown) objects.push_back(object.get());
  manager.registerObjects(objects);
  manager.setup();
  PairSearch search{.world = &world, .margin = margin, .grown = &grown, .exact = &exact, .frozen = &frozen, .contacts = {}};
  manager.collide(&search, narrow_phase);
  // The tree's order depends on its build; pairs are sorted so that the contact list (and the
  // warm start's lookup) does not.
  std::stable_sort(search.contacts.begin(), search.contacts.end(), [](const Contact& x, const Contact& y) {
    return std::pair(x.body_a, x.body_b) < std::pair(y.body_a, y.body_b);
  });
  contacts.insert(contacts.end(), search.contacts.begin(), search.contacts.end());
  return contacts;
}

}  // namespace perp::contact3d
