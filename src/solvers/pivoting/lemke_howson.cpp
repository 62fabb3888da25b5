#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"
#include "perp/solvers/games.hpp"

namespace perp {
namespace {

// One of the two polytopes as a tableau [structural | slack | rhs] with its basis; each variable
// carries its label.
class Tableau {
 public:
  // Rows: slack_r + Σ_c payoff(r, c)·structural_c = 1, for the (positive) payoff matrix given
  // row-wise. Labels: structural c → structural_labels[c], slack r → slack_labels[r].
  Tableau(const Eigen::MatrixXd& payoff, std::vector<int> structural_labels, std::vector<int> slack_labels)
      : rows_(payoff.rows()), structural_(payoff.cols()) {
    table_.setZero(rows_, structural_ + rows_ + 1);
    table_.leftCols(structural_) = payoff;
    table_.middleCols(structural_, rows_).setIdentity();
    table_.col(structural_ + rows_).setOnes();
    labels_ = std::move(structural_labels);
    labels_.insert(labels_.end(), slack_labels.begin(), slack_labels.end());
    for (Eigen::Index r = 0; r < rows_; ++r) basis_.push_back(structural_ + r);
  }

  [[nodiscard]] Eigen::Index variable_with_label(int label) const {
    return std::find(labels_.begin(), labels_.end(), label) - labels_.begin();
  }

  // Brings `entering` into the basis by the lexicographic minimum-ratio rule; returns the label of
  // the variable that left.
  int pivot(Eigen::Index entering) {
    Eigen::Index best = -1;
    const Eigen::Index rhs = structural_ + rows_;
    for (Eigen::Index r = 0; r < rows_; ++r) {
      const double a = table_(r, entering);
      if (!(a > 1e-12)) continue;
      if (best < 0 || lexicographically_smaller(r, best, entering, rhs)) best = r;
    }
    if (best < 0) throw InvalidProblem("lemke_howson: unbounded polytope (payoffs not positive after the shift)");
    const int left = labels_[static_cast<std::size_t>(basis_[static_cast<std::size_t>(best)])];
    table_.row(best) /= table_(best, entering);
    for (Eigen::Index r = 0; r < rows_; ++r) {
      if (r != best && table_(r, entering) != 0.0) table_.row(r) -= table_(r, entering) * table_.row(best);
    }
    basis_[static_cast<std::size_t>(best)] = entering;
    return left;
  }

  // The structural variables' values (0 when nonbasic).
  [[nodiscard]] Eigen::VectorXd structural_values() const {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(structural_);
    for (Eigen::Index r = 0; r < rows_; ++r) {
      const Eigen::Index var = basis_[static_cast<std::size_t>(r)];
      if (var < structural_) v[var] = table_(r, structural_ + rows_);
    }
    return v;
  }

 private:
  // (rhs_r, slack part of row r) / a_r < the same of row s, lexicographically (von Stengel §3.4).
  bool lexicographically_smaller(Eigen::Index r, Eigen::Index s, Eigen::Index entering, Eigen::Index rhs) const {
    const double ar = table_(r, entering), as = table_(s, entering);
    const auto entry = [&](Eigen::Index row, Eigen::Index k) {
      return k == 0 ? table_(row, rhs) : table_(row, structural_ + k - 1);
    };
    for (Eigen::Index k = 0; k <= rows_; ++k) {
      const double left = entry(r, k) / ar, right = entry(s, k) / as;
      const double tie = 1e-12 * std::max({1.0, std::abs(left), std::abs(right)});
      if (left < right - tie) return true;
      if (left > right + tie) return false;
    }
    return false;
  }

  Eigen::Index rows_, structural_;
  Eigen::MatrixXd table_;
  std::vector<int> labels_;
  std::vector<Eigen::Index> basis_;
};

std::vector<int> range_labels(int first, Eigen::Index count) {
  std::vector<int> labels;
  for (Eigen::Index k = 0; k < count; ++k) labels.push_back(first + static_cast<int>(k));
  return labels;
}

double regret(const BimatrixGame& game, const Eigen::VectorXd& x, const Eigen::VectorXd& y, double& payoff1,
              double& payoff2) {
  const Eigen::VectorXd Ay = game.A * y;
  const Eigen::RowVectorXd xB = x.transpose() * game.B;
  payoff1 = x.dot(Ay);
  payoff2 = xB.dot(y);
  return std::max(Ay.maxCoeff() - payoff1, xB.maxCoeff() - payoff2);
}

}  // namespace

void BimatrixGame::validate() const {
  if (A.size() == 0) throw InvalidProblem("bimatrix game: A is empty (expected m x n with m, n >= 1)");
  if (B.rows() != A.rows() || B.cols() != A.cols()) {
    throw InvalidProblem("bimatrix game: B is " + std::to_string(B.rows()) + "x" + std::to_string(B.cols()) +
                         ", expected the size of A, " + std::to_string(A.rows()) + "x" + std::to_string(A.cols()));
  }
  require_finite(A, "A");
  require_finite(B, "B");
}

BimatrixGame bimatrix_game(Eigen::MatrixXd A, Eigen::MatrixXd B) {
  BimatrixGame game{std::move(A), std::move(B)};
  game.validate();
  return game;
}

BimatrixGame symmetric_game(const Eigen::MatrixXd& A) { return bimatrix_game(A, A.transpose()); }

Equilibrium lemke_howson(const BimatrixGame& game, int label) {
  game.validate();
  const Eigen::Index m = game.A.rows(), n = game.A.cols();
  if (label < 0 || label >= m + n) {
    throw InvalidProblem("lemke_howson: label " + std::to_string(label) + " out of range [0, " + std::to_string(m + n) +
                         ")");
  }
  // Shift both payoff matrices to entries >= 1 (the equilibria are the same).
  const double shift = 1.0 - std::min(game.A.minCoeff(), game.B.minCoeff());
  const Eigen::MatrixXd A = game.A.array() + shift;
  const Eigen::MatrixXd B = game.B.array() + shift;
  // P: rows j (player 2's strategies), s_j + Σ_i B_ij x_i = 1; x_i has label i, s_j label m + j.
  Tableau p(B.transpose(), range_labels(0, m), range_labels(static_cast<int>(m), n));
  // Q: rows i, r_i + Σ_j A_ij y_j = 1; y_j has label m + j, r_i label i.
  Tableau q(A, range_labels(static_cast<int>(m), n), range_labels(0, m));
  bool in_p = label < m;
  int entering = label;
  int pivots = 0;
  const int limit = 100 * static_cast<int>(m + n) + 1000;  // a path never repeats a vertex (lexicographic rule)
  for (;; in_p = !in_p) {
    Tableau& side = in_p ? p : q;
    const int left = side.pivot(side.variable_with_label(entering));
    ++pivots;
    if (left == label) break;
    entering = left;
    if (pivots > limit) throw InvalidProblem("lemke_howson: pivot limit exceeded (numerically degenerate payoffs)");
  }
  Equilibrium e;
  e.x = p.structural_values();
  e.y = q.structural_values();
  e.x /= e.x.sum();
  e.y /= e.y.sum();
  e.label = label;
  e.pivots = pivots;
  e.regret = regret(game, e.x, e.y, e.payoff1, e.payoff2);
  return e;
}

EquilibriumSet lemke_howson_all_labels(const BimatrixGame& game) {
  game.validate();
  EquilibriumSet set;
  const auto labels = static_cast<int>(game.A.rows() + game.A.cols());
  for (int k = 0; k < labels; ++k) {
    Equilibrium e = lemke_howson(game, k);
    bool known = false;
    for (std::size_t s = 0; s < set.equilibria.size(); ++s) {
      const Equilibrium& f = set.equilibria[s];
      if ((f.x - e.x).cwiseAbs().maxCoeff() <= 1e-9 && (f.y - e.y).cwiseAbs().maxCoeff() <= 1e-9) {
        set.labels[s].push_back(k);
        known = true;
        break;
      }
    }
    if (!known) {
      set.equilibria.push_back(std::move(e));
      set.labels.push_back({k});
    }
  }
  return set;
}

}  // namespace perp
