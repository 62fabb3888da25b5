#include "perp/core/residual.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include <string>

#include "perp/core/box_lcp.hpp"
#include "perp/core/error.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/core/ncp_function.hpp"

namespace perp {
namespace {

void require_same_size(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  if (z.size() != w.size()) {
    throw InvalidProblem("z and w must have the same size: got " + std::to_string(z.size()) + " and " +
                         std::to_string(w.size()));
  }
}

// relative_residual(z, F, J, lower, upper): J n×n and the bounds sized n, whatever J's storage.
void require_linearization_sizes(Eigen::Index n, Eigen::Index rows, Eigen::Index cols, const Eigen::VectorXd& lower,
                                 const Eigen::VectorXd& upper) {
  if (rows != n || cols != n || lower.size() != n || upper.size() != n) {
    throw InvalidProblem("relative_residual: J must be " + std::to_string(n) + "x" + std::to_string(n) +
                         " and the bounds sized " + std::to_string(n));
  }
}

}  // namespace

double natural_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  require_same_size(z, w);
  if (z.size() == 0) return 0.0;
  return z.cwiseMin(w).cwiseAbs().maxCoeff();
}

double natural_residual(const Lcp& problem, const Eigen::VectorXd& z) { return natural_residual(z, problem.slack(z)); }

double fischer_burmeister_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  require_same_size(z, w);
  double sum = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const double phi = fischer_burmeister(z[i], w[i]);
    sum += phi * phi;
  }
  return std::sqrt(sum);
}

double complementarity_gap(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  require_same_size(z, w);
  return z.dot(w);
}

double nonnegativity_violation(const Eigen::VectorXd& v) {
  if (v.size() == 0) return 0.0;
  return std::max(0.0, -v.minCoeff());
}

long double w_scale(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& z) {
  const Eigen::Index n = q.size();
  if (n == 0) return 0.0L;
  long double W = 0.0L;
  for (Eigen::Index i = 0; i < n; ++i) W = std::max(W, std::fabs(static_cast<long double>(q[i])));
  if (W > 0.0L) return W;
  // q = 0: the problem is homogeneous; the terms of M z are the only scale.
  std::vector<long double> row(static_cast<std::size_t>(n), 0.0L);
  for (Eigen::Index j = 0; j < M.cols() && j < z.size(); ++j) {
    const long double zj = std::fabs(static_cast<long double>(z[j]));
    if (zj == 0.0L) continue;
    for (Eigen::Index i = 0; i < n; ++i) {
      row[static_cast<std::size_t>(i)] += std::fabs(static_cast<long double>(M(i, j))) * zj;
    }
  }
  return *std::max_element(row.begin(), row.end());
}

long double z_scale(const Eigen::VectorXd& z, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi) {
  long double Z = 0.0L;
  for (Eigen::Index i = 0; i < z.size(); ++i) Z = std::max(Z, std::fabs(static_cast<long double>(z[i])));
  if (Z > 0.0L) return Z;
  for (Eigen::Index i = 0; i < lo.size(); ++i) {
    if (std::isfinite(lo[i])) Z = std::max(Z, std::fabs(static_cast<long double>(lo[i])));
  }
  for (Eigen::Index i = 0; i < hi.size(); ++i) {
    if (std::isfinite(hi[i])) Z = std::max(Z, std::fabs(static_cast<long double>(hi[i])));
  }
  return Z > 0.0L ? Z : 1.0L;
}

double scaled_natural_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& w, const Eigen::VectorXd& lo,
                               const Eigen::VectorXd& hi, long double Z, long double W) {
  require_same_size(z, w);
  const bool box = lo.size() != 0 || hi.size() != 0;
  if (box && (lo.size() != z.size() || hi.size() != z.size())) {
    throw InvalidProblem("scaled_natural_residual: the bounds must have z's size " + std::to_string(z.size()));
  }
  const auto quotient = [](double x, long double s) -> long double {
    if (x == 0.0) return 0.0L;
    if (s == 0.0L || !std::isfinite(x)) return x > 0 ? HUGE_VALL : -HUGE_VALL;
    return static_cast<long double>(x) / s;
  };
  long double worst = 0.0L;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const long double zs = quotient(z[i], Z);
    const long double ws = quotient(w[i], W);
    long double r;
    if (!box) {
      r = std::fabs(std::min(zs, ws));
    } else {
      const long double l = std::isfinite(lo[i]) ? static_cast<long double>(lo[i]) / Z : lo[i];
      const long double h = std::isfinite(hi[i]) ? static_cast<long double>(hi[i]) / Z : hi[i];
      r = std::fabs(zs - std::min(h, std::max(l, zs - ws)));
    }
    if (!(r <= worst)) worst = r;  // NaN counts as the worst
  }
  return static_cast<double>(worst);
}

double relative_residual(const Lcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  require_same_size(z, w);
  if (z.size() == 0) return 0.0;
  static const Eigen::VectorXd none;
  return scaled_natural_residual(z, w, none, none, z_scale(z, none, none), w_scale(problem.M, problem.q, z));
}

double relative_residual(const BoxLcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  require_same_size(z, w);
  if (z.size() == 0) return 0.0;
  Eigen::VectorXd lo, hi;
  problem.bounds_at(z, lo, hi);
  return scaled_natural_residual(z, w, lo, hi, z_scale(z, lo, hi), w_scale(problem.M, problem.q, z));
}

double relative_residual(const Mlcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  require_same_size(z, w);
  if (z.size() == 0) return 0.0;
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  Eigen::VectorXd lo(n + m), hi(n + m);
  lo.head(n).setConstant(-std::numeric_limits<double>::infinity());
  lo.tail(m).setZero();
  hi.setConstant(std::numeric_limits<double>::infinity());
  return scaled_natural_residual(z, w, lo, hi, z_scale(z, Eigen::VectorXd(), Eigen::VectorXd()),
                                 w_scale(problem.matrix(), problem.offset(), z));
}

double relative_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::MatrixXd& J,
                         const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  require_same_size(z, F);
  const Eigen::Index n = z.size();
  if (n == 0) return 0.0;
  require_linearization_sizes(n, J.rows(), J.cols(), lower, upper);
  // The linearization F(z) = J z + (F(z) − J z): F(z) − J z plays the part of q (and the terms
  // of J z that of M z's when it vanishes).
  long double W = 0.0L, homogeneous = 0.0L;
  for (Eigen::Index i = 0; i < n; ++i) {
    long double product = 0.0L, size = 0.0L;
    for (Eigen::Index j = 0; j < n; ++j) {
      const long double term = static_cast<long double>(J(i, j)) * static_cast<long double>(z[j]);
      product += term;
      size += std::fabs(term);
    }
    W = std::max(W, std::fabs(static_cast<long double>(F[i]) - product));
    homogeneous = std::max(homogeneous, size);
  }
  if (!(W > 0.0L)) W = homogeneous;
  if (!std::isfinite(W)) return std::numeric_limits<double>::infinity();
  return scaled_natural_residual(z, F, lower, upper, z_scale(z, lower, upper), W);
}

double relative_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::SparseMatrix<double>& J,
                         const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  require_same_size(z, F);
  const Eigen::Index n = z.size();
  if (n == 0) return 0.0;
  require_linearization_sizes(n, J.rows(), J.cols(), lower, upper);
  // As the dense overload, column by column: the row sums accumulate in long double.
  std::vector<long double> product(static_cast<std::size_t>(n), 0.0L), size(static_cast<std::size_t>(n), 0.0L);
  for (Eigen::Index j = 0; j < J.outerSize(); ++j) {
    const long double zj = static_cast<long double>(z[j]);
    for (Eigen::SparseMatrix<double>::InnerIterator it(J, j); it; ++it) {
      const long double term = static_cast<long double>(it.value()) * zj;
      product[static_cast<std::size_t>(it.row())] += term;
      size[static_cast<std::size_t>(it.row())] += std::fabs(term);
    }
  }
  long double W = 0.0L, homogeneous = 0.0L;
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    W = std::max(W, std::fabs(static_cast<long double>(F[i]) - product[k]));
    homogeneous = std::max(homogeneous, size[k]);
  }
  if (!(W > 0.0L)) W = homogeneous;
  if (!std::isfinite(W)) return std::numeric_limits<double>::infinity();
  return scaled_natural_residual(z, F, lower, upper, z_scale(z, lower, upper), W);
}

Residuals residuals(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  return Residuals{natural_residual(z, w), fischer_burmeister_residual(z, w), complementarity_gap(z, w),
                   nonnegativity_violation(z), nonnegativity_violation(w)};
}

Residuals residuals(const Lcp& problem, const Eigen::VectorXd& z) { return residuals(z, problem.slack(z)); }

PairCheck check_complementarity(double z, double w, double tol) {
  if (!(tol >= 0.0)) throw InvalidProblem("tolerance must be >= 0, got " + number_text(tol));
  PairCheck check;
  check.z_nonnegative = z >= -tol;
  check.w_nonnegative = w >= -tol;
  // min(|z|, |w|) <= tol: at least one of the pair vanishes. With z, w >= 0 this is
  // |min(z, w)| <= tol, the componentwise natural residual.
  check.complementary = std::min(std::abs(z), std::abs(w)) <= tol;
  return check;
}

bool ComplementarityCheck::ok() const {
  return std::all_of(pairs.begin(), pairs.end(), [](const PairCheck& p) { return p.ok(); });
}

std::vector<Eigen::Index> ComplementarityCheck::failing() const {
  std::vector<Eigen::Index> indices;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (!pairs[i].ok()) indices.push_back(static_cast<Eigen::Index>(i));
  }
  return indices;
}

std::string ComplementarityCheck::describe() const {
  const auto bad = failing();
  if (bad.empty()) {
    return "all " + std::to_string(pairs.size()) + " pairs satisfy z >= 0, w >= 0, z*w = 0";
  }
  std::string text;
  for (const Eigen::Index i : bad) {
    const PairCheck& p = pairs[static_cast<std::size_t>(i)];
    std::string what;
    auto add = [&what](const char* s) {
      if (!what.empty()) what += ", ";
      what += s;
    };
    if (!p.z_nonnegative) add("z < 0");
    if (!p.w_nonnegative) add("w < 0");
    if (!p.complementary) add("z*w != 0");
    if (!text.empty()) text += '\n';
    text += "pair ";
    text += std::to_string(i);
    text += ": ";
    text += what;
  }
  return text;
}

ComplementarityCheck check_complementarity(const Eigen::VectorXd& z, const Eigen::VectorXd& w, double tol) {
  require_same_size(z, w);
  ComplementarityCheck check;
  check.pairs.reserve(static_cast<std::size_t>(z.size()));
  for (Eigen::Index i = 0; i < z.size(); ++i) check.pairs.push_back(check_complementarity(z[i], w[i], tol));
  return check;
}

}  // namespace perp
