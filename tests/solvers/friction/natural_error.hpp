#pragma once
// A factored LCP's error recomputed in the tests from a dense N = A M⁻¹ Aᵀ, independently of the
// solvers' own measures (proportioning_test.cpp, crossover_test.cpp).
#include <Eigen/Dense>
#include <algorithm>

namespace perp::detail::test {

/// ‖min(z, N z + c)‖∞ / max(1, ‖c‖∞), with N formed densely here.
inline double natural_error(const Eigen::MatrixXd& A, const Eigen::VectorXd& inverse_mass, const Eigen::VectorXd& c,
                            const Eigen::VectorXd& z) {
  const Eigen::MatrixXd N = A * inverse_mass.asDiagonal() * A.transpose();
  const Eigen::VectorXd w = N * z + c;
  return z.cwiseMin(w).cwiseAbs().maxCoeff() / std::max(1.0, c.cwiseAbs().maxCoeff());
}

}  // namespace perp::detail::test
