#include "perp/contact/moreau_jean.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "perp/contact/jacobian.hpp"
#include "perp/contact/signorini.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/factored_lcp.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/solve.hpp"
#include "advance.hpp"
#include "global_step.hpp"
#include "material.hpp"
#include "sleeping.hpp"
#include "step_formulations.hpp"
#include "step_scratch.hpp"
#include "warm_start.hpp"

namespace perp::contact {
namespace {

/// auto on the convex formulations (frictionless, Anitescu–Potra): above this many contacts the
/// LCP is solved on its factors by the interior point instead of formed densely.
constexpr Eigen::Index kFactoredAbove = 64;
// kSplitTolerance, kSplitSweeps, kSplitTrigger: advance.hpp (shared with the 3D step).

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Detection margin that catches every contact whose predicted gap g + h/2 ġ can be <= 0:
/// |ġ| is at most the relative speed of the two bodies' farthest points.
double detection_margin(const World& world, double timestep, double tolerance) {
  double fastest = 0;
  for (const Body& body : world.bodies) {
    // The radius only for a spinning body: a sleeping pile asks this of every body at every step.
    const double spin = std::abs(body.angular_velocity);
    fastest = std::max(fastest, body.velocity.norm() + (spin == 0 ? 0.0 : spin * body.bounding_radius()));
  }
  return timestep * fastest + tolerance;
}

using detail::cross;
using detail::convex_start;
using detail::coulomb_formulation;
using detail::coulomb_interleave;
using detail::factored_formulation;
using detail::lcp_formulation;
using detail::LcpFormulation;
using detail::read_convex;
using detail::read_coulomb;

/// d·(v + ω × arm) of `body` (index into the generalized velocity v, 3 a body): one side of a
/// contact's rate.
double point_rate(const Eigen::Vector2d& d, const Eigen::Vector2d& arm, const Eigen::VectorXd& v, int body) {
  const Eigen::Index i = 3 * static_cast<Eigen::Index>(body);
  return d.x() * v[i] + d.y() * v[i + 1] + cross(arm, d) * v[i + 2];
}

/// d·(v_a + ω_a × r_a − v_b − ω_b × r_b): a row of J_N or J_T (jacobian.hpp) times v, without the
/// sparse matrix.
double relative_velocity(const Contact& c, const Eigen::Vector2d& d, const Eigen::VectorXd& v) {
  double rate = point_rate(d, c.arm_a, v, c.body_a);
  if (c.body_b >= 0) rate -= point_rate(d, c.arm_b, v, c.body_b);
  return rate;
}

/// The rate at which the gap of a contact between two bodies would close within the step if one
/// of them stopped there and the other kept its velocity v: −d·(v_a + ω_a × r_a) where b stops
/// (`b_stops`), d·(v_b + ω_b × r_b) where a stops (`a_stops`), the larger; 0 where neither closes it.
double closing_if_stopped(const Contact& c, const Eigen::VectorXd& v, bool a_stops, bool b_stops) {
  double closing = 0;
  if (b_stops) closing = std::max(closing, -point_rate(c.normal, c.arm_a, v, c.body_a));
  if (a_stops) closing = std::max(closing, point_rate(c.normal, c.arm_b, v, c.body_b));
  return closing;
}

/// out += J_Nᵀ Λ_N + J_Tᵀ Λ_T, contact by contact.
void add_contact_impulses(const std::vector<Contact>& contacts, const Eigen::VectorXd& normal,
                          const Eigen::VectorXd& tangent, Eigen::VectorXd& out) {
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    const Eigen::Vector2d f = normal[static_cast<Eigen::Index>(k)] * c.normal +
                              tangent[static_cast<Eigen::Index>(k)] * c.tangent();
    const Eigen::Index a = 3 * c.body_a;
    out.segment<2>(a) += f;
    out[a + 2] += cross(c.arm_a, f);
    if (c.body_b >= 0) {
      const Eigen::Index b = 3 * c.body_b;
      out.segment<2>(b) -= f;
      out[b + 2] -= cross(c.arm_b, f);
    }
  }
}

/// The report's account of a step's solve: its time, status, size and the solver's `Result` itself
/// (moved: z and w are not copied).
void record_solve(StepReport& report, Result result, double solve_ms, Eigen::Index size) {
  report.solve_ms = solve_ms;
  report.status = result.status;
  report.result = std::move(result);
  report.lcp_size = size;
}

/// The frictional contact step: fills the report's impulses, status and criteria, and the
/// world's impulse cache; returns the impulse Jᵀ r in generalized coordinates. Its unknowns are
/// `coulomb_formulation`'s (step_formulations.hpp), interleaved per contact; `ordinals` are the
/// contacts' `pair_ordinals`.
Eigen::VectorXd coulomb_step(World& world, const std::vector<int>& ordinals, const Eigen::VectorXd& inverse_mass,
                             const Eigen::VectorXd& normal_bias, const Eigen::VectorXd& tangent_bias,
                             const Eigen::VectorXd& friction, const MoreauJeanOptions& options, StepReport& report) {
  // W = J M⁻¹ Jᵀ kept as its factors: nsgs sweeps on them, W is formed only if auto goes further.
  FactoredFrictionContact problem =
      coulomb_formulation(report.contacts, inverse_mass, normal_bias, tangent_bias, friction);

  // Warm start: the impulse the same contact carried in the last step.
  Eigen::VectorXd normal_start;
  Eigen::VectorXd tangent_start;
  report.warm_started = last_impulses(world, report.contacts, ordinals, normal_start, tangent_start);
  SolveOptions solve_options = options.solve;
  solve_options.initial_guess = coulomb_interleave(normal_start, tangent_start);
  // auto's last resort, Lemke on the dense Stewart–Trinkle LCP, costs O(n²) memory and up to
  // O(n³) a pivot sequence: at a time step it is kept to small problems (measured: a heap of
  // 1 000 disks spent 94 % of its time there, at 4 000 unknowns, without solving).
  // (At least 1, as the solver's option must be: a cap of 0 pivots on nothing either way.)
  solve_options.friction_contact.lemke.lcp_max_size = std::max<Eigen::Index>(
      1, std::min(solve_options.friction_contact.lemke.lcp_max_size, options.dense_pivoting_max_size));

  const auto solve_start = std::chrono::steady_clock::now();
  Result result;
  const bool packed = options.method == Method::Auto && 4 * problem.contacts() > options.dense_pivoting_max_size;
  if (packed) {
    // Packed: more contacts than the dense pivoting takes (auto's last resort on small steps).
    detail::PackedOutcome outcome = detail::solve_packed_coulomb(problem, solve_options);
    report.criteria = outcome.criteria;
    report.law = outcome.law;
    report.fallback = std::move(outcome.fallback);
    result = std::move(outcome.result);
  } else {
    result = solve(problem, options.method, solve_options, report.criteria);
    if (result.status != Status::Solved && options.method != Method::Auto && result.z.allFinite()) {
      // Not advanced with an unsolved impulse silently: auto (its chain of methods) from that point.
      report.fallback = to_string(result.method) + ": " + to_string(result.status);
      solve_options.initial_guess = result.z;
      result = solve(problem, Method::Auto, solve_options, report.criteria);
    }
  }
  record_solve(report, std::move(result), milliseconds_since(solve_start), problem.size());
  if (options.keep_problem) report.problem = StepProblem{std::move(problem), packed};
  read_coulomb(report.result.z, report.normal_impulse, report.tangent_impulse);
  keep_impulses(world, report, ordinals);
  Eigen::VectorXd impulse = Eigen::VectorXd::Zero(inverse_mass.size());
  add_contact_impulses(report.contacts, report.normal_impulse, report.tangent_impulse, impulse);
  return impulse;
}

/// The step through an LCP formulation: fills the report's impulses and status; returns Jᵀ Λ.
Eigen::VectorXd lcp_step(const World& world, const std::vector<int>& ordinals, const ContactSpace& space,
                         const Eigen::VectorXd& normal_bias, const Eigen::VectorXd& tangent_bias,
                         const Eigen::VectorXd& friction, FrictionModel model, const MoreauJeanOptions& options,
                         StepReport& report) {
  const bool convex = model == FrictionModel::AnitescuPotra || friction.maxCoeff() == 0;
  const bool factored = convex && (options.method == Method::InteriorPoint ||
                                   (options.method == Method::Auto && space.contact_count() > kFactoredAbove));
  if (factored) {
    // Never formed: the convex law in the global form, by the interior point on the factors
    // (memory O(nnz(J)) and the factor's fill), judged by the law's relative error, its criteria
    // reported.
    const FactoredFrictionContact problem =
        coulomb_formulation(report.contacts, space.inverse_mass, normal_bias, tangent_bias, friction);
    // Warm start: the last step's impulses of the same contacts.
    Eigen::VectorXd normal_start;
    Eigen::VectorXd tangent_start;
    report.warm_started = last_impulses(world, report.contacts, ordinals, normal_start, tangent_start);
    SolveOptions solve_options = options.solve;
    if (report.warm_started > 0) solve_options.initial_guess = coulomb_interleave(normal_start, tangent_start);
    const auto solve_start = std::chrono::steady_clock::now();
    detail::PackedOutcome outcome = detail::solve_convex(problem, solve_options);
    report.criteria = outcome.criteria;
    report.law = FrictionLaw::Convex;
    record_solve(report, std::move(outcome.result), milliseconds_since(solve_start), problem.size());
    read_coulomb(report.result.z, report.normal_impulse, report.tangent_impulse);
    const bool dense_fallback = !report.result.solved() && options.method == Method::Auto &&
                                problem.size() <= options.dense_pivoting_max_size;
    if (!dense_fallback) {
      return space.normal.transpose() * report.normal_impulse + space.tangent.transpose() * report.tangent_impulse;
    }
    // Small enough to form: auto on the dense LCP (pivoting), and the report says so.
    report.fallback = to_string(report.result.method) + ": " + to_string(report.result.status);
  }
  const double earlier_ms = report.solve_ms;  // the factored attempt's, where it fell back
  const LcpFormulation formulation = lcp_formulation(space, normal_bias, tangent_bias, friction, model);
  const auto solve_start = std::chrono::steady_clock::now();
  Result result = solve(formulation.lcp, options.method, options.solve);
  record_solve(report, std::move(result), earlier_ms + milliseconds_since(solve_start), formulation.lcp.size());
  formulation.read_back(report.result.z, report.normal_impulse, report.tangent_impulse);
  return space.normal.transpose() * report.normal_impulse + space.tangent.transpose() * report.tangent_impulse;
}

using detail::Side;
using detail::side_of;
using detail::sleeping_bodies;
using detail::slept_last_step;
using detail::touches_frozen;

}  // namespace

void MoreauJeanOptions::validate() const {
  auto fail = [](const std::string& what) { throw InvalidProblem("moreau-jean options: " + what); };
  if (!std::isfinite(timestep) || timestep <= 0)
    fail("timestep must be finite and > 0, got " + std::to_string(timestep));
  if (!std::isfinite(theta) || theta < 0.5 || theta > 1)
    fail("theta must be in [0.5, 1], got " + std::to_string(theta));
  if (!std::isfinite(restitution) || restitution < 0 || restitution > 1) {
    fail("restitution must be in [0, 1], got " + std::to_string(restitution));
  }
  if (!std::isfinite(friction) || friction < 0)
    fail("friction must be finite and >= 0, got " + std::to_string(friction));
  if (!gravity.allFinite()) fail("gravity is not finite");
  if (!std::isfinite(baumgarte) || baumgarte < 0 || baumgarte >= 1) {
    fail("baumgarte must be in [0, 1), got " + number_text(baumgarte));
  }
  if (!std::isfinite(slop) || slop < 0) fail("slop must be finite and >= 0, got " + number_text(slop));
  if (!std::isfinite(sleep_speed) || sleep_speed < 0) {
    fail("sleep_speed must be finite and >= 0, got " + number_text(sleep_speed));
  }
  if (!std::isfinite(sleep_time) || sleep_time <= 0) fail("sleep_time must be finite and > 0, got " + number_text(sleep_time));
  if (!std::isfinite(activation_tolerance) || activation_tolerance < 0) {
    fail("activation_tolerance must be finite and >= 0, got " + std::to_string(activation_tolerance));
  }
  if (dense_pivoting_max_size < 0) {
    fail("dense_pivoting_max_size must be >= 0, got " + std::to_string(dense_pivoting_max_size));
  }
}

namespace {

/// The bodies' state is what the steps change: a step can overflow it (velocities past the largest
/// double, and NaN from them), which must not propagate silently. A non-finite value is refused as
/// `World::validate` refuses it (`Body::validate` names the first such field; the rest of a body,
/// which no step changes, passed at the scene's validation). O(bodies): six comparisons a body.
void require_finite_state(const World& world) {
  for (const Body& body : world.bodies) {
    const bool finite = body.position.allFinite() && std::isfinite(body.angle) && body.velocity.allFinite() &&
                        std::isfinite(body.angular_velocity);
    if (!finite) body.validate();
  }
}

/// `report` as a fresh `StepReport`, keeping the storage of its contact list and impulses.
void recycle(StepReport& report) {
  std::vector<Contact> contacts = std::move(report.contacts);
  Eigen::VectorXd normal = std::move(report.normal_impulse);
  Eigen::VectorXd tangent = std::move(report.tangent_impulse);
  report = StepReport();
  contacts.clear();
  report.contacts = std::move(contacts);
  report.normal_impulse = std::move(normal);
  report.tangent_impulse = std::move(tangent);
}

/// One step on options and a world taken as valid, into `report`, its arrays from `scratch`; `start`
/// is when the step's time began.
void advance_from(World& world, const MoreauJeanOptions& options, std::chrono::steady_clock::time_point start,
                  StepScratch& scratch, StepReport& report) {
  recycle(report);
  const double h = options.timestep;
  const auto body_count = static_cast<Eigen::Index>(world.bodies.size());
  Eigen::VectorXd& v = scratch.velocity;
  Eigen::VectorXd& inverse_mass = scratch.inverse_mass;
  generalized_velocity_into(world.bodies, v);
  inverse_mass_diagonal_into(world.bodies, inverse_mass);

  // 1. Activation by the predicted gap.
  // A pair that carried a normal impulse in the last step (resting under load) stays active up to
  // kHeldFactor × activation_tolerance: each step's solve leaves an error in u_N of the order of
  // its tolerance, and over a thousand steps those errors lift a loaded corner past
  // activation_tolerance, which switched the contact off for a step of free fall (measured: a stack
  // of 10 boxes at h = 1/60, the bottom box's lifting corner at 1.06e-9 m after about 1 200 steps,
  // then up to 16 of the 20 contacts lost as the stack rocked, and 1 cm overlaps after it). A
  // loaded contact has u_N = 0, so its gap grows only by that drift (1e-12 m a step there); the
  // factor is kept small so that a corner still 1 µm short of landing is not held up (it may hover
  // by that much).
  // The loaded pairs are listed and sorted only when detection finds candidates (a sleeping pile
  // keeps its impulses and finds none).
  const bool any_loaded = std::any_of(world.impulses.begin(), world.impulses.end(),
                                      [](const ContactImpulse& impulse) { return impulse.normal > 0; });
  std::vector<std::pair<int, int>>& loaded = scratch.loaded;
  loaded.clear();
  const double held_tolerance = kHeldFactor * options.activation_tolerance;
  // (Speculative contacts: two bodies may close a gap at both their speeds.)
  const double margin = detection_margin(world, options.speculative ? 2 * h : h,
                                         any_loaded ? held_tolerance : options.activation_tolerance);
  const auto active_contacts = [&](const std::vector<Contact>& candidates, std::vector<Contact>& active) {
    if (any_loaded && loaded.empty() && !candidates.empty()) {
      for (const ContactImpulse& impulse : world.impulses) {
        if (impulse.normal > 0) loaded.emplace_back(impulse.body_a, impulse.body_b);
      }
      std::sort(loaded.begin(), loaded.end());
    }
    active.clear();
    active.reserve(candidates.size());
    const auto tolerance_of = [&](const Contact& candidate) {
      const bool held = std::binary_search(loaded.begin(), loaded.end(), std::pair(candidate.body_a, candidate.body_b));
      return held ? held_tolerance : options.activation_tolerance;
    };
    // The gap predicted at mid-step.
    const auto predicted_gap = [&](const Contact& candidate) {
      return candidate.gap + 0.5 * h * relative_velocity(candidate, candidate.normal, v);
    };
    if (!options.speculative) {
      for (const Contact& candidate : candidates) {
        if (predicted_gap(candidate) <= tolerance_of(candidate)) active.push_back(candidate);
      }
      return;
    }
    // Speculative contacts: also a pair whose gap closes by the step's end at its start velocity,
    // and a pair whose gap would close within the step if one of its bodies stopped there and the
    // other kept its velocity, where the one stopped touches something this step (a disk falling
    // onto one that has landed); each only where its gap closes by more than the overlap the step
    // tolerates (the slop) within the step: a heap at rest and bodies falling side by side add no
    // pairs. A pair with restitution keeps the plain rule (it bounces from contact, not from a gap).
    // Each candidate's normal rate and activation tolerance, found once for both passes.
    std::vector<char> touching(world.bodies.size(), 0);
    std::vector<char> plain(candidates.size(), 0);
    std::vector<double> rates(candidates.size());
    std::vector<double> tolerances(candidates.size());
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const Contact& candidate = candidates[k];
      rates[k] = relative_velocity(candidate, candidate.normal, v);
      tolerances[k] = tolerance_of(candidate);
      if (candidate.gap + 0.5 * h * rates[k] > tolerances[k]) continue;  // the mid-step gap
      plain[k] = 1;
      touching[static_cast<std::size_t>(candidate.body_a)] = 1;
      if (candidate.body_b >= 0) touching[static_cast<std::size_t>(candidate.body_b)] = 1;
    }
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const Contact& candidate = candidates[k];
      bool on = plain[k] != 0;
      const bool bounces =
          !on && combine_restitution(side_of(world, candidate.body_a).restitution,
                                     side_of(world, candidate.body_b).restitution, options.restitution) != 0;
      if (!on && !bounces) {
        const double tolerance = tolerances[k];
        const double closing = -h * rates[k];  // over the step
        on = closing > options.slop && candidate.gap - closing <= tolerance;
        if (!on && candidate.body_b >= 0) {
          const bool a_stops = touching[static_cast<std::size_t>(candidate.body_a)] != 0;
          const bool b_stops = touching[static_cast<std::size_t>(candidate.body_b)] != 0;
          const double reach = h * closing_if_stopped(candidate, v, a_stops, b_stops);
          on = reach > options.slop && candidate.gap - reach <= tolerance;
        }
      }
      if (on) active.push_back(candidate);
    }
  };
  // With sleeping, the bodies that slept through the last step are not searched against each other
  // nor against the static surfaces (`slept_last_step`). Where an active contact joins one of them
  // to a body that moves, its island may wake: the search is made again over every body, so the
  // contacts found are always those of the full search less some between sleeping bodies, which
  // the sleeping step below drops anyway.
  std::vector<char> frozen = options.sleeping ? slept_last_step(world, options) : std::vector<char>();
  std::vector<Contact>& detected = scratch.detected;
  detect_contacts_into(world, margin, frozen, scratch.detection, detected);
  active_contacts(detected, report.contacts);
  if (touches_frozen(world, report.contacts, frozen)) {
    frozen.clear();
    detect_contacts_into(world, margin, frozen, scratch.detection, detected);
    active_contacts(detected, report.contacts);
  }
  // Rod ends near another rod's length: their sides, from every contact found (active or not: an
  // end found within the margin may pass the other rod's line during this step), and the memory of
  // pairs not searched this step (two rods asleep, or asleep and fixed) kept as it was.
  if (!world.rod_sides.empty() || !detected.empty()) {
    std::vector<RodSide> sides = rod_sides_of(world, detected);
    const auto held = [&](int body) {  // false for an index the bodies no longer have
      const auto index = static_cast<std::size_t>(body);
      return body >= 0 && index < world.bodies.size() &&
             (world.bodies[index].fixed || (!frozen.empty() && frozen[index]));
    };
    for (const RodSide& memory : world.rod_sides) {
      if (held(memory.rod) && held(memory.other)) sides.push_back(memory);
    }
    world.rod_sides = std::move(sides);
  }

  // Sleeping islands: at rest, out of the solve, their impulses kept for when they wake.
  std::vector<char> asleep;
  std::vector<ContactImpulse> asleep_impulses;
  Eigen::VectorXd& v_start = scratch.start_velocity;
  v_start = v;
  if (options.sleeping) {
    asleep = sleeping_bodies(world, v, report.contacts, options);
    asleep_impulses = detail::set_aside_asleep(asleep, report.contacts, world.impulses);
    for (Eigen::Index i = 0; i < body_count; ++i) {
      if (!asleep[static_cast<std::size_t>(i)]) continue;
      v_start.segment<3>(3 * i).setZero();
      ++report.sleeping_bodies;
    }
  }

  // 2. Free velocity (a fixed body keeps its own; a sleeping one stays at rest).
  Eigen::VectorXd& v_free = scratch.free_velocity;
  v_free = v_start;
  for (Eigen::Index i = 0; i < body_count; ++i) {
    const bool sleeps = !asleep.empty() && asleep[static_cast<std::size_t>(i)];
    const Body& body = world.bodies[static_cast<std::size_t>(i)];
    if (!body.fixed && !sleeps) v_free.segment<3>(3 * i) += free_velocity_change(body, options.gravity, h);
  }

  // 3–4. Impulses and the velocity update.
  const auto m = static_cast<Eigen::Index>(report.contacts.size());
  Eigen::VectorXd split_shift;  // h M⁻¹ J_Nᵀ λ of the split impulse, when there is one
  report.normal_impulse = Eigen::VectorXd::Zero(m);
  report.tangent_impulse = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd& v_next = scratch.next_velocity;
  v_next = v_free;
  if (m > 0) {
    // Each contact's μ and e from its two sides, and the biases J_N v_free + e J_N v, J_T v_free.
    Eigen::VectorXd friction(m);
    Eigen::VectorXd normal_bias(m);
    Eigen::VectorXd tangent_bias(m);
    for (Eigen::Index k = 0; k < m; ++k) {
      const Contact& contact = report.contacts[static_cast<std::size_t>(k)];
      const Side a = side_of(world, contact.body_a);
      const Side b = side_of(world, contact.body_b);
      friction[k] = combine_friction(a.friction, b.friction, options.friction);
      const double restitution = combine_restitution(a.restitution, b.restitution, options.restitution);
      normal_bias[k] = relative_velocity(contact, contact.normal, v_free);
      if (restitution != 0) {
        normal_bias[k] += restitution * relative_velocity(contact, contact.normal, v);
      } else if (options.speculative) {
        // A contact only the speculative rules activate (its mid-step gap past the plain rule's
        // tolerances; the others keep the plain law, so that a step they add nothing to is the plain
        // step): its gap at the step's end, g + h ((1 − θ) u_N⁻ + θ u_N⁺), kept >= 0, i.e.
        // u_N⁺ >= −room / (h θ) with room = g + h (1 − θ) u_N⁻ > 0; no separation asked where the start
        // velocity alone closes the gap (room <= 0: u_N⁺ >= 0, its overlap left to the drift correction).
        const double room = speculative_room(contact.gap, relative_velocity(contact, contact.normal, v), options);
        if (room > 0) normal_bias[k] += room / (h * options.theta);
      }
      tangent_bias[k] = relative_velocity(contact, contact.tangent(), v_free);
    }
    // Baumgarte: overlaps beyond the slop ask for a separation velocity (in this solve, or in the
    // split solve after it).
    Eigen::VectorXd overlap_bias = Eigen::VectorXd::Zero(m);
    if (options.baumgarte > 0) {
      for (Eigen::Index k = 0; k < m; ++k) {
        const double gap = report.contacts[static_cast<std::size_t>(k)].gap;
        if (gap < -options.slop) overlap_bias[k] = options.baumgarte * (gap + options.slop) / h;
      }
      if (!options.split_impulse) normal_bias += overlap_bias;
    }
    // The Coulomb model with a method that only takes an LCP (pgs, murty, …) steps through the
    // LCP of the same law: frictionless, or Stewart–Trinkle.
    static const std::vector<Method> cone_methods = friction_contact_methods();  // the method table's, fixed
    const bool on_cone = options.friction_model == FrictionModel::Coulomb &&
                         std::find(cone_methods.begin(), cone_methods.end(), options.method) != cone_methods.end();
    const FrictionModel lcp_model =
        options.friction_model == FrictionModel::Coulomb ? FrictionModel::StewartTrinkle : options.friction_model;
    // The sparse J_N, J_T: only the LCP formulations use them (the split writes its own rows).
    // The split runs where some contact overlaps past the slop by more than kSplitTrigger of it:
    // each run takes a fixed fraction β of the excess, and without the trigger its geometric tail
    // would run a split on every step of a heap at rest, moving its bodies by nanometres.
    bool split = false;
    if (options.split_impulse && overlap_bias.size() > 0 && overlap_bias.minCoeff() < 0) {
      for (const Contact& c : report.contacts) split = split || -c.gap - options.slop > kSplitTrigger * options.slop;
    }
    ContactSpace space;
    if (!on_cone) {
      space = {normal_jacobian(report.contacts, body_count), tangent_jacobian(report.contacts, body_count),
               inverse_mass};
    }
    // A contact's identity for the warm starts (the split's and the step's) and the impulses kept.
    const std::vector<int> ordinals = pair_ordinals(report.contacts);
    // The split writes its own rows of J_N (`normal_rows`).
    if (split) {
      split_shift = split_impulse_shift(world, ordinals, report.contacts, inverse_mass, overlap_bias, options, report);
    }
    Eigen::VectorXd impulse;
    if (on_cone) {
      impulse = coulomb_step(world, ordinals, inverse_mass, normal_bias, tangent_bias, friction, options, report);
    } else {
      impulse = lcp_step(world, ordinals, space, normal_bias, tangent_bias, friction, lcp_model, options, report);
      keep_impulses(world, report, ordinals);
    }
    v_next += inverse_mass.cwiseProduct(impulse);
  } else {
    world.impulses.clear();
  }
  world.impulses.insert(world.impulses.end(), asleep_impulses.begin(), asleep_impulses.end());

  // 5. θ-method position update.
  const double theta = options.theta;
  for (Eigen::Index i = 0; i < body_count; ++i) {
    Body& body = world.bodies[static_cast<std::size_t>(i)];
    const Eigen::Vector3d mean = (1 - theta) * v_start.segment<3>(3 * i) + theta * v_next.segment<3>(3 * i);
    body.position += h * mean.head<2>();
    body.angle += h * mean[2];
    body.velocity = v_next.segment<2>(3 * i);
    body.angular_velocity = v_next[3 * i + 2];
    if (split_shift.size() > 0) {
      body.position += split_shift.segment<2>(3 * i);
      body.angle += split_shift[3 * i + 2];
    }
  }

  // 6. Position-level projection of the overlaps left (optional).
  if (options.projection) {
    std::vector<Contact> overlaps = detect_contacts(world, options.activation_tolerance);
    report.projected_contacts = overlaps.size();
    if (!overlaps.empty()) {
      // The projection is an LCP: a frictional contact method (nsgs, …) gives way to auto there.
      const std::vector<Method> lcp = lcp_methods();
      const Method method =
          std::find(lcp.begin(), lcp.end(), options.method) != lcp.end() ? options.method : Method::Auto;
      SolveOptions projection_options = options.solve;
      projection_options.initial_guess.reset();
      const Result result = solve(position_level_lcp(world, overlaps), method, projection_options);
      report.projection_status = result.status;
      const Eigen::VectorXd shift =
          inverse_mass.cwiseProduct(Eigen::VectorXd(normal_jacobian(overlaps, body_count).transpose() * result.z));
      for (Eigen::Index i = 0; i < body_count; ++i) {
        Body& body = world.bodies[static_cast<std::size_t>(i)];
        body.position += shift.segment<2>(3 * i);
        body.angle += shift[3 * i + 2];
      }
    }
  }
  report.step_ms = milliseconds_since(start);
}

}  // namespace

GlobalFrictionContact global_problem(const StepProblem& problem) {
  return detail::global_form(problem.local, FrictionLaw::Coulomb);
}

StepReport moreau_jean_step(World& world, const MoreauJeanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  options.validate();
  world.validate();
  StepScratch scratch;
  StepReport report;
  advance_from(world, options, start, scratch, report);
  return report;
}

StepReport advance_unchecked(World& world, const MoreauJeanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  require_finite_state(world);
  StepScratch scratch;
  StepReport report;
  advance_from(world, options, start, scratch, report);
  return report;
}

void advance_unchecked(World& world, const MoreauJeanOptions& options, StepScratch& scratch, StepReport& report) {
  const auto start = std::chrono::steady_clock::now();
  require_finite_state(world);
  advance_from(world, options, start, scratch, report);
}

Energy energy(const World& world, const Eigen::Vector2d& gravity) {
  Energy e;
  for (const Body& body : world.bodies) {
    if (body.fixed) continue;
    e.kinetic += 0.5 * body.mass * body.velocity.squaredNorm() +
                 0.5 * body.moment_of_inertia() * body.angular_velocity * body.angular_velocity;
    e.potential -= body.mass * gravity.dot(body.position);
  }
  return e;
}

}  // namespace perp::contact
