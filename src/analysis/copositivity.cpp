// Copositivity, strict copositivity and copositive-plus of the symmetric part (part of classify).
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
// Copositivity of the symmetric part S (xᵀMx = xᵀSx).

struct CopositiveAnswers {
  ClassAnswer& copositive;
  ClassAnswer& strict;
  ClassAnswer& plus;
  bool all_decided() const { return copositive.holds && strict.holds && plus.holds; }
};

/// x >= 0 with xᵀMx = 0 and (M + Mᵀ)x ≠ 0.
QuadraticFormWitness plus_witness(const MatrixXd& M, VectorXd x) {
  QuadraticFormWitness w = quadratic_witness(M, std::move(x));
  w.symmetric_product = (M + M.transpose()) * w.x;
  return w;
}

void refute_copositive(CopositiveAnswers& a, Decision decision, const std::string& why, const QuadraticFormWitness& w) {
  decide(a.copositive, false, decision, why, w);
  if (undecided(a.strict)) decide(a.strict, false, decision, why, w);
  if (undecided(a.plus)) decide(a.plus, false, decision, why, w);
}

/// Kaplan (2000): symmetric S is copositive iff no principal submatrix has an eigenvector v > 0
/// with eigenvalue < 0, strictly copositive iff none has one with eigenvalue <= 0. A zero of a
/// copositive form, x >= 0 with xᵀSx = 0, has S_ss x_s = 0 on its support s (KKT of the
/// minimum); at a minimal support ker S_ss is spanned by x_s, so copositive-plus fails iff some
/// principal submatrix has a positive null vector v with S_{s̄s} v ≠ 0. All 2ⁿ − 1 supports,
/// in order of size.
long long kaplan_enumeration(const Context& c, CopositiveAnswers& a, bool& exhausted) {
  const Index n = c.n;
  std::vector<Mask> negative(static_cast<std::size_t>(n), 0);
  Mask positive_diagonal = 0;
  for (Index i = 0; i < n; ++i) {
    if (c.S(i, i) > c.tol) positive_diagonal |= bit(i);
    for (Index j = 0; j < n; ++j) {
      if (i != j && c.S(i, j) < -c.tol) negative[static_cast<std::size_t>(i)] |= bit(j);
    }
  }
  long long examined = 0;
  long long visited = 0;  // every submatrix counts toward the budget, the skipped ones too
  const Mask all = bit(n) - 1;
  for (Index size = 1; size <= n; ++size) {
    // Gosper's hack: the masks with `size` bits in increasing order.
    Mask mask = bit(size) - 1;
    while (mask <= all) {
      if (visited++ >= c.options.max_copositive_submatrices) {
        exhausted = true;
        return examined;
      }
      bool nonnegative = (mask & ~positive_diagonal) == 0;
      for (Mask rest = mask; nonnegative && rest != 0; rest &= rest - 1) {
        nonnegative = (negative[static_cast<std::size_t>(std::countr_zero(rest))] & mask) == 0;
      }
      // A nonnegative submatrix with a positive diagonal is strictly copositive: skip it.
      if (!nonnegative) {
        ++examined;
        const std::vector<Index> idx = indices_of(mask);
        const MatrixXd sub = principal(c.S, idx);
        const auto k = static_cast<Index>(idx.size());
        if (Eigen::LLT<MatrixXd>(sub - c.tol * MatrixXd::Identity(k, k)).info() != Eigen::Success) {
          const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(sub);
          for (Index j = 0; j < k && eigen.eigenvalues()[j] <= c.tol; ++j) {
            VectorXd v = eigen.eigenvectors().col(j);
            if (v.sum() < 0) v = -v;
            if (v.minCoeff() < -1e-12) continue;  // not a nonnegative eigenvector
            v = v.cwiseMax(0.0);
            VectorXd x = VectorXd::Zero(n);
            for (Index t = 0; t < k; ++t) x[idx[static_cast<std::size_t>(t)]] = v[t];
            const double value = x.dot(c.S * x);
            const double norm2 = x.squaredNorm();
            if (value < -c.tol * norm2) {
              refute_copositive(a, Decision::Exact,
                                "the principal submatrix " + format_indices(idx) +
                                    " of (M + M^T)/2 has a nonnegative eigenvector with a negative eigenvalue (Kaplan)",
                                quadratic_witness(c.M, x));
              return examined;
            }
            if (undecided(a.strict) && value <= c.tol * norm2) {
              decide(a.strict, false, Decision::Exact,
                     "x >= 0, x != 0 with x^T M x = 0 (to the tolerance), on the support " + format_indices(idx),
                     quadratic_witness(c.M, x));
            }
            if (undecided(a.plus) && value <= c.tol * norm2 &&
                (c.S * x).cwiseAbs().maxCoeff() > 4 * c.tol * std::sqrt(norm2)) {
              decide(a.plus, false, Decision::Exact,
                     "x >= 0 with x^T M x = 0 but (M + M^T) x != 0, on the support " + format_indices(idx),
                     plus_witness(c.M, x));
            }
          }
        }
        if (a.all_decided()) return examined;
      }
      if (size == n) break;
      const Mask lowest = mask & (~mask + 1);
      const Mask ripple = mask + lowest;
      mask = (((ripple ^ mask) >> 2) / lowest) | ripple;
    }
  }
  return examined;
}

void decide_copositivity(const Context& c, MatrixReport& r) {
  CopositiveAnswers a{r[MatrixClass::Copositive], r[MatrixClass::StrictlyCopositive], r[MatrixClass::CopositivePlus]};
  const Index n = c.n;
  // Necessary conditions from the diagonal and the 2×2 principal submatrices.
  Index k = 0;
  const double smallest = c.S.diagonal().minCoeff(&k);
  if (smallest < -c.tol) {
    refute_copositive(a, Decision::NecessaryCondition, "a negative diagonal entry: e_k^T M e_k < 0",
                      quadratic_witness(c.M, unit_vector(n, k)));
    return;
  }
  if (smallest <= c.tol) {
    decide(a.strict, false, Decision::NecessaryCondition, "a zero diagonal entry: e_k^T M e_k = 0",
           quadratic_witness(c.M, unit_vector(n, k)));
  }
  double worst = 0;
  Index wi = 0;
  Index wj = 0;
  double wxi = 0;
  double wxj = 0;
  const VectorXd diagonal = c.S.diagonal();
  const VectorXd root = diagonal.cwiseMax(0.0).cwiseSqrt();
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < j; ++i) {
      const double sii = std::max(0.0, diagonal[i]);
      const double sjj = std::max(0.0, diagonal[j]);
      const double sij = c.S(i, j);
      if (sij >= -root[i] * root[j] - c.tol) continue;
      // x = x_i e_i + x_j e_j: the minimizer of xᵀSx on the segment, its value in O(1).
      double xi = 1;
      double xj = 1;
      if (sjj > c.tol) {
        xj = -sij / sjj;
      } else if (sii > c.tol) {
        xi = -sij / sii;
      }
      const double top = std::max(xi, xj);
      xi /= top;
      xj /= top;
      const double value = xi * xi * diagonal[i] + 2 * xi * xj * sij + xj * xj * diagonal[j];
      if (value < -c.tol * (xi * xi + xj * xj) && value < worst) {
        worst = value;
        wi = i;
        wj = j;
        wxi = xi;
        wxj = xj;
      }
    }
  }
  if (worst < 0) {
    VectorXd worst_x = VectorXd::Zero(n);
    worst_x[wi] = wxi;
    worst_x[wj] = wxj;
    refute_copositive(a, Decision::NecessaryCondition,
                      "a 2×2 principal submatrix is not copositive: M_ij < -sqrt(M_ii M_jj) in the symmetric part",
                      quadratic_witness(c.M, worst_x));
    return;
  }
  // A zero diagonal entry whose column is not zero: x = e_i breaks copositive-plus.
  for (Index i = 0; i < n && undecided(a.plus); ++i) {
    if (std::abs(c.S(i, i)) <= c.tol && c.S.col(i).cwiseAbs().maxCoeff() > 4 * c.tol) {
      decide(a.plus, false, Decision::NecessaryCondition,
             "e_i^T M e_i = 0 but (M + M^T) e_i != 0 for i = " + std::to_string(i),
             plus_witness(c.M, unit_vector(n, i)));
    }
  }
  // Sufficient conditions.
  if (r.proves(MatrixClass::PositiveSemidefinite)) {
    if (undecided(a.copositive))
      decide(a.copositive, true, Decision::SufficientCondition, "positive semidefinite ⇒ copositive");
    if (undecided(a.plus))
      decide(a.plus, true, Decision::SufficientCondition, "positive semidefinite ⇒ copositive-plus");
  }
  if (r.proves(MatrixClass::PositiveDefinite) && undecided(a.strict)) {
    decide(a.strict, true, Decision::SufficientCondition, "positive definite ⇒ strictly copositive");
  }
  double smallest_off_diagonal = std::numeric_limits<double>::infinity();
  for (Index j = 0; j < n; ++j) {
    for (Index i = 0; i < n; ++i) {
      if (i != j) smallest_off_diagonal = std::min(smallest_off_diagonal, c.S(i, j));
    }
  }
  if (smallest_off_diagonal >= -c.tol) {
    if (undecided(a.copositive)) decide(a.copositive, true, Decision::SufficientCondition, "nonnegative ⇒ copositive");
    if (smallest > c.tol && undecided(a.strict)) {
      decide(a.strict, true, Decision::SufficientCondition,
             "nonnegative with a positive diagonal ⇒ strictly copositive");
    }
  }
  bool kaplan_stopped = false;  // the budget ran out: the undecided classes keep its reason
  if (!a.all_decided() && n <= c.options.max_copositive_size) {
    const long long examined = kaplan_enumeration(c, a, kaplan_stopped);
    const std::string count = std::to_string(examined) + " principal submatrices examined (Kaplan's eigenvector test)";
    if (kaplan_stopped) {
      for (ClassAnswer* answer : {&a.copositive, &a.strict, &a.plus}) {
        if (undecided(*answer)) {
          answer->reason = "Kaplan's test stopped at its budget of " +
                           std::to_string(c.options.max_copositive_submatrices) +
                           " principal submatrices (ClassifyOptions::max_copositive_submatrices, "
                           "--max-copositive-submatrices) before deciding";
        }
      }
    } else {
      if (undecided(a.copositive)) decide(a.copositive, true, Decision::Exact, "no violating eigenvector; " + count);
      if (undecided(a.strict)) decide(a.strict, true, Decision::Exact, "no violating eigenvector; " + count);
      if (undecided(a.plus))
        decide(a.plus, true, Decision::Exact, "copositive, and every zero x has (M + M^T) x = 0; " + count);
    }
  }
  if (a.strict.holds == true) {
    if (undecided(a.copositive))
      decide(a.copositive, true, Decision::SufficientCondition, "strictly copositive ⇒ copositive");
    if (undecided(a.plus)) decide(a.plus, true, Decision::SufficientCondition, "strictly copositive ⇒ copositive-plus");
  }
  if (a.copositive.holds == false && undecided(a.plus)) {
    decide(a.plus, false, Decision::NecessaryCondition, "not copositive", a.copositive.witness);
  }
  if (undecided(a.copositive) && r.refutes(MatrixClass::PositiveSemidefinite)) {
    // The positive or negative part of a PSD counterexample is sometimes one for copositivity.
    const auto* w = std::get_if<QuadraticFormWitness>(&r[MatrixClass::PositiveSemidefinite].witness);
    if (w != nullptr) {
      for (const VectorXd& part : {VectorXd(w->x.cwiseMax(0.0)), VectorXd((-w->x).cwiseMax(0.0))}) {
        if (part.squaredNorm() > 0 && part.dot(c.S * part) < -c.tol * part.squaredNorm() && undecided(a.copositive)) {
          refute_copositive(a, Decision::Exact, "x >= 0 with x^T M x < 0 (a part of the PSD counterexample)",
                            quadratic_witness(c.M, part));
        }
      }
    }
  }
  const std::string beyond = "n = " + std::to_string(n) + " exceeds the exact limit " +
                             std::to_string(c.options.max_copositive_size) + " and no sufficient condition applies";
  for (ClassAnswer* answer : {&a.copositive, &a.strict, &a.plus}) {
    if (undecided(*answer) && !kaplan_stopped) answer->reason = beyond;
  }
}

}  // namespace perp::classify_detail
