// One run of Dantzig's principal pivoting on a box with fixed bounds (dantzig_detail.hpp): the
// clamped and bounded sets, their factor and the ratio test (Baraff 1994, §5).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dantzig_detail.hpp"
#include "entry/detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp::dantzig_detail {
namespace {

using detail::kInfinity;
// Entries of a direction below kNegligible times its scale are round-off of a zero: they take no
// part in the ratio test (a clamped z_i that does not move cannot be the one that hits a bound).
constexpr double kNegligible = 1e-13;
// Indices listed in a message before "…".
constexpr std::size_t kListed = 8;

std::string index_set_text(const std::vector<Eigen::Index>& set) {
  std::string text = "{";
  for (std::size_t k = 0; k < set.size() && k < kListed; ++k) text += (k ? ", " : "") + std::to_string(set[k]);
  if (set.size() > kListed) text += ", ... (" + std::to_string(set.size()) + " indices)";
  return text + "}";
}

}  // namespace

Pivoting::Pivoting(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, bool symmetric, double largest,
                   double pivot_tolerance, int limit)
    : M_(M),
      q_(q),
      n_(q.size()),
      symmetric_(symmetric),
      limit_(limit),
      cholesky_(symmetric ? q.size() : 0),
      coupling_storage_(q.size(), q.size()),
      coupling_(coupling_storage_.matrix()),
      w_(q.size()),
      x_(q.size()),
      y_(q.size()),
      rhs_(q.size()),
      dw_(q.size()),
      y_driving_(q.size()),
      bounded_w_(q.size()),
      bounded_sign_(q.size()),
      states_(static_cast<std::size_t>(q.size())) {
  const double diagonal = n_ > 0 ? M.diagonal().cwiseAbs().maxCoeff() : 0.0;
  pivot_floor_ = pivot_tolerance * diagonal;
  m_scale_ = largest;
}

PassOutcome Pivoting::run(Eigen::VectorXd& lower, Eigen::VectorXd& upper, Eigen::VectorXd& z,
                          const std::vector<Eigen::Index>& order, const std::vector<FrictionCoupling>& friction,
                          bool warm) {
  lo_ = &lower;
  hi_ = &upper;
  if (warm) {
    warm_start(z);
  } else {
    reset();
  }
  PassOutcome out;
  is_coupled_.assign(static_cast<std::size_t>(n_), 0);
  for (const FrictionCoupling& c : friction) is_coupled_[static_cast<std::size_t>(c.index)] = 1;
  bool bounds_read = false;
  for (const Eigen::Index d : order) {
    if (state(d) != IndexState::Unprocessed) continue;
    if (is_coupled_[static_cast<std::size_t>(d)] && !bounds_read) {
      // The first coupled index: every normal has been driven, so the bounds of all coupled
      // indices still to drive are read now, from the normals this run solved. z_i must stay at
      // its start value (the w kept for the processed indices include it), so a bound that would
      // exclude it is widened to it for this run only; the next run re-reads it.
      for (const FrictionCoupling& c : friction) {
        if (state(c.index) != IndexState::Unprocessed) continue;
        const double bound = c.mu * std::abs(z[c.normal]);
        upper[c.index] = std::max(bound, z[c.index]);
        lower[c.index] = std::min(-bound, z[c.index]);
      }
      bounds_read = true;
    }
    if (lower[d] == upper[d]) {
      z[d] = lower[d];
      state(d) = IndexState::Fixed;
      continue;
    }
    // w_d afresh from z (its stale value was never updated); a column is contiguous.
    w_[d] = (symmetric_ ? M_.col(d).dot(z) : M_.row(d).dot(z)) + q_[d];
    if (!drive(d, z, out)) return out;
  }
  refine(z);
  return out;
}

double Pivoting::solve_clamped(Eigen::Index i, bool need_x) {
  const auto m = static_cast<Eigen::Index>(clamped_.size());
  for (Eigen::Index k = 0; k < m; ++k) rhs_[k] = M_(clamped_[static_cast<std::size_t>(k)], i);
  if (symmetric_) {
    y_.head(m) = rhs_.head(m);
    cholesky_.forward(y_);
    if (need_x) {
      x_.head(m) = y_.head(m);
      cholesky_.backward(x_);
    }
    return M_(i, i) - y_.head(m).squaredNorm();
  }
  if (m == 0) return M_(i, i);
  if (!lu_current_) {
    lu_.compute(M_(clamped_, clamped_));
    lu_current_ = true;
  }
  x_.head(m) = lu_.solve(rhs_.head(m));
  if (!x_.head(m).allFinite()) return std::numeric_limits<double>::quiet_NaN();
  double pivot = M_(i, i);
  for (Eigen::Index k = 0; k < m; ++k) pivot -= M_(i, clamped_[static_cast<std::size_t>(k)]) * x_[k];
  return pivot;
}

double Pivoting::solve_from_y(Eigen::Index d) {
  const auto m = static_cast<Eigen::Index>(clamped_.size());
  x_.head(m) = y_.head(m);
  cholesky_.backward(x_);
  return M_(d, d) - y_.head(m).squaredNorm();
}

void Pivoting::add_clamped(Eigen::Index i, double pivot, const Eigen::VectorXd& y) {
  const auto m = static_cast<Eigen::Index>(clamped_.size());
  if (symmetric_) cholesky_.append(y, pivot);
  for (std::size_t r = 0; r < bounded_.size(); ++r) coupling_(static_cast<Eigen::Index>(r), m) = M_(bounded_[r], i);
  clamped_.push_back(i);
  lu_current_ = false;
  state(i) = IndexState::Clamped;
}

void Pivoting::remove_clamped(std::size_t k, double* carry) {
  const auto m = static_cast<Eigen::Index>(clamped_.size());
  const auto position = static_cast<Eigen::Index>(k);
  if (symmetric_) cholesky_.remove(position, carry);
  const auto rows = static_cast<Eigen::Index>(bounded_.size());
  for (Eigen::Index c = position; c + 1 < m; ++c) coupling_.col(c).head(rows) = coupling_.col(c + 1).head(rows);
  clamped_.erase(clamped_.begin() + static_cast<std::ptrdiff_t>(k));
  lu_current_ = false;
}

void Pivoting::add_bounded(Eigen::Index i, IndexState at) {
  const auto r = static_cast<Eigen::Index>(bounded_.size());
  for (std::size_t k = 0; k < clamped_.size(); ++k) coupling_(r, static_cast<Eigen::Index>(k)) = M_(i, clamped_[k]);
  bounded_w_[r] = w_[i];
  bounded_sign_[r] = at == IndexState::AtLower ? 1.0 : -1.0;
  bounded_.push_back(i);
  state(i) = at;
}

void Pivoting::remove_bounded(std::size_t r) {
  const auto last = static_cast<Eigen::Index>(bounded_.size()) - 1;
  const auto m = static_cast<Eigen::Index>(clamped_.size());
  if (static_cast<Eigen::Index>(r) != last) {
    coupling_.row(static_cast<Eigen::Index>(r)).head(m) = coupling_.row(last).head(m);
    bounded_[r] = bounded_.back();
    bounded_w_[static_cast<Eigen::Index>(r)] = bounded_w_[last];
    bounded_sign_[static_cast<Eigen::Index>(r)] = bounded_sign_[last];
  }
  bounded_.pop_back();
}

void Pivoting::subtract_coupling_product(Eigen::Index rows, Eigen::Index m) {
  const double* const A = coupling_.data();
  const Eigen::Index ld = coupling_.rows();
  double* __restrict const dw = dw_.data();
  Eigen::Index k = 0;
  for (; k + 4 <= m; k += 4) {
    const double* __restrict const a0 = A + k * ld;
    const double* __restrict const a1 = a0 + ld;
    const double* __restrict const a2 = a1 + ld;
    const double* __restrict const a3 = a2 + ld;
    const double x0 = x_[k], x1 = x_[k + 1], x2 = x_[k + 2], x3 = x_[k + 3];
    for (Eigen::Index r = 0; r < rows; ++r) dw[r] -= (x0 * a0[r] + x1 * a1[r]) + (x2 * a2[r] + x3 * a3[r]);
  }
  for (; k < m; ++k) {
    const double* __restrict const a0 = A + k * ld;
    const double x0 = x_[k];
    for (Eigen::Index r = 0; r < rows; ++r) dw[r] -= x0 * a0[r];
  }
}

std::string Pivoting::not_p(Eigen::Index i, const char* role, double pivot) const {
  return "pivot on " + std::string(role) + " index " + std::to_string(i) +
         ": M_ii - M_iC inv(M_CC) M_Ci = " + number_text(pivot) +
         " <= 0 with the clamped set C = " + index_set_text(clamped_) + ": M is not a P-matrix on C + {" +
         std::to_string(i) + "} (dantzig needs a P-matrix, e.g. symmetric positive definite)";
}

bool Pivoting::drive(Eigen::Index d, Eigen::VectorXd& z, PassOutcome& out) {
  const Eigen::VectorXd& lo = *lo_;
  const Eigen::VectorXd& hi = *hi_;
  // w_d within round-off of 0 (the size of the terms summed into it) counts as 0 at a bound:
  // driving on its sign alone would pivot on noise, or fail on a zero pivot of a singular M.
  const double w_noise = kNegligible * (std::abs(q_[d]) + m_scale_ * z.lpNorm<1>());
  // Whether y_ already holds L⁻¹ M_Cd for the current C (Cholesky path): after the first step it
  // is updated with the factor in O(|C|) instead of solved again.
  bool y_current = false;
  for (;;) {
    if (z[d] <= lo[d] && w_[d] >= -w_noise) {
      z[d] = lo[d];
      add_bounded(d, IndexState::AtLower);
      return true;
    }
    if (z[d] >= hi[d] && w_[d] <= w_noise) {
      z[d] = hi[d];
      add_bounded(d, IndexState::AtUpper);
      return true;
    }
    const double pivot = y_current ? solve_from_y(d) : solve_clamped(d, true);
    if (std::isnan(pivot) || pivot < -pivot_floor_) {
      out.status = Status::NotApplicable;
      out.message = not_p(d, "driving", pivot);
      return false;
    }
    const bool curved = pivot > pivot_floor_;
    if (w_[d] == 0.0) {  // complementary where it stands, strictly inside its bounds: clamp it
      if (!curved) {
        out.status = Status::NotApplicable;
        out.message = not_p(d, "driving", pivot);
        return false;
      }
      add_clamped(d, pivot, y_);
      return true;
    }
    // Move z_d against the sign of w_d: Δz_d = s, Δz_C = −s x, and on the bounded set N
    // Δw_N = s (M_Nd − M_NC x): one product with the kept block M_NC (w_C stays 0, w_d moves by
    // s·pivot, and the unprocessed w are not needed).
    const double s = w_[d] < 0.0 ? 1.0 : -1.0;
    const auto m = static_cast<Eigen::Index>(clamped_.size());
    const auto rows = static_cast<Eigen::Index>(bounded_.size());
    for (Eigen::Index r = 0; r < rows; ++r) dw_[r] = M_(bounded_[static_cast<std::size_t>(r)], d);
    subtract_coupling_product(rows, m);

    // Ratio test: the first event along the direction.
    double step = kInfinity;
    Event event = Event::None;
    std::size_t who = 0;
    const double target = s > 0.0 ? hi[d] : lo[d];
    if (std::isfinite(target)) {
      step = std::max(0.0, s * (target - z[d]));
      event = Event::DrivenAtBound;
    }
    if (curved) {
      const double t = std::abs(w_[d]) / pivot;
      if (t < step) {
        step = t;
        event = Event::DrivenJoins;
      }
    }
    const double dz_scale = m > 0 ? std::max(1.0, x_.head(m).cwiseAbs().maxCoeff()) : 1.0;
    const double dz_floor = kNegligible * dz_scale;
    // Each candidate's step gap/rate is compared as gap < step·rate (rate > 0) and divided out
    // only when it wins: a division per entry was a fifth of the pivot on large clamped sets.
    for (std::size_t k = 0; k < clamped_.size(); ++k) {
      const Eigen::Index i = clamped_[k];
      const double dz = -s * x_[static_cast<Eigen::Index>(k)];
      double gap = 0;
      double rate = 0;
      if (dz < -dz_floor && lo[i] > -kInfinity) {
        gap = std::max(0.0, z[i] - lo[i]);
        rate = -dz;
      } else if (dz > dz_floor && hi[i] < kInfinity) {
        gap = std::max(0.0, hi[i] - z[i]);
        rate = dz;
      } else {
        continue;
      }
      if (gap < step * rate) {
        step = gap / rate;
        event = Event::ClampedLeaves;
        who = k;
      }
    }
    const double dw_floor = kNegligible * m_scale_ * dz_scale;
    // With σ = +1 at a lower bound and −1 at an upper one, σ w >= 0 and i joins when σ Δw < 0.
    for (Eigen::Index k = 0; k < rows; ++k) {
      const double toward = bounded_sign_[k] * s * dw_[k];
      if (toward >= -dw_floor) continue;
      const double gap = std::max(0.0, bounded_sign_[k] * bounded_w_[k]);
      if (gap < step * -toward) {
        step = gap / -toward;
        event = Event::BoundedJoins;
        who = static_cast<std::size_t>(k);
      }
    }
    if (event == Event::None) {
      out.status = Status::NotApplicable;
      out.message = "index " + std::to_string(d) + ": z_" + std::to_string(d) + " can move without bound while w_" +
                    std::to_string(d) + " = " + number_text(w_[d]) + " stays (pivot " + number_text(pivot) +
                    " with the clamped set C = " + index_set_text(clamped_) +
                    "): M is not a P-matrix and this problem may have no solution";
      return false;
    }
    if (const std::optional<Status> stop = detail::stop_requested()) {
      out.status = *stop;
      out.message = detail::stop_message(*stop, out.pivots, "pivots") + " while driving index " + std::to_string(d);
      return false;
    }
    if (++out.pivots > limit_) {
      out.status = Status::MaxIterations;
      out.message = "pivot limit " + std::to_string(limit_) + " reached while driving index " + std::to_string(d);
      return false;
    }

    if (trace_ != nullptr) trace_pivot(d, event, who, step, out.pivots);

    // The step.
    z[d] += s * step;
    for (std::size_t k = 0; k < clamped_.size(); ++k) {
      z[clamped_[k]] -= s * step * x_[static_cast<Eigen::Index>(k)];
    }
    bounded_w_.head(rows) += (s * step) * dw_.head(rows);
    w_[d] += s * step * (curved ? pivot : 0.0);

    switch (event) {
      case Event::DrivenAtBound:
        z[d] = target;
        add_bounded(d, s > 0.0 ? IndexState::AtUpper : IndexState::AtLower);
        return true;
      case Event::DrivenJoins:
        w_[d] = 0.0;
        add_clamped(d, pivot, y_);  // y_ still holds L⁻¹ M_Cd: C has not changed
        return true;
      case Event::ClampedLeaves: {
        const Eigen::Index i = clamped_[who];
        const bool to_lower = -s * x_[static_cast<Eigen::Index>(who)] < 0.0;
        z[i] = to_lower ? lo[i] : hi[i];
        w_[i] = 0.0;
        remove_clamped(who, y_.data());  // y_ = L⁻¹ M_Cd follows the factor
        y_current = symmetric_;
        add_bounded(i, to_lower ? IndexState::AtLower : IndexState::AtUpper);
        break;
      }
      case Event::BoundedJoins: {
        const Eigen::Index i = bounded_[who];
        w_[i] = 0.0;
        if (symmetric_) y_driving_.head(m) = y_.head(m);
        const double joining = solve_clamped(i, false);  // y_ = L⁻¹ M_Ci, i's row of the factor
        if (std::isnan(joining) || joining <= pivot_floor_) {
          out.status = Status::NotApplicable;
          out.message = not_p(i, "joining", joining);
          return false;
        }
        remove_bounded(who);
        add_clamped(i, joining, y_);
        if (symmetric_) {
          // d's vector gains the entry of i's new row (M_id − y_iᵀ y_d)/√joining; the rest stays.
          const double added = (M_(i, d) - y_.head(m).dot(y_driving_.head(m))) / std::sqrt(joining);
          y_.head(m) = y_driving_.head(m);
          y_[m] = added;
          y_current = true;
        }
        break;
      }
      case Event::None:
        break;
    }
  }
}

void Pivoting::trace_pivot(Eigen::Index d, Event event, std::size_t who, double step, int pivots) {
  TraceEvent e;
  e.method = detail::trace_name(Method::Dantzig);
  e.kind = TraceKind::PrincipalPivot;
  e.iteration = trace_base_ + pivots;
  e.driving = d;
  e.step = step;
  auto size = static_cast<Eigen::Index>(clamped_.size());
  if (event == Event::DrivenJoins) {
    e.entered.push_back(d);
    ++size;
  } else if (event == Event::ClampedLeaves) {
    e.left.push_back(clamped_[who]);
    --size;
  } else if (event == Event::BoundedJoins) {
    e.entered.push_back(bounded_[who]);
    ++size;
  }
  e.active_size = size;
  (*trace_)(e);
}

bool Pivoting::refine(Eigen::VectorXd& z) {
  const auto m = static_cast<Eigen::Index>(clamped_.size());
  residual_ = q_;
  residual_.noalias() += M_ * z;
  if (m == 0) return true;
  for (Eigen::Index k = 0; k < m; ++k) rhs_[k] = residual_[clamped_[static_cast<std::size_t>(k)]];
  if (symmetric_) {
    x_.head(m) = rhs_.head(m);
    cholesky_.forward(x_);
    cholesky_.backward(x_);
  } else {
    if (!lu_current_) {
      lu_.compute(M_(clamped_, clamped_));
      lu_current_ = true;
    }
    x_.head(m) = lu_.solve(rhs_.head(m));
  }
  if (!x_.head(m).allFinite()) return false;
  for (Eigen::Index k = 0; k < m; ++k) {
    const Eigen::Index i = clamped_[static_cast<std::size_t>(k)];
    z[i] -= x_[k];
    residual_.noalias() -= x_[k] * M_.col(i);
  }
  return true;
}

void Pivoting::warm_start(Eigen::VectorXd& z) {
  const Eigen::VectorXd& lo = *lo_;
  const Eigen::VectorXd& hi = *hi_;
  bounded_.clear();
  for (Eigen::Index i = 0; i < n_; ++i) {
    IndexState& s = state(i);
    if (s == IndexState::AtLower && lo[i] > -kInfinity) {
      z[i] = lo[i];
    } else if (s == IndexState::AtUpper && hi[i] < kInfinity) {
      z[i] = hi[i];
    } else if (s != IndexState::Clamped) {
      s = IndexState::Unprocessed;
      z[i] = std::min(std::max(z[i], lo[i]), hi[i]);
    }
  }
  for (;;) {
    if (!refine(z)) {  // M_CC singular (LU path): start this pass afresh
      reset();
      z = z.cwiseMax(lo).cwiseMin(hi);
      return;
    }
    bool dropped = false;
    for (std::size_t k = clamped_.size(); k-- > 0;) {
      const Eigen::Index i = clamped_[k];
      if (z[i] >= lo[i] && z[i] <= hi[i]) continue;
      remove_clamped(k);
      state(i) = IndexState::Unprocessed;
      z[i] = std::min(std::max(z[i], lo[i]), hi[i]);
      dropped = true;
    }
    if (!dropped) break;
  }
  // residual_ holds w at this z: the last refine left it there and dropped nothing after it.
  for (Eigen::Index i = 0; i < n_; ++i) {
    const IndexState s = state(i);
    if (s != IndexState::AtLower && s != IndexState::AtUpper) continue;
    if ((s == IndexState::AtLower) == (residual_[i] >= 0.0)) {
      w_[i] = residual_[i];
      add_bounded(i, s);
    } else {
      state(i) = IndexState::Unprocessed;
    }
  }
}

}  // namespace perp::dantzig_detail
