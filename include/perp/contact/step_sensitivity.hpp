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
/// derivative is taken at the applied force, `Body::force` and `Body::torque`). `StepSensitivity` differentiates this map with respect to q, v,
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
/// `rollout` records a run of steps and `rollout_gradient` gives the gradient of a loss on its
/// states with respect to the initial state and the scene's μ and e, by the adjoint (one `vjp` a
/// step, backwards) — what fitting μ to an observed sliding distance or e to bounce heights needs.

#include <Eigen/Dense>
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
  Eigen::VectorXd applied_;  // each free body's applied (force, torque), 3 per body; 0 for a fixed one
  double h_ = 0, theta_ = 0.5;
  bool geometry_exact_ = true;
  std::optional<FrictionContactSensitivity> impulses_;  // none without active contacts
};

/// A recorded run: `states[k]` is the world before step k (`states.back()` after the last step),
/// `reports[k]` what step k did.
struct Rollout {
  std::vector<World> states;
  std::vector<StepReport> reports;
};

/// `steps` steps of `moreau_jean_step` from `world`, every state kept (memory O(steps · bodies)).
/// Throws `InvalidProblem` for steps < 0 and whatever the step throws.
[[nodiscard]] Rollout rollout(World world, const MoreauJeanOptions& options, int steps);

/// The gradient of a loss L(states after each step) with respect to the run's inputs.
struct RolloutGradient {
  Eigen::VectorXd q;      ///< initial positions and angles, 3 per body
  Eigen::VectorXd v;      ///< initial velocities, 3 per body
  Eigen::VectorXd force;  ///< a constant applied generalized force over the whole run, 3 per body
  Eigen::VectorXd mass;   ///< the diagonal of M, 3 per body
  /// The scene's μ and e (`MoreauJeanOptions::friction`, `restitution`), through every contact
  /// whose coefficient they set by the combination rules of body.hpp.
  double friction = 0;
  double restitution = 0;
  /// False when some step's geometric derivative came from differences (`StepSensitivity`).
  bool geometry_exact = true;
};

/// The adjoint of a recorded run: `state_gradients[k]` is ∂L/∂(state after step k) (size the run's
/// steps, or shorter: missing and empty entries are zero). Builds one `StepSensitivity` a step, from
/// the last backwards. Throws as `StepSensitivity` does.
[[nodiscard]] RolloutGradient rollout_gradient(const Rollout& run, const MoreauJeanOptions& options,
                                               const std::vector<StepState>& state_gradients,
                                               const SensitivityOptions& sensitivity = {});

}  // namespace perp::contact
