#include "global_step.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "perp/core/error.hpp"

namespace perp::contact::detail {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// The chain's last Coulomb attempt, Lemke on the exact Stewart–Trinkle LCP (4 unknowns a
/// contact), runs up to this many unknowns (650 contacts), its path capped at
/// kPackedLemkePivotsPerUnknown pivots an unknown (at least kPackedLemkeMinPivots). Measured on the
/// 1 000-disk heap between walls (bench/README.md, "Lemke in the packed-step chain (stop 45)"): on
/// each of four trajectories it solved the same 14 steps of 255–650 contacts that had fallen back to
/// the convex law, each path 0.7–1.3 pivots an unknown; of 8 such steps of 696–980 contacts, 6 took
/// 1.9–2.7 pivots an unknown (5 600–8 700 pivots, 1–2.3 s a step).
constexpr Eigen::Index kPackedLemkeMaxSize = 2600;
constexpr double kPackedLemkePivotsPerUnknown = 1.5;
/// Small steps' paths may run several pivots an unknown, at microseconds a pivot: at least this many.
constexpr int kPackedLemkeMinPivots = 2000;

GlobalFrictionContact global_form(const FactoredFrictionContact& factored, FrictionLaw law) {
  const Eigen::Index dofs = factored.inverse_mass.size();
  std::vector<int> index(static_cast<std::size_t>(dofs), -1);
  std::vector<int> kept;
  for (Eigen::Index j = 0; j < dofs; ++j) {
    if (factored.inverse_mass[j] > 0) {
      index[static_cast<std::size_t>(j)] = static_cast<int>(kept.size());
      kept.push_back(static_cast<int>(j));
    }
  }
  const auto m = static_cast<Eigen::Index>(kept.size());
  GlobalFrictionContact problem;
  problem.dimension = factored.dimension;
  problem.law = law;
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(factored.H.nonZeros()));
  for (Eigen::Index row = 0; row < factored.H.outerSize(); ++row) {
    for (RowSparse::InnerIterator it(factored.H, row); it; ++it) {
      const int column = index[static_cast<std::size_t>(it.col())];
      if (column >= 0 && it.value() != 0) entries.emplace_back(column, static_cast<int>(row), it.value());
    }
  }
  problem.H.resize(m, factored.size());
  problem.H.setFromTriplets(entries.begin(), entries.end());
  problem.M.resize(m, m);
  std::vector<Eigen::Triplet<double>> masses;
  masses.reserve(kept.size());
  for (Eigen::Index k = 0; k < m; ++k) {
    masses.emplace_back(static_cast<int>(k), static_cast<int>(k), 1.0 / factored.inverse_mass[kept[static_cast<std::size_t>(k)]]);
  }
  problem.M.setFromTriplets(masses.begin(), masses.end());
  problem.q = Eigen::VectorXd::Zero(m);
  problem.b = factored.q;
  problem.mu = factored.mu;
  return problem;
}

PackedOutcome solve_convex(const FactoredFrictionContact& factored, const SolveOptions& options) {
  const GlobalFrictionContact problem = global_form(factored, FrictionLaw::Convex);
  PackedOutcome outcome;
  outcome.law = FrictionLaw::Convex;
  Eigen::VectorXd v;
  GlobalFrictionContactResiduals criteria;
  outcome.result = solve(problem, Method::Auto, options, v, criteria);
  outcome.criteria = criteria.contact;
  return outcome;
}

PackedOutcome solve_packed_coulomb(const FactoredFrictionContact& factored, const SolveOptions& options) {
  PackedOutcome outcome;
  SolveOptions sweeps = options;
  // Each nsgs run of the chain gets a fifth of auto's sweeps (200 by default). Measured on the
  // 1 000-disk heap between walls (2 s, bench/HISTORY.md "The packed step"): 1 000 sweeps from the
  // warm start and 200 from the convex point met Coulomb's law at 22 of 114 steps, 81 ms a step
  // mean, 2 steps unsolved; 200 and 200 at 15, 60 ms, none unsolved.
  sweeps.max_iterations = std::max(
      1, std::min(options.iteration_limit(kDefaultSweeps), options.friction_contact.automatic.nsgs_sweeps) / 5);
  FrictionContactResiduals swept_criteria;
  Result swept = solve(factored, Method::Nsgs, sweeps, swept_criteria);
  if (swept.solved()) {
    swept.message = "packed-step chain: nsgs on the factors solved: " + swept.message;
    outcome.result = std::move(swept);
    outcome.criteria = swept_criteria;
    return outcome;
  }
  std::string story = "packed-step chain: nsgs on the factors " + to_string(swept.status) + " after " +
                      std::to_string(swept.iterations) + " sweeps (relative error " + number_text(swept.residual) + ")";
  // The convex law from the sweeps' point.
  SolveOptions convex_options = options;
  convex_options.initial_guess = swept.z;
  PackedOutcome convex = solve_convex(factored, convex_options);
  story += "; the convex law by the interior point: " + to_string(convex.result.status) + " (relative error " +
           number_text(convex.result.residual) + ", " + std::to_string(convex.result.iterations) + " steps)";
  // nsgs from the convex law's impulses.
  Result best = std::move(swept);
  FrictionContactResiduals best_criteria = swept_criteria;
  int iterations = best.iterations + convex.result.iterations;
  if (convex.result.z.allFinite()) {
    SolveOptions polish = sweeps;
    polish.initial_guess = convex.result.z;
    FrictionContactResiduals polished_criteria;
    Result polished = solve(factored, Method::Nsgs, polish, polished_criteria);
    iterations += polished.iterations;
    story += "; nsgs from its impulses: " + to_string(polished.status) + " after " +
             std::to_string(polished.iterations) + " sweeps (relative error " + number_text(polished.residual) + ")";
    if (polished.solved() || polished.residual < best.residual) {
      best = std::move(polished);
      best_criteria = polished_criteria;
    }
  }
  // Lemke on the exact Stewart–Trinkle LCP (in the plane Coulomb's law itself) where the step is
  // small enough for its path; from B = I (solve_friction_lemke takes no guess: a warm start's basis
  // is singular on redundant contacts, bench/README.md).
  const Eigen::Index lcp_size = 4 * factored.contacts();
  if (!best.solved() && factored.dimension == 2 && lcp_size <= kPackedLemkeMaxSize) {
    SolveOptions pivoting = options;
    pivoting.friction_contact.lemke.lcp_max_size = lcp_size;
    pivoting.max_iterations = std::max(
        kPackedLemkeMinPivots, static_cast<int>(kPackedLemkePivotsPerUnknown * static_cast<double>(lcp_size)));
    FrictionContactResiduals pivoted_criteria;
    Result pivoted = solve(factored.assembled(), Method::Lemke, pivoting, pivoted_criteria);
    iterations += pivoted.iterations;
    story += "; lemke on the Stewart-Trinkle LCP (" + std::to_string(lcp_size) + " unknowns): " +
             to_string(pivoted.status) + " after " + std::to_string(pivoted.iterations) + " pivots";
    if (pivoted.solved()) {
      best = std::move(pivoted);
      best_criteria = pivoted_criteria;
    }
  }
  best.iterations = iterations;
  if (best.solved()) {
    best.message = story;
    outcome.result = std::move(best);
    outcome.criteria = best_criteria;
    return outcome;
  }
  if (convex.result.solved()) {
    // Coulomb's law not met: the convex law's impulses, said so.
    outcome.fallback = "coulomb: " + to_string(best.status) + " at relative error " + number_text(best.residual) +
                       "; the convex law's impulses";
    convex.result.iterations = iterations;
    convex.result.message = story + "; the convex law's impulses are returned";
    outcome.result = std::move(convex.result);
    outcome.criteria = convex.criteria;
    outcome.law = FrictionLaw::Convex;
    return outcome;
  }
  best.message = story + "; the best Coulomb point is returned";
  outcome.result = std::move(best);
  outcome.criteria = best_criteria;
  return outcome;
}

}  // namespace perp::contact::detail
