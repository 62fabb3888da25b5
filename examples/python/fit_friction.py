"""Fitting μ to where a crate stops (twin of ../fit_friction.cpp): a crate launched at 2 m/s on the
ground stops after a distance set by μ; Gauss–Newton on (x(μ) − x_observed)², with dx/dμ from the
steps' derivatives run backwards (the adjoint), recovers the μ = 0.35 that made the observation."""
import sys

import numpy as np

import perp

STEPS = 100  # 1 s at h = 0.01: with μ = 0.35 it stops after about 2 / (0.35 g) = 0.58 s


def run(mu):
    world = perp.World([perp.Body("crate", perp.Box(1.0, 0.5), 1.0, position=(0.0, 0.25), velocity=(2.0, 0.0))],
                       ground=0.0)
    # Once it sticks, its two corners' friction impulses are not unique (their velocities are):
    # the minimum-norm element of the derivative.
    reports = [perp.moreau_jean_step(world, timestep=1e-2, friction=mu, tol=1e-12, derivatives=True,
                                     minimum_norm=True) for _ in range(STEPS)]
    return world.state[0, 0], reports


observed, _ = run(0.35)
print(f"observed: the crate stops at x = {observed:.6f} m")
mu = 0.2
for iteration in range(1, 21):
    x, reports = run(mu)
    q_bar, v_bar, slope = np.array([1.0, 0.0, 0.0]), np.zeros(3), 0.0  # L = x at the end
    for r in reversed(reports):
        g = r.derivatives.vjp(q_bar, v_bar)
        slope += g["friction"].sum()  # every contact takes the scene's μ
        q_bar, v_bar = g["q"], g["v"]
    print(f"iteration {iteration:2d}: mu = {mu:.10f}, x - x_observed = {x - observed:+.3e} m, dx/dmu = {slope:.6f} m")
    if abs(x - observed) < 1e-13:
        break
    mu -= (x - observed) / slope
print(f"fitted mu = {mu:.10f} (true 0.35)")
sys.exit(0 if abs(mu - 0.35) < 1e-6 else 1)
