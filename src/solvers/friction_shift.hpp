#pragma once
// Private: Coulomb's law in the plane as a fixed point on de Saxcé's shift, each step an exact
// convex program (friction_shift.cpp). Not installed.

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// A planar (d = 2) frictional contact problem given by its factors, W = H M⁻¹ Hᵀ; `shell`
/// carries q and μ (its W is not read). With de Saxcé's shift s_i = μ_i |u_T,i|, Coulomb's law is
/// K_μ ∋ r ⊥ u + s e_N ∈ K_μ*: for a fixed s, the LCP of the cone's edges (Anitescu–Potra's
/// relaxation with q_N + s), monotone and given by its factors. Each update solves that LCP to its
/// vertex (`solve(FactoredLcp)`, warm-started from the last update's multipliers, so that an
/// unchanged active set costs one factorization) and sets s from the velocities reached. Stops when
/// the relative error of r is <= tolerance, after `max_iterations` updates (default 50), or when the
/// error has not halved in 4 updates. Returns the best point: z = r, w = u, `residuals` its
/// criteria; status `Solved` or `MaxIterations`; iterations = updates.
[[nodiscard]] Result solve_by_shifts(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                     const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                                     const SolveOptions& options, const Eigen::VectorXd& r0,
                                     FrictionContactResiduals& residuals);

}  // namespace perp::detail
