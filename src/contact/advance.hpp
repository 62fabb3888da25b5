#pragma once
// Private to the contact layer (not installed): the Moreau–Jean step without the checks of its
// public entry, for the loops that validate their options and world once and then only step
// (`simulate`: `Scene::validate`; `rollout`: before its first step). In perp::contact, not in a
// `detail` namespace: in a unity build perp::contact::detail would hide perp::detail from the files
// of this layer that name the latter as `detail::`.
#include "perp/contact/moreau_jean.hpp"

namespace perp::contact {

/// A contact of a pair that carried a normal impulse in the last step stays active up to this many
/// activation tolerances (the step's rule, moreau_jean.cpp; rollout.cpp's switch report re-derives it).
inline constexpr double kHeldFactor = 1e3;

/// `moreau_jean_step` on options and a world that were validated (`MoreauJeanOptions::validate`,
/// `World::validate`) and have changed since only by earlier steps: the options and the world's
/// names, shapes, masses, materials and planes are not checked again. The bodies' state (position,
/// angle, velocities), which a step can overflow, is: a non-finite value throws `InvalidProblem`
/// with `World::validate`'s message, so a NaN does not propagate silently (O(bodies)).
[[nodiscard]] StepReport advance_unchecked(World& world, const MoreauJeanOptions& options);

}  // namespace perp::contact
