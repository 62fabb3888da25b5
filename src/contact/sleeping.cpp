#include "sleeping.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace perp::contact::detail {

std::vector<char> sleeping_bodies(World& world, const Eigen::VectorXd& v, const std::vector<Contact>& contacts,
                                  const MoreauJeanOptions& options) {
  const auto movable = [&](std::size_t i) { return !world.bodies[i].fixed; };
  const auto at_rest = [&](std::size_t i) {
    const Body& body = world.bodies[i];
    const auto k = 3 * static_cast<Eigen::Index>(i);
    // The radius only for a spinning body (a box's is a hypot: a pile at rest asks at every step).
    const double spin = std::abs(v[k + 2]);
    const double speed = v.segment<2>(k).norm() + (spin == 0 ? 0.0 : spin * body.bounding_radius());
    const bool pushed = body.torque != 0 || !body.force.isZero(0);  // an applied force keeps a body awake
    return speed <= options.sleep_speed && !pushed;
  };
  return asleep_islands(contacts, world.bodies.size(), movable, at_rest, options.timestep, options.sleep_time,
                        world.rest_time);
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
