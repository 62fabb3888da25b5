#pragma once

// Private: the alternating direction method of multipliers on the frictional contact problem with
// de Saxcé's shift (admm.cpp). Not installed.

#include <Eigen/SparseCore>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// ADMM on Coulomb's law, W = H M⁻¹ Hᵀ kept as its factors (M⁻¹ = diag(`inverse_mass`)): each
/// iteration one solve with W + τI through the factor of τI + D^{1/2} Hᵀ H D^{1/2} (dofs × dofs,
/// its pattern analysed once), one projection on each contact's cone, de Saxcé's shift updated
/// from the dual iterate. `shell` carries d, q and μ (its W is not read). From `r0`.
/// With `law` = `FrictionLaw::Convex` the shift stays 0: the iteration is ADMM on the convex
/// program min ½ rᵀ W r + qᵀ r over r ∈ K_μ, whose optimality conditions are the convex law
/// (any d, W positive semidefinite), judged by that law's criteria (`cone_residuals`).
[[nodiscard]] Result solve_admm_factored(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                         const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                                         const SolveOptions& options, const Eigen::VectorXd& r0,
                                         FrictionContactResiduals& residuals, FrictionLaw law = FrictionLaw::Coulomb);

/// The same on W formed: W + τI factored by a sparse LDLᵀ.
[[nodiscard]] Result solve_admm(const FrictionContact& problem, const SolveOptions& options,
                                const Eigen::VectorXd& r0, FrictionContactResiduals& residuals);

}  // namespace perp::detail
