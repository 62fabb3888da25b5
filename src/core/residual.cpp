#include "perp/core/residual.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/ncp_function.hpp"

namespace perp {
namespace {

void require_same_size(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  if (z.size() != w.size()) {
    throw InvalidProblem("z and w must have the same size: got " + std::to_string(z.size()) + " and " +
                         std::to_string(w.size()));
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

Residuals residuals(const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  return Residuals{natural_residual(z, w), fischer_burmeister_residual(z, w), complementarity_gap(z, w),
                   nonnegativity_violation(z), nonnegativity_violation(w)};
}

Residuals residuals(const Lcp& problem, const Eigen::VectorXd& z) { return residuals(z, problem.slack(z)); }

PairCheck check_complementarity(double z, double w, double tol) {
  if (!(tol >= 0.0)) throw InvalidProblem("tolerance must be >= 0, got " + std::to_string(tol));
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
