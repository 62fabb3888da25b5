#pragma once
/// \file
/// Derivatives of a complementarity solution with respect to the problem's data: the
/// directional derivative (JVP) dz = J(dM, dq) and its adjoint (VJP), by implicit
/// differentiation on the active set (docs/sensitivity.md).
///
/// At a solution z of a box-constrained affine problem (an LCP, a box LCP, an MLCP, a QP's KKT
/// LCP, a 2D frictional contact problem) each component sits in one state: strictly inside its
/// bounds with w_i = 0 (free), at a bound with w_i pointing outward (at lower / at upper), or at a
/// bound with w_i = 0 (degenerate). Where no component is degenerate and the block of the free
/// components is nonsingular, z is a differentiable function of the data near this point and
/// the derivative below is exact and unique. At a degenerate point the solution map is only
/// directionally differentiable: `directional` solves the small box LCP on the degenerate set
/// that gives the exact one-sided derivative along one direction, and `jvp`/`vjp` use one
/// element of the generalized Jacobian, chosen by `DegenerateRule` and stated by `rule()`. Both
/// need the solution locally unique there (strong regularity: the free block nonsingular and its
/// Schur complement on the degenerate components a P-matrix); where it is not (M = ones(2, 2),
/// q = (−1, −1), whose solutions fill a segment), `differentiable()` is false, `rule()` says why,
/// `jvp`/`vjp` throw and `directional` returns no dz.

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/core/qp.hpp"
#include "perp/core/result.hpp"

namespace perp {

/// Which element of the generalized Jacobian `jvp` and `vjp` use at a degenerate component
/// (z_i at a bound and w_i = 0 within the tolerance).
enum class DegenerateRule {
  /// The component stays at its bound (dz_i = d bound_i): the derivative of the piece on which
  /// w_i > 0 (the component inactive). The default: it is the derivative seen by perturbations
  /// that push w_i away from zero, and it never asks a singular block to be inverted more than
  /// the nondegenerate part does.
  Bound,
  /// The component leaves its bound (dw_i = 0): the derivative of the piece on which z_i is
  /// strictly inside its bounds.
  Free,
};

/// Where a component of the solution sits, as the derivative sees it.
enum class ComponentState : unsigned char {
  Free,             ///< strictly inside its bounds, w_i = 0: dw_i = 0
  AtLower,          ///< at its lower bound, w_i > 0: dz_i = d lower_i
  AtUpper,          ///< at its upper bound, w_i < 0: dz_i = d upper_i
  DegenerateLower,  ///< at its lower bound and w_i = 0 within the tolerance
  DegenerateUpper,  ///< at its upper bound and w_i = 0 within the tolerance
};

/// "free", "at-lower", "at-upper", "degenerate-lower", "degenerate-upper".
[[nodiscard]] const char* to_string(ComponentState state);

struct SensitivityOptions {
  /// Relative tolerance that sorts components: z_i is at a bound when |z_i − bound| <=
  /// tolerance·max(‖z‖∞, |bound|), and w_i is zero when |w_i| <= tolerance·max(‖w‖∞, ‖q‖∞).
  /// In (0, 1).
  double tolerance = 1e-9;
  /// The element used at degenerate components.
  DegenerateRule degenerate = DegenerateRule::Bound;
  /// The given point must be a solution: its relative residual (core/residual.hpp) at most this,
  /// or the constructor throws. In (0, 1).
  double solution_tolerance = 1e-6;
  /// Where the reduced system is singular (the solution is not locally unique: redundant
  /// contacts, a singular PSD block), false (default): `jvp`/`vjp` throw. True: they use the
  /// minimum-norm solution of the reduced system (its pseudo-inverse, and the transpose of that
  /// for `vjp`). That element is a derivative of every quantity the non-uniqueness does not touch
  /// — the velocities J M⁻¹ Jᵀ r of redundant contacts that stick — along perturbations that keep
  /// the reduced system consistent; `rule()` says it was used.
  bool minimum_norm = false;
};

namespace detail {

/// The shared kernel: the affine problem w = K z + c with bounds lower <= z <= upper, where a
/// coupled component i has the bounds ∓μ_i |z_j| of its normal j (as in `BoxLcp::friction`).
/// Every problem type maps its data onto (K, c, bounds, couplings) and its perturbations onto
/// p = dK z + dc (the change of w at fixed z), d lower, d upper and dμ.
class BoxSensitivity {
 public:
  BoxSensitivity() = default;
  /// `coupled_normal[i]` is the normal j of a coupled component (−1 for none) and `coupled_mu[i]`
  /// its μ. Sorts the components and factors the reduced system; does not check that z solves.
  BoxSensitivity(const Eigen::MatrixXd& K, const Eigen::VectorXd& w, const Eigen::VectorXd& z,
                 const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                 const std::vector<Eigen::Index>& coupled_normal, const Eigen::VectorXd& coupled_mu,
                 double scale_w, const SensitivityOptions& options);

  /// dz for p = dK z + dc and the bound and friction perturbations (sized n, or empty for zero).
  [[nodiscard]] Eigen::VectorXd jvp(const Eigen::VectorXd& p, const Eigen::VectorXd& dlower,
                                    const Eigen::VectorXd& dupper, const Eigen::VectorXd& dmu) const;

  /// The adjoint: for z̄ (n) the gradients p̄ (on p), lower̄, upper̄ and μ̄ (each n), so that
  /// ⟨z̄, jvp(p, dl, du, dμ)⟩ = ⟨p̄, p⟩ + ⟨lower̄, dl⟩ + ⟨upper̄, du⟩ + ⟨μ̄, dμ⟩.
  struct Adjoint {
    Eigen::VectorXd p, lower, upper, mu;
  };
  [[nodiscard]] Adjoint vjp(const Eigen::VectorXd& z_bar) const;

  /// The exact one-sided directional derivative along (p, dl, du), solving the box LCP on the
  /// degenerate set; `solve` reports how that went (solved at once without a solve when no
  /// component is degenerate; its method is then `Method::Auto`, as for auto's z = 0). `dz` is
  /// empty unless `solve.status` is `Solved`: where the solution is not locally unique
  /// (`locally_unique()` false) no solve runs and `solve` is `NotApplicable` with the reason; where
  /// the degenerate-set problem went unsolved, its status and message say why.
  struct Directional {
    Eigen::VectorXd dz;
    Result solve;
  };
  [[nodiscard]] Directional directional(const Eigen::VectorXd& p, const Eigen::VectorXd& dlower,
                                        const Eigen::VectorXd& dupper) const;

  [[nodiscard]] const std::vector<ComponentState>& states() const { return states_; }
  [[nodiscard]] bool degenerate() const { return degenerate_count_ > 0; }
  /// The reduced system is nonsingular and, at a degenerate point, the solution is locally unique
  /// (`locally_unique`).
  [[nodiscard]] bool differentiable() const { return invertible_ && locally_unique_; }
  /// At a degenerate point: the free block of the directional problem is nonsingular and its
  /// Schur complement on the degenerate components is a P-matrix (the solution is strongly
  /// regular: locally unique, and `directional` has exactly one answer along every direction).
  /// True where no component is degenerate.
  [[nodiscard]] bool locally_unique() const { return locally_unique_; }
  [[nodiscard]] const std::string& rule() const { return rule_; }
  [[nodiscard]] Eigen::Index size() const { return z_.size(); }

 private:
  enum class Kind : unsigned char { Primary, Coupled, Known };
  /// Which components the reduced system solves for (primary), which follow a primary or known
  /// normal (coupled), and which are known from the bounds' perturbation.
  struct System {
    std::vector<Eigen::Index> primary;   // in the system's order
    std::vector<Eigen::Index> coupled;   // coupled components at their bound, normal z_j != 0
    std::vector<Eigen::Index> position;  // position in `primary`, or −1
    std::vector<Kind> kind;
  };
  [[nodiscard]] System membership(bool degenerate_free) const;
  [[nodiscard]] double coupling_sign(Eigen::Index c) const;
  [[nodiscard]] double coupling_slope(Eigen::Index c) const;
  [[nodiscard]] Eigen::MatrixXd reduced_matrix(const System& system) const;
  void fill_dependent(const System& system, const Eigen::VectorXd& dlower, const Eigen::VectorXd& dupper,
                      const Eigen::VectorXd& dmu, Eigen::VectorXd& dz) const;
  [[nodiscard]] Eigen::VectorXd right_side(const System& system, const Eigen::VectorXd& p, const Eigen::VectorXd& dz) const;
  void require_invertible() const;
  /// The system `directional` solves: the free components and the degenerate ones that are not
  /// coupled (those too under `DegenerateRule::Free`).
  [[nodiscard]] System directional_system() const;
  /// Sets `locally_unique_` and `uniqueness_` (why not) from the directional system's blocks.
  void check_local_uniqueness(double tolerance);

  Eigen::MatrixXd K_;
  Eigen::VectorXd z_, w_;
  std::vector<Eigen::Index> normal_;  // coupled normal per component, −1 for none
  Eigen::VectorXd mu_;
  std::vector<ComponentState> states_;
  DegenerateRule rule_degenerate_ = DegenerateRule::Bound;
  System system_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  // The pseudo-inverse's factors of G and Gᵀ, only for a singular G under `minimum_norm`.
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> pinv_, pinv_transpose_;
  bool use_pinv_ = false;
  bool invertible_ = true;
  bool locally_unique_ = true;
  bool minimum_norm_ = false;
  std::string uniqueness_;  // why the solution is not locally unique ("" when it is)
  int degenerate_count_ = 0;
  double rcond_ = 1;
  std::string rule_;
};

}  // namespace detail

/// What every problem type's class below shares: how the components were sorted, and the kernel.
class SensitivityBase {
 public:
  /// Per component, where it sits (in the order of the problem's unknowns).
  [[nodiscard]] const std::vector<ComponentState>& states() const { return kernel_.states(); }
  /// Whether some component is degenerate (z_i at a bound and w_i = 0).
  [[nodiscard]] bool degenerate() const { return kernel_.degenerate(); }
  /// False when z is not locally unique (the reduced system singular, or at a degenerate point
  /// the Schur complement on the degenerate components not a P-matrix): `jvp`/`vjp` throw.
  [[nodiscard]] bool differentiable() const { return kernel_.differentiable(); }
  /// See `detail::BoxSensitivity::locally_unique`.
  [[nodiscard]] bool locally_unique() const { return kernel_.locally_unique(); }
  /// One sentence: the sets, the element chosen at degenerate components, invertibility.
  [[nodiscard]] const std::string& rule() const { return kernel_.rule(); }

 protected:
  detail::BoxSensitivity kernel_;
};

/// d(z) of an LCP(q, M) solution z. Construct after a solve:
/// `LcpSensitivity s(problem, result.z); auto dz = s.jvp(dM, dq);`.
class LcpSensitivity : public SensitivityBase {
 public:
  /// Throws `InvalidProblem` when the problem is invalid, z has the wrong size or is not a
  /// solution (relative residual above `options.solution_tolerance`), or the options are out of range.
  LcpSensitivity(const Lcp& problem, const Eigen::VectorXd& z, const SensitivityOptions& options = {});

  /// dz along (dM, dq); dM may be empty (0×0) for zero. Exact when `!degenerate()`; at a
  /// degenerate point the element of `rule()`. Throws `InvalidProblem` when `!differentiable()`.
  [[nodiscard]] Eigen::VectorXd jvp(const Eigen::MatrixXd& dM, const Eigen::VectorXd& dq) const;
  /// The exact one-sided derivative lim_{t↓0} (z(M + t dM, q + t dq) − z)/t, from a box LCP on
  /// the degenerate set (`solve` says whether it was solved).
  [[nodiscard]] detail::BoxSensitivity::Directional directional(const Eigen::MatrixXd& dM,
                                                                const Eigen::VectorXd& dq) const;

  struct Gradient {
    Eigen::MatrixXd M;  ///< ∂L/∂M = q̄ zᵀ
    Eigen::VectorXd q;  ///< ∂L/∂q
  };
  /// For z̄ = ∂L/∂z, the gradients of L with respect to M and q (the adjoint of `jvp`).
  [[nodiscard]] Gradient vjp(const Eigen::VectorXd& z_bar) const;


 private:
  Eigen::VectorXd z_;
};

/// d(z) of a box LCP solution, with respect to M, q, the bounds and the friction coefficients of
/// its couplings (a coupled component at its bound moves with its normal: dz_i = ±(μ dz_j + z_j dμ)).
class BoxLcpSensitivity : public SensitivityBase {
 public:
  BoxLcpSensitivity(const BoxLcp& problem, const Eigen::VectorXd& z, const SensitivityOptions& options = {});

  struct Perturbation {
    Eigen::MatrixXd M;      ///< n×n or empty for zero
    Eigen::VectorXd q;      ///< n or empty
    Eigen::VectorXd lower;  ///< n or empty (entries at infinite bounds are ignored)
    Eigen::VectorXd upper;  ///< n or empty
    Eigen::VectorXd mu;     ///< one per entry of `friction`, or empty
  };
  [[nodiscard]] Eigen::VectorXd jvp(const Perturbation& d) const;
  [[nodiscard]] detail::BoxSensitivity::Directional directional(const Perturbation& d) const;
  /// The gradients in the same shape (M, q, lower, upper, mu all sized).
  [[nodiscard]] Perturbation vjp(const Eigen::VectorXd& z_bar) const;


 private:
  Eigen::VectorXd p_of(const Perturbation& d) const;
  Eigen::VectorXd mu_of(const Perturbation& d) const;
  Eigen::VectorXd z_;
  std::vector<FrictionCoupling> friction_;
};

/// d(u, v) of an MLCP solution z = (u, v) with respect to its blocks (u free, v >= 0).
class MlcpSensitivity : public SensitivityBase {
 public:
  MlcpSensitivity(const Mlcp& problem, const Eigen::VectorXd& z, const SensitivityOptions& options = {});

  /// A perturbation of the blocks; an empty matrix or vector stands for zero. `vjp` returns
  /// every block sized.
  struct Blocks {
    Eigen::MatrixXd A, B, C, D;
    Eigen::VectorXd a, b;
  };
  [[nodiscard]] Eigen::VectorXd jvp(const Blocks& d) const;
  [[nodiscard]] detail::BoxSensitivity::Directional directional(const Blocks& d) const;
  [[nodiscard]] Blocks vjp(const Eigen::VectorXd& z_bar) const;


 private:
  Eigen::VectorXd p_of(const Blocks& d) const;
  Eigen::Index n_ = 0, m_ = 0;
  Eigen::VectorXd z_;
};

/// d(x, μ) of a convex QP's solution (its KKT point z = (x, μ), core/qp.hpp) with respect to Q,
/// c, A and b. The gradient on Q is the plain one (x̄-weighted outer product, not symmetrized).
class QpSensitivity : public SensitivityBase {
 public:
  /// x and the multipliers mu of A x >= b (as in `QpResult`).
  QpSensitivity(const Qp& problem, const Eigen::VectorXd& x, const Eigen::VectorXd& mu,
                const SensitivityOptions& options = {});

  struct Data {
    Eigen::MatrixXd Q, A;
    Eigen::VectorXd c, b;
  };
  struct Point {
    Eigen::VectorXd x, mu;
  };
  [[nodiscard]] Point jvp(const Data& d) const;
  /// For x̄ (and μ̄, which may be empty for zero) the gradients on Q, A, c, b.
  [[nodiscard]] Data vjp(const Eigen::VectorXd& x_bar, const Eigen::VectorXd& mu_bar = {}) const;


 private:
  Eigen::VectorXd p_of(const Data& d) const;
  Eigen::Index n_ = 0, k_ = 0;
  Eigen::VectorXd x_, mu_;
};

/// d(r) of a 2D frictional contact solution (d = 2: r = (r_N, r_T) per contact) with respect to
/// W, q and μ. Per contact: take-off (r = 0, u_N > 0: dr = 0), stick (|r_T| < μ r_N: du = 0),
/// slide (r_T = ∓μ r_N with u_N = 0: du_N = 0, dr_T = ∓(μ dr_N + r_N dμ)); degenerate where
/// two of these meet. W is densified for the reduced system (at most 4000 unknowns).
class FrictionContactSensitivity : public SensitivityBase {
 public:
  /// Throws `InvalidProblem` for d = 3 (not supported), an invalid problem, or r that is not a
  /// solution (relative error above `options.solution_tolerance`).
  FrictionContactSensitivity(const FrictionContact& problem, const Eigen::VectorXd& r,
                             const SensitivityOptions& options = {});

  struct Perturbation {
    Eigen::MatrixXd W;   ///< n×n dense, or empty for zero
    Eigen::VectorXd q;   ///< n or empty
    Eigen::VectorXd mu;  ///< nc or empty
  };
  [[nodiscard]] Eigen::VectorXd jvp(const Perturbation& d) const;
  /// Gradients on q and μ, and on W as the dense outer product q̄ rᵀ.
  [[nodiscard]] Perturbation vjp(const Eigen::VectorXd& r_bar) const;


 private:
  Eigen::VectorXd r_;
};

}  // namespace perp
