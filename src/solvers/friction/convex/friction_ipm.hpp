#pragma once
// Private: the interior point on programs of the velocities (friction_ipm.cpp), behind
// interior-point on a FrictionContact (planar here; in 3D it hands over to cone_ipm.hpp) and on a
// FactoredLcp. Not installed.

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <functional>
#include <string>
#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "entry/scratch.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

/// The convex program of the velocities v of the moving degrees of freedom
///   min ½ vᵀ M v  subject to  A v + e >= 0,
/// whose multipliers λ >= 0 (M v = Aᵀ λ) solve the LCP 0 <= λ ⊥ A M⁻¹ Aᵀ λ + e >= 0. M is
/// diagonal and positive, so the program has one v even where the rows of A are redundant (λ then
/// is not unique), and its Newton matrix M + Aᵀ D A (D = diag(λ/s) > 0) is positive definite.
struct ConeProgram {
  Eigen::SparseMatrix<double, Eigen::RowMajor> A;  ///< rows × nf, on the moving columns
  Eigen::SparseMatrix<double> At;                  ///< Aᵀ
  Eigen::VectorXd mass;                            ///< nf: M, 1/M⁻¹ of each moving column
  std::vector<Eigen::Index> columns;               ///< nf: the moving columns among the original ones
  Eigen::VectorXd row_diagonal;                    ///< rows: d_k = (A M⁻¹ Aᵀ)_kk, impulse to velocity

  /// A restricted to the columns with M⁻¹ > 0 that some row touches (the others keep v = 0).
  static ConeProgram restricted(const Eigen::SparseMatrix<double, Eigen::RowMajor>& A,
                                const Eigen::VectorXd& inverse_mass);
};

/// How the interior point ended: the multipliers with the smallest error seen, that error, the
/// steps taken and why it stopped.
struct InteriorOutcome {
  Eigen::VectorXd lambda;
  double error = 0;
  int steps = 0;
  std::string stop;
  bool limit_reached = false;  ///< stopped by the step limit (not by a stall or a failed step)
};

/// Mehrotra's predictor-corrector, with up to three of Gondzio's centrality correctors a step
/// (docs/references.md: Gondzio 1996), on the program from λ0 (v = M⁻¹ Aᵀ λ0, pushed inside the
/// orthant), until `error_of(λ)` <= tolerance, `limit` steps, no halving of the error in
/// `stall_window` steps (0: no such test) — or in `near_window` steps once the error has come
/// within kNearTolerances tolerances and below kNearFloor (0: the same window throughout) —, or a step that multiplies
/// an error already below 1e-4 a millionfold (round-off; the best point is returned).
/// After each step `after_step(λ, program_error, error)` may change e (the shift of a frictional
/// problem), or return true to stop (it found a point that solves, e.g. by a crossover from λ);
/// program_error is the program's own residual at the current e (its infeasibility and gap in the
/// scales of s and λ). `history`, when not null, gets the error after each step.
InteriorOutcome mehrotra_on_cones(const ConeProgram& program, Eigen::VectorXd& e, const Eigen::VectorXd& lambda0,
                                  const std::function<double(const Eigen::VectorXd&)>& error_of,
                                  const std::function<bool(const Eigen::VectorXd&, double, double)>& after_step, double tolerance,
                                  int limit, int stall_window, std::vector<double>* history, int near_window = 0);

/// `mehrotra_on_cones`' `near_window` applies once the error is below this many tolerances and
/// below kNearFloor: it is for the round-off floor of the last steps (near 1e-8 on the 10 000-disk
/// heap), not for a loose tolerance's middle steps (at a tolerance of 1e-6, 1e4 tolerances is 1e-2,
/// where that heap's landing steps still take 8 steps to halve their error and went on to solve:
/// bench/README.md, "The crossover's gate (stop 48)").
inline constexpr double kNearTolerances = 1e4;
inline constexpr double kNearFloor = 1e-6;

/// N_B + εI for a set B of the program's rows, N = A M⁻¹ Aᵀ, on the pattern of every row's N fixed
/// once: the rows off B are the identity there (their entries zero, diagonal 1), so that each set B
/// is factored numerically on one symbolic analysis (one AMD ordering for a solve's crossovers).
/// Each product A_kc A_lc / M_c of a column c shared by rows k >= l is found at construction with
/// where it lands in the value array.
class ActiveRowsFactor {
 public:
  explicit ActiveRowsFactor(const ConeProgram& program);
  /// Factors N_B + εI, ε = `regularization` times the largest diagonal of N_B; false where B is
  /// empty or the factorization failed.
  [[nodiscard]] bool factorize(const std::vector<char>& in, double regularization);
  /// (N_B + εI)⁻¹ rhs (rhs zero off B) for the last B factored.
  [[nodiscard]] Eigen::VectorXd solve(const Eigen::VectorXd& rhs) const { return factor_.solve(rhs); }
  /// ε of the last factorization.
  [[nodiscard]] double shift() const { return shift_; }

 private:
  struct Product {
    Eigen::Index position;
    int k, l;
    double value;
  };
  Eigen::SparseMatrix<double> matrix_;  ///< lower triangle
  std::vector<Eigen::Index> diagonal_;
  RecycledVector<Product> products_;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower, Eigen::AMDOrdering<int>> factor_;
  bool analyzed_ = false;
  double shift_ = 0;
};

/// The crossover from an interior point λ to the vertex it approximates: the active rows
/// B = {k : λ_k d_k > w_k} (w = A M⁻¹ Aᵀ λ + e, d_k row k's diagonal of A M⁻¹ Aᵀ), then a few Newton corrections on them,
/// λ_B −= (N + εI)⁻¹ w_B with N = A_B M⁻¹ A_Bᵀ and ε = 1e-12 of N's largest diagonal (the
/// corrections of iterated Tikhonov: N is singular where rows are redundant, its system
/// consistent), λ = 0 off B; then rounds of block pivoting on B (at most 4, and no
/// more once a round flips more than max(32, 1 %) of the rows). `factor` is the program's, kept by
/// the caller across crossovers. Returns the corrected multipliers (the caller keeps the better point).
[[nodiscard]] Eigen::VectorXd active_set_crossover(const ConeProgram& program, ActiveRowsFactor& factor,
                                                   const Eigen::VectorXd& e, const Eigen::VectorXd& lambda);

/// How `proximal_crossover` ended: the best point seen, its error, and the work done.
struct ProximalOutcome {
  Eigen::VectorXd lambda;
  double error = 0;
  int centres = 0;         ///< proximal points reached (each an exact solve of its regularized LCP)
  int factorizations = 0;  ///< sets of rows factored
};

/// The proximal point method on the LCP 0 <= λ ⊥ N λ + e >= 0 (N = A M⁻¹ Aᵀ), from λ0 (an interior
/// point's best, say): each proximal point solves the strongly monotone LCP
///   0 <= λ ⊥ N λ + e + ρ (λ − c) >= 0
/// about the centre c (the last point), by Newton on its active rows B — λ_B = (N_BB + ρI)⁻¹(ρ c_B −
/// e_B), λ = 0 off B, then B corrected from the signs of λ_B and of the others' residuals — and
/// the next centre is that point. ρ is `regularization` times N's largest diagonal on B. Where the
/// rows are redundant (N singular) λ is not unique: the proximal term keeps λ near the centre
/// along N's null space, where the unregularized crossover's Newton step jumps (its ε of 1e-12
/// amplifies what of e_B no λ_B reaches a trillion times). The factor is reused while B stays.
/// Stops once `error_of(λ)` <= tolerance, after `centres` proximal points, after `factorizations`
/// factorizations, or where a centre's Newton sets have not flipped fewer rows than before in six
/// factorizations (they cycle or grow: crossover.cpp); returns the best point seen, clamped at 0
/// (λ0 if none is better).
[[nodiscard]] ProximalOutcome proximal_crossover(const ConeProgram& program, ActiveRowsFactor& factor,
                                                 const Eigen::VectorXd& e, const Eigen::VectorXd& lambda0,
                                                 const std::function<double(const Eigen::VectorXd&)>& error_of,
                                                 double tolerance, double regularization, int centres,
                                                 int factorizations);

/// The planar cone's edges: A = the rows H_N,i + μ_i H_T,i and H_N,i − μ_i H_T,i per contact i, so
/// that r = λ₊ (1, μ) + λ₋ (1, −μ) and A's rows times v are the velocities along the edges' duals.
[[nodiscard]] Eigen::SparseMatrix<double, Eigen::RowMajor> edge_rows(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                                                     const Eigen::VectorXd& mu);
/// r from the edges' multipliers: r_N = λ₊ + λ₋, r_T = μ (λ₊ − λ₋).
void reaction_of(const Eigen::VectorXd& lambda, const Eigen::VectorXd& mu, Eigen::VectorXd& r);
/// The edges' multipliers of r (r_T/μ split evenly around r_N; μ = 0: r_N halved); negative where r
/// is outside the cone.
[[nodiscard]] Eigen::VectorXd multipliers_of(const Eigen::VectorXd& r, const Eigen::VectorXd& mu);

/// interior-point on a frictional contact problem given by its factors (d = 3: cone_ipm.hpp's
/// `solve_coulomb_cone_interior_point`; the rest of this comment is the planar method),
/// W = H M⁻¹ Hᵀ (M⁻¹ = diag(inverse_mass)); `shell` carries q and μ (its W is not read).
///
/// In the plane the cone K_μ has two edges, r = λ₊ (1, μ) + λ₋ (1, −μ) with λ >= 0, and Coulomb's
/// law with de Saxcé's shift s_i = μ_i |u_T,i| is K_μ ∋ r ⊥ û = u + s e_N ∈ K_μ*, i.e. the LCP in λ
/// of the program above with A = the edges times H and e = q_N + s ± μ q_T. Each program (fixed s)
/// is solved by `mehrotra_on_cones`; s is updated from the velocities reached once the program's
/// residual is below a tenth of the frictional error (a fixed point on s, which converges where
/// friction couples weakly and may not in packed heaps). Then a crossover: nsgs sweeps from the
/// best point. z = r; iterations: steps and sweeps; `finish` recomputes w and the residual.
[[nodiscard]] Result solve_friction_interior_point(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H,
                                                   const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                                                   const SolveOptions& options, const Eigen::VectorXd& r0);

/// The same on a problem given by W: W must be symmetric positive semidefinite, and is factored as
/// Pᵀ L D Lᵀ P (sparse LDLᵀ without pivoting, AMD order), so that H = Pᵀ L and M⁻¹ = D. Where
/// that breaks down (a singular W, or one semidefinite only to round-off), W + εI is factored
/// instead, ε = 1e-10, 1e-8, 1e-6 × max|W_ij| in turn, the program solved on it and its point
/// polished by nsgs on W (the message says ε). Not applicable (with the reason) when W is not
/// symmetric, or when no ε of those makes the factorization succeed.
[[nodiscard]] Result solve_friction_interior_point(const FrictionContact& problem, const SolveOptions& options,
                                                   const Eigen::VectorXd& r0);

}  // namespace perp::detail
