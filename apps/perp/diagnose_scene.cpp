// `perp diagnose` on a scene: the run's unsolved steps and overlaps (drift), and [chapter]'s
// fixes for them (stabilization, a lower μ), each tried.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "diagnose_parts.hpp"
#include "perp/io/simulation.hpp"

namespace perp::cli::diagnose_detail {
namespace {

using nlohmann::ordered_json;

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
                                 "another method (--solver lemke)", std::nullopt, "not tried"));
    }
  }
  out["findings"] = findings;
  out["solved"] = record.unsolved == 0;
  out["verdict"] = record.unsolved == 0 ? "every step solved" : std::to_string(record.unsolved) + " steps unsolved";
  return out;
}

}  // namespace perp::cli::diagnose_detail
