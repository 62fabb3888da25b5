// Fitting a friction coefficient to an observation by differentiating through the contact
// simulation: a crate launched at 2 m/s on the ground stops after a distance set by μ. From the
// observed final position (here synthetic, made with μ = 0.35) Gauss–Newton on
// (x(μ) − x_observed)² recovers μ, each iteration one rollout and one adjoint pass
// (perp/contact/step_sensitivity.hpp, docs/sensitivity.md).
#include <cmath>
#include <cstdio>
#include <perp/perp.hpp>

using namespace perp::contact;

namespace {

World crate() {
  World world;
  Body body;
  body.name = "crate";
  body.shape = Box{1.0, 0.5};
  body.mass = 1.0;
  body.position = {0.0, 0.25};  // resting on the ground
  body.velocity = {2.0, 0.0};
  world.bodies.push_back(body);
  world.ground = Ground{0.0};
  return world;
}

MoreauJeanOptions options_with(double mu) {
  MoreauJeanOptions options;
  options.timestep = 1e-2;
  options.friction = mu;
  options.solve.tolerance = 1e-12;
  return options;
}

}  // namespace

int main() {
  const int steps = 100;  // 1 s: it stops after about v0 / (μ g) = 0.58 s
  const double observed = rollout(crate(), options_with(0.35), steps).states.back().bodies[0].position.x();
  std::printf("observed: the crate stops at x = %.6f m\n", observed);

  // Once it sticks, its two corners' friction impulses are not unique (their velocities are): the
  // minimum-norm element of the derivative.
  perp::SensitivityOptions sensitivity;
  sensitivity.minimum_norm = true;
  double mu = 0.2;
  for (int iteration = 1; iteration <= 20; ++iteration) {
    const MoreauJeanOptions options = options_with(mu);
    const Rollout run = rollout(crate(), options, steps);
    const double residual = run.states.back().bodies[0].position.x() - observed;
    std::vector<StepState> gradients(steps);
    gradients.back().q = Eigen::Vector3d(1, 0, 0);  // L = x at the end
    const double slope = rollout_gradient(run, options, gradients, sensitivity).friction;
    std::printf("iteration %2d: mu = %.10f, x - x_observed = %+.3e m, dx/dmu = %.6f m\n", iteration, mu, residual, slope);
    if (std::abs(residual) < 1e-13) break;
    mu -= residual / slope;
  }
  std::printf("fitted mu = %.10f (true 0.35)\n", mu);
  return std::abs(mu - 0.35) < 1e-6 ? 0 : 1;
}
