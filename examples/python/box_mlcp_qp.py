"""The other problem types, each with the same shape of call (twin of ../box_mlcp_qp.cpp)."""
import sys

import numpy as np

import perp

# A unit point mass hits the ground: normal and tangential impulse, |z_t| <= 0.5 z_n (friction coupling).
slide = perp.solve_box(np.eye(2), [-1.0, 2.0], lo=[0, 0], hi=[np.inf, 0], friction=[(1, 0, 0.5)],
                       method="dantzig")  # z = (1, -0.5), w = (0, 1.5): sliding

# 2u + v0 - v1 - 4 = 0 (u free), 0 <= v ⊥ w = (-u + v0 - 1, u + v1 + 1) >= 0.
mixed = perp.solve_mlcp(A=[[2.0]], B=np.eye(2), C=[[1.0, -1.0]], D=[[-1.0], [1.0]], a=[-4.0], b=[-1.0, 1.0])
# z = (u, v) = (1, 2, 0)

best = perp.solve_qp(Q=[[2.0, 1.0], [1.0, 2.0]], c=[-3.0, -3.0])  # x = (1, 1), objective -3

print(f"box LCP: {slide.brief_report()}, z = {slide.z}, w = {slide.w}")
print(f"MLCP:    {mixed.brief_report()}, (u, v) = {mixed.u}, {mixed.v}")
print(f"QP:      {best.lcp.brief_report()}, x = {best.x}, objective {best.objective:g}")
ok = (slide.solved and abs(slide.z[1] + 0.5) < 1e-12 and mixed.solved and abs(mixed.u[0] - 1) < 1e-12
      and best.solved and abs(best.objective + 3) < 1e-12)
sys.exit(0 if ok else 1)
