#include "perp/contact3d/moreau_jean.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCore>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::contact3d {
namespace {

/// A loaded pair's contacts stay active up to this many activation tolerances (the planar step's
/// rule and factor, contact/moreau_jean.hpp).
constexpr double kHeldFactor3d = 1e3;

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

[[noreturn]] void bad_option(const char* field, const std::string& expected, double value) {
  throw InvalidProblem(std::string("step options: ") + field + " must be " + expected + ", got " + number_text(value));
}

Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return s;
}

/// The gyroscopic step (header): one Newton step of backward Euler on I ω̇ + ω × I ω = 0 in the body
/// frame, from ω_k; returns the world-frame ω_free.
Eigen::Vector3d gyroscopic_step(const Body& body, double h) {
  const Eigen::Matrix3d R = body.rotation();
  const Eigen::Matrix3d I = body.body_inertia();
  const Eigen::Vector3d w = R.transpose() * body.angular_velocity;
  const Eigen::Vector3d Iw = I * w;
  const Eigen::Vector3d f = h * w.cross(Iw);
  const Eigen::Matrix3d jacobian = I + h * (skew(w) * I - skew(Iw));
  return R * (w - jacobian.partialPivLu().solve(f));
}

/// The velocity of body `index` at arm r along d: d·(v + ω × r) (zero for the ground and planes).
double point_rate(const Eigen::VectorXd& velocities, int index, const Eigen::Vector3d& arm, const Eigen::Vector3d& d) {
  if (index < 0) return 0;
  const Eigen::Index at = 6 * index;
  return d.dot(velocities.segment<3>(at)) + arm.cross(d).dot(velocities.segment<3>(at + 3));
}

Eigen::VectorXd stacked_velocities(const World& world) {
  Eigen::VectorXd v(world.dofs());
  for (std::size_t i = 0; i < world.bodies.size(); ++i) {
    v.segment<3>(6 * static_cast<Eigen::Index>(i)) = world.bodies[i].velocity;
    v.segment<3>(6 * static_cast<Eigen::Index>(i) + 3) = world.bodies[i].angular_velocity;
  }
  return v;
}

/// The side (material) of a contact's body or surface.
struct Side3 {
  std::optional<double> friction;
  std::optional<double> restitution;
};

Side3 side_of(const World& world, int index) {
  if (index >= 0) {
    const Body& body = world.bodies[static_cast<std::size_t>(index)];
    return {body.friction, body.restitution};
  }
  if (index == kGround) return {};
  const Plane& plane = world.planes[plane_of(index)];
  return {plane.friction, plane.restitution};
}

using ContactKey = std::tuple<int, int, int>;

}  // namespace

void StepOptions::validate() const {
  if (!std::isfinite(timestep) || timestep <= 0) bad_option("timestep", "finite and > 0", timestep);
  if (!std::isfinite(theta) || theta < 0.5 || theta > 1) bad_option("theta", "in [0.5, 1]", theta);
  if (!std::isfinite(restitution) || restitution < 0 || restitution > 1) {
    bad_option("restitution", "in [0, 1]", restitution);
  }
  if (!std::isfinite(friction) || friction < 0) bad_option("friction", "finite and >= 0", friction);
  if (!std::isfinite(activation_tolerance) || activation_tolerance < 0) {
    bad_option("activation_tolerance", "finite and >= 0", activation_tolerance);
  }
  for (Eigen::Index i = 0; i < 3; ++i) {
    if (!std::isfinite(gravity[i])) {
      throw InvalidProblem("step options: gravity[" + std::to_string(i) + "] is " + number_text(gravity[i]));
    }
  }
  const std::vector<Method> methods = friction_contact_methods();
  if (std::find(methods.begin(), methods.end(), method) == methods.end()) {
    throw InvalidProblem(std::string("step options: method '") + to_string(method) +
                         "' does not solve a frictional contact problem");
  }
}

StepReport moreau_jean_step(World& world, const StepOptions& options) {
  const auto step_start = std::chrono::steady_clock::now();
  options.validate();
  world.validate();
  StepReport report;
  const double h = options.timestep;
  const auto body_count = static_cast<Eigen::Index>(world.bodies.size());
  const Eigen::Index n = 6 * body_count;

  // 1. Detection and activation.
  std::map<ContactKey, Eigen::Vector3d> last;
  std::vector<std::pair<int, int>> loaded;
  for (const ContactImpulse& kept : world.impulses) {
    last.emplace(ContactKey{kept.body_a, kept.body_b, kept.feature}, kept.impulse);
    if (kept.impulse[0] > 0) loaded.emplace_back(kept.body_a, kept.body_b);
  }
  std::sort(loaded.begin(), loaded.end());
  const double held_tolerance = kHeldFactor3d * options.activation_tolerance;
  double fastest = 0;
  for (const Body& body : world.bodies) {
    fastest = std::max(fastest, body.velocity.norm() + body.angular_velocity.norm() * body.shape.bounding_radius());
  }
  const Eigen::VectorXd v_k = stacked_velocities(world);
  const std::vector<Contact> detected =
      detect_contacts(world, h * fastest + (loaded.empty() ? options.activation_tolerance : held_tolerance));
  for (const Contact& c : detected) {
    const double rate = point_rate(v_k, c.body_a, c.arm_a, c.normal) - point_rate(v_k, c.body_b, c.arm_b, c.normal);
    const bool held = std::binary_search(loaded.begin(), loaded.end(), std::pair(c.body_a, c.body_b));
    if (c.gap + 0.5 * h * rate <= (held ? held_tolerance : options.activation_tolerance)) report.contacts.push_back(c);
  }

  // 2. Free velocities.
  Eigen::VectorXd v_free = v_k;
  for (Eigen::Index i = 0; i < body_count; ++i) {
    const Body& body = world.bodies[static_cast<std::size_t>(i)];
    if (body.fixed) continue;
    v_free.segment<3>(6 * i) += h * options.gravity;
    v_free.segment<3>(6 * i + 3) = gyroscopic_step(body, h);
  }

  // 3. The frictional contact problem of the active contacts.
  Eigen::VectorXd v_next = v_free;
  const auto m = static_cast<Eigen::Index>(report.contacts.size());
  if (m > 0) {
    std::vector<Eigen::Triplet<double>> entries;
    entries.reserve(static_cast<std::size_t>(m) * 36);
    Eigen::VectorXd mu(m);
    Eigen::VectorXd start = Eigen::VectorXd::Zero(3 * m);
    const auto add_body = [&](Eigen::Index row, int body, const Eigen::Vector3d& d, const Eigen::Vector3d& arm,
                              double sign) {
      if (body < 0) return;
      const Eigen::Vector3d angular = arm.cross(d);
      for (Eigen::Index j = 0; j < 3; ++j) {
        entries.emplace_back(row, 6 * body + j, sign * d[j]);
        entries.emplace_back(row, 6 * body + 3 + j, sign * angular[j]);
      }
    };
    for (Eigen::Index k = 0; k < m; ++k) {
      const Contact& c = report.contacts[static_cast<std::size_t>(k)];
      const std::array<Eigen::Vector3d, 3> directions = {c.normal, c.tangent1, c.tangent2};
      for (Eigen::Index r = 0; r < 3; ++r) {
        add_body(3 * k + r, c.body_a, directions[static_cast<std::size_t>(r)], c.arm_a, 1.0);
        add_body(3 * k + r, c.body_b, directions[static_cast<std::size_t>(r)], c.arm_b, -1.0);
      }
      const Side3 a = side_of(world, c.body_a);
      const Side3 b = side_of(world, c.body_b);
      mu[k] = contact::combine_friction(a.friction, b.friction, options.friction);
      const auto found = last.find(ContactKey{c.body_a, c.body_b, c.feature});
      if (found != last.end()) {
        start.segment<3>(3 * k) = found->second;
        ++report.warm_started;
      }
    }
    Eigen::SparseMatrix<double> J(3 * m, n);
    J.setFromTriplets(entries.begin(), entries.end());

    // W = J M⁻¹ Jᵀ kept as its factors, M diagonal: each body's angular velocity in the axes of its
    // principal moments (ω = P ω', P = R Q with I_b = Q Λ Qᵀ), so that J M⁻¹ Jᵀ = H D Hᵀ with
    // H = J diag(I, P) and D = diag(1/m, 1/m, 1/m, 1/Λ). nsgs sweeps on the factors (a sweep costs
    // nnz(H), where W's nonzeros grow with the square of the contacts a body carries); W is formed
    // only if a method needs it.
    std::vector<Eigen::Matrix3d> axes(static_cast<std::size_t>(body_count), Eigen::Matrix3d::Identity());
    FactoredFrictionContact problem;
    problem.dimension = 3;
    problem.inverse_mass = Eigen::VectorXd::Zero(n);
    for (Eigen::Index i = 0; i < body_count; ++i) {
      const Body& body = world.bodies[static_cast<std::size_t>(i)];
      if (body.fixed) continue;
      const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(body.body_inertia());
      axes[static_cast<std::size_t>(i)] = body.rotation() * principal.eigenvectors();
      problem.inverse_mass.segment<3>(6 * i).setConstant(1.0 / body.mass);
      problem.inverse_mass.segment<3>(6 * i + 3) = principal.eigenvalues().cwiseInverse();
    }
    std::vector<Eigen::Triplet<double>> rotated;
    rotated.reserve(entries.size());
    for (const Eigen::Triplet<double>& entry : entries) {
      const Eigen::Index column = entry.col();
      const Eigen::Index body = column / 6;
      if (column % 6 < 3) {
        rotated.push_back(entry);
        continue;
      }
      // A row's angular part a (world) becomes Pᵀ a: each world entry a_j adds a_j P(j, ·).
      const Eigen::Matrix3d& P = axes[static_cast<std::size_t>(body)];
      const Eigen::Index j = column % 6 - 3;
      for (Eigen::Index c = 0; c < 3; ++c) {
        rotated.emplace_back(entry.row(), 6 * body + 3 + c, entry.value() * P(j, c));
      }
    }
    problem.H.resize(3 * m, n);
    problem.H.setFromTriplets(rotated.begin(), rotated.end());
    problem.H.makeCompressed();
    problem.q = J * v_free;
    problem.mu = mu;
    const Eigen::VectorXd u_before = J * v_k;
    for (Eigen::Index k = 0; k < m; ++k) {
      const Contact& c = report.contacts[static_cast<std::size_t>(k)];
      const double e = contact::combine_restitution(side_of(world, c.body_a).restitution,
                                                    side_of(world, c.body_b).restitution, options.restitution);
      if (e != 0 && u_before[3 * k] < 0) problem.q[3 * k] += e * u_before[3 * k];
    }
    SolveOptions solve_options = options.solve;
    solve_options.initial_guess = start;
    const auto solve_start = std::chrono::steady_clock::now();
    report.result = solve(problem, options.method, solve_options, report.criteria);
    report.solve_ms = elapsed_ms(solve_start);
    report.status = report.result.status;
    report.impulses = report.result.z;
    // v = v_free + M⁻¹ Jᵀ r: D Hᵀ r in the principal axes, turned back to the world by P.
    const Eigen::VectorXd change = problem.inverse_mass.cwiseProduct(problem.H.transpose() * report.impulses);
    for (Eigen::Index i = 0; i < body_count; ++i) {
      v_next.segment<3>(6 * i) += change.segment<3>(6 * i);
      v_next.segment<3>(6 * i + 3) += axes[static_cast<std::size_t>(i)] * change.segment<3>(6 * i + 3);
    }
  }

  // 4–5. Velocities and positions.
  const double theta = options.theta;
  for (Eigen::Index i = 0; i < body_count; ++i) {
    Body& body = world.bodies[static_cast<std::size_t>(i)];
    const Eigen::Vector3d v = v_next.segment<3>(6 * i);
    const Eigen::Vector3d w = v_next.segment<3>(6 * i + 3);
    const Eigen::Vector3d v_mid = (1 - theta) * body.velocity + theta * v;
    const Eigen::Vector3d w_mid = (1 - theta) * body.angular_velocity + theta * w;
    body.position += h * v_mid;
    const double angle = h * w_mid.norm();
    if (angle > 0) {
      body.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(angle, w_mid.normalized())) * body.orientation;
      body.orientation.normalize();
    }
    body.velocity = v;
    body.angular_velocity = w;
  }
  world.impulses.clear();
  world.impulses.reserve(report.contacts.size());
  for (Eigen::Index k = 0; k < m; ++k) {
    const Contact& c = report.contacts[static_cast<std::size_t>(k)];
    world.impulses.push_back({c.body_a, c.body_b, c.feature, report.impulses.segment<3>(3 * k)});
  }
  report.step_ms = elapsed_ms(step_start);
  return report;
}

RunSummary run(World& world, const StepOptions& options, std::size_t steps) {
  RunSummary summary;
  for (std::size_t s = 0; s < steps; ++s) {
    const StepReport report = moreau_jean_step(world, options);
    ++summary.steps;
    if (report.status != Status::Solved) ++summary.unsolved;
    summary.worst_relative_error = std::max(summary.worst_relative_error, report.criteria.relative_error);
    for (const Contact& c : report.contacts) summary.max_penetration = std::max(summary.max_penetration, -c.gap);
  }
  return summary;
}

contact::Energy energy(const World& world, const Eigen::Vector3d& gravity) {
  contact::Energy total;
  for (const Body& body : world.bodies) {
    if (body.fixed) continue;
    total.kinetic += kinetic_energy(body);
    total.potential -= body.mass * gravity.dot(body.position);
  }
  return total;
}

}  // namespace perp::contact3d
