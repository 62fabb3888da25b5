#include "lemke_sparse.hpp"

#include <Eigen/OrderingMethods>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp::detail {
namespace {

using ColumnMatrix = Eigen::SparseMatrix<double>;  // not `SparseMatrix`: sparse_linear.hpp has that name, in a unity build
using Eigen::Index;

/// Pivots between two factorizations of the core. Each eta adds O(nnz of its column) to every later
/// solve, a factorization costs a few solves' worth; measured on the packed heaps' Stewart–Trinkle
/// LCPs (bench/HISTORY.md, "Sparse Lemke on the packed heaps").
constexpr int kRefactorEvery = 64;
/// A pivot below this fraction of its column's largest entry refactorizes at once, so that no
/// later solve runs through the large multipliers of its eta.
constexpr double kSmallPivot = 1e-6;
/// Relative slack of the ratio test's ties, as the dense kernel's.
constexpr double kTieSlack = 1e-12;

std::size_t at(Index i) { return static_cast<std::size_t>(i); }

// Lemke's path on w = M z + q + d z0, with (M, q) scaled by s = 2^e (as the dense kernel: the pivot
// and tie tolerances then mean the same at any unit). Variables: v < n is w_v, n <= v < 2n is
// z_{v−n}, 2n is z0; the column of v in B is a_v, the column of [I, −M, −d]. B is held as B₀ (the
// basis of the last factorization) and the etas E₁ … E_k of the pivots since: B = B₀ E₁ ⋯ E_k.
// B₀ x = a reduces to its core: with R the rows whose w is nonbasic and Z the basic z's (|R| = |Z|),
// A_RZ x_Z = a_R, and x_w = a_i − A_iZ x_Z for the basic w_i.
class SparseLemke {
 public:
  SparseLemke(const ColumnMatrix& M, const Eigen::VectorXd& q, const Eigen::VectorXd& d, int exponent)
      : n_(M.rows()), z0_(2 * n_), M_(M), d_(d), exponent_(exponent), unscale_(std::ldexp(1.0, -exponent)) {
    for (Index k = 0; k < M_.outerSize(); ++k) {
      for (ColumnMatrix::InnerIterator it(M_, k); it; ++it) it.valueRef() = std::ldexp(it.value(), exponent_);
    }
    q_ = q;
    for (Index i = 0; i < n_; ++i) q_[i] = std::ldexp(q[i], exponent_);
    basis_.resize(at(n_));
    position_.assign(at(z0_ + 1), -1);
    for (Index i = 0; i < n_; ++i) {
      basis_[at(i)] = i;
      position_[at(i)] = i;
    }
    row_slot_.assign(at(n_), -1);
    b_ = q_;
    work_.resize(n_);
  }

  [[nodiscard]] Index n() const { return n_; }
  [[nodiscard]] Index z0() const { return z0_; }
  [[nodiscard]] Index basic(Index p) const { return basis_[at(p)]; }
  [[nodiscard]] Index complement(Index v) const { return v < n_ ? v + n_ : v - n_; }
  [[nodiscard]] int factorizations() const { return factorizations_; }
  [[nodiscard]] long ties() const { return ties_; }
  [[nodiscard]] const Eigen::VectorXd& values() const { return b_; }

  // Factorizes the core of the current basis and recomputes the basic values from B b = q (the
  // etas' round-off does not accumulate past a factorization). False when the core is singular.
  bool refactor() {
    if (!factorize()) return false;
    b_ = q_;
    solve_basis(b_);
    for (Index p = 0; p < n_; ++p) b_[p] = std::max(b_[p], 0.0);
    return b_.allFinite();
  }

  // B₀ = B: the core of the current basis factorized, the etas dropped. False when it is singular.
  bool factorize() {
    basis0_ = basis_;
    core_rows_.clear();
    core_positions_.clear();
    std::fill(row_slot_.begin(), row_slot_.end(), -1);
    for (Index i = 0; i < n_; ++i) {
      if (position_[at(i)] < 0) {
        row_slot_[at(i)] = static_cast<Index>(core_rows_.size());
        core_rows_.push_back(i);
      }
    }
    for (Index p = 0; p < n_; ++p) {
      if (basis0_[at(p)] >= n_) core_positions_.push_back(p);
    }
    eta_row_.clear();
    eta_pivot_.clear();
    eta_start_.assign(1, 0);
    eta_index_.clear();
    eta_value_.clear();
    ++factorizations_;
    const auto k = static_cast<Index>(core_rows_.size());
    if (k > 0) {
      std::vector<Eigen::Triplet<double>> entries;
      for (Index c = 0; c < k; ++c) {
        for_each_entry(basis0_[at(core_positions_[at(c)])], [&](Index i, double value) {
          if (row_slot_[at(i)] >= 0) entries.emplace_back(row_slot_[at(i)], c, value);
        });
      }
      ColumnMatrix core(k, k);
      core.setFromTriplets(entries.begin(), entries.end());
      core.makeCompressed();
      lu_.compute(core);
      if (lu_.info() != Eigen::Success) return false;
      rhs_.resize(k);
    }
    return true;
  }

  // col = B⁻¹ a_v.
  void compute_column(Index v, Eigen::VectorXd& col) {
    col.setZero(n_);
    for_each_entry(v, [&](Index i, double value) { col[i] = value; });
    solve_basis(col);
  }

  // Row p of B⁻¹ (yᵀ with yᵀ B = e_pᵀ): the etas backwards, then B₀ᵀ through the core's transpose.
  void basis_row(Index row, Eigen::VectorXd& y) {
    Eigen::VectorXd& c = work_;
    c.setZero();
    c[row] = 1.0;
    for (auto e = static_cast<Index>(eta_row_.size()) - 1; e >= 0; --e) {
      double sum = 0.0;
      for (std::size_t t = eta_start_[at(e)]; t < eta_start_[at(e + 1)]; ++t) sum += c[eta_index_[t]] * eta_value_[t];
      const Index r = eta_row_[at(e)];
      c[r] = (c[r] - sum) / eta_pivot_[at(e)];
    }
    y.setZero(n_);
    for (Index p = 0; p < n_; ++p) {
      if (basis0_[at(p)] < n_) y[basis0_[at(p)]] = c[p];
    }
    const auto k = static_cast<Index>(core_rows_.size());
    if (k == 0) return;
    for (Index s = 0; s < k; ++s) {
      const Index p = core_positions_[at(s)];
      double value = c[p];
      for_each_entry(basis0_[at(p)], [&](Index i, double a) {
        if (row_slot_[at(i)] < 0) value -= a * y[i];
      });
      rhs_[s] = value;
    }
    const Eigen::VectorXd solution = lu_.transpose().solve(rhs_);
    for (Index s = 0; s < k; ++s) y[core_rows_[at(s)]] = solution[s];
  }

  // Variable `entering` replaces basis_[r]; col = B⁻¹ a_entering. Returns false when the
  // refactorization this pivot calls for fails.
  bool pivot(Index r, Index entering, const Eigen::VectorXd& col) {
    const Index leaving = basis_[at(r)];
    const double pivot_value = col[r];
    const double theta = b_[r] / pivot_value;
    double largest = 0.0;
    for (Index p = 0; p < n_; ++p) {
      const double x = col[p];
      if (x == 0.0) continue;
      largest = std::max(largest, std::abs(x));
      b_[p] = std::max(b_[p] - theta * x, 0.0);  // round-off below zero clipped, as the dense kernel
      if (p != r) {
        eta_index_.push_back(p);
        eta_value_.push_back(x);
      }
    }
    b_[r] = std::max(theta, 0.0);
    eta_row_.push_back(r);
    eta_pivot_.push_back(pivot_value);
    eta_start_.push_back(eta_index_.size());
    basis_[at(r)] = entering;
    position_[at(entering)] = r;
    position_[at(leaving)] = -1;
    if (static_cast<int>(eta_row_.size()) >= kRefactorEvery || std::abs(pivot_value) < kSmallPivot * largest) {
      return refactor();
    }
    return true;
  }

  // Lexicographic minimum ratio among `candidates` (positions with col_p > 0, never empty): the
  // rows (b_p, B⁻¹_p·) / col_p compared entry by entry (Cottle–Pang–Stone §4.4), as the dense
  // kernel does. The ratio first; the rows of B⁻¹ only for the tied positions, one solve each.
  Index lexicographic_minimum(const std::vector<Index>& candidates, const Eigen::VectorXd& col) {
    double best = std::numeric_limits<double>::infinity();
    for (const Index p : candidates) best = std::min(best, b_[p] / col[p]);
    const double slack = kTieSlack * std::max(1.0, std::abs(best));
    tied_.clear();
    for (const Index p : candidates) {
      if (b_[p] / col[p] <= best + slack) tied_.push_back(p);
    }
    if (tied_.empty()) return candidates.front();  // a NaN ratio: the caller's finite() check failed
    if (tied_.size() == 1) return tied_.front();
    ties_ += static_cast<long>(tied_.size());
    Index winner = tied_.front();
    basis_row(winner, winner_row_);
    for (std::size_t t = 1; t < tied_.size(); ++t) {
      const Index p = tied_[t];
      basis_row(p, row_);
      for (Index k = 0; k < n_; ++k) {
        const double a = winner_row_[k] / col[winner];
        const double c = row_[k] / col[p];
        const double tie = kTieSlack * std::max(1.0, std::min(std::abs(a), std::abs(c)));
        if (c < a - tie) {
          winner = p;
          winner_row_.swap(row_);
          break;
        }
        if (a < c - tie) break;
      }
    }
    return winner;
  }

  // z (without z0) of the current basis; `values` are basic values (b_ or a refreshed copy).
  void current_z(const Eigen::VectorXd& values, Eigen::VectorXd& z) const {
    z.setZero(n_);
    for (Index p = 0; p < n_; ++p) {
      const Index v = basis_[at(p)];
      if (v >= n_ && v < z0_) z[v - n_] = values[p];
    }
  }

  [[nodiscard]] double z0_value() const {
    const Index p = position_[at(z0_)];
    return p >= 0 ? unscaled(b_[p]) : 0.0;
  }

  // Natural residual of the current z in O(n), w = (w_basic − d z0) / s (for the history).
  [[nodiscard]] double residual() const {
    const Index p0 = position_[at(z0_)];
    const double t = p0 >= 0 ? b_[p0] : 0.0;
    double worst = 0.0;
    for (Index i = 0; i < n_; ++i) {
      const Index pz = position_[at(i + n_)];
      const Index pw = position_[at(i)];
      const double zi = pz >= 0 ? b_[pz] : 0.0;
      const double wi = unscaled((pw >= 0 ? b_[pw] : 0.0) - d_[i] * t);
      worst = std::max(worst, std::abs(std::min(zi, wi)));
    }
    return worst;
  }

  // The z-part of the ray along which `entering` grows by 1 and the basic variables by −col.
  Eigen::VectorXd ray(Index entering, const Eigen::VectorXd& col, double& z0_rate) const {
    Eigen::VectorXd direction = Eigen::VectorXd::Zero(n_);
    z0_rate = entering == z0_ ? 1.0 : 0.0;
    if (entering >= n_ && entering < z0_) direction[entering - n_] = 1.0;
    for (Index p = 0; p < n_; ++p) {
      const Index v = basis_[at(p)];
      if (v >= n_ && v < z0_) direction[v - n_] = -col[p];
      if (v == z0_) z0_rate = -col[p];
    }
    return direction;
  }

 private:
  // v / s: a product with 2^−e where that is a normal double (exact), else ldexp.
  [[nodiscard]] double unscaled(double v) const {
    return std::isnormal(unscale_) ? v * unscale_ : std::ldexp(v, -exponent_);
  }

  // The entries (row, value) of a_v, the column of v in [I, −s M, −d].
  template <class F>
  void for_each_entry(Index v, F&& f) const {
    if (v < n_) {
      f(v, 1.0);
    } else if (v < z0_) {
      for (ColumnMatrix::InnerIterator it(M_, v - n_); it; ++it) f(it.row(), -it.value());
    } else {
      for (Index i = 0; i < n_; ++i) f(i, -d_[i]);
    }
  }

  // x ← B⁻¹ x in place: B₀ through its core, then the etas in order.
  void solve_basis(Eigen::VectorXd& x) {
    Eigen::VectorXd& a = work_;
    a = x;
    const auto k = static_cast<Index>(core_rows_.size());
    Eigen::VectorXd core_solution;
    if (k > 0) {
      for (Index s = 0; s < k; ++s) rhs_[s] = a[core_rows_[at(s)]];
      core_solution = lu_.solve(rhs_);
      for (Index s = 0; s < k; ++s) {
        const double value = core_solution[s];
        if (value == 0.0) continue;
        for_each_entry(basis0_[at(core_positions_[at(s)])], [&](Index i, double entry) { a[i] -= entry * value; });
      }
      for (Index s = 0; s < k; ++s) x[core_positions_[at(s)]] = core_solution[s];
    }
    for (Index p = 0; p < n_; ++p) {
      if (basis0_[at(p)] < n_) x[p] = a[basis0_[at(p)]];
    }
    for (std::size_t e = 0; e < eta_row_.size(); ++e) {
      const Index r = eta_row_[e];
      const double xr = x[r] / eta_pivot_[e];
      x[r] = xr;
      if (xr == 0.0) continue;
      for (std::size_t t = eta_start_[e]; t < eta_start_[e + 1]; ++t) x[eta_index_[t]] -= eta_value_[t] * xr;
    }
  }

  Index n_;
  Index z0_;
  ColumnMatrix M_;        // s M
  Eigen::VectorXd q_;     // s q
  Eigen::VectorXd d_;     // the covering vector
  int exponent_;          // s = 2^exponent_
  double unscale_;        // 2^−exponent_ (0 or inf where that is not a normal double)
  std::vector<Index> basis_;     // variable at each position
  std::vector<Index> position_;  // position of each variable, −1 when nonbasic
  Eigen::VectorXd b_;            // basic values, B b = s q
  // The factorization: B₀'s basis, its core's rows (w nonbasic) and the positions of its basic z's.
  std::vector<Index> basis0_;
  std::vector<Index> core_rows_;
  std::vector<Index> core_positions_;
  std::vector<Index> row_slot_;  // core row of each row, −1 where w was basic
  Eigen::SparseLU<ColumnMatrix, Eigen::COLAMDOrdering<int>> lu_;
  // The etas: pivot row, pivot value and the other nonzeros of the column B⁻¹ a_entering.
  std::vector<Index> eta_row_;
  std::vector<double> eta_pivot_;
  std::vector<std::size_t> eta_start_{0};
  std::vector<Index> eta_index_;
  std::vector<double> eta_value_;
  Eigen::VectorXd rhs_, work_, row_, winner_row_;
  std::vector<Index> tied_;
  int factorizations_ = 0;
  long ties_ = 0;
};

std::string variable_name(Index v, Index n) {
  if (v == 2 * n) return "z0";
  return (v < n ? "w" : "z") + std::to_string(v < n ? v : v - n);
}

// The dense kernel's certificate test (lemke.cpp, verify_infeasibility_ray) on a sparse M: v >= 0,
// Mᵀv <= 0 and qᵀv < 0 up to ε = 1e-10 of the terms' sizes. Returns qᵀv when it verifies.
std::optional<double> verify_infeasibility_ray(const ColumnMatrix& M, const Eigen::VectorXd& q,
                                               const Eigen::VectorXd& ray) {
  constexpr double kCertificate = 1e-10;
  if (!ray.allFinite()) return std::nullopt;
  const double size = ray.cwiseAbs().maxCoeff();
  if (!(size > 0.0) || ray.minCoeff() < -kCertificate * size) return std::nullopt;
  const Eigen::VectorXd v = (ray / size).cwiseMax(0.0);
  for (Index i = 0; i < M.outerSize(); ++i) {  // (Mᵀv)_i: column i of M
    long double sum = 0.0L, magnitude = 0.0L;
    for (ColumnMatrix::InnerIterator it(M, i); it; ++it) {
      const long double term = static_cast<long double>(it.value()) * v[it.row()];
      sum += term;
      magnitude += std::fabs(term);
    }
    if (sum > kCertificate * magnitude) return std::nullopt;
  }
  long double qv = 0.0L, magnitude = 0.0L;
  for (Index j = 0; j < q.size(); ++j) {
    const long double term = static_cast<long double>(q[j]) * v[j];
    qv += term;
    magnitude += std::fabs(term);
  }
  if (!(qv < -kCertificate * magnitude)) return std::nullopt;
  return static_cast<double>(qv);
}

void check_input(const ColumnMatrix& M, const Eigen::VectorXd& q, const SolveOptions& options) {
  const Index n = q.size();
  if (M.rows() != n || M.cols() != n) {
    throw InvalidProblem("sparse lemke: M must be " + std::to_string(n) + "x" + std::to_string(n) +
                         " (q's size), got " + std::to_string(M.rows()) + "x" + std::to_string(M.cols()));
  }
  if (!q.allFinite()) throw InvalidProblem("sparse lemke: q has a non-finite entry");
  for (Index k = 0; k < M.outerSize(); ++k) {
    for (ColumnMatrix::InnerIterator it(M, k); it; ++it) {
      if (!std::isfinite(it.value())) {
        throw InvalidProblem("sparse lemke: M(" + std::to_string(it.row()) + ", " + std::to_string(it.col()) +
                             ") is " + number_text(it.value()));
      }
    }
  }
  if (const auto& d = options.lemke.covering_vector) {
    if (d->size() != n) {
      throw InvalidProblem("lemke.covering_vector: expected size " + std::to_string(n) + ", got " +
                           std::to_string(d->size()));
    }
    if (!d->allFinite() || !(d->minCoeff() > 0.0)) {
      throw InvalidProblem("lemke.covering_vector must be finite and > 0");
    }
  }
}

}  // namespace

Result solve_lemke_sparse(const ColumnMatrix& M, const Eigen::VectorXd& q, const SolveOptions& options) {
  check_input(M, q, options);
  const Index n = q.size();
  Result result;
  result.method = Method::Lemke;
  const Eigen::VectorXd lower = Eigen::VectorXd::Zero(n);
  const Eigen::VectorXd upper = Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity());
  // z given: w, both residuals; status and message are the caller's.
  const auto measure = [&](Result& r) {
    r.w = M * r.z + q;
    r.residual = natural_residual(r.z, r.w);
    r.relative_residual = relative_residual(r.z, r.w, M, lower, upper);
  };
  if (n == 0 || q.minCoeff() >= 0.0) {
    result.z = Eigen::VectorXd::Zero(n);
    measure(result);
    result.status = Status::Solved;
    result.message = "q >= 0: z = 0 solves";
    return result;
  }
  double largest = q.cwiseAbs().maxCoeff();
  for (Index k = 0; k < M.outerSize(); ++k) {
    for (ColumnMatrix::InnerIterator it(M, k); it; ++it) largest = std::max(largest, std::abs(it.value()));
  }
  const int exponent = largest > 0.0 ? -std::ilogb(largest) : 0;
  const Eigen::VectorXd d = options.lemke.covering_vector.value_or(Eigen::VectorXd::Ones(n));
  SparseLemke lemke(M, q, d, exponent);
  const int limit = options.iteration_limit(default_pivots(n));
  const auto stats = [&](int pivots) {
    return std::to_string(pivots) + " pivots, " + std::to_string(lemke.factorizations()) +
           " factorizations, " + std::to_string(lemke.ties()) + " tied rows";
  };
  const auto finish = [&](Status status, std::string message, int pivots) {
    lemke.current_z(lemke.values(), result.z);
    measure(result);
    result.iterations = pivots;
    result.status = status;
    result.message = std::move(message);
    return result;
  };
  (void)lemke.factorize();  // B = I: an empty core, b = s q

  // First pivot: z0 enters and the row r = lexmin_i (q_i, e_iᵀ)/d_i leaves; on B = I the
  // lexicographic rule keeps the last of the rows tied on q_i/d_i.
  double best = std::numeric_limits<double>::infinity();
  for (Index i = 0; i < n; ++i) best = std::min(best, q[i] / d[i]);
  Index r = 0;
  for (Index i = 0; i < n; ++i) {
    if (q[i] / d[i] <= best + kTieSlack * std::max(1.0, std::abs(best))) r = i;
  }
  Eigen::VectorXd col;
  lemke.compute_column(lemke.z0(), col);
  Index leaving = lemke.basic(r);
  if (!lemke.pivot(r, lemke.z0(), col)) {
    return finish(Status::NumericalFailure, "sparse lemke: the first basis could not be factorized", 1);
  }
  int pivots = 1;
  if (options.record_history) record_history(result.history, lemke.residual());
  std::vector<Index> candidates;
  while (true) {
    const Index entering = lemke.complement(leaving);
    if (const std::optional<Status> stop = detail::stop_requested()) {
      return finish(*stop, detail::stop_message(*stop, pivots, "pivots"), pivots);
    }
    if (pivots >= limit) {
      return finish(Status::MaxIterations,
                    "pivot limit " + std::to_string(limit) + " reached (z0 = " + number_text(lemke.z0_value()) +
                        "; sparse lemke: " + stats(pivots) + ")",
                    pivots);
    }
    lemke.compute_column(entering, col);
    if (!col.allFinite() || !lemke.values().allFinite()) {
      return finish(Status::NumericalFailure,
                    "sparse lemke: the basis solve overflowed to a non-finite value after " + std::to_string(pivots) +
                        " pivots",
                    pivots);
    }
    const double threshold = options.lemke.pivot_tolerance * std::max(1.0, col.cwiseAbs().maxCoeff());
    candidates.clear();
    double ignored = 0.0;
    for (Index p = 0; p < n; ++p) {
      if (col[p] > threshold) {
        candidates.push_back(p);
      } else {
        ignored = std::max(ignored, col[p]);
      }
    }
    if (candidates.empty()) {
      double z0_rate = 0.0;
      Eigen::VectorXd direction = lemke.ray(entering, col, z0_rate);
      char numbers[160];
      std::snprintf(numbers, sizeof numbers, "(z0 = %.6g, rate %.6g)", lemke.z0_value(), z0_rate);
      std::string what = "secondary ray after " + std::to_string(pivots) + " pivots: entering " +
                         variable_name(entering, n) + " has no positive pivot entry " + numbers;
      Status status = Status::RayTermination;
      if (const std::optional<double> qv = verify_infeasibility_ray(M, q, direction)) {
        what += "; its direction v proves the LCP infeasible: v >= 0, Mᵀv <= 0 and qᵀv = " + number_text(*qv) +
                " < 0 (v scaled to ‖v‖∞ = 1, checked on the data), so no z >= 0 has M z + q >= 0";
      } else if (ignored > 0.0) {
        status = Status::NumericalFailure;
        what += ", but the column's entry " + number_text(ignored) +
                " was below the pivot tolerance and the direction is no certificate of infeasibility";
      } else {
        what += "; its direction is no certificate of infeasibility (v >= 0, Mᵀv <= 0, qᵀv < 0 fails on the "
                "data), so this only says Lemke's path failed, not that the LCP has no solution";
      }
      finish(status, what + " (sparse lemke: " + stats(pivots) + ")", pivots);
      if (status == Status::RayTermination) result.ray = std::move(direction);
      return result;
    }
    // z0 leaves as soon as it attains the minimum ratio, whatever the order of the tied rows.
    const Index z0_position = [&] {
      for (const Index p : candidates) {
        if (lemke.basic(p) == lemke.z0()) return p;
      }
      return Index{-1};
    }();
    r = -1;
    if (z0_position >= 0) {
      double smallest = std::numeric_limits<double>::infinity();
      for (const Index p : candidates) smallest = std::min(smallest, lemke.values()[p] / col[p]);
      const double own = lemke.values()[z0_position] / col[z0_position];
      if (own <= smallest + kTieSlack * std::max(1.0, std::abs(smallest))) r = z0_position;
    }
    if (r < 0) r = lemke.lexicographic_minimum(candidates, col);
    leaving = lemke.basic(r);
    if (!lemke.pivot(r, entering, col)) {
      return finish(Status::NumericalFailure,
                    "sparse lemke: a basis could not be factorized (singular core) after " + std::to_string(pivots) +
                        " pivots",
                    pivots + 1);
    }
    ++pivots;
    if (options.record_history) record_history(result.history, lemke.residual());
    if (leaving == lemke.z0()) break;
  }

  finish(Status::Solved, "", pivots);
  if (options.lemke.refine && lemke.refactor()) {
    // The final basis factorized afresh: its values solve B b = s q without the etas' round-off.
    Result refined = result;
    lemke.current_z(lemke.values(), refined.z);
    measure(refined);
    if (refined.residual <= result.residual) result = std::move(refined);
  }
  if (result.relative_residual <= options.tolerance) {
    result.status = Status::Solved;
    result.message = "z0 left the basis (sparse lemke: " + stats(pivots) + ")";
    return result;
  }
  judge(result, options.tolerance, Status::NumericalFailure,
        "z0 left the basis but the complementary point misses the tolerance: M is ill-conditioned");
  return result;
}

}  // namespace perp::detail
