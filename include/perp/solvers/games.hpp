#pragma once
/// \file
/// Bimatrix games and the Lemke–Howson method (Lemke–Howson 1964; von Stengel, "Computing
/// equilibria for two-person games", Handbook of Game Theory 3, 2002, §3).
///
/// Player 1 picks row i of m with probability x_i, player 2 column j of n with probability y_j;
/// their payoffs are xᵀA y and xᵀB y. (x, y) is a Nash equilibrium when neither gains by a pure
/// deviation: (A y)_i <= xᵀA y for every i and (xᵀB)_j <= xᵀB y for every j.
///
/// Lemke–Howson works on the polytopes P = {x >= 0 : B'ᵀx <= 1} and Q = {y >= 0 : A' y <= 1} of
/// the payoffs shifted to be positive (A' = A + c, B' = B + c: the equilibria do not change). The
/// labels 0 … m − 1 are player 1's pure strategies, m … m + n − 1 player 2's. From the artificial
/// equilibrium (0, 0) it drops one label k and pivots complementarily in the two tableaux until k is
/// picked up again; the end point, normalized, is an equilibrium. Ratio tests are lexicographic,
/// so degenerate games do not cycle. Every nondegenerate game has an odd number of equilibria, and
/// the m + n starting labels reach one or more of them.

#include <Eigen/Dense>
#include <vector>

namespace perp {

/// A two-player game in normal form: A and B are both m×n (m, n >= 1), finite.
struct BimatrixGame {
  Eigen::MatrixXd A;  ///< payoffs of player 1 (rows)
  Eigen::MatrixXd B;  ///< payoffs of player 2 (columns)

  /// Throws `InvalidProblem` naming the field when A or B is empty, their sizes differ, or an
  /// entry is NaN/Inf.
  void validate() const;
};

/// The game with payoffs A, B, checked (`validate`); `symmetric_game(A)` is {A, Aᵀ} (player 2's
/// payoff for (i, j) is A_ji).
[[nodiscard]] BimatrixGame bimatrix_game(Eigen::MatrixXd A, Eigen::MatrixXd B);
[[nodiscard]] BimatrixGame symmetric_game(const Eigen::MatrixXd& A);

/// One equilibrium and how it was found.
struct Equilibrium {
  Eigen::VectorXd x;   ///< player 1's mixed strategy (m, sums to 1)
  Eigen::VectorXd y;   ///< player 2's mixed strategy (n, sums to 1)
  double payoff1 = 0;  ///< xᵀA y
  double payoff2 = 0;  ///< xᵀB y
  int label = 0;       ///< the dropped label that led here (−1 when several did, see below)
  int pivots = 0;      ///< pivots of that path
  /// The largest gain of a pure deviation, max(max_i (A y)_i − xᵀAy, max_j (xᵀB)_j − xᵀBy),
  /// recomputed from x and y: zero up to round-off at an equilibrium.
  double regret = 0;
};

/// Lemke–Howson from the artificial equilibrium, dropping `label` ∈ [0, m + n). Throws
/// `InvalidProblem` for a bad game or label.
[[nodiscard]] Equilibrium lemke_howson(const BimatrixGame& game, int label);

/// One run per starting label 0 … m + n − 1, and the distinct equilibria they reach (entries of
/// x and y within 1e-9), in order of first discovery; `labels` lists, per equilibrium, the labels that
/// reached it.
struct EquilibriumSet {
  std::vector<Equilibrium> equilibria;
  std::vector<std::vector<int>> labels;
};
[[nodiscard]] EquilibriumSet lemke_howson_all_labels(const BimatrixGame& game);

}  // namespace perp
