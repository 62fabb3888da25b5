#include "friction_shift.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "friction/impulse/anderson.hpp"
#include "entry/detail.hpp"
#include "friction_ipm.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/factored_lcp.hpp"

namespace perp::detail {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using ColSparse = Eigen::SparseMatrix<double>;

/// Each convex program is solved this much tighter than the frictional tolerance, so that the
/// error left is the shift's, not the program's.
constexpr double kProgramTightening = 1e-2;
/// The outer iterations when `max_iterations` is not set.
constexpr int kShiftUpdates = 50;
/// The fixed point is given up when its error has not fallen below this fraction of its best over
/// `kShiftStallWindow` updates.
constexpr double kShiftStallFactor = 0.5;
constexpr int kShiftStallWindow = 4;
/// Anderson acceleration of the fixed point s = g(s): the differences kept, and the error growth
/// (over the best) that restarts it.
constexpr int kShiftAndersonDepth = 8;
constexpr double kShiftRestart = 2.0;
/// The Newton point's system: ε over its largest diagonal, and the corrections made.
constexpr double kNewtonRegularization = 1e-12;
constexpr int kNewtonPasses = 4;
/// `solve_at_rest` tries the relaxation where every |u_T| at the start is within kRestGate ×
/// (relative error) × ‖q‖∞, and within kRestCap × ‖q‖∞: on a 20-row pyramid from rest, after 1 000
/// sweeps, |u_T| <= 4e-4 ‖q‖∞ at an error of 1e-4; on a settling heap of 100 disks |u_T| reached
/// 0.2–1.1 ‖q‖∞ at errors of 1e-9–1e-3.
constexpr double kRestGate = 100.0;
constexpr double kRestCap = 1e-2;

/// A contact's status in the Newton system: which of the cone's edges carry its reaction.
enum class Contact : char {
  Open,        ///< r = 0
  Sticking,    ///< both edges: u = 0
  SlidingUp,   ///< the edge (1, −μ) alone, u_T > 0: r_T = −μ r_N, u_N = 0
  SlidingDown  ///< the edge (1, μ) alone, u_T < 0: r_T = μ r_N, u_N = 0
};

/// The statuses of a program's solution λ: its rows with λ_k > 0.
std::vector<Contact> statuses_of(const Eigen::VectorXd& lambda) {
  std::vector<Contact> statuses(static_cast<std::size_t>(lambda.size() / 2));
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    const bool plus = lambda[static_cast<Eigen::Index>(2 * i)] > 0;
    const bool minus = lambda[static_cast<Eigen::Index>(2 * i + 1)] > 0;
    statuses[i] = plus && minus ? Contact::Sticking
                  : minus       ? Contact::SlidingUp
                  : plus        ? Contact::SlidingDown
                                : Contact::Open;
  }
  return statuses;
}

/// Coulomb's law with the contacts' statuses held: the rows of the loaded edges (B) with the shift
/// s_i = μ_i σ_i u_T,i (σ = +1 sliding up, −1 sliding down, 0 otherwise) linear in v,
///   (A_k + μ_i σ_i H_T,i) v + q_N,i ± μ_i q_T,i + μ_i σ_i q_T,i = 0,  v = M⁻¹ A_Bᵀ λ_B,
/// i.e. u = 0 where sticking and u_N = 0 with r on the edge that opposes the sliding where sliding:
/// a square system in λ_B, not symmetric, singular where rows are redundant and consistent, so it
/// is solved with ε = 1e-12 of its largest diagonal and corrected by iterated Tikhonov as the
/// crossover is. Returns the edges' multipliers (0 off B, not clamped), or nothing when the
/// factorization fails.
std::optional<Eigen::VectorXd> held_point(const RowSparse& A, const RowSparse& H, const Eigen::VectorXd& inverse_mass,
                                          const FrictionContact& shell, const std::vector<Contact>& statuses) {
  const Eigen::VectorXd& mu = shell.mu;
  const Eigen::VectorXd& q = shell.q;
  std::vector<Eigen::Index> active;
  std::vector<Eigen::Triplet<double>> plain;
  std::vector<Eigen::Triplet<double>> shifted;
  std::vector<double> rhs;
  bool sliding = false;  // a loaded contact whose row carries μσ H_T (K not symmetric)
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    const Contact status = statuses[static_cast<std::size_t>(i)];
    const double sigma = status == Contact::SlidingUp ? 1.0 : status == Contact::SlidingDown ? -1.0 : 0.0;
    if (sigma != 0.0 && mu[i] != 0.0) sliding = true;
    for (int edge = 0; edge < 2; ++edge) {
      const bool loaded = status == Contact::Sticking || (edge == 1 && status == Contact::SlidingUp) ||
                          (edge == 0 && status == Contact::SlidingDown);
      if (!loaded) continue;
      const Eigen::Index k = 2 * i + edge;
      const auto row = static_cast<Eigen::Index>(active.size());
      for (RowSparse::InnerIterator it(A, k); it; ++it) {
        plain.emplace_back(row, it.col(), it.value());
        shifted.emplace_back(row, it.col(), it.value());
      }
      if (sigma != 0.0) {
        for (RowSparse::InnerIterator it(H, 2 * i + 1); it; ++it) {
          shifted.emplace_back(row, it.col(), mu[i] * sigma * it.value());
        }
      }
      const double edge_sign = edge == 0 ? 1.0 : -1.0;
      rhs.push_back(-(q[2 * i] + edge_sign * mu[i] * q[2 * i + 1] + mu[i] * sigma * q[2 * i + 1]));
      active.push_back(k);
    }
  }
  const auto nb = static_cast<Eigen::Index>(active.size());
  Eigen::VectorXd point = Eigen::VectorXd::Zero(2 * mu.size());
  if (nb == 0) return point;
  RowSparse AB(nb, A.cols());
  AB.setFromTriplets(plain.begin(), plain.end());
  RowSparse TB(nb, A.cols());
  TB.setFromTriplets(shifted.begin(), shifted.end());
  const ColSparse scaled = ColSparse(TB) * inverse_mass.asDiagonal();
  const ColSparse K = scaled * ColSparse(AB.transpose());
  double largest = 0;
  for (Eigen::Index k = 0; k < nb; ++k) largest = std::max(largest, std::abs(K.coeff(k, k)));
  const double epsilon = kNewtonRegularization * (largest > 0 ? largest : 1.0);
  ColSparse regularized = K;
  for (Eigen::Index k = 0; k < nb; ++k) regularized.coeffRef(k, k) += epsilon;
  regularized.makeCompressed();
  const Eigen::Map<const Eigen::VectorXd> b(rhs.data(), nb);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(nb);
  const auto refine = [&](const auto& factor) {
    for (int pass = 0; pass < kNewtonPasses; ++pass) {
      const Eigen::VectorXd step = factor.solve(K * x - b);
      if (!step.allFinite()) return false;
      x -= step;
    }
    return true;
  };
  if (!sliding) {
    // Every loaded contact sticks: the shifted rows are the plain ones, K = A_B M⁻¹ A_Bᵀ is
    // symmetric positive semidefinite and K + εI definite, so a sparse LDLᵀ serves (a structure
    // from rest: on a 20-row pyramid's first step, 2 360 edges, it took a fraction of the LU's time).
    Eigen::SimplicialLDLT<ColSparse, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt;
    ldlt.compute(regularized);
    if (ldlt.info() != Eigen::Success || !refine(ldlt)) return std::nullopt;
  } else {
    Eigen::SparseLU<ColSparse, Eigen::COLAMDOrdering<int>> lu;
    lu.compute(regularized);
    if (lu.info() != Eigen::Success || !refine(lu)) return std::nullopt;
  }
  for (Eigen::Index k = 0; k < nb; ++k) point[active[static_cast<std::size_t>(k)]] = x[k];
  return point;
}

}  // namespace

Result solve_by_shifts(const RowSparse& H, const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                       const SolveOptions& options, const Eigen::VectorXd& r0, FrictionContactResiduals& residuals,
                       const std::optional<Eigen::VectorXd>& initial_shift) {
  Result result;
  result.method = Method::Auto;
  const Eigen::Index nc = shell.contacts();
  const Eigen::VectorXd& mu = shell.mu;
  const Eigen::VectorXd& q = shell.q;

  FactoredLcp program;
  program.A = edge_rows(H, mu);
  program.inverse_mass = inverse_mass;
  program.c.resize(2 * nc);
  int program_steps = 0;
  SolveOptions inner;
  inner.tolerance = kProgramTightening * options.tolerance;

  Eigen::VectorXd r = r0;
  Eigen::VectorXd u = detail::factored_product(H, inverse_mass, r, q);
  residuals = friction_contact_residuals(shell, r, u);
  Eigen::VectorXd best = r;
  double best_error = residuals.relative_error;
  FrictionContactResiduals best_residuals = residuals;
  double mark = best_error;
  int since_mark = 0;
  Eigen::VectorXd lambda = multipliers_of(r, mu).cwiseMax(0.0);
  // The shift s and its image g(s) = μ|u_T| at the velocities of the program solved with s.
  const auto image = [&]() {
    Eigen::VectorXd g(nc);
    for (Eigen::Index i = 0; i < nc; ++i) g[i] = mu[i] * std::abs(u[2 * i + 1]);
    return g;
  };
  Eigen::VectorXd shift = initial_shift ? *initial_shift : image();
  // Anderson's acceleration of s ↦ g(s): while the active sets of the programs do not change the
  // map is affine, and the plain iteration crawls at the rate of its largest eigenvalue (0.9–0.99
  // measured on heaps).
  AndersonMixing acceleration(kShiftAndersonDepth);
  const int limit = options.iteration_limit(kShiftUpdates);
  int updates = 0;
  int accelerated = 0;
  int newton_points = 0;
  int newton_kept = 0;
  std::string stop = "the update limit";
  while (best_error > options.tolerance) {
    if (updates == limit) break;
    if (const std::optional<Status> halt = detail::stop_requested()) {  // the pipeline's judgement names it
      stop = detail::stop_message(*halt, updates, "updates");
      break;
    }
    // e_± = q_N + s ± μ q_T.
    for (Eigen::Index i = 0; i < nc; ++i) {
      program.c[2 * i] = q[2 * i] + shift[i] + mu[i] * q[2 * i + 1];
      program.c[2 * i + 1] = q[2 * i] + shift[i] - mu[i] * q[2 * i + 1];
    }
    inner.initial_guess = lambda;
    const Result solved = solve(program, Method::InteriorPoint, inner);
    ++updates;
    program_steps += solved.iterations;
    if (!solved.z.allFinite()) {
      stop = "a program whose solve failed (" + solved.message + ")";
      break;
    }
    lambda = solved.z.cwiseMax(0.0);
    reaction_of(lambda, mu, r);
    u = detail::factored_product(H, inverse_mass, r, q);
    residuals = friction_contact_residuals(shell, r, u);
    // The Newton point of s = g(s) at this program's statuses (Coulomb's law with them held),
    // kept where it is better than the program's point; not sought where that point already
    // solves (a structure from rest: a third of the relaxation's time on a 20-row pyramid). (Block pivoting on the statuses from it was
    // tried: on packed heaps the held systems are singular, their λ not unique, and the pivots on
    // their signs diverged, to relative errors of 0.2–0.6.)
    if (const std::optional<Eigen::VectorXd> held =
            residuals.relative_error <= options.tolerance
                ? std::nullopt
                : held_point(program.A, H, inverse_mass, shell, statuses_of(lambda))) {
      ++newton_points;
      const Eigen::VectorXd held_lambda = held->cwiseMax(0.0);
      Eigen::VectorXd held_r(r.size());
      reaction_of(held_lambda, mu, held_r);
      const Eigen::VectorXd held_u = detail::factored_product(H, inverse_mass, held_r, q);
      const FrictionContactResiduals held_residuals = friction_contact_residuals(shell, held_r, held_u);
      if (held_residuals.relative_error < residuals.relative_error) {
        ++newton_kept;
        lambda = held_lambda;
        r = held_r;
        u = held_u;
        residuals = held_residuals;
        acceleration.restart();
      }
    }
    if (options.record_history) result.history.push_back(residuals.relative_error);
    if (residuals.relative_error > kShiftRestart * best_error) acceleration.restart();
    if (residuals.relative_error < best_error) {
      best_error = residuals.relative_error;
      best = r;
      best_residuals = residuals;
    }
    if (best_error <= kShiftStallFactor * mark) {
      mark = best_error;
      since_mark = 0;
    } else if (++since_mark == kShiftStallWindow) {
      stop = "a stall (the error did not halve in " + std::to_string(kShiftStallWindow) + " updates)";
      break;
    }
    Eigen::VectorXd g = image();
    if (std::optional<Eigen::VectorXd> combined = acceleration.combine(shift, g)) {
      g = *std::move(combined);
      ++accelerated;
    }
    shift = g.cwiseMax(0.0);
  }
  result.z = best;
  result.w = detail::factored_product(H, inverse_mass, best, q);
  residuals = best_residuals;
  result.residual = best_error;
  result.iterations = updates;
  result.status = best_error <= options.tolerance ? Status::Solved : Status::MaxIterations;
  result.message = "fixed point on de Saxce's shift: " + std::to_string(updates) +
                   " convex programs (the relaxed LCP on the cone's edges with q_N + s, each warm-started from the "
                   "last; " + std::to_string(program_steps) + " interior-point steps in all), " +
                   std::to_string(newton_points) + " Newton points (Coulomb's law with the programs' statuses held), " +
                   std::to_string(newton_kept) + " of them kept, " +
                   std::to_string(accelerated) + " Anderson steps; " +
                   (result.solved() ? std::string("solved") : "stopped by " + stop) + " at relative error " +
                   number_text(best_error);
  return result;
}

std::optional<Result> solve_at_rest(const RowSparse& H, const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                                    const SolveOptions& options, const Eigen::VectorXd& r0, double error,
                                    FrictionContactResiduals& residuals) {
  const Eigen::VectorXd u = detail::factored_product(H, inverse_mass, r0, shell.q);
  const double gate =
      std::min(kRestGate * std::max(error, options.tolerance), kRestCap) * shell.q.lpNorm<Eigen::Infinity>();
  for (Eigen::Index i = 0; i < shell.contacts(); ++i) {
    if (!(std::abs(u[2 * i + 1]) <= gate)) return std::nullopt;
  }
  SolveOptions once = options;
  once.max_iterations = 1;
  Result result = solve_by_shifts(H, inverse_mass, shell, once, r0, residuals, Eigen::VectorXd::Zero(shell.contacts()));
  result.message = "no contact sliding: Anitescu-Potra's relaxation, " + result.message;
  return result;
}

}  // namespace perp::detail
