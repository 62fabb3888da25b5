"""perp.torch: the LCP solve as a torch autograd Function (docs/sensitivity.md).

    import torch, perp.torch
    z = perp.torch.lcp(M, q)          # M (n×n), q (n) float64 tensors, requires_grad as you like
    loss = f(z); loss.backward()      # M.grad, q.grad from LcpDerivatives.vjp

The forward pass solves with perp (method and tol as keywords), the backward pass is the adjoint
of the implicit derivative at the solution (one factorization of the free block). A solve that
does not succeed raises ``RuntimeError`` naming its status. Importing this module needs torch
(Debian: python3-torch); perp itself never imports it.
"""
from __future__ import annotations

import numpy as np
import torch

from . import LcpDerivatives, solve

__all__ = ["LcpFunction", "lcp"]


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
