#include "perp/contact/scene.hpp"

#include <cmath>
#include <string>

#include "advance.hpp"
#include "perp/core/error.hpp"

namespace perp::contact {

long Scene::step_count() const { return contact::step_count(duration, options.timestep); }

long step_count(double duration, double timestep) {
  const double ratio = duration / timestep;
  const double nearest = std::round(ratio);
  if (std::abs(ratio - nearest) <= 1e-9 * std::max(1.0, ratio)) return static_cast<long>(nearest);
  return static_cast<long>(std::ceil(ratio));
}

void Scene::validate() const {
  world.validate();
  options.validate();
  if (!std::isfinite(duration) || duration <= 0) {
    throw InvalidProblem("duration must be finite and > 0, got " + std::to_string(duration));
  }
  constexpr double kMaxSteps = 1e9;
  if (duration / options.timestep > kMaxSteps) {
    throw InvalidProblem("duration / timestep is over 1e9 steps (duration " + std::to_string(duration) + ", timestep " +
                         std::to_string(options.timestep) + ")");
  }
}

long simulate(const Scene& scene, const std::function<void(long, double, const World&, const StepReport&)>& on_step) {
  scene.validate();  // once: the steps below change only the bodies' state, which each one checks finite
  World world = scene.world;
  const long steps = scene.step_count();
  long unsolved = 0;
  for (long k = 0; k < steps; ++k) {
    const StepReport report = advance_unchecked(world, scene.options);
    if (report.status != Status::Solved) ++unsolved;
    if (on_step) on_step(k, static_cast<double>(k + 1) * scene.options.timestep, world, report);
  }
  return unsolved;
}

}  // namespace perp::contact
