// `perp diagnose` on a scene: the run's unsolved steps and overlaps (drift), and [chapter]'s
// fixes for them (stabilization, a lower μ), each tried.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "diagnose_parts.hpp"
#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/contact/jacobian.hpp"
#include "perp/io/simulation.hpp"

namespace perp::cli::diagnose_detail {
namespace {

using nlohmann::ordered_json;

/// A contact slides when |u_T| exceeds this (m/s).
constexpr double kSlidingSpeed = 1e-9;

/// The deepest overlap (min gap, <= 0) among the frames of the first and of the last quarter.
std::pair<double, double> overlaps(const SimulationRecord& record) {
  const std::vector<SimulationFrame>& frames = record.frames;
  const std::size_t quarter = std::max<std::size_t>(frames.size() / 4, 1);
  double early = 0;
  double late = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i < quarter) early = std::min(early, frames[i].deepest_overlap);
    if (i + quarter >= frames.size()) late = std::min(late, frames[i].deepest_overlap);
  }
  return {early, late};
}

/// A side's name: the body's, "ground", or "plane P".
std::string side_name(const contact::World& world, int side) {
  if (side >= 0) return world.bodies[static_cast<std::size_t>(side)].name;
  if (side == contact::kGround) return "ground";
  return "plane " + std::to_string(contact::plane_of(side));
}

/// The contacts of the start that slide while their normal effective mass under sliding friction
/// is not positive: α = W_NN − μ s W_NT <= 0 (W = J M⁻¹ Jᵀ of the contact's normal and tangent
/// rows, s the sign of the sliding velocity u_T; Coulomb gives r_T = −μ s r_N, so a normal impulse
/// r_N changes u_N by α r_N): no normal force keeps such a contact closed, Painlevé's inconsistency
/// ([chapter] §1.7: for the rod, μ > (tan²θ + 4)/(3 tan θ)). Each comes with μ* = W_NN / (s W_NT),
/// below which it is consistent.
ordered_json painleve_start(const contact::Scene& scene) {
  const contact::World& world = scene.world;
  const std::vector<contact::Contact> contacts = contact::detect_contacts(world, scene.options.activation_tolerance);
  ordered_json found = ordered_json::array();
  if (contacts.empty()) return found;
  const auto bodies = static_cast<Eigen::Index>(world.bodies.size());
  const Eigen::SparseMatrix<double> JN = contact::normal_jacobian(contacts, bodies);
  const Eigen::SparseMatrix<double> JT = contact::tangent_jacobian(contacts, bodies);
  const Eigen::VectorXd inverse_mass = contact::inverse_mass_diagonal(world.bodies);
  const Eigen::VectorXd v = contact::generalized_velocity(world.bodies);
  const Eigen::VectorXd uT = JT * v;
  const auto friction_of = [&](int side) {
    if (side >= 0) return world.bodies[static_cast<std::size_t>(side)].friction;
    if (side == contact::kGround) return std::optional<double>{};
    return world.planes[contact::plane_of(side)].friction;
  };
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const auto row = static_cast<Eigen::Index>(k);
    const double slide = uT[row];
    if (!(std::abs(slide) > kSlidingSpeed)) continue;
    const contact::Contact& c = contacts[k];
    const double mu = contact::combine_friction(friction_of(c.body_a), friction_of(c.body_b), scene.options.friction);
    const Eigen::VectorXd n = JN.row(row).transpose();
    const Eigen::VectorXd t = JT.row(row).transpose();
    const double nn = n.dot(inverse_mass.cwiseProduct(n));
    const double nt = n.dot(inverse_mass.cwiseProduct(t));
    const double s = slide > 0 ? 1.0 : -1.0;
    const double alpha = nn - mu * s * nt;
    if (alpha > 0) continue;
    ordered_json entry;
    entry["contact"] = side_name(world, c.body_a) + "-" + side_name(world, c.body_b);
    entry["sliding_velocity"] = slide;
    entry["mu"] = mu;
    entry["alpha"] = alpha;
    entry["mu_bound"] = nn / (s * nt);  // s nt > 0 here: alpha <= 0 with nn > 0
    found.push_back(entry);
  }
  return found;
}

}  // namespace

ordered_json diagnose_scene(const contact::Scene& scene) {
  ordered_json out;
  const auto run = [](const contact::Scene& s) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("perp-diagnose-" + std::to_string(::getpid()));
    SimulationRecord record;
    {
      StagedFiles files(dir);
      record = write_simulation(s, files, {.frame_capacity = 200});
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    return record;
  };
  const SimulationRecord record = run(scene);
  ordered_json summary;
  summary["bodies"] = scene.world.bodies.size();
  summary["steps"] = record.steps;
  summary["unsolved_steps"] = record.unsolved;
  summary["first_unsolved_step"] = record.first_failure_step;
  summary["first_unsolved_status"] = record.first_failure_step >= 0 ? to_string(record.first_failure) : "";
  summary["most_contacts"] = record.most_contacts;
  summary["deepest_overlap"] = record.deepest_overlap;
  summary["energy_start"] = record.initial_energy.total();
  summary["energy_end"] = record.last_energy;
  summary["steps_by_method"] = record.steps_by_method;
  summary["fallbacks"] = record.fallbacks;
  summary["most_iterations"] = record.most_iterations;
  out["run"] = summary;
  double size = 0;
  for (const contact::Body& b : scene.world.bodies) size = std::max(size, b.bounding_radius());
  ordered_json findings = ordered_json::array();
  const auto [early, late] = overlaps(record);
  // Drift: the overlap of the last quarter of the run deeper than the first's (and not round-off);
  // or any overlap deeper than 5 % of the largest body. Where the drift correction is on (the
  // default), the overlap it tolerates (its slop) is not counted.
  const bool corrected = scene.options.baumgarte > 0;
  const double tolerated = corrected ? scene.options.slop : 0.0;
  const bool drifting = -late - tolerated > 1e-3 * size && late < 2 * early;
  if (drifting || -record.deepest_overlap - tolerated > 0.05 * size) {
    contact::Scene fixed = scene;
    std::string fix;
    if (!corrected) {
      fixed.options.baumgarte = 0.2;
      fixed.options.split_impulse = true;
      fix = "add stabilization (baumgarte 0.2 with split impulse)";
    } else {
      // The correction is on and works after the fact; an impact still sinks a body by about
      // h |v| / 2 in the step it lands, which a smaller step shrinks.
      fixed.options.timestep *= 0.5;
      fix = "halve the timestep (an impact overlaps by about h |v| / 2 before the stabilization, on, removes it)";
    }
    const SimulationRecord again = run(fixed);
    const auto [early_fixed, late_fixed] = overlaps(again);
    (void)early_fixed;
    const bool helped = drifting || !corrected ? -late_fixed < 0.5 * -late
                                               : -again.deepest_overlap < 0.75 * -record.deepest_overlap;
    findings.push_back(finding(
        drifting ? "drift: penetration grows" : "deep penetration",
        "deepest overlap " + three_digits(depth(early)) + " m in the first quarter of the run, " + three_digits(depth(late)) +
            " m in the last (deepest " + three_digits(depth(record.deepest_overlap)) + " m at step " +
            std::to_string(record.deepest_overlap_step) + "; largest body radius " + three_digits(size) + " m" +
            (corrected ? "; stabilization on, slop " + three_digits(tolerated) + " m" : std::string()) + ")",
        fix, helped,
        "with it: deepest overlap " + three_digits(depth(again.deepest_overlap)) + " m, " + three_digits(depth(late_fixed)) +
            " m in the last quarter, " + std::to_string(again.unsolved) + " unsolved steps"));
  }
  const ordered_json inconsistent = painleve_start(scene);
  if (!inconsistent.empty()) {
    const ordered_json& first = inconsistent.front();
    std::string evidence = "at the start, contact " + first["contact"].get<std::string>() + " slides (u_T = " +
                           three_digits(first["sliding_velocity"].get<double>()) + " m/s) with alpha = W_NN - mu s W_NT = " +
                           three_digits(first["alpha"].get<double>()) + " <= 0 at mu = " +
                           three_digits(first["mu"].get<double>()) + ": no normal force keeps it closed; consistent for mu < " +
                           three_digits(first["mu_bound"].get<double>());
    if (inconsistent.size() > 1) evidence += " (and " + std::to_string(inconsistent.size() - 1) + " more contacts)";
    ordered_json f = finding("a Painleve-inconsistent start (sliding friction pulls the contact shut harder than any normal force pushes)",
                             evidence, "mu below " + three_digits(first["mu_bound"].get<double>()) +
                                           " at that contact, or start it without sliding",
                             std::nullopt,
                             "not tried: the time-stepping above meets it with an impulse (a tangential impact); " +
                                 std::to_string(record.unsolved) + " unsolved steps");
    f["contacts"] = inconsistent;
    findings.push_back(f);
  }
  if (record.unsolved > 0) {
    double mu = scene.options.friction;
    for (const contact::Body& b : scene.world.bodies) mu = std::max(mu, b.friction.value_or(0.0));
    if (mu > 0) {
      contact::Scene lower = scene;
      lower.options.friction *= 0.5;
      for (contact::Body& b : lower.world.bodies) {
        if (b.friction) *b.friction *= 0.5;
      }
      for (contact::Plane& p : lower.world.planes) {
        if (p.friction) *p.friction *= 0.5;
      }
      const SimulationRecord again = run(lower);
      findings.push_back(finding("unsolved steps with friction (Painleve-type inconsistency is possible)",
                                 std::to_string(record.unsolved) + " steps unsolved, the first at step " +
                                     std::to_string(record.first_failure_step) + " (" + to_string(record.first_failure) +
                                     "), largest mu " + three_digits(mu),
                                 "lower mu (here: halved)", again.unsolved < record.unsolved,
                                 std::to_string(again.unsolved) + " unsolved steps with mu halved"));
    } else {
      findings.push_back(finding("unsolved steps", std::to_string(record.unsolved) + " steps unsolved",
                                 "another method (--method lemke)", std::nullopt, "not tried"));
    }
  }
  out["findings"] = findings;
  out["solved"] = record.unsolved == 0;
  out["verdict"] = record.unsolved == 0 ? "every step solved" : std::to_string(record.unsolved) + " steps unsolved";
  return out;
}

}  // namespace perp::cli::diagnose_detail
