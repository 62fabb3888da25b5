#include "sleeping.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace perp::contact::detail {

std::vector<char> sleeping_bodies(World& world, const Eigen::VectorXd& v, const std::vector<Contact>& contacts,
                                  const MoreauJeanOptions& options) {
  const std::size_t count = world.bodies.size();
  world.rest_time.resize(count, 0.0);
  std::vector<std::size_t> parent(count);
  for (std::size_t i = 0; i < count; ++i) parent[i] = i;
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const auto joins = [&](int body) { return body >= 0 && !world.bodies[static_cast<std::size_t>(body)].fixed; };
  for (const Contact& c : contacts) {
    if (joins(c.body_a) && joins(c.body_b)) {
      parent[root(static_cast<std::size_t>(c.body_a))] = root(static_cast<std::size_t>(c.body_b));
    }
  }
  std::vector<char> awake_root(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const Body& body = world.bodies[i];
    if (body.fixed) continue;
    const auto k = 3 * static_cast<Eigen::Index>(i);
    // The radius only for a spinning body (a box's is a hypot: a pile at rest asks at every step).
    const double spin = std::abs(v[k + 2]);
    const double speed = v.segment<2>(k).norm() + (spin == 0 ? 0.0 : spin * body.bounding_radius());
    const bool pushed = body.torque != 0 || !body.force.isZero(0);  // an applied force keeps a body awake
    world.rest_time[i] = speed <= options.sleep_speed && !pushed ? world.rest_time[i] + options.timestep : 0.0;
    if (world.rest_time[i] < options.sleep_time) awake_root[root(i)] = 1;
  }
  std::vector<char> asleep(count, 0);
  for (std::size_t i = 0; i < count; ++i) asleep[i] = !world.bodies[i].fixed && !awake_root[root(i)];
  return asleep;
}

std::vector<char> slept_last_step(const World& world, const MoreauJeanOptions& options) {
  const std::size_t count = world.bodies.size();
  if (world.rest_time.size() != count) return {};
  std::vector<char> slept(count, 0);
  bool any = false;
  for (std::size_t i = 0; i < count; ++i) {
    const Body& body = world.bodies[i];
    slept[i] = !body.fixed && world.rest_time[i] >= options.sleep_time && body.velocity.isZero(0) &&
               body.angular_velocity == 0;
    any = any || slept[i];
  }
  if (!any) slept.clear();
  return slept;
}

bool touches_frozen(const World& world, const std::vector<Contact>& contacts, const std::vector<char>& frozen) {
  if (frozen.empty()) return false;
  const auto moves = [&](int body) {
    return body >= 0 && !frozen[static_cast<std::size_t>(body)] && !world.bodies[static_cast<std::size_t>(body)].fixed;
  };
  const auto still = [&](int body) { return body >= 0 && frozen[static_cast<std::size_t>(body)]; };
  return std::any_of(contacts.begin(), contacts.end(), [&](const Contact& c) {
    return (still(c.body_a) && moves(c.body_b)) || (moves(c.body_a) && still(c.body_b));
  });
}

}  // namespace perp::contact::detail
