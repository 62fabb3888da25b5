#include "perp/contact/signorini.hpp"

#include <cmath>
#include <string>

#include "perp/contact/jacobian.hpp"
#include "perp/core/error.hpp"

namespace perp::contact {
namespace {

void require_friction(double friction) {
  if (!std::isfinite(friction) || friction < 0) {
    throw InvalidProblem("friction must be finite and >= 0, got " + std::to_string(friction));
  }
}

void require_friction(const Eigen::VectorXd& friction, Eigen::Index contacts) {
  require_size(friction, contacts, "friction");
  for (Eigen::Index k = 0; k < friction.size(); ++k) {
    if (!std::isfinite(friction[k]) || friction[k] < 0) {
      throw InvalidProblem("friction[" + std::to_string(k) + "] must be finite and >= 0, got " +
                           number_text(friction[k]));
    }
  }
}

void require_bias_sizes(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                        const Eigen::VectorXd& tangent_bias) {
  require_size(normal_bias, space.contact_count(), "normal_bias");
  require_size(tangent_bias, space.contact_count(), "tangent_bias");
}

/// f = m · gravity on the translational coordinates of every body.
Eigen::VectorXd weight_forces(const World& world, const Eigen::Vector2d& gravity) {
  Eigen::VectorXd f = Eigen::VectorXd::Zero(world.dofs());
  for (std::size_t i = 0; i < world.bodies.size(); ++i) {
    f.segment<2>(3 * static_cast<Eigen::Index>(i)) = world.bodies[i].mass * gravity;
  }
  return f;
}

/// b = J_N M⁻¹ f + J̇_N v (see acceleration_level_lcp for which terms J̇_N v keeps).
Eigen::VectorXd free_gap_acceleration(const World& world, const std::vector<Contact>& contacts,
                                      const ContactSpace& space, const Eigen::Vector2d& gravity) {
  const Eigen::VectorXd f = weight_forces(world, gravity);
  Eigen::VectorXd b = space.normal * space.inverse_mass.cwiseProduct(f);
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    // A point fixed on a rotating body accelerates by −ω² r towards the centre.
    auto centripetal = [&](int index, const Eigen::Vector2d& arm) -> Eigen::Vector2d {
      const Body& body = world.bodies[static_cast<std::size_t>(index)];
      if (std::holds_alternative<Disk>(body.shape)) return Eigen::Vector2d::Zero();
      return -body.angular_velocity * body.angular_velocity * arm;
    };
    Eigen::Vector2d relative = centripetal(c.body_a, c.arm_a);
    if (c.body_b >= 0) relative -= centripetal(c.body_b, c.arm_b);
    b[static_cast<Eigen::Index>(k)] += c.normal.dot(relative);
  }
  return b;
}

}  // namespace

ContactSpace contact_space(const World& world, const std::vector<Contact>& contacts) {
  const auto count = static_cast<Eigen::Index>(world.bodies.size());
  return {normal_jacobian(contacts, count), tangent_jacobian(contacts, count), inverse_mass_diagonal(world.bodies)};
}

std::vector<int> active_by_gap(const std::vector<Contact>& contacts, double threshold) {
  std::vector<int> active;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    if (contacts[k].gap <= threshold) active.push_back(static_cast<int>(k));
  }
  return active;
}

Lcp position_level_lcp(const World& world, const std::vector<Contact>& contacts) {
  const ContactSpace space = contact_space(world, contacts);
  Eigen::VectorXd gaps(static_cast<Eigen::Index>(contacts.size()));
  for (std::size_t k = 0; k < contacts.size(); ++k) gaps[static_cast<Eigen::Index>(k)] = contacts[k].gap;
  return {delassus_dense(space.normal, space.inverse_mass), gaps};
}

Lcp velocity_level_lcp(const ContactSpace& space, const Eigen::VectorXd& v_free, const Eigen::VectorXd& v_before,
                       double restitution) {
  require_size(v_free, space.inverse_mass.size(), "v_free");
  require_size(v_before, space.inverse_mass.size(), "v_before");
  if (!std::isfinite(restitution) || restitution < 0 || restitution > 1) {
    throw InvalidProblem("restitution must be in [0, 1], got " + std::to_string(restitution));
  }
  return {delassus_dense(space.normal, space.inverse_mass),
          space.normal * v_free + restitution * (space.normal * v_before)};
}

Lcp stewart_trinkle_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                        const Eigen::VectorXd& tangent_bias, double friction) {
  require_friction(friction);
  return stewart_trinkle_lcp(space, normal_bias, tangent_bias,
                             Eigen::VectorXd::Constant(space.contact_count(), friction));
}

Lcp stewart_trinkle_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                        const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction) {
  require_friction(friction, space.contact_count());
  require_bias_sizes(space, normal_bias, tangent_bias);
  const Eigen::Index m = space.contact_count();
  const Eigen::MatrixXd WNN = delassus_dense(space.normal, space.inverse_mass);
  const Eigen::MatrixXd WNT = delassus_dense(space.normal, space.inverse_mass, space.tangent);
  const Eigen::MatrixXd WTT = delassus_dense(space.tangent, space.inverse_mass);
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(m, m);
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(4 * m, 4 * m);
  // Rows: u_N, u_T + γ, −u_T + γ, μ Λ_N − β⁺ − β⁻; columns: Λ_N, β⁺, β⁻, γ.
  M.block(0, 0, m, m) = WNN;
  M.block(0, m, m, m) = WNT;
  M.block(0, 2 * m, m, m) = -WNT;
  M.block(m, 0, m, m) = WNT.transpose();
  M.block(m, m, m, m) = WTT;
  M.block(m, 2 * m, m, m) = -WTT;
  M.block(m, 3 * m, m, m) = I;
  M.block(2 * m, 0, m, m) = -WNT.transpose();
  M.block(2 * m, m, m, m) = -WTT;
  M.block(2 * m, 2 * m, m, m) = WTT;
  M.block(2 * m, 3 * m, m, m) = I;
  M.block(3 * m, 0, m, m) = friction.asDiagonal();
  M.block(3 * m, m, m, m) = -I;
  M.block(3 * m, 2 * m, m, m) = -I;
  Eigen::VectorXd q = Eigen::VectorXd::Zero(4 * m);
  q.segment(0, m) = normal_bias;
  q.segment(m, m) = tangent_bias;
  q.segment(2 * m, m) = -tangent_bias;
  return {M, q};
}

Lcp anitescu_potra_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                       const Eigen::VectorXd& tangent_bias, double friction) {
  require_friction(friction);
  return anitescu_potra_lcp(space, normal_bias, tangent_bias,
                            Eigen::VectorXd::Constant(space.contact_count(), friction));
}

Lcp anitescu_potra_lcp(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                       const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction) {
  require_friction(friction, space.contact_count());
  require_bias_sizes(space, normal_bias, tangent_bias);
  // G stacks the cone edges: rows (n + μ_k t)ᵀ J and (n − μ_k t)ᵀ J.
  const Eigen::SparseMatrix<double> scaled_tangent = friction.asDiagonal() * space.tangent;
  const Eigen::SparseMatrix<double> plus = space.normal + scaled_tangent;
  const Eigen::SparseMatrix<double> minus = space.normal - scaled_tangent;
  const Eigen::Index m = space.contact_count();
  Eigen::MatrixXd M(2 * m, 2 * m);
  M.block(0, 0, m, m) = delassus_dense(plus, space.inverse_mass);
  M.block(0, m, m, m) = delassus_dense(plus, space.inverse_mass, minus);
  M.block(m, 0, m, m) = delassus_dense(minus, space.inverse_mass, plus);
  M.block(m, m, m, m) = delassus_dense(minus, space.inverse_mass);
  Eigen::VectorXd q(2 * m);
  q.segment(0, m) = normal_bias + friction.cwiseProduct(tangent_bias);
  q.segment(m, m) = normal_bias - friction.cwiseProduct(tangent_bias);
  return {M, q};
}

Lcp acceleration_level_lcp(const World& world, const std::vector<Contact>& contacts, const Eigen::Vector2d& gravity) {
  const ContactSpace space = contact_space(world, contacts);
  return {delassus_dense(space.normal, space.inverse_mass), free_gap_acceleration(world, contacts, space, gravity)};
}

Lcp sliding_acceleration_level_lcp(const World& world, const std::vector<Contact>& contacts,
                                   const Eigen::Vector2d& gravity, double friction, const Eigen::VectorXd& sliding) {
  require_friction(friction);
  const ContactSpace space = contact_space(world, contacts);
  require_size(sliding, space.contact_count(), "sliding");
  for (Eigen::Index k = 0; k < sliding.size(); ++k) {
    if (sliding[k] != 1 && sliding[k] != -1) {
      throw InvalidProblem("sliding[" + std::to_string(k) + "] must be -1 or +1, got " + std::to_string(sliding[k]));
    }
  }
  // Generalised force of λ_N with its friction: (J_N − μ S J_T)ᵀ λ_N.
  const Eigen::SparseMatrix<double> force_rows =
      space.normal - friction * Eigen::SparseMatrix<double>(sliding.asDiagonal() * space.tangent);
  return {delassus_dense(space.normal, space.inverse_mass, force_rows),
          free_gap_acceleration(world, contacts, space, gravity)};
}

}  // namespace perp::contact
