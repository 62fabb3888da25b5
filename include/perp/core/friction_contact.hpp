#pragma once
/// \file
/// The frictional contact problem of contact mechanics ([chapter] §1.5; Siconos'
/// FrictionContactProblem): Coulomb friction in De Saxcé's form, a second-order-cone
/// complementarity problem over nc contacts in dimension d ∈ {2, 3}.

#include <Eigen/Dense>
#include <Eigen/SparseCore>

namespace perp {

/// The contact law a frictional contact problem poses at each contact.
enum class FrictionLaw {
  /// Coulomb's law in De Saxcé's form: K_μ ∋ r ⊥ û ∈ K_μ*, û = u + μ‖u_T‖ e_N (below).
  Coulomb,
  /// The convex relaxation (Anitescu–Potra; the model of Drake's SAP and MuJoCo): K_μ ∋ r ⊥ u ∈ K_μ*,
  /// the optimality conditions of a convex program in the velocities. Sticking and separating
  /// contacts are Coulomb's; a sliding one also separates at normal speed u_N = μ‖u_T‖ (a lift of
  /// μ h ‖u_T‖ per step of size h).
  Convex,
};

/// "coulomb" or "convex".
[[nodiscard]] const char* law_name(FrictionLaw law);

/// Find the reaction r ∈ ℝⁿ (n = d·nc) and the local velocity u = W r + q such that, for every
/// contact i (slots i·d … i·d + d − 1: the normal component first, then the d − 1 tangential ones,
/// Siconos' order),
///   K_μ ∋ r_i ⊥ û_i ∈ K_μ*,   û_i = u_i + μ_i ‖u_T,i‖ e_N,
/// with K_μ = {r : ‖r_T‖ <= μ r_N} the Coulomb cone and K_μ* = {v : μ‖v_T‖ <= v_N} its dual. At a
/// solution each contact is separating (r_i = 0, u_N >= 0), sticking (u_i = 0, r_i ∈ K_μ) or
/// sliding (‖r_T‖ = μ r_N, r_T = −μ r_N u_T/‖u_T‖, u_N = 0). μ_i = 0 makes contact i frictionless.
///
/// W is the Delassus operator, symmetric positive semidefinite when it comes from a mechanical
/// system but assumed neither; it is stored sparse (column-major, Eigen's default) so that a
/// problem of 10⁴ contacts is never densified. `friction_contact_from_dense` builds one from a
/// dense W.
struct FrictionContact {
  int dimension = 2;                ///< d: 2 (planar: one tangential slot) or 3 (two).
  Eigen::SparseMatrix<double> W;    ///< n×n, n = d·nc.
  Eigen::VectorXd q;                ///< n: the free local velocity.
  Eigen::VectorXd mu;               ///< nc friction coefficients, each >= 0.

  /// nc, the number of contacts.
  [[nodiscard]] Eigen::Index contacts() const { return mu.size(); }
  /// n = d·nc, the size of r and u.
  [[nodiscard]] Eigen::Index size() const { return q.size(); }

  /// Throws `InvalidProblem` when d is not 2 or 3, q's size is not d·nc, W is not n×n, an entry
  /// of W, q or μ is NaN/±Inf, or some μ_i < 0; the message names the field, the sizes or the
  /// index and the value.
  void validate() const;

  /// u = W r + q. Throws `InvalidProblem` when r has the wrong size.
  [[nodiscard]] Eigen::VectorXd velocity(const Eigen::VectorXd& r) const;
};

/// The problem with W = `W` (sparsified, exact zeros dropped). Not validated.
[[nodiscard]] FrictionContact friction_contact_from_dense(int dimension, const Eigen::MatrixXd& W,
                                                          const Eigen::VectorXd& q, const Eigen::VectorXd& mu);

/// P_{K_μ}(x): the Euclidean projection of one contact's x (normal first) onto the Coulomb cone
/// ‖x_T‖ <= μ x_N, in closed form: 0 when μ‖x_T‖ <= −x_N, x itself when ‖x_T‖ <= μ x_N, otherwise
/// x_N' = (x_N + μ‖x_T‖)/(1 + μ²), x_T' = μ x_N' x_T/‖x_T‖. `x` and `out` hold d entries and may alias.
void project_on_cone(const double* x, int dimension, double mu, double* out);

/// How far r (and u = W r + q) is from a solution, each figure a maximum over contacts except the
/// two natural-map errors.
struct FrictionContactResiduals {
  /// sqrt(Σ_i ‖r_i − P_{K_μ}(r_i − û_i)‖²): the natural map of the cone complementarity problem
  /// with step 1 (Siconos' fc2d/fc3d_compute_error before its division), in the units of r and u.
  double absolute_error = 0;
  /// absolute_error / max(‖q‖₂, ‖r‖₂, ‖u‖₂): Siconos' error, so that figures compare with
  /// Siconos' own. Where that maximum is 0 (q = 0 and r = 0) it is absolute_error (= 0). Siconos
  /// skips the division when the maximum is <= DBL_EPSILON; perp divides whenever it is positive,
  /// so that a problem scaled by 1e-150 is judged as the unscaled one. Both errors are +inf when an
  /// entry of r or u is not finite (u = W r + q overflowed).
  double relative_error = 0;
  /// max_i max(0, −u_N,i): the approach velocity at a contact (penetration), units of u.
  double signorini = 0;
  /// max_i max(0, ‖r_T,i‖ − μ_i r_N,i, −r_N,i): outside the Coulomb cone, units of r.
  double coulomb = 0;
  /// max_i |r_N,i u_N,i|: normal complementarity, units of r·u.
  double complementarity = 0;
  /// max_i |r_T,i·u_T,i + μ_i r_N,i ‖u_T,i‖|: maximal dissipation (the friction reaction opposes
  /// the sliding velocity and sits on the cone while sliding), units of r·u. It is >= 0 whenever r
  /// is in the cone and 0 exactly at maximal dissipation; r·û = complementarity-term + this term.
  double dissipation = 0;
};

namespace detail {
/// Throws `InvalidProblem` naming the first non-finite entry of A ("FIELD(i, j) is NaN").
void require_finite_entries(const Eigen::SparseMatrix<double>& A, const char* field);
/// Throws `InvalidProblem` naming the first NaN/±Inf or negative μ_i ("mu[i] is -0.1").
void require_friction_coefficients(const Eigen::VectorXd& mu);
}  // namespace detail

/// The residuals of (r, u) under `law`, for contacts of dimension d with coefficients `mu`, the
/// relative error divided by max(`scale`, ‖r‖₂, ‖u‖₂). For the convex law the criteria are those
/// above with u_N replaced by u_N − μ‖u_T‖ (the normal velocity net of the relaxation's lift):
/// `signorini` = max(0, μ‖u_T‖ − u_N) (outside the dual cone), `complementarity` =
/// |r_N (u_N − μ‖u_T‖)|, `dissipation` as above (so that complementarity + dissipation bound
/// |r·u|), and the natural map is r − P_K(r − u). Throws `InvalidProblem` on sizes.
[[nodiscard]] FrictionContactResiduals cone_residuals(int dimension, const Eigen::VectorXd& mu, const Eigen::VectorXd& r,
                                                      const Eigen::VectorXd& u, FrictionLaw law, double scale);

/// The residuals of r, with u = W r + q recomputed. Throws `InvalidProblem` when r has the wrong size.
[[nodiscard]] FrictionContactResiduals friction_contact_residuals(const FrictionContact& problem,
                                                                  const Eigen::VectorXd& r);
/// The same from a u already formed as W r + q (no product).
[[nodiscard]] FrictionContactResiduals friction_contact_residuals(const FrictionContact& problem,
                                                                  const Eigen::VectorXd& r, const Eigen::VectorXd& u);

}  // namespace perp
