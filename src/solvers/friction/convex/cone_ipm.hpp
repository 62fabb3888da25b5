#pragma once
// Private: the interior point on the second-order cones of 3D contacts (cone_ipm.cpp), behind
// interior-point on a d = 3 FrictionContact (Coulomb's law as a fixed point on de Saxcé's shift
// around it) and on the convex law of a 3D GlobalFrictionContact. Not installed.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <memory>
#include <string>
#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// The convex program of the velocities v of the moving degrees of freedom, for d = 3 contacts:
///   min ½ vᵀ M v  subject to  u_i = (H v + q)_i ∈ K_μi*  for each contact i,
/// whose multipliers r_i ∈ K_μi (M v = Hᵀ r) solve the convex law K ∋ r ⊥ u = W r + q ∈ K*,
/// W = H M⁻¹ Hᵀ (M⁻¹ = diag(inverse_mass); columns with M⁻¹ = 0 keep v = 0). v is unique where r
/// is not (redundant contacts). In the scaled variables z_i = (r_N, r_T/μ) and s_i = (u_N, μ u_T)
/// both cones are the standard one Q = {(t, x) : ‖x‖ <= t} and zᵀs = rᵀu (μ = 0: the tangential
/// rows vanish, r_T = 0). Solved by a primal-dual interior point with Nesterov–Todd scaling on each
/// cone and Mehrotra's predictor-corrector (docs/references.md: Nesterov–Todd 1997; Vandenberghe,
/// "The CVXOPT linear and quadratic cone program solvers", 2010, §4 for the scaling's closed form);
/// each step one factorization of M + Hᵀ G H (G block diagonal, 3 × 3 a contact), its pattern and
/// symbolic analysis built once and kept across steps and across calls of `solve` (new q).
class SocInteriorPoint {
 public:
  /// H: 3 nc × dofs (rows normal, tangent, tangent per contact); μ >= 0, one per contact.
  SocInteriorPoint(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H, const Eigen::VectorXd& inverse_mass,
                   const Eigen::VectorXd& mu);
  ~SocInteriorPoint();
  SocInteriorPoint(const SocInteriorPoint&) = delete;
  SocInteriorPoint& operator=(const SocInteriorPoint&) = delete;

  /// How a solve ended: the point with the smallest error seen (r, u = W r + q recomputed from r),
  /// that error (the convex law's relative error, `cone_residuals` with scale ‖q‖), the steps and
  /// why it stopped.
  struct Outcome {
    Eigen::VectorXd r;
    Eigen::VectorXd u;
    FrictionContactResiduals residuals;
    double error = 0;
    int steps = 0;
    bool solved = false;
    bool interrupted = false;  ///< stopped by the time limit or the interrupt hook
    /// Unsolved: `MaxIterations` (the step limit), `NoSolutionFound` (the stall), `NumericalFailure`
    /// (a failed factorization, a non-finite direction or a step that cannot move).
    Status status = Status::NotRun;
    std::string stop;
  };

  /// The program for this q (3 nc), until the convex law's relative error <= tolerance, `limit`
  /// steps, no halving of the best error in `kSocStallSteps` steps, a failed factorization or a step
  /// that cannot move. `history`, when not null, gets the error after each step.
  [[nodiscard]] Outcome solve(const Eigen::VectorXd& q, double tolerance, int limit, std::vector<double>* history);

  /// Steps taken by all the solves so far (each one factorization).
  [[nodiscard]] int factorizations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// interior-point on the convex law of a d = 3 problem given by its factors: one `SocInteriorPoint`
/// solve of q. z = r, w = u; status `Solved` when the convex law's relative error <= tolerance.
[[nodiscard]] Result solve_convex_cone_interior_point(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                                      const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                                                      const SolveOptions& options, FrictionContactResiduals& residuals);

/// interior-point on Coulomb's law in 3D, given by the factors (`shell` carries q and μ): Cadoux's
/// fixed point on de Saxcé's shift, each update the convex program of q + s (s_i = μ_i ‖u_T,i‖ in
/// the normal rows, u the velocities of the last update; the first from r0's velocities) solved
/// by `SocInteriorPoint` (one symbolic analysis for all updates); stops when Coulomb's relative
/// error (Siconos') <= tolerance, after `kSocMaxShiftUpdates` updates, or when the error has not halved
/// in 4 updates; then, unsolved, nsgs sweeps on the factors from the best point (the polish).
/// z = r, w = u, `residuals` Coulomb's criteria; iterations = interior steps + sweeps.
[[nodiscard]] Result solve_coulomb_cone_interior_point(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                                       const Eigen::VectorXd& inverse_mass,
                                                       const FrictionContact& shell, const SolveOptions& options,
                                                       const Eigen::VectorXd& r0, FrictionContactResiduals& residuals);

}  // namespace perp::detail
