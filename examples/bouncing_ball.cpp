// A ball dropped from 1 m onto the ground with restitution e = 0.5, stepped with Moreau–Jean:
// after the first bounce it rises to about e² · 1 m = 0.25 m.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <perp/perp.hpp>

int main() {
  using namespace perp::contact;
  World world;
  Body ball;
  ball.name = "ball";
  ball.shape = Disk{0.1};
  ball.mass = 1.0;
  ball.position = {0.0, 1.1};  // gap 1 m
  world.bodies.push_back(ball);
  world.ground = Ground{0.0};

  MoreauJeanOptions options;
  options.timestep = 1e-4;
  options.restitution = 0.5;

  bool bounced = false;
  double apex = 0;
  for (int k = 0; k < 20000; ++k) {
    const StepReport report = moreau_jean_step(world, options);
    if (!report.contacts.empty() && report.normal_impulse[0] > 0) {
      std::printf("t = %.4f s: impact, impulse %.4f N s (%s)\n", (k + 1) * options.timestep, report.normal_impulse[0],
                  perp::to_string(report.status).c_str());
    }
    const Body& b = world.bodies[0];
    if (b.velocity.y() > 0) bounced = true;
    if (bounced) apex = std::max(apex, b.position.y() - 0.1);
    if (bounced && b.velocity.y() < 0) break;
  }
  std::printf("apex after the bounce: %.4f m (e^2 x drop = 0.25 m)\n", apex);
  return std::abs(apex - 0.25) < 1e-3 ? 0 : 1;
}
