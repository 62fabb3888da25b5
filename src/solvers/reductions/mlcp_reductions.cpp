// The MLCP methods that reduce it to an LCP (docs/solvers.md): schur eliminates u through A, lemke
// pivots u in (with complementarity rows when A is singular) or splits it.

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "mlcp_detail.hpp"
#include "perp/solvers/solve.hpp"

namespace perp::mlcp_detail {
namespace {

std::string text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

// An LU factorization of a square matrix after row and column equilibration, Â = R A S with R, S
// diagonal powers of two (exact in floating point), rows then columns scaled to max-norm 1, three
// passes (Ruiz's scaling with the max norm). The condition estimate is that of Â: a matrix whose
// ill-conditioning comes only from its units (the Buck* files mix 1e4 and 3e-12 in A: rcond 4e-13
// as stored, 3e-7 once equilibrated) is solved as accurately as Â allows, since
// A⁻¹ y = S Â⁻¹ (R y).
class EquilibratedLu {
 public:
  explicit EquilibratedLu(const Eigen::MatrixXd& matrix)
      : row_scale_(Eigen::VectorXd::Ones(matrix.rows())), col_scale_(Eigen::VectorXd::Ones(matrix.cols())) {
    if (matrix.rows() == 0) return;
    Eigen::MatrixXd scaled = matrix;
    const auto power_of_two = [](double largest) {
      return largest > 0.0 && std::isfinite(largest) ? std::exp2(-std::round(std::log2(largest))) : 1.0;
    };
    for (int pass = 0; pass < 3; ++pass) {
      for (Eigen::Index i = 0; i < scaled.rows(); ++i) {
        const double factor = power_of_two(scaled.row(i).cwiseAbs().maxCoeff());
        scaled.row(i) *= factor;
        row_scale_[i] *= factor;
      }
      for (Eigen::Index j = 0; j < scaled.cols(); ++j) {
        const double factor = power_of_two(scaled.col(j).cwiseAbs().maxCoeff());
        scaled.col(j) *= factor;
        col_scale_[j] *= factor;
      }
    }
    lu_.compute(scaled);
    rcond_ = lu_.rcond();                      // 1-norm estimate (Hager–Higham) from the factors
    if (!std::isfinite(rcond_)) rcond_ = 0.0;  // an exactly singular matrix gives NaN
  }

  /// Reciprocal 1-norm condition estimate of the equilibrated matrix; 1 for a 0×0 matrix.
  [[nodiscard]] double rcond() const { return rcond_; }

  /// A⁻¹ Y.
  [[nodiscard]] Eigen::MatrixXd solve(const Eigen::MatrixXd& Y) const {
    // Nothing to solve: Eigen's triangular solve would bind a reference to the empty buffer (UBSan).
    if (Y.rows() == 0 || Y.cols() == 0) return Eigen::MatrixXd(Y.rows(), Y.cols());
    return col_scale_.asDiagonal() * lu_.solve(row_scale_.asDiagonal() * Y);
  }

 private:
  Eigen::VectorXd row_scale_;
  Eigen::VectorXd col_scale_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  double rcond_ = 1.0;
};

std::string condition_text(double rcond) { return rcond > 0.0 ? text(1.0 / rcond) : std::string("inf"); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// schur: u = −A⁻¹(C v + a) turns the MLCP into the LCP
//   w_v = D u + B v + b = (B − D A⁻¹ C) v + (b − D A⁻¹ a),  0 <= v ⊥ w_v >= 0,
// which is exactly equivalent when A is nonsingular ([chapter] §1.2): every solution v of the LCP
// gives the MLCP solution (u(v), v) and conversely, so a proof of infeasibility carries over.

Result solve_schur(const Mlcp& problem, const SolveOptions& options) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  const EquilibratedLu lu(problem.A);
  const double rcond = lu.rcond();
  if (rcond < options.mlcp.schur_min_rcond) {
    Result result = make_result(problem, Eigen::VectorXd::Zero(n + m), Method::Schur);
    result.status = Status::NotApplicable;
    result.message = "A is singular or ill-conditioned: estimated condition number " + condition_text(rcond) +
                     " after equilibration (reciprocal " + text(rcond) + " < mlcp.schur_min_rcond " +
                     text(options.mlcp.schur_min_rcond) + "); use lemke, newton-fb or enum, which do not invert A";
    return result;
  }

  const Eigen::MatrixXd inv_a_c = lu.solve(problem.C);
  const Eigen::VectorXd inv_a_a = lu.solve(problem.a);
  Lcp reduced{problem.B - problem.D * inv_a_c, problem.b - problem.D * inv_a_a};
  if (!reduced.M.allFinite() || !reduced.q.allFinite()) {
    Result result = make_result(problem, Eigen::VectorXd::Zero(n + m), Method::Schur);
    result.status = Status::NumericalFailure;
    result.message = "the Schur complement B − D A⁻¹ C overflowed";
    return result;
  }

  SolveOptions inner = derived_options(options);
  if (options.initial_guess) inner.initial_guess = options.initial_guess->tail(m);
  if (options.lemke.covering_vector) inner.lemke.covering_vector = options.lemke.covering_vector->tail(m);
  const Result lcp = solve(reduced, options.mlcp.schur_lcp_method, inner);

  Eigen::VectorXd z(n + m);
  z.tail(m) = lcp.z;
  z.head(n) = -(inv_a_c * lcp.z + inv_a_a);
  Result result = make_result(problem, std::move(z), Method::Schur);
  result.iterations = lcp.iterations;
  result.history = lcp.history;
  if (lcp.ray) {
    Eigen::VectorXd ray(n + m);
    ray.tail(m) = *lcp.ray;
    ray.head(n) = -(inv_a_c * *lcp.ray);
    result.ray = std::move(ray);
  }
  const std::string inner_text = "the Schur-complement LCP (m = " + std::to_string(m) + ", A's condition about " +
                                 condition_text(rcond) + " after equilibration) by " + to_string(lcp.method) + ": " +
                                 lcp.message;
  if (lcp.solved()) {
    detail::judge(result, options.tolerance, Status::NumericalFailure,
                  "the Schur-complement LCP was solved but recovering u = −A⁻¹(C v + a) lost accuracy");
    if (result.solved()) result.message = "solved " + inner_text;
    return result;
  }
  result.status = lcp.status;
  result.message = "failed on " + inner_text;
  return result;
}

// ---------------------------------------------------------------------------------------------
// lemke: Lemke's method after the free u have been pivoted into the basis, where they stay.
//
// Pivoting u in against the equality rows is the elimination u = −A⁻¹(C v + a) when A is
// nonsingular. When A is singular (the diode bridges, PD) or ill-conditioned, n − rank(A) of the u
// cannot be pivoted in against equalities alone; they are pivoted in together
// with a set J of complementarity rows, v_J entering and w_J leaving, chosen so that the block
//   P = M[(e, J), (u, J)] = [[A, C_·J], [D_J·, B_JJ]]   (e: the equality rows)
// is well conditioned. With x = (u, v_J), K the other complementarity rows, and w_e = 0,
//   x = P⁻¹([0; w_J] − M_PK v_K − q_P),
// so the MLCP is exactly the LCP in ζ = (w_J, v_K) ≥ 0 with complements (v_J, w_K) ≥ 0:
//   [v_J; w_K] = N ζ + r,  N = [[ (P⁻¹)_JJ,        −(P⁻¹ M_PK)_J        ],
//                                [ M_KP (P⁻¹)_·J,   M_KK − M_KP P⁻¹ M_PK ]],
//                          r = [ −(P⁻¹ q_P)_J ;  q_K − M_KP P⁻¹ q_P ],
// a principal pivot transform of the MLCP's M (Cottle–Pang–Stone §2.3). Its solutions map to
// MLCP solutions and back one to one, so Lemke's kernel runs on it unchanged; for J = ∅ it is the
// Schur-complement LCP. J is built greedily, adding the row that most raises first the rank, then
// the reciprocal condition number of P (equilibrated), until rcond(P) >= mlcp.schur_min_rcond.
//
// When no such J exists (e.g. m = 0 with A singular), Lemke runs on the LCP of the split problem
// instead. With u = u⁺ − u⁻ (u⁺, u⁻ >= 0) and each equation written as two inequalities,
//        [  A  −A   C ]        [  a ]
//   M'' = [ −A   A  −C ],  q'' = [ −a ],  z'' = (u⁺, u⁻, v),
//        [  D  −D   B ]        [  b ]
// a solution of LCP(M'', q'') has A u + C v + a >= 0 and <= 0, hence = 0, and 0 <= v ⊥ D u + B v
// + b >= 0; conversely u⁺ = max(u, 0), u⁻ = max(−u, 0) maps an MLCP solution to one. That
// correspondence is exact too, but M'' is never a P-matrix (its u⁺ and u⁻ columns are opposite)
// and on every singular-A file of the corpus its path ends on a ray, which proves nothing.

namespace {

// rank (FullPivLU) and reciprocal condition estimate (equilibrated, as schur judges A) of a
// square matrix.
std::pair<Eigen::Index, double> rank_and_rcond(const Eigen::MatrixXd& matrix) {
  if (matrix.rows() == 0) return {0, 1.0};
  const Eigen::Index rank = Eigen::FullPivLU<Eigen::MatrixXd>(matrix).rank();
  return {rank, rank == matrix.rows() ? EquilibratedLu(matrix).rcond() : 0.0};
}

// Row/column indices into M of the pivot block: 0..n−1, then n + j for j in J.
std::vector<Eigen::Index> block_indices(Eigen::Index n, const std::vector<Eigen::Index>& rows) {
  std::vector<Eigen::Index> indices;
  for (Eigen::Index i = 0; i < n; ++i) indices.push_back(i);
  for (const Eigen::Index j : rows) indices.push_back(n + j);
  return indices;
}

// The greedy search factors up to m blocks of size up to n + m per added row; above this n + m it
// is not attempted (lemke then uses the split LCP when A itself is not well conditioned).
constexpr Eigen::Index kMaxPivotSearchSize = 300;

// The greedy choice of J above; empty when no J makes P well conditioned.
std::optional<std::vector<Eigen::Index>> choose_pivot_rows(const Mlcp& problem, const Eigen::MatrixXd& M,
                                                           double min_rcond) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  std::vector<Eigen::Index> rows;
  std::vector<bool> used(static_cast<std::size_t>(m), false);
  auto [rank, rcond] = rank_and_rcond(problem.A);
  if (rcond < min_rcond && n + m > kMaxPivotSearchSize) return std::nullopt;
  while (rcond < min_rcond) {
    Eigen::Index best = -1;
    std::pair<Eigen::Index, double> best_score{-1, 0.0};
    for (Eigen::Index j = 0; j < m; ++j) {
      if (used[static_cast<std::size_t>(j)]) continue;
      rows.push_back(j);
      const std::vector<Eigen::Index> indices = block_indices(n, rows);
      const auto score = rank_and_rcond(M(indices, indices));
      rows.pop_back();
      // Each added row adds one to P's size: its rank deficiency is size − rank.
      if (best < 0 || score.first > best_score.first ||
          (score.first == best_score.first && score.second > best_score.second)) {
        best = j;
        best_score = score;
      }
    }
    // Stop when no row helps. A row and column added to P raise its rank by 0, 1 or 2, so its
    // deficiency size − rank grows, stays or shrinks: a row is taken when the deficiency does not
    // grow and either P is still singular (a later row may complete it) or its rcond improves.
    if (best < 0) return std::nullopt;
    const Eigen::Index size = n + static_cast<Eigen::Index>(rows.size());
    const bool deficiency_grows = best_score.first < rank + 1;
    const bool still_singular = best_score.first < size + 1;
    if (deficiency_grows || (!still_singular && rank == size && best_score.second <= rcond)) return std::nullopt;
    rows.push_back(best);
    used[static_cast<std::size_t>(best)] = true;
    rank = best_score.first;
    rcond = best_score.second;
  }
  return rows;
}

std::string index_list(const std::vector<Eigen::Index>& indices) {
  std::string text;
  for (const Eigen::Index i : indices) text += (text.empty() ? "" : ", ") + std::to_string(i);
  return "{" + text + "}";
}

Result solve_lemke_pivoted(const Mlcp& problem, const SolveOptions& options, const Eigen::MatrixXd& M,
                           const std::vector<Eigen::Index>& J) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  const auto j_count = static_cast<Eigen::Index>(J.size());
  std::vector<bool> in_j(static_cast<std::size_t>(m), false);
  for (const Eigen::Index j : J) in_j[static_cast<std::size_t>(j)] = true;
  std::vector<Eigen::Index> K;  // the complementarity rows outside J
  for (Eigen::Index j = 0; j < m; ++j) {
    if (!in_j[static_cast<std::size_t>(j)]) K.push_back(j);
  }
  const std::vector<Eigen::Index> p_index = block_indices(n, J);
  std::vector<Eigen::Index> k_index;
  for (const Eigen::Index k : K) k_index.push_back(n + k);
  const Eigen::VectorXd q = problem.offset();

  const EquilibratedLu lu(M(p_index, p_index));
  // X = P⁻¹ E_J (the columns of P⁻¹ for the J rows), Y = P⁻¹ M_PK, y0 = P⁻¹ q_P.
  Eigen::MatrixXd unit = Eigen::MatrixXd::Zero(n + j_count, j_count);
  unit.bottomRows(j_count).setIdentity();
  const Eigen::MatrixXd X = lu.solve(unit);
  const Eigen::MatrixXd M_pk = M(p_index, k_index);
  const Eigen::MatrixXd Y = lu.solve(M_pk);
  const Eigen::VectorXd q_p = q(p_index);
  const Eigen::VectorXd y0 = lu.solve(q_p);
  const Eigen::MatrixXd M_kp = M(k_index, p_index);

  Lcp transformed;
  transformed.M.resize(m, m);
  transformed.M.topLeftCorner(j_count, j_count) = X.bottomRows(j_count);
  transformed.M.topRightCorner(j_count, m - j_count) = -Y.bottomRows(j_count);
  transformed.M.bottomLeftCorner(m - j_count, j_count) = M_kp * X;
  transformed.M.bottomRightCorner(m - j_count, m - j_count) = M(k_index, k_index) - M_kp * Y;
  transformed.q.resize(m);
  transformed.q.head(j_count) = -y0.tail(j_count);
  transformed.q.tail(m - j_count) = q(k_index) - M_kp * y0;
  if (!transformed.M.allFinite() || !transformed.q.allFinite()) {
    Result result = make_result(problem, Eigen::VectorXd::Zero(n + m), Method::Lemke);
    result.status = Status::NumericalFailure;
    result.message = "the pivoted LCP overflowed";
    return result;
  }

  SolveOptions inner = derived_options(options);
  if (options.lemke.covering_vector) {
    const Eigen::VectorXd d = options.lemke.covering_vector->tail(m);
    Eigen::VectorXd covering(m);
    covering << d(J), d(K);
    inner.lemke.covering_vector = std::move(covering);
  }
  const Result lcp = solve(transformed, Method::Lemke, inner);

  // x = (u, v_J) = X w_J − Y v_K − y0.
  const auto to_mlcp = [&](const Eigen::VectorXd& zeta, bool direction) {
    const Eigen::VectorXd x = X * zeta.head(j_count) - Y * zeta.tail(m - j_count) - (direction ? 0.0 : 1.0) * y0;
    Eigen::VectorXd z(n + m);
    z.head(n) = x.head(n);
    for (Eigen::Index i = 0; i < j_count; ++i) z[n + J[static_cast<std::size_t>(i)]] = x[n + i];
    for (std::size_t i = 0; i < K.size(); ++i) z[n + K[i]] = zeta[j_count + static_cast<Eigen::Index>(i)];
    return z;
  };
  Result result = make_result(problem, to_mlcp(lcp.z, false), Method::Lemke);
  result.iterations = lcp.iterations;
  result.history = lcp.history;
  if (lcp.ray) result.ray = to_mlcp(*lcp.ray, true);
  const std::string how = J.empty() ? "u pivoted in first (A well conditioned): "
                                    : "u pivoted in first with v_J, J = " + index_list(J) + " (A has rank " +
                                          std::to_string(Eigen::FullPivLU<Eigen::MatrixXd>(problem.A).rank()) + " of " +
                                          std::to_string(n) + " or is ill-conditioned): ";
  if (lcp.solved()) {
    detail::judge(result, options.tolerance, Status::NumericalFailure,
                  how + "Lemke solved the pivoted LCP but the recovered (u, v_J) miss the tolerance");
    if (result.solved()) result.message = how + lcp.message;
    return result;
  }
  result.status = lcp.status;
  result.message = how + lcp.message;
  return result;
}

}  // namespace

Result solve_lemke(const Mlcp& problem, const SolveOptions& options) {
  const Eigen::MatrixXd M = problem.matrix();
  if (const auto J = choose_pivot_rows(problem, M, options.mlcp.schur_min_rcond)) {
    return solve_lemke_pivoted(problem, options, M, *J);
  }
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  Lcp split;
  split.M.resize(2 * n + m, 2 * n + m);
  split.M << problem.A, -problem.A, problem.C,  //
      -problem.A, problem.A, -problem.C,        //
      problem.D, -problem.D, problem.B;
  split.q.resize(2 * n + m);
  split.q << problem.a, -problem.a, problem.b;

  SolveOptions inner = derived_options(options);
  if (options.lemke.covering_vector) {
    const Eigen::VectorXd& d = *options.lemke.covering_vector;
    Eigen::VectorXd covering(2 * n + m);
    covering << d.head(n), d.head(n), d.tail(m);
    inner.lemke.covering_vector = std::move(covering);
  }
  const Result lcp = solve(split, Method::Lemke, inner);

  Eigen::VectorXd z(n + m);
  z.head(n) = lcp.z.head(n) - lcp.z.segment(n, n);
  z.tail(m) = lcp.z.tail(m);
  Result result = make_result(problem, std::move(z), Method::Lemke);
  result.iterations = lcp.iterations;
  result.history = lcp.history;
  if (lcp.ray) {
    Eigen::VectorXd ray(n + m);
    ray.head(n) = lcp.ray->head(n) - lcp.ray->segment(n, n);
    ray.tail(m) = lcp.ray->tail(m);
    result.ray = std::move(ray);
  }
  const std::string on_split =
      " (no well-conditioned pivot block for u, so on the split LCP of size 2n + m = " + std::to_string(2 * n + m) +
      ")";
  if (lcp.solved()) {
    detail::judge(result, options.tolerance, Status::NumericalFailure,
                  "Lemke solved the split LCP but u = u⁺ − u⁻ misses the tolerance");
    if (result.solved()) result.message = lcp.message + on_split;
    return result;
  }
  result.status = lcp.status;
  result.message = lcp.message + on_split;
  if (lcp.status == Status::RayTermination) {
    result.message += "; M'' is not copositive-plus, so the ray does not prove the MLCP infeasible";
  }
  return result;
}

}  // namespace perp::mlcp_detail
