// P, P0 and M-matrices: principal minors by recursive Schur complements (part of classify).
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

}  // namespace perp::classify_detail
