#include "nsgs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>

#include "entry/stop.hpp"
#include "perp/core/error.hpp"

// nsgs on the factored form W = H M⁻¹ Hᵀ (nsgs.hpp: solve_nsgs_factored): sweeps on the velocities.

namespace perp::detail {

namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// The d×d blocks H_i M⁻¹ H_iᵀ of the contacts (row-major), `work` a zeroed scratch of dofs entries.
template <int D>
std::vector<double> factored_diagonal(const RowSparse& H, const Eigen::VectorXd& minv, Eigen::Index nc) {
  std::vector<double> blocks(static_cast<std::size_t>(nc * D * D), 0.0);
  Eigen::VectorXd work = Eigen::VectorXd::Zero(minv.size());
  const int* const outer = H.outerIndexPtr();
  const int* const inner = H.innerIndexPtr();
  const double* const values = H.valuePtr();
  for (Eigen::Index i = 0; i < nc; ++i) {
    for (int a = 0; a < D; ++a) {
      const Eigen::Index row_a = i * D + a;
      for (int p = outer[row_a]; p < outer[row_a + 1]; ++p) work[inner[p]] = values[p] * minv[inner[p]];
      for (int b = 0; b < D; ++b) {
        const Eigen::Index row_b = i * D + b;
        double s = 0;
        for (int p = outer[row_b]; p < outer[row_b + 1]; ++p) s += values[p] * work[inner[p]];
        blocks[static_cast<std::size_t>(i * D * D + a * D + b)] = s;
      }
      for (int p = outer[row_a]; p < outer[row_a + 1]; ++p) work[inner[p]] = 0;
    }
  }
  return blocks;
}

template <int D>
Result nsgs_factored(const RowSparse& H, const Eigen::VectorXd& minv, const FrictionContact& shell,
                     const SolveOptions& options, const Eigen::VectorXd& r0, FrictionContactResiduals& residuals) {
  const Eigen::Index nc = shell.contacts();
  const FrictionContactOptions& fc = options.friction_contact;
  Result result;
  result.method = Method::Nsgs;
  Eigen::VectorXd r = r0;
  Eigen::VectorXd v(minv.size());
  Eigen::VectorXd u(shell.size());
  // v = M⁻¹ Hᵀ r and u = H v + q from r itself, never from the velocities the sweeps accumulated;
  // the residuals as `friction_contact_residuals` forms them, with ‖q‖ (its scale's floor) taken once.
  const double q_norm = shell.q.blueNorm();
  const auto error_of = [&]() {
    v.noalias() = H.transpose() * r;
    v.array() *= minv.array();
    u = shell.q;
    u.noalias() += H * v;
    residuals = cone_residuals(D, shell.mu, r, u, FrictionLaw::Coulomb, q_norm);
    return residuals.relative_error;
  };
  const auto finish_with = [&](Status status, int sweeps, std::string message) {
    result.z = r;
    result.w = u;
    result.iterations = sweeps;
    result.status = status;
    result.message = std::move(message);
    return result;
  };
  double error = error_of();
  if (error <= options.tolerance) {
    return finish_with(Status::Solved, 0, "the start point solves (relative error " + number_text(error) + ", 0 sweeps)");
  }
  LocalProblems local(D, fc);
  local.prepare(factored_diagonal<D>(H, minv, nc), shell.mu);
  std::vector<Eigen::Index> order;
  if (fc.order == ContactOrder::Given) {
    order = fc.permutation;
  } else {
    order.resize(static_cast<std::size_t>(nc));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
  }
  // Seeded only for a random order (seeding the engine costs more than a sweep of a small problem).
  std::optional<std::mt19937_64> random;
  if (fc.order == ContactOrder::Random) random.emplace(fc.seed);
  const int* const outer = H.outerIndexPtr();
  const int* const inner = H.innerIndexPtr();
  const double* const values = H.valuePtr();
  const double omega = fc.relaxation;
  const int limit = options.iteration_limit(kDefaultSweeps);
  const int every = fc.error_every;
  Eigen::VectorXd last_finite = r;
  Eigen::Index failures = 0;
  for (int sweep = 1; sweep <= limit; ++sweep) {
    if (const std::optional<Status> stop = detail::stop_requested()) {
      error = error_of();
      if (!std::isfinite(error) || !r.allFinite()) {
        r = last_finite;
        error = error_of();
      }
      return finish_with(*stop, sweep - 1,
                         detail::stop_message(*stop, sweep - 1, "sweeps") + " at relative error " + number_text(error) +
                             " (on the factors of W)" + failures_note(failures));
    }
    if (random) std::shuffle(order.begin(), order.end(), *random);
    for (const Eigen::Index i : order) {
      double* const ri = r.data() + i * D;
      const double* const A = local.block(i);
      // b = q_i + H_i v − A_i r_i: the velocity of contact i without its own reaction.
      double b[D];
      for (int k = 0; k < D; ++k) {
        const Eigen::Index row = i * D + k;
        double s = shell.q[row];
        for (int p = outer[row]; p < outer[row + 1]; ++p) s += values[p] * v[inner[p]];
        for (int l = 0; l < D; ++l) s -= A[k * D + l] * ri[l];
        b[k] = s;
      }
      double x[D];
      for (int k = 0; k < D; ++k) x[k] = ri[k];
      const double mu = shell.mu[i];
      failures += local.solve<D>(i, mu, b, x) ? 0 : 1;
      if (omega != 1.0) {
        for (int k = 0; k < D; ++k) x[k] = omega * x[k] + (1 - omega) * ri[k];
        if (omega > 1.0) project_on_cone(x, D, mu, x);
      }
      // v += M⁻¹ H_iᵀ Δr_i.
      for (int k = 0; k < D; ++k) {
        const double delta = x[k] - ri[k];
        ri[k] = x[k];
        if (delta == 0) continue;
        const Eigen::Index row = i * D + k;
        for (int p = outer[row]; p < outer[row + 1]; ++p) v[inner[p]] += minv[inner[p]] * values[p] * delta;
      }
    }
    const bool power_of_two = (sweep & (sweep - 1)) == 0;
    if (!((sweep < every && power_of_two) || sweep % every == 0 || sweep == limit)) continue;
    error = error_of();
    if (!std::isfinite(error) || !r.allFinite()) {
      r = last_finite;
      error = error_of();
      return finish_with(Status::NumericalFailure, sweep,
                         "the iterates stopped being finite at sweep " + std::to_string(sweep) +
                             " (is W positive semidefinite?); returning the last finite iterate, relative error " +
                             number_text(error) + failures_note(failures));
    }
    if (options.record_history) result.history.push_back(error);
    if (error <= options.tolerance) {
      return finish_with(Status::Solved, sweep,
                         "relative error " + number_text(error) + " after " + std::to_string(sweep) +
                             " sweeps (on the factors of W)" + failures_note(failures));
    }
    last_finite = r;
  }
  return finish_with(Status::MaxIterations, limit,
                     "sweep limit " + std::to_string(limit) + " reached at relative error " + number_text(error) +
                         " (on the factors of W)" + failures_note(failures));
}

}  // namespace

Result solve_nsgs_factored(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H, const Eigen::VectorXd& inverse_mass,
                           const FrictionContact& shell, const SolveOptions& options, const Eigen::VectorXd& r0,
                           FrictionContactResiduals& residuals) {
  // The sweeps read H's compressed arrays (row k is outer[k] .. outer[k + 1]); an H left
  // uncompressed by insert() has free slots there, read as entries. A compressed copy is swept instead.
  if (!H.isCompressed()) {
    RowSparse compressed = H;
    compressed.makeCompressed();
    return solve_nsgs_factored(compressed, inverse_mass, shell, options, r0, residuals);
  }
  return shell.dimension == 2 ? nsgs_factored<2>(H, inverse_mass, shell, options, r0, residuals)
                              : nsgs_factored<3>(H, inverse_mass, shell, options, r0, residuals);
}

}  // namespace perp::detail
