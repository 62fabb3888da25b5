#include "nsgs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "entry/stop.hpp"
#include "perp/core/error.hpp"

namespace perp::detail {

ContactSweeper::ContactSweeper(const FrictionContact& problem, const FrictionContactOptions& options)
    : d_(problem.dimension),
      nc_(problem.contacts()),
      W_(problem.W),
      local_(problem.dimension, options),
      mu_(problem.mu),
      omega_(options.nsgs.relaxation),
      order_kind_(options.nsgs.order),
      random_(options.nsgs.seed) {
  if (d_ == 2) {
    split_blocks<2>();
  } else {
    split_blocks<3>();
  }
  if (order_kind_ == ContactOrder::Given) {
    order_ = options.nsgs.permutation;
  } else {
    order_.resize(static_cast<std::size_t>(nc_));
    std::iota(order_.begin(), order_.end(), Eigen::Index{0});
  }
  set_shift(0.0);
}

// In 3D the sweep reads W's off-diagonal part by 3×3 blocks (one contact index and three entries of r
// a block, nine products) where the blocks hold at least this share of nonzeros: the rows' entry by
// entry reading loads an index and an entry of r a product. Measured on Confeti-ex13 (107 contacts,
// full blocks): plain nsgs 0.78 → 0.68 ms (bench/README.md, "Stop 43").
constexpr double kDenseBlocks = 0.8;

template <int D>
void ContactSweeper::split_blocks() {
  const Eigen::Index n = W_.rows();
  constexpr auto dd = static_cast<std::size_t>(D * D);
  diagonal_.assign(static_cast<std::size_t>(nc_) * dd, 0.0);
  // W's entries outside the diagonal blocks, row by row (counted, then placed; a column-major W
  // read column by column leaves each row's columns in increasing order), and the blocks W_ii.
  // D is a constant so that the block of an index is no run-time division (it was most of a
  // warm-started step's solve).
  row_start_.assign(static_cast<std::size_t>(n + 1), 0);
  for (Eigen::Index col = 0; col < W_.outerSize(); ++col) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(W_, col); it; ++it) {
      if (it.row() / D != col / D) ++row_start_[static_cast<std::size_t>(it.row()) + 1];
    }
  }
  for (Eigen::Index row = 0; row < n; ++row) {
    row_start_[static_cast<std::size_t>(row + 1)] += row_start_[static_cast<std::size_t>(row)];
  }
  columns_.resize(static_cast<std::size_t>(row_start_.back()));
  values_.resize(static_cast<std::size_t>(row_start_.back()));
  std::vector<int> next(row_start_.begin(), row_start_.end() - 1);
  for (Eigen::Index col = 0; col < W_.outerSize(); ++col) {
    const Eigen::Index j = col / D;
    for (Eigen::SparseMatrix<double>::InnerIterator it(W_, col); it; ++it) {
      if (it.row() / D == j) {
        diagonal_[static_cast<std::size_t>(j) * dd + static_cast<std::size_t>((it.row() % D) * D + col % D)] +=
            it.value();
        continue;
      }
      const auto at = static_cast<std::size_t>(next[static_cast<std::size_t>(it.row())]++);
      columns_[at] = static_cast<int>(col);
      values_[at] = it.value();
    }
  }
  block_start_.clear();
  block_contact_.clear();
  block_values_.clear();
  if constexpr (D == 3) {
    // The blocks of each contact's three rows: a slot per contact j met, in the order met. The
    // blocks are counted first, and filled only where they are dense enough (no 9 values a block
    // allocated for a W whose blocks hold one entry each).
    std::vector<int> slot(static_cast<std::size_t>(nc_), -1);
    std::vector<int> touched;
    const auto for_each_entry = [&](Eigen::Index i, const auto& visit) {
      for (int k = 0; k < 3; ++k) {
        const auto row = static_cast<std::size_t>(3 * i + k);
        for (int p = row_start_[row]; p < row_start_[row + 1]; ++p) visit(k, static_cast<std::size_t>(p));
      }
    };
    std::size_t blocks = 0;
    for (Eigen::Index i = 0; i < nc_; ++i) {
      for_each_entry(i, [&](int, std::size_t p) {
        const int j = columns_[p] / 3;
        if (slot[static_cast<std::size_t>(j)] < 0) {
          slot[static_cast<std::size_t>(j)] = 0;
          touched.push_back(j);
          ++blocks;
        }
      });
      for (const int j : touched) slot[static_cast<std::size_t>(j)] = -1;
      touched.clear();
    }
    if (blocks == 0 || !(static_cast<double>(values_.size()) >= kDenseBlocks * 9.0 * static_cast<double>(blocks))) return;
    block_start_.assign(static_cast<std::size_t>(nc_ + 1), 0);
    block_contact_.reserve(blocks);
    block_values_.assign(9 * blocks, 0.0);
    for (Eigen::Index i = 0; i < nc_; ++i) {
      for_each_entry(i, [&](int k, std::size_t p) {
        const int j = columns_[p] / 3;
        int& at = slot[static_cast<std::size_t>(j)];
        if (at < 0) {
          at = static_cast<int>(block_contact_.size());
          block_contact_.push_back(j);
          touched.push_back(j);
        }
        block_values_[static_cast<std::size_t>(at) * 9 + static_cast<std::size_t>(k * 3 + columns_[p] % 3)] = values_[p];
      });
      for (const int j : touched) slot[static_cast<std::size_t>(j)] = -1;
      touched.clear();
      block_start_[static_cast<std::size_t>(i + 1)] = static_cast<int>(block_contact_.size());
    }
    // The sweeps read the blocks alone from here: the rows' copy is released.
    std::vector<int>().swap(row_start_);
    std::vector<int>().swap(columns_);
    std::vector<double>().swap(values_);
  }
}

void ContactSweeper::set_shift(double rho) {
  shift_ = rho;
  std::vector<double> shifted = diagonal_;
  const auto dd = static_cast<std::size_t>(d_ * d_);
  for (Eigen::Index i = 0; i < nc_; ++i) {
    for (int k = 0; k < d_; ++k) shifted[static_cast<std::size_t>(i) * dd + static_cast<std::size_t>(k * d_ + k)] += rho;
  }
  local_.prepare(std::move(shifted), mu_);
}

double ContactSweeper::mean_diagonal() const {
  if (nc_ == 0) return 0;
  double s = 0;
  const auto dd = static_cast<std::size_t>(d_ * d_);
  for (Eigen::Index i = 0; i < nc_; ++i) {
    for (int k = 0; k < d_; ++k)
      s += diagonal_[static_cast<std::size_t>(i) * dd + static_cast<std::size_t>(k * d_ + k)];
  }
  return s / static_cast<double>(nc_ * d_);
}

void ContactSweeper::product(const Eigen::VectorXd& r, Eigen::VectorXd& out) const { out.noalias() = W_ * r; }

void ContactSweeper::add_product(const Eigen::VectorXd& r, Eigen::VectorXd& out) const { out.noalias() += W_ * r; }

Eigen::Index ContactSweeper::sweep(const Eigen::VectorXd& q, Eigen::VectorXd& r) {
  if (order_kind_ == ContactOrder::Random) std::shuffle(order_.begin(), order_.end(), random_);
  return d_ == 2 ? sweep_fixed<2>(q, r) : sweep_fixed<3>(q, r);
}

template <int D>
Eigen::Index ContactSweeper::sweep_fixed(const Eigen::VectorXd& q, Eigen::VectorXd& r) {
  const int* const outer = row_start_.data();
  const int* const inner = columns_.data();
  const double* const values = values_.data();
  double* const rd = r.data();
  const double* const qd = q.data();
  Eigen::Index failures = 0;
  for (const Eigen::Index i : order_) {
    const Eigen::Index base = i * D;
    double* const ri = rd + base;
    double b[D];
    // b = q_i + Σ_{j≠i} W_ij r_j: the velocity the other contacts give contact i.
    if constexpr (D == 3) {
      if (!block_start_.empty()) {
        double b0 = qd[base], b1 = qd[base + 1], b2 = qd[base + 2];
        const auto first = static_cast<std::size_t>(block_start_[static_cast<std::size_t>(i)]);
        const auto last = static_cast<std::size_t>(block_start_[static_cast<std::size_t>(i) + 1]);
        for (std::size_t p = first; p < last; ++p) {
          const double* const B = block_values_.data() + 9 * p;
          const double* const rj = rd + 3 * static_cast<std::ptrdiff_t>(block_contact_[p]);
          b0 += B[0] * rj[0] + B[1] * rj[1] + B[2] * rj[2];
          b1 += B[3] * rj[0] + B[4] * rj[1] + B[5] * rj[2];
          b2 += B[6] * rj[0] + B[7] * rj[1] + B[8] * rj[2];
        }
        b[0] = b0;
        b[1] = b1;
        b[2] = b2;
      }
    }
    if (D != 3 || block_start_.empty()) {
      for (int k = 0; k < D; ++k) {
        const Eigen::Index row = base + k;
        double s = qd[row];
        for (int p = outer[row]; p < outer[row + 1]; ++p) s += values[p] * rd[inner[p]];
        b[k] = s;
      }
    }
    double x[D];
    for (int k = 0; k < D; ++k) x[k] = ri[k];
    const double mu = mu_[i];
    failures += local_.solve<D>(i, mu, b, x) ? 0 : 1;
    if (omega_ != 1.0) {
      for (int k = 0; k < D; ++k) x[k] = omega_ * x[k] + (1 - omega_) * ri[k];
      if (omega_ > 1.0) project_on_cone(x, D, mu, x);
    }
    for (int k = 0; k < D; ++k) ri[k] = x[k];
  }
  return failures;
}

SweepOutcome run_sweeps(ContactSweeper& sweeper, const FrictionContact& shifted, Eigen::VectorXd& r, double tolerance,
                        int limit, int error_every, std::vector<double>* history, bool stall_stop, bool handoff) {
  const Eigen::Index n = shifted.size();
  SweepOutcome out;
  Eigen::VectorXd& u = out.u;
  u.resize(n);
  Eigen::VectorXd last_finite = r;
  const double rho = sweeper.shift();
  const auto error_of = [&]() {
    // As FrictionContact::velocity forms it (q, then += W r), so that the figure is the same.
    u = shifted.q;
    sweeper.add_product(r, u);
    if (rho != 0) u += rho * r;
    out.residuals = friction_contact_residuals(shifted, r, u);
    return out.residuals.relative_error;
  };
  out.error = error_of();
  if (out.error <= tolerance) {
    out.status = Status::Solved;
    out.message = "the start point solves (relative error " + number_text(out.error) + ", 0 sweeps)";
    return out;
  }
  // kNsgsStall (nsgs.hpp) over the whole budget: a run cut into parts is judged on all of it;
  // kNsgsHandoff over the run's own limit.
  const int horizon = handoff ? limit : std::max(limit, kDefaultSweeps);
  StallWatch watch(handoff ? kNsgsHandoff : kNsgsStall, out.error);
  int sweep = 1;
  for (; sweep <= limit; ++sweep) {
    if (const std::optional<Status> stop = detail::stop_requested()) {
      out.error = error_of();
      if (!std::isfinite(out.error) || !r.allFinite()) {
        r = last_finite;
        out.error = error_of();
      }
      out.sweeps = sweep - 1;
      out.status = *stop;
      out.message = detail::stop_message(*stop, sweep - 1, "sweeps") + " at relative error " + number_text(out.error);
      return out;
    }
    out.local_failures += sweeper.sweep(shifted.q, r);
    // The error (one product and a pass over the contacts, about 2-4 sweeps' time) after sweeps
    // 1, 2, 4, 8, ... below error_every, then every error_every sweeps, and at the last.
    const bool power_of_two = (sweep & (sweep - 1)) == 0;
    if (!((sweep < error_every && power_of_two) || sweep % error_every == 0 || sweep == limit)) continue;
    const double error = error_of();
    if (!std::isfinite(error) || !r.allFinite()) {
      r = last_finite;
      out.sweeps = sweep;
      out.error = error_of();
      out.status = Status::NumericalFailure;
      out.message = "the iterates stopped being finite at sweep " + std::to_string(sweep) +
                    " (is W positive semidefinite?); returning the last finite iterate, relative error " +
                    number_text(out.error);
      return out;
    }
    out.error = error;
    if (history) history->push_back(error);
    if (error <= tolerance) {
      out.status = Status::Solved;
      out.sweeps = sweep;
      out.message = "relative error " + number_text(error) + " after " + std::to_string(sweep) + " sweeps";
      return out;
    }
    last_finite = r;
    if (sweep == 1) watch.restart(error);  // progress counts from the first sweep's error (kNsgsStall)
    if (!stall_stop || !watch.stalled(sweep, error, horizon, tolerance)) continue;
    out.sweeps = sweep;
    out.status = Status::NoSolutionFound;
    out.message = std::string(handoff ? "handed over" : "stalled") + " at relative error " + number_text(error) +
                  " after " + std::to_string(sweep) +
                  " sweeps (the best " + number_text(watch.best()) + "): " +
                  watch.describe("sweep", "sweeps", tolerance);
    return out;
  }
  out.sweeps = limit;
  out.status = Status::MaxIterations;
  out.message = "sweep limit " + std::to_string(limit) + " reached at relative error " + number_text(out.error);
  return out;
}

std::string failures_note(Eigen::Index failures) {
  if (failures == 0) return "";
  return "; " + std::to_string(failures) +
         " local solves were not exact (a degenerate or indefinite diagonal block, or the 3D Newton and its "
         "projection fallback missed the local tolerance)";
}

Result solve_nsgs(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0,
                  FrictionContactResiduals& residuals, bool handoff) {
  Result result;
  result.method = Method::Nsgs;
  // The start point first: a warm start that solves needs no sweeper.
  result.w = problem.velocity(r0);
  residuals = friction_contact_residuals(problem, r0, result.w);
  if (residuals.relative_error <= options.tolerance) {
    result.z = r0;
    result.status = Status::Solved;
    result.message = "the start point solves (relative error " + number_text(residuals.relative_error) + ", 0 sweeps)";
    return result;
  }
  ContactSweeper sweeper(problem, options.friction_contact);
  Eigen::VectorXd r = r0;
  const int limit = options.iteration_limit(kDefaultSweeps);
  SweepOutcome out =
      run_sweeps(sweeper, problem, r, options.tolerance, limit, options.friction_contact.nsgs.error_every,
                 options.record_history ? &result.history : nullptr, problem.dimension == 3, handoff);
  result.z = std::move(r);
  result.w = std::move(out.u);
  residuals = out.residuals;
  result.iterations = out.sweeps;
  result.status = out.status;
  result.message = out.message + failures_note(out.local_failures);
  return result;
}

}  // namespace perp::detail
