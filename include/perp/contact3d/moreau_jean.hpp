#pragma once
/// \file
/// Moreau–Jean time stepping for rigid bodies in 3D under unilateral contact and exact Coulomb
/// friction (issue 36, first slice). The step is the planar one's (contact/moreau_jean.hpp) with 6
/// velocities a body and d = 3 contacts; from (x_k, q_k, v_k, ω_k), with h the time step:
///   1. detect contacts (contact3d/detection.hpp) with the margin h·max(|v| + |ω| r_bound) plus the
///      activation tolerance; a contact is active when its predicted gap g + h/2 · u_N <= the
///      activation tolerance, u_N = J_N (v_k, ω_k) (Siconos' MoreauJeanOSI rule, as in 2D; a pair
///      that carried a normal impulse in the last step keeps its contacts up to 1 000 times the
///      tolerance, as in 2D);
///   2. free velocities: v_free = v_k + h g; ω_free by the gyroscopic step below (no torque);
///   3. the frictional contact problem in local form, d = 3 (core/friction_contact.hpp): per contact
///      the rows n, t1, t2 of J (u = n·(v_a + ω_a × r_a − v_b − ω_b × r_b) and the same along t1,
///      t2), W = J M⁻¹ Jᵀ (sparse, M⁻¹ block diagonal: 1/m and the world inverse inertia at the
///      start of the step), q = J v_free plus e u_N,k on the normal row of each approaching
///      contact (u_N,k < 0; Newton's restitution: the law holds for u_N⁺ + e u_N⁻; e combined from
///      the two sides as in 2D), μ per contact; `solve(FrictionContact)`, warm-started
///      from the impulses of the same contacts in the last step;
///   4. (v, ω)_{k+1} = (v, ω)_free + M⁻¹ Jᵀ r;
///   5. x_{k+1} = x_k + h ((1 − θ) v_k + θ v_{k+1}), q_{k+1} = exp(h ω_θ / 2) ⊗ q_k (renormalized),
///      ω_θ = (1 − θ) ω_k + θ ω_{k+1}, the exponential map of a constant world-frame rotation rate.
///
/// Gyroscopic term: the body-frame Euler equation I ω̇ + ω × I ω = 0 is integrated implicitly, by
/// one Newton step of backward Euler from ω_k (Catto, "Physics for game programmers: numerical
/// methods", GDC 2015): f(ω) = I (ω − ω_k) + h ω × I ω, ω_free = ω_k − (∂f/∂ω)(ω_k)⁻¹ f(ω_k) with
/// ∂f/∂ω = I + h ([ω]× I − [I ω]×). It is first order: over a fixed time a torque-free body's energy
/// and angular momentum drift by O(h) (the step dissipates, it never blows up).
/// A sphere has I = (2/5) m r² 1, so its term is zero and the rolling closed forms are exact.

#include <Eigen/Dense>
#include <cstddef>
#include <vector>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact3d/body.hpp"
#include "perp/contact3d/detection.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/core/status.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp::contact3d {

struct StepOptions {
  /// h > 0 (s, finite). Default 1e-3.
  double timestep = 1e-3;
  /// θ ∈ [½, 1] of the position update. Default ½.
  double theta = 0.5;
  /// Newton restitution e ∈ [0, 1] of contacts whose sides set none. Default 0.
  double restitution = 0;
  /// Coulomb coefficient μ >= 0 of contacts whose sides set none. Default 0 (frictionless).
  double friction = 0;
  /// Activation tolerance on the predicted gap (m, finite, >= 0). Default 1e-9 (as in 2D).
  double activation_tolerance = 1e-9;
  /// Gravity (m/s², finite). Default (0, 0, −9.81): z is up.
  Eigen::Vector3d gravity{0.0, 0.0, -9.81};
  /// The method of each step's `solve(FrictionContact)` (a method of `friction_contact_methods()`).
  Method method = Method::Auto;
  /// Options of each step's solve; tolerance on Siconos' relative error, 1e-10 as in 2D.
  /// `initial_guess` is ignored (the step warm-starts from `World::impulses`).
  SolveOptions solve{.tolerance = 1e-10};

  /// Throws `InvalidProblem` naming the first bad field and its value.
  void validate() const;
};

/// What one step did.
struct StepReport {
  /// The active contacts (geometry at the start of the step).
  std::vector<Contact> contacts;
  /// The impulses r (N·s), 3 per active contact, normal then t1, t2 (the solve's z).
  Eigen::VectorXd impulses;
  /// The solve's status; Solved when there was no active contact.
  Status status = Status::Solved;
  /// The solve's `Result` (`Status::NotRun` when there was no active contact: `ran_solve()`).
  Result result;
  /// Signorini, Coulomb, complementarity and dissipation criteria of the returned impulses
  /// (core/friction_contact.hpp), all 0 without contacts.
  FrictionContactResiduals criteria;
  /// How many contacts started from the impulse they carried in the last step.
  std::size_t warm_started = 0;
  double solve_ms = 0;
  double step_ms = 0;

  [[nodiscard]] bool ran_solve() const { return result.status != Status::NotRun; }
};

/// Advances `world` by one step. Throws `InvalidProblem` for invalid options or world (checked at
/// every call). A step whose problem is not solved still advances with the returned (finite)
/// impulses and says so in `StepReport::status`.
StepReport moreau_jean_step(World& world, const StepOptions& options);

/// A run of `steps` steps (`steps` >= 0), its reports kept only in summary.
struct RunSummary {
  std::size_t steps = 0;
  /// Steps whose status was not `Solved`.
  std::size_t unsolved = 0;
  /// The largest relative error of a step's solve, and the deepest penetration of an active
  /// contact at the start of a step (m, >= 0).
  double worst_relative_error = 0;
  double max_penetration = 0;
};
RunSummary run(World& world, const StepOptions& options, std::size_t steps);

/// Kinetic and potential energy (potential −m g·x, zero at the origin; fixed bodies left out),
/// the planar step's type.
[[nodiscard]] contact::Energy energy(const World& world, const Eigen::Vector3d& gravity);

}  // namespace perp::contact3d
