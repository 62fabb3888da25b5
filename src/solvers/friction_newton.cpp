#include "friction_newton.hpp"

#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <string>
#include <vector>

namespace perp::detail {
namespace {

using Sparse = Eigen::SparseMatrix<double>;
using StorageIndex = Sparse::StorageIndex;

constexpr int kDefaultSteps = 200;
// The regularized fallback H + εI: ε from kFirstShift to kLastShift times max|diag H|, ×100 a try.
constexpr double kFirstShift = 1e-10;
constexpr double kLastShift = 1e-2;
// The gradient step starts at t = ψ/‖∇ψ‖² (the step that would zero a linear model of ψ).
// The iteration has stalled when the best relative error has not fallen by kStallDecrease
// (relative) in kStallSteps steps.
constexpr int kStallSteps = 30;
constexpr double kStallDecrease = 1e-3;

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
  std::vector<Eigen::Index> group_, diagonal_group_;
  std::vector<double> blocks_a_, blocks_b_;
  Sparse H_;
};

std::string figures(const char* pattern, double a, double b) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, a, b);
  return buffer;
}

}  // namespace

Result solve_newton_ac(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0) {
  const Eigen::Index n = problem.size();
  const int limit = options.iteration_limit(kDefaultSteps);
  const NewtonOptions& line = options.newton;

  Result result;
  result.method = "newton-ac";
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
  if (n == 0 || error <= options.tolerance) {
    status = Status::Solved;
  } else if (!std::isfinite(error)) {
    status = Status::NumericalFailure;
    why = "W r0 + q is not finite";
  } else {
    AlartCurnier model(problem);
    Eigen::SparseLU<Sparse, Eigen::COLAMDOrdering<StorageIndex>> lu;
    lu.analyzePattern(model.H());
    Eigen::VectorXd phi(n), phi_trial(n), direction(n), w_direction(n), r_trial(n), u_trial(n), h_direction(n);
    double merit = model.function(r, u, phi);
    std::deque<double> recent{merit};
    int stalled_since = 0;
    double stall_reference = error;
    status = Status::MaxIterations;
    while (steps < limit) {
      model.jacobian(r, u);
      Sparse& H = model.H();
      // Newton direction: H d = −Φ, with H + εI when H's factorization fails.
      bool have_direction = false;
      double shift = 0.0;
      double diagonal_scale = 0.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        diagonal_scale = std::max(diagonal_scale, std::abs(H.valuePtr()[model.diagonal_position(j)]));
      }
      if (!(diagonal_scale > 0)) diagonal_scale = 1.0;
      for (double factor = 0.0; factor <= kLastShift; factor = factor == 0.0 ? kFirstShift : factor * 100.0) {
        const double next = factor * diagonal_scale;
        for (Eigen::Index j = 0; j < n; ++j) H.valuePtr()[model.diagonal_position(j)] += next - shift;
        shift = next;
        lu.factorize(H);
        if (lu.info() != Eigen::Success) continue;
        direction = lu.solve(-phi);
        if (lu.info() == Eigen::Success && direction.allFinite()) {
          have_direction = true;
          break;
        }
      }
      for (Eigen::Index j = 0; j < n; ++j) H.valuePtr()[model.diagonal_position(j)] -= shift;
      const double reference = *std::max_element(recent.begin(), recent.end());
      bool accepted = false;
      if (have_direction) {
        h_direction.noalias() = H * direction;
        const double slope = phi.dot(h_direction);  // ∇ψᵀd with ∇ψ = HᵀΦ
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
        // The steepest descent direction of ψ = ½‖Φ‖², d = −HᵀΦ, from the step that would zero
        // ψ's linear model.
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
            "the line search found no step of sufficient decrease of ½‖Φ‖² along the Newton direction nor along "
            "the steepest descent −HᵀΦ at step " +
            std::to_string(steps + 1) + " (a stationary point of the merit that is not a solution)";
        break;
      }
      ++steps;
      r.swap(r_trial);
      u = problem.velocity(r);  // recomputed, not accumulated
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
      if (best_error < (1.0 - kStallDecrease) * stall_reference) {
        stall_reference = best_error;
        stalled_since = steps;
      } else if (steps - stalled_since >= kStallSteps) {
        status = Status::NoSolutionFound;
        why = "stalled: the smallest relative error fell by less than " + figures("%g %%", 100 * kStallDecrease, 0.0) +
              " in the last " + std::to_string(kStallSteps) + " Newton steps";
        break;
      }
    }
    if (status == Status::MaxIterations) why = "the iteration limit of " + std::to_string(limit) + " Newton steps";
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
                                  " after " + std::to_string(steps) + " Newton steps";
  } else {
    result.message = why + figures(" (relative error %.3g > tolerance %.3g)", result.residual, options.tolerance);
  }
  return result;
}

}  // namespace perp::detail
