#include "perp/contact3d/moreau_jean.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/SparseCore>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../contact/advance.hpp"
#include "../contact/global_step.hpp"
#include "../contact/material.hpp"
#include "../contact/sleeping.hpp"
#include "perp/contact/body.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/factored_lcp.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::contact3d {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

[[noreturn]] void bad_option(const char* field, const std::string& expected, double value) {
  throw InvalidProblem(std::string("step options: ") + field + " must be " + expected + ", got " + number_text(value));
}

/// The polyhedral LCP's Lemke retries (below): as friction_lemke.hpp's kCoveringRetries,
/// kCoveringSpread, kCoveringSeed.
constexpr int kCoveringRetries = 2;
constexpr double kCoveringSpread = 1e-3;
constexpr std::uint64_t kCoveringSeed = 20261204;

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

/// A warm start matches a contact to the last step's nearest point of the same pair within this
/// distance (m) in body a's frame.
constexpr double kWarmMatchDistance = 0.05;

/// The contact point in body a's frame (a's rotation at the start of the step, `poses`).
Eigen::Vector3d local_point(const std::vector<Eigen::Matrix3d>& poses, const Contact& c) {
  return poses[static_cast<std::size_t>(c.body_a)].transpose() * c.arm_a;
}

/// Step 3 under the chosen model: fills the report's result, impulses r (3 a contact), criteria and
/// law. `start` is the warm start (the last step's impulses of the same contacts).
void solve_model(const FactoredFrictionContact& problem, const Eigen::VectorXd& start, const StepOptions& options,
                 StepReport& report) {
  SolveOptions solve_options = options.solve;
  // The exact cone (Coulomb) by `method`, auto's chain continued by the packed-step chain.
  const auto exact_cone = [&](Method method) {
    solve_options.initial_guess = start;
    report.result = solve(problem, method, solve_options, report.criteria);
    if (!report.result.solved() && method == Method::Auto && report.result.z.allFinite()) {
      // auto's chain stalled (a box rocking on three corners of unequal overlap: nsgs, newton-ac
      // and prox end near 1e-8): the planar step's packed-step chain from auto's point (nsgs; the
      // convex law, by admm in 3D; nsgs from its impulses), the convex law's impulses where
      // Coulomb's is still not met, said so in `fallback`.
      SolveOptions chain_options = options.solve;
      chain_options.initial_guess = report.result.z;
      contact::detail::PackedOutcome chain = contact::detail::solve_packed_coulomb(problem, chain_options);
      const std::string first = "auto: " + to_string(report.result.status) + " at relative error " +
                                number_text(report.result.residual);
      if (chain.result.solved()) {
        chain.result.iterations += report.result.iterations;
        chain.result.message = first + "; then " + chain.result.message;
        report.fallback = chain.fallback.empty() ? first + "; the packed-step chain's impulses"
                                                 : first + "; " + chain.fallback;
        report.result = std::move(chain.result);
        report.criteria = chain.criteria;
        report.law = chain.law;
      }
    }
    report.impulses = report.result.z;
  };
  switch (options.friction_model) {
    case contact::FrictionModel::AnitescuPotra: {
      // The convex law in the global form (M diagonal, W never formed), admm on the factors.
      const GlobalFrictionContact global = contact::detail::global_form(problem, FrictionLaw::Convex);
      solve_options.initial_guess = start;
      Eigen::VectorXd v;
      GlobalFrictionContactResiduals criteria;
      report.result = solve(global, options.method, solve_options, v, criteria);
      report.criteria = criteria.contact;
      report.law = FrictionLaw::Convex;
      report.impulses = report.result.z;
      break;
    }
    case contact::FrictionModel::StewartTrinkle: {
      // The pyramid's LCP on W formed (k + 2 unknowns a contact); its status is the LCP's, its
      // criteria Coulomb's of r.
      const int facets = options.solve.friction_contact.lemke.facets;
      const Eigen::Index unknowns = problem.contacts() * (facets + 2);
      if (unknowns > options.solve.friction_contact.lemke.lcp_max_size) {
        // Too large to form (checked before anything is formed): the law the pyramid approximates,
        // the exact cone by auto, said so in `fallback` (never a step without impulses).
        exact_cone(Method::Auto);
        report.fallback = "stewart-trinkle: the polyhedral LCP would have " + std::to_string(unknowns) +
                          " unknowns, more than friction_contact.lemke.lcp_max_size = " +
                          std::to_string(options.solve.friction_contact.lemke.lcp_max_size) +
                          "; the exact cone instead" + (report.fallback.empty() ? "" : "; " + report.fallback);
        break;
      }
      const FrictionContact formed = problem.assembled();
      const PolyhedralLcp polyhedral = polyhedral_lcp(formed, facets);
      solve_options.initial_guess.reset();
      report.warm_started = 0;
      report.result = solve(polyhedral.lcp, options.method, solve_options);
      // On a resting stack the pyramid's LCP is degenerate (redundant corners, k directions a
      // contact) and Lemke's path may end in a numerical failure or on a secondary ray near the
      // end: run it again with the covering vector e + δ, δ_i uniform in [0, 1e-3) from a fixed
      // seed, at most twice — the rule of lemke on a frictional contact problem
      // (src/solvers/friction/impulse/friction_lemke.hpp), here on the step's own LCP. Measured on
      // tower3d.json with k = 4: 6 of 120 steps unsolved without it.
      std::mt19937_64 engine(kCoveringSeed);
      std::uniform_real_distribution<double> spread(0.0, kCoveringSpread);
      const bool lemke = options.method == Method::Auto || options.method == Method::Lemke;
      for (int attempt = 0; lemke && attempt < kCoveringRetries && !report.result.solved(); ++attempt) {
        SolveOptions again_options = solve_options;
        Eigen::VectorXd cover(polyhedral.lcp.size());
        for (double& entry : cover) entry = 1.0 + spread(engine);
        again_options.lemke.covering_vector = std::move(cover);
        Result again = solve(polyhedral.lcp, Method::Lemke, again_options);
        again.message = "again with a perturbed covering vector: " + again.message + "; first: " +
                        to_string(report.result.status) + " (" + report.result.message + ")";
        again.iterations += report.result.iterations;
        if (again.solved() || again.residual < report.result.residual) report.result = std::move(again);
      }
      report.impulses = polyhedral.reaction(report.result.z);
      report.criteria = friction_contact_residuals(formed, report.impulses);
      report.law = FrictionLaw::Coulomb;
      break;
    }
    default:
      exact_cone(options.method);
      break;
  }
  report.status = report.result.status;
}

/// The split impulse: the frictionless problem of the contacts overlapping past the slop for a
/// pseudo-velocity from rest, 0 <= λ ⊥ J_N M⁻¹ J_Nᵀ λ + b >= 0 (b = `overlap_bias` < 0 on those
/// rows), on its factors by pgs as in 2D; returns M⁻¹ J_Nᵀ λ in the problem's coordinates (the
/// angular parts in each body's principal axes).
Eigen::VectorXd split_impulse_shift(const FactoredFrictionContact& problem, const Eigen::VectorXd& overlap_bias,
                                    const StepOptions& options, StepReport& report) {
  std::vector<Eigen::Index> rows;
  for (Eigen::Index k = 0; k < overlap_bias.size(); ++k) {
    if (overlap_bias[k] < 0) rows.push_back(k);
  }
  const auto count = static_cast<Eigen::Index>(rows.size());
  std::vector<Eigen::Triplet<double>> entries;
  FactoredLcp split;
  split.c.resize(count);
  for (Eigen::Index r = 0; r < count; ++r) {
    const Eigen::Index row = 3 * rows[static_cast<std::size_t>(r)];
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(problem.H, row); it; ++it) {
      entries.emplace_back(r, it.col(), it.value());
    }
    split.c[r] = overlap_bias[rows[static_cast<std::size_t>(r)]];
  }
  split.A.resize(count, problem.H.cols());
  split.A.setFromTriplets(entries.begin(), entries.end());
  split.A.makeCompressed();
  split.inverse_mass = problem.inverse_mass;
  SolveOptions solve_options = options.solve;
  solve_options.initial_guess.reset();
  solve_options.tolerance = std::max(options.solve.tolerance, contact::kSplitTolerance);
  solve_options.max_iterations = contact::kSplitSweeps;
  const Result result = solve(split, Method::Pgs, solve_options);
  report.split_contacts = static_cast<std::size_t>(count);
  report.split_status = result.status;
  return split.inverse_mass.cwiseProduct(Eigen::VectorXd(split.A.transpose() * result.z));
}

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
  if (!std::isfinite(baumgarte) || baumgarte < 0 || baumgarte >= 1) bad_option("baumgarte", "in [0, 1)", baumgarte);
  if (!std::isfinite(slop) || slop < 0) bad_option("slop", "finite and >= 0", slop);
  if (!std::isfinite(sleep_speed) || sleep_speed < 0) bad_option("sleep_speed", "finite and >= 0", sleep_speed);
  if (!std::isfinite(sleep_time) || sleep_time <= 0) bad_option("sleep_time", "finite and > 0", sleep_time);
  const std::string model = contact::to_string(friction_model);
  switch (friction_model) {
    case contact::FrictionModel::Coulomb: {
      const std::vector<Method> methods = friction_contact_methods();
      if (std::find(methods.begin(), methods.end(), method) == methods.end()) {
        throw InvalidProblem(std::string("step options: method '") + to_string(method) +
                             "' does not solve a frictional contact problem (friction_model coulomb)");
      }
      break;
    }
    case contact::FrictionModel::AnitescuPotra:
      if (method != Method::Auto && method != Method::Admm) {
        throw InvalidProblem(std::string("step options: method '") + to_string(method) +
                             "' does not solve the convex law in 3D (friction_model anitescu-potra): auto or admm");
      }
      break;
    case contact::FrictionModel::StewartTrinkle: {
      const std::vector<Method> methods = lcp_methods();
      if (std::find(methods.begin(), methods.end(), method) == methods.end()) {
        throw InvalidProblem(std::string("step options: method '") + to_string(method) +
                             "' does not solve an LCP (friction_model stewart-trinkle)");
      }
      if (solve.friction_contact.lemke.facets < 3) {
        throw InvalidProblem("step options: facets (solve.friction_contact.lemke.facets) must be >= 3, got " +
                             std::to_string(solve.friction_contact.lemke.facets));
      }
      break;
    }
    default:
      throw InvalidProblem("step options: friction_model " + model + " (" +
                           std::to_string(static_cast<int>(friction_model)) + ") is not a model");
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
  std::vector<Eigen::Matrix3d> poses;  // the bodies' rotations at the start of the step
  poses.reserve(world.bodies.size());
  for (const Body& body : world.bodies) poses.push_back(body.rotation());
  // The last step's impulses by pair (sorted), each matched below to the nearest point of a contact
  // of the same pair in body a's frame, and taken in the new contact's frame.
  std::vector<const ContactImpulse*> last;
  last.reserve(world.impulses.size());
  std::vector<std::pair<int, int>> loaded;
  for (const ContactImpulse& kept : world.impulses) {
    last.push_back(&kept);
    if (kept.impulse[0] > 0) loaded.emplace_back(kept.body_a, kept.body_b);
  }
  std::stable_sort(last.begin(), last.end(), [](const ContactImpulse* x, const ContactImpulse* y) {
    return std::pair(x->body_a, x->body_b) < std::pair(y->body_a, y->body_b);
  });
  std::sort(loaded.begin(), loaded.end());
  const double held_tolerance = contact::kHeldFactor * options.activation_tolerance;
  double fastest = 0;
  for (const Body& body : world.bodies) {
    fastest = std::max(fastest, body.velocity.norm() + body.angular_velocity.norm() * body.shape.bounding_radius());
  }
  Eigen::VectorXd v_k = stacked_velocities(world);
  // With sleeping, the bodies that slept through the last step are not searched against each other,
  // fixed bodies or the static surfaces; where a contact found joins one of them to a moving body,
  // the island wakes and the search runs again in full (the contacts found are always the full
  // search's less some between sleeping bodies, which the sleeping below drops anyway).
  const double margin = h * fastest + (loaded.empty() ? options.activation_tolerance : held_tolerance);
  std::vector<char> frozen;
  if (options.sleeping) {
    frozen = contact::detail::slept_through(world.bodies, world.rest_time, options.sleep_time,
                                            [&](std::size_t i) { return contact::detail::motionless(world.bodies[i]); });
  }
  std::vector<Contact> detected = detect_contacts(world, margin, frozen);
  const auto moving = [&](std::size_t i) {
    return !world.bodies[i].fixed || !contact::detail::motionless(world.bodies[i]);
  };
  if (contact::detail::joins_frozen(detected, frozen, moving)) detected = detect_contacts(world, margin);
  for (const Contact& c : detected) {
    const double rate = point_rate(v_k, c.body_a, c.arm_a, c.normal) - point_rate(v_k, c.body_b, c.arm_b, c.normal);
    const bool held = std::binary_search(loaded.begin(), loaded.end(), std::pair(c.body_a, c.body_b));
    if (c.gap + 0.5 * h * rate <= (held ? held_tolerance : options.activation_tolerance)) report.contacts.push_back(c);
  }

  // Sleeping islands (contact/sleeping.hpp, the planar step's rule): at rest, out of the solve, their
  // impulses kept for when they wake.
  std::vector<char> asleep;
  std::vector<ContactImpulse> asleep_impulses;
  if (options.sleeping) {
    const auto movable = [&](std::size_t i) { return !world.bodies[i].fixed; };
    const auto kinematic = [&](std::size_t i) { return contact::detail::kinematic(world.bodies[i]); };
    const auto at_rest = [&](std::size_t i) {
      const auto k = 6 * static_cast<Eigen::Index>(i);
      const double spin = v_k.segment<3>(k + 3).norm();
      const double speed =
          v_k.segment<3>(k).norm() + (spin == 0 ? 0.0 : spin * world.bodies[i].shape.bounding_radius());
      return speed <= options.sleep_speed;
    };
    asleep = contact::detail::asleep_islands(report.contacts, world.bodies.size(), movable, kinematic, at_rest, h,
                                             options.sleep_time, world.rest_time);
    asleep_impulses = contact::detail::set_aside_asleep(asleep, report.contacts, world.impulses);
    for (Eigen::Index i = 0; i < body_count; ++i) {
      if (!asleep[static_cast<std::size_t>(i)]) continue;
      Body& body = world.bodies[static_cast<std::size_t>(i)];
      body.velocity.setZero();
      body.angular_velocity.setZero();
      v_k.segment<6>(6 * i).setZero();
      ++report.sleeping_bodies;
      report.asleep.push_back(static_cast<int>(i));
    }
  }

  // 2. Free velocities (a fixed body keeps its own; a sleeping one stays at rest).
  Eigen::VectorXd v_free = v_k;
  for (Eigen::Index i = 0; i < body_count; ++i) {
    const Body& body = world.bodies[static_cast<std::size_t>(i)];
    if (body.fixed || (!asleep.empty() && asleep[static_cast<std::size_t>(i)])) continue;
    v_free.segment<3>(6 * i) += h * options.gravity;
    v_free.segment<3>(6 * i + 3) = gyroscopic_step(body, h);
  }

  // 3. The frictional contact problem of the active contacts.
  Eigen::VectorXd v_next = v_free;
  Eigen::VectorXd split_shift;  // h M⁻¹ J_Nᵀ λ of the split impulse (world frame), when there is one
  const auto m = static_cast<Eigen::Index>(report.contacts.size());
  if (m > 0) {
    Eigen::VectorXd mu(m);
    Eigen::VectorXd start = Eigen::VectorXd::Zero(3 * m);
    std::vector<bool> used(last.size(), false);
    for (Eigen::Index k = 0; k < m; ++k) {
      const Contact& c = report.contacts[static_cast<std::size_t>(k)];
      const contact::detail::Side a = contact::detail::side_of(world, c.body_a);
      const contact::detail::Side b = contact::detail::side_of(world, c.body_b);
      mu[k] = contact::combine_friction(a.friction, b.friction, options.friction);
      const Eigen::Vector3d local = local_point(poses, c);
      const ContactImpulse probe{.body_a = c.body_a, .body_b = c.body_b};
      auto pair = std::lower_bound(last.begin(), last.end(), &probe, [](const ContactImpulse* x, const ContactImpulse* y) {
        return std::pair(x->body_a, x->body_b) < std::pair(y->body_a, y->body_b);
      });
      // One old contact to one new: the same feature within the distance first, else the nearest
      // unused point (a manifold may list two points at one place, e.g. an edge on an edge, and two
      // new contacts taking one old impulse would double its load).
      std::ptrdiff_t nearest = -1;
      double nearest_distance = kWarmMatchDistance;
      for (; pair != last.end() && (*pair)->body_a == c.body_a && (*pair)->body_b == c.body_b; ++pair) {
        const auto index = pair - last.begin();
        if (used[static_cast<std::size_t>(index)]) continue;
        const double distance = ((*pair)->local_point - local).norm();
        if (distance > kWarmMatchDistance) continue;
        if ((*pair)->feature == c.feature) {
          nearest = index;
          break;
        }
        if (distance < nearest_distance || nearest < 0) {
          nearest = index;
          nearest_distance = distance;
        }
      }
      if (nearest >= 0) {
        used[static_cast<std::size_t>(nearest)] = true;
        const Eigen::Vector3d& w = last[static_cast<std::size_t>(nearest)]->world_impulse;
        start.segment<3>(3 * k) = Eigen::Vector3d(c.normal.dot(w), c.tangent1.dot(w), c.tangent2.dot(w));
        ++report.warm_started;
      }
    }

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
    // H row by row, written straight into its compressed arrays (a row: 6 entries for body a, then 6
    // for body b where it is a body; a < b for a pair), and q = J v_free, u_before = J v_k from each
    // contact's rates.
    Eigen::Index nonzeros = 0;
    for (const Contact& c : report.contacts) nonzeros += 3 * (c.body_b >= 0 ? 12 : 6);
    problem.H.resize(3 * m, n);
    problem.H.resizeNonZeros(nonzeros);
    int* const outer = problem.H.outerIndexPtr();
    int* const inner = problem.H.innerIndexPtr();
    double* const values = problem.H.valuePtr();
    problem.q.resize(3 * m);
    Eigen::VectorXd u_before(3 * m);
    int at = 0;
    outer[0] = 0;
    const auto add_body = [&](int body, const Eigen::Vector3d& d, const Eigen::Vector3d& arm, double sign) {
      const Eigen::Vector3d angular = axes[static_cast<std::size_t>(body)].transpose() * arm.cross(d);
      for (int j = 0; j < 3; ++j) {
        inner[at] = 6 * body + j;
        values[at++] = sign * d[j];
      }
      for (int j = 0; j < 3; ++j) {
        inner[at] = 6 * body + 3 + j;
        values[at++] = sign * angular[j];
      }
    };
    for (Eigen::Index k = 0; k < m; ++k) {
      const Contact& c = report.contacts[static_cast<std::size_t>(k)];
      const std::array<Eigen::Vector3d, 3> directions = {c.normal, c.tangent1, c.tangent2};
      for (Eigen::Index r = 0; r < 3; ++r) {
        const Eigen::Vector3d& d = directions[static_cast<std::size_t>(r)];
        add_body(c.body_a, d, c.arm_a, 1.0);
        if (c.body_b >= 0) add_body(c.body_b, d, c.arm_b, -1.0);
        outer[3 * k + r + 1] = at;
        problem.q[3 * k + r] = point_rate(v_free, c.body_a, c.arm_a, d) - point_rate(v_free, c.body_b, c.arm_b, d);
        u_before[3 * k + r] = point_rate(v_k, c.body_a, c.arm_a, d) - point_rate(v_k, c.body_b, c.arm_b, d);
      }
    }
    problem.mu = mu;
    for (Eigen::Index k = 0; k < m; ++k) {
      const Contact& c = report.contacts[static_cast<std::size_t>(k)];
      const double e = contact::combine_restitution(contact::detail::side_of(world, c.body_a).restitution,
                                                    contact::detail::side_of(world, c.body_b).restitution,
                                                    options.restitution);
      if (e != 0 && u_before[3 * k] < 0) problem.q[3 * k] += e * u_before[3 * k];
    }
    // Drift correction: overlaps beyond the slop ask for a separation velocity (in this solve, or in
    // the split solve after it).
    Eigen::VectorXd overlap_bias = Eigen::VectorXd::Zero(m);
    if (options.baumgarte > 0) {
      for (Eigen::Index k = 0; k < m; ++k) {
        const double gap = report.contacts[static_cast<std::size_t>(k)].gap;
        if (gap < -options.slop) overlap_bias[k] = options.baumgarte * (gap + options.slop) / h;
      }
      if (!options.split_impulse) {
        for (Eigen::Index k = 0; k < m; ++k) problem.q[3 * k] += overlap_bias[k];
      }
    }
    const auto solve_start = std::chrono::steady_clock::now();
    solve_model(problem, start, options, report);
    report.solve_ms = elapsed_ms(solve_start);
    // v = v_free + M⁻¹ Jᵀ r: D Hᵀ r in the principal axes, turned back to the world by P.
    const Eigen::VectorXd change = problem.inverse_mass.cwiseProduct(problem.H.transpose() * report.impulses);
    for (Eigen::Index i = 0; i < body_count; ++i) {
      v_next.segment<3>(6 * i) += change.segment<3>(6 * i);
      v_next.segment<3>(6 * i + 3) += axes[static_cast<std::size_t>(i)] * change.segment<3>(6 * i + 3);
    }
    bool split = false;
    if (options.split_impulse && overlap_bias.minCoeff() < 0) {
      for (const Contact& c : report.contacts) {
        split = split || -c.gap - options.slop > contact::kSplitTrigger * options.slop;
      }
    }
    if (split) {
      const Eigen::VectorXd pseudo = split_impulse_shift(problem, overlap_bias, options, report);
      split_shift = Eigen::VectorXd::Zero(n);
      for (Eigen::Index i = 0; i < body_count; ++i) {
        split_shift.segment<3>(6 * i) = h * pseudo.segment<3>(6 * i);
        split_shift.segment<3>(6 * i + 3) = h * (axes[static_cast<std::size_t>(i)] * pseudo.segment<3>(6 * i + 3));
      }
    }
    if (options.keep_problem && options.friction_model == contact::FrictionModel::Coulomb) {
      report.problem = contact::StepProblem{.local = std::move(problem), .global = false};
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
    if (split_shift.size() > 0) {
      body.position += split_shift.segment<3>(6 * i);
      const Eigen::Vector3d turn = split_shift.segment<3>(6 * i + 3);
      if (turn.norm() > 0) {
        body.orientation = Eigen::Quaterniond(Eigen::AngleAxisd(turn.norm(), turn.normalized())) * body.orientation;
        body.orientation.normalize();
      }
    }
  }
  world.impulses.clear();
  world.impulses.reserve(report.contacts.size());
  for (Eigen::Index k = 0; k < m; ++k) {
    const Contact& c = report.contacts[static_cast<std::size_t>(k)];
    const Eigen::Vector3d r = report.impulses.segment<3>(3 * k);
    world.impulses.push_back({.body_a = c.body_a,
                              .body_b = c.body_b,
                              .feature = c.feature,
                              .impulse = r,
                              .world_impulse = r[0] * c.normal + r[1] * c.tangent1 + r[2] * c.tangent2,
                              .local_point = local_point(poses, c)});
  }
  world.impulses.insert(world.impulses.end(), asleep_impulses.begin(), asleep_impulses.end());
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
