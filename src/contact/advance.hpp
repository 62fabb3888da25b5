#pragma once
// Private to the contact layer (not installed): the Moreau–Jean step without the checks of its
// public entry, for the loops that validate their options and world once and then only step
// (`simulate`: `Scene::validate`; `rollout`: before its first step). In perp::contact, not in a
// `detail` namespace: in a unity build perp::contact::detail would hide perp::detail from the files
// of this layer that name the latter as `detail::`.
#include <vector>

#include "perp/contact/moreau_jean.hpp"

namespace perp::contact {

/// A contact of a pair that carried a normal impulse in the last step stays active up to this many
/// activation tolerances (the step's rule, moreau_jean.cpp; rollout.cpp's switch report re-derives it).
inline constexpr double kHeldFactor = 1e3;

/// The room a planar contact without restitution that only the speculative rules activate may close
/// within the step (docs/contact.md, "Speculative contacts"): room = g + h (1 − θ) u_N⁻, where its
/// mid-step gap g + h u_N⁻/2 is past the held tolerance (beyond the plain rule's reach) and room > 0;
/// 0 for every other contact (and without `speculative`). The step asks u_N⁺ >= −room / (h θ) of it
/// (moreau_jean.cpp); its derivative differentiates that bias (step_sensitivity.cpp).
inline double speculative_room(double gap, double start_rate, const MoreauJeanOptions& options) {
  if (!options.speculative) return 0.0;
  const double h = options.timestep;
  const double room = gap + h * (1 - options.theta) * start_rate;
  return gap + 0.5 * h * start_rate > kHeldFactor * options.activation_tolerance && room > 0 ? room : 0.0;
}

/// The split impulse's LCP (the drift correction, 2D and 3D): solved to this relative residual (or
/// the step's tolerance, if looser) in at most this many sweeps. It moves positions by β of each
/// overlap past the slop; an error of 1e-6 of that is far below what a step shows. A looser 1e-3 cut
/// the pouring heap's split sweeps threefold but kept the settled heap from resting (bench/README.md,
/// "The split impulse's tolerance"): not kept.
inline constexpr double kSplitTolerance = 1e-6;
inline constexpr int kSplitSweeps = 1000;
/// The 2D split impulse's sweeps are over-relaxed by this ω (psor): on the 1 000-disk heap's pour
/// (first 3 s) the sweeps fell from 111 000 to 38 600 and the splits left at the sweep limit from
/// 60 to 0 (ω = 1.4: 58 900, 1.8: 22 600; bench/README.md, "Packed step, stop 38").
inline constexpr double kSplitRelaxation = 1.6;
/// The split impulse runs on a step where some contact's overlap exceeds the slop by more than
/// this fraction of the slop (with a slop of 0: any overlap).
inline constexpr double kSplitTrigger = 0.01;

/// The 2D split impulse (split_impulse.cpp): the frictionless LCP of the contacts whose
/// `overlap_bias` is < 0, 0 <= λ ⊥ J_N M⁻¹ J_Nᵀ λ + b >= 0, solved to max(kSplitTolerance, the step's
/// tolerance), its sweeps (more than 16 rows) started from the multipliers the same contacts had in
/// `world`'s last split (`ordinals`: the contacts' `pair_ordinals`); fills the report's split fields
/// and returns the position shift h M⁻¹ J_Nᵀ λ.
[[nodiscard]] Eigen::VectorXd split_impulse_shift(const World& world, const std::vector<int>& ordinals,
                                                  const std::vector<Contact>& contacts,
                                                  const Eigen::VectorXd& inverse_mass,
                                                  const Eigen::VectorXd& overlap_bias, const MoreauJeanOptions& options,
                                                  StepReport& report);

/// `moreau_jean_step` on options and a world that were validated (`MoreauJeanOptions::validate`,
/// `World::validate`) and have changed since only by earlier steps: the options and the world's
/// names, shapes, masses, materials and planes are not checked again. The bodies' state (position,
/// angle, velocities), which a step can overflow, is: a non-finite value throws `InvalidProblem`
/// with `World::validate`'s message, so a NaN does not propagate silently (O(bodies)).
[[nodiscard]] StepReport advance_unchecked(World& world, const MoreauJeanOptions& options);

}  // namespace perp::contact
