"""perp.torch: the LCP solve as a torch autograd Function (docs/sensitivity.md).

    import torch, perp.torch
    z = perp.torch.lcp(M, q)          # M (n×n), q (n) float64 tensors, requires_grad as you like
    loss = f(z); loss.backward()      # M.grad, q.grad from LcpDerivatives.vjp

The forward pass solves with perp (method and tol as keywords), the backward pass is the adjoint
of the implicit derivative at the solution (one factorization of the free block). A solve that
does not succeed raises ``RuntimeError`` naming its status.

A rollout of a planar scene as one differentiable function (perp.rollout_gradient's adjoint):

    x0 = torch.tensor(..., requires_grad=True)         # (2, bodies, 3): positions, velocities
    forces = torch.zeros(steps, bodies, 3, dtype=torch.float64, requires_grad=True)
    mu = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    positions, velocities = perp.torch.rollout(scene, steps, x0, forces, friction=mu)
    loss = f(positions, velocities); loss.backward()    # x0.grad, forces.grad, mu.grad

Importing this module needs torch (Debian: python3-torch); perp itself never imports it.
"""
from __future__ import annotations

import numpy as np
import torch

from . import LcpDerivatives, solve
from .rollouts import _run

__all__ = ["LcpFunction", "lcp", "RolloutFunction", "rollout"]


class LcpFunction(torch.autograd.Function):
    """z = LCP(M, q); backward gives (M̄, q̄) = Jᵀ z̄ (the `degenerate` rule at degenerate points)."""

    @staticmethod
    def forward(ctx, M, q, method="auto", tol=1e-10, degenerate="bound"):
        Mn = M.detach().cpu().numpy().astype(np.float64)
        qn = q.detach().cpu().numpy().astype(np.float64)
        result = solve(Mn, qn, method=method, tol=tol)
        if not result.solved:
            raise RuntimeError(f"perp.torch.lcp: the solve ended {result.status}: {result.message}")
        z = np.array(result.z)
        ctx.derivatives = LcpDerivatives(Mn, qn, z, degenerate=degenerate)
        return torch.as_tensor(z, dtype=q.dtype, device=q.device)

    @staticmethod
    def backward(ctx, z_bar):
        M_bar, q_bar = ctx.derivatives.vjp(z_bar.detach().cpu().numpy().astype(np.float64))
        device, dtype = z_bar.device, z_bar.dtype
        return (torch.as_tensor(M_bar, dtype=dtype, device=device), torch.as_tensor(q_bar, dtype=dtype, device=device),
                None, None, None)


def lcp(M, q, method: str = "auto", tol: float = 1e-10, degenerate: str = "bound"):
    """The solution z of LCP(q, M) as a differentiable function of the tensors M and q."""
    return LcpFunction.apply(M, q, method, tol, degenerate)


def _numpy(x):
    return None if x is None else x.detach().cpu().numpy().astype(np.float64)


def _number(x):
    return None if x is None else float(x.detach().cpu().reshape(()).item())


class RolloutFunction(torch.autograd.Function):
    """(positions, velocities) of every state of a rollout (steps + 1, bodies, 3 each) as a function
    of the initial state (2, bodies, 3), the forces (steps, bodies, 3), friction and restitution
    (0-d); any of them None keeps the scene's and gets no gradient. backward runs the adjoint of
    the run once (perp.rollout_gradient with weights on every state)."""

    @staticmethod
    def forward(ctx, initial_state, forces, friction, restitution, scene, steps, degenerate="bound",
                minimum_norm=False, tol=1e-9):
        run = _run(scene, steps, _numpy(forces), _number(friction), _number(restitution), _numpy(initial_state))
        ctx.run = run
        ctx.options = (degenerate, bool(minimum_norm), float(tol))
        ctx.given = tuple(x is not None for x in (initial_state, forces, friction, restitution))
        like = next((x for x in (initial_state, forces, friction, restitution) if x is not None), None)
        dtype = like.dtype if like is not None else torch.float64
        device = like.device if like is not None else None
        ctx.like = (dtype, device)
        return (torch.as_tensor(run.positions, dtype=dtype, device=device),
                torch.as_tensor(run.velocities, dtype=dtype, device=device))

    @staticmethod
    def backward(ctx, positions_bar, velocities_bar):
        run = ctx.run
        shape = (run.steps + 1, run.bodies, 3)
        p = np.zeros(shape) if positions_bar is None else _numpy(positions_bar)
        v = np.zeros(shape) if velocities_bar is None else _numpy(velocities_bar)
        run.differentiate(*ctx.options)
        g = run.vjp(np.ascontiguousarray(np.stack([p, v], axis=1)))
        dtype, device = ctx.like
        out = []
        for given, name in zip(ctx.given, ("initial_state", "forces", "friction", "restitution")):
            out.append(torch.as_tensor(np.asarray(g[name]), dtype=dtype, device=device) if given else None)
        return (*out, None, None, None, None, None)


def rollout(scene, steps, initial_state=None, forces=None, friction=None, restitution=None,
            degenerate: str = "bound", minimum_norm: bool = False, tol: float = 1e-9):
    """(positions, velocities) of a rollout of ``scene`` (perp.rollout) as differentiable functions
    of the tensors ``initial_state`` (2, bodies, 3), ``forces`` (steps, bodies, 3), ``friction`` and
    ``restitution`` (0-d); None keeps the scene's. ``degenerate``, ``minimum_norm`` and ``tol`` as
    for perp.rollout_gradient; its ``switches`` say where the derivative is one-sided."""
    return RolloutFunction.apply(initial_state, forces, friction, restitution, scene, steps, degenerate,
                                 minimum_norm, tol)
