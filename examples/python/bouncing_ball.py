"""A ball dropped from 1 m onto the ground with restitution e = 0.5 (twin of ../bouncing_ball.cpp):
after the first bounce it rises to about e² · 1 m = 0.25 m."""
import sys

import numpy as np

import perp

scene = {"gravity": [0, -9.81], "timestep": 1e-4, "duration": 1.2, "restitution": 0.5, "friction": 0.0,
         "ground": {"height": 0.0},
         "bodies": [{"name": "ball", "shape": {"type": "disk", "radius": 0.1}, "mass": 1.0,
                     "position": [0.0, 1.1]}]}  # gap 1 m
sim = perp.simulate(scene)
ball = sim.body("ball")
impacts = np.flatnonzero([sim.contacts_at(k)["normal_impulse"].sum() > 0 for k in range(sim.steps)])
first = impacts[0]
print(f"t = {sim.t[first + 1]:.4f} s: impact, impulse {sim.contacts_at(first)['normal_impulse'][0]:.4f} N s "
      f"({sim.status[first]})")
rising = np.flatnonzero(ball.vy > 0)
after = rising[0]
falling_again = after + np.flatnonzero(ball.vy[after:] < 0)[0]
apex = ball.y[after:falling_again + 1].max() - 0.1
print(f"apex after the bounce: {apex:.4f} m (e^2 x drop = 0.25 m)")
sys.exit(0 if abs(apex - 0.25) < 1e-3 else 1)
