#include "perp/analysis/classify.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <utility>

#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"

namespace perp {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using Mask = std::uint64_t;

constexpr std::array<std::string_view, kMatrixClassCount> kClassNames{
    "symmetric",       "positive-definite", "positive-semidefinite", "p-matrix",   "p0-matrix",
    "z-matrix",        "m-matrix",          "diagonally-dominant",   "copositive", "strictly-copositive",
    "copositive-plus", "column-sufficient", "row-sufficient"};

// Sizes up to which the cheap report does O(n³) work anyway: microseconds (see ClassifyOptions).
constexpr Index kCheapFactorizeSize = 16;

Mask bit(Index i) { return Mask{1} << static_cast<unsigned>(i); }

std::vector<Index> indices_of(Mask mask) {
  std::vector<Index> indices;
  for (Index i = 0; mask != 0; ++i, mask >>= 1) {
    if ((mask & 1U) != 0) indices.push_back(i);
  }
  return indices;
}

std::string format_indices(const std::vector<Index>& indices) {
  std::string text = "{";
  for (std::size_t k = 0; k < indices.size(); ++k) text += (k == 0 ? "" : ", ") + std::to_string(indices[k]);
  return text + "}";
}

VectorXd unit_vector(Index n, Index i) {
  VectorXd e = VectorXd::Zero(n);
  e[i] = 1;
  return e;
}

void decide(ClassAnswer& answer, bool holds, Decision decision, std::string reason, Witness witness = {}) {
  answer.holds = holds;
  answer.decision = decision;
  answer.reason = std::move(reason);
  answer.witness = std::move(witness);
}

bool undecided(const ClassAnswer& answer) { return !answer.holds.has_value(); }

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

QuadraticFormWitness quadratic_witness(const MatrixXd& M, VectorXd x) {
  const double norm = x.cwiseAbs().maxCoeff();
  if (norm > 0) x /= norm;  // entries of order one read better
  QuadraticFormWitness w;
  w.value = x.dot(M * x);
  w.x = std::move(x);
  return w;
}

MinorWitness minor_witness(const MatrixXd& M, const std::vector<Index>& indices) {
  const auto k = static_cast<Index>(indices.size());
  MatrixXd sub(k, k);
  for (Index r = 0; r < k; ++r) {
    for (Index c = 0; c < k; ++c)
      sub(r, c) = M(indices[static_cast<std::size_t>(r)], indices[static_cast<std::size_t>(c)]);
  }
  return MinorWitness{indices, k == 0 ? 1.0 : sub.partialPivLu().determinant()};
}

MatrixXd principal(const MatrixXd& A, const std::vector<Index>& indices) {
  const auto k = static_cast<Index>(indices.size());
  MatrixXd sub(k, k);
  for (Index r = 0; r < k; ++r) {
    for (Index c = 0; c < k; ++c)
      sub(r, c) = A(indices[static_cast<std::size_t>(r)], indices[static_cast<std::size_t>(c)]);
  }
  return sub;
}

// ---------------------------------------------------------------------------------------------
// symmetric, Z, diagonally dominant: entrywise.

void decide_symmetric(const Context& c, MatrixReport& r) {
  double worst = 0;
  Index wi = 0;
  Index wj = 0;
  // A(i, j) − A(j, i) = 2 (A(i, j) − S(i, j)): read down columns only (A(j, i) would stride
  // across rows, a cache miss per entry for large n) and without a temporary matrix.
  for (Index j = 0; j < c.n; ++j) {
    for (Index i = 0; i < j; ++i) {
      const double gap = 2 * std::abs(c.A(i, j) - c.S(i, j));
      if (gap > worst) {
        worst = gap;
        wi = i;
        wj = j;
      }
    }
  }
  ClassAnswer& answer = r[MatrixClass::Symmetric];
  if (worst <= c.tol) {
    decide(answer, true, Decision::Exact, "M(i, j) = M(j, i) for every pair, to the tolerance");
  } else {
    decide(answer, false, Decision::Exact,
           "M(" + std::to_string(wi) + ", " + std::to_string(wj) + ") differs from M(" + std::to_string(wj) + ", " +
               std::to_string(wi) + ")",
           EntryWitness{wi, wj, c.M(wi, wj), c.M(wj, wi)});
  }
}

void decide_z(const Context& c, MatrixReport& r) {
  double worst = -std::numeric_limits<double>::infinity();
  Index wi = 0;
  Index wj = 0;
  for (Index j = 0; j < c.n; ++j) {
    for (Index i = 0; i < c.n; ++i) {
      if (i != j && c.A(i, j) > worst) {
        worst = c.A(i, j);
        wi = i;
        wj = j;
      }
    }
  }
  ClassAnswer& answer = r[MatrixClass::Z];
  if (c.n == 1 || worst <= c.tol) {
    decide(answer, true, Decision::Exact, "every off-diagonal entry is <= 0");
  } else {
    decide(answer, false, Decision::Exact,
           "the off-diagonal entry M(" + std::to_string(wi) + ", " + std::to_string(wj) + ") is positive",
           EntryWitness{wi, wj, c.M(wi, wj), std::nullopt});
  }
}

/// Strict dominance of the rows of X, or of its columns: the first that fails, or -1.
Index first_non_dominant_row(const MatrixXd& X, double tol, double& diagonal, double& off_sum, bool columns = false) {
  const VectorXd sums =
      columns ? VectorXd(X.cwiseAbs().colwise().sum().transpose()) : VectorXd(X.cwiseAbs().rowwise().sum());
  for (Index i = 0; i < X.rows(); ++i) {
    diagonal = std::abs(X(i, i));
    off_sum = sums[i] - diagonal;
    if (diagonal - off_sum <= tol) return i;
  }
  return -1;
}

void decide_diagonal_dominance(const Context& c, MatrixReport& r) {
  double diagonal = 0;
  double off_sum = 0;
  const Index row = first_non_dominant_row(c.A, c.tol, diagonal, off_sum);
  ClassAnswer& answer = r[MatrixClass::DiagonallyDominant];
  if (row < 0) {
    decide(answer, true, Decision::Exact, "|M_ii| > sum of |M_ij|, j != i, in every row");
  } else {
    const double off = c.M.row(row).cwiseAbs().sum() - std::abs(c.M(row, row));
    decide(answer, false, Decision::Exact, "row " + std::to_string(row) + " is not strictly diagonally dominant",
           RowWitness{row, std::abs(c.M(row, row)), off});
  }
}

// ---------------------------------------------------------------------------------------------
// Positive (semi)definiteness of the symmetric part: Cholesky of S ∓ tol·I.

/// x with xᵀSx as small as the LDLT factorization S = Pᵀ L D Lᵀ P shows: Lᵀ P x = e_k for the
/// smallest d_k gives xᵀSx = d_k. Checked against an eigenvector when round-off spoils it.
VectorXd low_curvature_vector(const MatrixXd& S, double threshold) {
  const Eigen::LDLT<MatrixXd> ldlt(S);
  if (ldlt.info() == Eigen::Success) {
    Index k = 0;
    ldlt.vectorD().minCoeff(&k);
    const VectorXd u = ldlt.matrixU().solve(unit_vector(S.rows(), k));
    VectorXd x = ldlt.transpositionsP().transpose() * u;
    if (x.allFinite() && x.squaredNorm() > 0 && x.dot(S * x) <= threshold * x.squaredNorm()) return x;
  }
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(S);
  return eigen.eigenvectors().col(0);
}

void decide_definiteness(const Context& c, MatrixReport& r, bool factorize) {
  ClassAnswer& pd = r[MatrixClass::PositiveDefinite];
  ClassAnswer& psd = r[MatrixClass::PositiveSemidefinite];
  Index k = 0;
  const double smallest = c.A.diagonal().minCoeff(&k);
  if (smallest < -c.tol) {
    const std::string why = "the diagonal entry M(" + std::to_string(k) + ", " + std::to_string(k) + ") is negative";
    decide(psd, false, Decision::NecessaryCondition, why, quadratic_witness(c.M, unit_vector(c.n, k)));
    decide(pd, false, Decision::NecessaryCondition, why, quadratic_witness(c.M, unit_vector(c.n, k)));
    return;
  }
  if (smallest <= c.tol) {
    decide(pd, false, Decision::NecessaryCondition,
           "the diagonal entry M(" + std::to_string(k) + ", " + std::to_string(k) + ") is zero",
           quadratic_witness(c.M, unit_vector(c.n, k)));
  }
  if (!factorize) {
    const std::string why = "not factorized in the cheap report (n = " + std::to_string(c.n) +
                            "; only symmetric M with a positive diagonal above n = " +
                            std::to_string(c.options.symmetric_factorization_above) + ")";
    if (undecided(pd)) pd.reason = why;
    psd.reason = why;
    return;
  }
  const MatrixXd identity = MatrixXd::Identity(c.n, c.n);
  if (undecided(pd)) {
    const Eigen::LLT<MatrixXd> shifted(c.S - c.tol * identity);
    if (shifted.info() == Eigen::Success) {
      decide(pd, true, Decision::Exact,
             "Cholesky of the symmetric part (M + M^T)/2 succeeds, pivots above the tolerance");
      decide(psd, true, Decision::SufficientCondition, "positive definite");
      return;
    }
    const VectorXd x = low_curvature_vector(c.S, c.tol);
    decide(pd, false, Decision::Exact, "Cholesky of the symmetric part fails: x^T M x <= 0 (to the tolerance) for x",
           quadratic_witness(c.M, x));
  }
  const Eigen::LLT<MatrixXd> shifted(c.S + c.tol * identity);
  if (shifted.info() == Eigen::Success) {
    decide(psd, true, Decision::Exact, "Cholesky of the symmetric part plus tolerance·I succeeds");
    return;
  }
  const VectorXd x = low_curvature_vector(c.S, -c.tol);
  QuadraticFormWitness w = quadratic_witness(c.M, x);
  if (w.value < 0) {
    decide(psd, false, Decision::Exact, "Cholesky of the symmetric part fails: x^T M x < 0 for x", std::move(w));
  } else {
    psd.reason = "Cholesky of the symmetric part fails, but no vector with x^T M x < 0 was found (round-off)";
  }
}

// ---------------------------------------------------------------------------------------------
// P and P0: principal minors by recursive Schur complements (Tsatsomeros–Li 2000).
//
// A node holds B, whose principal minors are det(M_{α ∪ β}) / det(M_α) for β among its indices,
// with det(M_α) > 0. Its diagonal entries are such ratios for one more index, so P needs all of
// them positive; pivoting on index p splits the minors into those without p (B with p deleted)
// and those with p (the Schur complement B / B_pp, which multiplies by B_pp > 0). 2ⁿ − 1 nodes,
// each O(m²) for its size m, so O(2ⁿ) in all.

class PrincipalMinorSearch {
 public:
  PrincipalMinorSearch(const MatrixXd& A, double tol, bool need_p, bool need_p0, long long budget)
      : n_(A.rows()), tol_(tol), need_p_(need_p), need_p0_(need_p0), budget_(budget) {
    levels_.reserve(static_cast<std::size_t>(n_ + 1));
    indices_.reserve(static_cast<std::size_t>(n_ + 1));
    scales_.assign(static_cast<std::size_t>(n_ + 1), 1.0);
    for (Index d = 0; d <= n_; ++d) {
      levels_.emplace_back(n_ - d, n_ - d);
      indices_.emplace_back(static_cast<std::size_t>(n_ - d));
    }
    levels_[0] = A;
    for (Index i = 0; i < n_; ++i) indices_[0][static_cast<std::size_t>(i)] = i;
    scales_[0] = std::max(1.0, A.cwiseAbs().maxCoeff());
  }

  void run() { visit(0, 0); }

  std::optional<Mask> p_failure;   // a minor <= tolerance: not P
  std::optional<Mask> p0_failure;  // a negative minor: not P0 (nor P)
  long long nodes = 0;
  bool exhausted = false;  // the node budget ran out before the search ended

 private:
  bool done() const { return exhausted || ((!need_p_ || p_failure) && (!need_p0_ || p0_failure)); }

  void visit(std::size_t d, Mask alpha) {
    const MatrixXd& B = levels_[d];
    const Index m = B.rows();
    if (m == 0 || done()) return;
    if (nodes >= budget_) {
      exhausted = true;
      return;
    }
    ++nodes;
    const std::vector<Index>& idx = indices_[d];
    const double threshold = tol_ * scales_[d];
    Index p = 0;
    for (Index i = 0; i < m; ++i) {
      const double b = B(i, i);
      const Mask with_i = alpha | bit(idx[static_cast<std::size_t>(i)]);
      if (b < -threshold) {
        p0_failure = with_i;
        if (!p_failure) p_failure = with_i;
        return;
      }
      if (b <= threshold && !p_failure) p_failure = with_i;
      if (b > B(p, p)) p = i;
    }
    if (done()) return;
    if (B(p, p) <= threshold) {
      // Every diagonal entry is zero: no 1×1 pivot. P has failed already; settle P0 here.
      if (need_p0_) settle_p0_without_pivot(B, idx, alpha, threshold);
      return;
    }
    MatrixXd& child = levels_[d + 1];
    std::vector<Index>& child_idx = indices_[d + 1];
    for (Index i = 0, k = 0; i < m; ++i) {
      if (i != p) child_idx[static_cast<std::size_t>(k++)] = idx[static_cast<std::size_t>(i)];
    }
    // Minors without p: B with row and column p deleted.
    copy_without(B, p, child);
    scales_[d + 1] = child.size() == 0 ? 1.0 : std::max(1.0, child.cwiseAbs().maxCoeff());
    visit(d + 1, alpha);
    if (done()) return;
    // Minors with p: the Schur complement of B_pp.
    copy_without(B, p, child);
    const double pivot = B(p, p);
    for (Index j = 0, cj = 0; j < m; ++j) {
      if (j == p) continue;
      const double factor = B(p, j) / pivot;
      for (Index i = 0, ci = 0; i < m; ++i) {
        if (i == p) continue;
        child(ci, cj) -= B(i, p) * factor;
        ++ci;
      }
      ++cj;
    }
    scales_[d + 1] = child.size() == 0 ? 1.0 : std::max(1.0, child.cwiseAbs().maxCoeff());
    visit(d + 1, alpha | bit(idx[static_cast<std::size_t>(p)]));
  }

  static void copy_without(const MatrixXd& B, Index p, MatrixXd& out) {
    const Index m = B.rows();
    for (Index j = 0, cj = 0; j < m; ++j) {
      if (j == p) continue;
      for (Index i = 0, ci = 0; i < m; ++i) {
        if (i == p) continue;
        out(ci++, cj) = B(i, j);
      }
      ++cj;
    }
  }

  // A node with a zero diagonal: when its symmetric part is positive semidefinite all its
  // minors are >= 0; otherwise each minor is computed by LU.
  void settle_p0_without_pivot(const MatrixXd& B, const std::vector<Index>& idx, Mask alpha, double threshold) {
    const Index m = B.rows();
    const MatrixXd symmetric = 0.5 * (B + B.transpose());
    if (Eigen::LLT<MatrixXd>(symmetric + threshold * MatrixXd::Identity(m, m)).info() == Eigen::Success) return;
    const Mask subsets = bit(m);
    for (Mask beta = 1; beta < subsets; ++beta) {
      if (std::popcount(beta) < 2) continue;
      const std::vector<Index> local = indices_of(beta);
      const Eigen::PartialPivLU<MatrixXd> lu(principal(B, local));
      ++nodes;
      const auto diagonal = lu.matrixLU().diagonal();
      if (diagonal.cwiseAbs().minCoeff() <= threshold) continue;  // a zero minor
      if (lu.determinant() < 0) {
        Mask found = alpha;
        for (const Index i : local) found |= bit(idx[static_cast<std::size_t>(i)]);
        p0_failure = found;
        return;
      }
    }
  }

  Index n_;
  double tol_;
  bool need_p_;
  bool need_p0_;
  long long budget_;
  std::vector<MatrixXd> levels_;
  std::vector<std::vector<Index>> indices_;
  std::vector<double> scales_;
};

bool is_triangular(const MatrixXd& A, double tol) {
  bool upper = true;
  bool lower = true;
  for (Index j = 0; j < A.cols(); ++j) {
    for (Index i = 0; i < A.rows(); ++i) {
      if (std::abs(A(i, j)) <= tol) continue;
      if (i > j) upper = false;
      if (i < j) lower = false;
    }
  }
  return upper || lower;
}

void decide_p(const Context& c, MatrixReport& r) {
  ClassAnswer& p = r[MatrixClass::P];
  ClassAnswer& p0 = r[MatrixClass::P0];
  // 1×1 and 2×2 minors: O(n²), and the smallest witnesses.
  Index k = 0;
  const double smallest = c.A.diagonal().minCoeff(&k);
  if (smallest <= c.tol) {
    MinorWitness w = minor_witness(c.M, {k});
    if (smallest < -c.tol) {
      decide(p0, false, Decision::NecessaryCondition, "a negative diagonal entry (1×1 principal minor)", w);
    }
    decide(p, false, Decision::NecessaryCondition, "a diagonal entry (1×1 principal minor) <= 0", std::move(w));
  }
  double worst = std::numeric_limits<double>::infinity();
  Index wi = 0;
  Index wj = 0;
  const VectorXd diagonal = c.A.diagonal();
  for (Index j = 0; j < c.n; ++j) {
    for (Index i = 0; i < j; ++i) {
      // A(j, i) = 2 S(i, j) − A(i, j), read down column j (see decide_symmetric).
      const double minor = diagonal[i] * diagonal[j] - c.A(i, j) * (2 * c.S(i, j) - c.A(i, j));
      if (minor < worst) {
        worst = minor;
        wi = i;
        wj = j;
      }
    }
  }
  if (c.n >= 2 && undecided(p0) && worst < -c.tol) {
    MinorWitness w = minor_witness(c.M, {wi, wj});
    decide(p0, false, Decision::NecessaryCondition, "a negative 2×2 principal minor", w);
    decide(p, false, Decision::NecessaryCondition, "a negative 2×2 principal minor", std::move(w));
  } else if (c.n >= 2 && undecided(p) && worst <= c.tol) {
    decide(p, false, Decision::NecessaryCondition, "a 2×2 principal minor is zero (to the tolerance)",
           minor_witness(c.M, {wi, wj}));
  }

  // Cases decided without enumeration.
  if (is_triangular(c.A, c.tol)) {
    // The principal minors of a triangular matrix are products of its diagonal entries.
    if (undecided(p)) decide(p, true, Decision::Exact, "triangular with a positive diagonal");
    if (undecided(p0)) decide(p0, true, Decision::Exact, "triangular with a nonnegative diagonal");
  }
  if (undecided(p) && r.proves(MatrixClass::PositiveDefinite)) {
    decide(p, true, Decision::SufficientCondition, "positive definite ⇒ P");
  }
  if (undecided(p0) && r.proves(MatrixClass::PositiveSemidefinite)) {
    decide(p0, true, Decision::SufficientCondition, "positive semidefinite ⇒ P0");
  }
  if (undecided(p)) {
    double dominant_diagonal = 0;
    double off_sum = 0;
    if (first_non_dominant_row(c.A, c.tol, dominant_diagonal, off_sum) < 0 ||
        first_non_dominant_row(c.A, c.tol, dominant_diagonal, off_sum, true) < 0) {
      // Gershgorin on every principal submatrix: no real eigenvalue <= 0, so every minor > 0.
      decide(p, true, Decision::SufficientCondition,
             "strictly diagonally dominant (rows or columns), positive diagonal ⇒ P");
    }
  }
  if (r.proves(MatrixClass::P) && undecided(p0)) decide(p0, true, Decision::SufficientCondition, "P ⇒ P0");

  bool minors_stopped = false;  // the budget ran out: the undecided classes keep its reason
  if ((undecided(p) || undecided(p0)) && c.n <= c.options.max_minor_size) {
    PrincipalMinorSearch search(c.A, c.tol, undecided(p), undecided(p0), c.options.max_minor_nodes);
    search.run();
    minors_stopped = search.exhausted;
    const std::string count = std::to_string(search.nodes) + " nodes of the principal-minor recursion";
    const std::string stopped = "the principal-minor enumeration stopped at its budget of " +
                                std::to_string(c.options.max_minor_nodes) +
                                " nodes (ClassifyOptions::max_minor_nodes, --max-minor-nodes) before deciding";
    if (undecided(p0) && search.exhausted && !search.p0_failure) {
      p0.reason = stopped;
    } else if (undecided(p0)) {
      if (search.p0_failure) {
        decide(p0, false, Decision::Exact, "a negative principal minor (" + count + ")",
               minor_witness(c.M, indices_of(*search.p0_failure)));
      } else {
        decide(p0, true, Decision::Exact, "every principal minor >= 0 (" + count + ")");
      }
    }
    if (undecided(p) && search.exhausted && !search.p_failure) {
      p.reason = stopped;
    } else if (undecided(p)) {
      if (search.p_failure) {
        const Mask failure = search.p0_failure ? *search.p0_failure : *search.p_failure;
        decide(p, false, Decision::Exact, "a principal minor <= 0 (" + count + ")",
               minor_witness(c.M, indices_of(failure)));
      } else {
        decide(p, true, Decision::Exact, "every principal minor > 0 (" + count + ")");
      }
    }
  }

  if (undecided(p) && r.proves(MatrixClass::Z) && c.factorize) {
    // Fiedler–Pták: a Z-matrix is P iff its leading principal minors are positive; elimination
    // without pivoting gives them as products of pivots.
    MatrixXd U = c.A;
    Index failed = -1;
    for (Index j = 0; j < c.n && failed < 0; ++j) {
      if (U(j, j) <= c.tol * std::max(1.0, U.bottomRightCorner(c.n - j, c.n - j).cwiseAbs().maxCoeff())) {
        failed = j;
        break;
      }
      const Index rest = c.n - j - 1;
      U.bottomRightCorner(rest, rest).noalias() -= U.col(j).tail(rest) * (U.row(j).tail(rest) / U(j, j));
    }
    if (failed < 0) {
      decide(p, true, Decision::Exact, "Z-matrix with positive leading principal minors (Fiedler–Pták)");
    } else {
      std::vector<Index> leading(static_cast<std::size_t>(failed + 1));
      for (Index i = 0; i <= failed; ++i) leading[static_cast<std::size_t>(i)] = i;
      decide(p, false, Decision::Exact, "Z-matrix with a leading principal minor <= 0", minor_witness(c.M, leading));
    }
  }
  if (r.proves(MatrixClass::Symmetric)) {
    // For symmetric M, P ⇔ positive definite and P0 ⇔ positive semidefinite.
    const ClassAnswer& pd = r[MatrixClass::PositiveDefinite];
    const ClassAnswer& psd = r[MatrixClass::PositiveSemidefinite];
    if (undecided(p) && pd.holds == false) {
      decide(p, false, Decision::Exact, "symmetric and not positive definite (for symmetric M, P ⇔ PD): x^T M x <= 0",
             pd.witness);
    }
    if (undecided(p0) && psd.holds == false) {
      decide(p0, false, Decision::Exact,
             "symmetric and not positive semidefinite (for symmetric M, P0 ⇔ PSD): x^T M x < 0", psd.witness);
    }
  }
  if (r.refutes(MatrixClass::P0) && undecided(p)) {
    decide(p, false, Decision::NecessaryCondition, "not P0", r[MatrixClass::P0].witness);
  }
  const std::string beyond = "n = " + std::to_string(c.n) + " exceeds the enumeration limit " +
                             std::to_string(c.options.max_minor_size) + " and no sufficient condition applies";
  if (undecided(p) && !minors_stopped) p.reason = beyond;
  if (undecided(p0) && !minors_stopped) p0.reason = beyond;
}

void decide_m_matrix(MatrixReport& r) {
  ClassAnswer& m = r[MatrixClass::MMatrix];
  const ClassAnswer& z = r[MatrixClass::Z];
  const ClassAnswer& p = r[MatrixClass::P];
  if (z.holds == false) {
    decide(m, false, Decision::NecessaryCondition, "not a Z-matrix: " + z.reason, z.witness);
  } else if (p.holds.has_value()) {
    decide(m, *p.holds, p.decision, std::string(*p.holds ? "Z and P: " : "Z but not P: ") + p.reason, p.witness);
  } else {
    m.reason = "Z, but P is undecided: " + p.reason;
  }
}

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

// ---------------------------------------------------------------------------------------------

void add_implications(MatrixReport& r) {
  auto& out = r.implications;
  if (r.proves(MatrixClass::P)) {
    out.emplace_back(
        "P-matrix: LCP(q, M) has exactly one solution for every q (Samelson–Thrall–Wesler 1958; "
        "Cottle–Pang–Stone §3.3); Lemke's and Murty's methods are finite");
  } else if (r.refutes(MatrixClass::P)) {
    out.emplace_back(
        "not a P-matrix: for some q, LCP(q, M) has no solution or more than one "
        "(Cottle–Pang–Stone §3.3)");
  }
  if (r.proves(MatrixClass::PositiveDefinite) && r.proves(MatrixClass::Symmetric)) {
    out.emplace_back(
        "symmetric positive definite: LCP(q, M) is the strictly convex QP min ½zᵀMz + qᵀz, z >= 0; "
        "projected Gauss–Seidel converges");
  }
  if (r.proves(MatrixClass::PositiveSemidefinite)) {
    out.emplace_back(
        "positive semidefinite: LCP(q, M) has a solution whenever it is feasible, and its solution set "
        "is a convex polyhedron (Cottle–Pang–Stone §3.1)");
  }
  if (r.proves(MatrixClass::StrictlyCopositive)) {
    out.emplace_back("strictly copositive: LCP(q, M) has a solution for every q (Cottle–Dantzig 1968)");
  }
  if (r.proves(MatrixClass::CopositivePlus)) {
    out.emplace_back(
        "copositive-plus: Lemke's method ends with a solution, or with a secondary ray that proves "
        "LCP(q, M) infeasible (Lemke 1965; Cottle–Pang–Stone §4.4)");
  } else if (r.refutes(MatrixClass::CopositivePlus)) {
    out.emplace_back("not copositive-plus: a Lemke ray termination proves nothing about solvability");
  }
  if (r.proves(MatrixClass::ColumnSufficient)) {
    out.emplace_back(
        "column sufficient: for every q the solution set of LCP(q, M) is convex "
        "(Cottle–Pang–Venkateswaran 1989)");
  }
  if (r.proves(MatrixClass::RowSufficient)) {
    out.emplace_back(
        "row sufficient: for every q, LCP(q, M) has a solution whenever it is feasible (its solutions "
        "are the KKT points of min zᵀ(Mz + q), z >= 0, Mz + q >= 0)");
  }
  if (r.proves(MatrixClass::P0) && !r.proves(MatrixClass::P)) {
    out.emplace_back(
        "P0: M + εI is a P-matrix for every ε > 0, so each regularized LCP(q, M + εI) has exactly one "
        "solution");
  }
  if (r.proves(MatrixClass::MMatrix)) {
    out.emplace_back(
        "M-matrix: the unique solution is the least element of the feasible set "
        "{z >= 0 : Mz + q >= 0} (Cottle–Pang–Stone §3.11)");
  } else if (r.proves(MatrixClass::Z)) {
    out.emplace_back(
        "Z-matrix: when LCP(q, M) is feasible, its feasible set has a least element, and that element "
        "solves it (Cottle–Pang–Stone §3.11)");
  }
  if (r.proves(MatrixClass::DiagonallyDominant) && r.min_diagonal > 0) {
    out.emplace_back(
        "strictly diagonally dominant with a positive diagonal: a P-matrix, and projected Gauss–Seidel "
        "is a contraction in the max-norm, so it converges for every q");
  }
}

}  // namespace

std::string to_string(MatrixClass matrix_class) {
  const auto index = static_cast<std::size_t>(matrix_class);
  if (index < kClassNames.size()) return std::string(kClassNames[index]);
  return "unknown-class-" + std::to_string(index);
}

template <>
MatrixClass from_string<MatrixClass>(std::string_view name) {
  std::string valid;
  for (std::size_t i = 0; i < kClassNames.size(); ++i) {
    if (kClassNames[i] == name) return static_cast<MatrixClass>(i);
    valid += (i == 0 ? "" : ", ") + std::string(kClassNames[i]);
  }
  throw InvalidProblem("unknown matrix class '" + std::string(name) + "'; valid names: " + valid);
}

std::ostream& operator<<(std::ostream& out, MatrixClass matrix_class) { return out << to_string(matrix_class); }

std::vector<MatrixClass> all_matrix_classes() {
  std::vector<MatrixClass> classes;
  for (std::size_t i = 0; i < kMatrixClassCount; ++i) classes.push_back(static_cast<MatrixClass>(i));
  return classes;
}

std::string to_string(Decision decision) {
  switch (decision) {
    case Decision::Exact:
      return "exact";
    case Decision::SufficientCondition:
      return "sufficient-condition";
    case Decision::NecessaryCondition:
      return "necessary-condition";
    case Decision::Undecided:
      return "undecided";
  }
  return "unknown-decision";
}

std::ostream& operator<<(std::ostream& out, Decision decision) { return out << to_string(decision); }

ClassifyOptions ClassifyOptions::cheap() {
  ClassifyOptions options;
  options.max_minor_size = 6;
  options.max_copositive_size = 4;
  options.always_factorize = false;
  return options;
}

void ClassifyOptions::validate() const {
  if (!(tolerance >= 0 && tolerance < 1)) {
    throw InvalidProblem("ClassifyOptions::tolerance must be in [0, 1), got " + number_text(tolerance));
  }
  if (max_minor_size < 0 || max_minor_size > 40) {
    throw InvalidProblem("ClassifyOptions::max_minor_size must be in [0, 40], got " + std::to_string(max_minor_size));
  }
  if (symmetric_factorization_above < 0) {
    throw InvalidProblem("ClassifyOptions::symmetric_factorization_above must be >= 0, got " +
                         std::to_string(symmetric_factorization_above));
  }
  if (max_copositive_size < 0 || max_copositive_size > 30) {
    throw InvalidProblem("ClassifyOptions::max_copositive_size must be in [0, 30], got " +
                         std::to_string(max_copositive_size));
  }
  if (max_minor_nodes < 1) {
    throw InvalidProblem("ClassifyOptions::max_minor_nodes must be >= 1, got " + std::to_string(max_minor_nodes));
  }
  if (max_copositive_submatrices < 1) {
    throw InvalidProblem("ClassifyOptions::max_copositive_submatrices must be >= 1, got " +
                         std::to_string(max_copositive_submatrices));
  }
}

MatrixReport classify(const Eigen::MatrixXd& M, const ClassifyOptions& options) {
  options.validate();
  if (M.rows() != M.cols()) {
    throw InvalidProblem("M must be square: got " + std::to_string(M.rows()) + "x" + std::to_string(M.cols()));
  }
  if (M.rows() == 0) throw InvalidProblem("M is empty (0×0): there is nothing to classify");
  require_finite(M, "M");

  MatrixReport report;
  report.n = M.rows();
  report.scale = M.cwiseAbs().maxCoeff();
  report.tolerance = options.tolerance * report.scale;
  report.min_diagonal = M.diagonal().minCoeff();
  for (ClassAnswer& answer : report.answers) answer.reason = "undecided";

  Context c{M, {}, {}, M.rows(), options.tolerance, options};
  c.A = report.scale > 0 ? MatrixXd(M / report.scale) : M;
  c.S = 0.5 * (c.A + c.A.transpose());

  decide_symmetric(c, report);
  decide_z(c, report);
  decide_diagonal_dominance(c, report);
  const bool factorize =
      options.always_factorize || c.n <= kCheapFactorizeSize ||
      (report.proves(MatrixClass::Symmetric) && report.min_diagonal > 0 && c.n > options.symmetric_factorization_above);
  c.factorize = factorize;
  decide_definiteness(c, report, factorize);
  decide_p(c, report);
  decide_m_matrix(report);
  decide_copositivity(c, report);
  decide_sufficiency(c, report);
  add_implications(report);
  return report;
}

}  // namespace perp
