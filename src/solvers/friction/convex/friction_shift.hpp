#pragma once
// Private: Coulomb's law in the plane as a fixed point on de Saxcé's shift, each step an exact
// convex program (friction_shift.cpp). Not installed.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <optional>

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
/// error has not halved in 4 updates. The first shift is μ|u_T| at r0's velocities, or
/// `initial_shift` (one entry per contact, >= 0) where given: with 0 the first program is
/// Anitescu–Potra's relaxation itself, whose velocities are unique and are Coulomb's wherever a
/// solution of Coulomb's law has every contact sticking or open (a structure at rest), so that one
/// update solves it. Returns the best point: z = r, w = u, `residuals` its criteria; status
/// `Solved` or `MaxIterations`; iterations = updates.
[[nodiscard]] Result solve_by_shifts(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                     const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                                     const SolveOptions& options, const Eigen::VectorXd& r0,
                                     FrictionContactResiduals& residuals,
                                     const std::optional<Eigen::VectorXd>& initial_shift = std::nullopt);

/// The same problem where no contact slides at r0 (every |u_T,i| at most min(100 × max(error,
/// tolerance), 0.01) × ‖q‖∞, `error` the relative error of r0): one update of `solve_by_shifts` from the
/// shift 0, i.e. Anitescu–Potra's relaxation solved to its vertex and the Newton point at its
/// statuses. Its velocities are unique and are Coulomb's wherever Coulomb's law has a solution with
/// every contact sticking or open, as for a structure from rest, which sweeps solve only in
/// thousands. Nothing where a contact slides at r0 (the relaxation is then not Coulomb's law, and
/// its program would cost a solve for nothing).
[[nodiscard]] std::optional<Result> solve_at_rest(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                                  const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                                                  const SolveOptions& options, const Eigen::VectorXd& r0,
                                                  double error, FrictionContactResiduals& residuals);

}  // namespace perp::detail
