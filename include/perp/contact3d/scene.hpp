#pragma once
/// \file
/// A 3D scene: a world, how to step it and for how long. Read from JSON by io/scene3d.hpp.

#include "perp/contact3d/body.hpp"
#include "perp/contact3d/moreau_jean.hpp"

namespace perp::contact3d {

struct Scene {
  World world;
  StepOptions options;
  /// Simulated time in seconds, finite and > 0.
  double duration = 1.0;

  /// ⌈duration / timestep⌉, a duration that is a whole number of steps up to round-off giving
  /// exactly that number.
  [[nodiscard]] long step_count() const;
  /// Validates the world, the options and the duration; throws `InvalidProblem` naming the field.
  void validate() const;
};

}  // namespace perp::contact3d
