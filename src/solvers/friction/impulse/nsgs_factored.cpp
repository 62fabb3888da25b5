#include "nsgs.hpp"
#include "small_lu.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>

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

/// A planar contact's status at an nsgs iterate, as the exact local solves leave r: take-off
/// (r = 0), stick (|r_T| < μ r_N), slide with r_T = −μ r_N (sliding forward) or r_T = +μ r_N;
/// `kOffStatus` for any other r (a local solve that was not exact).
/// The status solve's system is used only where LU's estimate of its reciprocal condition number
/// exceeds this (a statically indeterminate set of sticking contacts gives one at round-off).
constexpr double kStatusSolveMinRcond = 1e-10;
/// Below this tolerance the status solve is not tried: its point carries LU's round-off, of order
/// ε·cond(K) (1e-14 already for a condition of 50), where the sweeps' own point reaches it by exact
/// local solves. Measured: at 1e-14, examples/python/trajopt_push.py's rollouts of a sliding box
/// moved by round-off (1e-15 m/s) under it, and the contact-implicit optimization started from them
/// ended 1.4e-7 off its dynamics.
constexpr double kStatusSolveMinTolerance = 1e-12;

enum : signed char { kTakeOff = 0, kStick = 1, kSlideForward = 2, kSlideBackward = 3, kOffStatus = -1 };

void planar_statuses(const Eigen::VectorXd& r, const Eigen::VectorXd& mu, std::vector<signed char>& out) {
  out.resize(static_cast<std::size_t>(mu.size()));
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    const double rn = r[2 * i];
    const double rt = r[2 * i + 1];
    const double edge = mu[i] * rn;
    signed char status = kOffStatus;
    if (rn == 0 && rt == 0) {
      status = kTakeOff;
    } else if (rn > 0 && std::abs(rt) < edge) {
      status = kStick;
    } else if (rn > 0 && rt == -edge) {
      status = kSlideForward;
    } else if (rn > 0 && rt == edge) {
      status = kSlideBackward;
    }
    out[static_cast<std::size_t>(i)] = status;
  }
}

/// The point the planar statuses define: r_i = 0 at a take-off; u_i = 0 at a stick; u_N = 0 and
/// r_T = ∓μ r_N at a slide (u = W r + q). W = H M⁻¹ Hᵀ is formed densely (column by column of H:
/// O(Σ_c nnz(H_c)²)) and the system reduced to the sticking contacts' two unknowns and the sliding
/// ones' normal unknown, solved by LU with partial pivoting. Returns false where that system is
/// singular or nearly so (LU's reciprocal condition estimate <= kStatusSolveMinRcond: a statically
/// indeterminate set of sticking contacts) or its solution is not finite; the caller measures the
/// point it returns.
/// Dense matrices of the status solve, at most 2 kStatusSolveMaxContacts square: on the stack.
constexpr int kStatusMax = kSmallLuMax;
using StatusMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, kStatusMax, kStatusMax>;
using StatusVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kStatusMax, 1>;

/// W = H M⁻¹ Hᵀ formed densely into `W` (n × n, n = H.rows() <= kStatusMax), column by column of
/// H: O(Σ_c nnz(H_c)²).
void form_status_w(const RowSparse& H, const Eigen::VectorXd& minv, StatusMatrix& W) {
  const Eigen::Index n = H.rows();
  const auto dofs = static_cast<std::size_t>(H.cols());
  const int* const outer = H.outerIndexPtr();
  const int* const inner = H.innerIndexPtr();
  const double* const values = H.valuePtr();
  const auto nnz = static_cast<std::size_t>(outer[n]);
  // H by columns: the rows (and values) of each column's entries. Work arrays kept per thread
  // (their capacity reused from step to step: a small world's step allocates nothing here).
  thread_local std::vector<int> start, at, rows;
  thread_local std::vector<double> entries;
  start.assign(dofs + 1, 0);
  for (std::size_t p = 0; p < nnz; ++p) ++start[static_cast<std::size_t>(inner[p]) + 1];
  for (std::size_t c = 0; c < dofs; ++c) start[c + 1] += start[c];
  at.assign(start.begin(), start.end() - 1);
  rows.resize(nnz);
  entries.resize(nnz);
  for (Eigen::Index row = 0; row < n; ++row) {
    for (int p = outer[row]; p < outer[row + 1]; ++p) {
      const auto k = static_cast<std::size_t>(at[static_cast<std::size_t>(inner[p])]++);
      rows[k] = static_cast<int>(row);
      entries[k] = values[p];
    }
  }
  // Zeroed column by column: one n × n memset (4.6 KB at n = 24) takes glibc's `rep stosb` path,
  // which valgrind counts byte by byte; the columns (at most 512 bytes) take its vector stores.
  W.resize(n, n);
  for (Eigen::Index j = 0; j < n; ++j) W.col(j).setZero();
  // W is symmetric: its upper triangle summed (a column's rows are listed in increasing order, so
  // rows[a] <= rows[b] for a <= b), then mirrored.
  for (std::size_t c = 0; c < dofs; ++c) {
    const auto end = static_cast<std::size_t>(start[c + 1]);
    for (auto b = static_cast<std::size_t>(start[c]); b < end; ++b) {
      const double scaled = entries[b] * minv[static_cast<Eigen::Index>(c)];
      double* const column = W.data() + static_cast<std::ptrdiff_t>(rows[b]) * n;
      for (auto a = static_cast<std::size_t>(start[c]); a <= b; ++a) column[rows[a]] += entries[a] * scaled;
    }
  }
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < j; ++i) W(j, i) = W(i, j);
  }
}

/// A necessary test of a status solve's point r before its residuals are measured: false only where
/// its relative error (`cone_residuals`) must exceed `tolerance`. Every contact's term of the natural
/// map, r_i − P_K(x_i), is at least r_i's distance to its cone K_i (P_K(x_i) lies in K_i), so the
/// absolute error is at least √(Σ dist(r_i, K_i)²); the error's scale, max(‖q‖, ‖r‖, ‖u‖) with
/// u = W r + q, is at most max(‖r‖, ‖W‖_F ‖r‖ + ‖q‖). A point refused here (an impulse outside its
/// statuses' cone: a status guessed wrong) would be refused by the measure; the factor 2 covers the
/// round-off of both sides.
/// `w_norm` is called (‖W‖_F) only where some r_i lies outside its cone (W is then formed: r ≠ 0).
template <class WNorm>
bool could_meet(const Eigen::VectorXd& r, const Eigen::VectorXd& mu, const WNorm& w_norm, double q_norm,
                double tolerance) {
  double squared = 0;
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    double projected[2];
    project_on_cone(r.data() + 2 * i, 2, mu[i], projected);
    const double dn = r[2 * i] - projected[0];
    const double dt = r[2 * i + 1] - projected[1];
    squared += dn * dn + dt * dt;
  }
  if (squared == 0) return true;
  const double r_norm = r.norm();
  const double scale = std::max(r_norm, w_norm() * r_norm + q_norm);
  return !(std::sqrt(squared) > 2 * tolerance * scale);
}

/// `W` is formed (`form_status_w`) at the first call of a solve that needs it (`formed` false) and
/// kept for its later tries: W does not depend on the statuses.
bool solve_on_statuses(const RowSparse& H, const Eigen::VectorXd& minv, const Eigen::VectorXd& q,
                       const Eigen::VectorXd& mu, const std::vector<signed char>& status, Eigen::VectorXd& r,
                       StatusMatrix& W, bool& formed) {
  const Eigen::Index nc = mu.size();
  if (nc > kStatusSolveMaxContacts) return false;  // the callers' bound; the arrays below hold no more
  // The unknowns: (r_N, r_T) of a sticking contact, r_N of a sliding one (r_T = ∓μ r_N).
  std::array<Eigen::Index, kStatusSolveMaxContacts> unknown;
  unknown.fill(-1);
  Eigen::Index m = 0;
  for (Eigen::Index i = 0; i < nc; ++i) {
    const signed char s = status[static_cast<std::size_t>(i)];
    if (s == kOffStatus) return false;
    if (s == kTakeOff) continue;
    unknown[static_cast<std::size_t>(i)] = m;
    m += s == kStick ? 2 : 1;
  }
  r.setZero();
  if (m == 0) return true;
  // W and the reduced system on the stack: n = 2 nc <= 2 kStatusSolveMaxContacts.
  if (!formed) {
    form_status_w(H, minv, W);
    formed = true;
  }
  // The equations' rows of W: u_N = 0 at a sticking or sliding contact, u_T = 0 at a sticking one.
  std::array<Eigen::Index, kStatusMax> equation_row;
  StatusVector f(m);
  Eigen::Index equation = 0;
  for (Eigen::Index i = 0; i < nc; ++i) {
    const signed char s = status[static_cast<std::size_t>(i)];
    if (s == kTakeOff) continue;
    equation_row[static_cast<std::size_t>(equation++)] = 2 * i;
    if (s == kStick) equation_row[static_cast<std::size_t>(equation++)] = 2 * i + 1;
  }
  // K column by column: a sticking contact's two columns of W, a sliding one's normal column
  // ∓ μ its tangential one, at the equations' rows (W symmetric: read along its columns 2j, 2j + 1);
  // ‖K‖₁, its largest column sum of |K|, on the way.
  StatusMatrix K(m, m);
  double norm = 0;
  for (Eigen::Index j = 0; j < nc; ++j) {
    const signed char s = status[static_cast<std::size_t>(j)];
    if (s == kTakeOff) continue;
    const Eigen::Index col = unknown[static_cast<std::size_t>(j)];
    const double* const normal_column = W.data() + 2 * j * W.rows();
    const double* const tangent_column = normal_column + W.rows();
    double* const out = K.data() + col * m;
    double sum = 0;
    if (s == kStick) {
      double* const out_t = out + m;
      double sum_t = 0;
      for (Eigen::Index e = 0; e < m; ++e) {
        const Eigen::Index row = equation_row[static_cast<std::size_t>(e)];
        out[e] = normal_column[row];
        out_t[e] = tangent_column[row];
        sum += std::abs(out[e]);
        sum_t += std::abs(out_t[e]);
      }
      norm = std::max(norm, sum_t);
    } else {
      const double slope = s == kSlideForward ? -mu[j] : mu[j];
      for (Eigen::Index e = 0; e < m; ++e) {
        const Eigen::Index row = equation_row[static_cast<std::size_t>(e)];
        out[e] = normal_column[row] + slope * tangent_column[row];
        sum += std::abs(out[e]);
      }
    }
    norm = std::max(norm, sum);
  }
  for (Eigen::Index e = 0; e < m; ++e) f[e] = -q[equation_row[static_cast<std::size_t>(e)]];
  // LU with partial pivoting on the stack (`small_lu`) and its condition estimate, as Eigen's
  // PartialPivLU and rcond compute them.
  const int size = static_cast<int>(m);
  std::array<int, kStatusMax> swaps{};
  // A singular or nearly singular system (a statically indeterminate set of sticking contacts: a
  // box on two corners) has a set of solutions, and LU's pick carries round-off amplified by its
  // condition: left to the sweeps.
  if (!small_lu(K.data(), size, swaps.data())) return false;  // a NaN in K
  if (!small_lu_well_conditioned(K.data(), size, swaps.data(), norm, kStatusSolveMinRcond)) return false;
  StatusVector y = f;
  small_lu_solve(K.data(), size, swaps.data(), y.data(), false);
  if (!y.allFinite()) return false;
  for (Eigen::Index i = 0; i < nc; ++i) {
    const signed char s = status[static_cast<std::size_t>(i)];
    const Eigen::Index col = unknown[static_cast<std::size_t>(i)];
    if (s == kStick) {
      r[2 * i] = y[col];
      r[2 * i + 1] = y[col + 1];
    } else if (s == kSlideForward || s == kSlideBackward) {
      r[2 * i] = y[col];
      r[2 * i + 1] = (s == kSlideForward ? -mu[i] : mu[i]) * y[col];
    }
  }
  return true;
}

template <int D>
Result nsgs_factored(const RowSparse& H, const Eigen::VectorXd& minv, const FrictionContact& shell,
                     const SolveOptions& options, const Eigen::VectorXd& r0, FrictionContactResiduals& residuals,
                     bool status_solve) {
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
  const auto measure = [&](const Eigen::VectorXd& x, Eigen::VectorXd& vx, Eigen::VectorXd& ux) {
    vx.noalias() = H.transpose() * x;
    vx.array() *= minv.array();
    ux = shell.q;
    ux.noalias() += H * vx;
    return cone_residuals(D, shell.mu, x, ux, FrictionLaw::Coulomb, q_norm);
  };
  const auto error_of = [&]() {
    residuals = measure(r, v, u);
    return residuals.relative_error;
  };
  const auto finish_with = [&](Status status, int sweeps, std::string message) {
    result.z = std::move(r);  // the last use of r and u: moved, not copied
    result.w = std::move(u);
    result.iterations = sweeps;
    result.status = status;
    result.message = std::move(message);
    return std::move(result);  // moved out (a lambda's `return result` of a captured reference copies it)
  };
  double error = error_of();
  if (error <= options.tolerance) {
    return finish_with(Status::Solved, 0, "the start point solves (relative error " + number_text(error) + ", 0 sweeps)");
  }
  LocalProblems local(D, fc);
  local.prepare(factored_diagonal<D>(H, minv, nc), shell.mu);
  // The solve's work arrays, kept per thread (their capacity reused from solve to solve: a small
  // world's step allocates none of them). Nothing in a solve calls another solve on the factors.
  struct Scratch {
    std::vector<Eigen::Index> order;
    Eigen::VectorXd last_finite;
    std::vector<signed char> statuses;
    std::vector<signed char> checked;
    std::vector<signed char> tried;  // the sets already tried, nc statuses each, one after another
    Eigen::VectorXd candidate;       // the status solve's point, its v and u
    Eigen::VectorXd cv;
    Eigen::VectorXd cu;
    std::vector<char> paired;  // 2D: contact i's rows share their columns
  };
  thread_local Scratch scratch;
  std::vector<Eigen::Index>& order = scratch.order;
  if (fc.nsgs.order == ContactOrder::Given) {
    order = fc.nsgs.permutation;
  } else {
    order.resize(static_cast<std::size_t>(nc));
    std::iota(order.begin(), order.end(), Eigen::Index{0});
  }
  // Seeded only for a random order (seeding the engine costs more than a sweep of a small problem).
  std::optional<std::mt19937_64> random;
  if (fc.nsgs.order == ContactOrder::Random) random.emplace(fc.nsgs.seed);
  const int* const outer = H.outerIndexPtr();
  const int* const inner = H.innerIndexPtr();
  const double* const values = H.valuePtr();
  const double omega = fc.nsgs.relaxation;
  const int limit = options.iteration_limit(kDefaultSweeps);
  const int every = fc.nsgs.error_every;
  // In the plane, a contact whose two rows of H have the same columns (the contact layer's H: the
  // 3 or 6 columns of its bodies in both rows) is swept over those columns once: both sums of
  // b = q_i + H_i v in one pass, and v's update by both rows' Δr in one pass, each column's two
  // additions in the order the row-by-row loop makes them (the same numbers, bit for bit).
  std::vector<char>& paired = scratch.paired;
  paired.assign(static_cast<std::size_t>(D == 2 ? nc : 0), 0);
  if constexpr (D == 2) {
    for (Eigen::Index i = 0; i < nc; ++i) {
      const int n0 = outer[2 * i], t0 = outer[2 * i + 1], end = outer[2 * i + 2];
      paired[static_cast<std::size_t>(i)] =
          t0 - n0 == end - t0 && std::equal(inner + n0, inner + t0, inner + t0) ? 1 : 0;
    }
  }
  [[maybe_unused]] const auto paired_contact_update = [&](Eigen::Index i, double* ri) {
    const int n0 = outer[2 * i], t0 = outer[2 * i + 1];
    const int count = t0 - n0;
    const int* const columns = inner + n0;
    const double* const normal_row = values + n0;
    const double* const tangent_row = values + t0;
    const double* const A = local.block(i);
    double bn = shell.q[2 * i];
    double bt = shell.q[2 * i + 1];
    for (int p = 0; p < count; ++p) {
      const double vc = v[columns[p]];
      bn += normal_row[p] * vc;
      bt += tangent_row[p] * vc;
    }
    double b[2] = {bn, bt};
    b[0] -= A[0] * ri[0];
    b[0] -= A[1] * ri[1];
    b[1] -= A[2] * ri[0];
    b[1] -= A[3] * ri[1];
    double x[2] = {ri[0], ri[1]};
    const bool exact = local.solve<2>(i, shell.mu[i], b, x);
    const double dn = x[0] - ri[0];
    const double dt = x[1] - ri[1];
    ri[0] = x[0];
    ri[1] = x[1];
    if (dn != 0 && dt != 0) {
      for (int p = 0; p < count; ++p) {
        const int c = columns[p];
        v[c] += minv[c] * normal_row[p] * dn;
        v[c] += minv[c] * tangent_row[p] * dt;
      }
    } else if (dn != 0 || dt != 0) {
      const double* const row = dn != 0 ? normal_row : tangent_row;
      const double delta = dn != 0 ? dn : dt;
      for (int p = 0; p < count; ++p) v[columns[p]] += minv[columns[p]] * row[p] * delta;
    }
    return exact;
  };
  Eigen::VectorXd& last_finite = scratch.last_finite;
  last_finite = r;
  Eigen::Index failures = 0;
  // The status solve (solve_nsgs_factored's `status_solve`): the statuses at the last check, and
  // the sets already tried.
  bool by_statuses = false;
  if constexpr (D == 2) {
    by_statuses = status_solve && omega == 1.0 && nc <= kStatusSolveMaxContacts &&
                  options.tolerance >= kStatusSolveMinTolerance;
  }
  std::vector<signed char>& statuses = scratch.statuses;
  std::vector<signed char>& checked = scratch.checked;
  std::vector<signed char>& tried = scratch.tried;
  statuses.clear();
  checked.clear();
  tried.clear();
  Eigen::VectorXd& candidate = scratch.candidate;
  Eigen::VectorXd& cv = scratch.cv;
  Eigen::VectorXd& cu = scratch.cu;
  bool tried_empty_set = false;
  const auto already_tried = [&]() {
    if (statuses.empty()) return tried_empty_set;  // no contact: one (empty) set, tried once
    for (std::size_t at = 0; at + statuses.size() <= tried.size(); at += statuses.size()) {
      if (std::equal(statuses.begin(), statuses.end(), tried.begin() + static_cast<std::ptrdiff_t>(at))) return true;
    }
    return false;
  };
  const double approach_scale = std::sqrt(options.tolerance) * shell.q.lpNorm<Eigen::Infinity>();
  if (by_statuses) planar_statuses(r, shell.mu, checked);  // the start's (a warm start's last statuses)
  // The statuses at this sweep; where they are those of the last look and not tried yet, the point
  // they define, returned (finished) when auto's judgement accepts it.
  StatusMatrix status_w;  // W, formed at the first status solve and kept for the later tries
  bool status_w_formed = false;
  double status_w_norm = -1;  // ‖W‖_F, taken at the first refusal test of a solve
  const auto w_norm = [&]() {
    if (status_w_norm < 0) status_w_norm = status_w.norm();
    return status_w_norm;
  };
  [[maybe_unused]] const auto try_statuses = [&](int sweep) -> std::optional<Result> {
    planar_statuses(r, shell.mu, statuses);
    if (statuses == checked && !already_tried()) {
      tried.insert(tried.end(), statuses.begin(), statuses.end());
      tried_empty_set = tried_empty_set || statuses.empty();
      candidate.resize(r.size());  // kept between tries: sized once
      cv.resize(v.size());
      cu.resize(u.size());
      if (solve_on_statuses(H, minv, shell.q, shell.mu, statuses, candidate, status_w, status_w_formed) &&
          could_meet(candidate, shell.mu, w_norm, q_norm, options.tolerance)) {
        const FrictionContactResiduals measured = measure(candidate, cv, cu);
        // Auto's judgement (friction_contact.cpp, judge_point): within the tolerance, and no
        // contact approaching faster than √tol · max(‖q‖∞, ‖u‖∞).
        const double approach = std::max(approach_scale, std::sqrt(options.tolerance) * cu.lpNorm<Eigen::Infinity>());
        if (measured.relative_error <= options.tolerance && !(measured.signorini > approach)) {
          r.swap(candidate);
          v.swap(cv);
          u.swap(cu);
          residuals = measured;
          if (options.record_history) result.history.push_back(measured.relative_error);
          return finish_with(Status::Solved, sweep,
                             "relative error " + number_text(measured.relative_error) + " after " +
                                 std::to_string(sweep) +
                                 " sweeps and a solve on the contacts' statuses (on the factors of W)" +
                                 failures_note(failures));
        }
      }
    }
    checked.swap(statuses);
    return std::nullopt;
  };
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
      if constexpr (D == 2) {
        if (omega == 1.0 && paired[static_cast<std::size_t>(i)]) {
          failures += paired_contact_update(i, ri) ? 0 : 1;
          continue;
        }
      }
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
    // With the status solve, whose statuses are read after every sweep, the error is first checked
    // at sweep 4 (not 1 and 2): a point the sweeps settle in one or two has statuses that hold, and
    // the status solve returns it (measured) at sweep 2 or 3. One contact keeps the check at sweep 1:
    // its sweep is its exact local solve.
    const int first_check = by_statuses && nc > 1 ? 4 : 1;
    const bool check =
        (sweep < every && power_of_two && sweep >= first_check) || sweep % every == 0 || sweep == limit;
    if constexpr (D == 2) {
      // The status solve looks at the statuses after every sweep, between the error checks too
      // (a set that holds over two sweeps is tried there, not only once two checks agree).
      if (by_statuses && !check) {
        if (std::optional<Result> solved = try_statuses(sweep)) return *std::move(solved);
        continue;
      }
    }
    if (!check) continue;
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
    if constexpr (D == 2) {
      if (by_statuses) {
        if (std::optional<Result> solved = try_statuses(sweep)) return *std::move(solved);
      }
    }
  }
  return finish_with(Status::MaxIterations, limit,
                     "sweep limit " + std::to_string(limit) + " reached at relative error " + number_text(error) +
                         " (on the factors of W)" + failures_note(failures));
}

}  // namespace

Result solve_nsgs_factored(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H, const Eigen::VectorXd& inverse_mass,
                           const FrictionContact& shell, const SolveOptions& options, const Eigen::VectorXd& r0,
                           FrictionContactResiduals& residuals, bool status_solve) {
  // The sweeps read H's compressed arrays (row k is outer[k] .. outer[k + 1]); an H left
  // uncompressed by insert() has free slots there, read as entries. A compressed copy is swept instead.
  if (!H.isCompressed()) {
    RowSparse compressed = H;
    compressed.makeCompressed();
    return solve_nsgs_factored(compressed, inverse_mass, shell, options, r0, residuals, status_solve);
  }
  return shell.dimension == 2 ? nsgs_factored<2>(H, inverse_mass, shell, options, r0, residuals, status_solve)
                              : nsgs_factored<3>(H, inverse_mass, shell, options, r0, residuals, status_solve);
}

}  // namespace perp::detail
