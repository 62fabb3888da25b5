#pragma once
// Private: the islands that sleep (MoreauJeanOptions::sleeping), for the step (moreau_jean.cpp).

#include <Eigen/Dense>
#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/contact/moreau_jean.hpp"

namespace perp::contact::detail {

/// Whether a body's velocities are exactly zero (a planar body's spin is a number, a 3D body's a
/// vector): a sleeping body's, or a fixed body that does not move.
template <class BodyT>
[[nodiscard]] bool motionless(const BodyT& body) {
  if constexpr (std::is_arithmetic_v<std::decay_t<decltype(body.angular_velocity)>>) {
    return body.velocity.isZero(0) && body.angular_velocity == 0;
  } else {
    return body.velocity.isZero(0) && body.angular_velocity.isZero(0);
  }
}

/// A kinematic body: fixed, with a velocity (it moves, and wakes what it touches).
template <class BodyT>
[[nodiscard]] bool kinematic(const BodyT& body) {
  return body.fixed && !motionless(body);
}

/// The islands' rule, for the planar and the 3D step: bodies joined by `contacts` (their `body_a`,
/// `body_b`; a side that is not `movable` — fixed, or a static surface, index < 0 — joins nothing)
/// form an island; `rest_time` (one per body) grows by `timestep` where `at_rest(i)` and returns to 0
/// where not; an island sleeps when every one of its movable bodies has been at rest for
/// `sleep_time`, and none is touched by a `kinematic` body (a fixed body that moves: it wakes what
/// it touches). Returns 1 per sleeping body (0 for bodies that are not movable).
template <class ContactList, class Movable, class Kinematic, class AtRest>
[[nodiscard]] std::vector<char> asleep_islands(const ContactList& contacts, std::size_t count, const Movable& movable,
                                               const Kinematic& kinematic, const AtRest& at_rest, double timestep,
                                               double sleep_time, std::vector<double>& rest_time) {
  rest_time.resize(count, 0.0);
  std::vector<std::size_t> parent(count);
  for (std::size_t i = 0; i < count; ++i) parent[i] = i;
  const auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const auto joins = [&](int body) { return body >= 0 && movable(static_cast<std::size_t>(body)); };
  for (const auto& c : contacts) {
    if (joins(c.body_a) && joins(c.body_b)) {
      parent[root(static_cast<std::size_t>(c.body_a))] = root(static_cast<std::size_t>(c.body_b));
    }
  }
  std::vector<char> awake_root(count, 0);
  const auto pushed = [&](int body, int by) {
    if (joins(body) && by >= 0 && kinematic(static_cast<std::size_t>(by))) {
      awake_root[root(static_cast<std::size_t>(body))] = 1;
    }
  };
  for (const auto& c : contacts) {
    pushed(c.body_a, c.body_b);
    pushed(c.body_b, c.body_a);
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (!movable(i)) continue;
    rest_time[i] = at_rest(i) ? rest_time[i] + timestep : 0.0;
    if (rest_time[i] < sleep_time) awake_root[root(i)] = 1;
  }
  std::vector<char> asleep(count, 0);
  for (std::size_t i = 0; i < count; ++i) asleep[i] = movable(i) && !awake_root[root(i)];
  return asleep;
}

/// The bodies that slept through the last step (`asleep_islands` left them at rest for at least
/// `sleep_time`, and `still(i)`: their velocities are exactly zero), or none (an empty vector) when
/// no body did. `bodies` has `.fixed` per body.
template <class Bodies, class Still>
[[nodiscard]] std::vector<char> slept_through(const Bodies& bodies, const std::vector<double>& rest_time,
                                              double sleep_time, const Still& still) {
  const std::size_t count = bodies.size();
  if (rest_time.size() != count) return {};
  std::vector<char> slept(count, 0);
  bool any = false;
  for (std::size_t i = 0; i < count; ++i) {
    slept[i] = !bodies[i].fixed && rest_time[i] >= sleep_time && still(i);
    any = any || slept[i];
  }
  if (!any) slept.clear();
  return slept;
}

/// Whether a contact of `contacts` joins a body marked in `frozen` to a body that is not frozen and
/// `moving(i)` (not fixed, or a fixed body that moves: a kinematic one).
template <class ContactList, class Moving>
[[nodiscard]] bool joins_frozen(const ContactList& contacts, const std::vector<char>& frozen, const Moving& moving) {
  if (frozen.empty()) return false;
  const auto moves = [&](int body) {
    return body >= 0 && !frozen[static_cast<std::size_t>(body)] && moving(static_cast<std::size_t>(body));
  };
  const auto still = [&](int body) { return body >= 0 && frozen[static_cast<std::size_t>(body)]; };
  for (const auto& c : contacts) {
    if ((still(c.body_a) && moves(c.body_b)) || (moves(c.body_a) && still(c.body_b))) return true;
  }
  return false;
}

/// Drops from `contacts` those that touch a body marked in `asleep` (their island is out of the
/// solve) and returns the impulses of `kept` (the last step's) that touch one, for the warm start
/// when the island wakes.
template <class ContactList, class ImpulseList>
[[nodiscard]] ImpulseList set_aside_asleep(const std::vector<char>& asleep, ContactList& contacts,
                                           const ImpulseList& kept) {
  const auto sleeps = [&](int body) { return body >= 0 && asleep[static_cast<std::size_t>(body)]; };
  std::erase_if(contacts, [&](const auto& c) { return sleeps(c.body_a) || sleeps(c.body_b); });
  ImpulseList aside;
  for (const auto& impulse : kept) {
    if (sleeps(impulse.body_a) || sleeps(impulse.body_b)) aside.push_back(impulse);
  }
  return aside;
}

/// Updates the bodies' rest times from v and marks the bodies of the islands (bodies joined by
/// `contacts`, fixed bodies and static surfaces joining nothing) whose every body has been at rest
/// for `sleep_time`.
[[nodiscard]] std::vector<char> sleeping_bodies(World& world, const Eigen::VectorXd& v,
                                                const std::vector<Contact>& contacts,
                                                const MoreauJeanOptions& options);

/// The bodies that slept through the last step (`sleeping_bodies` set them at rest: zero velocity,
/// a rest time of at least `sleep_time`), or none when no body did.
[[nodiscard]] std::vector<char> slept_last_step(const World& world, const MoreauJeanOptions& options);

/// Whether a contact joins a body marked in `frozen` to a body that is neither frozen nor fixed.
[[nodiscard]] bool touches_frozen(const World& world, const std::vector<Contact>& contacts,
                                  const std::vector<char>& frozen);

}  // namespace perp::contact::detail
