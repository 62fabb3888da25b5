#pragma once
// Private: the frictional contact problem as the LCP of a polyhedral friction cone, solved by
// lemke (friction_lemke.cpp). Not installed.

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// solve_friction_lemke pivots on the dense tableau (lemke.cpp) up to this many LCP unknowns and, on
/// a planar problem, on the sparse M (lemke_sparse.cpp) above. Measured on Stewart–Trinkle LCPs
/// of a 1 000-disk heap (both take the same pivots): at 200 unknowns either may be faster (1-3
/// ms), at 300 the sparse kernel is as fast or faster (4-8 ms against 8-9 ms), at 1 000 four to six
/// times as fast (bench/README.md, "Sparse Lemke on the packed heaps").
inline constexpr Eigen::Index kDenseLemkeMaxSize = 200;

/// lemke on the LCP of a polyhedral friction cone: per contact the unknowns r_N, β_1..β_k >= 0
/// (r_T = Σ β_l t_l) and λ, with
///   u_N >= 0 ⊥ r_N,   λ + t_lᵀu_T >= 0 ⊥ β_l,   μ r_N − Σ β_l >= 0 ⊥ λ.
/// 2D: t = ±1, Stewart–Trinkle's LCP, which is exactly Coulomb's law; 3D: k =
/// `friction_contact.facets` directions at angles 2πl/k, an inner approximation of the cone.
/// Dense pivots, and in the plane above `kDenseLemkeMaxSize` unknowns sparse ones (the same path,
/// rules and judgement); `NotApplicable` (z = 0) past `friction_contact.lcp_max_size` unknowns. The status is judged on the
/// frictional relative error of r read back from the LCP's z.
[[nodiscard]] Result solve_friction_lemke(const FrictionContact& problem, const SolveOptions& options);

}  // namespace perp::detail
