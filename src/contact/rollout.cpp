// Rollouts (step_sensitivity.hpp): a run of steps with a force per step, and its derivative by
// the adjoint of each step's `StepSensitivity`, with the contacts that sat at a switch.

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "advance.hpp"
#include "material.hpp"
#include "perp/contact/step_sensitivity.hpp"
#include "perp/core/error.hpp"
#include "step_sensitivity_detail.hpp"

namespace perp::contact {

using detail::cross;
using detail::or_zero;
using detail::Side;
using detail::side_of;

Rollout rollout(World world, const MoreauJeanOptions& options, int steps) {
  return rollout(std::move(world), options, steps, Eigen::MatrixXd());
}

Rollout rollout(World world, const MoreauJeanOptions& options, int steps, const Eigen::MatrixXd& forces,
                const StepHook& after_step) {
  if (steps < 0) throw InvalidProblem("rollout: steps must be >= 0, got " + std::to_string(steps));
  const Eigen::Index columns = world.dofs();
  const bool given = forces.size() > 0 || forces.rows() > 0 || forces.cols() > 0;
  if (given && (forces.rows() != steps || forces.cols() != columns)) {
    throw InvalidProblem("rollout: forces has " + std::to_string(forces.rows()) + " × " +
                         std::to_string(forces.cols()) + " entries, expected steps × 3·bodies = " +
                         std::to_string(steps) + " × " + std::to_string(columns) + " (or none for the bodies' own)");
  }
  if (given) {
    for (Eigen::Index k = 0; k < forces.rows(); ++k) {
      for (Eigen::Index j = 0; j < forces.cols(); ++j) {
        if (std::isfinite(forces(k, j))) continue;
        static constexpr const char* kComponent[3] = {"fx", "fy", "torque"};
        throw InvalidProblem("rollout: forces[" + std::to_string(k) + ", " + std::to_string(j) + "] (step " +
                             std::to_string(k) + ", body " + std::to_string(j / 3) + "'s " + kComponent[j % 3] +
                             ") is " + number_text(forces(k, j)) + ", expected a finite number");
      }
    }
  }
  // Step k's force and torque on the bodies, before the step and in states[k].
  const auto set_forces = [&](int k) {
    if (!given) return;
    for (std::size_t i = 0; i < world.bodies.size(); ++i) {
      const auto j = 3 * static_cast<Eigen::Index>(i);
      world.bodies[i].force = forces.row(k).segment<2>(j).transpose();
      world.bodies[i].torque = forces(k, j + 2);
    }
  };
  Rollout run;
  run.states.reserve(static_cast<std::size_t>(steps) + 1);
  run.reports.reserve(static_cast<std::size_t>(steps));
  if (steps > 0) {
    set_forces(0);
    // Once: the steps change only the bodies' state, which each one checks finite.
    options.validate();
    world.validate();
  }
  run.states.push_back(world);
  for (int k = 0; k < steps; ++k) {
    run.reports.push_back(advance_unchecked(world, options));
    if (k + 1 < steps) set_forces(k + 1);
    run.states.push_back(world);
    if (after_step) after_step(k, run.reports.back());
  }
  return run;
}

namespace {

// d μ_c / d(the scene's μ) and d e_c / d(the scene's e) by the rules of combine_friction and
// combine_restitution.
double friction_slope(const Side& a, const Side& b, double fallback, double combined) {
  if (!a.friction && !b.friction) return 1.0;
  if (a.friction && b.friction) return 0.0;
  return fallback > 0 ? combined / (2 * fallback) : 0.0;  // √(s·f): s / (2√(s f))
}

double restitution_slope(const Side& a, const Side& b, double fallback) {
  const double ea = a.restitution.value_or(fallback);
  const double eb = b.restitution.value_or(fallback);
  const bool a_sets_max = !a.restitution && ea >= eb;
  const bool b_sets_max = !b.restitution && eb >= ea;
  return a_sets_max || b_sets_max ? 1.0 : 0.0;
}

// The contacts of a step whose predicted gap sits at the activation switch: detection and the rule
// of `moreau_jean_step` (step 1) on the world before the step; `band` is relative to the larger
// bounding radius of the two bodies.
void activation_switches(const World& before, const MoreauJeanOptions& options, const StepReport& report, int step,
                         double band, std::vector<ContactSwitch>& out) {
  const double h = options.timestep;
  std::vector<std::pair<int, int>> loaded;
  for (const ContactImpulse& impulse : before.impulses) {
    if (impulse.normal > 0) loaded.emplace_back(impulse.body_a, impulse.body_b);
  }
  std::sort(loaded.begin(), loaded.end());
  const double tolerance = options.activation_tolerance;
  const double held_tolerance = kHeldFactor * tolerance;
  double fastest = 0;
  double largest = 0;
  for (const Body& body : before.bodies) {
    fastest = std::max(fastest, body.velocity.norm() + std::abs(body.angular_velocity) * body.bounding_radius());
    largest = std::max(largest, body.bounding_radius());
  }
  const double margin = h * fastest + (loaded.empty() ? tolerance : held_tolerance) + band * largest;
  const Eigen::VectorXd v = generalized_velocity(before.bodies);
  for (const Contact& c : detect_contacts(before, margin)) {
    const bool held = std::binary_search(loaded.begin(), loaded.end(), std::pair(c.body_a, c.body_b));
    const double threshold = held ? held_tolerance : tolerance;
    const Eigen::Index a = 3 * static_cast<Eigen::Index>(c.body_a);
    double rate = c.normal.dot(v.segment<2>(a)) + cross(c.arm_a, c.normal) * v[a + 2];
    double length = before.bodies[static_cast<std::size_t>(c.body_a)].bounding_radius();
    if (c.body_b >= 0) {
      const Eigen::Index b = 3 * static_cast<Eigen::Index>(c.body_b);
      rate -= c.normal.dot(v.segment<2>(b)) + cross(c.arm_b, c.normal) * v[b + 2];
      length = std::max(length, before.bodies[static_cast<std::size_t>(c.body_b)].bounding_radius());
    }
    // Between 0 and the threshold, each end widened by the band: resting (or landing) there, a
    // perturbation past the threshold's width switches the contact on or off.
    const double predicted = c.gap + 0.5 * h * rate;
    const double width = band * length;
    if (predicted < -width || predicted > threshold + width) continue;
    ContactSwitch s;
    s.step = step;
    s.body_a = c.body_a;
    s.body_b = c.body_b;
    s.kind = ContactSwitch::Kind::Activation;
    for (std::size_t k = 0; k < report.contacts.size(); ++k) {
      const Contact& r = report.contacts[k];
      if (r.body_a == c.body_a && r.body_b == c.body_b && r.point == c.point) s.contact = static_cast<int>(k);
    }
    s.piece = s.contact >= 0 ? ContactSwitch::Piece::Active : ContactSwitch::Piece::Inactive;
    out.push_back(s);
  }
}

bool degenerate(ComponentState state) {
  return state == ComponentState::DegenerateLower || state == ComponentState::DegenerateUpper;
}

}  // namespace

const char* to_string(ContactSwitch::Kind kind) {
  switch (kind) {
    case ContactSwitch::Kind::StickSlip: return "stick-slip";
    case ContactSwitch::Kind::ZeroNormalImpulse: return "zero-normal-impulse";
    case ContactSwitch::Kind::Activation: return "activation";
  }
  return "?";
}

const char* to_string(ContactSwitch::Piece piece) {
  switch (piece) {
    case ContactSwitch::Piece::Slip: return "slip";
    case ContactSwitch::Piece::Stick: return "stick";
    case ContactSwitch::Piece::Separate: return "separate";
    case ContactSwitch::Piece::Touch: return "touch";
    case ContactSwitch::Piece::Active: return "active";
    case ContactSwitch::Piece::Inactive: return "inactive";
  }
  return "?";
}

RolloutSensitivity::RolloutSensitivity(const Rollout& run, const MoreauJeanOptions& options,
                                       const SensitivityOptions& sensitivity, const StepHook& after_step) {
  if (run.states.size() != run.reports.size() + 1) {
    throw InvalidProblem("rollout_gradient: a run of " + std::to_string(run.reports.size()) + " steps needs " +
                         std::to_string(run.reports.size() + 1) + " states, it has " +
                         std::to_string(run.states.size()));
  }
  if (options.speculative) {
    // Each step's derivative follows the speculative bias (step_sensitivity.cpp), but the switch
    // report below re-derives the plain activation rule only: it would miss their switches.
    throw InvalidProblem(
        "rollout_gradient: speculative contacts are not followed by the rollout's switch report: turn "
        "`speculative` off (a single step's derivative, StepSensitivity, takes them)");
  }
  dofs_ = run.states.front().dofs();
  steps_.reserve(run.reports.size());
  const bool bound = sensitivity.degenerate == DegenerateRule::Bound;
  for (std::size_t k = 0; k < run.reports.size(); ++k) {
    const World& before = run.states[k];
    const StepReport& report = run.reports[k];
    const int step = static_cast<int>(k);
    try {
      steps_.push_back({StepSensitivity(before, options, report, sensitivity), {}, {}});
    } catch (const InvalidProblem& error) {
      throw InvalidProblem("rollout_gradient: step " + std::to_string(k) + ": " + error.what());
    }
    Step& s = steps_.back();
    geometry_exact_ = geometry_exact_ && s.derivative.geometry_exact();
    const auto m = static_cast<Eigen::Index>(report.contacts.size());
    s.friction_slope.resize(m);
    s.restitution_slope.resize(m);
    const std::vector<ComponentState>& states = s.derivative.states();
    for (Eigen::Index c = 0; c < m; ++c) {
      const Contact& contact = report.contacts[static_cast<std::size_t>(c)];
      const Side a = side_of(before, contact.body_a);
      const Side b = side_of(before, contact.body_b);
      s.friction_slope[c] = friction_slope(a, b, options.friction, s.derivative.friction()[c]);
      s.restitution_slope[c] = restitution_slope(a, b, options.restitution);
      const auto row = static_cast<std::size_t>(2 * c);
      if (row >= states.size()) continue;
      ContactSwitch sw;
      sw.step = step;
      sw.contact = static_cast<int>(c);
      sw.body_a = contact.body_a;
      sw.body_b = contact.body_b;
      if (degenerate(states[row])) {
        sw.kind = ContactSwitch::Kind::ZeroNormalImpulse;
        sw.piece = bound ? ContactSwitch::Piece::Separate : ContactSwitch::Piece::Touch;
        switches_.push_back(sw);
      } else if (states[row] == ComponentState::Free && degenerate(states[row + 1])) {
        // Only under a pressing normal impulse: with r_N = 0 and the contact separating, the
        // friction bounds ±μ r_N are 0 nearby and the tangent impulse is 0 on both sides.
        sw.kind = ContactSwitch::Kind::StickSlip;
        sw.piece = bound ? ContactSwitch::Piece::Slip : ContactSwitch::Piece::Stick;
        switches_.push_back(sw);
      }
    }
    activation_switches(before, options, report, step, sensitivity.tolerance, switches_);
    if (after_step) after_step(step, report);
  }
}

RolloutGradient RolloutSensitivity::vjp(const std::vector<StepState>& state_gradients) const {
  if (state_gradients.size() > steps_.size()) {
    throw InvalidProblem("rollout_gradient: " + std::to_string(state_gradients.size()) +
                         " state gradients for a run of " + std::to_string(steps_.size()) + " steps");
  }
  const Eigen::Index n = dofs_;
  RolloutGradient out;
  out.q = Eigen::VectorXd::Zero(n);
  out.v = Eigen::VectorXd::Zero(n);
  out.force = Eigen::VectorXd::Zero(n);
  out.forces = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(steps_.size()), n);
  out.mass = Eigen::VectorXd::Zero(n);
  out.geometry_exact = geometry_exact_;
  out.switches = switches_;
  StepState carry{Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};
  for (std::size_t step = steps_.size(); step-- > 0;) {
    if (step < state_gradients.size()) {
      carry.q += or_zero(state_gradients[step].q, n, "state gradient q");
      carry.v += or_zero(state_gradients[step].v, n, "state gradient v");
    }
    const Step& s = steps_[step];
    StepTangent g;
    try {
      g = s.derivative.vjp(carry);
    } catch (const InvalidProblem& error) {
      throw InvalidProblem("rollout_gradient: step " + std::to_string(step) + ": " + error.what());
    }
    out.forces.row(static_cast<Eigen::Index>(step)) = g.force.transpose();
    out.force += g.force;
    out.mass += g.mass;
    out.friction += g.friction.dot(s.friction_slope);
    out.restitution += g.restitution.dot(s.restitution_slope);
    carry.q = g.q;
    carry.v = g.v;
  }
  out.q = carry.q;
  out.v = carry.v;
  return out;
}

RolloutGradient rollout_gradient(const Rollout& run, const MoreauJeanOptions& options,
                                 const std::vector<StepState>& state_gradients, const SensitivityOptions& sensitivity) {
  if (run.states.size() == run.reports.size() + 1 && state_gradients.size() > run.reports.size()) {
    throw InvalidProblem("rollout_gradient: " + std::to_string(state_gradients.size()) +
                         " state gradients for a run of " + std::to_string(run.reports.size()) + " steps");
  }
  return RolloutSensitivity(run, options, sensitivity).vjp(state_gradients);
}

}  // namespace perp::contact
