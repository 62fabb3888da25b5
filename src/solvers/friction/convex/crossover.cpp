#include <Eigen/SparseCholesky>
#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "friction_ipm.hpp"

// The active-set crossover of the interior point on cones (friction_ipm.hpp): the factor of the
// active rows' matrix N_B = A_B M⁻¹ A_Bᵀ on a pattern fixed once, and the crossover itself.

namespace perp::detail {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using ColSparse = Eigen::SparseMatrix<double>;

/// The active-set crossover: ε over N's largest diagonal, and the corrections made.
constexpr double kCrossoverRegularization = 1e-12;
constexpr int kCrossoverPasses = 4;
/// The active-set crossover: rounds of block pivoting (rows leave on λ < 0, enter on w < 0).
constexpr int kCrossoverRounds = 4;
/// Another round only where this one flipped at most max(kCrossoverFewFlips, rows / kCrossoverFlipShare)
/// rows: an active set that far from right does not settle in the rounds left. (On the 1 000-disk
/// heap's first 3 s, rounds that flipped more — a median of 274 of 3 600 rows — never led to a
/// vertex that solved; the ones that did flipped at most 32; bench/README.md, "Packed step, stop 38".)
constexpr Eigen::Index kCrossoverFewFlips = 32;
constexpr Eigen::Index kCrossoverFlipShare = 100;
/// The proximal crossover gives up on a centre's Newton sets where the rows flipped have not reached
/// a new low in this many factorizations. On the 1 000- and 10 000-disk heaps the sets that solved
/// flipped fewer rows every few factorizations (118, 118, 119, 83, 87, 69, 48, 32, 58, 72, 59, 34, 30,
/// …, 5, then solved); those that did not cycled (8, 10, 12, 8, 10, 12, …) or grew (51, 85, 118, 117,
/// 84, 94, 142, …, 1 510) for the rest of their budget (bench/README.md, "The proximal crossover
/// (stop 51)").
constexpr int kProximalPatience = 6;

/// Block pivoting on the active rows `in`: a row leaves where its λ_k < 0, another enters where its
/// residual w_k − ρ c_k < 0 (ρ = 0: the crossover's w_k < 0; ρ > 0: a proximal point's about the
/// centre c). Returns the rows flipped.
Eigen::Index flip_rows(std::vector<char>& in, const Eigen::VectorXd& lambda, const Eigen::VectorXd& w, double rho,
                       const Eigen::VectorXd& centre) {
  Eigen::Index flipped = 0;
  for (Eigen::Index k = 0; k < lambda.size(); ++k) {
    char& flag = in[static_cast<std::size_t>(k)];
    if (flag && lambda[k] < 0) {
      flag = 0;
      ++flipped;
    } else if (!flag && w[k] - rho * centre[k] < 0) {
      flag = 1;
      ++flipped;
    }
  }
  return flipped;
}

/// w = A M⁻¹ Aᵀ x + e.
Eigen::VectorXd slack_of(const ConeProgram& program, const Eigen::VectorXd& e, const Eigen::VectorXd& x) {
  const Eigen::VectorXd v = (program.At * x).cwiseQuotient(program.mass);
  Eigen::VectorXd w = e;
  w.noalias() += program.A * v;
  return w;
}

}  // namespace

ActiveRowsFactor::ActiveRowsFactor(const ConeProgram& program) {
  // Column l of the lower triangle holds the rows k >= l that share a dof with row l, found by a
  // marker array and written in order (no triplets to sort); the products A_kc A_lc / M_c with
  // lower index l are listed as that column is written, with where row k landed in it.
  const Eigen::Index m = program.A.rows();
  const ColSparse by_column = program.A;  // column c: the rows that touch dof c
  std::vector<int> outer(static_cast<std::size_t>(m) + 1, 0);
  RecycledVector<int> recycled_inner;
  std::vector<int>& inner = *recycled_inner;
  inner.reserve(static_cast<std::size_t>(4 * program.A.nonZeros()));
  std::vector<Eigen::Index> mark(static_cast<std::size_t>(m), -1);
  std::vector<Eigen::Index> where(static_cast<std::size_t>(m), -1);
  std::vector<int> rows;
  diagonal_.resize(static_cast<std::size_t>(m));
  for (Eigen::Index l = 0; l < m; ++l) {
    rows.assign(1, static_cast<int>(l));
    mark[static_cast<std::size_t>(l)] = l;
    for (RowSparse::InnerIterator d(program.A, l); d; ++d) {
      for (ColSparse::InnerIterator a(by_column, d.col()); a; ++a) {
        auto& seen = mark[static_cast<std::size_t>(a.row())];
        if (a.row() > l && seen != l) {
          seen = l;
          rows.push_back(static_cast<int>(a.row()));
        }
      }
    }
    std::sort(rows.begin(), rows.end());
    for (const int k : rows) {
      where[static_cast<std::size_t>(k)] = static_cast<Eigen::Index>(inner.size());
      inner.push_back(k);
    }
    diagonal_[static_cast<std::size_t>(l)] = where[static_cast<std::size_t>(l)];
    outer[static_cast<std::size_t>(l) + 1] = static_cast<int>(inner.size());
    for (RowSparse::InnerIterator d(program.A, l); d; ++d) {
      const double scaled = d.value() / program.mass[d.col()];
      for (ColSparse::InnerIterator a(by_column, d.col()); a; ++a) {
        if (a.row() < l) continue;
        products_->push_back({where[static_cast<std::size_t>(a.row())], static_cast<int>(a.row()), static_cast<int>(l),
                             a.value() * scaled});
      }
    }
  }
  RecycledVector<double> recycled_zeros;
  std::vector<double>& zeros = *recycled_zeros;
  zeros.assign(inner.size(), 0.0);
  matrix_ = Eigen::Map<ColSparse>(m, m, static_cast<Eigen::Index>(inner.size()), outer.data(), inner.data(),
                                  zeros.data());
}

bool ActiveRowsFactor::factorize(const std::vector<char>& in, double regularization) {
  double* values = matrix_.valuePtr();
  std::fill(values, values + matrix_.nonZeros(), 0.0);
  for (const Product& product : *products_) {
    if (in[static_cast<std::size_t>(product.k)] && in[static_cast<std::size_t>(product.l)]) {
      values[product.position] += product.value;
    }
  }
  double largest = 0;
  for (std::size_t k = 0; k < diagonal_.size(); ++k) {
    if (in[k]) largest = std::max(largest, values[diagonal_[k]]);
  }
  if (!(largest > 0)) return false;
  const double epsilon = regularization * largest;
  shift_ = epsilon;
  for (std::size_t k = 0; k < diagonal_.size(); ++k) values[diagonal_[k]] = in[k] ? values[diagonal_[k]] + epsilon : 1.0;
  if (!analyzed_) {
    factor_.analyzePattern(matrix_);  // every row's pattern: the same for each set of rows
    analyzed_ = true;
  }
  factor_.factorize(matrix_);
  return factor_.info() == Eigen::Success;
}

Eigen::VectorXd active_set_crossover(const ConeProgram& program, ActiveRowsFactor& factor, const Eigen::VectorXd& e,
                                     const Eigen::VectorXd& lambda) {
  const auto slack = [&](const Eigen::VectorXd& x) { return slack_of(program, e, x); };
  const Eigen::Index m = program.A.rows();
  // λ_k d_k against w_k: an impulse in velocity units against a velocity.
  Eigen::VectorXd w = slack(lambda);
  std::vector<char> in(static_cast<std::size_t>(m), 0);
  for (Eigen::Index k = 0; k < m; ++k) {
    in[static_cast<std::size_t>(k)] = lambda[k] * program.row_diagonal[k] > w[k];
  }
  Eigen::VectorXd point = lambda;
  Eigen::VectorXd wb(m);
  for (int round = 0; round < kCrossoverRounds; ++round) {
    Eigen::VectorXd next = Eigen::VectorXd::Zero(m);
    bool any = false;
    for (Eigen::Index k = 0; k < m; ++k) {
      if (!in[static_cast<std::size_t>(k)]) continue;
      next[k] = point[k];
      any = true;
    }
    if (any) {
      if (!factor.factorize(in, kCrossoverRegularization)) return point;
      for (int pass = 0; pass < kCrossoverPasses; ++pass) {
        w = slack(next);
        for (Eigen::Index k = 0; k < m; ++k) wb[k] = in[static_cast<std::size_t>(k)] ? w[k] : 0.0;
        const Eigen::VectorXd step = factor.solve(wb);
        if (!step.allFinite()) return point;
        for (Eigen::Index k = 0; k < m; ++k) {
          if (in[static_cast<std::size_t>(k)]) next[k] -= step[k];
        }
      }
    }
    point = next;
    // Block pivoting: rows whose λ went negative leave the active set, rows with w < 0 enter it.
    w = slack(point);
    const Eigen::Index flips = flip_rows(in, point, w, 0.0, point);
    if (flips == 0 || flips > std::max(kCrossoverFewFlips, m / kCrossoverFlipShare)) break;
  }
  return point;
}

ProximalOutcome proximal_crossover(const ConeProgram& program, ActiveRowsFactor& factor, const Eigen::VectorXd& e,
                                   const Eigen::VectorXd& lambda0,
                                   const std::function<double(const Eigen::VectorXd&)>& error_of, double tolerance,
                                   double regularization, int centres, int factorizations) {
  const Eigen::Index m = program.A.rows();
  ProximalOutcome outcome;
  outcome.lambda = lambda0;
  outcome.error = error_of(lambda0);
  if (outcome.error <= tolerance || m == 0) return outcome;
  const auto slack = [&](const Eigen::VectorXd& x) { return slack_of(program, e, x); };
  // B from the centre as the crossover takes it: λ_k d_k against w_k.
  Eigen::VectorXd centre = lambda0;
  Eigen::VectorXd w = slack(centre);
  std::vector<char> in(static_cast<std::size_t>(m), 0);
  for (Eigen::Index k = 0; k < m; ++k) in[static_cast<std::size_t>(k)] = centre[k] * program.row_diagonal[k] > w[k];
  bool factored = false;
  double rho = 0;
  Eigen::Index fewest_flips = std::numeric_limits<Eigen::Index>::max();
  int fewest_at = 0;
  Eigen::VectorXd rhs(m), point(m);
  while (outcome.centres < centres) {
    if (!factored) {
      if (outcome.factorizations >= factorizations) break;
      ++outcome.factorizations;
      if (!factor.factorize(in, regularization)) break;
      rho = factor.shift();  // regularization × the largest diagonal of N_B
      factored = true;
    }
    for (Eigen::Index k = 0; k < m; ++k) rhs[k] = in[static_cast<std::size_t>(k)] ? rho * centre[k] - e[k] : 0.0;
    point = factor.solve(rhs);
    if (!point.allFinite()) break;
    for (Eigen::Index k = 0; k < m; ++k) {
      if (!in[static_cast<std::size_t>(k)]) point[k] = 0.0;
    }
    {
      Eigen::VectorXd candidate = point.cwiseMax(0.0);
      const double error = error_of(candidate);
      if (error < outcome.error) {
        outcome.error = error;
        outcome.lambda = std::move(candidate);
      }
      if (outcome.error <= tolerance) break;
    }
    // Newton's set for this centre: a row of B leaves where λ_k < 0; another enters where its
    // residual w_k + ρ (0 − c_k) is negative.
    w = slack(point);
    const Eigen::Index flipped = flip_rows(in, point, w, rho, centre);
    if (flipped > 0) {
      // Newton's sets may cycle or wander (block pivoting is not monotone): stop where the count
      // of rows flipped has not reached a new low in kProximalPatience factorizations.
      if (flipped < fewest_flips) {
        fewest_flips = flipped;
        fewest_at = outcome.factorizations;
      } else if (outcome.factorizations - fewest_at >= kProximalPatience) {
        break;
      }
      factored = false;
      continue;
    }
    fewest_flips = std::numeric_limits<Eigen::Index>::max();
    fewest_at = outcome.factorizations;
    // The proximal point of this centre (λ_B >= 0, every residual off B >= 0): the next centre.
    ++outcome.centres;
    centre = point;
  }
  return outcome;
}

}  // namespace perp::detail
