// Column and row sufficiency (part of classify).
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "classify_parts.hpp"
#include "perp/core/error.hpp"

namespace perp::classify_detail {

// ---------------------------------------------------------------------------------------------
// Column / row sufficiency.

/// From a principal submatrix with a negative determinant: it has a real negative eigenvalue λ
/// (complex ones pair up with positive products), and its eigenvector v has v_i (Xv)_i = λ v_i²
/// <= 0 for every i.
std::optional<SignReversalWitness> sign_reversal(const MatrixXd& X, const std::vector<Index>& idx, double tol) {
  const MatrixXd sub = principal(X, idx);
  const Eigen::EigenSolver<MatrixXd> eigen(sub);
  if (eigen.info() != Eigen::Success) return std::nullopt;
  for (Index j = 0; j < sub.rows(); ++j) {
    const std::complex<double> lambda = eigen.eigenvalues()[j];
    if (lambda.real() >= 0 || std::abs(lambda.imag()) > 1e-12 * (1 + std::abs(lambda))) continue;
    const Eigen::VectorXcd v = eigen.eigenvectors().col(j);
    VectorXd x = VectorXd::Zero(X.rows());
    for (Index t = 0; t < sub.rows(); ++t) x[idx[static_cast<std::size_t>(t)]] = v[t].real();
    const double norm = x.cwiseAbs().maxCoeff();
    if (norm == 0) continue;
    x /= norm;
    const VectorXd products = x.cwiseProduct(X * x);
    if (products.maxCoeff() <= tol && products.minCoeff() < -tol) return SignReversalWitness{x, products, false};
  }
  return std::nullopt;
}

void decide_sufficiency(const Context& c, MatrixReport& r) {
  const ClassAnswer& p0 = r[MatrixClass::P0];
  for (const bool row : {false, true}) {
    ClassAnswer& answer = r[row ? MatrixClass::RowSufficient : MatrixClass::ColumnSufficient];
    const std::string name = row ? "row sufficient" : "column sufficient";
    if (r.proves(MatrixClass::PositiveSemidefinite)) {
      decide(answer, true, Decision::SufficientCondition, "positive semidefinite ⇒ " + name);
    } else if (r.proves(MatrixClass::P)) {
      decide(answer, true, Decision::SufficientCondition, "P ⇒ " + name);
    } else if (p0.holds == false) {
      const std::string why = name + " ⇒ P0, and M is not P0";
      const MatrixXd X = row ? MatrixXd(c.M.transpose()) : c.M;
      std::optional<SignReversalWitness> w;
      if (const auto* minor = std::get_if<MinorWitness>(&p0.witness)) {
        w = sign_reversal(X, minor->indices, r.tolerance);
      }
      // The eigenvector below costs a full symmetric eigensolve: only in the full report, n <= 500.
      if (!w && r.proves(MatrixClass::Symmetric) && (!c.factorize || c.n > 500)) {
        decide(answer, false, Decision::NecessaryCondition, why, p0.witness);
        continue;
      }
      if (!w && r.proves(MatrixClass::Symmetric)) {
        // For symmetric M an eigenvector of a negative eigenvalue reverses the sign.
        const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(c.S);
        VectorXd x = eigen.eigenvectors().col(0);
        x /= x.cwiseAbs().maxCoeff();
        const VectorXd products = x.cwiseProduct(X * x);
        if (products.maxCoeff() <= 0 && products.minCoeff() < 0) w = SignReversalWitness{x, products, false};
      }
      if (w) {
        w->transposed = row;
        decide(answer, false, Decision::NecessaryCondition,
               why + ": x_i (M" + std::string(row ? "^T" : "") + " x)_i <= 0 for every i, and < 0 for some",
               std::move(*w));
      } else {
        decide(answer, false, Decision::NecessaryCondition, why, p0.witness);
      }
    } else if (r.proves(MatrixClass::Symmetric) && r.refutes(MatrixClass::PositiveSemidefinite)) {
      decide(answer, false, Decision::Exact, "symmetric: " + name + " ⇔ positive semidefinite, which fails",
             r[MatrixClass::PositiveSemidefinite].witness);
    } else {
      answer.reason = "no exact test implemented: neither PSD nor P holds, and M is P0 or P0 is undecided";
    }
  }
}

}  // namespace perp::classify_detail
