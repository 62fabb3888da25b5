#include "lemke.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "lemke_small.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

using detail::kSmallLcp;

// A list of indices over storage the tableau's owner provides (heap or stack): the few operations
// of std::vector the tableau uses, and swap in O(1) (it exchanges the two views).
class IndexList {
 public:
  IndexList(Eigen::Index* data, std::size_t size) : data_(data), size_(size) {}
  Eigen::Index& operator[](std::size_t i) { return data_[i]; }
  Eigen::Index operator[](std::size_t i) const { return data_[i]; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  void clear() { size_ = 0; }
  void push_back(Eigen::Index v) { data_[size_++] = v; }  // capacity n: the owner's slice
  void pop_back() { --size_; }
  [[nodiscard]] Eigen::Index front() const { return data_[0]; }
  [[nodiscard]] Eigen::Index back() const { return data_[size_ - 1]; }
  [[nodiscard]] const Eigen::Index* begin() const { return data_; }
  [[nodiscard]] const Eigen::Index* end() const { return data_ + size_; }
  void swap(IndexList& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

 private:
  Eigen::Index* data_;
  std::size_t size_;
};

// What a tableau of size n works in: n² + 3n doubles (B⁻¹, x, the work column, d) and 7n + 1
// indices (basis, position, the dense rows and their slots, two candidate lists).
constexpr std::size_t tableau_values(Eigen::Index n) {
  return static_cast<std::size_t>(n) * static_cast<std::size_t>(n) + 3 * static_cast<std::size_t>(n);
}
constexpr std::size_t tableau_indices(Eigen::Index n) { return 7 * static_cast<std::size_t>(n) + 1; }

// Variables of the augmented system  w − M z − d z0 = q:  index v < n is w_v, n <= v < 2n is
// z_{v−n}, and 2n is the artificial z0. Works in the `values` and `indices` it is given (sized by
// tableau_values and tableau_indices), so the same code runs on the heap and on the stack.
class LemkeTableau {
 public:
  LemkeTableau(const Lcp& problem, const Eigen::VectorXd* covering, double pivot_tolerance, double* values,
               Eigen::Index* indices)
      : M_(problem.M),
        n_(problem.size()),
        z0_(2 * n_),
        binv_(values, n_, n_),
        x_(values + n_ * n_, n_),
        col_(values + n_ * n_ + n_, n_),
        d_(values + n_ * n_ + 2 * n_, n_),
        scale_exponent_(unit_scale_exponent(problem)),
        scale_(power_of_two(scale_exponent_)),
        unscale_(power_of_two(-scale_exponent_)),
        basis_(indices, static_cast<std::size_t>(n_)),
        position_(indices + n_, static_cast<std::size_t>(2 * n_ + 1)),
        dense_(indices + 3 * n_ + 1, 0),
        dense_slot_(indices + 4 * n_ + 1, static_cast<std::size_t>(n_)),
        candidates_(indices + 5 * n_ + 1, 0),
        next_(indices + 6 * n_ + 1, 0),
        pivot_tolerance_(pivot_tolerance) {
    binv_.setIdentity();
    for (Eigen::Index i = 0; i < n_; ++i) x_[i] = scaled(problem.q[i]);
    if (covering != nullptr) {
      d_ = *covering;
    } else {
      d_.setOnes();
    }
    for (Eigen::Index i = 0; i < n_; ++i) {
      basis_[static_cast<std::size_t>(i)] = i;
      position_[static_cast<std::size_t>(i)] = i;
      dense_slot_[static_cast<std::size_t>(i)] = -1;
    }
    for (Eigen::Index v = n_; v <= z0_; ++v) position_[static_cast<std::size_t>(v)] = -1;
  }

  Eigen::Index n() const { return n_; }
  Eigen::Index z0() const { return z0_; }
  static Eigen::Index complement(Eigen::Index v, Eigen::Index n) { return v < n ? v + n : v - n; }

  // col = B⁻¹ a_v, where a_v is the column of variable v in [I, −M, −d]. The column operations
  // here and in pivot() are plain loops: on the few entries of a small tableau an Eigen expression's
  // set-up cost more than its arithmetic, which is the same (a multiply, then an add).
  void compute_column(Eigen::Index v) {
    double* const col = col_.data();
    if (v < n_) {
      const double* const source = &binv_(0, v);
      std::copy(source, source + n_, col);
      return;
    }
    const auto coefficient = [&](Eigen::Index row) { return v == z0_ ? -d_[row] : -scaled(M_(row, v - n_)); };
    std::fill(col, col + n_, 0.0);
    // Columns of B⁻¹ for rows whose w is basic are unit vectors e_position(w_row).
    for (Eigen::Index row = 0; row < n_; ++row) {
      const Eigen::Index p = position_[static_cast<std::size_t>(row)];
      if (p >= 0) col[p] += coefficient(row);
    }
    for (const Eigen::Index row : dense_) {
      const double c = coefficient(row);
      const double* const b = &binv_(0, row);
      for (Eigen::Index p = 0; p < n_; ++p) col[p] += c * b[p];
    }
  }

  // The first pivot: z0 enters and the row r = lexmin_i (q_i, e_iᵀ)/d_i leaves, which makes every
  // basic value q_i + d_i z0 >= 0 and keeps the rows of [x, B⁻¹] lexicographically positive.
  Eigen::Index initial_leaving_position() {
    candidates_.clear();
    for (Eigen::Index p = 0; p < n_; ++p) candidates_.push_back(p);
    col_ = d_;  // rank by x_p / d_p, the pivot row's ratio (sign aside)
    return lexicographic_minimum();
  }

  // Entries of col_ at or below this are zero to the ratio test.
  [[nodiscard]] double pivot_threshold() const { return pivot_tolerance_ * std::max(1.0, col_.cwiseAbs().maxCoeff()); }

  // Ratio test on col_: −1 when no entry is positive (a ray).
  Eigen::Index leaving_position() {
    const double threshold = pivot_threshold();
    candidates_.clear();
    for (Eigen::Index p = 0; p < n_; ++p) {
      if (col_[p] > threshold) candidates_.push_back(p);
    }
    if (candidates_.empty()) return -1;
    // Terminate as soon as z0 can leave: when it attains the minimum ratio, it leaves whatever
    // the lexicographic order among the tied rows says.
    const Eigen::Index z0_position = position_[static_cast<std::size_t>(z0_)];
    if (z0_position >= 0 && col_[z0_position] > threshold) {
      double best = x_[z0_position] / col_[z0_position];
      for (const Eigen::Index p : candidates_) best = std::min(best, x_[p] / col_[p]);
      if (x_[z0_position] / col_[z0_position] <= best + 1e-12 * std::max(1.0, std::abs(best))) return z0_position;
    }
    return lexicographic_minimum();
  }

  // Gauss–Jordan pivot: variable `entering` replaces basis_[r]; col_ holds B⁻¹ a_entering.
  void pivot(Eigen::Index r, Eigen::Index entering) {
    const Eigen::Index leaving = basis_[static_cast<std::size_t>(r)];
    const double* const col = col_.data();
    const double pivot_value = col[r];
    for (const Eigen::Index c : dense_) {
      double* const b = &binv_(0, c);
      const double v = b[r] / pivot_value;
      for (Eigen::Index p = 0; p < n_; ++p) b[p] -= v * col[p];
      b[r] = v;
    }
    if (leaving < n_) {
      // w_leaving's column of B⁻¹ was e_r; after the pivot it is dense.
      double* const b = &binv_(0, leaving);
      const double factor = -1.0 / pivot_value;
      for (Eigen::Index p = 0; p < n_; ++p) b[p] = col[p] * factor;
      b[r] = 1.0 / pivot_value;
      add_dense(leaving);
    }
    if (entering < n_) {
      // w_entering becomes basic at r: its column is exactly e_r.
      double* const b = &binv_(0, entering);
      std::fill(b, b + n_, 0.0);
      b[r] = 1.0;
      remove_dense(entering);
    }
    const double theta = x_[r] / pivot_value;
    for (Eigen::Index p = 0; p < n_; ++p) x_[p] -= theta * col[p];
    x_[r] = theta;
    for (Eigen::Index p = 0; p < n_; ++p) x_[p] = std::max(x_[p], 0.0);  // round-off below zero
    basis_[static_cast<std::size_t>(r)] = entering;
    position_[static_cast<std::size_t>(entering)] = r;
    position_[static_cast<std::size_t>(leaving)] = -1;
  }

  // For the trace (none of this runs without one): the variable v, a tableau value of v in the
  // problem's units (w and z0 carry the factor s, z does not), the ratio test on col_ before a pivot
  // in the units of `entering` (the first pivot: z0's values −q_i/d_i), and the basis after it.
  [[nodiscard]] PivotVariable variable(Eigen::Index v) const {
    if (v == z0_) return {PivotVariable::Kind::Z0, 0};
    return v < n_ ? PivotVariable{PivotVariable::Kind::W, v} : PivotVariable{PivotVariable::Kind::Z, v - n_};
  }
  [[nodiscard]] double unscaled(Eigen::Index v, double value) const {
    return v >= n_ && v < z0_ ? value : unscaled_value(value);
  }
  void ratio_test(Eigen::Index entering, bool first, std::vector<double>& ratios) const {
    ratios.assign(static_cast<std::size_t>(n_), std::numeric_limits<double>::infinity());
    const double threshold = pivot_threshold();
    for (Eigen::Index p = 0; p < n_; ++p) {
      if (first || col_[p] > threshold) ratios[static_cast<std::size_t>(p)] = unscaled(entering, x_[p] / col_[p]);
    }
  }
  void describe_basis(TraceEvent& event) const {
    event.basis.resize(static_cast<std::size_t>(n_));
    event.values.resize(static_cast<std::size_t>(n_));
    for (Eigen::Index p = 0; p < n_; ++p) {
      const Eigen::Index v = basis_[static_cast<std::size_t>(p)];
      event.basis[static_cast<std::size_t>(p)] = variable(v);
      event.values[static_cast<std::size_t>(p)] = unscaled(v, x_[p]);
    }
    event.z0 = z0_value();
  }

  Eigen::Index basic(Eigen::Index r) const { return basis_[static_cast<std::size_t>(r)]; }
  Eigen::Index position(Eigen::Index v) const { return position_[static_cast<std::size_t>(v)]; }

  // Current z (without z0).
  void current_z(Eigen::VectorXd& z) const {
    z.setZero();
    for (Eigen::Index p = 0; p < n_; ++p) {
      const Eigen::Index v = basis_[static_cast<std::size_t>(p)];
      if (v >= n_ && v < z0_) z[v - n_] = x_[p];
    }
  }

  // z0 of the original problem (the scaled problem's z0 is s times it).
  double z0_value() const { return unscaled_value(x_z0()); }

  // Whether the basic values and the work column are finite (a NaN or ±inf tableau cannot be
  // trusted: its ratio test would read no candidate and report a ray that is not there).
  bool finite() const { return x_.allFinite() && col_.allFinite(); }

  // Natural residual of the current z in O(n): w = (w_basic − d z0) / s, exact up to round-off.
  double residual() const {
    const double t = x_z0();
    double worst = 0.0;
    for (Eigen::Index i = 0; i < n_; ++i) {
      const Eigen::Index pz = position(i + n_);
      const Eigen::Index pw = position(i);
      const double zi = pz >= 0 ? x_[pz] : 0.0;
      const double wi = unscaled_value((pw >= 0 ? x_[pw] : 0.0) - d_[i] * t);
      worst = std::max(worst, std::abs(std::min(zi, wi)));
    }
    return worst;
  }

  // The unbounded direction when `entering` has no positive pivot entry: the entering variable
  // grows by 1 and the basic ones by −col_. Returns its z-part; z0's part in `z0_rate`.
  // The largest entry of the pivot column that the ratio test treated as zero (0 when none was
  // positive): a ray found past such an entry is an artifact of the pivot tolerance.
  [[nodiscard]] double largest_ignored_entry() const {
    double largest = 0.0;
    for (Eigen::Index p = 0; p < n_; ++p) largest = std::max(largest, col_[p]);
    return largest;
  }

  Eigen::VectorXd ray(Eigen::Index entering, double& z0_rate) const {
    Eigen::VectorXd direction = Eigen::VectorXd::Zero(n_);
    z0_rate = entering == z0_ ? 1.0 : 0.0;
    if (entering >= n_ && entering < z0_) direction[entering - n_] = 1.0;
    for (Eigen::Index p = 0; p < n_; ++p) {
      const Eigen::Index v = basis_[static_cast<std::size_t>(p)];
      if (v >= n_ && v < z0_) direction[v - n_] = -col_[p];
      if (v == z0_) z0_rate = -col_[p];
    }
    return direction;
  }

 private:
  // Lemke's path is the same for (s M, s q) as for (M, q) with z unchanged and z0, w scaled by s;
  // s = 2^-e with e = ilogb(max(|M|, |q|)) puts the data at unit scale (largest entry in [1, 2)),
  // so that the pivot and tie tolerances mean the same for a problem in newtons and one in
  // micronewtons. A power of two applied with ldexp is exact, also for subnormal data, where
  // 1 / max|data| would overflow to inf (s itself may not be representable: 2^1074).
  static int unit_scale_exponent(const Lcp& problem) {
    const detail::DataScale scale = detail::data_scale(problem);
    const double largest = std::max(scale.m_max, scale.q_max);
    return largest > 0.0 && std::isfinite(largest) ? -std::ilogb(largest) : 0;
  }

  // 2^e where that is a normal double, else 0 (then scaled/unscaled call ldexp).
  static double power_of_two(int e) {
    if (e < -1022 || e > 1023) return 0.0;
    return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);  // the exponent field alone
  }
  // v·2^e and v·2^−e, e the scale exponent, correctly rounded: a product with the power of two
  // where it is a normal double (the value std::ldexp returns, without a call per entry).
  [[nodiscard]] double scaled(double v) const { return scale_ != 0.0 ? v * scale_ : std::ldexp(v, scale_exponent_); }
  [[nodiscard]] double unscaled_value(double v) const {
    return unscale_ != 0.0 ? v * unscale_ : std::ldexp(v, -scale_exponent_);
  }

  double x_z0() const {
    const Eigen::Index p = position(z0_);
    return p >= 0 ? x_[p] : 0.0;
  }

  // Among candidates_ (never empty), the position p minimising the row (x_p, B⁻¹_p·) / col_p
  // lexicographically (Cottle–Pang–Stone §4.4); unique because B⁻¹ is nonsingular.
  Eigen::Index lexicographic_minimum() {
    if (candidates_.empty()) return -1;
    const auto keep_minimum = [&](auto&& key) {
      double best = key(candidates_.front());
      for (const Eigen::Index p : candidates_) best = std::min(best, key(p));
      const double slack = 1e-12 * std::max(1.0, std::abs(best));
      next_.clear();
      for (const Eigen::Index p : candidates_) {
        if (key(p) <= best + slack) next_.push_back(p);
      }
      // With a NaN key nothing compares <= best; keep the candidates rather than none.
      if (!next_.empty()) candidates_.swap(next_);
    };
    keep_minimum([&](Eigen::Index p) { return x_[p] / col_[p]; });
    for (Eigen::Index k = 0; k < n_ && candidates_.size() > 1; ++k) {
      keep_minimum([&](Eigen::Index p) { return binv_(p, k) / col_[p]; });
    }
    return candidates_.front();
  }

  void add_dense(Eigen::Index c) {
    dense_slot_[static_cast<std::size_t>(c)] = static_cast<Eigen::Index>(dense_.size());
    dense_.push_back(c);
  }
  void remove_dense(Eigen::Index c) {
    const Eigen::Index slot = dense_slot_[static_cast<std::size_t>(c)];
    const Eigen::Index last = dense_.back();
    dense_[static_cast<std::size_t>(slot)] = last;
    dense_slot_[static_cast<std::size_t>(last)] = slot;
    dense_.pop_back();
    dense_slot_[static_cast<std::size_t>(c)] = -1;
  }

  const Eigen::MatrixXd& M_;
  Eigen::Index n_;
  Eigen::Index z0_;
  Eigen::Map<Eigen::MatrixXd> binv_;  // B⁻¹, column-major; columns of rows with basic w are unit vectors
  Eigen::Map<Eigen::VectorXd> x_;     // values of the basic variables, x = B⁻¹ (s q)
  Eigen::Map<Eigen::VectorXd> col_;   // work column B⁻¹ a_entering
  Eigen::Map<Eigen::VectorXd> d_;     // the covering vector
  int scale_exponent_;                // the tableau holds (s M, s q) with s = 2^scale_exponent_
  double scale_;                      // s, or 0 where it is not a normal double
  double unscale_;                    // 1/s, or 0 where it is not a normal double
  IndexList basis_;                   // variable at each position
  IndexList position_;                // position of each variable, −1 when nonbasic
  IndexList dense_;                   // rows whose w is nonbasic: dense columns of B⁻¹
  IndexList dense_slot_;              // index of each row in dense_, −1 when absent
  IndexList candidates_;
  IndexList next_;
  double pivot_tolerance_;
};

std::string variable_name(Eigen::Index v, Eigen::Index n) {
  if (v == 2 * n) return "z0";
  return (v < n ? "w" : "z") + std::to_string(v < n ? v : v - n);
}

// Whether the z-part v of a secondary ray is a Farkas certificate of infeasibility, checked on
// the data at the problem's scale: v >= 0 (entries above −ε‖v‖∞, then clipped), Mᵀv <= 0
// componentwise up to ε Σ_j |M_ji| v_j, and qᵀv < −ε Σ_j |q_j| v_j, with ε = 1e-10. Then every
// z >= 0 has vᵀ(M z + q) = (Mᵀv)ᵀz + qᵀv < 0, so no z >= 0 has M z + q >= 0. (For
// copositive-plus M, Lemke's secondary rays have this form; Cottle–Pang–Stone §4.4.)
// Returns qᵀv (negative) when it verifies; empty otherwise.
std::optional<double> verify_infeasibility_ray(const Lcp& problem, const Eigen::VectorXd& ray) {
  constexpr double kCertificate = 1e-10;
  if (ray.size() != problem.size() || !ray.allFinite()) return std::nullopt;
  const double size = ray.cwiseAbs().maxCoeff();
  if (!(size > 0.0) || ray.minCoeff() < -kCertificate * size) return std::nullopt;
  const Eigen::VectorXd v = (ray / size).cwiseMax(0.0);
  const Eigen::Index n = problem.size();
  for (Eigen::Index i = 0; i < n; ++i) {  // (Mᵀv)_i = Σ_j M_ji v_j: column i of M
    long double sum = 0.0L, magnitude = 0.0L;
    for (Eigen::Index j = 0; j < n; ++j) {
      const long double term = static_cast<long double>(problem.M(j, i)) * v[j];
      sum += term;
      magnitude += std::fabs(term);
    }
    if (sum > kCertificate * magnitude) return std::nullopt;
  }
  long double qv = 0.0L, magnitude = 0.0L;
  for (Eigen::Index j = 0; j < n; ++j) {
    const long double term = static_cast<long double>(problem.q[j]) * v[j];
    qv += term;
    magnitude += std::fabs(term);
  }
  if (!(qv < -kCertificate * magnitude)) return std::nullopt;
  return static_cast<double>(qv);
}

// The refinement of the point where z0 left the basis. A natural residual of exactly 0 (every
// min(z_i, w_i) = 0 in floating point) cannot improve, so small problems skip the re-solve there.
void refine(const Lcp& problem, Result& result) {
  if (result.z.size() <= kSmallLcp) {
    if (result.residual == 0.0) return;
    detail::refine_lemke_small(problem, result);
    return;
  }
  std::vector<Eigen::Index> active;
  for (Eigen::Index i = 0; i < result.z.size(); ++i) {
    if (result.z[i] > 0.0) active.push_back(i);
  }
  if (!active.empty()) (void)detail::polish_on_active_set(problem, result, active);
}

// Lemke's path on a tableau held in `values` and `indices` (tableau_values(n), tableau_indices(n)).
Result run_lemke(const Lcp& problem, const SolveOptions& options, const char* solved_message, double* values,
                 Eigen::Index* indices) {
  const Eigen::Index n = problem.size();
  const int limit = options.iteration_limit(default_pivots(n));

  LemkeTableau tableau(problem, options.lemke.covering_vector ? &*options.lemke.covering_vector : nullptr,
                       options.lemke.pivot_tolerance, values, indices);
  std::vector<double> history;
  // Room for every entry history keeps (at most kHistoryLimit), so the loop itself never allocates;
  // a small problem's path is short (about n pivots), so it reserves 8n and grows past that.
  if (options.record_history) {
    const std::size_t room = std::min(static_cast<std::size_t>(std::max(limit, 1)), kHistoryLimit);
    history.reserve(n <= kSmallLcp ? std::min(room, 8 * static_cast<std::size_t>(n)) : room);
  }

  // The result at z (w and both residuals recomputed from it; `relative` false: the relative one
  // is left to the caller, which measures it once the refinement has chosen the point).
  const auto finish = [&](Status status, std::string message, int pivots, bool relative = true) {
    Result result;
    result.z.resize(n);
    tableau.current_z(result.z);
    if (relative) {
      detail::recompute(problem, result);
    } else {
      detail::recompute_point(problem, result);
    }
    result.method = Method::Lemke;
    result.iterations = pivots;
    result.history = std::move(history);
    result.status = status;
    result.message = std::move(message);
    return result;
  };

  // One event per pivot when traced (the event's vectors are reused from pivot to pivot).
  TraceEvent event;
  event.method = detail::trace_name(Method::Lemke);
  event.kind = TraceKind::Pivot;
  const auto trace = [&](Eigen::Index row, Eigen::Index entering, Eigen::Index left, int count) {
    event.iteration = count;
    event.entering = tableau.variable(entering);
    event.leaving = tableau.variable(left);
    tableau.describe_basis(event);
    event.ratio = event.values[static_cast<std::size_t>(row)];
    event.residual = tableau.residual();
    options.trace(event);
  };

  // First pivot: z0 enters at the value max_i(−q_i/d_i).
  Eigen::Index r = tableau.initial_leaving_position();
  tableau.compute_column(tableau.z0());
  Eigen::Index leaving = tableau.basic(r);
  if (options.trace) tableau.ratio_test(tableau.z0(), true, event.ratios);
  tableau.pivot(r, tableau.z0());
  int pivots = 1;
  if (options.record_history) record_history(history, tableau.residual());
  if (options.trace) trace(r, tableau.z0(), leaving, pivots);

  while (true) {
    const Eigen::Index entering = LemkeTableau::complement(leaving, n);
    if (const std::optional<Status> stop = detail::stop_requested()) {
      return finish(*stop, detail::stop_message(*stop, pivots, "pivots"), pivots);
    }
    if (pivots >= limit) {
      return finish(
          Status::MaxIterations,
          "pivot limit " + std::to_string(limit) + " reached (z0 = " + std::to_string(tableau.z0_value()) + ")",
          pivots);
    }
    tableau.compute_column(entering);
    if (!tableau.finite()) {
      return finish(Status::NumericalFailure,
                    "the tableau overflowed to a non-finite value after " + std::to_string(pivots) +
                        (pivots == 1 ? " pivot" : " pivots"),
                    pivots);
    }
    r = tableau.leaving_position();
    if (r < 0) {
      double z0_rate = 0.0;
      Eigen::VectorXd direction = tableau.ray(entering, z0_rate);
      const double ignored = tableau.largest_ignored_entry();
      char numbers[160];
      std::snprintf(numbers, sizeof numbers, "(z0 = %.6g, rate %.6g)", tableau.z0_value(), z0_rate);
      std::string what = "secondary ray after " + std::to_string(pivots) + (pivots == 1 ? " pivot" : " pivots") +
                         ": entering " + variable_name(entering, n) + " has no positive pivot entry " + numbers;
      Status status = Status::RayTermination;
      if (const std::optional<double> qv = verify_infeasibility_ray(problem, direction)) {
        std::snprintf(numbers, sizeof numbers, "%.6g", *qv);
        what += "; its direction v proves the LCP infeasible: v >= 0, Mᵀv <= 0 and qᵀv = " + std::string(numbers) +
                " < 0 (v scaled to ‖v‖∞ = 1, checked on the data), so no z >= 0 has M z + q >= 0";
      } else if (ignored > 0.0) {
        // A positive entry below the pivot tolerance stopped the path: along the direction that
        // entry's basic variable still decreases, so this is not a ray of the problem.
        status = Status::NumericalFailure;
        std::snprintf(numbers, sizeof numbers, "%.3g", ignored);
        what += ", but the column's entry " + std::string(numbers) +
                " was below the pivot tolerance and the direction is no certificate of infeasibility "
                "(v >= 0, Mᵀv <= 0, qᵀv < 0 fails on the data): the data may be too badly scaled for Lemke";
      } else {
        what += "; its direction is no certificate of infeasibility (v >= 0, Mᵀv <= 0, qᵀv < 0 fails on the "
                "data), so this only says Lemke's path failed, not that the LCP has no solution";
      }
      Result result = finish(status, what, pivots);
      if (status == Status::RayTermination) result.ray = std::move(direction);
      return result;
    }
    leaving = tableau.basic(r);
    if (options.trace) tableau.ratio_test(entering, false, event.ratios);
    tableau.pivot(r, entering);
    ++pivots;
    if (options.record_history) record_history(history, tableau.residual());
    if (options.trace) trace(r, entering, leaving, pivots);
    if (leaving == tableau.z0()) break;
  }

  Result result = finish(Status::Solved, "", pivots, false);
  if (options.lemke.refine) refine(problem, result);
  result.relative_residual = relative_residual(problem, result.z, result.w);
  if (result.relative_residual <= options.tolerance) {
    result.status = Status::Solved;
    result.message = solved_message;
    return result;
  }
  detail::judge(result, options.tolerance, Status::NumericalFailure,
                "z0 left the basis but the complementary point misses the tolerance: M is ill-conditioned");
  return result;
}

}  // namespace

Result solve_lemke(const Lcp& problem, const SolveOptions& options) {
  return solve_lemke(problem, options, kLemkeSolved);
}

Result solve_lemke(const Lcp& problem, const SolveOptions& options, const char* solved_message) {
  if (auto trivial = detail::trivial_result(problem, Method::Lemke)) return *std::move(trivial);
  const Eigen::Index n = problem.size();
  if (n <= kSmallLcp) {
    std::array<double, tableau_values(kSmallLcp)> values;
    std::array<Eigen::Index, tableau_indices(kSmallLcp)> indices;
    return run_lemke(problem, options, solved_message, values.data(), indices.data());
  }
  std::vector<double> values(tableau_values(n));
  std::vector<Eigen::Index> indices(tableau_indices(n));
  return run_lemke(problem, options, solved_message, values.data(), indices.data());
}

}  // namespace perp
