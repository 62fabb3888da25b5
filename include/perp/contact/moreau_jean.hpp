#pragma once
/// \file
/// Moreau–Jean time stepping (θ-method) for planar rigid bodies in unilateral, frictional
/// contact ([chapter] §1.7, "一个时间步的完整流程"; Jean 1999, Acary–Brogliato 2008 §10).
///
/// One step of size h from (q_k, v_k):
///   1. detect contacts; a contact is active when its predicted gap g + h/2 · ġ <= 0
///      (up to `activation_tolerance`)
///      (ġ = J_N v_k), the activation rule of Siconos' MoreauJeanOSI;
///   2. v_free = v_k + h M⁻¹ f (gravity; planar bodies have no gyroscopic term);
///   3. solve the velocity-level problem of the active contacts — by default the frictional
///      contact problem (core/friction_contact.hpp: exact Coulomb friction in De Saxcé's form,
///      sparse W = J M⁻¹ Jᵀ, warm-started from the last step's impulses), or one of the LCP
///      formulations kept for teaching and comparison (frictionless LCP, Stewart–Trinkle,
///      Anitescu–Potra) — which gives impulses Λ;
///   4. v_{k+1} = v_free + M⁻¹ (J_Nᵀ Λ_N + J_Tᵀ Λ_T);
///   5. q_{k+1} = q_k + h ((1 − θ) v_k + θ v_{k+1});
///   6. optionally (`projection`), remove the remaining overlaps at position level.
/// Drift of overlaps (an impact leaves one of O(h |v|)) can be corrected by one of three options:
/// `projection` (exact, position level, after the step), `baumgarte` (a separation velocity asked
/// of overlapping contacts in step 3) or `split_impulse` (that same correction through a second,
/// position-only solve, so that no velocity is added). docs/contact.md compares them.
/// Newton's restitution enters the velocity-level law as u_N⁺ + e u_N⁻ with u_N⁻ = J_N v_k.

#include <Eigen/Dense>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/core/enum_names.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/core/global_friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/core/status.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/options.hpp"

namespace perp::contact {

enum class FrictionModel {
  /// Exact planar Coulomb friction as the frictional contact problem (De Saxcé's cone
  /// complementarity, d = 2: per contact the normal impulse then the tangential one), W kept
  /// sparse from the Jacobians, solved by `solve(FrictionContact)` (nsgs under `auto`) from the
  /// impulses of the same contacts at the last step (`World::impulses`). Frictionless scenes
  /// (μ = 0) take the same path. Default.
  Coulomb,
  /// Exact planar Coulomb friction, Stewart–Trinkle LCP (signorini.hpp): dense, 4 unknowns a
  /// contact, not a P-matrix (Lemke).
  StewartTrinkle,
  /// The Anitescu–Potra convex relaxation: always solvable, but sliding contacts separate at
  /// normal speed μ |u_T| (see `anitescu_potra_lcp`).
  AnitescuPotra,
};

/// The models' names, in declaration order: "coulomb", "stewart-trinkle", "anitescu-potra" (the scene
/// key "friction_model" in 2D and 3D, the CLI and Python).
inline constexpr std::array<perp::detail::EnumName<FrictionModel>, 3> kFrictionModelNames{{
    {FrictionModel::Coulomb, "coulomb"},
    {FrictionModel::StewartTrinkle, "stewart-trinkle"},
    {FrictionModel::AnitescuPotra, "anitescu-potra"},
}};
static_assert(perp::detail::in_declaration_order(kFrictionModelNames));

/// The model's name ("unknown-friction-model" for a value outside the enum).
[[nodiscard]] inline std::string to_string(FrictionModel model) {
  return std::string(perp::detail::name_in(kFrictionModelNames, model, "unknown-friction-model"));
}

struct MoreauJeanOptions {
  /// Time step h > 0 in seconds. Default 1e-3.
  double timestep = 1e-3;
  /// θ ∈ [½, 1] of the position update. ½ (default) conserves energy in free flight; θ > ½
  /// dissipates O(h) per step.
  double theta = 0.5;
  /// Newton restitution e ∈ [0, 1] of every contact. Default 0 (plastic impacts).
  double restitution = 0;
  /// Coulomb coefficient μ >= 0 of every contact. 0 (default) = frictionless: only Λ_N.
  double friction = 0;
  FrictionModel friction_model = FrictionModel::Coulomb;
  /// A contact is active when its predicted gap g + h/2 · ġ is <= this (metres, >= 0). The
  /// default 1e-9 keeps resting contacts active through round-off (a resting gap of 1e-20 must
  /// not switch a contact off); an active contact can only push, never pull. The contacts of a
  /// pair that carried a normal impulse in the last step (`World::impulses`) stay active up to
  /// 1 000 times this (1 µm by default): each solve's tolerance-level error in the velocities
  /// lifts a loaded corner by ~1e-12 m a step, which would otherwise switch it off after about a
  /// thousand steps and drop the body for a step (a stack of 10 boxes rocked that way).
  double activation_tolerance = 1e-9;
  /// After the position update, remove overlaps by the position-level Signorini projection
  /// (`position_level_lcp`): q += M⁻¹ J_Nᵀ λ with 0 <= λ ⊥ g + W λ >= 0 over the contacts whose
  /// gap is <= activation_tolerance. Velocities are not changed. Off by default: the plain
  /// Moreau–Jean scheme keeps an overlap of O(h |v|) per impact (it does not grow at rest), and
  /// the projection adds potential energy when it lifts bodies out of an overlap.
  bool projection = false;
  /// Baumgarte factor β ∈ [0, 1): an active contact whose gap g is below −`slop` asks for a
  /// separation velocity u_N⁺ >= β (−g − slop)/h, so that its overlap shrinks by the factor
  /// (1 − β) a step. 0 = off. Default 0.2 with `split_impulse` (the drift correction is on by
  /// default): the plain scheme keeps an overlap of up to h |v|/2 per impact for ever (11 cm in a
  /// poured heap of 1 000 disks, bench/HISTORY.md "The packed step"). Without `split_impulse`, the
  /// velocity it adds stays after the overlap is gone (a small bounce).
  double baumgarte = 0.2;
  /// Overlap tolerated before `baumgarte` acts (metres, >= 0). Default 5 mm (Box2D's linear slop):
  /// contacts that overlap less, resting ones included, are the plain Moreau–Jean step's.
  double slop = 0.005;
  /// With `baumgarte` > 0: apply its correction as a split impulse — a second frictionless solve
  /// of the same contacts for a pseudo-velocity p (0 <= λ ⊥ W λ + b >= 0, b_k = −β (−g_k − slop)/h
  /// where g_k < −slop) that moves the positions by h M⁻¹ J_Nᵀ λ and leaves the velocities alone.
  /// Default true.
  bool split_impulse = true;
  /// Speculative contacts (docs/contact.md, "Speculative contacts"). Off by default (the plain
  /// scheme above). On: a contact is active also where its gap at the step's end, g + h ġ (ġ from
  /// the start velocities), is within `activation_tolerance`, or where its two bodies' gap would
  /// close within the step if one of them stopped there and the other kept its velocity, the one
  /// stopped touching something this step (it may be stopped), each where the gap closes by more
  /// than `slop` within the step. A contact only these rules activate (gap g > 0) asks only that
  /// its gap at the step's end, g + h ((1 − θ) u_N⁻ + θ u_N⁺), stay >= 0:
  /// u_N⁺ >= −(g + h (1 − θ) u_N⁻)/(h θ), never more than u_N⁺ >= 0. It may close its gap within
  /// the step but not pass it; the other contacts keep the plain law, so that a step these rules
  /// add no contact to is the plain step. A column of disks falling onto a heap at 20 m/s moves
  /// 0.33 m a step, more than a 0.25 m disk's radius: the plain scheme lets the next disk into the
  /// one that landed and leaves the overlap to the drift correction; this catches it. A pair with
  /// restitution keeps the plain rule and the plain Newton law (it bounces from contact, not from a
  /// gap).
  bool speculative = false;
  /// Islands with sleeping. Off by default (every body is simulated at every step, so that figures
  /// compare like for like). On: a body is at rest while |v| + |ω| r_bound <= `sleep_speed`; the
  /// bodies joined by active contacts (fixed bodies, the ground and planes join nothing) form an
  /// island, and an island all of whose bodies have been at rest for `sleep_time` sleeps for the
  /// step: its velocities are set to 0, it gets no gravity, its contacts are left out of the solve
  /// (their impulses are kept for the warm start) and it does not move. An island with one body not
  /// at rest (a body that comes into contact with a sleeping one joins its island) is simulated.
  /// The bodies that slept through the last step are not searched for contacts with each other or
  /// with the static surfaces, so a pile asleep costs no narrow phase; the step is the same as with
  /// the full search.
  bool sleeping = false;
  /// Speed (m/s, finite, >= 0) below which a body counts as at rest. Default 0.01.
  double sleep_speed = 0.01;
  /// Time at rest (s, finite, > 0) after which an island sleeps. Default 0.5.
  double sleep_time = 0.5;
  /// Gravity acceleration (m/s²). Default (0, −9.81).
  Eigen::Vector2d gravity{0.0, -9.81};
  /// The method of each step's solve. With `FrictionModel::Coulomb` and a method of
  /// `friction_contact_methods()` (auto: nsgs first; lemke: pivoting on the Stewart–Trinkle LCP
  /// of the same problem), the frictional contact problem; with `Coulomb` and a method that only
  /// takes an LCP (pgs, murty, …), the LCP of the same law (frictionless, or Stewart–Trinkle), as
  /// with the LCP models. With the LCP models an LCP method (auto starts with Lemke;
  /// frictionless and Anitescu–Potra problems also suit pgs).
  Method method = Method::Auto;
  /// Options passed to `solve` for each step's problem. With the frictional contact problem the
  /// tolerance is on its relative error (default here 1e-10, tighter than `solve`'s 1e-8: the
  /// impulses of small scenes come out exact to ~10 digits), and `initial_guess` is ignored (the
  /// step warm-starts from `World::impulses`). Within a step, `friction_contact.lemke.lcp_max_size` is
  /// capped by `dense_pivoting_max_size`.
  SolveOptions solve{.tolerance = 1e-10};
  /// The largest LCP (unknowns, >= 0) a step pivots on: with Coulomb friction, Lemke on the
  /// Stewart–Trinkle LCP in auto's chain (4 unknowns a contact; dense up to 200 unknowns, on the
  /// sparse M above; the smaller of this and `solve.friction_contact.lemke.lcp_max_size`, default 4 000,
  /// applies: raise both); with the convex models, the dense route after their solve on the factors
  /// fails. Default 1000 (250 contacts), where a pivot sequence costs milliseconds to a second.
  /// Larger values buy exactness with time, and the time is the path's length: on the packed steps
  /// of a 1 000-disk heap (800–1 340 contacts), where the iterative methods stall at relative errors
  /// of 1e-6–1e-3, the sparse Lemke solved steps in 3 900–57 000 pivots and 1–45 s, and others ran
  /// past 100 000 pivots (bench/HISTORY.md, "Sparse Lemke on the packed heaps").
  Eigen::Index dense_pivoting_max_size = 1000;
  /// Keep each step's frictional contact problem in `StepReport::problem` (what `perp simulate
  /// --dump` writes as fclib files). Only the Coulomb model on a method of
  /// `friction_contact_methods()` poses that problem; the LCP models and the Coulomb model on an LCP
  /// method leave `problem` empty. Off (default): the step keeps nothing beyond its report (the
  /// problem is moved into the report at the end of the solve, never copied).
  bool keep_problem = false;

  /// Throws `InvalidProblem` naming the first bad field.
  void validate() const;
};

/// A Coulomb step's frictional contact problem, as it was solved (`MoreauJeanOptions::keep_problem`).
struct StepProblem {
  /// The local form on its factors: H = J (a row per contact slot, interleaved per contact, normal
  /// first), M⁻¹ the bodies' inverse masses (0 for fixed bodies), q = J v_free plus the restitution
  /// and Baumgarte biases, μ per contact; W = H M⁻¹ Hᵀ (`FactoredFrictionContact::assembled`).
  FactoredFrictionContact local;
  /// Whether the step solved it through the global form (the packed-step chain of `auto`, more
  /// contacts than `dense_pivoting_max_size` takes): `global_problem` gives that form.
  bool global = false;
};

/// The global form of a step's problem, in the velocity change Δv = v − v_free over the bodies that
/// move (the columns of fixed bodies left out): M their masses (diagonal), H = Jᵀ on them, q = 0,
/// b = `problem.local.q`, Coulomb's law. Its local form is `problem.local` (W = Hᵀ M⁻¹ H, the same
/// q), so the two share r; v here is Δv.
[[nodiscard]] GlobalFrictionContact global_problem(const StepProblem& problem);

/// What one step did.
struct StepReport {
  /// The active contacts of the step (geometry at the start of the step).
  std::vector<Contact> contacts;
  /// Normal and tangent impulses (N·s), one per active contact.
  Eigen::VectorXd normal_impulse;
  Eigen::VectorXd tangent_impulse;
  /// Outcome of the step: `result.status`, or Solved when there was no active contact (nothing to
  /// solve).
  Status status = Status::Solved;
  /// The `Result` of the step's solve as `solve` returned it (moved in, not copied): the method that
  /// answered (a `Method`; its name is `to_string(result.method)`), iterations, residual and relative
  /// residual, the solver's own sentence on how it ended (`message`: why it stopped, at what
  /// residual, and for `auto` the methods it went through), history, and z and w in the layout of the
  /// step's problem (the frictional contact problem: r = (Λ_N,k, Λ_T,k)_k, interleaved per contact,
  /// and so the convex models solved on the factors by interior-point or auto above 64 contacts; the
  /// LCP models: z = Λ_N frictionless, [Λ_N, β⁺, β⁻, γ] Stewart–Trinkle, [β⁺, β⁻]
  /// Anitescu–Potra, as in signorini.hpp; the impulses read back from z are `normal_impulse` and
  /// `tangent_impulse`). Where the chosen method fell back to auto (`fallback`), auto's result. Left
  /// `Status::NotRun` (method `Auto`, empty z and w) when there was no active contact: `ran_solve()`.
  Result result;
  /// Wall-clock time of the LCP solve and of the whole step, milliseconds.
  double solve_ms = 0;
  double step_ms = 0;
  /// The size of the step's problem (LCP, or d·contacts for the frictional contact problem; 0
  /// without active contacts).
  Eigen::Index lcp_size = 0;
  /// With `FrictionModel::Coulomb`: the physical criteria of the step's solution (Signorini,
  /// Coulomb, complementarity, maximal dissipation, in impulse and velocity units; all 0 without
  /// contacts).
  FrictionContactResiduals criteria;
  /// How many of the step's contacts started from the impulse they carried in the last step
  /// (`World::impulses`): the Coulomb step's nsgs, and the convex models on the factors, whose
  /// interior point first tries the vertex of the warm start's active set.
  std::size_t warm_started = 0;
  /// With `MoreauJeanOptions::projection`: the overlapping contacts after the update, and the
  /// status of their projection LCP (Solved when there was none).
  std::size_t projected_contacts = 0;
  Status projection_status = Status::Solved;
  /// With `split_impulse`: the contacts corrected, and the status of their solve.
  std::size_t split_contacts = 0;
  Status split_status = Status::Solved;
  /// Its iterations: the pivots of its dense solve (2D, up to 16 contacts) or its projected
  /// Gauss–Seidel sweeps (0 without a split).
  std::size_t split_sweeps = 0;
  /// 2D, where the split was solved by sweeps (more than 16 contacts): its multiplier λ of each
  /// active contact (N·s, 0 for the contacts it did not correct), kept in `World::impulses` to start
  /// the next step's split; empty otherwise.
  Eigen::VectorXd split_impulse;
  /// With `MoreauJeanOptions::sleeping`: the bodies asleep during the step.
  std::size_t sleeping_bodies = 0;
  /// The contact law the impulses solve, and that `criteria` measure: Coulomb's, or the convex
  /// relaxation's (`FrictionModel::AnitescuPotra`, or a Coulomb step that fell back to it: see
  /// `fallback`).
  FrictionLaw law = FrictionLaw::Coulomb;
  /// When the step's solve was not solved by the chosen method and `auto` was tried from its
  /// point instead: the first method's name and status ("nsgs: max-iterations"); when a packed
  /// Coulomb step did not meet Coulomb's law and took the convex law's impulses: "coulomb: STATUS at
  /// relative error E; the convex law's impulses". Empty otherwise.
  std::string fallback;
  /// With `MoreauJeanOptions::keep_problem`, a step of the Coulomb model on a frictional contact
  /// method that had active contacts: its problem (the impulses `result.z` answer it). Empty
  /// otherwise.
  std::optional<StepProblem> problem;

  /// Whether the step ran a solve (it had active contacts), so that `result` is the solver's.
  [[nodiscard]] bool ran_solve() const { return result.status != Status::NotRun; }
};

/// Advances `world` by one step. Throws `InvalidProblem` for invalid options or world, checked at
/// every call (O(bodies), so that a NaN cannot propagate silently; the world may have changed since
/// the last call). `simulate` and `rollout` validate their options and world once and step without
/// these checks, the bodies' state (which only the steps change there) still checked finite at each
/// step. A step whose problem is not solved still advances with the returned z (finite) and says so
/// in `StepReport::status`.
StepReport moreau_jean_step(World& world, const MoreauJeanOptions& options);

/// Kinetic and potential energy of a world (potential −m g·x, zero at the origin).
struct Energy {
  double kinetic = 0;
  double potential = 0;
  [[nodiscard]] double total() const { return kinetic + potential; }
};

[[nodiscard]] Energy energy(const World& world, const Eigen::Vector2d& gravity);

}  // namespace perp::contact

namespace perp {
/// The model named `name`; throws `InvalidProblem` "unknown friction model 'NAME'; expected one of:
/// coulomb, stewart-trinkle, anitescu-potra".
template <>
inline contact::FrictionModel from_string<contact::FrictionModel>(std::string_view name) {
  return detail::value_in(contact::kFrictionModelNames, name, "friction model");
}
}  // namespace perp
