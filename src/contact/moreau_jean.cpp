#include "perp/contact/moreau_jean.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "perp/contact/jacobian.hpp"
#include "perp/contact/signorini.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::contact {
namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

/// Detection margin that catches every contact whose predicted gap g + h/2 ġ can be <= 0:
/// |ġ| is at most the relative speed of the two bodies' farthest points.
double detection_margin(const World& world, double timestep, double tolerance) {
  double fastest = 0;
  for (const Body& body : world.bodies) {
    fastest = std::max(fastest, body.velocity.norm() + std::abs(body.angular_velocity) * body.bounding_radius());
  }
  return timestep * fastest + tolerance;
}

/// J with the rows of contact k interleaved, normal then tangent (rows 2k and 2k + 1): the slot
/// order of the frictional contact problem.
Eigen::SparseMatrix<double> interleaved_jacobian(const ContactSpace& space) {
  const Eigen::Index m = space.contact_count();
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(space.normal.nonZeros() + space.tangent.nonZeros()));
  for (Eigen::Index j = 0; j < space.normal.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(space.normal, j); it; ++it) {
      entries.emplace_back(2 * it.row(), it.col(), it.value());
    }
    for (Eigen::SparseMatrix<double>::InnerIterator it(space.tangent, j); it; ++it) {
      entries.emplace_back(2 * it.row() + 1, it.col(), it.value());
    }
  }
  Eigen::SparseMatrix<double> J(2 * m, space.normal.cols());
  J.setFromTriplets(entries.begin(), entries.end());
  return J;
}

/// The ordinal of each contact among the contacts of its pair (0 for the first of the pair in
/// the list, 1 for the second, …): with the pair, the identity that carries an impulse to the
/// next step.
std::vector<int> pair_ordinals(const std::vector<Contact>& contacts) {
  std::vector<int> ordinals(contacts.size(), 0);
  std::vector<std::size_t> order(contacts.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return std::tie(contacts[x].body_a, contacts[x].body_b) < std::tie(contacts[y].body_a, contacts[y].body_b);
  });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const Contact& previous = contacts[order[k - 1]];
    const Contact& current = contacts[order[k]];
    if (previous.body_a == current.body_a && previous.body_b == current.body_b) {
      ordinals[order[k]] = ordinals[order[k - 1]] + 1;
    }
  }
  return ordinals;
}

/// The frictional contact step: fills the report's impulses, status and criteria, and the
/// world's impulse cache; returns the impulse Jᵀ r in generalized coordinates.
Eigen::VectorXd coulomb_step(World& world, const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                             const Eigen::VectorXd& tangent_bias, const MoreauJeanOptions& options,
                             StepReport& report) {
  const Eigen::Index m = space.contact_count();
  const Eigen::SparseMatrix<double> J = interleaved_jacobian(space);
  FrictionContact problem;
  problem.dimension = 2;
  problem.W = delassus_sparse(J, space.inverse_mass);
  problem.q.resize(2 * m);
  for (Eigen::Index k = 0; k < m; ++k) {
    problem.q[2 * k] = normal_bias[k];
    problem.q[2 * k + 1] = tangent_bias[k];
  }
  problem.mu = Eigen::VectorXd::Constant(m, options.friction);

  // Warm start: the impulse the same contact carried in the last step.
  const std::vector<int> ordinals = pair_ordinals(report.contacts);
  std::vector<ContactImpulse> previous = std::move(world.impulses);
  auto key = [](const ContactImpulse& c) { return std::tie(c.body_a, c.body_b, c.ordinal); };
  std::sort(previous.begin(), previous.end(),
            [&](const ContactImpulse& x, const ContactImpulse& y) { return key(x) < key(y); });
  Eigen::VectorXd start = Eigen::VectorXd::Zero(2 * m);
  for (Eigen::Index k = 0; k < m; ++k) {
    const Contact& contact = report.contacts[static_cast<std::size_t>(k)];
    const ContactImpulse probe{contact.body_a, contact.body_b, ordinals[static_cast<std::size_t>(k)], 0, 0};
    const auto found =
        std::lower_bound(previous.begin(), previous.end(), probe,
                         [&](const ContactImpulse& x, const ContactImpulse& y) { return key(x) < key(y); });
    if (found != previous.end() && key(*found) == key(probe)) {
      start[2 * k] = found->normal;
      start[2 * k + 1] = found->tangent;
      ++report.warm_started;
    }
  }
  SolveOptions solve_options = options.solve;
  solve_options.initial_guess = std::move(start);

  const auto solve_start = std::chrono::steady_clock::now();
  const Result result = solve(problem, options.method, solve_options);
  report.solve_ms = milliseconds_since(solve_start);
  report.status = result.status;
  report.method = result.method;
  report.iterations = result.iterations;
  report.residual = result.residual;
  report.lcp_size = problem.size();
  report.criteria = friction_contact_residuals(problem, result.z, result.w);
  world.impulses.clear();
  world.impulses.reserve(static_cast<std::size_t>(m));
  for (Eigen::Index k = 0; k < m; ++k) {
    report.normal_impulse[k] = result.z[2 * k];
    report.tangent_impulse[k] = result.z[2 * k + 1];
    const Contact& contact = report.contacts[static_cast<std::size_t>(k)];
    world.impulses.push_back(
        {contact.body_a, contact.body_b, ordinals[static_cast<std::size_t>(k)], result.z[2 * k], result.z[2 * k + 1]});
  }
  return J.transpose() * result.z;
}

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
  if (!std::isfinite(activation_tolerance) || activation_tolerance < 0) {
    fail("activation_tolerance must be finite and >= 0, got " + std::to_string(activation_tolerance));
  }
}

StepReport moreau_jean_step(World& world, const MoreauJeanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  options.validate();
  world.validate();
  const double h = options.timestep;
  const Eigen::VectorXd v = generalized_velocity(world.bodies);
  const Eigen::VectorXd inverse_mass = inverse_mass_diagonal(world.bodies);
  const auto body_count = static_cast<Eigen::Index>(world.bodies.size());

  // 1. Activation by the predicted gap.
  const std::vector<Contact> candidates =
      detect_contacts(world, detection_margin(world, h, options.activation_tolerance));
  StepReport report;
  if (!candidates.empty()) {
    const Eigen::VectorXd gap_rate = normal_jacobian(candidates, body_count) * v;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (candidates[k].gap + 0.5 * h * gap_rate[static_cast<Eigen::Index>(k)] <= options.activation_tolerance) {
        report.contacts.push_back(candidates[k]);
      }
    }
  }

  // 2. Free velocity.
  Eigen::VectorXd v_free = v;
  for (Eigen::Index i = 0; i < body_count; ++i) v_free.segment<2>(3 * i) += h * options.gravity;

  // 3–4. Impulses and the velocity update.
  const auto m = static_cast<Eigen::Index>(report.contacts.size());
  report.normal_impulse = Eigen::VectorXd::Zero(m);
  report.tangent_impulse = Eigen::VectorXd::Zero(m);
  Eigen::VectorXd v_next = v_free;
  if (m > 0) {
    const ContactSpace space{normal_jacobian(report.contacts, body_count),
                             tangent_jacobian(report.contacts, body_count), inverse_mass};
    const Eigen::VectorXd normal_bias = space.normal * v_free + options.restitution * (space.normal * v);
    const Eigen::VectorXd tangent_bias = space.tangent * v_free;
    // The Coulomb model with a method that only takes an LCP (pgs, murty, …) steps through the
    // LCP of the same law: frictionless, or Stewart–Trinkle.
    const std::vector<Method> cone_methods = friction_contact_methods();
    const bool on_cone = options.friction_model == FrictionModel::Coulomb &&
                         std::find(cone_methods.begin(), cone_methods.end(), options.method) != cone_methods.end();
    const FrictionModel lcp_model =
        options.friction_model == FrictionModel::Coulomb ? FrictionModel::StewartTrinkle : options.friction_model;
    if (on_cone) {
      v_next += inverse_mass.cwiseProduct(coulomb_step(world, space, normal_bias, tangent_bias, options, report));
    } else {
      world.impulses.clear();
      Lcp lcp;
      const bool frictionless = options.friction == 0;
      if (frictionless) {
        lcp = {delassus_dense(space.normal, inverse_mass), normal_bias};
      } else if (lcp_model == FrictionModel::StewartTrinkle) {
        lcp = stewart_trinkle_lcp(space, normal_bias, tangent_bias, options.friction);
      } else {
        lcp = anitescu_potra_lcp(space, normal_bias, tangent_bias, options.friction);
      }
      const auto solve_start = std::chrono::steady_clock::now();
      const Result result = solve(lcp, options.method, options.solve);
      report.solve_ms = milliseconds_since(solve_start);
      report.status = result.status;
      report.method = result.method;
      report.iterations = result.iterations;
      report.residual = result.residual;
      report.lcp_size = lcp.size();
      if (frictionless) {
        report.normal_impulse = result.z;
      } else if (lcp_model == FrictionModel::StewartTrinkle) {
        report.normal_impulse = result.z.segment(0, m);
        report.tangent_impulse = result.z.segment(m, m) - result.z.segment(2 * m, m);
      } else {
        report.normal_impulse = result.z.segment(0, m) + result.z.segment(m, m);
        report.tangent_impulse = options.friction * (result.z.segment(0, m) - result.z.segment(m, m));
      }
      const Eigen::VectorXd impulse =
          space.normal.transpose() * report.normal_impulse + space.tangent.transpose() * report.tangent_impulse;
      v_next += inverse_mass.cwiseProduct(impulse);
    }
  } else {
    world.impulses.clear();
  }

  // 5. θ-method position update.
  const double theta = options.theta;
  for (Eigen::Index i = 0; i < body_count; ++i) {
    Body& body = world.bodies[static_cast<std::size_t>(i)];
    const Eigen::Vector3d mean = (1 - theta) * v.segment<3>(3 * i) + theta * v_next.segment<3>(3 * i);
    body.position += h * mean.head<2>();
    body.angle += h * mean[2];
    body.velocity = v_next.segment<2>(3 * i);
    body.angular_velocity = v_next[3 * i + 2];
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
  return report;
}

Energy energy(const World& world, const Eigen::Vector2d& gravity) {
  Energy e;
  for (const Body& body : world.bodies) {
    e.kinetic += 0.5 * body.mass * body.velocity.squaredNorm() +
                 0.5 * body.moment_of_inertia() * body.angular_velocity * body.angular_velocity;
    e.potential -= body.mass * gravity.dot(body.position);
  }
  return e;
}

}  // namespace perp::contact
