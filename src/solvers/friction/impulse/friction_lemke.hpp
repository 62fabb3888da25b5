#pragma once
// Private: the frictional contact problem as the LCP of a polyhedral friction cone, solved by
// lemke (friction_lemke.cpp). Not installed.

#include <cstdint>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// solve_friction_lemke pivots on the dense tableau (lemke.cpp) up to this many LCP unknowns and, on
/// a planar problem, on the sparse M (lemke_sparse.cpp) above. Measured on Stewart–Trinkle LCPs
/// of a 1 000-disk heap (both take the same pivots): at 200 unknowns either may be faster (1-3
/// ms), at 300 the sparse kernel is as fast or faster (4-8 ms against 8-9 ms), at 1 000 four to six
/// times as fast (bench/HISTORY.md, "Sparse Lemke on the packed heaps").
inline constexpr Eigen::Index kDenseLemkeMaxSize = 200;

/// Where Lemke's path ends on a secondary ray or at a point that misses the tolerance, that point
/// within kCoveringRetryReach (relative residual) of a solution, it runs again up to
/// kCoveringRetries times with the covering vector e + δ, δ_i uniform in [0, kCoveringSpread) from
/// the seed kCoveringSeed (deterministic). On a 176-contact step of a 100-disk heap whose path ended
/// so (the dense and the sparse kernel alike), 3 of 4 such vectors led each kernel to the solution;
/// on random planar heaps the rays near the end (z0 of 1e-14 to 1e-8) were solved again, the stops
/// midway (z0 of 0.04 to 1, the order of q) never (bench/HISTORY.md, "Lemke again with another
/// covering vector").
inline constexpr int kCoveringRetries = 2;
inline constexpr double kCoveringSpread = 1e-3;
inline constexpr double kCoveringRetryReach = 1e-3;
inline constexpr std::uint64_t kCoveringSeed = 20261204;

/// lemke on the LCP of a polyhedral friction cone: per contact the unknowns r_N, β_1..β_k >= 0
/// (r_T = Σ β_l t_l) and λ, with
///   u_N >= 0 ⊥ r_N,   λ + t_lᵀu_T >= 0 ⊥ β_l,   μ r_N − Σ β_l >= 0 ⊥ λ.
/// 2D: t = ±1, Stewart–Trinkle's LCP, which is exactly Coulomb's law; 3D: k =
/// `friction_contact.lemke.facets` directions at angles 2πl/k, an inner approximation of the cone.
/// Dense pivots, and in the plane above `kDenseLemkeMaxSize` unknowns sparse ones (the same path,
/// rules and judgement); a path that ends on a secondary ray or at a point missing the tolerance is
/// run again with perturbed covering vectors (`kCoveringRetries`; iterations count every pivot, the
/// message every try); `NotApplicable` (z = 0) past `friction_contact.lemke.lcp_max_size` unknowns. The status is
/// judged on the frictional relative error of r read back from the LCP's z.
[[nodiscard]] Result solve_friction_lemke(const FrictionContact& problem, const SolveOptions& options);

}  // namespace perp::detail
