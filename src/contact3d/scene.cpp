#include "perp/contact3d/scene.hpp"

#include <algorithm>
#include <cmath>

#include "perp/core/error.hpp"

namespace perp::contact3d {
namespace {
/// The most steps a scene may ask for (a bound on every run's loop).
constexpr double kMostSteps3d = 1e9;
}  // namespace

long Scene::step_count() const {
  const double ratio = duration / options.timestep;
  const double nearest = std::round(ratio);
  if (std::abs(ratio - nearest) <= 1e-9 * std::max(1.0, ratio)) return static_cast<long>(nearest);
  return static_cast<long>(std::ceil(ratio));
}

void Scene::validate() const {
  world.validate();
  options.validate();
  if (!std::isfinite(duration) || duration <= 0) {
    throw InvalidProblem("duration must be finite and > 0, got " + number_text(duration));
  }
  if (!(duration / options.timestep <= kMostSteps3d)) {
    throw InvalidProblem("duration / timestep = " + number_text(duration / options.timestep) +
                         " steps: at most 1e9 steps a run");
  }
}

}  // namespace perp::contact3d
