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
///
/// The friction models (`StepOptions::friction_model`, the planar step's enum and names):
///   - Coulomb (default): step 3 as above, exact Coulomb friction on the second-order cone;
///   - AnitescuPotra, the convex law: K_μ ∋ r ⊥ u ∈ K_μ* (De Saxcé's shift μ‖u_T‖ dropped from the
///     normal velocity), the optimality conditions of the convex program min ½ rᵀ W r + qᵀ r over the
///     cones; always solvable, the velocities unique. Sticking and separating contacts are
///     Coulomb's; a sliding one ends the step with u_N = μ‖u_T‖ > 0, so that the bodies lift by
///     μ h ‖u_T‖ a step while they slide. Solved in the global form (M diagonal) on the factors
///     (`solve(GlobalFrictionContact)`: auto runs the interior point on the second-order cones, then
///     admm from its point where it stops above the tolerance),
///     judged by the convex law's criteria (`cone_residuals`), reported in `StepReport::criteria`;
///   - StewartTrinkle, the polyhedral cone: the cone replaced by the pyramid of the k =
///     `solve.friction_contact.lemke.facets` directions t_l = cos(2πl/k) t1 + sin(2πl/k) t2 (an inner
///     approximation, exact along those directions), the LCP of Stewart and Trinkle (1996) per
///     contact in the unknowns (r_N, β_1 … β_k, λ):
///       0 <= r_N ⊥ u_N >= 0,  0 <= β_l ⊥ λ + t_l·u_T >= 0,  0 <= λ ⊥ μ r_N − Σ β_l >= 0,
///     r_T = Σ β_l t_l (`polyhedral_lcp`), W formed, solved by an LCP method (auto, lemke; with
///     these, a path that ends unsolved runs again with a perturbed covering vector, at most twice,
///     as lemke on a frictional contact problem does). A sliding
///     contact's friction is the pyramid's vertex (or edge) of most dissipation, so the sliding
///     direction turns towards the nearest facet's (docs/contact.md, the figure).
///
/// Drift correction (as in 2D, on by default): an active contact whose gap g is below −`slop`
/// asks for a separation velocity β (−g − slop)/h; with `split_impulse` (default) through a second,
/// frictionless solve for a pseudo-velocity that moves the positions and orientations and leaves the
/// velocities alone, without it in step 3's normal rows (a velocity that stays: a small bounce).

#include <Eigen/Dense>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact3d/body.hpp"
#include "perp/contact3d/detection.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/core/lcp.hpp"
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
  /// `solve.friction_contact.lemke.facets` (k >= 3, default 8) is the polyhedral model's k.
  SolveOptions solve{.tolerance = 1e-10};
  /// The contact law of each step (header): Coulomb (default), AnitescuPotra (the convex law; its
  /// methods auto and admm), StewartTrinkle (the polyhedral LCP with `solve.friction_contact.lemke.facets`
  /// directions; the methods of `lcp_methods()`, auto starting with lemke).
  contact::FrictionModel friction_model = contact::FrictionModel::Coulomb;
  /// Baumgarte factor β ∈ [0, 1) of the drift correction (the planar step's option, default and
  /// meaning: contact/moreau_jean.hpp): an active contact whose gap g is below −`slop` asks for a
  /// separation velocity β (−g − slop)/h. 0 = off. Default 0.2.
  double baumgarte = 0.2;
  /// Overlap tolerated before `baumgarte` acts (m, finite, >= 0). Default 5 mm, as in 2D.
  double slop = 0.005;
  /// With `baumgarte` > 0: apply the correction as a split impulse, a frictionless solve
  /// 0 <= λ ⊥ W_N λ + b >= 0 (b_k = β (g_k + slop)/h where g_k < −slop; W_N = J_N M⁻¹ J_Nᵀ on its
  /// factors, pgs) whose pseudo-velocity M⁻¹ J_Nᵀ λ moves positions and orientations by h of it and
  /// leaves the velocities alone; it runs on a step where some overlap passes the slop by more than
  /// 1 % of it (as in 2D). Default true.
  bool split_impulse = true;
  /// Islands with sleeping, the planar step's rule (contact/moreau_jean.hpp, `sleeping`). Off by
  /// default. On: a body is at rest while |v| + |ω| r_bound <= `sleep_speed`; the bodies joined by
  /// active contacts (fixed bodies, the ground and planes join nothing) form an island, and an island
  /// all of whose bodies have been at rest for `sleep_time` sleeps for the step: its velocities are
  /// set to 0, it gets no gravity, its contacts are left out of the solve (their impulses kept for the
  /// warm start) and it does not move. A body that comes into contact with a sleeping one joins its
  /// island and wakes it. Unlike the planar step, sleeping bodies are still searched for contacts.
  bool sleeping = false;
  /// Speed (m/s, finite, >= 0) below which a body counts as at rest. Default 0.01.
  double sleep_speed = 0.01;
  /// Time at rest (s, finite, > 0) after which an island sleeps. Default 0.5.
  double sleep_time = 0.5;
  /// Keep each step's frictional contact problem in `StepReport::problem` (`perp simulate --dump`).
  /// Only the Coulomb model keeps one (the convex model solves another law, the polyhedral model an
  /// LCP). Off (default): the problem is not kept (moved into the report at the end, never copied).
  bool keep_problem = false;

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
  /// The law `criteria` measure: Coulomb's (the Coulomb and the polyhedral model: for the latter,
  /// `dissipation` is how far the pyramid's friction is from the cone's), or the convex law's.
  /// The polyhedral model's status is its LCP's (`result`: z = per contact r_N, β_1 … β_k, λ).
  FrictionLaw law = FrictionLaw::Coulomb;
  /// Where the Coulomb model's auto did not solve and the planar step's packed-step chain did
  /// (contact/moreau_jean.hpp: nsgs, the convex law, nsgs from its impulses): "auto: STATUS at
  /// relative error E; …" and which law's impulses the step took (`law`). Empty otherwise.
  std::string fallback;
  /// With `StepOptions::sleeping`: the bodies asleep during the step, how many and which (indices,
  /// ascending).
  std::size_t sleeping_bodies = 0;
  std::vector<int> asleep;
  /// With the split impulse: the contacts corrected, and the status of their solve.
  std::size_t split_contacts = 0;
  Status split_status = Status::Solved;
  /// With `StepOptions::keep_problem`, a Coulomb step's problem with contacts: the local form on its
  /// factors (`contact::StepProblem`, `global` false): H = J diag(I, P) with each body's angular
  /// velocity in its principal axes (P = R Q, I_b = Q Λ Qᵀ), M⁻¹ = diag(1/m, 1/m, 1/m, 1/Λ) (0 for
  /// fixed bodies), q = J v_free with the restitution and drift biases, μ per contact; W = H M⁻¹ Hᵀ.
  std::optional<contact::StepProblem> problem;

  [[nodiscard]] bool ran_solve() const { return result.status != Status::NotRun; }
};

/// The polyhedral model's LCP of a frictional contact problem with d = 3 (header): per contact i the
/// unknowns z = (r_N, β_1 … β_k, λ) at i·(k + 2) and w = (u_N, λ + t_l·u_T, μ r_N − Σ β_l),
/// t_l = cos(2πl/k) e_1 + sin(2πl/k) e_2 in the contact's (t1, t2) frame; M from W, dense.
struct PolyhedralLcp {
  Lcp lcp;
  int facets = 0;
  /// r (3 per contact: normal, t1, t2) from the LCP's z.
  [[nodiscard]] Eigen::VectorXd reaction(const Eigen::VectorXd& z) const;
};
/// Throws `InvalidProblem` when the problem's d is not 3 or `facets` < 3.
[[nodiscard]] PolyhedralLcp polyhedral_lcp(const FrictionContact& problem, int facets);

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
