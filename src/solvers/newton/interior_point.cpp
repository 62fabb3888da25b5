#include "interior_point.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "perp/core/residual.hpp"

namespace perp {
namespace {

// Shift of the monotonicity test, relative to max|M|: PSD matrices with round-off pass.
constexpr double kMonotoneShift = 1e-10;
// Iterates beyond this (relative to the start) are taken as diverging.
constexpr double kIterateBlowUp = 1e14;
// Crossover is tried once μ has fallen below this fraction of the first μ.
constexpr double kCrossoverStart = 1e-3;
// The smallest eigenvalue of the symmetric part is reported up to this size.
constexpr Eigen::Index kEigenvalueReportSize = 300;

// Largest α in (0, 1] with v + α dv >= 0.
double step_to_boundary(const Eigen::VectorXd& v, const Eigen::VectorXd& dv) {
  double alpha = 1.0;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (dv[i] < 0.0) alpha = std::min(alpha, -v[i] / dv[i]);
  }
  return alpha;
}

// Empty when M is positive semidefinite (to the shift); otherwise why not.
std::string monotonicity_failure(const Eigen::MatrixXd& M) {
  const Eigen::Index n = M.rows();
  const double scale = M.cwiseAbs().maxCoeff();
  Eigen::MatrixXd S = 0.5 * (M + M.transpose());
  S.diagonal().array() += kMonotoneShift * std::max(scale, 1e-300);
  const Eigen::LLT<Eigen::MatrixXd> llt(S);
  if (llt.info() == Eigen::Success) return {};
  std::string why = "M is not positive semidefinite";
  if (n <= kEigenvalueReportSize) {
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(0.5 * (M + M.transpose()), Eigen::EigenvaluesOnly);
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, " (smallest eigenvalue of (M + M^T)/2 is %.3g)", eigen.eigenvalues()[0]);
    why += buffer;
  }
  return why + ": the interior-point method needs a monotone LCP; try lemke, newton-fb or auto";
}

class Factorization {
 public:
  explicit Factorization(bool symmetric) : symmetric_(symmetric) {}
  bool compute(const Eigen::MatrixXd& A) {
    if (symmetric_) {
      llt_.compute(A);
      if (llt_.info() == Eigen::Success) return true;
    }
    use_lu_ = true;
    lu_.compute(A);
    return true;
  }
  Eigen::VectorXd solve(const Eigen::VectorXd& rhs) const {
    if (symmetric_ && !use_lu_) return llt_.solve(rhs);
    return lu_.solve(rhs);
  }
  void reset() { use_lu_ = false; }

 private:
  bool symmetric_;
  bool use_lu_ = false;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
};

}  // namespace

Result solve_interior_point(const Lcp& problem, const SolveOptions& options) {
  if (auto trivial = detail::trivial_result(problem, Method::InteriorPoint)) return *trivial;
  const Eigen::Index n = problem.size();
  if (const std::string why = monotonicity_failure(problem.M); !why.empty()) {
    Result result = detail::make_result(problem, Eigen::VectorXd::Zero(n), Method::InteriorPoint);
    result.status = Status::NotApplicable;
    result.message = why;
    return result;
  }
  const int limit = options.iteration_limit(kDefaultInteriorSteps);
  const double fraction = options.interior_point.step_fraction;
  const double scale = std::max(problem.M.cwiseAbs().maxCoeff(), problem.q.cwiseAbs().maxCoeff());
  const bool symmetric = (problem.M - problem.M.transpose()).cwiseAbs().maxCoeff() <= 1e-14 * scale;

  Eigen::VectorXd z = Eigen::VectorXd::Ones(n);
  if (options.initial_guess) z = options.initial_guess->cwiseMax(1e-2);
  Eigen::VectorXd w = problem.slack(z).cwiseMax(scale > 0 ? 1e-2 * scale : 1.0);
  const double start_size = std::max(z.cwiseAbs().maxCoeff(), w.cwiseAbs().maxCoeff());
  const double mu0 = z.dot(w) / static_cast<double>(n);

  Factorization factorization(symmetric);
  Eigen::MatrixXd A(n, n);
  Eigen::VectorXd slack(n), r(n), rhs(n), dz(n), dw(n), dz_aff(n), dw_aff(n), rc(n);
  std::vector<Eigen::Index> alpha, tried;
  Result result;
  std::vector<double> history;
  Status status = Status::MaxIterations;
  std::string why = "iteration limit " + std::to_string(limit) + " reached";
  Eigen::VectorXd best = z;
  int k = 0;
  // The trace (only with options.trace): one event per iterate, the start included, with the
  // changes of {i : z_i > w_i} since the last one.
  TraceEvent event;
  std::vector<char> above;
  double last_step = 0.0;
  for (;; ++k) {
    slack = problem.slack(z);
    const double natural = natural_residual(z, slack);
    if (k > 0 && options.record_history) record_history(history, natural);
    if (options.trace) {
      event.method = detail::trace_name(Method::InteriorPoint);
      event.kind = TraceKind::InteriorStep;
      event.iteration = k;
      event.residual = natural;
      event.mu = z.dot(w) / static_cast<double>(n);
      event.step = k > 0 ? std::optional<double>(last_step) : std::nullopt;
      event.entered.clear();
      event.left.clear();
      above.resize(static_cast<std::size_t>(n), 0);
      Eigen::Index count = 0;
      for (Eigen::Index i = 0; i < n; ++i) {
        const char now = z[i] > slack[i] ? 1 : 0;
        char& before = above[static_cast<std::size_t>(i)];
        if (now && !before) event.entered.push_back(i);
        if (!now && before) event.left.push_back(i);
        before = now;
        count += now;
      }
      event.active_size = count;
      options.trace(event);
    }
    if (relative_residual(problem, z, slack) <= options.tolerance) {
      status = Status::Solved;
      why = "natural residual met the tolerance at an interior point after " + std::to_string(k) + " steps";
      best = z;
      break;
    }
    const double mu = z.dot(w) / static_cast<double>(n);
    if (options.interior_point.crossover && mu <= kCrossoverStart * mu0) {
      alpha.clear();
      for (Eigen::Index i = 0; i < n; ++i) {
        if (z[i] > slack[i]) alpha.push_back(i);
      }
      if (alpha != tried) {
        tried = alpha;
        std::optional<Eigen::VectorXd> vertex = detail::active_set_point(problem, alpha);
        if (vertex && relative_residual(problem, *vertex, problem.slack(*vertex)) <= options.tolerance) {
          status = Status::Solved;
          why = "solved by crossover after " + std::to_string(k) + " steps: M_aa z_a = -q_a on the active set of " +
                std::to_string(alpha.size()) + " components guessed from the iterate";
          best = std::move(*vertex);
          break;
        }
      }
    }
    if (k >= limit) {
      best = z;
      break;
    }
    if (const std::optional<Status> stop = detail::stop_requested()) {
      status = *stop;
      why = detail::stop_message(*stop, k, "steps");
      best = z;
      break;
    }
    if (z.cwiseAbs().maxCoeff() > kIterateBlowUp * std::max(1.0, start_size)) {
      status = Status::NoSolutionFound;
      why =
          "the iterates diverge (|z| > 1e14 times the start): a monotone LCP that has a solution keeps them "
          "bounded, so this one is most likely infeasible";
      best = z;
      break;
    }
    r = slack - w;  // M z + q − w
    A = problem.M;
    A.diagonal() += w.cwiseQuotient(z);
    factorization.reset();
    factorization.compute(A);
    // Predictor (affine scaling): complementarity target 0.
    rc = -z.cwiseProduct(w);
    rhs = -r + rc.cwiseQuotient(z);
    dz_aff = factorization.solve(rhs);
    dw_aff = (rc - w.cwiseProduct(dz_aff)).cwiseQuotient(z);
    const double alpha_aff = std::min(step_to_boundary(z, dz_aff), step_to_boundary(w, dw_aff));
    const double mu_aff = (z + alpha_aff * dz_aff).dot(w + alpha_aff * dw_aff) / static_cast<double>(n);
    const double sigma = std::pow(std::max(mu_aff, 0.0) / mu, 3.0);
    // Corrector: second-order term and centring σμ.
    rc = -z.cwiseProduct(w) - dz_aff.cwiseProduct(dw_aff);
    rc.array() += sigma * mu;
    rhs = -r + rc.cwiseQuotient(z);
    dz = factorization.solve(rhs);
    dw = (rc - w.cwiseProduct(dz)).cwiseQuotient(z);
    if (!dz.allFinite() || !dw.allFinite()) {
      status = Status::NumericalFailure;
      why = "the Newton system became singular or overflowed at step " + std::to_string(k) +
            " (z_i w_i near 0 with ill-conditioned M + Z^-1 W)";
      best = z;
      break;
    }
    const double step = std::min(1.0, fraction * std::min(step_to_boundary(z, dz), step_to_boundary(w, dw)));
    last_step = step;
    z += step * dz;
    w += step * dw;
    z = z.cwiseMax(std::numeric_limits<double>::min());
    w = w.cwiseMax(std::numeric_limits<double>::min());
  }
  result = detail::make_result(problem, std::move(best), Method::InteriorPoint);
  result.iterations = k;
  result.history = std::move(history);
  detail::judge(result, options.tolerance, status == Status::Solved ? Status::NumericalFailure : status, why);
  if (result.solved()) result.message = why;
  return result;
}

}  // namespace perp
