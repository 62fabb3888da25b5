#include "perp/core/ncp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"

namespace perp {
namespace {
void require_one_jacobian(bool dense, bool sparse, const char* prefix) {
  if (!dense && !sparse) {
    throw InvalidProblem(std::string(prefix) +
                         "J is empty; set the Jacobian J(z) of F (J for a dense matrix, or J_sparse for a sparse one)");
  }
  if (dense && sparse) {
    throw InvalidProblem(
        std::string(prefix) +
        "both J and J_sparse are set; set exactly one (J for a dense Jacobian, J_sparse for a sparse one)");
  }
}
}  // namespace

void Ncp::validate() const {
  if (n < 0) throw InvalidProblem("Ncp: n must be >= 0, got " + std::to_string(n));
  if (!F) throw InvalidProblem("Ncp: F is empty; set the function F(z)");
  require_one_jacobian(static_cast<bool>(J), static_cast<bool>(J_sparse), "Ncp: ");
}

void Mcp::validate() const {
  if (!F) throw InvalidProblem("Mcp: F is empty; set the function F(z)");
  require_one_jacobian(static_cast<bool>(J), static_cast<bool>(J_sparse), "Mcp: ");
  if (upper.size() != lower.size()) {
    throw InvalidProblem("Mcp: upper has size " + std::to_string(upper.size()) + " but lower has size " +
                         std::to_string(lower.size()) + "; both must have n entries");
  }
  for (Eigen::Index i = 0; i < lower.size(); ++i) require_valid_bounds(lower[i], upper[i], i, "Mcp: ");
}

void require_valid_bounds(double lower, double upper, Eigen::Index i, const char* prefix, bool only_nan) {
  // The index text is built only for a message: formatting it for every i cost more than the
  // checks themselves on a small problem.
  const auto at = [&](const char* bound) { return prefix + std::string(bound) + "[" + std::to_string(i) + "]"; };
  if (std::isnan(lower)) throw InvalidProblem(at("lower") + " is NaN");
  if (std::isnan(upper)) throw InvalidProblem(at("upper") + " is NaN");
  if (only_nan) return;
  if (lower == std::numeric_limits<double>::infinity()) {
    throw InvalidProblem(at("lower") + " is +inf; a lower bound must be finite or -inf");
  }
  if (upper == -std::numeric_limits<double>::infinity()) {
    throw InvalidProblem(at("upper") + " is -inf; an upper bound must be finite or +inf");
  }
  if (lower > upper) {
    throw InvalidProblem(at("lower") + " = " + number_text(lower) + " > upper[" + std::to_string(i) +
                         "] = " + number_text(upper));
  }
}

Mcp to_mcp(const Ncp& problem) {
  problem.validate();
  return Mcp{problem.F, problem.J, Eigen::VectorXd::Zero(problem.n),
             Eigen::VectorXd::Constant(problem.n, std::numeric_limits<double>::infinity()), problem.J_sparse};
}

Eigen::VectorXd evaluate_function(const VectorFunction& F, const Eigen::VectorXd& z, const char* what) {
  Eigen::VectorXd value = F(z);
  if (value.size() != z.size()) {
    throw InvalidProblem(std::string(what) + ": F returned " + std::to_string(value.size()) + " values, expected " +
                         std::to_string(z.size()));
  }
  if (!value.allFinite()) {
    for (Eigen::Index i = 0; i < value.size(); ++i) {
      if (!std::isfinite(value[i])) {
        throw InvalidProblem(std::string(what) + ": F[" + std::to_string(i) + "] is " + number_text(value[i]) +
                             "; F must return finite values");
      }
    }
  }
  return value;
}

Eigen::MatrixXd evaluate_jacobian(const JacobianFunction& J, const Eigen::VectorXd& z, const char* what) {
  Eigen::MatrixXd value = J(z);
  if (value.rows() != z.size() || value.cols() != z.size()) {
    throw InvalidProblem(std::string(what) + ": J returned a " + std::to_string(value.rows()) + "x" +
                         std::to_string(value.cols()) + " matrix, expected " + std::to_string(z.size()) + "x" +
                         std::to_string(z.size()));
  }
  require_finite(value, (std::string(what) + ": J").c_str());
  return value;
}

Eigen::SparseMatrix<double> evaluate_jacobian(const SparseJacobianFunction& J, const Eigen::VectorXd& z,
                                              const char* what) {
  Eigen::SparseMatrix<double> value = J(z);
  if (value.rows() != z.size() || value.cols() != z.size()) {
    throw InvalidProblem(std::string(what) + ": J_sparse returned a " + std::to_string(value.rows()) + "x" +
                         std::to_string(value.cols()) + " matrix, expected " + std::to_string(z.size()) + "x" +
                         std::to_string(z.size()));
  }
  value.makeCompressed();
  for (Eigen::Index j = 0; j < value.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(value, j); it; ++it) {
      if (!std::isfinite(it.value())) {
        throw InvalidProblem(std::string(what) + ": J_sparse(" + std::to_string(it.row()) + ", " +
                             std::to_string(it.col()) + ") is " + number_text(it.value()) +
                             "; J must return finite values");
      }
    }
  }
  return value;
}

double natural_residual(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::VectorXd& lower,
                        const Eigen::VectorXd& upper) {
  if (F.size() != z.size() || lower.size() != z.size() || upper.size() != z.size()) {
    throw InvalidProblem("natural_residual: z, F, lower and upper must have the same size (got " +
                         std::to_string(z.size()) + ", " + std::to_string(F.size()) + ", " +
                         std::to_string(lower.size()) + ", " + std::to_string(upper.size()) + ")");
  }
  double worst = 0.0;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    // |z − mid(l, u, z − F)| by cases, so that |F| is not lost to cancellation when |z| >> |F|.
    const double v = z[i] - F[i];
    const double gap = v <= lower[i] ? z[i] - lower[i] : (v >= upper[i] ? z[i] - upper[i] : F[i]);
    worst = std::max(worst, std::abs(gap));
  }
  return worst;
}

}  // namespace perp
