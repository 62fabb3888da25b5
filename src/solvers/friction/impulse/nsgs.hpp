#pragma once
// Private: the non-smooth block Gauss–Seidel kernel of the frictional contact problem (nsgs), its
// exact one-contact solvers, and the proximal-point loop around it (prox). Not installed.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "perp/core/friction_contact.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"
#include "stall_rule.hpp"

namespace perp::detail {

/// The one-contact problem in 2D: find r (normal, tangential) with u = A r + b in the Coulomb law
/// K_μ ∋ r ⊥ u + μ|u_T| e_N ∈ K_μ*. A is 2×2, row-major {A_NN, A_NT, A_TN, A_TT}, not assumed
/// symmetric. Closed form over take-off (b_N >= 0 → r = 0), stick (A r = −b inside the cone),
/// slide with r_T = −μ r_N (u_T >= 0) and slide with r_T = +μ r_N (u_T <= 0), in that order; μ = 0
/// gives r_T = 0, r_N = max(0, −b_N/A_NN). Returns true when a case holds exactly; otherwise (a
/// degenerate or indefinite block, or a boundary case missed by round-off) r is the candidate
/// with the smallest violation, or 0 when no case could be formed, and it returns false.
bool solve_local_2d(const double* A, double mu, const double* b, double* r);

/// The 2D block with the reciprocals its closed form needs, computed once per contact (and ρ) so
/// that a sweep divides nothing.
struct alignas(64) Local2d {
  double a = 0, b = 0, c = 0, e = 0;  ///< A_NN, A_NT, A_TN, A_TT
  double inv_det = 0;                 ///< 1/det A; 0 when det A is 0 or its reciprocal not finite
  double inv_forward = 0;             ///< 1/(a − μb) when a − μb > 0, else 0 (slide forward impossible)
  double inv_backward = 0;            ///< 1/(a + μb) when a + μb > 0, else 0
  double inv_a = 0;                   ///< 1/a when a > 0, else 0
};
[[nodiscard]] Local2d prepare_local_2d(const double* A, double mu);
/// `solve_local_2d` on a prepared block (the same cases, no division).
bool solve_local_2d(const Local2d& block, double mu, const double* b, double* r);

/// The exact cases of `solve_local_2d` on a prepared block, inline for the sweeps' inner loop:
/// every case at once and a selection without branches on the (unpredictable) case, in the order
/// of preference take-off, stick, slide forward, slide backward (μ = 0 falls into the slides with
/// r_T = 0). Returns false, r untouched, when no case holds exactly: `solve_local_2d` then picks
/// the closest candidate.
inline bool solve_local_2d_exact(const Local2d& L, double mu, const double* bias, double* r) {
  const double bn = bias[0], bt = bias[1];
  const bool take_off = bn >= 0;  // r = 0, u = b with u_N >= 0
  // Stick: A r = −b inside the cone.
  const double stick_n = (-L.e * bn + L.b * bt) * L.inv_det;
  const double stick_t = (L.c * bn - L.a * bt) * L.inv_det;
  const bool stick = L.inv_det != 0 && stick_n >= 0 && std::abs(stick_t) <= mu * stick_n;
  // Slide: r_T = −s μ r_N, u_N = 0, s u_T >= 0 (s = +1: sliding forward, the reaction backward);
  // b_N < 0, so r_N = −b_N/(a − sμb) >= 0 needs a − sμb > 0 (inv_forward/backward != 0).
  const double forward_n = -bn * L.inv_forward;
  const double forward_ut = (L.c - mu * L.e) * forward_n + bt;
  const bool forward = L.inv_forward != 0 && forward_ut >= 0;
  const double backward_n = -bn * L.inv_backward;
  const double backward_ut = (L.c + mu * L.e) * backward_n + bt;
  const bool backward = L.inv_backward != 0 && backward_ut <= 0;
  if (!(take_off | stick | forward | backward)) return false;
  r[0] = take_off ? 0.0 : stick ? stick_n : forward ? forward_n : backward_n;
  r[1] = take_off ? 0.0 : stick ? stick_t : forward ? -mu * forward_n : mu * backward_n;
  return true;
}

/// The same in 3D (A 3×3 row-major, r and b of 3 entries). Take-off, μ = 0 and stick in closed
/// form (`inverse`: A⁻¹ row-major, or null when A is singular); otherwise a damped semismooth
/// Newton on the Alart–Curnier function from the r given, with the projection iteration
/// r ← P_K(r − ρ(A r + b + μ‖u_T‖ e_N)) as the fallback. Returns true when the local relative error
/// max(‖b‖, ‖r‖, ‖u‖)⁻¹‖r − P_K(r − û)‖ is <= `tolerance` or Newton's step fell to round-off.
bool solve_local_3d(const double* A, const double* inverse, double mu, const double* b, double* r, double tolerance,
                    int iterations);

/// The local relative error of one contact's r against u = A r + b (the quantity above).
double local_error(const double* A, int dimension, double mu, const double* b, const double* r);

/// The one-contact problems of a sweep: the diagonal blocks A_i (d×d, row-major) prepared once for
/// their exact local solvers (2D: the closed form's reciprocals; 3D: A_i⁻¹ where A_i is reasonably
/// conditioned).
class LocalProblems {
 public:
  LocalProblems(int dimension, const FrictionContactOptions& options)
      : d_(dimension), local_iterations_(options.local.iterations), local_tolerance_(options.local.tolerance) {}
  /// Takes the blocks (nc·d·d values) and prepares them for the coefficients μ.
  void prepare(std::vector<double> blocks, const Eigen::VectorXd& mu);
  /// The local problem of contact i with the bias b (u_i = A_i x + b), from x; true when exact.
  template <int D>
  bool solve(Eigen::Index i, double mu, const double* b, double* x) const {
    if constexpr (D == 2) {
      const Local2d& block = local2_[static_cast<std::size_t>(i)];
      return solve_local_2d_exact(block, mu, b, x) || solve_local_2d(block, mu, b, x);
    } else {
      const double* inv = invertible_[static_cast<std::size_t>(i)] ? inverse_.data() + i * 9 : nullptr;
      return solve_local_3d(blocks_.data() + i * 9, inv, mu, b, x, local_tolerance_, local_iterations_);
    }
  }
  [[nodiscard]] const double* block(Eigen::Index i) const { return blocks_.data() + i * d_ * d_; }

 private:
  int d_;
  int local_iterations_;
  double local_tolerance_;
  std::vector<double> blocks_;   // nc blocks of d·d
  std::vector<Local2d> local2_;  // 2D: the prepared blocks
  std::vector<double> inverse_;  // 3D: nc blocks of 9, A_i⁻¹
  std::vector<char> invertible_;  // 3D
};

/// W held for sweeps: a row-major copy of its off-diagonal blocks (a contact's b_i costs the
/// nonzeros of its d rows outside W_ii) and the d×d diagonal blocks W_ii, plus ρ I when a proximal
/// shift is set. Products W·r use the problem's own W, which must outlive the sweeper.
class ContactSweeper {
 public:
  explicit ContactSweeper(const FrictionContact& problem, const FrictionContactOptions& options);

  /// The local blocks become W_ii + ρI (ρ >= 0); the product and the off-diagonal part are unchanged.
  void set_shift(double rho);
  [[nodiscard]] double shift() const { return shift_; }

  /// One Gauss–Seidel sweep over the contacts on u = (W + ρI) r + q. Allocates nothing. Returns
  /// the number of local solves that were not exact.
  Eigen::Index sweep(const Eigen::VectorXd& q, Eigen::VectorXd& r);

  /// out = W r (no shift). Allocates nothing.
  void product(const Eigen::VectorXd& r, Eigen::VectorXd& out) const;
  /// out += W r. Allocates nothing.
  void add_product(const Eigen::VectorXd& r, Eigen::VectorXd& out) const;

  /// The mean of W's diagonal (for prox's first ρ).
  [[nodiscard]] double mean_diagonal() const;

 private:
  template <int D>
  void split_blocks();
  template <int D>
  Eigen::Index sweep_fixed(const Eigen::VectorXd& q, Eigen::VectorXd& r);

  int d_;
  Eigen::Index nc_;
  const Eigen::SparseMatrix<double>& W_;                            // the problem's, for products
  std::vector<int> row_start_;                                      // W without its diagonal blocks, by rows:
  std::vector<int> columns_;                                        // row i's columns and values at
  std::vector<double> values_;                                      // row_start_[i] … row_start_[i + 1]
  std::vector<double> diagonal_;                                    // nc blocks of d·d, row-major: W_ii
  std::vector<int> block_start_;     // 3D, where W's off-diagonal blocks are dense enough (kDenseBlocks;
  std::vector<int> block_contact_;   // the rows above are then released): contact i's blocks W_ij
  std::vector<double> block_values_;  // (row-major, 9 values each) at block_start_[i] … block_start_[i + 1],
                                      // their j; else empty
  LocalProblems local_;                                             // W_ii + ρI
  const Eigen::VectorXd& mu_;
  double shift_ = 0;
  double omega_;
  ContactOrder order_kind_;
  std::vector<Eigen::Index> order_;
  std::mt19937_64 random_;
};

/// The options of nsgs run as another method's crossover or polish: `options` with at most `sweeps`
/// sweeps and no history of their own.
inline SolveOptions polish_options(const SolveOptions& options, int sweeps) {
  SolveOptions polish = options;
  polish.max_iterations = sweeps;
  polish.record_history = false;
  return polish;
}

/// What a run of sweeps ended with.
struct SweepOutcome {
  Status status = Status::MaxIterations;
  int sweeps = 0;
  double error = 0;
  Eigen::Index local_failures = 0;  ///< local solves that were not exact, over all sweeps
  std::string message;
  /// u = (W + ρI) r + q' and the residuals of the shifted problem at the returned r (every return
  /// follows an error check of that r).
  Eigen::VectorXd u;
  FrictionContactResiduals residuals;
};

/// Sweeps on u = (W + ρI) r + q' (ρ the sweeper's shift, q' = `shifted.q`; `shifted` carries d,
/// μ and q', its W is not read) from r, until the relative error of that problem is <= tolerance
/// or `limit` sweeps. The error is checked before the first sweep (0 sweeps when r solves), after
/// sweeps 1, 2, 4, 8, … below `error_every`, then every `error_every` sweeps and at the last. r ends finite (the last
/// finite iterate when the sweeps diverge). `history`, when not null, gets the error of each check.
/// `stall_stop`: also end, with `Status::NoSolutionFound`, where the error sequence says the sweeps
/// cannot reach the tolerance (`kNsgsStall`); off, only the tolerance and `limit` stop the sweeps.
/// `handoff` (with `stall_stop`): the rule is `kNsgsHandoff` on a horizon of `limit` sweeps instead.
SweepOutcome run_sweeps(ContactSweeper& sweeper, const FrictionContact& shifted, Eigen::VectorXd& r, double tolerance,
                        int limit, int error_every, std::vector<double>* history, bool stall_stop = false,
                        bool handoff = false);

/// nsgs' stop on progress (issue 38): `StallRule` (stall_rule.hpp) on the error checks of one run
/// of sweeps, steps = sweeps, horizon = max(`limit`, `kDefaultSweeps`): a run cut into parts
/// (auto's continued nsgs) is judged on the whole budget. A flat or rising error stops at the end of
/// its second window (~200 sweeps); a falling one not before 1 000 sweeps (auto's first nsgs runs
/// its 1 000 in full): a run whose error falls slowly at first may speed up (Capsules-i125-1213,
/// cut at 200 sweeps by the projection, solves when let run). The first window counts from the
/// first sweep's error, not the start's: a start from another method's point (auto's newton-ac) is
/// often better than where the first sweeps go before they fall again (Capsules-i125-1213: 6e-7
/// there, 1.8e-6 after 100).
/// Applied by nsgs on 3D problems only: the 2D heaps of auto's continued nsgs stay flat or even rise
/// for up to 10 000 sweeps before the contact statuses settle and the error falls to the tolerance
/// in a few hundred (friction_contact.cpp, continued_nsgs), so no rule on the error alone tells
/// them from a stall there; in 3D the measured runs that went on for 10 000 sweeps without solving
/// (fuzz/regressions/friction/, issue 38) were flat from the first hundred sweeps or slowed as a
/// power law whose projection ended above the tolerance.
inline constexpr StallRule kNsgsStall{};  // the defaults: first window 100 sweeps, projection from 1 000

/// The hand-over to newton-ac of auto's first nsgs on a 3D problem given by W (friction_contact.cpp,
/// solve_auto; not the time step's sweeps on the factors, see docs/solvers.md "auto"): windows of
/// 25 sweeps doubling (ended at the error check they reach: sweeps 30, 60, 120, … with checks every
/// 10), the projection to the end of the run's own budget (`nsgs_sweeps`, not `kDefaultSweeps`),
/// and a falling run may end at the end of any window from the second on (the first, from sweep 1,
/// holds the fast first drop and projects too well to stop anything). A run whose rate says its
/// budget would not reach the tolerance hands its point over at once instead of sweeping to the end
/// of the budget: newton-ac's quadratic tail finishes what nsgs' linear one would not
/// (bench/README.md, "auto's hand-over from nsgs in 3D"). Windows of 100 (hand-over from sweep 200)
/// were tried first: on Siconos' 3D files every file solves the same either way, and the shorter
/// windows take the Capsules files from 10-12 to 6-10 ms (their nsgs ran 200-400 sweeps before a
/// newton-ac from r = 0 that does not use its point), OneObject-i100000-499 from 1.8 to 1.1 ms.
inline constexpr StallRule kNsgsHandoff{.min_steps = 25, .slowing = 0.75, .flat = 0.00995, .project_from = 50};

/// nsgs on `problem` from r0. The returned Result has z, w = W z + q (formed from the returned z),
/// iterations, history, status and message; `residuals` (not null) gets the residuals of (z, w).
/// The start point is checked before anything is prepared: a warm start that solves costs one
/// product and one residual pass.
/// `handoff` (auto's first nsgs in 3D): the stop on progress is `kNsgsHandoff` on the run's own limit.
Result solve_nsgs(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0,
                  FrictionContactResiduals& residuals, bool handoff = false);

/// nsgs on the factored form W = H M⁻¹ Hᵀ (`FactoredFrictionContact`), from r0: sweeps on
/// v = M⁻¹ Hᵀ r; each error check recomputes v and u = H v + q from r (never accumulated), so the
/// returned w and `residuals` are those of the returned z. `shell` carries d, q and μ (its W is
/// not read). Same checks and messages as `solve_nsgs`. An uncompressed H (filled by insert()) is
/// swept as a compressed copy.
/// `status_solve` (auto's first attempt, not the method "nsgs"): on a planar problem of at most
/// `kStatusSolveMaxContacts` contacts swept without relaxation, at a tolerance of at least 1e-12
/// (nsgs_factored.cpp: kStatusSolveMinTolerance), after a sweep where every
/// contact's status (take-off, stick, slide forward or backward) is the one it had after the sweep
/// before (at the start: the start point's; the error itself is then checked at the start and,
/// with more than one contact, from sweep 4 on, not at sweeps 1 and 2), the point those statuses define is solved for directly (W formed, the reduced linear
/// system by LU) and returned when it meets the tolerance and no contact approaches (auto's
/// judgement); otherwise the sweeps go on from their own point. Each status set is tried once.
Result solve_nsgs_factored(const Eigen::SparseMatrix<double, Eigen::RowMajor>& H, const Eigen::VectorXd& inverse_mass,
                           const FrictionContact& shell, const SolveOptions& options, const Eigen::VectorXd& r0,
                           FrictionContactResiduals& residuals, bool status_solve = false);

/// The largest planar problem (contacts) on which `solve_nsgs_factored` tries the status solve:
/// W (2m × 2m) is formed and factored densely there, O(m³) against a sweep's O(nnz(H)).
inline constexpr Eigen::Index kStatusSolveMaxContacts = 32;

/// The message's note on local solves that were not exact ("" when there were none).
[[nodiscard]] std::string failures_note(Eigen::Index failures);

/// prox (prox.cpp): proximal point on W + ρI around the current r, each subproblem by nsgs.
Result solve_prox(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0);

}  // namespace perp::detail
