#include "admm.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "entry/stop.hpp"
#include "perp/core/error.hpp"

// ADMM on the frictional contact problem (admm.hpp). The splitting, for W = H M⁻¹ Hᵀ and de Saxcé's
// shift s(u) = μ‖u_T‖ e_N held fixed within an iteration:
//   minimize ½ xᵀ W x + (q + s)ᵀ x + I_K(y)  subject to  x = y,
// with a proximal term η/2 ‖x − x_k‖² on x, penalty σ = τρ and the dual z (≈ u + s at the solution):
//   x ← (W + (η + σ) I)⁻¹ (σ y + η x − q − s + z)
//   y ← P_K(x − z/σ)
//   z ← z − σ (x − y)
//   s ← μ‖z_T‖ e_N.
// At a fixed point x = y ∈ K, z = W y + q + s, and y = P_K(y − z/σ) says −z ∈ N_K(y): z ∈ K*, y ⊥ z,
// which is Coulomb's law at r = y. ρ follows the spectral rule: ρ₀ = √(L η) (L/η)^p with L the
// largest eigenvalue of W, multiplied or divided by (L/η)^p' when the primal residual ‖x − y‖∞ and
// the dual one ‖σ (y − y_k) + η (x − x_k)‖∞ differ by more than a factor R (one numeric
// refactorization each time). The criterion is perp's: Siconos' relative error of r = y, u = W y + q.

namespace perp::detail {

namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using ColSparse = Eigen::SparseMatrix<double>;
using Ldlt = Eigen::SimplicialLDLT<ColSparse, Eigen::Lower, Eigen::AMDOrdering<int>>;

constexpr int kDefaultAdmmIterations = 5000;
constexpr double kProximal = 1e-6;      // η / L
constexpr double kPenaltyFraction = 0.5;  // τ: σ = τ ρ
constexpr double kRhoPower = 0.2;       // p
constexpr double kRhoPowerStep = 0.05;  // p'
constexpr double kResidualRatio = 10;   // R
constexpr int kCheckEvery = 10;         // the relative error (and the ρ rule) every this many iterations
constexpr int kPowerIterations = 20;
constexpr double kSymmetryTolerance = 1e-12;  // ‖W − Wᵀ‖_F / ‖W‖_F

ColSparse identity(Eigen::Index n) {
  ColSparse eye(n, n);
  eye.setIdentity();
  return eye;
}

// W = U Uᵀ with U = H D^{1/2}: (τI + U Uᵀ)⁻¹ b = (b − U (τI + UᵀU)⁻¹ Uᵀ b) / τ (Woodbury), the
// factor dofs × dofs on the pattern of UᵀU, analysed once.
class FactoredOperator {
 public:
  FactoredOperator(const RowSparse& H, const Eigen::VectorXd& inverse_mass)
      : U_(ColSparse(H) * inverse_mass.cwiseSqrt().asDiagonal()),
        Ut_(U_.transpose()),
        gram_(Ut_ * U_),
        eye_(identity(inverse_mass.size())) {}
  bool set_shift(double tau) {
    tau_ = tau;
    matrix_ = gram_ + tau * eye_;
    if (!analysed_) {
      factor_.analyzePattern(matrix_);
      analysed_ = true;
    }
    factor_.factorize(matrix_);
    return factor_.info() == Eigen::Success;
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) {
    work_.noalias() = Ut_ * b;
    work_ = factor_.solve(work_);
    x = b;
    x.noalias() -= U_ * work_;
    x /= tau_;
  }
  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& out) {
    work_.noalias() = Ut_ * r;
    out.noalias() = U_ * work_;
  }

 private:
  ColSparse U_;
  ColSparse Ut_;
  ColSparse gram_;
  ColSparse eye_;
  ColSparse matrix_;
  Ldlt factor_;
  bool analysed_ = false;
  double tau_ = 1;
  Eigen::VectorXd work_;
};

// W formed: W + τI factored directly.
class FormedOperator {
 public:
  explicit FormedOperator(const ColSparse& W) : W_(W), eye_(identity(W.rows())) {}
  bool set_shift(double tau) {
    matrix_ = W_ + tau * eye_;
    if (!analysed_) {
      factor_.analyzePattern(matrix_);
      analysed_ = true;
    }
    factor_.factorize(matrix_);
    return factor_.info() == Eigen::Success;
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) { x = factor_.solve(b); }
  void apply(const Eigen::VectorXd& r, Eigen::VectorXd& out) { out.noalias() = W_ * r; }

 private:
  const ColSparse& W_;
  ColSparse eye_;
  ColSparse matrix_;
  Ldlt factor_;
  bool analysed_ = false;
};

void project_all_on_cones(const Eigen::VectorXd& x, int d, const Eigen::VectorXd& mu, Eigen::VectorXd& out) {
  out.resize(x.size());
  for (Eigen::Index i = 0; i < mu.size(); ++i) project_on_cone(x.data() + i * d, d, mu[i], out.data() + i * d);
}

// P_{K*}(x) = x + P_K(−x) (Moreau's decomposition), contact by contact.
void project_all_on_dual_cones(Eigen::VectorXd& x, int d, const Eigen::VectorXd& mu) {
  double negated[3];
  double projected[3];
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    double* xi = x.data() + i * d;
    for (int k = 0; k < d; ++k) negated[k] = -xi[k];
    project_on_cone(negated, d, mu[i], projected);
    for (int k = 0; k < d; ++k) xi[k] += projected[k];
  }
}

// s = μ‖z_T‖ in each normal slot, 0 in the tangential ones.
void saxce_shift(const Eigen::VectorXd& z, int d, const Eigen::VectorXd& mu, Eigen::VectorXd& s) {
  s.setZero(z.size());
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    s[i * d] = mu[i] * z.segment(i * d + 1, d - 1).norm();
  }
}

template <class Operator>
Result admm(Operator& op, const FrictionContact& shell, const SolveOptions& options, const Eigen::VectorXd& r0,
            FrictionContactResiduals& residuals, FrictionLaw law = FrictionLaw::Coulomb) {
  const bool shifted = law == FrictionLaw::Coulomb;  // the convex law keeps s = 0
  const double q_norm = shell.q.norm();
  const int d = shell.dimension;
  const Eigen::Index n = shell.size();
  Result result;
  result.method = Method::Admm;
  const int limit = options.iteration_limit(kDefaultAdmmIterations);

  // L: the largest eigenvalue of W, by power iteration from a vector of ones.
  Eigen::VectorXd p = Eigen::VectorXd::Constant(n, 1.0 / std::sqrt(static_cast<double>(std::max<Eigen::Index>(n, 1))));
  Eigen::VectorXd wp(n);
  double L = 0;
  for (int k = 0; k < kPowerIterations; ++k) {
    op.apply(p, wp);
    L = wp.norm();
    if (!(L > 0) || !std::isfinite(L)) break;
    p = wp / L;
  }
  if (!(L > 0) || !std::isfinite(L)) L = 1;  // W = 0 (or not finite: caught by the criterion below)
  const double eta = kProximal * L;
  const double condition = L / eta;
  const double increment = std::pow(condition, kRhoPowerStep);
  double rho = std::sqrt(L * eta) * std::pow(condition, kRhoPower);
  int factorizations = 0;
  const auto refactor = [&]() {
    ++factorizations;
    return op.set_shift(eta + kPenaltyFraction * rho);
  };

  Eigen::VectorXd x = r0;
  Eigen::VectorXd y;
  project_all_on_cones(x, d, shell.mu, y);
  Eigen::VectorXd u(n);
  Eigen::VectorXd s(n);
  // u = W y + q and the residuals of y; returns its relative error.
  const auto judge = [&]() {
    op.apply(y, u);
    u += shell.q;
    residuals = shifted ? friction_contact_residuals(shell, y, u) : cone_residuals(d, shell.mu, y, u, law, q_norm);
    return residuals.relative_error;
  };
  double error = judge();
  const auto finish_with = [&](Status status, int iterations, std::string message) {
    result.z = y;
    result.w = u;
    result.iterations = iterations;
    result.status = status;
    result.message = std::move(message);
    return result;
  };
  if (error <= options.tolerance) {
    return finish_with(Status::Solved, 0, "the start point solves (relative error " + number_text(error) + ")");
  }
  if (!refactor()) {
    return finish_with(Status::NumericalFailure, 0, "the factorization of W + tau I failed");
  }
  s.setZero();
  if (shifted) saxce_shift(u, d, shell.mu, s);
  Eigen::VectorXd z = u + s;
  project_all_on_dual_cones(z, d, shell.mu);

  Eigen::VectorXd best = y;
  double best_error = error;
  Eigen::VectorXd rhs(n);
  Eigen::VectorXd x_previous(n);
  Eigen::VectorXd y_previous(n);
  Eigen::VectorXd step(n);
  for (int it = 1; it <= limit; ++it) {
    if (const std::optional<Status> stop = stop_requested()) {
      y = best;
      judge();
      return finish_with(*stop, it - 1,
                         stop_message(*stop, it - 1, "iterations") + "; the best point's relative error " +
                             number_text(residuals.relative_error));
    }
    const double sigma = kPenaltyFraction * rho;
    if (shifted) saxce_shift(z, d, shell.mu, s);
    rhs = sigma * y + eta * x - shell.q - s + z;
    x_previous = x;
    op.solve(rhs, x);
    y_previous = y;
    step = x - z / sigma;
    project_all_on_cones(step, d, shell.mu, y);
    z -= sigma * (x - y);
    if (it % kCheckEvery != 0 && it != limit) continue;

    error = judge();
    if (!std::isfinite(error) || !x.allFinite()) {
      y = best;
      judge();
      return finish_with(Status::NumericalFailure, it,
                         "the iterates stopped being finite at iteration " + std::to_string(it) +
                             "; returning the best point, relative error " + number_text(residuals.relative_error));
    }
    if (options.record_history) result.history.push_back(error);
    if (error < best_error) {
      best_error = error;
      best = y;
    }
    if (error <= options.tolerance) {
      return finish_with(Status::Solved, it,
                         "relative error " + number_text(error) + " after " + std::to_string(it) + " iterations (" +
                             std::to_string(factorizations) + " factorizations)");
    }
    const double primal = (x - y).lpNorm<Eigen::Infinity>();
    const double dual = (sigma * (y - y_previous) + eta * (x - x_previous)).lpNorm<Eigen::Infinity>();
    bool changed = false;
    if (primal > kResidualRatio * dual) {
      rho *= increment;
      changed = true;
    } else if (dual > kResidualRatio * primal) {
      rho /= increment;
      changed = true;
    }
    if (changed && !refactor()) {
      y = best;
      judge();
      return finish_with(Status::NumericalFailure, it, "the factorization of W + tau I failed at rho " + number_text(rho));
    }
  }
  y = best;
  judge();
  return finish_with(Status::MaxIterations, limit,
                     "iteration limit " + std::to_string(limit) + " reached; the best point's relative error " +
                         number_text(residuals.relative_error) + " (" + std::to_string(factorizations) +
                         " factorizations)");
}

}  // namespace

Result solve_admm_factored(const RowSparse& H, const Eigen::VectorXd& inverse_mass, const FrictionContact& shell,
                           const SolveOptions& options, const Eigen::VectorXd& r0, FrictionContactResiduals& residuals,
                           FrictionLaw law) {
  FactoredOperator op(H, inverse_mass);
  return admm(op, shell, options, r0, residuals, law);
}

Result solve_admm(const FrictionContact& problem, const SolveOptions& options, const Eigen::VectorXd& r0,
                  FrictionContactResiduals& residuals) {
  // The x-update minimizes ½ xᵀ W x + …: W must be symmetric (its lower triangle is factored).
  const ColSparse asymmetry = problem.W - ColSparse(problem.W.transpose());
  const double size = problem.W.norm();
  if (asymmetry.norm() > kSymmetryTolerance * std::max(size, 1e-300)) {
    Result refused;
    refused.method = Method::Admm;
    refused.status = Status::NotApplicable;
    refused.z = Eigen::VectorXd::Zero(problem.size());
    refused.message = "admm needs a symmetric W (its x-update is a quadratic program): ||W - W^T||_F = " +
                      number_text(asymmetry.norm()) + " against ||W||_F = " + number_text(size);
    residuals = friction_contact_residuals(problem, refused.z);
    refused.w = problem.q;
    return refused;
  }
  FormedOperator op(problem.W);
  return admm(op, problem, options, r0, residuals);
}

}  // namespace perp::detail
