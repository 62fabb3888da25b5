#include "friction_newton.hpp"

#include <Eigen/KLUSupport>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "entry/stop.hpp"

namespace perp::detail {
namespace {

using Sparse = Eigen::SparseMatrix<double>;
using StorageIndex = Sparse::StorageIndex;

// The regularization of the Newton matrix, H + εB (B's blocks on H's diagonal blocks: the Jacobian
// of the problem with W + ε max_j W_jj I): ε = clamp(relative error, kSmallestShift,
// kFirstLargeShift), ×100 on each of kShiftAttempts tries while the factorization fails. It
// vanishes with the error, so it keeps the quadratic tail, and it makes the system solvable where W is
// singular (more contact rows than degrees of freedom: Capsules, BoxesStack1), which it need not be.
constexpr double kSmallestShift = 1e-12;
constexpr double kFirstLargeShift = 1e-2;
constexpr int kShiftAttempts = 6;
// Progress: the smallest relative error fell by kProgress (relative). Without progress for
// kRestartSteps steps, restart from the best point after kRestartSweeps Gauss–Seidel sweeps;
// without progress for kStallSteps steps, stop.
constexpr double kProgress = 1e-3;
constexpr int kRestartSteps = 6;
constexpr int kRestartSweeps = 50;
constexpr int kStallSteps = 60;

// The Newton matrix's sparse LU: SuiteSparse's KLU (left-looking, no supernodes; AMD/COLAMD on the
// blocks of its block triangular form) where H has at most kKluMaxRows rows and W at most
// kKluMaxRowEntries entries a row on average, Eigen's SparseLU (supernodal, COLAMD) otherwise; the
// pattern analysed once. Measured (bench/README.md, "newton-ac's LU"; newton-ac alone at 1e-8, best
// of 3): KLU 1.4-2.7× faster on Siconos' Capsules (675-828 rows, 14-17 entries a row of W),
// FrictionContactProblem00071 and 00727 (178 and 734 rows), granularflowonwall_00667 (1 334) and
// RockPile_tob1 (1 389); slower where fill makes supernodes pay: Confeti-ex13 (321 rows, 56
// entries a row: 4.5 → 6.0 ms), granularflowonwall_07002 (14 004 rows: 1.50 → 1.67 s); equal on the
// 1 000-sphere pour's steps (5 400-6 000 rows) and BoxesStack1 (34 a row).
constexpr Eigen::Index kKluMaxRows = 4000;
constexpr double kKluMaxRowEntries = 30;

class NewtonLu {
 public:
  NewtonLu(const Sparse& H, const Sparse& W)
      : klu_(H.rows() <= kKluMaxRows &&
             static_cast<double>(W.nonZeros()) <= kKluMaxRowEntries * static_cast<double>(std::max<Eigen::Index>(W.rows(), 1))) {
    if (klu_) {
      klu_lu_.analyzePattern(H);
    } else {
      sparse_lu_.analyzePattern(H);
    }
  }
  /// Factorizes H (the analysed pattern); false where the factorization failed (a singular H).
  bool factorize(const Sparse& H) {
    if (klu_) {
      klu_lu_.factorize(H);
      return klu_lu_.info() == Eigen::Success;
    }
    sparse_lu_.factorize(H);
    return sparse_lu_.info() == Eigen::Success;
  }
  /// x = H⁻¹ b with the last factorization; false where the solve failed.
  bool solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
    if (klu_) {
      x = klu_lu_.solve(b);
      return klu_lu_.info() == Eigen::Success;
    }
    x = sparse_lu_.solve(b);
    return sparse_lu_.info() == Eigen::Success;
  }

 private:
  bool klu_;
  Eigen::KLU<Sparse> klu_lu_;
  Eigen::SparseLU<Sparse, Eigen::COLAMDOrdering<StorageIndex>> sparse_lu_;
};

// One contact's Alart–Curnier function Φ_i at (r_i, u_i) and, when A and B are given, the d×d
// blocks (column-major) of an element of its B-subdifferential: ∂Φ_i = A ∂r_i + B ∂u_i.
void local_function(int d, double mu, double rho_n, double rho_t, const double* r, const double* u, double* phi,
                    double* A, double* B) {
  if (A != nullptr) {
    for (int k = 0; k < d * d; ++k) A[k] = B[k] = 0.0;
  }
  const double x_n = r[0] - rho_n * u[0];
  const bool pressing = x_n > 0;
  if (pressing) {
    phi[0] = rho_n * u[0];  // r_N − x_N
    if (B != nullptr) B[0] = rho_n;
  } else {
    phi[0] = r[0];
    if (A != nullptr) A[0] = 1.0;
  }
  const double radius = pressing ? mu * x_n : 0.0;
  double y[2] = {0.0, 0.0};
  double y_norm = 0.0;
  for (int k = 1; k < d; ++k) {
    y[k - 1] = r[k] - rho_t * u[k];
    y_norm += y[k - 1] * y[k - 1];
  }
  y_norm = std::sqrt(y_norm);
  if (radius > 0 && y_norm <= radius) {  // stick: P(y) = y, Φ_T = ρ_T u_T
    for (int k = 1; k < d; ++k) {
      phi[k] = rho_t * u[k];
      if (B != nullptr) B[k + k * d] = rho_t;
    }
    return;
  }
  if (radius <= 0 || y_norm == 0) {  // the disk is the point 0 (take-off, or μ = 0): Φ_T = r_T
    for (int k = 1; k < d; ++k) {
      phi[k] = r[k];
      if (A != nullptr) A[k + k * d] = 1.0;
    }
    return;
  }
  // slide: P(y) = s ŷ, Φ_T = r_T − s ŷ with s = μ x_N; ∂(s ŷ) = ŷ μ ∂x_N + Γ ∂y, Γ = (s/‖y‖)(I − ŷŷᵀ).
  double unit[2] = {y[0] / y_norm, y[1] / y_norm};
  for (int k = 1; k < d; ++k) phi[k] = r[k] - radius * unit[k - 1];
  if (A == nullptr) return;
  const double ratio = radius / y_norm;
  for (int k = 1; k < d; ++k) {
    A[k] = -mu * unit[k - 1];         // ∂/∂r_N
    B[k] = mu * rho_n * unit[k - 1];  // ∂/∂u_N
    for (int l = 1; l < d; ++l) {
      const double gamma = ratio * ((k == l ? 1.0 : 0.0) - unit[k - 1] * unit[l - 1]);
      A[k + l * d] = (k == l ? 1.0 : 0.0) - gamma;
      B[k + l * d] = rho_t * gamma;
    }
  }
}

// Φ, its Jacobian H = A + B W on a fixed sparse pattern, and ½‖Φ‖².
class AlartCurnier {
 public:
  explicit AlartCurnier(const FrictionContact& problem)
      : problem_(problem), d_(problem.dimension), nc_(problem.contacts()), n_(problem.size()) {
    if (!problem.W.isCompressed()) {
      compressed_ = problem.W;
      compressed_.makeCompressed();
    }
    choose_rho();
    build_pattern();
    blocks_a_.resize(static_cast<std::size_t>(nc_ * d_ * d_));
    blocks_b_.resize(static_cast<std::size_t>(nc_ * d_ * d_));
  }

  [[nodiscard]] const Sparse& W() const { return problem_.W.isCompressed() ? problem_.W : compressed_; }
  [[nodiscard]] const Sparse& H() const { return H_; }
  [[nodiscard]] Sparse& H() { return H_; }
  [[nodiscard]] double rho_normal(Eigen::Index i) const { return rho_n_[static_cast<std::size_t>(i)]; }

  // Φ at (r, u); returns ½‖Φ‖², or +∞ when it is not finite.
  double function(const Eigen::VectorXd& r, const Eigen::VectorXd& u, Eigen::VectorXd& phi) const {
    for (Eigen::Index i = 0; i < nc_; ++i) {
      const std::size_t c = static_cast<std::size_t>(i);
      local_function(d_, problem_.mu[i], rho_n_[c], rho_t_[c], r.data() + i * d_, u.data() + i * d_,
                     phi.data() + i * d_, nullptr, nullptr);
    }
    const double merit = 0.5 * phi.squaredNorm();
    return std::isfinite(merit) ? merit : std::numeric_limits<double>::infinity();
  }

  // H = A + B W at (r, u), into H()'s values (the pattern never changes).
  void jacobian(const Eigen::VectorXd& r, const Eigen::VectorXd& u) {
    double phi[3];
    const int dd = d_ * d_;
    for (Eigen::Index i = 0; i < nc_; ++i) {
      const std::size_t c = static_cast<std::size_t>(i);
      local_function(d_, problem_.mu[i], rho_n_[c], rho_t_[c], r.data() + i * d_, u.data() + i * d_, phi,
                     blocks_a_.data() + c * static_cast<std::size_t>(dd),
                     blocks_b_.data() + c * static_cast<std::size_t>(dd));
    }
    const Sparse& W = this->W();
    double* values = H_.valuePtr();
    std::fill(values, values + H_.nonZeros(), 0.0);
    const double* w_values = W.valuePtr();
    const StorageIndex* w_rows = W.innerIndexPtr();
    for (Eigen::Index k = 0; k < W.nonZeros(); ++k) {
      const StorageIndex row = w_rows[k];
      const int block = static_cast<int>(row) / d_;
      const int l = static_cast<int>(row) % d_;
      const double* b = blocks_b_.data() + static_cast<std::size_t>(block * dd) + static_cast<std::size_t>(l * d_);
      double* target = values + group_[static_cast<std::size_t>(k)];
      const double v = w_values[k];
      for (int m = 0; m < d_; ++m) target[m] += b[m] * v;
    }
    for (Eigen::Index j = 0; j < n_; ++j) {
      const Eigen::Index block = j / d_;
      const Eigen::Index l = j % d_;
      const double* a = blocks_a_.data() + static_cast<std::size_t>(block * dd + l * d_);
      double* target = values + diagonal_group_[static_cast<std::size_t>(j)];
      for (int m = 0; m < d_; ++m) target[m] += a[m];
    }
  }

  // H += factor·max_j W_jj·B on the diagonal blocks: the Jacobian of the problem with W + εI.
  void regularize(double factor) {
    if (factor == 0.0) return;
    const int dd = d_ * d_;
    const double eps = factor * w_scale_;
    double* values = H_.valuePtr();
    for (Eigen::Index j = 0; j < n_; ++j) {
      const Eigen::Index block = j / d_;
      const Eigen::Index l = j % d_;
      const double* b = blocks_b_.data() + static_cast<std::size_t>(block * dd + l * d_);
      double* target = values + diagonal_group_[static_cast<std::size_t>(j)];
      for (int m = 0; m < d_; ++m) target[m] += eps * b[m];
    }
  }

  // The position of H(j, j) in H's values.
  [[nodiscard]] Eigen::Index diagonal_position(Eigen::Index j) const {
    return diagonal_group_[static_cast<std::size_t>(j)] + j % d_;
  }

 private:
  void choose_rho() {
    const Eigen::VectorXd diagonal = W().diagonal();
    double largest = 0.0;
    for (Eigen::Index j = 0; j < n_; ++j) {
      if (std::isfinite(diagonal[j])) largest = std::max(largest, diagonal[j]);
    }
    const double fallback = largest > 0 ? 1.0 / largest : 1.0;
    w_scale_ = largest > 0 ? largest : 1.0;
    const auto inverse = [fallback](double value) { return value > 0 ? 1.0 / value : fallback; };
    rho_n_.resize(static_cast<std::size_t>(nc_));
    rho_t_.resize(static_cast<std::size_t>(nc_));
    for (Eigen::Index i = 0; i < nc_; ++i) {
      rho_n_[static_cast<std::size_t>(i)] = inverse(diagonal[i * d_]);
      double tangential = 0.0;
      bool positive = true;
      for (int k = 1; k < d_; ++k) {
        tangential += diagonal[i * d_ + k];
        positive = positive && diagonal[i * d_ + k] > 0;
      }
      rho_t_[static_cast<std::size_t>(i)] = positive ? inverse(tangential / (d_ - 1)) : fallback;
    }
  }

  // H's pattern: column j holds the full d rows of every contact block that W's column j touches,
  // and of j's own block (A's diagonal blocks). group_[k] is where W's k-th stored entry lands
  // (the first of its block's d rows in that column), diagonal_group_[j] the same for A.
  void build_pattern() {
    const Sparse& W = this->W();
    std::vector<StorageIndex> outer(static_cast<std::size_t>(n_) + 1, 0);
    std::vector<StorageIndex> inner;
    inner.reserve(static_cast<std::size_t>(W.nonZeros() * d_ + n_ * d_));
    group_.resize(static_cast<std::size_t>(W.nonZeros()));
    diagonal_group_.resize(static_cast<std::size_t>(n_));
    std::vector<Eigen::Index> blocks;
    for (Eigen::Index j = 0; j < n_; ++j) {
      blocks.clear();
      const Eigen::Index own = j / d_;
      bool own_seen = false;
      const StorageIndex begin = W.outerIndexPtr()[j];
      const StorageIndex end = W.outerIndexPtr()[j + 1];
      for (StorageIndex k = begin; k < end; ++k) {
        const Eigen::Index block = W.innerIndexPtr()[k] / d_;
        if (!own_seen && own < block) {
          blocks.push_back(own);
          own_seen = true;
        }
        if (block == own) own_seen = true;
        if (blocks.empty() || blocks.back() != block) blocks.push_back(block);
      }
      if (!own_seen) blocks.push_back(own);
      const Eigen::Index start = static_cast<Eigen::Index>(inner.size());
      for (const Eigen::Index block : blocks) {
        if (block == own) diagonal_group_[static_cast<std::size_t>(j)] = static_cast<Eigen::Index>(inner.size());
        for (int m = 0; m < d_; ++m) inner.push_back(static_cast<StorageIndex>(block * d_ + m));
      }
      std::size_t position = 0;
      for (StorageIndex k = begin; k < end; ++k) {
        const Eigen::Index block = W.innerIndexPtr()[k] / d_;
        while (blocks[position] != block) ++position;
        group_[static_cast<std::size_t>(k)] = start + static_cast<Eigen::Index>(position) * d_;
      }
      outer[static_cast<std::size_t>(j) + 1] = static_cast<StorageIndex>(inner.size());
    }
    H_.resize(n_, n_);
    H_.resizeNonZeros(static_cast<Eigen::Index>(inner.size()));
    std::copy(outer.begin(), outer.end(), H_.outerIndexPtr());
    std::copy(inner.begin(), inner.end(), H_.innerIndexPtr());
    std::fill(H_.valuePtr(), H_.valuePtr() + H_.nonZeros(), 0.0);
  }

  const FrictionContact& problem_;
  int d_;
  Eigen::Index nc_;
  Eigen::Index n_;
  Sparse compressed_;  // a compressed copy of W, only when the problem's W is not compressed
  std::vector<double> rho_n_, rho_t_;
  double w_scale_ = 1.0;
  std::vector<Eigen::Index> group_, diagonal_group_;
  std::vector<double> blocks_a_, blocks_b_;
  Sparse H_;
};

// `sweeps` block Gauss–Seidel sweeps over the contacts, each contact's d×d problem solved
// approximately by the projection iteration r_i ← P_K(r_i − ρ_i û_i) with ρ_i = 1/‖W_ii‖_F and u_i
// updated from W_ii; u is kept equal to W r + q by adding W's block column times the change of r_i.
void gauss_seidel_sweeps(const FrictionContact& problem, const Sparse& W, Eigen::VectorXd& r, Eigen::VectorXd& u,
                         int sweeps) {
  const int d = problem.dimension;
  const Eigen::Index nc = problem.contacts();
  std::vector<double> blocks(static_cast<std::size_t>(nc * d * d), 0.0);
  for (Eigen::Index j = 0; j < W.outerSize(); ++j) {
    for (Sparse::InnerIterator it(W, j); it; ++it) {
      if (it.row() / d == j / d) {
        blocks[static_cast<std::size_t>((j / d) * d * d + (j % d) * d + it.row() % d)] = it.value();
      }
    }
  }
  double ri[3], ui[3], x[3], next[3];
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (Eigen::Index i = 0; i < nc; ++i) {
      const double* block = blocks.data() + static_cast<std::size_t>(i * d * d);
      double norm = 0.0;
      for (int k = 0; k < d * d; ++k) norm += block[k] * block[k];
      if (!(norm > 0)) continue;
      const double rho = 1.0 / std::sqrt(norm);
      const double mu = problem.mu[i];
      for (int k = 0; k < d; ++k) {
        ri[k] = r[i * d + k];
        ui[k] = u[i * d + k];
      }
      for (int local = 0; local < 20; ++local) {
        double ut = 0.0;
        for (int k = 1; k < d; ++k) ut += ui[k] * ui[k];
        x[0] = ri[0] - rho * (ui[0] + mu * std::sqrt(ut));
        for (int k = 1; k < d; ++k) x[k] = ri[k] - rho * ui[k];
        project_on_cone(x, d, mu, next);
        double change = 0.0;
        double size = 0.0;
        for (int k = 0; k < d; ++k) {
          const double delta = next[k] - ri[k];
          for (int m = 0; m < d; ++m) ui[m] += block[k * d + m] * delta;
          ri[k] = next[k];
          change += delta * delta;
          size += next[k] * next[k];
        }
        if (change <= 1e-28 * size) break;
      }
      for (int k = 0; k < d; ++k) {
        const double delta = ri[k] - r[i * d + k];
        if (delta == 0.0) continue;
        r[i * d + k] = ri[k];
        for (Sparse::InnerIterator it(W, i * d + k); it; ++it) u[it.row()] += it.value() * delta;
      }
    }
  }
}

std::string figures(const char* pattern, double a, double b) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, a, b);
  return buffer;
}

}  // namespace

Result solve_newton_ac(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0) {
  const Eigen::Index n = problem.size();
  const int limit = options.iteration_limit(kDefaultNewtonSteps);
  const NewtonOptions& line = options.newton;

  Result result;
  result.method = Method::NewtonAc;
  Eigen::VectorXd r = r0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!std::isfinite(r[i])) r[i] = 0.0;
  }
  Eigen::VectorXd u = problem.velocity(r);
  double error = friction_contact_residuals(problem, r, u).relative_error;
  Eigen::VectorXd best_r = r;
  double best_error = error;

  Status status = Status::MaxIterations;
  std::string why;
  int steps = 0;
  int restarts = 0;
  if (n == 0 || error <= options.tolerance) {
    status = Status::Solved;
  } else if (!std::isfinite(error)) {
    status = Status::NumericalFailure;
    why = "W r0 + q is not finite";
  } else {
    AlartCurnier model(problem);
    NewtonLu lu(model.H(), problem.W);
    Eigen::VectorXd phi(n), phi_trial(n), direction(n), w_direction(n), r_trial(n), u_trial(n), h_direction(n);
    double merit = model.function(r, u, phi);
    std::deque<double> recent{merit};
    int progress_at = 0;  // the last step that lowered the best error by kProgress (relative)
    int restart_at = 0;
    double progress_reference = error;
    while (steps < limit) {
      if (const std::optional<Status> stop = detail::stop_requested()) {
        status = *stop;
        why = detail::stop_message(*stop, steps, "Newton steps");
        break;
      }
      model.jacobian(r, u);
      Sparse& H = model.H();
      // The direction: (H + εB) d = −Φ, ε = clamp(error, 1e-12, 1e-2)·max W_jj, ×100 while the
      // factorization fails or its solution is not finite.
      bool have_direction = false;
      double shift = 0.0;
      double factor = std::clamp(error, kSmallestShift, kFirstLargeShift);
      for (int attempt = 0; attempt < kShiftAttempts; ++attempt, factor *= 100.0) {
        model.regularize(factor - shift);
        shift = factor;
        if (!lu.factorize(H)) continue;
        phi_trial = -phi;  // the right-hand side (phi_trial is free until the line search)
        if (lu.solve(phi_trial, direction) && direction.allFinite()) {
          have_direction = true;
          break;
        }
      }
      model.regularize(-shift);  // H itself again, for the slope and the gradient
      const double reference = *std::max_element(recent.begin(), recent.end());
      bool accepted = false;
      if (have_direction) {
        h_direction.noalias() = H * direction;
        const double slope = phi.dot(h_direction);  // ∇ψᵀd, ∇ψ = HᵀΦ
        if (slope < 0 || !line.line_search) {
          w_direction.noalias() = problem.W * direction;
          double t = 1.0;
          for (int back = 0; back <= line.max_backtracks; ++back, t *= line.backtrack) {
            r_trial = r + t * direction;
            u_trial = u + t * w_direction;
            const double trial = model.function(r_trial, u_trial, phi_trial);
            if (!line.line_search || trial <= reference + line.armijo * t * slope) {
              accepted = std::isfinite(trial);
              break;
            }
          }
        }
      }
      if (!accepted && line.line_search) {
        // Steepest descent of ψ = ½‖Φ‖², d = −HᵀΦ, from the step that zeroes ψ's linear model.
        direction.noalias() = -(H.transpose() * phi);
        const double slope = -direction.squaredNorm();
        if (slope < 0) {
          w_direction.noalias() = problem.W * direction;
          double t = merit / -slope;
          for (int back = 0; back <= line.max_backtracks; ++back, t *= line.backtrack) {
            r_trial = r + t * direction;
            u_trial = u + t * w_direction;
            const double trial = model.function(r_trial, u_trial, phi_trial);
            if (trial <= reference + line.armijo * t * slope) {
              accepted = true;
              break;
            }
          }
        }
      }
      if (!accepted) {
        status = Status::NoSolutionFound;
        why =
            "the line search found no step of sufficient decrease of the merit along the Newton direction nor "
            "along −HᵀΦ at step " +
            std::to_string(steps + 1) + " (a stationary point of ½‖Φ‖² that is not a solution)";
        break;
      }
      ++steps;
      r.swap(r_trial);
      u = problem.velocity(r);  // recomputed, never accumulated
      merit = model.function(r, u, phi);
      error = friction_contact_residuals(problem, r, u).relative_error;
      if (options.record_history) result.history.push_back(error);
      if (!std::isfinite(error) || !r.allFinite()) {
        status = Status::NumericalFailure;
        why = "the iterate or W r + q became non-finite at step " + std::to_string(steps);
        break;
      }
      if (error < best_error) {
        best_error = error;
        best_r = r;
      }
      if (error <= options.tolerance) {
        status = Status::Solved;
        break;
      }
      recent.push_back(merit);
      while (static_cast<int>(recent.size()) > line.nonmonotone_memory + 1) recent.pop_front();
      if (best_error < (1.0 - kProgress) * progress_reference) {
        progress_reference = best_error;
        progress_at = steps;
      } else if (steps - progress_at >= kStallSteps) {
        status = Status::NoSolutionFound;
        why = "stalled: the smallest relative error fell by less than " + figures("%g %%", 100 * kProgress, 0.0) +
              " in the last " + std::to_string(kStallSteps) + " Newton steps (" + std::to_string(restarts) +
              " restarts after Gauss–Seidel sweeps)";
        break;
      } else if (steps - std::max(progress_at, restart_at) >= kRestartSteps) {
        // Newton is cycling between pieces of Φ: restart from the best point after a few
        // Gauss–Seidel sweeps, with a fresh non-monotone memory.
        r = best_r;
        u = problem.velocity(r);
        gauss_seidel_sweeps(problem, model.W(), r, u, kRestartSweeps);
        u = problem.velocity(r);
        merit = model.function(r, u, phi);
        error = friction_contact_residuals(problem, r, u).relative_error;
        if (!std::isfinite(merit) || !std::isfinite(error)) {
          r = best_r;
          u = problem.velocity(r);
          merit = model.function(r, u, phi);
          error = best_error;
        } else if (error < best_error) {
          best_error = error;
          best_r = r;
        }
        recent.assign(1, merit);
        ++restarts;
        restart_at = steps;
        if (error <= options.tolerance) {
          status = Status::Solved;
          break;
        }
      }
    }
    if (status == Status::MaxIterations) {
      why = "the iteration limit of " + std::to_string(limit) + " Newton steps (" + std::to_string(restarts) +
            " restarts after Gauss–Seidel sweeps)";
    }
  }

  // The returned point: the best iterate, u and the residuals recomputed from it.
  result.z = std::move(best_r);
  result.w = problem.velocity(result.z);
  result.residual = friction_contact_residuals(problem, result.z, result.w).relative_error;
  result.iterations = steps;
  if (status == Status::Solved && !(result.residual <= options.tolerance)) {
    status = Status::NumericalFailure;
    why = "the recomputed residual of the returned point misses the tolerance";
  }
  result.status = status;
  if (status == Status::Solved) {
    result.message = n == 0 ? "empty problem (no contact)"
                            : figures("relative error %.3g <= tolerance %.3g", result.residual, options.tolerance) +
                                  " after " + std::to_string(steps) + " Newton steps" +
                                  (restarts > 0 ? " and " + std::to_string(restarts) + " Gauss–Seidel restarts" : "");
  } else {
    result.message = why + figures(" (relative error %.3g > tolerance %.3g)", result.residual, options.tolerance);
  }
  return result;
}

}  // namespace perp::detail
