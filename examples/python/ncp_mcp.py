"""An NCP and an MCP with Python callables (twin of ../ncp_mcp.cpp)."""
import sys

import numpy as np

import perp


def F(z):
    return np.array([2 * z[0] + z[1] ** 2 - 1, z[1] - z[0] + 1])


def J(z):
    return np.array([[2.0, 2 * z[1]], [-1.0, 1.0]])


r = perp.solve_ncp(F, J, warm_start=[0.0, 0.0], method="newton-fb", tol=1e-12, max_iter=100)
print(f"{r.status} after {r.iterations} iterations, residual {r.residual:g}, history {len(r.history)}")
b = perp.solve_mcp(F, J, lower=[-0.5, -0.5], upper=np.inf, method="newton-min", tol=1e-12, max_iter=100)
print(f"MCP: {b.brief_report()}, z = {b.z}")  # z = (0.375, -0.5): z1 at its lower bound
sys.exit(0 if r.solved and b.solved else 1)
