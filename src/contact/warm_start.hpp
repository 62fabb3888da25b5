#pragma once
// Private to the contact layer (not installed): the warm start of the planar step (moreau_jean.cpp),
// a contact's identity from one step to the next (its pair and its ordinal among the pair's
// contacts) and the impulse it carried.
#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include "perp/contact/moreau_jean.hpp"

namespace perp::contact {

/// The ordinal of each contact among the contacts of its pair (0 for the first of the pair in
/// the list, 1 for the second, …): with the pair, the identity that carries an impulse to the
/// next step.
[[nodiscard]] std::vector<int> pair_ordinals(const std::vector<Contact>& contacts);

/// The impulses the same contacts (pair and ordinal) carried in the last step (`World::impulses`),
/// 0 for a new contact; returns how many were found. With `split`, also their split impulses.
std::size_t last_impulses(const World& world, const std::vector<Contact>& contacts, const std::vector<int>& ordinals,
                          Eigen::VectorXd& normal, Eigen::VectorXd& tangent, Eigen::VectorXd* split = nullptr);

/// `World::impulses` := the report's impulses (and its split impulses, where it has them), for the
/// next step's warm start.
void keep_impulses(World& world, const StepReport& report, const std::vector<int>& ordinals);

}  // namespace perp::contact
