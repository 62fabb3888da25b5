// Implicit differentiation of box-constrained affine complementarity solutions (docs/sensitivity.md).
//
// The kernel sees w = K z + c, lower <= z <= upper, some components coupled to a normal j by the
// bounds ∓μ|z_j|. Perturbing the data by (p = dK z + dc, d lower, d upper, dμ) moves z by dz:
//   - a free component keeps dw_i = (K dz + p)_i = 0           (a row of the reduced system);
//   - a component at a fixed bound follows it: dz_i = d bound_i (known);
//   - a coupled component at its bound follows its normal:
//       dz_i = s (μ_i sgn(z_j) dz_j + |z_j| dμ_i),  s = +1 at the upper bound, −1 at the lower.
// Substituting the known and the coupled components into the free rows leaves one square system
// G dz_P = rhs on the free set P; G is factored once and serves jvp (G⁻¹) and vjp (G⁻ᵀ).
//
// This file holds that kernel (detail::BoxSensitivity); sensitivity.cpp the per-type adapters
// (LCP, box LCP, MLCP, QP, 2-D frictional contact) that build K, w, z and the bounds from a
// problem and map their perturbations to p.

#include "perp/solvers/sensitivity.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/box_lcp.hpp"

namespace perp {

const char* to_string(ComponentState state) {
  switch (state) {
    case ComponentState::Free: return "free";
    case ComponentState::AtLower: return "at-lower";
    case ComponentState::AtUpper: return "at-upper";
    case ComponentState::DegenerateLower: return "degenerate-lower";
    case ComponentState::DegenerateUpper: return "degenerate-upper";
  }
  return "unknown";
}

namespace {

bool is_degenerate(ComponentState s) {
  return s == ComponentState::DegenerateLower || s == ComponentState::DegenerateUpper;
}
bool at_upper(ComponentState s) { return s == ComponentState::AtUpper || s == ComponentState::DegenerateUpper; }

}  // namespace

namespace detail {

BoxSensitivity::BoxSensitivity(const Eigen::MatrixXd& K, const Eigen::VectorXd& w, const Eigen::VectorXd& z,
                               const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                               const std::vector<Eigen::Index>& coupled_normal, const Eigen::VectorXd& coupled_mu,
                               double scale_w, const SensitivityOptions& options)
    : K_(K), z_(z), w_(w), normal_(coupled_normal), mu_(coupled_mu) {
  const Eigen::Index n = z.size();
  const double tol = options.tolerance;
  const double Z = n > 0 ? z.cwiseAbs().maxCoeff() : 0.0;
  const double W = std::max(scale_w, n > 0 ? w.cwiseAbs().maxCoeff() : 0.0);
  states_.assign(static_cast<std::size_t>(n), ComponentState::Free);
  for (Eigen::Index i = 0; i < n; ++i) {
    double lo = lower(i), hi = upper(i);
    if (normal_[static_cast<std::size_t>(i)] >= 0) {
      const double bound = mu_(i) * std::abs(z(normal_[static_cast<std::size_t>(i)]));
      lo = -bound;
      hi = bound;
    }
    const auto near = [&](double bound) {
      return std::isfinite(bound) && std::abs(z(i) - bound) <= tol * std::max(Z, std::abs(bound));
    };
    const bool at_lo = near(lo), at_hi = near(hi);
    const bool w_zero = std::abs(w(i)) <= tol * W;
    ComponentState state = ComponentState::Free;
    if (at_lo && at_hi) {
      state = w_zero ? ComponentState::DegenerateLower : (w(i) > 0 ? ComponentState::AtLower : ComponentState::AtUpper);
    } else if (at_lo) {
      state = w(i) > tol * W ? ComponentState::AtLower : ComponentState::DegenerateLower;
    } else if (at_hi) {
      state = w(i) < -tol * W ? ComponentState::AtUpper : ComponentState::DegenerateUpper;
    }
    states_[static_cast<std::size_t>(i)] = state;
    if (is_degenerate(state)) ++degenerate_count_;
  }

  rule_degenerate_ = options.degenerate;
  system_ = membership(rule_degenerate_ == DegenerateRule::Free);
  const Eigen::Index m = static_cast<Eigen::Index>(system_.primary.size());
  if (m > kSensitivityDenseLimit) {
    throw InvalidProblem("sensitivity: " + std::to_string(m) + " free components exceed the dense limit of " +
                         std::to_string(kSensitivityDenseLimit));
  }
  if (m > 0) {
    const Eigen::MatrixXd G = reduced_matrix(system_);
    lu_.compute(G);
    rcond_ = lu_.rcond();
    // The estimate alone misses an exact zero pivot (two corners of a flat box sticking: G is
    // singular, the estimate may still read 0.19, and the transposed solve gives NaN): a pivot at
    // round-off relative to the largest makes G singular too.
    const Eigen::VectorXd pivots = lu_.matrixLU().diagonal().cwiseAbs();
    const double limit = static_cast<double>(m) * std::numeric_limits<double>::epsilon();
    invertible_ = std::isfinite(rcond_) && rcond_ > limit && pivots.minCoeff() > limit * pivots.maxCoeff();
    if (!invertible_ && std::isfinite(rcond_)) rcond_ = std::min(rcond_, pivots.minCoeff() / pivots.maxCoeff());
    if (!invertible_ && options.minimum_norm) {
      // A rank decision at round-off relative to G's largest entry.
      const double threshold = static_cast<double>(m) * std::numeric_limits<double>::epsilon() * 1e3;
      pinv_.setThreshold(threshold);
      pinv_transpose_.setThreshold(threshold);
      pinv_.compute(G);
      pinv_transpose_.compute(G.transpose());
      use_pinv_ = true;
    }
  }

  minimum_norm_ = options.minimum_norm;
  if (degenerate_count_ > 0 && invertible_) check_local_uniqueness(tol);

  int free_count = 0, bound_count = 0;
  for (ComponentState s : states_) {
    if (s == ComponentState::Free) ++free_count;
    if (s == ComponentState::AtLower || s == ComponentState::AtUpper) ++bound_count;
  }
  rule_ = std::to_string(free_count) + " free, " + std::to_string(bound_count) + " at a bound, " +
          std::to_string(degenerate_count_) + " degenerate";
  if (degenerate_count_ > 0) {
    rule_ += rule_degenerate_ == DegenerateRule::Bound
                 ? " (taken at their bounds: the derivative of the piece where they stay inactive)"
                 : " (taken as free: the derivative of the piece where they leave their bounds)";
  }
  rule_ += invertible_ ? "; the reduced system is nonsingular (reciprocal condition " + number_text(rcond_) + ")"
                       : "; the reduced system is singular (reciprocal condition " + number_text(rcond_) +
                             "): z is not locally unique, so it has no derivative here";
  if (use_pinv_) {
    rule_ += "; the minimum-norm solution of the reduced system is used (rank " + std::to_string(pinv_.rank()) +
             " of " + std::to_string(m) + ")";
  }
  if (!locally_unique_) {
    rule_ += "; but z is not locally unique: " + uniqueness_ + ", so it has no derivative here";
    if (minimum_norm_) rule_ += " (minimum_norm: jvp and vjp still give the element named above)";
  }
}

BoxSensitivity::System BoxSensitivity::directional_system() const {
  const Eigen::Index n = z_.size();
  System system;
  system.position.assign(static_cast<std::size_t>(n), -1);
  system.kind.assign(static_cast<std::size_t>(n), Kind::Known);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ComponentState s = states_[static_cast<std::size_t>(i)];
    const bool coupled = normal_[static_cast<std::size_t>(i)] >= 0;
    const bool primary = s == ComponentState::Free || (is_degenerate(s) && !coupled) ||
                         (is_degenerate(s) && coupled && rule_degenerate_ == DegenerateRule::Free);
    if (primary) {
      system.position[static_cast<std::size_t>(i)] = static_cast<Eigen::Index>(system.primary.size());
      system.primary.push_back(i);
      system.kind[static_cast<std::size_t>(i)] = Kind::Primary;
    } else if (coupled && z_(normal_[static_cast<std::size_t>(i)]) != 0) {
      system.kind[static_cast<std::size_t>(i)] = Kind::Coupled;
      system.coupled.push_back(i);
    }
  }
  return system;
}

// The directional problem is the box LCP G y = rhs on the free components F (two-sided infinite
// bounds) and the degenerate ones D (one-sided). It has exactly one solution for every rhs, and
// the solution map is locally unique and Lipschitz (strongly regular), iff G_FF is nonsingular and
// S = G_DD − G_DF G_FF⁻¹ G_FD is a P-matrix. P is decided by S + Sᵀ positive definite (sufficient)
// or, for |D| <= 12, by every principal minor; a larger D whose symmetric part is not positive
// definite is reported undecided (and not claimed unique).
void BoxSensitivity::check_local_uniqueness(double tolerance) {
  const System system = directional_system();
  std::vector<Eigen::Index> f, d;  // positions in system.primary
  for (std::size_t a = 0; a < system.primary.size(); ++a) {
    (states_[static_cast<std::size_t>(system.primary[a])] == ComponentState::Free ? f : d)
        .push_back(static_cast<Eigen::Index>(a));
  }
  if (d.empty()) return;
  const Eigen::MatrixXd G = reduced_matrix(system);
  const double scale = std::max(G.cwiseAbs().maxCoeff(), std::numeric_limits<double>::min());
  const auto block = [&G](const std::vector<Eigen::Index>& rows, const std::vector<Eigen::Index>& cols) {
    Eigen::MatrixXd out(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      for (std::size_t c = 0; c < cols.size(); ++c) {
        out(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = G(rows[r], cols[c]);
      }
    }
    return out;
  };
  const auto names = [&](const std::vector<Eigen::Index>& positions) {
    std::string text;
    for (const Eigen::Index a : positions) {
      text += (text.empty() ? "z[" : ", z[") + std::to_string(system.primary[static_cast<std::size_t>(a)]) + "]";
    }
    return text;
  };
  Eigen::MatrixXd S = block(d, d);
  if (!f.empty()) {
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(block(f, f));
    const Eigen::VectorXd pivots = lu.matrixLU().diagonal().cwiseAbs();
    const double limit = static_cast<double>(f.size()) * std::numeric_limits<double>::epsilon();
    if (!(pivots.minCoeff() > limit * pivots.maxCoeff())) {
      locally_unique_ = false;
      uniqueness_ = "with the degenerate components free the block of the free ones is singular";
      return;
    }
    S -= block(d, f) * lu.solve(block(f, d));
  }
  const Eigen::Index k = S.rows();
  const double floor = tolerance * scale;
  const Eigen::MatrixXd symmetric = 0.5 * (S + S.transpose()) - floor * Eigen::MatrixXd::Identity(k, k);
  if (Eigen::LLT<Eigen::MatrixXd>(symmetric).info() == Eigen::Success) return;  // positive definite: P
  constexpr Eigen::Index kMinorLimit = 12;
  if (k > kMinorLimit) {
    locally_unique_ = false;
    uniqueness_ = "undecided: the Schur complement of the free block on the " + std::to_string(k) +
                  " degenerate components is not positive definite, and more than " + std::to_string(kMinorLimit) +
                  " are too many to check every principal minor for a P-matrix";
    return;
  }
  // Every principal minor, smallest subsets first (a witness of the least size).
  for (Eigen::Index size = 1; size <= k; ++size) {
    for (unsigned mask = 1; mask < (1u << k); ++mask) {
      if (std::popcount(mask) != size) continue;
      std::vector<Eigen::Index> subset;
      for (Eigen::Index i = 0; i < k; ++i) {
        if (mask & (1u << i)) subset.push_back(i);
      }
      Eigen::MatrixXd minor(size, size);
      for (Eigen::Index r = 0; r < size; ++r) {
        for (Eigen::Index c = 0; c < size; ++c) minor(r, c) = S(subset[static_cast<std::size_t>(r)], subset[static_cast<std::size_t>(c)]);
      }
      const double det = minor.determinant();
      if (det <= floor * std::pow(scale, static_cast<double>(size - 1))) {
        std::vector<Eigen::Index> degenerate;
        for (const Eigen::Index i : subset) degenerate.push_back(d[static_cast<std::size_t>(i)]);
        locally_unique_ = false;
        uniqueness_ = "the Schur complement S of the free block on the degenerate components is not a P-matrix "
                      "(its principal minor at " +
                      names(degenerate) + " is " + number_text(det) +
                      ", so nearby problems have several solutions or none)";
        return;
      }
    }
  }
}

BoxSensitivity::System BoxSensitivity::membership(bool degenerate_free) const {
  const Eigen::Index n = z_.size();
  System system;
  system.position.assign(static_cast<std::size_t>(n), -1);
  system.kind.assign(static_cast<std::size_t>(n), Kind::Known);
  for (Eigen::Index i = 0; i < n; ++i) {
    const ComponentState s = states_[static_cast<std::size_t>(i)];
    const bool free = s == ComponentState::Free || (degenerate_free && is_degenerate(s));
    if (free) {
      system.position[static_cast<std::size_t>(i)] = static_cast<Eigen::Index>(system.primary.size());
      system.primary.push_back(i);
      system.kind[static_cast<std::size_t>(i)] = Kind::Primary;
    } else if (normal_[static_cast<std::size_t>(i)] >= 0 && z_(normal_[static_cast<std::size_t>(i)]) != 0) {
      system.kind[static_cast<std::size_t>(i)] = Kind::Coupled;
      system.coupled.push_back(i);
    }
  }
  return system;
}

double BoxSensitivity::coupling_sign(Eigen::Index c) const {
  return at_upper(states_[static_cast<std::size_t>(c)]) ? 1.0 : -1.0;
}

// a_c = s μ sgn(z_j): dz_c = a_c dz_j + s |z_j| dμ_c.
double BoxSensitivity::coupling_slope(Eigen::Index c) const {
  const Eigen::Index j = normal_[static_cast<std::size_t>(c)];
  return coupling_sign(c) * mu_(c) * (z_(j) > 0 ? 1.0 : -1.0);
}

Eigen::MatrixXd BoxSensitivity::reduced_matrix(const System& system) const {
  const Eigen::Index m = static_cast<Eigen::Index>(system.primary.size());
  Eigen::MatrixXd G(m, m);
  for (Eigen::Index b = 0; b < m; ++b) {
    for (Eigen::Index a = 0; a < m; ++a) G(a, b) = K_(system.primary[static_cast<std::size_t>(a)], system.primary[static_cast<std::size_t>(b)]);
  }
  for (Eigen::Index c : system.coupled) {
    const Eigen::Index j = normal_[static_cast<std::size_t>(c)];
    const Eigen::Index col = system.position[static_cast<std::size_t>(j)];
    if (col < 0) continue;
    const double slope = coupling_slope(c);
    for (Eigen::Index a = 0; a < m; ++a) G(a, col) += K_(system.primary[static_cast<std::size_t>(a)], c) * slope;
  }
  return G;
}

// dz of the known and coupled components given dz on the primaries (`primary_dz`, may be empty
// before the solve: then only the known ones are filled and the coupled ones hold their
// constant part).
void BoxSensitivity::fill_dependent(const System& system, const Eigen::VectorXd& dlower, const Eigen::VectorXd& dupper,
                                    const Eigen::VectorXd& dmu, Eigen::VectorXd& dz) const {
  const Eigen::Index n = z_.size();
  for (Eigen::Index i = 0; i < n; ++i) {
    if (system.kind[static_cast<std::size_t>(i)] != Kind::Known) continue;
    const ComponentState s = states_[static_cast<std::size_t>(i)];
    if (normal_[static_cast<std::size_t>(i)] >= 0) {
      dz(i) = 0;  // bounds ∓μ|z_j| with z_j = 0: they move only at second order
    } else {
      dz(i) = at_upper(s) ? dupper(i) : dlower(i);
    }
  }
  for (Eigen::Index c : system.coupled) {
    const Eigen::Index j = normal_[static_cast<std::size_t>(c)];
    dz(c) = coupling_slope(c) * dz(j) + coupling_sign(c) * std::abs(z_(j)) * dmu(c);
  }
}

Eigen::VectorXd BoxSensitivity::right_side(const System& system, const Eigen::VectorXd& p, const Eigen::VectorXd& dz) const {
  // rhs = −p_P − K_{P, not P} dz_{not P}, where the coupled dz hold only their constant part
  // when their normal is primary (its slope part is inside G).
  const Eigen::Index m = static_cast<Eigen::Index>(system.primary.size());
  Eigen::VectorXd rhs(m);
  for (Eigen::Index a = 0; a < m; ++a) rhs(a) = -p(system.primary[static_cast<std::size_t>(a)]);
  for (Eigen::Index k = 0; k < z_.size(); ++k) {
    if (system.kind[static_cast<std::size_t>(k)] == Kind::Primary || dz(k) == 0) continue;
    for (Eigen::Index a = 0; a < m; ++a) rhs(a) -= K_(system.primary[static_cast<std::size_t>(a)], k) * dz(k);
  }
  return rhs;
}

void BoxSensitivity::require_invertible() const {
  if (!invertible_ && !use_pinv_) throw InvalidProblem("sensitivity: " + rule_);
  if (!locally_unique_ && !minimum_norm_) throw InvalidProblem("sensitivity: " + rule_);
}

Eigen::VectorXd BoxSensitivity::jvp(const Eigen::VectorXd& p, const Eigen::VectorXd& dlower,
                                    const Eigen::VectorXd& dupper, const Eigen::VectorXd& dmu) const {
  require_invertible();
  const Eigen::Index n = z_.size();
  Eigen::VectorXd dz = Eigen::VectorXd::Zero(n);
  // Coupled components whose normal is primary: constant part first (slope part lives in G).
  fill_dependent(system_, dlower, dupper, dmu, dz);
  for (Eigen::Index c : system_.coupled) {
    const Eigen::Index j = normal_[static_cast<std::size_t>(c)];
    if (system_.kind[static_cast<std::size_t>(j)] == Kind::Primary) {
      dz(c) = coupling_sign(c) * std::abs(z_(j)) * dmu(c);
    }
  }
  if (!system_.primary.empty()) {
    const Eigen::VectorXd rhs = right_side(system_, p, dz);
    const Eigen::VectorXd y = use_pinv_ ? Eigen::VectorXd(pinv_.solve(rhs)) : Eigen::VectorXd(lu_.solve(rhs));
    for (std::size_t a = 0; a < system_.primary.size(); ++a) dz(system_.primary[a]) = y(static_cast<Eigen::Index>(a));
  }
  fill_dependent(system_, dlower, dupper, dmu, dz);  // the coupled ones again, now with their normals
  return dz;
}

BoxSensitivity::Adjoint BoxSensitivity::vjp(const Eigen::VectorXd& z_bar) const {
  require_invertible();
  const Eigen::Index n = z_.size();
  require_size(z_bar, n, "z_bar");
  require_finite(z_bar, "z_bar");
  const Eigen::Index m = static_cast<Eigen::Index>(system_.primary.size());
  Adjoint adj{Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n)};

  // Adjoint of the primaries: their own z̄ plus what the coupled components' outputs carry.
  Eigen::VectorXd y_bar(m);
  for (Eigen::Index a = 0; a < m; ++a) y_bar(a) = z_bar(system_.primary[static_cast<std::size_t>(a)]);
  for (Eigen::Index c : system_.coupled) {
    const Eigen::Index col = system_.position[static_cast<std::size_t>(normal_[static_cast<std::size_t>(c)])];
    if (col >= 0) y_bar(col) += z_bar(c) * coupling_slope(c);
  }
  Eigen::VectorXd lambda;
  if (m > 0)
    lambda = use_pinv_ ? Eigen::VectorXd(pinv_transpose_.solve(y_bar)) : Eigen::VectorXd(lu_.transpose().solve(y_bar));

  // K_{P,k}ᵀ λ for every column k.
  const auto column_dot = [&](Eigen::Index k) {
    double sum = 0;
    for (Eigen::Index a = 0; a < m; ++a) sum += K_(system_.primary[static_cast<std::size_t>(a)], k) * lambda(a);
    return sum;
  };
  for (Eigen::Index a = 0; a < m; ++a) adj.p(system_.primary[static_cast<std::size_t>(a)]) = -lambda(a);

  // g_k: the adjoint of dz_k for every non-primary component.
  Eigen::VectorXd g = Eigen::VectorXd::Zero(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    if (system_.kind[static_cast<std::size_t>(k)] != Kind::Primary) g(k) = z_bar(k) - column_dot(k);
  }
  for (Eigen::Index c : system_.coupled) {
    const Eigen::Index j = normal_[static_cast<std::size_t>(c)];
    adj.mu(c) = g(c) * coupling_sign(c) * std::abs(z_(j));
    if (system_.kind[static_cast<std::size_t>(j)] == Kind::Known) g(j) += g(c) * coupling_slope(c);
  }
  for (Eigen::Index k = 0; k < n; ++k) {
    if (system_.kind[static_cast<std::size_t>(k)] != Kind::Known || normal_[static_cast<std::size_t>(k)] >= 0) continue;
    (at_upper(states_[static_cast<std::size_t>(k)]) ? adj.upper : adj.lower)(k) = g(k);
  }
  return adj;
}

BoxSensitivity::Directional BoxSensitivity::directional(const Eigen::VectorXd& p, const Eigen::VectorXd& dlower,
                                                        const Eigen::VectorXd& dupper) const {
  const Eigen::Index n = z_.size();
  Directional out;
  if (!locally_unique_ || (!invertible_ && !use_pinv_)) {
    // No derivative to report: no numbers, the status and the reason instead.
    out.solve.status = Status::NotApplicable;
    out.solve.message = "no directional derivative: " + (locally_unique_ ? rule_ : uniqueness_);
    out.solve.method = Method::Auto;
    return out;
  }
  if (degenerate_count_ == 0) {
    out.dz = jvp(p, dlower, dupper, Eigen::VectorXd::Zero(n));
    out.solve.status = Status::Solved;
    out.solve.z = out.dz;
    out.solve.message = "no degenerate component: the derivative is the unique one";
    out.solve.method = Method::Auto;  // answered without running a method, as auto does for z = 0
    return out;
  }
  // Non-coupled degenerate components join the primaries with one-sided bounds; coupled degenerate
  // ones follow the rule (their bound moves with the normal, not a box bound).
  const System system = directional_system();
  const Eigen::VectorXd dmu = Eigen::VectorXd::Zero(n);
  Eigen::VectorXd dz = Eigen::VectorXd::Zero(n);
  fill_dependent(system, dlower, dupper, dmu, dz);
  for (Eigen::Index c : system.coupled) {
    if (system.kind[static_cast<std::size_t>(normal_[static_cast<std::size_t>(c)])] == Kind::Primary) dz(c) = 0;
  }
  BoxLcp local;
  local.M = reduced_matrix(system);
  local.q = -right_side(system, p, dz);
  const Eigen::Index m = local.M.rows();
  const double inf = std::numeric_limits<double>::infinity();
  local.lower = Eigen::VectorXd::Constant(m, -inf);
  local.upper = Eigen::VectorXd::Constant(m, inf);
  for (Eigen::Index a = 0; a < m; ++a) {
    const Eigen::Index i = system.primary[static_cast<std::size_t>(a)];
    const ComponentState s = states_[static_cast<std::size_t>(i)];
    if (s == ComponentState::DegenerateLower) local.lower(a) = dlower(i);
    if (s == ComponentState::DegenerateUpper) local.upper(a) = dupper(i);
  }
  out.solve = solve(local, Method::Auto);
  if (out.solve.status != Status::Solved) return out;  // dz empty: the status says why
  for (Eigen::Index a = 0; a < m; ++a) dz(system.primary[static_cast<std::size_t>(a)]) = out.solve.z(a);
  fill_dependent(system, dlower, dupper, dmu, dz);
  out.dz = dz;
  return out;
}

}  // namespace detail

}  // namespace perp
