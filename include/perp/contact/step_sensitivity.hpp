#pragma once
/// \file
/// Derivatives of a Moreau–Jean step (moreau_jean.hpp) and of a rollout of steps.
///
/// One step maps the state (q, v) — 3 coordinates per body: x, y, angle, and vx, vy, ω — to
/// (q⁺, v⁺) through the frictional contact problem of its active contacts:
///   v_free = v + h g + h M⁻¹ f,   u = W r + q_fc,   q_fc = J v_free + E J_N v,   W = J M⁻¹ Jᵀ,
///   v⁺ = v_free + M⁻¹ Jᵀ r,       q⁺ = q + h ((1 − θ) v + θ v⁺),
/// with r the impulses, J = J(q) the contact Jacobian (normal and tangent rows interleaved), E the
/// contacts' restitutions and f an applied generalized force beside gravity (0 in the step; its
/// derivative is taken at the applied force, `Body::force` and `Body::torque`). With speculative
/// contacts (`MoreauJeanOptions::speculative`), a contact only their rules activate has no
/// restitution term: its normal row of q_fc carries (g + h (1 − θ) J_N v) / (h θ) instead, g its
/// gap (dg = J_N dq), so that its derivative with respect to e is 0 (its law has no e; with e > 0
/// the pair would keep the plain rule and not be active). `StepSensitivity` differentiates this map with respect to q, v,
/// f, the diagonal of M and each contact's μ and e, **under fixed contact activation**: the step's
/// active contacts stay active and keep their features (which corner touches which face), so a
/// perturbation that would switch a contact on or off in the step is not seen. Within that, the
/// impulses' derivative is the frictional contact problem's (solvers/sensitivity.hpp: exact at a
/// nondegenerate point, the element of `SensitivityOptions::degenerate` at a degenerate one), and
/// the geometric part — how the normals and lever arms turn with q — is exact for disks against
/// disks, the ground and planes, and for box and rod corners against the ground and planes; for the
/// other pairs (disk–box, box–box, rods against bodies) it is taken by central differences of the
/// contact detection at the same feature (`geometry_exact()` says so).
///
/// `rollout` records a run of steps, optionally with an applied force per step, and
/// `rollout_gradient` gives the gradient of a loss on its states with respect to the initial state,
/// each step's applied forces and the scene's μ and e, by the adjoint (one `vjp` a step, backwards)
/// — what fitting μ to an observed sliding distance, e to bounce heights, or a push to a goal needs.
/// `RolloutSensitivity` keeps each step's derivative to run several adjoints (a full Jacobian) and
/// lists the contacts that sat at a switch of the step map (`ContactSwitch`), where the derivative
/// returned is one-sided: the piece it belongs to is named there.

#include <Eigen/Dense>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/contact/moreau_jean.hpp"
#include "perp/solvers/sensitivity.hpp"

namespace perp::contact {

/// A perturbation of a step's inputs (each vector empty for zero), or the gradient of a loss on them.
struct StepTangent {
  Eigen::VectorXd q;            ///< positions and angles, 3 per body
  Eigen::VectorXd v;            ///< velocities, 3 per body
  Eigen::VectorXd force;        ///< applied generalized force (N, N, N·m), 3 per body, over the step
  Eigen::VectorXd mass;         ///< the diagonal of M: (m, m, I) per body; a fixed body's entries do nothing
  Eigen::VectorXd friction;     ///< μ of each active contact, in `StepReport::contacts` order
  Eigen::VectorXd restitution;  ///< e of each active contact
};

/// A state (q, v), 3 + 3 entries per body, or the gradient of a loss on one (empty for zero).
struct StepState {
  Eigen::VectorXd q;
  Eigen::VectorXd v;
};

/// The derivative of one step, built from the world before the step, the options it ran with and
/// its report.
class StepSensitivity {
 public:
  /// Throws `InvalidProblem` when the options use what is not differentiated here (a friction
  /// model other than Coulomb, projection, Baumgarte or split impulse, sleeping), when the report
  /// does not belong to this world (contact bodies out of range) or its step was not solved, or when
  /// its impulses are not a solution of the step's problem within `sensitivity.solution_tolerance`.
  StepSensitivity(const World& before, const MoreauJeanOptions& options, const StepReport& report,
                  const SensitivityOptions& sensitivity = {});

  /// (dq⁺, dv⁺) along `d`. Throws `InvalidProblem` for a wrongly sized entry, or when the
  /// impulses are not locally unique (`differentiable()` false without `minimum_norm`).
  [[nodiscard]] StepState jvp(const StepTangent& d) const;
  /// The adjoint of `jvp`: for (q̄⁺, v̄⁺) the gradients on every input, so that
  /// ⟨q̄⁺, dq⁺⟩ + ⟨v̄⁺, dv⁺⟩ = Σ ⟨gradient, d⟩ over the fields of `StepTangent`.
  [[nodiscard]] StepTangent vjp(const StepState& bar) const;

  /// Each active contact's μ and e, as the step combined them.
  [[nodiscard]] const Eigen::VectorXd& friction() const { return friction_; }
  [[nodiscard]] const Eigen::VectorXd& restitution() const { return restitution_; }
  /// False when some contact's geometric derivative came from central differences of detection.
  [[nodiscard]] bool geometry_exact() const { return geometry_exact_; }
  /// The impulses' derivative: where each unknown sits, and the element chosen (sensitivity.hpp).
  /// Empty, differentiable and "no active contact" for a step without contacts.
  [[nodiscard]] const std::vector<ComponentState>& states() const;
  [[nodiscard]] bool differentiable() const { return !impulses_ || impulses_->differentiable(); }
  [[nodiscard]] const std::string& rule() const;
  /// Number of generalized coordinates, 3 per body.
  [[nodiscard]] Eigen::Index dofs() const { return inverse_mass_.size(); }
  [[nodiscard]] Eigen::Index contacts() const { return static_cast<Eigen::Index>(contacts_.size()); }

  /// d n, d arm_a, d arm_b of one contact with respect to the coordinates of its two bodies
  /// (columns x_a, y_a, angle_a, x_b, y_b, angle_b; b's are 0 for a static surface).
  struct Geometry {
    Eigen::Matrix<double, 2, 6> normal = Eigen::Matrix<double, 2, 6>::Zero();
    Eigen::Matrix<double, 2, 6> arm_a = Eigen::Matrix<double, 2, 6>::Zero();
    Eigen::Matrix<double, 2, 6> arm_b = Eigen::Matrix<double, 2, 6>::Zero();
    bool exact = true;
  };

 private:
  using Block = Eigen::Matrix<double, 2, 6>;
  using Local = Eigen::Matrix<double, 6, 1>;
  [[nodiscard]] Local gather(std::size_t k, const Eigen::VectorXd& x) const;
  void scatter(std::size_t k, const Local& local, Eigen::VectorXd& out) const;
  [[nodiscard]] Eigen::VectorXd apply(const std::vector<Block>& blocks, const Eigen::VectorXd& x) const;
  [[nodiscard]] Eigen::VectorXd apply_transpose(const std::vector<Block>& blocks, const Eigen::VectorXd& y) const;
  [[nodiscard]] Block jacobian_change(std::size_t k, const Local& dq) const;

  std::vector<Contact> contacts_;
  std::vector<Geometry> geometry_;
  std::vector<Block> jacobian_;  // per contact: its normal and tangent rows on its two bodies
  Eigen::VectorXd inverse_mass_, v_, v_free_, r_, friction_, restitution_;
  Eigen::VectorXd speculative_;  ///< 1 where a contact only the speculative rules activate (its bias), else 0
  Eigen::VectorXd applied_;  // each free body's applied (force, torque), 3 per body; 0 for a fixed one
  double h_ = 0, theta_ = 0.5;
  bool geometry_exact_ = true;
  std::optional<FrictionContactSensitivity> impulses_;  // none without active contacts
};

/// A recorded run: `states[k]` is the world before step k (`states.back()` after the last step),
/// `reports[k]` what step k did. A run with per-step forces holds step k's in `states[k]`'s bodies.
struct Rollout {
  std::vector<World> states;
  std::vector<StepReport> reports;
};

/// Called with the step's index and report after each step of a rollout, and after each step's
/// derivative is built; an exception it throws ends the run (the Python module's Ctrl-C).
using StepHook = std::function<void(int, const StepReport&)>;

/// `steps` steps of `moreau_jean_step` from `world`, every state kept (memory O(steps · bodies)).
/// Throws `InvalidProblem` for steps < 0 and whatever the step throws.
[[nodiscard]] Rollout rollout(World world, const MoreauJeanOptions& options, int steps);

/// The same with an applied force per step: row k of `forces` (steps × 3·bodies: fx, fy, torque
/// of each body, in N and N·m) is set on the bodies' `Body::force` and `Body::torque` for step k,
/// in place of their own; a fixed body ignores its entries. An empty matrix (0 × 0) keeps the
/// bodies' own. `after_step`, when set, is called after each step. Throws `InvalidProblem` for a
/// matrix of another size ("forces has R × C entries, expected steps × 3·bodies") or a non-finite
/// entry (naming its step, body and component).
[[nodiscard]] Rollout rollout(World world, const MoreauJeanOptions& options, int steps, const Eigen::MatrixXd& forces,
                              const StepHook& after_step = {});

/// A contact of one step of a run at a switch of the step map: there the step is only
/// directionally differentiable and the derivative returned is that of one piece, named by `piece`.
struct ContactSwitch {
  enum class Kind : unsigned char {
    /// Friction on the edge of the cone with no slip (the tangent unknown degenerate): pieces
    /// `Slip` (perturbations that ask more friction than μ r_N) and `Stick` (less).
    StickSlip,
    /// An active contact with zero normal impulse and zero normal velocity after the step (the
    /// normal unknown degenerate): pieces `Separate` (perturbations that pull the bodies apart)
    /// and `Touch` (that press them together).
    ZeroNormalImpulse,
    /// The predicted gap g + h/2 ġ between 0 and the step's activation threshold
    /// (`activation_tolerance`, or 1e3 times it for a pair loaded in the last step), each end
    /// widened by the sensitivity tolerance times the larger bounding radius of the two bodies: a
    /// contact landing or resting there is switched off by a perturbation that raises its
    /// predicted gap past the threshold (1e-9 m by default: any finite difference of its normal
    /// position or velocity). Pieces `Active` (perturbations that lower the predicted gap: the
    /// contact held) and `Inactive` (that raise it). The derivative is taken under the step's own
    /// activation, so the piece is the side the contact was found on. A contact that landed with an
    /// overlap keeps it (without drift correction) and is not at this switch.
    Activation,
  };
  enum class Piece : unsigned char { Slip, Stick, Separate, Touch, Active, Inactive };
  int step = 0;
  /// Its index in the step's `StepReport::contacts`; −1 for an inactive contact at the threshold.
  int contact = -1;
  int body_a = 0;  ///< as in `Contact`
  int body_b = 0;
  Kind kind = Kind::StickSlip;
  /// The piece whose derivative the step's derivative is: for `StickSlip` and `ZeroNormalImpulse`
  /// the element `SensitivityOptions::degenerate` chose (`Bound`: slip, separate; `Free`: stick,
  /// touch), for `Activation` the side the contact was on.
  Piece piece = Piece::Slip;
};

/// "stick-slip", "zero-normal-impulse", "activation".
[[nodiscard]] const char* to_string(ContactSwitch::Kind kind);
/// "slip", "stick", "separate", "touch", "active", "inactive".
[[nodiscard]] const char* to_string(ContactSwitch::Piece piece);

/// The gradient of a loss L(states after each step) with respect to the run's inputs.
struct RolloutGradient {
  Eigen::VectorXd q;      ///< initial positions and angles, 3 per body
  Eigen::VectorXd v;      ///< initial velocities, 3 per body
  Eigen::VectorXd force;  ///< a constant applied generalized force over the whole run, 3 per body
  /// Each step's applied force: row k on step k's (fx, fy, torque) of every body (steps × 3·bodies);
  /// `force` is the sum of the rows. A fixed body's entries are 0.
  Eigen::MatrixXd forces;
  Eigen::VectorXd mass;   ///< the diagonal of M, 3 per body
  /// The scene's μ and e (`MoreauJeanOptions::friction`, `restitution`), through every contact
  /// whose coefficient they set by the combination rules of body.hpp.
  double friction = 0;
  double restitution = 0;
  /// False when some step's geometric derivative came from differences (`StepSensitivity`).
  bool geometry_exact = true;
  /// The contacts at a switch, in step order; empty where every step is smooth under its activation.
  std::vector<ContactSwitch> switches;
};

/// The derivatives of a recorded run: one `StepSensitivity` a step, built once, and the contacts
/// at a switch. Memory O(steps · (contacts² + bodies)).
class RolloutSensitivity {
 public:
  /// Builds each step's derivative (from the first step on), calling `after_step` after each.
  /// Throws `InvalidProblem` for a run whose states and reports do not match, and as
  /// `StepSensitivity` does (naming the step).
  RolloutSensitivity(const Rollout& run, const MoreauJeanOptions& options, const SensitivityOptions& sensitivity = {},
                     const StepHook& after_step = {});

  /// The adjoint of the run: `state_gradients[k]` is ∂L/∂(state after step k) (size the run's
  /// steps, or shorter: missing and empty entries are zero). Throws `InvalidProblem` for more
  /// entries than steps, a wrongly sized or non-finite one, or where a step's impulses are not
  /// locally unique (`StepSensitivity::differentiable`).
  [[nodiscard]] RolloutGradient vjp(const std::vector<StepState>& state_gradients) const;

  [[nodiscard]] std::size_t steps() const { return steps_.size(); }
  [[nodiscard]] const StepSensitivity& step(std::size_t k) const { return steps_.at(k).derivative; }
  /// The contacts at a switch, in step order (also in every `RolloutGradient`).
  [[nodiscard]] const std::vector<ContactSwitch>& switches() const { return switches_; }
  [[nodiscard]] bool geometry_exact() const { return geometry_exact_; }

 private:
  struct Step {
    StepSensitivity derivative;
    /// d μ_c / d(the scene's μ) and d e_c / d(the scene's e) of each active contact.
    Eigen::VectorXd friction_slope, restitution_slope;
  };
  std::vector<Step> steps_;
  std::vector<ContactSwitch> switches_;
  Eigen::Index dofs_ = 0;
  bool geometry_exact_ = true;
};

/// The adjoint of a recorded run: `RolloutSensitivity(run, options, sensitivity).vjp(state_gradients)`.
/// Throws as those do.
[[nodiscard]] RolloutGradient rollout_gradient(const Rollout& run, const MoreauJeanOptions& options,
                                               const std::vector<StepState>& state_gradients,
                                               const SensitivityOptions& sensitivity = {});

}  // namespace perp::contact
