#pragma once
// Private: the islands that sleep (MoreauJeanOptions::sleeping), for the step (moreau_jean.cpp).

#include <Eigen/Dense>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/contact/moreau_jean.hpp"

namespace perp::contact::detail {

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
