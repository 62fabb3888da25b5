#include "perp/contact/step_sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <variant>

#include "perp/contact/jacobian.hpp"
#include "perp/core/error.hpp"
#include "advance.hpp"
#include "material.hpp"

namespace perp::contact {
namespace {

using Eigen::Vector2d;

using detail::cross;
// The derivative of R(φ) x with respect to φ: x turned by a quarter.
Vector2d quarter_turn(const Vector2d& x) { return {-x.y(), x.x()}; }
Vector2d tangent_of(const Vector2d& n) { return {n.y(), -n.x()}; }

[[noreturn]] void fail(const std::string& what) { throw InvalidProblem("StepSensitivity: " + what); }

Eigen::VectorXd or_zero(const Eigen::VectorXd& x, Eigen::Index n, const char* field) {
  if (x.size() == 0) return Eigen::VectorXd::Zero(n);
  if (x.size() != n) {
    fail(std::string(field) + " has " + std::to_string(x.size()) + " entries, expected " + std::to_string(n) +
         " (or none for zero)");
  }
  if (!x.allFinite()) fail(std::string(field) + " has a non-finite entry");
  return x;
}

using detail::Side;
using detail::side_of;

// The contact's normal and arms after moving coordinate `coord` (0–2: a's x, y, angle; 3–5: b's)
// by `delta`, from detection on a world of the two bodies alone, at the contact nearest the original.
struct Frame {
  Vector2d normal, arm_a, arm_b;
};

Frame detected_frame(const World& world, const Contact& contact, int coord, double delta) {
  const bool a_first = contact.body_a < contact.body_b;
  World pair;
  pair.bodies.push_back(world.bodies[static_cast<std::size_t>(a_first ? contact.body_a : contact.body_b)]);
  pair.bodies.push_back(world.bodies[static_cast<std::size_t>(a_first ? contact.body_b : contact.body_a)]);
  const int a = a_first ? 0 : 1;
  const int b = 1 - a;
  Body& moved = pair.bodies[static_cast<std::size_t>(coord < 3 ? a : b)];
  if (coord % 3 == 0) moved.position.x() += delta;
  if (coord % 3 == 1) moved.position.y() += delta;
  if (coord % 3 == 2) moved.angle += delta;
  const double margin =
      std::max(0.0, contact.gap) + 1e-3 * (pair.bodies[0].bounding_radius() + pair.bodies[1].bounding_radius());
  const std::vector<Contact> found = detect_contacts(pair, margin);
  const Contact* nearest = nullptr;
  double best = std::numeric_limits<double>::infinity();
  for (const Contact& c : found) {
    if (c.body_a != a || c.body_b != b) continue;
    const double distance = (c.point - contact.point).norm();
    if (distance < best) {
      best = distance;
      nearest = &c;
    }
  }
  if (nearest == nullptr) {
    fail("the contact of bodies " + std::to_string(contact.body_a) + " and " + std::to_string(contact.body_b) +
         " is not found again by detection after a perturbation of " + std::to_string(delta));
  }
  return {nearest->normal, nearest->arm_a, nearest->arm_b};
}

StepSensitivity::Geometry contact_geometry(const World& world, const Contact& c) {
  StepSensitivity::Geometry g;
  const Body& a = world.bodies[static_cast<std::size_t>(c.body_a)];
  if (c.body_b < 0) {
    // A static surface: the normal is fixed. A disk's arm is −r n (fixed); a corner or a rod's
    // end turns with the body.
    if (!std::holds_alternative<Disk>(a.shape)) g.arm_a.col(2) = quarter_turn(c.arm_a);
    return g;
  }
  const Body& b = world.bodies[static_cast<std::size_t>(c.body_b)];
  if (std::holds_alternative<Disk>(a.shape) && std::holds_alternative<Disk>(b.shape)) {
    // n = d/|d| with d = c_a − c_b; arm_a = −r_a n; arm_b = point − c_b = d − r_a n.
    const Vector2d d = a.position - b.position;
    const double length = d.norm();
    if (!(length > 0)) fail("two disks with coincident centres have no differentiable normal");
    const Eigen::Matrix2d dn = (Eigen::Matrix2d::Identity() - c.normal * c.normal.transpose()) / length;
    const double ra = std::get<Disk>(a.shape).radius;
    g.normal.block<2, 2>(0, 0) = dn;
    g.normal.block<2, 2>(0, 3) = -dn;
    g.arm_a = -ra * g.normal;
    g.arm_b.block<2, 2>(0, 0) = Eigen::Matrix2d::Identity() - ra * dn;
    g.arm_b.block<2, 2>(0, 3) = -Eigen::Matrix2d::Identity() + ra * dn;
    return g;
  }
  // The other pairs: central differences of detection at the same feature.
  g.exact = false;
  const double length = std::max({1.0, a.bounding_radius(), b.bounding_radius()});
  for (int coord = 0; coord < 6; ++coord) {
    const double delta = coord % 3 == 2 ? 1e-6 : 1e-6 * length;
    const Frame plus = detected_frame(world, c, coord, delta);
    const Frame minus = detected_frame(world, c, coord, -delta);
    g.normal.col(coord) = (plus.normal - minus.normal) / (2 * delta);
    g.arm_a.col(coord) = (plus.arm_a - minus.arm_a) / (2 * delta);
    g.arm_b.col(coord) = (plus.arm_b - minus.arm_b) / (2 * delta);
  }
  return g;
}

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

}  // namespace

StepSensitivity::StepSensitivity(const World& before, const MoreauJeanOptions& options, const StepReport& report,
                                 const SensitivityOptions& sensitivity)
    : contacts_(report.contacts), h_(options.timestep), theta_(options.theta) {
  options.validate();
  before.validate();
  if (options.friction_model != FrictionModel::Coulomb) {
    fail("only FrictionModel::Coulomb is differentiated (the LCP models are kept for teaching)");
  }
  if (options.projection) fail("the position projection is not differentiated: turn `projection` off");
  if (options.baumgarte > 0) {
    // The correction acts on contacts past the slop only: where every contact of the step overlaps
    // less, it is zero on a neighbourhood of the state and the step is the plain one there.
    for (const Contact& c : report.contacts) {
      if (c.gap <= -options.slop) {
        fail("the Baumgarte correction is not differentiated, and a contact of this step overlaps by " +
             number_text(-c.gap) + " m, past the slop " + number_text(options.slop) +
             " m (where it acts): set `baumgarte` to 0, or differentiate steps without such overlaps");
      }
    }
  }
  if (options.sleeping) fail("sleeping is not differentiated: turn `sleeping` off");
  const auto m = static_cast<Eigen::Index>(contacts_.size());
  if (report.normal_impulse.size() != m || report.tangent_impulse.size() != m) {
    fail("the report's impulses do not match its " + std::to_string(m) + " contacts");
  }
  if (report.status != Status::Solved) {
    fail("the step was not solved (" + std::string(to_string(report.status)) + "): its impulses have no derivative");
  }
  const auto bodies = static_cast<int>(before.bodies.size());
  for (const Contact& c : contacts_) {
    const bool b_ok =
        c.body_b >= 0 ? c.body_b < bodies
                      : (c.body_b == kGround ? before.ground.has_value() : plane_of(c.body_b) < before.planes.size());
    if (c.body_a < 0 || c.body_a >= bodies || !b_ok) {
      fail("a contact of the report joins bodies " + std::to_string(c.body_a) + " and " + std::to_string(c.body_b) +
           ", which this world does not have");
    }
  }

  inverse_mass_ = inverse_mass_diagonal(before.bodies);
  v_ = generalized_velocity(before.bodies);
  v_free_ = v_;
  applied_ = Eigen::VectorXd::Zero(v_.size());
  for (std::size_t i = 0; i < before.bodies.size(); ++i) {
    const Body& body = before.bodies[i];
    const auto k = 3 * static_cast<Eigen::Index>(i);
    if (body.fixed) continue;
    v_free_.segment<3>(k) += free_velocity_change(body, options.gravity, h_);
    applied_.segment<3>(k) << body.force, body.torque;
  }
  r_.resize(2 * m);
  friction_.resize(m);
  restitution_.resize(m);
  geometry_.reserve(contacts_.size());
  jacobian_.reserve(contacts_.size());
  for (Eigen::Index k = 0; k < m; ++k) {
    const Contact& c = contacts_[static_cast<std::size_t>(k)];
    r_[2 * k] = report.normal_impulse[k];
    r_[2 * k + 1] = report.tangent_impulse[k];
    const Side a = side_of(before, c.body_a);
    const Side b = side_of(before, c.body_b);
    friction_[k] = combine_friction(a.friction, b.friction, options.friction);
    restitution_[k] = combine_restitution(a.restitution, b.restitution, options.restitution);
    const Vector2d n = c.normal;
    const Vector2d t = c.tangent();
    Block J = Block::Zero();
    J.row(0) << n.x(), n.y(), cross(c.arm_a, n), -n.x(), -n.y(), -cross(c.arm_b, n);
    J.row(1) << t.x(), t.y(), cross(c.arm_a, t), -t.x(), -t.y(), -cross(c.arm_b, t);
    jacobian_.push_back(J);
    geometry_.push_back(contact_geometry(before, c));
    geometry_exact_ = geometry_exact_ && geometry_.back().exact;
  }
  if (m == 0) return;

  FrictionContact problem;
  problem.dimension = 2;
  problem.W = delassus_interleaved(contacts_, inverse_mass_);
  problem.q = apply(jacobian_, v_free_);
  const Eigen::VectorXd jv = apply(jacobian_, v_);
  for (Eigen::Index k = 0; k < m; ++k) problem.q[2 * k] += restitution_[k] * jv[2 * k];
  problem.mu = friction_;
  impulses_.emplace(problem, r_, sensitivity);
}

const std::vector<ComponentState>& StepSensitivity::states() const {
  static const std::vector<ComponentState> none;
  return impulses_ ? impulses_->states() : none;
}

const std::string& StepSensitivity::rule() const {
  static const std::string none = "no active contact: the step is smooth";
  return impulses_ ? impulses_->rule() : none;
}

StepSensitivity::Local StepSensitivity::gather(std::size_t k, const Eigen::VectorXd& x) const {
  const Contact& c = contacts_[k];
  Local local = Local::Zero();
  local.head<3>() = x.segment<3>(3 * static_cast<Eigen::Index>(c.body_a));
  if (c.body_b >= 0) local.tail<3>() = x.segment<3>(3 * static_cast<Eigen::Index>(c.body_b));
  return local;
}

void StepSensitivity::scatter(std::size_t k, const Local& local, Eigen::VectorXd& out) const {
  const Contact& c = contacts_[k];
  out.segment<3>(3 * static_cast<Eigen::Index>(c.body_a)) += local.head<3>();
  if (c.body_b >= 0) out.segment<3>(3 * static_cast<Eigen::Index>(c.body_b)) += local.tail<3>();
}

Eigen::VectorXd StepSensitivity::apply(const std::vector<Block>& blocks, const Eigen::VectorXd& x) const {
  Eigen::VectorXd out(2 * contacts());
  for (std::size_t k = 0; k < blocks.size(); ++k)
    out.segment<2>(2 * static_cast<Eigen::Index>(k)) = blocks[k] * gather(k, x);
  return out;
}

Eigen::VectorXd StepSensitivity::apply_transpose(const std::vector<Block>& blocks, const Eigen::VectorXd& y) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(dofs());
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    scatter(k, blocks[k].transpose() * y.segment<2>(2 * static_cast<Eigen::Index>(k)), out);
  }
  return out;
}

// The change of contact k's Jacobian block when its bodies' coordinates change by dq.
StepSensitivity::Block StepSensitivity::jacobian_change(std::size_t k, const Local& dq) const {
  const Contact& c = contacts_[k];
  const Geometry& g = geometry_[k];
  const Vector2d n = c.normal;
  const Vector2d t = c.tangent();
  const Vector2d dn = g.normal * dq;
  const Vector2d dt = tangent_of(dn);
  const Vector2d da = g.arm_a * dq;
  const Vector2d db = g.arm_b * dq;
  Block dJ = Block::Zero();
  dJ.row(0) << dn.x(), dn.y(), cross(da, n) + cross(c.arm_a, dn), -dn.x(), -dn.y(),
      -(cross(db, n) + cross(c.arm_b, dn));
  dJ.row(1) << dt.x(), dt.y(), cross(da, t) + cross(c.arm_a, dt), -dt.x(), -dt.y(),
      -(cross(db, t) + cross(c.arm_b, dt));
  return dJ;
}

StepState StepSensitivity::jvp(const StepTangent& d) const {
  const Eigen::Index n = dofs();
  const Eigen::Index m = contacts();
  const Eigen::VectorXd dq = or_zero(d.q, n, "q");
  const Eigen::VectorXd dv = or_zero(d.v, n, "v");
  const Eigen::VectorXd df = or_zero(d.force, n, "force");
  const Eigen::VectorXd dmass = or_zero(d.mass, n, "mass");
  const Eigen::VectorXd dmu = or_zero(d.friction, m, "friction");
  const Eigen::VectorXd de = or_zero(d.restitution, m, "restitution");

  const Eigen::VectorXd dinverse = -inverse_mass_.cwiseAbs2().cwiseProduct(dmass);
  const Eigen::VectorXd dv_free = dv + h_ * (inverse_mass_.cwiseProduct(df) + dinverse.cwiseProduct(applied_));
  Eigen::VectorXd dv_next = dv_free;
  if (m > 0) {
    std::vector<Block> dJ(contacts_.size());
    for (std::size_t k = 0; k < contacts_.size(); ++k) dJ[k] = jacobian_change(k, gather(k, dq));
    // d q_fc = dJ v_free + J dv_free + E (dJ v + J dv) + dE J v, E on the normal rows.
    Eigen::VectorXd dq_fc = apply(dJ, v_free_) + apply(jacobian_, dv_free);
    const Eigen::VectorXd normal_change = apply(dJ, v_) + apply(jacobian_, dv);
    const Eigen::VectorXd jv = apply(jacobian_, v_);
    for (Eigen::Index k = 0; k < m; ++k) {
      dq_fc[2 * k] += restitution_[k] * normal_change[2 * k] + de[k] * jv[2 * k];
    }
    // p = dW r + d q_fc, dW = dJ M⁻¹ Jᵀ + J M⁻¹ dJᵀ + J dM⁻¹ Jᵀ.
    const Eigen::VectorXd jt_r = apply_transpose(jacobian_, r_);
    const Eigen::VectorXd djt_r = apply_transpose(dJ, r_);
    const Eigen::VectorXd p = dq_fc + apply(dJ, inverse_mass_.cwiseProduct(jt_r)) +
                              apply(jacobian_, inverse_mass_.cwiseProduct(djt_r) + dinverse.cwiseProduct(jt_r));
    const Eigen::VectorXd dr = impulses_->jvp({Eigen::MatrixXd(), p, dmu});
    dv_next += dinverse.cwiseProduct(jt_r) + inverse_mass_.cwiseProduct(djt_r + apply_transpose(jacobian_, dr));
  }
  StepState out;
  out.v = dv_next;
  out.q = dq + h_ * ((1 - theta_) * dv + theta_ * dv_next);
  return out;
}

StepTangent StepSensitivity::vjp(const StepState& bar) const {
  const Eigen::Index n = dofs();
  const Eigen::Index m = contacts();
  const Eigen::VectorXd q_bar = or_zero(bar.q, n, "q gradient");
  const Eigen::VectorXd v_next_bar = or_zero(bar.v, n, "v gradient");

  StepTangent g;
  g.q = q_bar;
  g.v = h_ * (1 - theta_) * q_bar;
  const Eigen::VectorXd total = v_next_bar + h_ * theta_ * q_bar;  // on v⁺
  Eigen::VectorXd v_free_bar = total;
  Eigen::VectorXd inverse_bar = Eigen::VectorXd::Zero(n);
  g.friction = Eigen::VectorXd::Zero(m);
  g.restitution = Eigen::VectorXd::Zero(m);
  if (m > 0) {
    std::vector<Block> J_bar(contacts_.size(), Block::Zero());
    const Eigen::VectorXd jt_r = apply_transpose(jacobian_, r_);
    // v⁺ = v_free + M⁻¹ Jᵀ r.
    const Eigen::VectorXd scaled = inverse_mass_.cwiseProduct(total);
    inverse_bar += total.cwiseProduct(jt_r);
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      J_bar[k] += r_.segment<2>(2 * static_cast<Eigen::Index>(k)) * gather(k, scaled).transpose();
    }
    const Eigen::VectorXd r_bar = apply(jacobian_, scaled);
    // r = r(p, μ): p̄ and μ̄.
    const FrictionContactSensitivity::Perturbation adjoint = impulses_->vjp(r_bar);
    const Eigen::VectorXd& p_bar = adjoint.q;
    g.friction = adjoint.mu;
    // p = dW r + d q_fc.
    const Eigen::VectorXd jt_p = apply_transpose(jacobian_, p_bar);
    const Eigen::VectorXd minv_jt_r = inverse_mass_.cwiseProduct(jt_r);
    const Eigen::VectorXd minv_jt_p = inverse_mass_.cwiseProduct(jt_p);
    inverse_bar += jt_p.cwiseProduct(jt_r);
    const Eigen::VectorXd jv = apply(jacobian_, v_);
    Eigen::VectorXd e_p_bar = Eigen::VectorXd::Zero(2 * m);  // E p̄, on the normal rows
    for (Eigen::Index k = 0; k < m; ++k) {
      e_p_bar[2 * k] = restitution_[k] * p_bar[2 * k];
      g.restitution[k] = p_bar[2 * k] * jv[2 * k];
    }
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      const auto row = 2 * static_cast<Eigen::Index>(k);
      const Eigen::Vector2d pk = p_bar.segment<2>(row);
      const Eigen::Vector2d rk = r_.segment<2>(row);
      J_bar[k] += pk * gather(k, minv_jt_r).transpose() + rk * gather(k, minv_jt_p).transpose() +
                  pk * gather(k, v_free_).transpose() + e_p_bar.segment<2>(row) * gather(k, v_).transpose();
    }
    v_free_bar += jt_p;
    g.v += apply_transpose(jacobian_, e_p_bar);
    // The geometry: J_k = J_k(q of its two bodies).
    for (std::size_t k = 0; k < contacts_.size(); ++k) {
      Local local = Local::Zero();
      for (int coord = 0; coord < 6; ++coord) {
        local[coord] = J_bar[k].cwiseProduct(jacobian_change(k, Local::Unit(coord))).sum();
      }
      scatter(k, local, g.q);
    }
  }
  // v_free = v + h g + h M⁻¹ f.
  g.v += v_free_bar;
  g.force = h_ * inverse_mass_.cwiseProduct(v_free_bar);
  inverse_bar += h_ * applied_.cwiseProduct(v_free_bar);
  // M⁻¹ = 1 / diag(M) where the body is free.
  g.mass = -inverse_mass_.cwiseAbs2().cwiseProduct(inverse_bar);
  return g;
}

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

// As moreau_jean.cpp's kHeldFactor: a pair that carried a normal impulse in the last step stays
// active up to this multiple of `activation_tolerance`.
constexpr double kHeldActivationFactor = 1e3;

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
  const double held_tolerance = kHeldActivationFactor * tolerance;
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
