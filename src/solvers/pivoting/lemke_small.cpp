// The small problems of the lean route (lemke_small.hpp): the re-solve on Lemke's final basis and
// auto's principal pivoting, on the stack.

#include "lemke_small.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "block_pivoting.hpp"
#include "entry/detail.hpp"
#include "perp/core/residual.hpp"

namespace perp::detail {
namespace {

// recompute_point on the stack's sizes: w = q + M z a column at a time over the nonzero z_j
// (contiguous in the column-major M; each w_i sums q_i, then its terms in column order), and the
// natural residual of the point. Eigen's product has a fixed cost of about a hundred instructions
// at n = 2, half a pivot of these problems. Where z has a non-finite entry or the point overflows,
// recompute_point itself decides (z = 0 as its fallback).
void recompute_small_point(const Lcp& problem, Result& result) {
  const Eigen::Index n = problem.size();
  if (!result.z.allFinite()) {
    recompute_point(problem, result);
    return;
  }
  result.w = problem.q;
  double* const w = result.w.data();
  for (Eigen::Index j = 0; j < n; ++j) {
    const double zj = result.z[j];
    if (zj == 0.0) continue;
    const double* const column = problem.M.col(j).data();
    for (Eigen::Index i = 0; i < n; ++i) w[i] += column[i] * zj;
  }
  double natural = 0.0;
  bool finite = true;
  for (Eigen::Index i = 0; i < n; ++i) {
    finite = finite && std::isfinite(w[i]);
    natural = std::max(natural, std::abs(std::min(result.z[i], w[i])));
  }
  if (!finite) {
    recompute_point(problem, result);
    return;
  }
  result.residual = natural;
}

}  // namespace

bool solve_small_system(double* a, double* x, Eigen::Index k) {
  const auto at = [&](Eigen::Index i, Eigen::Index j) -> double& { return a[i * k + j]; };
  for (Eigen::Index c = 0; c < k; ++c) {
    Eigen::Index pivot = c;
    for (Eigen::Index i = c + 1; i < k; ++i) {
      if (std::abs(at(i, c)) > std::abs(at(pivot, c))) pivot = i;
    }
    if (!(std::abs(at(pivot, c)) > 0.0)) return false;
    if (pivot != c) {
      for (Eigen::Index j = c; j < k; ++j) std::swap(at(c, j), at(pivot, j));
      std::swap(x[c], x[pivot]);
    }
    for (Eigen::Index i = c + 1; i < k; ++i) {
      if (at(i, c) == 0.0) continue;  // nothing to eliminate (a diagonal or triangular M: most rows)
      const double factor = at(i, c) / at(c, c);
      for (Eigen::Index j = c + 1; j < k; ++j) at(i, j) -= factor * at(c, j);
      x[i] -= factor * x[c];
    }
  }
  for (Eigen::Index i = k - 1; i >= 0; --i) {
    double sum = x[i];
    for (Eigen::Index j = i + 1; j < k; ++j) sum -= at(i, j) * x[j];
    x[i] = sum / at(i, i);
    if (!std::isfinite(x[i])) return false;
  }
  return true;
}

void refine_lemke_small(const Lcp& problem, Result& result) {
  const Eigen::Index n = result.z.size();
  std::array<Eigen::Index, kSmallLcp> active{};
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (result.z[i] > 0.0) active[static_cast<std::size_t>(k++)] = i;
  }
  if (k == 0) return;
  // M_αα (row-major, k×k) and −q_α.
  std::array<double, kSmallLcp * kSmallLcp> a;
  std::array<double, kSmallLcp> x;
  for (Eigen::Index i = 0; i < k; ++i) {
    const Eigen::Index row = active[static_cast<std::size_t>(i)];
    for (Eigen::Index j = 0; j < k; ++j) a[static_cast<std::size_t>(i * k + j)] = problem.M(row, active[static_cast<std::size_t>(j)]);
    x[static_cast<std::size_t>(i)] = -problem.q[row];
  }
  if (!solve_small_system(a.data(), x.data(), k)) return;  // M_αα singular: the pivoted point stays
  // The candidate in the result's own z and w, the pivoted point kept to restore.
  std::array<double, kSmallLcp> z_kept;
  std::array<double, kSmallLcp> w_kept;
  std::copy(result.z.data(), result.z.data() + n, z_kept.data());
  std::copy(result.w.data(), result.w.data() + n, w_kept.data());
  const double residual = result.residual;
  result.z.setZero();
  for (Eigen::Index i = 0; i < k; ++i) result.z[active[static_cast<std::size_t>(i)]] = x[static_cast<std::size_t>(i)];
  recompute_small_point(problem, result);
  if (result.residual > residual) {  // worse: the pivoted point stays
    std::copy(z_kept.data(), z_kept.data() + n, result.z.data());
    std::copy(w_kept.data(), w_kept.data() + n, result.w.data());
    result.residual = residual;
  }
}

double relative_residual_small(const Lcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  const Eigen::Index n = z.size();
  long double W = 0.0L;  // w_scale: max|q_i|, the homogeneous case to relative_residual
  for (Eigen::Index i = 0; i < n; ++i) W = std::max(W, std::fabs(static_cast<long double>(problem.q[i])));
  if (W == 0.0L) return relative_residual(problem, z, w);
  long double Z = 0.0L;  // z_scale without bounds: max|z_i|, else 1
  for (Eigen::Index i = 0; i < n; ++i) Z = std::max(Z, std::fabs(static_cast<long double>(z[i])));
  if (Z == 0.0L) Z = 1.0L;
  // scaled_natural_residual's quotient: exactly 0 for 0, ±HUGE_VALL for a non-finite entry.
  const auto quotient = [](double x, long double s) -> long double {
    if (x == 0.0) return 0.0L;
    if (!std::isfinite(x)) return x > 0 ? HUGE_VALL : -HUGE_VALL;
    return static_cast<long double>(x) / s;
  };
  long double worst = 0.0L;
  for (Eigen::Index i = 0; i < n; ++i) {
    const long double r = std::fabs(std::min(quotient(z[i], Z), quotient(w[i], W)));
    if (!(r <= worst)) worst = r;  // NaN counts as the worst
  }
  return static_cast<double>(worst);
}

namespace {

// The small kernels' verdict on the point in `result` (z, w and residual set): its relative
// residual, and where that is within the tolerance, `result` marked solved by `method` after
// `iterations` with `solved_message`. False leaves the point for the caller to drop.
bool accept_small(const Lcp& problem, const SolveOptions& options, Method method, int iterations,
                  const char* solved_message, Result& result) {
  result.relative_residual = relative_residual_small(problem, result.z, result.w);
  if (!(result.relative_residual <= options.tolerance)) return false;
  result.method = method;
  result.status = Status::Solved;
  result.iterations = iterations;
  result.message = solved_message;
  return true;
}

}  // namespace

bool triangular_sweep_small(const Lcp& problem, const SolveOptions& options, const char* solved_message,
                            Result& result) {
  const Eigen::Index n = problem.size();
  // M lower or upper triangular: the first nonzero entry on the wrong side ends each test.
  const auto zero_where = [&](bool above) {
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::Index i = above ? 0 : j + 1; i < (above ? j : n); ++i) {
        if (problem.M(i, j) != 0.0) return false;
      }
    }
    return true;
  };
  const bool lower = zero_where(true);
  if (!lower && !zero_where(false)) return false;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(problem.M(i, i) > 0.0)) return false;
  }
  // One projected Gauss–Seidel sweep from z = 0, forward on a lower triangular M, backward on an
  // upper one: row i reads only the z_j already final, so z_i = max(0, −(q_i + Σ_j M_ij z_j)/M_ii)
  // is the exact solution; w_i = q_i + Σ_j M_ij z_j, the diagonal term included, is M z + q from the
  // returned z (the terms on the other side are 0).
  result.z.setZero(n);
  result.w.resize(n);
  double natural = 0.0;
  for (Eigen::Index k = 0; k < n; ++k) {
    const Eigen::Index i = lower ? k : n - 1 - k;
    double wi = problem.q[i];
    for (Eigen::Index j = lower ? 0 : i + 1; j < (lower ? i : n); ++j) wi += problem.M(i, j) * result.z[j];
    const double zi = std::max(0.0, -wi / problem.M(i, i));
    wi += problem.M(i, i) * zi;
    result.z[i] = zi;
    result.w[i] = wi;
    natural = std::max(natural, std::abs(std::min(zi, wi)));
  }
  if (!(result.z.allFinite() && result.w.allFinite())) return false;
  result.residual = natural;
  if (!accept_small(problem, options, Method::Pgs, 1, solved_message, result)) return false;
  if (options.trace) {  // pgs.cpp's events: the start point (z = 0), then the sweep
    TraceEvent event;
    event.method = trace_name(Method::Pgs);
    event.kind = TraceKind::Sweep;
    event.active_size = 0;
    event.residual = problem.q.cwiseMin(0.0).cwiseAbs().maxCoeff();
    options.trace(event);
    event.iteration = 1;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (result.z[i] > 0.0) event.entered.push_back(i);
    }
    event.active_size = static_cast<Eigen::Index>(event.entered.size());
    event.residual = natural;
    options.trace(event);
  }
  result.history.clear();
  if (options.record_history) result.history.push_back(natural);
  return true;
}

bool enumerate_small(const Lcp& problem, const SolveOptions& options, const char* solved_message, Result& result) {
  constexpr double kRelativeSign = 1e-12;  // principal_pivot_small's round-off allowance of z's signs
  const Eigen::Index n = problem.size();
  const double M00 = problem.M(0, 0);
  const double q0 = problem.q[0];
  const double M01 = n == 2 ? problem.M(0, 1) : 0.0;
  const double M10 = n == 2 ? problem.M(1, 0) : 0.0;
  const double M11 = n == 2 ? problem.M(1, 1) : 0.0;
  const double q1 = n == 2 ? problem.q[1] : 0.0;
  const double w_slack = options.tolerance * std::max(std::abs(q0), std::abs(q1));
  const unsigned sets = 1u << n;
  for (unsigned set = 0; set < sets; ++set) {  // ∅, {0}, {1}, {0, 1}: by size, then by index
    double z0 = 0.0;
    double z1 = 0.0;
    if (set == 1) {
      if (M00 == 0.0) continue;
      z0 = -q0 / M00;
    } else if (set == 2) {
      if (M11 == 0.0) continue;
      z1 = -q1 / M11;
    } else if (set == 3) {
      // solve_small_system's elimination at 2×2: the larger |M_i0| pivots.
      double a[4] = {M00, M01, M10, M11};
      double x[2] = {-q0, -q1};
      if (!solve_small_system(a, x, 2)) continue;
      z0 = x[0];
      z1 = x[1];
    }
    const double largest = std::max(std::abs(z0), std::abs(z1));
    if (z0 < -kRelativeSign * largest || z1 < -kRelativeSign * largest) continue;
    z0 = std::max(z0, 0.0);
    z1 = std::max(z1, 0.0);
    // w outside α, against the tolerance at q's scale (the relative residual's w term).
    if ((set & 1u) == 0 && q0 + M00 * z0 + M01 * z1 < -w_slack) continue;
    if (n == 2 && (set & 2u) == 0 && q1 + M10 * z0 + M11 * z1 < -w_slack) continue;
    result.z.resize(n);
    result.z[0] = z0;
    if (n == 2) result.z[1] = z1;
    recompute_small_point(problem, result);
    if (!accept_small(problem, options, Method::Enum, static_cast<int>(set) + 1, solved_message, result)) continue;
    result.history.clear();
    return true;
  }
  return false;
}

bool principal_pivot_small(const Lcp& problem, const SolveOptions& options, const char* solved_message,
                           Result& result) {
  constexpr double kRelativeSign = 1e-12;  // round-off allowance of the sign tests (murty.cpp's)
  const Eigen::Index n = problem.size();
  const int limit = std::min(options.iteration_limit(kAutoDirectFlipsPerUnknown * static_cast<int>(n)),
                             kAutoDirectFlipsPerUnknown * static_cast<int>(n));
  const auto at = [](auto& array, Eigen::Index i) -> auto& { return array[static_cast<std::size_t>(i)]; };
  std::array<bool, kSmallLcp> in_alpha;
  std::array<Eigen::Index, kSmallLcp> alpha;
  std::array<Eigen::Index, kSmallLcp> wrong;  // the indices on the wrong side, ascending
  std::array<Eigen::Index, kSmallLcp> wrong_before;
  std::array<double, kSmallLcp * kSmallLcp> a;
  std::array<double, kSmallLcp> x;
  std::array<double, kSmallLcp> z;
  std::array<double, kSmallLcp> w;
  std::array<double, kSmallLcp> terms;  // Σ |terms| of each w_i, the scale of its sign test
  for (Eigen::Index i = 0; i < n; ++i) at(in_alpha, i) = problem.q[i] < 0.0;
  // In the result's own vector, whose storage a solve into a reused Result keeps (solve.hpp).
  std::vector<double>& history = result.history;
  history.clear();
  if (options.record_history) history.reserve(static_cast<std::size_t>(limit) + 1);
  int flips = 0;
  BlockExchange rule(n);  // solve_block_pivoting's exchange rule (block_pivoting.hpp)
  double natural = 0.0;  // the natural residual of the current point
  Eigen::Index moved = 0;  // how many indices moved to reach this point (with a trace: wrong_before)
  while (true) {
    Eigen::Index k = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (at(in_alpha, i)) at(alpha, k++) = i;
    }
    for (Eigen::Index i = 0; i < k; ++i) {
      const Eigen::Index row = at(alpha, i);
      for (Eigen::Index j = 0; j < k; ++j) at(a, i * k + j) = problem.M(row, at(alpha, j));
      at(x, i) = -problem.q[row];
    }
    if (!solve_small_system(a.data(), x.data(), k)) return false;  // M_αα singular
    std::fill(z.begin(), z.begin() + n, 0.0);
    double z_largest = 0.0;
    for (Eigen::Index i = 0; i < k; ++i) {
      at(z, at(alpha, i)) = at(x, i);
      z_largest = std::max(z_largest, std::abs(at(x, i)));
    }
    // The indices on the wrong side, and the natural residual of the point.
    Eigen::Index count = 0;
    natural = 0.0;
    // w = M z + q over the columns of α (z is 0 elsewhere), a column at a time: M is column-major,
    // so the inner loop runs over contiguous entries. Each w_i sums q_i, then the terms in α's
    // order, as a row at a time would.
    for (Eigen::Index i = 0; i < n; ++i) {
      at(w, i) = problem.q[i];
      at(terms, i) = std::abs(problem.q[i]);
    }
    for (Eigen::Index j = 0; j < k; ++j) {
      const double* const column = problem.M.col(at(alpha, j)).data();
      const double xj = at(x, j);
      for (Eigen::Index i = 0; i < n; ++i) {
        const double term = column[i] * xj;
        at(w, i) += term;
        at(terms, i) += std::abs(term);
      }
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const double wi = at(w, i);
      const double zi = at(z, i);
      natural = std::max(natural, std::abs(std::min(zi, wi)));
      if (at(in_alpha, i) ? zi < -kRelativeSign * z_largest : wi < -kRelativeSign * at(terms, i)) {
        at(wrong, count++) = i;
      }
    }
    if (options.record_history) record_history(history, natural);
    if (options.trace) {  // iteration 0: the starting point, its whole set as entered
      TraceEvent event;
      event.method = trace_name(Method::BlockPivoting);
      event.kind = TraceKind::PrincipalPivot;
      event.iteration = flips;
      if (flips == 0) {
        event.entered.assign(alpha.begin(), alpha.begin() + k);
      } else {
        for (Eigen::Index m = 0; m < moved; ++m) {
          const Eigen::Index i = at(wrong_before, m);
          (at(in_alpha, i) ? event.entered : event.left).push_back(i);
        }
      }
      event.active_size = k;
      event.residual = natural;
      options.trace(event);
    }
    if (count == 0) break;
    if (flips >= limit) return false;
    // Every wrong index moves across while that lowers their count, or for kBlockStrikes flips
    // that do not; then the least one alone (Murty's rule) until the count falls below its best.
    moved = rule.moved(count);
    for (Eigen::Index m = 0; m < moved; ++m) {
      at(in_alpha, at(wrong, m)) = !at(in_alpha, at(wrong, m));
      if (options.trace) at(wrong_before, m) = at(wrong, m);
    }
    ++flips;
  }
  // z_α within round-off of the orthant, clipped onto it. w = M z + q as computed above, from this
  // very z unless an entry was clipped; then w and the natural residual are recomputed.
  result.z.resize(n);
  result.w.resize(n);
  bool clipped = false;
  for (Eigen::Index i = 0; i < n; ++i) {
    clipped = clipped || at(z, i) < 0.0;
    result.z[i] = std::max(at(z, i), 0.0);
    result.w[i] = at(w, i);
  }
  result.residual = natural;
  if (clipped) recompute_small_point(problem, result);
  return accept_small(problem, options, Method::BlockPivoting, flips, solved_message, result);
}

// Up to this size a pivot updates every column of the other rows (lemke_small's pivot).
constexpr Eigen::Index kDirectUpdateSize = 4;

bool lemke_small(const Lcp& problem, const SolveOptions& options, const char* solved_message, Result& result) {
  if (options.trace || options.lemke.covering_vector || !options.lemke.refine) return false;
  const Eigen::Index n = problem.size();
  const Eigen::Index columns = 2 * n + 2;  // w, z, z0, the right-hand side
  const Eigen::Index z0 = 2 * n;
  const Eigen::Index rhs = 2 * n + 1;
  const int limit = options.iteration_limit(default_pivots(n));
  std::array<double, kSmallLcp*(2 * kSmallLcp + 2)> tableau;
  std::array<Eigen::Index, kSmallLcp> basis;           // the variable at each row
  std::array<Eigen::Index, 2 * kSmallLcp + 1> row_of;  // the row of each variable, −1 when nonbasic
  std::array<Eigen::Index, kSmallLcp> candidates{};    // rows still tied in the ratio test
  const auto at = [&](Eigen::Index row, Eigen::Index column) -> double& {
    return tableau[static_cast<std::size_t>(row * columns + column)];
  };
  const auto in_basis = [&](Eigen::Index row) -> Eigen::Index& { return basis[static_cast<std::size_t>(row)]; };
  for (Eigen::Index i = 0; i < n; ++i) {  // [I, −M, −e, q], w basic
    for (Eigen::Index j = 0; j < n; ++j) {
      at(i, j) = i == j ? 1.0 : 0.0;
      at(i, n + j) = -problem.M(i, j);
    }
    at(i, z0) = -1.0;
    at(i, rhs) = problem.q[i];
    in_basis(i) = i;
  }
  std::fill(row_of.begin(), row_of.begin() + 2 * n + 1, Eigen::Index{-1});
  for (Eigen::Index i = 0; i < n; ++i) row_of[static_cast<std::size_t>(i)] = i;
  // The natural residual of the path's point, max_i |min(z_i, w_i)| with w = w_basic − z0·e
  // (lemke.cpp's history): one entry per pivot.
  std::vector<double>& history = result.history;  // the result's own storage, as above
  history.clear();
  if (options.record_history) history.reserve(static_cast<std::size_t>(std::min(limit, 8 * static_cast<int>(n))) + 1);
  const auto record = [&] {
    if (!options.record_history) return;
    const auto value = [&](Eigen::Index v) {
      const Eigen::Index row = row_of[static_cast<std::size_t>(v)];
      return row >= 0 ? at(row, rhs) : 0.0;
    };
    const double t = value(z0);
    double worst = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) worst = std::max(worst, std::abs(std::min(value(n + i), value(i) - t)));
    record_history(history, worst);
  };
  // Among `count` candidate rows, those whose key (x_p, then B⁻¹_p·, over the entering column's
  // entry `column`) is least, ties within 1e-12 of it kept (lemke.cpp's lexicographic minimum).
  const auto lexicographic_minimum = [&](Eigen::Index count, Eigen::Index column) {
    for (Eigen::Index k = -1; k < n && count > 1; ++k) {
      const Eigen::Index key = k < 0 ? rhs : k;
      const auto ratio = [&](Eigen::Index row) { return at(row, key) / at(row, column); };
      double best = ratio(candidates[0]);
      for (Eigen::Index c = 1; c < count; ++c) best = std::min(best, ratio(candidates[static_cast<std::size_t>(c)]));
      const double slack = 1e-12 * std::max(1.0, std::abs(best));
      Eigen::Index kept = 0;
      for (Eigen::Index c = 0; c < count; ++c) {
        const Eigen::Index row = candidates[static_cast<std::size_t>(c)];
        if (ratio(row) <= best + slack) candidates[static_cast<std::size_t>(kept++)] = row;
      }
      if (kept == 0) return Eigen::Index{-1};  // a NaN key
      count = kept;
    }
    return candidates[0];
  };
  const auto pivot = [&](Eigen::Index r, Eigen::Index entering) {
    const double inverse = 1.0 / at(r, entering);
    for (Eigen::Index j = 0; j < columns; ++j) at(r, j) *= inverse;
    at(r, entering) = 1.0;
    // Up to kDirectUpdateSize every column of the few other rows is updated (a zero entry subtracts
    // 0; the entering column is set to 0 after): cheaper than finding the pivot row's nonzeros
    // first. Above it only those columns (B⁻¹'s columns of basic w's are unit vectors: about half).
    const bool direct = n <= kDirectUpdateSize;
    std::array<Eigen::Index, 2 * kSmallLcp + 2> nonzero;
    Eigen::Index count = 0;
    if (!direct) {
      for (Eigen::Index j = 0; j < columns; ++j) {
        if (at(r, j) != 0.0 && j != entering) nonzero[static_cast<std::size_t>(count++)] = j;
      }
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const double factor = at(i, entering);
      if (i == r || factor == 0.0) continue;
      if (direct) {
        for (Eigen::Index j = 0; j < columns; ++j) at(i, j) -= factor * at(r, j);
      } else {
        for (Eigen::Index c = 0; c < count; ++c) {
          const Eigen::Index j = nonzero[static_cast<std::size_t>(c)];
          at(i, j) -= factor * at(r, j);
        }
      }
      at(i, entering) = 0.0;
      at(i, rhs) = std::max(at(i, rhs), 0.0);  // round-off below zero
    }
    const Eigen::Index leaving = in_basis(r);
    in_basis(r) = entering;
    row_of[static_cast<std::size_t>(leaving)] = -1;
    row_of[static_cast<std::size_t>(entering)] = r;
    record();
    return leaving;
  };

  // z0 enters at max_i(−q_i): every row is a candidate, ranked by x_i / d_i = q_i.
  for (Eigen::Index i = 0; i < n; ++i) candidates[static_cast<std::size_t>(i)] = i;
  for (Eigen::Index i = 0; i < n; ++i) at(i, z0) = 1.0;  // d = e for the ranking, −e for the pivot
  Eigen::Index r = lexicographic_minimum(n, z0);
  if (r < 0) return false;
  for (Eigen::Index i = 0; i < n; ++i) at(i, z0) = -1.0;
  Eigen::Index leaving = pivot(r, z0);
  int pivots = 1;
  const Eigen::Index z0_row = r;  // z0 stays in its row until it leaves, which ends the path
  while (leaving != z0) {
    if (pivots >= limit) return false;
    const Eigen::Index entering = leaving < n ? leaving + n : leaving - n;
    double largest = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) largest = std::max(largest, std::abs(at(i, entering)));
    if (!std::isfinite(largest)) return false;
    const double threshold = options.lemke.pivot_tolerance * largest;
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      if (at(i, entering) > threshold) candidates[static_cast<std::size_t>(count++)] = i;
    }
    if (count == 0) return false;  // a secondary ray: solve_lemke tells which and why
    r = -1;
    if (at(z0_row, entering) > threshold) {  // z0 leaves whenever it attains the minimum ratio
      const double own = at(z0_row, rhs) / at(z0_row, entering);
      double best = own;
      for (Eigen::Index c = 0; c < count; ++c) {
        const Eigen::Index row = candidates[static_cast<std::size_t>(c)];
        best = std::min(best, at(row, rhs) / at(row, entering));
      }
      if (own <= best + 1e-12 * std::max(1.0, std::abs(best))) r = z0_row;
    }
    if (r < 0) r = lexicographic_minimum(count, entering);
    if (r < 0) return false;
    leaving = pivot(r, entering);
    ++pivots;
  }
  // z from the basic z's, clipped at 0; w and both residuals from it.
  result.z.setZero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Eigen::Index v = in_basis(i);
    if (v >= n && v < z0) result.z[v - n] = std::max(at(i, rhs), 0.0);
  }
  if (!result.z.allFinite()) return false;
  recompute_small_point(problem, result);
  return accept_small(problem, options, Method::Lemke, pivots, solved_message, result);
}

}  // namespace perp::detail
