#pragma once
// The small problems of Lemke's method (private, not installed): up to kStackTableau the tableau
// (lemke.cpp) and the re-solve on the final basis (lemke_small.cpp) live on the stack.

#include <Eigen/Core>

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"

namespace perp::detail {

// Up to this size the tableau lives on the stack (2.4 KB of values, 0.9 KB of indices), so a small
// solve allocates nothing but its result (issue 19: the fixed cost of small solves).
inline constexpr Eigen::Index kStackTableau = 16;

// Re-solve M_αα z_α = −q_α on the final complementary basis, α = {z_i > 0}; keep it when no
// worse. Up to kStackTableau the system, its LU and the point kept for comparison live on the
// stack; the candidate is recomputed in the result's own z and w (detail::recompute_point: the
// natural residual, which is what detail::polish_on_active_set compares above that size; the
// relative one is measured once, on the point kept).
// Called on a result with z sized n <= kStackTableau, w and the natural residual recomputed from z.
void refine_lemke_small(const Lcp& problem, Result& result);

}  // namespace perp::detail
