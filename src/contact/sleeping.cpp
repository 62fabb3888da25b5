#include "sleeping.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace perp::contact::detail {

std::vector<char> sleeping_bodies(World& world, const Eigen::VectorXd& v, const std::vector<Contact>& contacts,
                                  const MoreauJeanOptions& options) {
  const auto movable = [&](std::size_t i) { return !world.bodies[i].fixed; };
  const auto moves_fixed = [&](std::size_t i) { return kinematic(world.bodies[i]); };
  const auto at_rest = [&](std::size_t i) {
    const Body& body = world.bodies[i];
    const auto k = 3 * static_cast<Eigen::Index>(i);
    // The radius only for a spinning body (a box's is a hypot: a pile at rest asks at every step).
    const double spin = std::abs(v[k + 2]);
    const double speed = v.segment<2>(k).norm() + (spin == 0 ? 0.0 : spin * body.bounding_radius());
    const bool pushed = body.torque != 0 || !body.force.isZero(0);  // an applied force keeps a body awake
    return speed <= options.sleep_speed && !pushed;
  };
  return asleep_islands(contacts, world.bodies.size(), movable, moves_fixed, at_rest, options.timestep,
                        options.sleep_time, world.rest_time);
}

std::vector<char> slept_last_step(const World& world, const MoreauJeanOptions& options) {
  return slept_through(world.bodies, world.rest_time, options.sleep_time,
                       [&](std::size_t i) { return motionless(world.bodies[i]); });
}

bool touches_frozen(const World& world, const std::vector<Contact>& contacts, const std::vector<char>& frozen) {
  // A moving body: not fixed, or fixed and moving (kinematic).
  return joins_frozen(contacts, frozen,
                      [&](std::size_t i) { return !world.bodies[i].fixed || !motionless(world.bodies[i]); });
}

}  // namespace perp::contact::detail
