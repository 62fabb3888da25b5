#include "perp/contact3d/scene.hpp"

#include <algorithm>
#include <cmath>

#include "perp/contact/scene.hpp"
#include "perp/core/error.hpp"

namespace perp::contact3d {
namespace {
/// The most steps a scene may ask for (a bound on every run's loop).
constexpr double kMostSteps3d = 1e9;
}  // namespace

long Scene::step_count() const { return contact::step_count(duration, options.timestep); }

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
