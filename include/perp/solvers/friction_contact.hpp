#pragma once
/// \file
/// `solve` for the frictional contact problem (core/friction_contact.hpp).

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/core/global_friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp {

/// Validates the problem and the options, then runs `method`. `Result::z` is the reaction r,
/// `Result::w` the local velocity u = W r + q recomputed from r, and `Result::residual` Siconos'
/// relative error of r (`FrictionContactResiduals::relative_error`): `Status::Solved` only when it
/// is <= `SolveOptions::tolerance`. The physical criteria are `friction_contact_residuals(problem, r)`.
[[nodiscard]] Result solve(const FrictionContact& problem, Method method = Method::Auto,
                           const SolveOptions& options = {});
/// The same, and `criteria` = `friction_contact_residuals(problem, z, w)` of the returned point,
/// formed once with the status (a time step reports them without another pass).
[[nodiscard]] Result solve(const FrictionContact& problem, Method method, const SolveOptions& options,
                           FrictionContactResiduals& criteria);

/// The frictional contact problem with W given by its factors, W = H M⁻¹ Hᵀ (M⁻¹ = diag(inverse_mass)):
/// the form in which a time step has it (H the contact Jacobian, its rows per contact in the
/// problem's order, normal first; M⁻¹ the bodies' inverse masses). nsgs then sweeps on the
/// velocities v = M⁻¹ Hᵀ r (a contact's local velocity H_i v + q_i, and v += M⁻¹ H_iᵀ Δr_i after
/// its local solve: O(nnz(H_i)) a contact whatever its neighbours) and W is never formed; memory
/// O(nnz(H)).
struct FactoredFrictionContact {
  int dimension = 2;                                  ///< d: 2 or 3.
  Eigen::SparseMatrix<double, Eigen::RowMajor> H;     ///< n×dofs, n = d·nc.
  Eigen::VectorXd inverse_mass;                       ///< dofs entries, each finite and >= 0.
  Eigen::VectorXd q;                                  ///< n: the free local velocity.
  Eigen::VectorXd mu;                                 ///< nc friction coefficients, each >= 0.

  [[nodiscard]] Eigen::Index contacts() const { return mu.size(); }
  [[nodiscard]] Eigen::Index size() const { return q.size(); }
  /// Throws `InvalidProblem` naming the field: d not 2 or 3, sizes (q: d·nc, H: n×dofs with dofs =
  /// inverse_mass's size), a non-finite entry, a negative μ or inverse mass.
  void validate() const;
  /// u = H M⁻¹ Hᵀ r + q.
  [[nodiscard]] Eigen::VectorXd velocity(const Eigen::VectorXd& r) const;
  /// The same problem with W = H M⁻¹ Hᵀ formed (sparse).
  [[nodiscard]] FrictionContact assembled() const;
};

/// `solve` on the factored form. nsgs sweeps on the factors; auto runs those sweeps first
/// (`friction_contact.automatic.nsgs_sweeps` of them); when they do not solve, in the plane: where no
/// contact slides at the sweeps' point, Anitescu–Potra's relaxation (its velocities are Coulomb's
/// for a structure at rest), and when `friction_contact.automatic.shift_updates` > 0 (default 0), the
/// fixed point on de Saxcé's shift, each update an exact convex program on the factors and a Newton
/// point at its statuses (docs/solvers.md); when that does not solve either, it forms W and
/// continues with the chain of `solve(FrictionContact)`'s auto from the sweeps' point; the other
/// methods form W.
/// The result, its status and `criteria` are those of `solve(FrictionContact)`, with
/// u = H M⁻¹ Hᵀ r + q.
[[nodiscard]] Result solve(const FactoredFrictionContact& problem, Method method, const SolveOptions& options,
                           FrictionContactResiduals& criteria);

/// `solve` on the global form (core/global_friction_contact.hpp): validates the problem and the
/// options, then
///   - d = 2 with M diagonal (rigid bodies in the plane): the problem on its factors, H_local = Hᵀ,
///     M⁻¹ = 1/M_ii, q_local = Hᵀ M⁻¹ q + b, W never formed. Coulomb's law: `solve` on the
///     `FactoredFrictionContact` with `method`. The convex law (interior-point or auto): the
///     velocity program min ½ vᵀ M v − qᵀ v subject to u = Hᵀ v + b ∈ K_μ* (the dual cone's two
///     half-planes per contact), by the interior point on the factors (`FactoredLcp`), r from the
///     half-planes' multipliers;
///   - d = 3 with M diagonal, the convex law (admm or auto): ADMM on the factors with de Saxcé's
///     shift held at 0 (src/solvers/friction/convex/admm.hpp), judged by the convex law's criteria;
///   - otherwise (d = 3, or M not diagonal): Coulomb's law on the local problem (`local_problem`:
///     W = Hᵀ M⁻¹ H formed, M factored once) with `method`; the convex law is `not-applicable` with
///     M not diagonal.
/// `Result::z` is r, `Result::w` is u = Hᵀ v + b, `v` gets M⁻¹ (H r + q), and `criteria` the
/// residuals of (v, r) under the problem's law, every product recomputed. `Result::residual` is
/// `criteria.contact.relative_error`, and the status is `solved` only when it is <= `tolerance`
/// (whatever the inner solver said: its own measure is stated in the message).
[[nodiscard]] Result solve(const GlobalFrictionContact& problem, Method method, const SolveOptions& options,
                           Eigen::VectorXd& v, GlobalFrictionContactResiduals& criteria);
/// The same without the velocities and criteria.
[[nodiscard]] Result solve(const GlobalFrictionContact& problem, Method method = Method::Auto,
                           const SolveOptions& options = {});

/// The methods that accept a `FrictionContact`, in declaration order.
[[nodiscard]] std::vector<Method> friction_contact_methods();

}  // namespace perp
