#pragma once
// Independent checks of classify's witnesses: each recomputes the certificate from M alone
// (plain loops and Eigen's FullPivLU, not the code paths classify uses) and says whether it
// refutes the class.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>
#include <variant>

#include "perp/analysis/classify.hpp"

namespace perp::testing_witness {

inline double quadratic_form(const Eigen::MatrixXd& M, const Eigen::VectorXd& x) {
  double sum = 0;
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) sum += x[i] * M(i, j) * x[j];
  }
  return sum;
}

inline double principal_minor(const Eigen::MatrixXd& M, const std::vector<Eigen::Index>& indices) {
  const auto k = static_cast<Eigen::Index>(indices.size());
  Eigen::MatrixXd sub(k, k);
  for (Eigen::Index r = 0; r < k; ++r) {
    for (Eigen::Index c = 0; c < k; ++c)
      sub(r, c) = M(indices[static_cast<std::size_t>(r)], indices[static_cast<std::size_t>(c)]);
  }
  return sub.fullPivLu().determinant();
}

/// Whether `answer` (holds == false) carries a witness that refutes `cls` for M, by
/// recomputation. `scale_tol` is the zero tolerance relative to max|M|; `why` says what failed.
inline ::testing::AssertionResult witness_refutes(const Eigen::MatrixXd& M, MatrixClass cls, const ClassAnswer& answer,
                                                  double relative = 1e-9) {
  using ::testing::AssertionFailure;
  using ::testing::AssertionSuccess;
  if (answer.holds != false) return AssertionFailure() << to_string(cls) << " is not a false answer";
  const Eigen::Index n = M.rows();
  const double scale = M.cwiseAbs().maxCoeff();
  const double tol = relative * (scale > 0 ? scale : 1.0);
  const bool symmetric = (M - M.transpose()).cwiseAbs().maxCoeff() <= tol;

  if (const auto* w = std::get_if<QuadraticFormWitness>(&answer.witness)) {
    if (w->x.size() != n || w->x.isZero()) return AssertionFailure() << "x has the wrong size or is zero";
    const double value = quadratic_form(M, w->x);
    const double x2 = w->x.squaredNorm();
    if (std::abs(value - w->value) > 1e-9 * (scale * x2 + 1)) {
      return AssertionFailure() << "reported value " << w->value << ", recomputed " << value;
    }
    const bool nonnegative = w->x.minCoeff() >= 0;
    switch (cls) {
      case MatrixClass::PositiveDefinite:
        if (value <= tol * x2) return AssertionSuccess();
        break;
      case MatrixClass::PositiveSemidefinite:
        if (value < 0) return AssertionSuccess();
        break;
      case MatrixClass::P:  // symmetric P ⇔ PD
      case MatrixClass::MMatrix:
        if (symmetric && value <= tol * x2) return AssertionSuccess();
        break;
      case MatrixClass::P0:
      case MatrixClass::ColumnSufficient:
      case MatrixClass::RowSufficient:  // symmetric: each ⇔ PSD
        if (symmetric && value < 0) return AssertionSuccess();
        break;
      case MatrixClass::Copositive:
        if (nonnegative && value < 0) return AssertionSuccess();
        break;
      case MatrixClass::StrictlyCopositive:
        if (nonnegative && value <= tol * x2) return AssertionSuccess();
        break;
      case MatrixClass::CopositivePlus: {
        if (nonnegative && value < 0) return AssertionSuccess();
        const Eigen::VectorXd g = (M + M.transpose()) * w->x;
        if (nonnegative && std::abs(value) <= tol * x2 && g.cwiseAbs().maxCoeff() > tol * std::sqrt(x2)) {
          return AssertionSuccess();
        }
        break;
      }
      default:
        break;
    }
    return AssertionFailure() << to_string(cls) << ": x^T M x = " << value << " (x >= 0: " << nonnegative
                              << ") does not refute it";
  }
  if (const auto* w = std::get_if<MinorWitness>(&answer.witness)) {
    for (std::size_t k = 0; k < w->indices.size(); ++k) {
      if (w->indices[k] < 0 || w->indices[k] >= n || (k > 0 && w->indices[k] <= w->indices[k - 1])) {
        return AssertionFailure() << "indices out of range or not increasing";
      }
    }
    if (w->indices.empty()) return AssertionFailure() << "no indices";
    // The sign is judged on M / max|M| (at extreme scales the minor itself under- or overflows);
    // the reported value is compared where it is representable.
    const double scaled_minor = principal_minor(M / (scale > 0 ? scale : 1.0), w->indices);
    const double minor = principal_minor(M, w->indices);
    if (std::isnormal(minor) && std::isnormal(w->minor) &&
        std::abs(minor - w->minor) > 1e-8 * std::abs(minor) + 1e-12) {
      return AssertionFailure() << "reported minor " << w->minor << ", recomputed " << minor;
    }
    if (std::isfinite(w->minor) && w->minor != 0 && std::signbit(w->minor) != std::signbit(scaled_minor) &&
        std::abs(scaled_minor) > 1e-9) {
      return AssertionFailure() << "reported minor " << w->minor << " has the wrong sign";
    }
    const bool negative = scaled_minor < -1e-9;
    const bool nonpositive = scaled_minor <= 1e-9;
    if ((cls == MatrixClass::P || cls == MatrixClass::MMatrix) && nonpositive) return AssertionSuccess();
    if ((cls == MatrixClass::P0 || cls == MatrixClass::ColumnSufficient || cls == MatrixClass::RowSufficient) &&
        negative) {
      return AssertionSuccess();
    }
    return AssertionFailure() << to_string(cls) << ": minor " << minor << " does not refute it";
  }
  if (const auto* w = std::get_if<EntryWitness>(&answer.witness)) {
    if (w->row < 0 || w->row >= n || w->col < 0 || w->col >= n) return AssertionFailure() << "entry out of range";
    if (M(w->row, w->col) != w->value) return AssertionFailure() << "reported entry differs from M";
    if (cls == MatrixClass::Symmetric && std::abs(M(w->row, w->col) - M(w->col, w->row)) > tol) {
      return AssertionSuccess();
    }
    if ((cls == MatrixClass::Z || cls == MatrixClass::MMatrix) && w->row != w->col && M(w->row, w->col) > tol) {
      return AssertionSuccess();
    }
    return AssertionFailure() << to_string(cls) << ": the entry does not refute it";
  }
  if (const auto* w = std::get_if<RowWitness>(&answer.witness)) {
    if (cls != MatrixClass::DiagonallyDominant || w->row < 0 || w->row >= n) return AssertionFailure() << "bad row";
    double off = 0;
    for (Eigen::Index j = 0; j < n; ++j) off += j == w->row ? 0.0 : std::abs(M(w->row, j));
    if (std::abs(M(w->row, w->row)) <= off + tol) return AssertionSuccess();
    return AssertionFailure() << "row " << w->row << " is dominant";
  }
  if (const auto* w = std::get_if<SignReversalWitness>(&answer.witness)) {
    if (w->x.size() != n) return AssertionFailure() << "x has the wrong size";
    const Eigen::MatrixXd X = w->transposed ? Eigen::MatrixXd(M.transpose()) : M;
    const Eigen::VectorXd products = w->x.cwiseProduct(X * w->x);
    const bool right_class = w->transposed ? cls == MatrixClass::RowSufficient : cls == MatrixClass::ColumnSufficient;
    if (right_class && products.maxCoeff() <= tol && products.minCoeff() < -tol) return AssertionSuccess();
    return AssertionFailure() << to_string(cls) << ": products do not reverse sign";
  }
  return AssertionFailure() << to_string(cls) << " is false without a witness";
}

/// Every false answer of the report carries a witness that refutes its class.
inline void expect_false_answers_witnessed(const Eigen::MatrixXd& M, const MatrixReport& report,
                                           const std::string& label = "") {
  for (const MatrixClass c : all_matrix_classes()) {
    if (report[c].holds == false) {
      EXPECT_TRUE(witness_refutes(M, c, report[c])) << label << " " << to_string(c) << ": " << report[c].reason;
    }
  }
}

}  // namespace perp::testing_witness
