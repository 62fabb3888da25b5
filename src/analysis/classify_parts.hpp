#pragma once
// The parts of `classify` (not installed): the shared context and helpers, and the tests that live
// in their own files — principal_minors.cpp (P, P0, M), copositivity.cpp, sufficiency.cpp and
// implications.cpp; classify.cpp keeps the entrywise tests, definiteness and the entry point.

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "perp/analysis/classify.hpp"

namespace perp::classify_detail {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using Mask = std::uint64_t;

inline Mask bit(Index i) { return Mask{1} << static_cast<unsigned>(i); }

inline std::vector<Index> indices_of(Mask mask) {
  std::vector<Index> indices;
  for (Index i = 0; mask != 0; ++i, mask >>= 1) {
    if ((mask & 1U) != 0) indices.push_back(i);
  }
  return indices;
}

inline std::string format_indices(const std::vector<Index>& indices) {
  std::string text = "{";
  for (std::size_t k = 0; k < indices.size(); ++k) text += (k == 0 ? "" : ", ") + std::to_string(indices[k]);
  return text + "}";
}

inline VectorXd unit_vector(Index n, Index i) {
  VectorXd e = VectorXd::Zero(n);
  e[i] = 1;
  return e;
}

inline void decide(ClassAnswer& answer, bool holds, Decision decision, std::string reason, Witness witness = {}) {
  answer.holds = holds;
  answer.decision = decision;
  answer.reason = std::move(reason);
  answer.witness = std::move(witness);
}

inline bool undecided(const ClassAnswer& answer) { return !answer.holds.has_value(); }

/// Everything the tests share: M, its scaled copy A = M / max|M| and the symmetric part S of A.
struct Context {
  const MatrixXd& M;
  MatrixXd A;
  MatrixXd S;
  Index n = 0;
  double tol = 0;  // relative tolerance, in the units of A (max|A_ij| = 1)
  ClassifyOptions options;
  bool factorize = true;  // O(n³) work allowed (ClassifyOptions::always_factorize)
};

inline QuadraticFormWitness quadratic_witness(const MatrixXd& M, VectorXd x) {
  const double norm = x.cwiseAbs().maxCoeff();
  if (norm > 0) x /= norm;  // entries of order one read better
  QuadraticFormWitness w;
  w.value = x.dot(M * x);
  w.x = std::move(x);
  return w;
}

inline MinorWitness minor_witness(const MatrixXd& M, const std::vector<Index>& indices) {
  const auto k = static_cast<Index>(indices.size());
  MatrixXd sub(k, k);
  for (Index r = 0; r < k; ++r) {
    for (Index c = 0; c < k; ++c)
      sub(r, c) = M(indices[static_cast<std::size_t>(r)], indices[static_cast<std::size_t>(c)]);
  }
  return MinorWitness{indices, k == 0 ? 1.0 : sub.partialPivLu().determinant()};
}

inline MatrixXd principal(const MatrixXd& A, const std::vector<Index>& indices) {
  const auto k = static_cast<Index>(indices.size());
  MatrixXd sub(k, k);
  for (Index r = 0; r < k; ++r) {
    for (Index c = 0; c < k; ++c)
      sub(r, c) = A(indices[static_cast<std::size_t>(r)], indices[static_cast<std::size_t>(c)]);
  }
  return sub;
}


/// Strict dominance of the rows of X, or of its columns: the first that fails, or -1.
inline Index first_non_dominant_row(const MatrixXd& X, double tol, double& diagonal, double& off_sum, bool columns = false) {
  const VectorXd sums =
      columns ? VectorXd(X.cwiseAbs().colwise().sum().transpose()) : VectorXd(X.cwiseAbs().rowwise().sum());
  for (Index i = 0; i < X.rows(); ++i) {
    diagonal = std::abs(X(i, i));
    off_sum = sums[i] - diagonal;
    if (diagonal - off_sum <= tol) return i;
  }
  return -1;
}

/// P and P0 from the principal minors (principal_minors.cpp); M = Z and P.
void decide_p(const Context& c, MatrixReport& r);
void decide_m_matrix(MatrixReport& r);
/// Copositive, strictly copositive, copositive-plus (copositivity.cpp).
void decide_copositivity(const Context& c, MatrixReport& r);
/// Column and row sufficiency (sufficiency.cpp).
void decide_sufficiency(const Context& c, MatrixReport& r);
/// The prose of what the decided classes imply for the LCP (implications.cpp).
void add_implications(MatrixReport& r);

}  // namespace perp::classify_detail
