"""Trajectory optimization through contact: a box at rest on the ground (μ = 0.3) is pushed by a
horizontal force at each step (the controls) so that it ends at rest at x = 0.5 m after 1 s.

    loss = (x_N − goal)² + v_N² + α h Σ_k F_k²,   −8 N ≤ F_k ≤ 8 N

minimized by scipy's L-BFGS-B from the documented start (5 N for the first 10 steps, then 0), with
the gradient of the loss from the steps' derivatives run backwards (the adjoint of perp's
Moreau–Jean steps, each step's Jacobians from StepDerivatives.jvp, docs/python.md "Derivatives of
a step"). The controls found are checked by an
independent perp.rollout. `--plot FILE` draws x(t) and the force per step (docs/trajopt.md)."""
import argparse
import sys
import time

import numpy as np
import scipy.optimize

import perp

TIMESTEP, STEPS = 0.02, 50  # 1 s
MU, MASS, WIDTH, HEIGHT = 0.3, 1.0, 0.4, 0.2
SINK = 1e-4  # the box sunk 0.1 mm: its two corners well inside contact (no drift correction: it stays so)
GOAL, EFFORT, FORCE_BOUND = 0.5, 1e-8, 8.0
START = np.where(np.arange(STEPS) < 10, 5.0, 0.0)  # the documented start: 5 N for 0.2 s
STEP_OPTIONS = dict(timestep=TIMESTEP, friction=MU, tol=1e-14, baumgarte=0.0)

# The same box as a scene for perp.rollout, the independent check of the controls.
SCENE = {"gravity": [0, -9.81], "timestep": TIMESTEP, "friction": MU, "restitution": 0.0, "tolerance": 1e-14,
         "baumgarte": 0, "ground": {"height": 0},
         "bodies": [{"name": "box", "shape": {"type": "box", "width": WIDTH, "height": HEIGHT}, "mass": MASS,
                     "position": [0.0, HEIGHT / 2 - SINK]}]}


def forces_of(u):
    """The controls as the (steps, bodies, 3) forces of perp.rollout: fx of the box at each step."""
    f = np.zeros((len(u), 1, 3))
    f[:, 0, 0] = u
    return f


def loss_of(x, v, u):
    return (x - GOAL) ** 2 + v**2 + EFFORT * TIMESTEP * np.sum(np.square(u))


def step_jacobians(report):
    """(A, B) of one step in the box's sliding coordinates (x, v_x): A = ∂(x', v_x')/∂(x, v_x) (2×2)
    and B = ∂(x', v_x')/∂F (2), each column a jvp of the step's derivatives (docs/python.md,
    "Derivatives of a step"). The box stays flat on the ground: the push and the changes of x and
    v_x move neither y nor the angle nor their rates (checked here to 1e-12), so these blocks carry
    the whole derivative of (x_N, v_N)."""
    d = report.derivatives
    columns = [d.jvp(q=np.array([1.0, 0.0, 0.0])), d.jvp(v=np.array([1.0, 0.0, 0.0])),
               d.jvp(force=np.array([1.0, 0.0, 0.0]))]
    for dq, dv in columns:
        off = max(abs(dq[1]), abs(dq[2]), abs(dv[1]), abs(dv[2]))
        if not off <= 1e-12:
            raise RuntimeError(f"the step moves the box off the ground's plane: {off:.3e}")
    A = np.array([[columns[0][0][0], columns[1][0][0]], [columns[0][1][0], columns[1][1][0]]])
    B = np.array([columns[2][0][0], columns[2][1][0]])
    return A, B


def loss_and_gradient(u):
    """The loss and its gradient in the controls: the steps run forward with their derivatives,
    then the adjoint λ_k = A_kᵀ λ_{k+1} backwards from λ_N = ∂L/∂(x_N, v_N), ∂L/∂F_k = λ_{k+1}·B_k."""
    world = perp.World([perp.Body("box", perp.Box(WIDTH, HEIGHT), MASS, position=(0.0, HEIGHT / 2 - SINK))],
                       ground=0.0)
    jacobians = []
    for k in range(len(u)):
        box = world.body("box")
        box.force = (float(u[k]), 0.0)
        world.set_body(0, box)
        # Once the box sticks its two corners' friction impulses are not unique (its velocity is):
        # the minimum-norm element of the derivative.
        jacobians.append(step_jacobians(perp.moreau_jean_step(world, derivatives=True, minimum_norm=True,
                                                              **STEP_OPTIONS)))
    x, v = world.state[0, 0], world.state[0, 3]
    adjoint = np.array([2 * (x - GOAL), 2 * v])
    gradient = 2 * EFFORT * TIMESTEP * np.asarray(u, dtype=float)
    for k in reversed(range(len(u))):
        A, B = jacobians[k]
        gradient[k] += adjoint @ B
        adjoint = A.T @ adjoint
    return loss_of(x, v, u), gradient


def optimize_through_gradients(start=START):
    """L-BFGS-B on the controls; returns (controls, scipy's result, seconds)."""
    t0 = time.perf_counter()
    result = scipy.optimize.minimize(loss_and_gradient, start, jac=True, method="L-BFGS-B",
                                     bounds=[(-FORCE_BOUND, FORCE_BOUND)] * len(start),
                                     options={"maxiter": 200, "ftol": 1e-14, "gtol": 1e-9})
    return result.x, result, time.perf_counter() - t0


def check(u):
    """An independent perp.rollout of the controls: (final x − goal, final v, the run)."""
    run = perp.rollout(SCENE, len(u), forces=forces_of(u))
    assert run.solved.all()
    return run.positions[-1, 0, 0] - GOAL, run.velocities[-1, 0, 0], run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", metavar="FILE", help="draw x(t) and the force per step into FILE")
    args = parser.parse_args(argv)
    u, result, seconds = optimize_through_gradients()
    error, speed, run = check(u)
    print(f"L-BFGS-B through the steps' derivatives: {result.nit} iterations, {result.nfev} rollouts and adjoints, "
          f"{seconds:.2f} s, loss {result.fun:.6e}")
    print(f"  perp.rollout of the controls: x_N - goal = {error:+.3e} m, v_N = {speed:+.3e} m/s, "
          f"effort h sum F^2 = {TIMESTEP * np.sum(u**2):.4f} N^2 s")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        t = TIMESTEP * np.arange(STEPS + 1)
        fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
        top.plot(t, run.positions[:, 0, 0], label="through gradients (L-BFGS-B)")
        top.axhline(GOAL, color="gray", ls=":", label="goal")
        top.set_ylabel("x (m)")
        top.legend()
        bottom.step(t[:-1], u, where="post", label="through gradients (L-BFGS-B)")
        bottom.axhline(MU * MASS * 9.81, color="gray", ls=":", label="μ m g")
        bottom.set_ylabel("push F (N)")
        bottom.set_xlabel("t (s)")
        bottom.legend()
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"wrote {args.plot}")
    return 0 if abs(error) < 1e-4 and abs(speed) < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
