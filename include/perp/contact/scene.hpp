#pragma once
/// \file
/// A scene: a world, how to step it and for how long. Read from JSON by io/scene.hpp.

#include <functional>

#include "perp/contact/body.hpp"
#include "perp/contact/moreau_jean.hpp"

namespace perp::contact {

struct Scene {
  World world;
  /// timestep, theta, restitution, friction, gravity (and the solver) of every step.
  MoreauJeanOptions options;
  /// Simulated time in seconds, finite and > 0.
  double duration = 1.0;

  /// Number of steps: ⌈duration / timestep⌉ (a duration that is a whole number of steps up to
  /// round-off gives exactly that number).
  [[nodiscard]] long step_count() const;
  /// Validates the world, the options and the duration; throws `InvalidProblem` naming the field.
  void validate() const;
};

/// Steps of `timestep` in `duration`: ⌈duration / timestep⌉, and exactly the nearest whole number
/// where the ratio is one up to round-off (1e-9 relative). The planar and the 3D scenes count alike.
[[nodiscard]] long step_count(double duration, double timestep);

/// Runs `scene.step_count()` Moreau–Jean steps on a copy of the scene's world, calling
/// `on_step(step_index, time_after_step, world_after_step, report)` after each. Returns the
/// number of steps whose LCP did not end `Solved`.
long simulate(const Scene& scene, const std::function<void(long, double, const World&, const StepReport&)>& on_step);

}  // namespace perp::contact
