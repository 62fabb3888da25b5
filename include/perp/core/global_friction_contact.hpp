#pragma once
/// \file
/// The global frictional contact problem: the frictional contact problem stated in the velocities
/// of the system (fclib's `fclib_global` without equality constraints; Siconos'
/// GlobalFrictionContactProblem), whose local form (core/friction_contact.hpp) is the reduction
/// W = Hᵀ M⁻¹ H. A time step has it directly from the bodies' mass matrix and the contacts'
/// Jacobian; W is never formed. The velocities v are unique where M is positive definite, even
/// where the contacts are redundant and the reactions r are not.

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "perp/core/friction_contact.hpp"

namespace perp {

/// Find the velocities v (dofs), the reactions r and the local velocities u (n = d·nc) with
///   M v = H r + q,
///   u = Hᵀ v + b,
///   for every contact i: K_μ ∋ r_i ⊥ û_i ∈ K_μ*, û_i = u_i + μ_i ‖u_T,i‖ e_N (Coulomb's law) or
///   û_i = u_i (the convex law, `FrictionLaw::Convex`),
/// with K_μ the Coulomb cone and the contacts' slots ordered as in `FrictionContact` (normal first).
///
/// Sign conventions: fclib's (fclib.h, `fclib_global`: M v = H r + f, û = Hᵀ v + w + …), with
/// fclib's f called q and its w called b here (Siconos' names). For a Moreau–Jean step of size h:
/// M the mass matrix, q = M v_k + h f (the free momentum), H = Jᵀ (a column per contact slot), b the
/// velocity bias (restitution, drift correction; 0 otherwise), r the impulses.
///
/// The local form: r solves the local problem W = Hᵀ M⁻¹ H, q_local = Hᵀ M⁻¹ q + b
/// (`local_problem`), and v = M⁻¹ (H r + q) (`global_velocity`).
struct GlobalFrictionContact {
  int dimension = 2;                       ///< d: 2 or 3.
  FrictionLaw law = FrictionLaw::Coulomb;  ///< The law posed at every contact.
  Eigen::SparseMatrix<double> M;           ///< dofs×dofs, symmetric positive definite.
  Eigen::SparseMatrix<double> H;           ///< dofs×n, n = d·nc: a column per contact slot.
  Eigen::VectorXd q;                       ///< dofs: the free momentum (fclib's f).
  Eigen::VectorXd b;                       ///< n: the local velocity's constant (fclib's w).
  Eigen::VectorXd mu;                      ///< nc friction coefficients, each >= 0.

  [[nodiscard]] Eigen::Index dofs() const { return q.size(); }
  [[nodiscard]] Eigen::Index contacts() const { return mu.size(); }
  /// n = d·nc, the size of r and u.
  [[nodiscard]] Eigen::Index size() const { return b.size(); }

  /// Throws `InvalidProblem` naming the field, the sizes or the index and the value: d not 2 or 3;
  /// b not d·nc; M not dofs×dofs or not symmetric (|M_ij − M_ji| > 1e-12 max|M|) or with a diagonal
  /// entry <= 0; H not dofs×n; a NaN/±Inf entry; some μ_i < 0. Positive definiteness is checked
  /// where M is factored (`global_velocity`, `local_problem`, the solvers).
  void validate() const;
  /// Whether M is diagonal (rigid bodies in the plane; the solvers then need no factor of M).
  [[nodiscard]] bool diagonal_mass() const;
  /// u = Hᵀ v + b. Throws `InvalidProblem` when v has the wrong size.
  [[nodiscard]] Eigen::VectorXd local_velocity(const Eigen::VectorXd& v) const;
};

/// v = M⁻¹ (H r + q), by a sparse Cholesky factor of M (1/M_ii where M is diagonal). Throws
/// `InvalidProblem` when r has the wrong size or M is not positive definite.
[[nodiscard]] Eigen::VectorXd global_velocity(const GlobalFrictionContact& problem, const Eigen::VectorXd& r);

/// The local problem of the same contacts: W = Hᵀ M⁻¹ H (sparse), q = Hᵀ M⁻¹ q + b, the same μ and
/// d. Its law is Coulomb's: throws `InvalidProblem` for a problem of the convex law, and when M is not
/// positive definite.
[[nodiscard]] FrictionContact local_problem(const GlobalFrictionContact& problem);

/// How far (v, r) is from a solution.
struct GlobalFrictionContactResiduals {
  /// The criteria of (r, u = Hᵀ v + b) under the problem's law (`cone_residuals`): Signorini,
  /// Coulomb, complementarity, maximal dissipation, and the natural map, relative to
  /// max(‖b‖₂, ‖r‖₂, ‖u‖₂).
  FrictionContactResiduals contact;
  /// ‖M v − H r − q‖∞, in momentum units (the units of r).
  double equilibrium = 0;
  /// `equilibrium` / max(‖q‖∞, ‖H r‖∞, ‖M v‖∞) (itself where that is 0).
  double relative_equilibrium = 0;
};

/// The residuals of (v, r), every product recomputed. Throws `InvalidProblem` on sizes.
[[nodiscard]] GlobalFrictionContactResiduals global_friction_contact_residuals(const GlobalFrictionContact& problem,
                                                                               const Eigen::VectorXd& v,
                                                                               const Eigen::VectorXd& r);

}  // namespace perp
