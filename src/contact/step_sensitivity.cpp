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
#include "step_sensitivity_detail.hpp"

namespace perp::contact {
namespace {

using Eigen::Vector2d;

using detail::cross;
// The derivative of R(φ) x with respect to φ: x turned by a quarter.
Vector2d quarter_turn(const Vector2d& x) { return {-x.y(), x.x()}; }
Vector2d tangent_of(const Vector2d& n) { return {n.y(), -n.x()}; }

[[noreturn]] void fail(const std::string& what) { throw InvalidProblem("StepSensitivity: " + what); }

using detail::or_zero;
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
  speculative_ = Eigen::VectorXd::Zero(m);
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
  for (Eigen::Index k = 0; k < m; ++k) {
    problem.q[2 * k] += restitution_[k] * jv[2 * k];
    // A contact only the speculative rules activate: u_N⁺ >= −room / (h θ), room = g + h (1 − θ) u_N⁻
    // (the step's bias, advance.hpp); its derivative moves with the gap (dg = J_N dq) and u_N⁻.
    if (restitution_[k] == 0) {
      const double room = speculative_room(contacts_[static_cast<std::size_t>(k)].gap, jv[2 * k], options);
      if (room > 0) {
        speculative_[k] = 1;
        problem.q[2 * k] += room / (h_ * theta_);
      }
    }
  }
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
      if (speculative_[k] != 0) {
        // d(room / (h θ)) = (J_N dq + h (1 − θ) d(J_N v)) / (h θ); e does not enter this law.
        const double gap_change = jacobian_[static_cast<std::size_t>(k)].row(0).dot(gather(static_cast<std::size_t>(k), dq));
        dq_fc[2 * k] += gap_change / (h_ * theta_) + (1 - theta_) / theta_ * normal_change[2 * k];
      } else {
        dq_fc[2 * k] += restitution_[k] * normal_change[2 * k] + de[k] * jv[2 * k];
      }
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
      if (speculative_[k] != 0) {
        // The speculative bias' adjoint: (1 − θ)/θ on J_N v, like a restitution, and 1/(h θ) on the gap.
        e_p_bar[2 * k] = (1 - theta_) / theta_ * p_bar[2 * k];
        Local gap_bar = jacobian_[static_cast<std::size_t>(k)].row(0).transpose() * (p_bar[2 * k] / (h_ * theta_));
        scatter(static_cast<std::size_t>(k), gap_bar, g.q);
      } else {
        e_p_bar[2 * k] = restitution_[k] * p_bar[2 * k];
        g.restitution[k] = p_bar[2 * k] * jv[2 * k];
      }
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

}  // namespace perp::contact
