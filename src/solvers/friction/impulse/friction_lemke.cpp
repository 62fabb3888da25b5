#include "friction_lemke.hpp"

#include <cmath>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "pivoting/lemke_sparse.hpp"
#include "perp/core/lcp.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::detail {

Result solve_friction_lemke(const FrictionContact& problem, const SolveOptions& options) {
  const int d = problem.dimension;
  const Eigen::Index nc = problem.contacts();
  const int k = d == 2 ? 2 : options.friction_contact.lemke.facets;
  const Eigen::Index per = k + 2;
  const Eigen::Index size = nc * per;
  Result result;
  result.method = Method::Lemke;
  const std::string what = d == 2 ? "the Stewart-Trinkle LCP (exact in 2D)"
                                  : "the LCP of a polyhedral cone with " + std::to_string(k) +
                                        " facets (an inner approximation of the Coulomb cone, so the "
                                        "frictional problem is solved only if its own error meets the tolerance)";
  if (size > options.friction_contact.lemke.lcp_max_size) {
    result.status = Status::NotApplicable;
    result.message = what + " would have " + std::to_string(size) + " unknowns (" + std::to_string(nc) +
                     " contacts), more than friction_contact.lemke.lcp_max_size = " +
                     std::to_string(options.friction_contact.lemke.lcp_max_size);
    result.z = Eigen::VectorXd::Zero(problem.size());
    return result;
  }
  // D: the (d − 1)×k tangential directions t_l as columns.
  Eigen::MatrixXd D(d - 1, k);
  if (d == 2) {
    D << 1.0, -1.0;
  } else {
    for (int l = 0; l < k; ++l) {
      const double angle = 2 * std::numbers::pi * l / k;
      D(0, l) = std::cos(angle);
      D(1, l) = std::sin(angle);
    }
  }
  // The LCP's entries as triplets (summed where they repeat): W's blocks through D, and the rows of λ.
  std::vector<Eigen::Triplet<double>> entries;
  Eigen::VectorXd q = Eigen::VectorXd::Zero(size);
  for (Eigen::Index col = 0; col < problem.W.outerSize(); ++col) {
    const Eigen::Index j = col / d;
    const int b = static_cast<int>(col % d);
    for (Eigen::SparseMatrix<double>::InnerIterator it(problem.W, col); it; ++it) {
      const Eigen::Index i = it.row() / d;
      const int a = static_cast<int>(it.row() % d);
      const double w = it.value();
      for (int l = -1; l < k; ++l) {  // row: −1 the normal, l the direction t_l
        const double row_factor = l < 0 ? (a == 0 ? 1.0 : 0.0) : (a == 0 ? 0.0 : D(a - 1, l));
        if (row_factor == 0.0) continue;
        const Eigen::Index row = i * per + 1 + l;
        if (b == 0) {
          entries.emplace_back(row, j * per, row_factor * w);
        } else {
          for (int m = 0; m < k; ++m) entries.emplace_back(row, j * per + 1 + m, row_factor * w * D(b - 1, m));
        }
      }
    }
  }
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Eigen::Index base = i * per;
    q[base] = problem.q[i * d];
    for (int l = 0; l < k; ++l) {
      double s = 0;
      for (int a = 1; a < d; ++a) s += D(a - 1, l) * problem.q[i * d + a];
      q[base + 1 + l] = s;
      entries.emplace_back(base + 1 + l, base + 1 + k, 1.0);
      entries.emplace_back(base + 1 + k, base + 1 + l, -1.0);
    }
    entries.emplace_back(base + 1 + k, base, problem.mu[i]);
  }
  Eigen::SparseMatrix<double> M(size, size);
  M.setFromTriplets(entries.begin(), entries.end());
  SolveOptions lcp_options = options;
  lcp_options.initial_guess.reset();
  const bool sparse = d == 2 && size > kDenseLemkeMaxSize;
  std::optional<Lcp> dense;
  if (!sparse) dense = Lcp{Eigen::MatrixXd(M), q};
  const auto run = [&] {
    return sparse ? solve_lemke_sparse(M, q, lcp_options) : solve(*dense, Method::Lemke, lcp_options);
  };
  Result inner = run();
  // The LCP has a solution (Stewart–Trinkle), but its M is copositive, not copositive-plus, and on
  // redundant contacts the path runs through degenerate vertices: it may end on a secondary ray
  // that proves nothing, and whether it does near the end (z0 ≈ 0) depends on round-off there
  // (bench/HISTORY.md, "Lemke again with another covering vector"). Such an ending, its point
  // within kCoveringRetryReach of a solution, is tried again with the covering vector e + δ,
  // δ_i ∈ [0, kCoveringSpread) from a fixed seed (any positive vector keeps Lemke's start and
  // guarantees); a path that stopped midway (z0 of the order of q) is not, as measured it stops
  // again.
  std::string story =
      std::string(sparse ? "lemke on its sparse M " : "lemke ") + to_string(inner.status) + " (" + inner.message + ")";
  int pivots = inner.iterations;
  std::mt19937_64 engine(kCoveringSeed);
  std::uniform_real_distribution<double> spread(0.0, kCoveringSpread);
  for (int attempt = 0; attempt < kCoveringRetries && !inner.solved() &&
                        (inner.status == Status::RayTermination || inner.status == Status::NumericalFailure) &&
                        inner.relative_residual <= kCoveringRetryReach;
       ++attempt) {
    Eigen::VectorXd cover(size);
    for (double& entry : cover) entry = 1.0 + spread(engine);
    lcp_options.lemke.covering_vector = std::move(cover);
    Result again = run();
    pivots += again.iterations;
    story += "; again with a perturbed covering vector: " + to_string(again.status) +
             (again.solved() ? " (" + again.message + ")" : "");
    if (again.solved() || again.residual < inner.residual) inner = std::move(again);
  }
  const auto to_reaction = [&](const Eigen::VectorXd& z) {
    Eigen::VectorXd r = Eigen::VectorXd::Zero(problem.size());
    for (Eigen::Index i = 0; i < nc; ++i) {
      r[i * d] = z[i * per];
      for (int a = 1; a < d; ++a) {
        for (int l = 0; l < k; ++l) r[i * d + a] += D(a - 1, l) * z[i * per + 1 + l];
      }
    }
    return r;
  };
  result.z = to_reaction(inner.z);
  result.iterations = pivots;
  if (inner.ray) result.ray = to_reaction(*inner.ray);
  const double error = friction_contact_residuals(problem, result.z).relative_error;
  if (options.record_history) result.history.push_back(error);
  const std::string lcp_text =
      what + ", " + std::to_string(size) + " unknowns: " + story + "; frictional relative error " + number_text(error);
  if (error <= options.tolerance) {
    result.status = Status::Solved;
  } else if (inner.solved()) {
    // The LCP is solved but the frictional error misses: in 3D the polyhedral approximation, in 2D round-off.
    result.status = d == 2 ? Status::NumericalFailure : Status::NoSolutionFound;
  } else {
    result.status = inner.status == Status::Infeasible && d == 3 ? Status::NoSolutionFound : inner.status;
  }
  result.message = lcp_text;
  return result;
}

}  // namespace perp::detail
