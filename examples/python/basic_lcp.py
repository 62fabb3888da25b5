"""The first program to read: build an LCP, solve it, check the answer (twin of ../basic_lcp.cpp).

The two-contact block of the reference chapter (§1.2): lambda = (5, 5).
"""
import sys

import numpy as np

import perp

M = np.array([[1.75, 0.25], [0.25, 1.75]])  # Delassus operator J M⁻¹ Jᵀ
q = np.array([-10.0, -10.0])                # free acceleration at the contacts

r = perp.solve(M, q, method="lemke", tol=1e-12)
residual = np.max(np.abs(np.minimum(r.z, M @ r.z + q)))  # recomputed here, not taken from r
print(f"{r.brief_report()}\nlambda = ({r.z[0]:g}, {r.z[1]:g}), residual {residual:g}")

# The same problem by every method that should solve it.
for method in ("enum", "murty", "pgs", "auto"):
    print(perp.solve(M, q, method=method, tol=1e-12).brief_report())
sys.exit(0 if r.solved else 1)
