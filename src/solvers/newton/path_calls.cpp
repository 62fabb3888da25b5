// The path method's checked calls of the user's F and J (path_detail.hpp): counted, sizes checked,
// and a non-finite value named with the call and the point, for path.cpp and path_sparse.cpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "path_detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp {

std::string path_detail::point_text(const Eigen::VectorXd& z) {
  constexpr Eigen::Index kShown = 8;
  std::string text = "(";
  for (Eigen::Index i = 0; i < std::min(z.size(), kShown); ++i) text += (i > 0 ? ", " : "") + number_text(z[i]);
  if (z.size() > kShown) text += ", ... " + std::to_string(z.size() - kShown) + " more";
  return text + ")";
}

bool path_detail::user_function(const Mcp& problem, const Eigen::VectorXd& z, Eigen::VectorXd& F, CallLog& log) {
  F = problem.F(z);
  ++log.f_calls;
  if (F.size() != z.size()) {
    throw InvalidProblem("F returned " + std::to_string(F.size()) + " values, expected " + std::to_string(z.size()));
  }
  if (F.allFinite()) return true;
  if (log.first_non_finite_f.empty()) {
    Eigen::Index i = 0;
    while (i + 1 < F.size() && std::isfinite(F[i])) ++i;
    log.first_non_finite_f = "F call " + std::to_string(log.f_calls) + " returned F[" + std::to_string(i) +
                             "] = " + number_text(F[i]) + " at z = " + point_text(z);
  }
  return false;
}

namespace {
std::string non_finite_jacobian(const path_detail::CallLog& log, Eigen::Index row, Eigen::Index col, double value,
                                const Eigen::VectorXd& z) {
  return "J call " + std::to_string(log.j_calls) + " returned J(" + std::to_string(row) + ", " +
         std::to_string(col) + ") = " + number_text(value) + " at z = " + path_detail::point_text(z);
}
}  // namespace

Eigen::MatrixXd path_detail::user_jacobian(const Mcp& problem, const Eigen::VectorXd& z, CallLog& log) {
  Eigen::MatrixXd value = problem.J(z);
  ++log.j_calls;
  if (value.rows() == z.size() && value.cols() == z.size() && !value.allFinite()) {
    for (Eigen::Index j = 0; j < value.cols(); ++j) {
      for (Eigen::Index i = 0; i < value.rows(); ++i) {
        if (!std::isfinite(value(i, j))) throw NonFiniteJacobian(non_finite_jacobian(log, i, j, value(i, j), z));
      }
    }
  }
  // The size check, as everywhere else.
  const JacobianFunction given = [&value](const Eigen::VectorXd&) { return value; };
  return evaluate_jacobian(given, z, "J at an iterate");
}

detail::SparseMatrix path_detail::user_sparse_jacobian(const Mcp& problem, const Eigen::VectorXd& z, CallLog& log) {
  Eigen::SparseMatrix<double> value = problem.J_sparse(z);
  ++log.j_calls;
  if (value.rows() == z.size() && value.cols() == z.size()) {
    for (Eigen::Index j = 0; j < value.outerSize(); ++j) {
      for (Eigen::SparseMatrix<double>::InnerIterator it(value, j); it; ++it) {
        if (!std::isfinite(it.value())) {
          throw NonFiniteJacobian(non_finite_jacobian(log, it.row(), it.col(), it.value(), z));
        }
      }
    }
  }
  const SparseJacobianFunction given = [&value](const Eigen::VectorXd&) { return value; };
  return evaluate_jacobian(given, z, "J at an iterate");
}

}  // namespace perp
