"""Trajectory optimization through contact (docs/trajopt.md): a box at rest on the ground (μ = 0.3)
is pushed by a horizontal force at each step (the controls) so that it ends at rest at x = 0.5 m
after 1 s:

    loss = (x_N − goal)² + v_N² + α h Σ_k F_k²,   −8 N ≤ F_k ≤ 8 N,

from the documented start (5 N for the first 10 steps, then 0), twice:

1. through gradients: scipy's L-BFGS-B on the controls, the loss's gradient from
   perp.rollout_gradient(..., weights=...) (docs/python.md, "Rollouts and their gradients");
2. contact-implicit: the friction forces and velocities as unknowns beside the controls, the
   dynamics as equality constraints and Coulomb's law as complementarity constraints relaxed
   (Scholtes: a b ≤ ε) and tightened, by scipy's SLSQP; each step of the solution is then checked
   against perp's own step and its impulses by perp.friction_contact_residuals.

Both controls are checked by an independent perp.rollout. `--plot FILE` draws both trajectories,
x(t) and the force per step."""
import argparse
import sys
import time

import numpy as np
import scipy.linalg
import scipy.optimize

import perp

TIMESTEP, STEPS = 0.02, 50  # 1 s
MU, MASS, WIDTH, HEIGHT = 0.3, 1.0, 0.4, 0.2
SINK = 1e-4  # the box sunk 0.1 mm: its two corners well inside contact (no drift correction: it stays so)
GOAL, EFFORT, FORCE_BOUND = 0.5, 1e-8, 8.0
START = np.where(np.arange(STEPS) < 10, 5.0, 0.0)  # the documented start: 5 N for 0.2 s
GRAVITY = 9.81
STEP_OPTIONS = dict(timestep=TIMESTEP, friction=MU, tol=1e-14, baumgarte=0.0, gravity=(0.0, -GRAVITY))

# The same box as a scene for perp.rollout, the independent check of the controls.
SCENE = {"gravity": [0, -GRAVITY], "timestep": TIMESTEP, "friction": MU, "restitution": 0.0, "tol": 1e-14,
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


def loss_and_gradient(u):
    """The loss and its gradient in the controls: perp.rollout gives the final state y, then
    perp.rollout_gradient with weights ∂L/∂y (one adjoint run) the gradient of its part of L. Once
    the box sticks its two corners' friction impulses are not unique (its velocity is): the
    minimum-norm element of each step's derivative (``minimum_norm=True``)."""
    forces = forces_of(u)
    run = perp.rollout(SCENE, len(u), forces=forces)
    x, v = run.positions[-1, 0, 0], run.velocities[-1, 0, 0]
    weights = np.zeros((2, 1, 3))
    weights[0, 0, 0], weights[1, 0, 0] = 2 * (x - GOAL), 2 * v
    g = perp.rollout_gradient(SCENE, len(u), forces=forces, weights=weights, minimum_norm=True)
    return loss_of(x, v, u), g.forces[:, 0, 0] + 2 * EFFORT * TIMESTEP * np.asarray(u, dtype=float)


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


# Contact-implicit: the same task with the friction forces as decision variables.
#
# The box stays flat on the ground (y, angle and their rates 0: the check below re-steps perp to
# confirm it), so each step has one normal force m g and one friction force f_k = P_k − Q_k (P, Q ≥ 0,
# its two cone edges) with the sliding-speed slack G_k ≥ 0. Unknowns per step: F_k, v_{k+1}, P_k,
# Q_k, G_k. perp's step (θ = ½, impulses per unit time h):
#     m (v_{k+1} − v_k) / h = F_k + P_k − Q_k,       x_N = x_0 + h Σ_k (v_k + v_{k+1}) / 2,
# and Coulomb's law in 2D as three complementarity pairs,
#     0 ≤ P_k ⊥ G_k + v_{k+1} ≥ 0,   0 ≤ Q_k ⊥ G_k − v_{k+1} ≥ 0,   0 ≤ G_k ⊥ μ m g − P_k − Q_k ≥ 0,
# each relaxed (Scholtes) to a ≥ 0, b ≥ 0, a b ≤ ε and solved by SLSQP for ε = 1e-2, 1e-4, 1e-6, each
# from the last. Then each pair's smaller side is set to 0 (the active set the relaxation found) and
# the problem, now a QP with linear constraints (the other sides ≥ 0 kept), is solved once more: the
# complementarity is exact up to round-off.

EPSILONS = (1e-2, 1e-4, 1e-6)
MAX_ITER = 100  # SLSQP's iterations at each ε
LOSS_SCALE = 1e4  # the loss as SLSQP sees it: its first quasi-Newton matrix is the identity


class ContactImplicit:
    """The contact-implicit problem's variables z = (F, V, P, Q, G), N entries each (V: v_1 … v_N),
    its loss, constraints and their Jacobians for scipy's SLSQP."""

    def __init__(self, steps=STEPS, v0=0.0, x0=0.0):
        self.n, self.v0, self.x0 = steps, v0, x0
        self.normal = MASS * GRAVITY  # the normal force, m g, while the box is flat

    def split(self, z):
        n = self.n
        return z[:n], z[n:2 * n], z[2 * n:3 * n], z[3 * n:4 * n], z[4 * n:]

    def velocities(self, z):
        return np.concatenate([[self.v0], self.split(z)[1]])

    def final_x(self, z):
        v = self.velocities(z)
        return self.x0 + TIMESTEP * np.sum(v[:-1] + v[1:]) / 2

    def loss(self, z):
        F, V = self.split(z)[:2]
        return loss_of(self.final_x(z), V[-1], F)

    def loss_gradient(self, z):
        n = self.n
        F, V = self.split(z)[:2]
        g = np.zeros(5 * n)
        dx = 2 * (self.final_x(z) - GOAL)
        g[:n] = 2 * EFFORT * TIMESTEP * F
        g[n:2 * n] = dx * TIMESTEP  # each v_k, k ≥ 1, enters x_N twice with h/2 ...
        g[2 * n - 1] = dx * TIMESTEP / 2 + 2 * V[-1]  # ... except v_N, once
        return g

    def dynamics(self, z):
        F, V, P, Q, _ = self.split(z)
        v = self.velocities(z)
        return MASS * (V - v[:-1]) / TIMESTEP - F - P + Q

    def dynamics_jacobian(self, z):
        n = self.n
        J = np.zeros((n, 5 * n))
        i = np.arange(n)
        J[i, i] = -1.0
        J[i, n + i] = MASS / TIMESTEP
        J[i[1:], n + i[1:] - 1] = -MASS / TIMESTEP
        J[i, 2 * n + i] = -1.0
        J[i, 3 * n + i] = 1.0
        return J

    def pairs(self, z):
        """The three complementarity pairs (a, b), each side an array over the steps."""
        _, V, P, Q, G = self.split(z)
        return [(P, G + V), (Q, G - V), (G, MU * self.normal - P - Q)]

    def pair_jacobians(self):
        """(∂a/∂z, ∂b/∂z) of each pair: constant, the pairs are linear in z."""
        n = self.n
        I, O = np.eye(n), np.zeros((n, n))
        return [(np.hstack([O, O, I, O, O]), np.hstack([O, I, O, O, I])),
                (np.hstack([O, O, O, I, O]), np.hstack([O, -I, O, O, I])),
                (np.hstack([O, O, O, O, I]), np.hstack([O, O, -I, -I, O]))]

    def require_feasible(self, z, tol=1e-10):
        """Raises when z breaks a constraint by more than tol: dynamics, a pair's side, a product,
        the bounds of the pushes."""
        worst = {"dynamics": np.abs(self.dynamics(z)).max(),
                 "sides": max(-min(a.min(), b.min()) for a, b in self.pairs(z)),
                 "complementarity": max(np.abs(a * b).max() for a, b in self.pairs(z)),
                 "bounds": np.max(np.abs(self.split(z)[0])) - FORCE_BOUND}
        if max(worst.values()) > tol:
            raise RuntimeError(f"the contact-implicit solution breaks its constraints: {worst}")
        return worst

    def start(self, u):
        """z from a perp.rollout of the controls u: a point of the unrelaxed problem."""
        run = perp.rollout(SCENE, self.n, forces=forces_of(u))
        v = run.velocities[:, 0, 0]
        f = MASS * np.diff(v) / TIMESTEP - u  # the friction force of each step
        return np.concatenate([u, v[1:], np.maximum(f, 0), np.maximum(-f, 0), np.abs(v[1:])])


def optimize_contact_implicit(start=START, epsilons=EPSILONS):
    """Scholtes' relaxation tightened over ``epsilons``, then the active set fixed and solved once
    more. Returns (controls, the problem, z, SLSQP iterations in all, seconds); raises RuntimeError
    when the solution breaks a constraint by more than 1e-10."""
    problem = ContactImplicit()
    n = problem.n
    z = problem.start(np.asarray(start, dtype=float))
    bounds = [(-FORCE_BOUND, FORCE_BOUND)] * n + [(None, None)] * n + [(0, None)] * (3 * n)
    jacobians = problem.pair_jacobians()
    equality = {"type": "eq", "fun": problem.dynamics, "jac": problem.dynamics_jacobian}
    sides = {"type": "ineq", "fun": lambda z: np.concatenate([b for _, b in problem.pairs(z)]),
             "jac": lambda z: np.vstack([Jb for _, Jb in jacobians])}
    iterations, t0 = 0, time.perf_counter()

    def objective(z):
        return LOSS_SCALE * problem.loss(z), LOSS_SCALE * problem.loss_gradient(z)

    for eps in epsilons:
        def relaxed(z, eps=eps):
            return np.concatenate([eps - a * b for a, b in problem.pairs(z)])

        def relaxed_jacobian(z):
            return np.vstack([-(b[:, None] * Ja + a[:, None] * Jb)
                              for (a, b), (Ja, Jb) in zip(problem.pairs(z), jacobians)])

        result = scipy.optimize.minimize(objective, z, jac=True, method="SLSQP", bounds=bounds,
                                         constraints=[equality, sides,
                                                      {"type": "ineq", "fun": relaxed, "jac": relaxed_jacobian}],
                                         options={"maxiter": MAX_ITER, "ftol": 1e-12})
        z, iterations = result.x, iterations + result.nit
    # The active set: in each pair the smaller side is 0, and the pushes at their bounds. Each side
    # is linear, J z + c; with them as equalities (and the other sides >= 0) the problem is a QP.
    rows, constants = [problem.dynamics_jacobian(z)], [problem.dynamics(np.zeros(5 * n))]
    for (a, b), (Ja, Jb) in zip(problem.pairs(z), jacobians):
        c = b - Jb @ z  # the constant of side b (0, 0, μ m g)
        smaller = a <= b
        rows.append(np.where(smaller[:, None], Ja, Jb))
        constants.append(np.where(smaller, 0.0, c))
    at_bound = np.flatnonzero(np.abs(z[:n]) >= FORCE_BOUND - 1e-9)
    rows.append(np.eye(5 * n)[at_bound])
    constants.append(-np.sign(z[at_bound]) * FORCE_BOUND)
    A, c = np.vstack(rows), np.concatenate(constants)
    # Keep independent rows (the active rows may repeat one another: G = 0, G + V = 0, G − V = 0).
    _, R, order = scipy.linalg.qr(A.T, mode="economic", pivoting=True)
    rank = int(np.sum(np.abs(np.diag(R)) > 1e-10 * np.abs(R[0, 0])))
    A, c = A[np.sort(order[:rank])], c[np.sort(order[:rank])]
    fixed = {"type": "eq", "fun": lambda z: A @ z + c, "jac": lambda z: A}
    result = scipy.optimize.minimize(objective, z, jac=True, method="SLSQP", bounds=bounds,
                                     constraints=[fixed, sides], options={"maxiter": 500, "ftol": 1e-15})
    z, iterations = result.x, iterations + result.nit
    problem.require_feasible(z)
    return problem.split(z)[0].copy(), problem, z, iterations, time.perf_counter() - t0


def step_problem(report, body, state, force):
    """The frictional contact problem u = W r + q of one perp step from ``state`` (x, y, angle, v_x,
    v_y, ω) under the push ``force``: W = H M⁻¹ Hᵀ, q = H (v + h M⁻¹ f) with H the rows (normal, then
    tangent t = (n_y, −n_x)) of the step's active contacts, from the step's own contact geometry."""
    rows = []
    for n, a in zip(report.contacts["normal"], report.contacts["arm_a"]):
        t = np.array([n[1], -n[0]])
        rows.append([n[0], n[1], a[0] * n[1] - a[1] * n[0]])
        rows.append([t[0], t[1], a[0] * t[1] - a[1] * t[0]])
    H = np.array(rows)
    inverse_mass = np.diag([1 / body.mass, 1 / body.mass, 1 / body.moment_of_inertia])
    free = state[3:] + TIMESTEP * inverse_mass @ np.array([force, -body.mass * GRAVITY, 0.0])
    return H @ inverse_mass @ H.T, H @ free, H, inverse_mass, free


def check_contact_implicit(problem, z):
    """Each step of the contact-implicit solution against perp's own step: from its state (the box flat
    at y = 0.1 − 0.1 mm) and push, perp.moreau_jean_step's new velocity against the solution's, and
    the solution's impulses (its normal impulse m g h and friction impulse h (P − Q), shared between the
    two corners so that the box neither lifts nor turns) in the step's frictional contact problem,
    measured by perp.friction_contact_residuals. Returns the worst of each over the steps."""
    F, V, P, Q, _ = problem.split(z)
    v = problem.velocities(z)
    x = problem.x0 + TIMESTEP * np.concatenate([[0.0], np.cumsum(v[:-1] + v[1:]) / 2])
    worst = {"velocity": 0.0, "perp_impulses": 0.0}
    for k in range(problem.n):
        body = perp.Body("box", perp.Box(WIDTH, HEIGHT), MASS, position=(x[k], HEIGHT / 2 - SINK), velocity=(v[k], 0.0))
        body.force = (float(F[k]), 0.0)
        world = perp.World([body], ground=0.0)
        state = world.state[0].copy()
        report = perp.moreau_jean_step(world, **STEP_OPTIONS)
        W, q, H, inverse_mass, free = step_problem(report, body, state, F[k])
        mu = np.full(len(report.normal_impulse), MU)
        worst["velocity"] = max(worst["velocity"], np.abs(world.state[0, 3:] - [V[k], 0.0, 0.0]).max())
        own = np.column_stack([report.normal_impulse, report.tangent_impulse]).ravel()
        criteria = perp.friction_contact_residuals(W, q, mu, own)  # perp's impulses: W, q are its problem
        worst["perp_impulses"] = max(worst["perp_impulses"], criteria["absolute_error"])
        # The solution's impulses at the corners: r_i = r_N,i (1, ρ), ρ = its friction over its normal
        # impulse, with Hᵀ r = M (v_{k+1} − v_free) for v_{k+1} = (V_k, 0, 0).
        ratio = TIMESTEP * (P[k] - Q[k]) / (TIMESTEP * problem.normal)
        columns = (H[0::2] + ratio * H[1::2]).T
        target = np.linalg.solve(inverse_mass, np.array([V[k], 0.0, 0.0]) - free)
        normal = np.linalg.lstsq(columns, target, rcond=None)[0]
        r = np.column_stack([normal, ratio * normal]).ravel()
        for name, value in perp.friction_contact_residuals(W, q, mu, r).items():
            worst[name] = max(worst.get(name, 0.0), value)
    return worst


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plot", metavar="FILE", help="draw both trajectories, x(t) and the force per step, into FILE")
    args = parser.parse_args(argv)
    u, result, seconds = optimize_through_gradients()
    error, speed, run = check(u)
    print(f"L-BFGS-B through perp.rollout_gradient: {result.nit} iterations, {result.nfev} evaluations "
          f"(a rollout and its gradient), {seconds:.2f} s, loss {result.fun:.6e}")
    print(f"  perp.rollout of the controls: x_N - goal = {error:+.3e} m, v_N = {speed:+.3e} m/s, "
          f"effort h sum F^2 = {TIMESTEP * np.sum(u**2):.4f} N^2 s")
    u_ci, problem, z, iterations, seconds_ci = optimize_contact_implicit()
    error_ci, speed_ci, run_ci = check(u_ci)
    print(f"contact-implicit, Scholtes eps = {', '.join(f'{e:g}' for e in EPSILONS)} then its active set, by SLSQP: "
          f"{iterations} iterations, {seconds_ci:.2f} s, loss {problem.loss(z):.6e}")
    print(f"  perp.rollout of the controls: x_N - goal = {error_ci:+.3e} m, v_N = {speed_ci:+.3e} m/s, "
          f"effort h sum F^2 = {TIMESTEP * np.sum(u_ci**2):.4f} N^2 s")
    worst = check_contact_implicit(problem, z)
    print(f"  against perp's step at each state: |v - perp's v| <= {worst['velocity']:.1e} m/s; "
          f"the solution's impulses "
          f"in perp's step problems: absolute error <= {worst['absolute_error']:.1e}, complementarity <= "
          f"{worst['complementarity']:.1e}, dissipation <= {worst['dissipation']:.1e} (perp's own impulses: "
          f"{worst['perp_impulses']:.1e})")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        t = TIMESTEP * np.arange(STEPS + 1)
        fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 5.5))
        for label, controls, states, style in (("through gradients (L-BFGS-B)", u, run, "-"),
                                               ("contact-implicit (Scholtes, SLSQP)", u_ci, run_ci, "--")):
            top.plot(t, states.positions[:, 0, 0], style, label=label)
            bottom.step(t[:-1], controls, style, where="post", label=label)
        top.axhline(GOAL, color="gray", ls=":", label="goal")
        top.set_ylabel("x (m)")
        top.legend()
        bottom.axhline(MU * MASS * GRAVITY, color="gray", ls=":", label="μ m g")
        bottom.axhline(-MU * MASS * GRAVITY, color="gray", ls=":")
        bottom.set_ylabel("push F (N)")
        bottom.set_xlabel("t (s)")
        bottom.legend()
        fig.tight_layout()
        fig.savefig(args.plot)
        print(f"wrote {args.plot}")
    converged = all(abs(e) < 1e-6 and abs(v) < 1e-9 for e, v in ((error, speed), (error_ci, speed_ci)))
    return 0 if converged and worst["absolute_error"] <= 1e-8 and worst["velocity"] <= 1e-8 else 1


if __name__ == "__main__":
    sys.exit(main())
