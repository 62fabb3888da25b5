#include "newton.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "newton_detail.hpp"
#include "newton_linear.hpp"
#include "perp/core/residual.hpp"
#include "sparse_linear.hpp"

namespace perp::newton_detail {
namespace {

// Exponent p of the descent test ∇Ψᵀd <= −ρ‖d‖^p (De Luca–Facchinei–Kanzow use p > 2).
constexpr double kDescentPower = 2.1;
// The iteration has stalled when the best Ψ so far has not decreased by kStallDecrease (relative)
// in kStallSteps + nonmonotone_memory steps.
constexpr int kStallSteps = 10;
constexpr double kStallDecrease = 1e-6;
// The proximal shift of a singular Newton system (newton_linear.hpp, NewtonSystem):
// μ_k = kProximalShift·max|J_ii|·min(1, ‖Φ_k‖∞/‖Φ_0‖∞)², so that μ falls quadratically with the
// residual and the local rate returns. On the contact benchmark at n = 1000 (bench/): newton-min
// 28 steps without it, 12 with 1e-3 and exponent 1, 11 with 1e-2 and exponent 2 (this choice);
// applied to every system instead of singular ones only, 1e-2 took the spd benchmark from 5 steps
// to 11-12, so nonsingular systems take no shift.
constexpr double kProximalShift = 1e-2;
// A proximal step that is no descent direction is solved again with μ this many times larger
// (Newton::proximal_retry). On the ten-contacts-a-body variant of the contact family at n = 1000
// (bench/HISTORY.md), unsolved by newton-min either way: with the full shift kProximalShift·max|J_ii|
// the retried steps crawled to the 200-step limit (3–10 s); with 10 the Levenberg–Marquardt steps
// took over and crawled too (38 s); with 100 the stall test ends it after 35 steps (0.4 s).
constexpr double kProximalRetry = 100.0;

// ---------------------------------------------------------------------------------------------
// The iteration.

// The method each reformulation runs as; its name (core's `method_name`, a literal) names the trace.
Method method_of(Reformulation r) {
  switch (r) {
    case Reformulation::FischerBurmeister:
      return Method::NewtonFb;
    case Reformulation::MinMap:
      return Method::NewtonMin;
    case Reformulation::PenalizedFb:
      return Method::PenalizedFb;
    case Reformulation::Smoothing:
      return Method::Smoothing;
  }
  return Method::NewtonFb;
}

using detail::format;

struct Outcome {
  Eigen::VectorXd z;
  int iterations = 0;
  std::vector<double> history;
  Status status = Status::MaxIterations;
  std::string why;  // for a non-solved status
  int gradient_steps = 0;
  int active_set_steps = 0;  // LCP: the last step was the active-set solve
  int best_returned = 0;     // 1 when the returned z is an earlier iterate of smaller merit
  int levenberg_marquardt_steps = 0;
  // How the Newton systems were solved (dense J): steps on a singular reduced matrix (the shifted,
  // refined Cholesky with the proximal shift) and steps by LU of the full H.
  int singular_steps = 0;
  int lu_steps = 0;
};

template <class Model>
class Newton {
 public:
  Newton(Model& model, Reformulation reformulation, const SolveOptions& options)
      : model_(model), reformulation_(reformulation), options_(options), reformulator_(model.lower(), model.upper()) {}

  Outcome run(Eigen::VectorXd z) {
    Outcome out;
    const NewtonOptions& o = options_.newton;
    const int limit = options_.iteration_limit(reformulation_ == Reformulation::Smoothing ? kDefaultSmoothingSteps
                                                                                          : kDefaultNewtonSteps);
    Parameters direction = parameters();
    Parameters merit = merit_parameters(direction);
    model_.start_function(z, F_);
    if (reformulation_ == Reformulation::Smoothing) {
      reformulator_.value(Parameters{Kind::Fb}, z, F_, phi_merit_);
      const double start = phi_merit_.size() == 0 ? 0.0 : phi_merit_.cwiseAbs().maxCoeff();
      // 0.5·start² overflows for |q| beyond 1e154: μ then starts at the largest double.
      const double automatic = std::min(0.5 * start * start, std::numeric_limits<double>::max());
      direction.mu = merit.mu = o.smoothing_mu > 0.0 ? o.smoothing_mu : std::max(automatic, 1e-30);
    }
    std::deque<double> recent;  // merit values for the non-monotone reference
    int stalled = 0;            // steps since the best merit so far last improved by kStallDecrease (relative)
    double best_psi = std::numeric_limits<double>::infinity();
    // The iterate of smallest merit (the start included): returned when the iteration ends unsolved.
    Eigen::VectorXd best_z = z;
    double best_merit = kInfinity;
    const int stall_limit = kStallSteps + o.nonmonotone_memory;
    double residual = natural_residual(z, F_, model_.lower(), model_.upper());
    const char* direction_name = "newton";
    if (options_.trace) trace(0, merit, z, residual, nullptr, std::nullopt);
    for (int k = 0;; ++k) {
      if (model_.relative(z, F_) <= options_.tolerance) {
        out.status = Status::Solved;
        break;
      }
      if (stalled >= stall_limit) {
        out.status = Status::NoSolutionFound;
        out.why =
            format("stalled: the best merit Psi = %.3g has not decreased by 1e-6 (relative) in the last %.0f steps",
                   best_psi, stall_limit);
        break;
      }
      if (const std::optional<Status> stop = detail::stop_requested()) {
        out.status = *stop;
        out.why = detail::stop_message(*stop, out.iterations, "Newton steps");
        break;
      }
      if (k >= limit) {
        out.status = Status::MaxIterations;
        out.why = "iteration limit " + std::to_string(limit) + " reached";
        break;
      }
      const auto& J = model_.jacobian(z);
      reformulator_.derivative(direction, z, F_, J, phi_, Da_, Db_);
      if (options_.trace) step_kinks(direction, z);
      // The merit Ψ = ½‖Φ_merit‖² and its gradient Hᵀ Φ_merit = Da∘Φ + Jᵀ(Db∘Φ).
      if (merit.kind == direction.kind) {
        phi_merit_ = phi_;
        mDa_ = Da_;
        mDb_ = Db_;
      } else {
        reformulator_.derivative(merit, z, F_, J, phi_merit_, mDa_, mDb_);
      }
      const double psi = 0.5 * phi_merit_.squaredNorm();
      gradient_ = mDa_.cwiseProduct(phi_merit_);
      gradient_.noalias() += J.transpose() * mDb_.cwiseProduct(phi_merit_);
      if (psi < best_merit) {
        best_merit = psi;
        best_z = z;
      }

      bool newton_ok = newton_system(J);
      double slope = newton_ok ? gradient_.dot(d_) : 0.0;
      const auto descent = [&] { return slope <= -o.descent_rho * std::pow(d_.norm(), kDescentPower); };
      direction_name = "newton";
      if (o.line_search && (!newton_ok || !descent()) && proximal_retry(J)) {
        newton_ok = true;
        slope = gradient_.dot(d_);
      }
      if (o.line_search && (!newton_ok || !descent()) && levenberg_marquardt(J)) {
        newton_ok = true;
        slope = gradient_.dot(d_);
        direction_name = "levenberg-marquardt";
      }
      if (!newton_ok || (o.line_search && !descent())) {
        direction_name = "gradient";
        d_ = -gradient_;
        slope = -gradient_.squaredNorm();
        ++out.gradient_steps;
        if (!o.line_search && !newton_ok) {
          out.status = Status::NumericalFailure;
          out.why = "the Newton system is singular at iteration " + std::to_string(k) +
                    " and the line search is off (newton.line_search = false)";
          break;
        }
      }
      if (slope == 0.0 && psi > 0.0) {
        out.status = Status::NoSolutionFound;
        out.why = format(
            "stopped at a stationary point of the merit function (Psi = %.3g, gradient 0): "
            "not a solution, and no descent direction exists here",
            psi);
        break;
      }
      // Line search.
      // Watchdog (models that ask for it): full steps that the non-monotone reference accepts can
      // bounce between two points without the best merit improving (seen on box LCPs with many
      // two-sided bounds); after nonmonotone_memory + 1 such steps the reference falls back to
      // Ψ(z_k) (monotone) until the best merit improves again.
      if (Model::kWatchdog && stalled > o.nonmonotone_memory) recent.clear();
      recent.push_back(psi);
      while (static_cast<int>(recent.size()) > o.nonmonotone_memory + 1) recent.pop_front();
      const double reference = *std::max_element(recent.begin(), recent.end());
      double t = 1.0;
      bool accepted = false;
      for (int trial = 0; trial <= (o.line_search ? o.max_backtracks : 0); ++trial, t *= o.backtrack) {
        trial_z_ = z + t * d_;
        if (!model_.function(trial_z_, trial_F_)) continue;  // F not finite there: shorten the step
        if (!o.line_search) {
          accepted = true;
          break;
        }
        reformulator_.value(merit, trial_z_, trial_F_, trial_phi_);
        const double trial_psi = 0.5 * trial_phi_.squaredNorm();
        if (trial_psi <= reference + o.armijo * t * slope) {
          accepted = true;
          break;
        }
      }
      if (!accepted) {
        out.status = Status::NoSolutionFound;
        out.why = format(
            "the line search found no step with sufficient decrease at iteration %.0f "
            "(Psi = %.3g, |grad Psi|_inf = %.3g there)",
            k, psi, gradient_.cwiseAbs().maxCoeff());
        break;
      }
      const double new_psi = 0.5 * trial_phi_.squaredNorm();
      if (new_psi < best_psi * (1.0 - kStallDecrease)) {
        best_psi = new_psi;
        stalled = 0;
      } else if (o.line_search) {
        ++stalled;
      }
      z.swap(trial_z_);
      F_.swap(trial_F_);
      ++out.iterations;
      residual = natural_residual(z, F_, model_.lower(), model_.upper());
      if (!(model_.relative(z, F_) <= options_.tolerance) && model_.finish(z, F_, options_.tolerance)) {
        residual = natural_residual(z, F_, model_.lower(), model_.upper());
        ++out.active_set_steps;
      }
      if (options_.record_history) record_history(out.history, residual);
      if (options_.trace) trace(out.iterations, merit, z, residual, direction_name, t);
      if (reformulation_ == Reformulation::Smoothing && direction.mu > 0.0) {
        // Shrink μ once the smoothed system is solved to within √μ; below (tol/100)² finish with μ = 0.
        reformulator_.value(direction, z, F_, phi_);
        if (phi_.cwiseAbs().maxCoeff() <= std::sqrt(direction.mu)) {
          direction.mu *= o.smoothing_factor;
          if (direction.mu < 1e-4 * options_.tolerance * options_.tolerance) direction.mu = 0.0;
          merit.mu = direction.mu;
          // Merit values of another μ are not comparable: the non-monotone memory, the stall test
          // and the best iterate start again.
          recent.clear();
          best_psi = best_merit = kInfinity;
          stalled = 0;
        }
      }
    }
    if (out.status != Status::Solved) {
      // Return the iterate of smallest merit, and say what was measured there.
      reformulator_.value(merit, z, F_, phi_merit_);
      if (best_merit < 0.5 * phi_merit_.squaredNorm()) {
        z = best_z;
        model_.start_function(z, F_);
        ++out.best_returned;
      }
      out.why += describe_point(merit, z);
    }
    out.levenberg_marquardt_steps = levenberg_marquardt_steps_;
    out.singular_steps = system_.singular_steps();
    out.lu_steps = system_.lu_steps();
    out.z = std::move(z);
    return out;
  }

 private:
  // The trace (only with options.trace): the rows at Φ's kink where the step is computed, and one
  // event per iterate with the changes of the active set {i : l_i < z_i − F_i < u_i} since the last.
  void step_kinks(const Parameters& direction, const Eigen::VectorXd& z) {
    event_.kinks.clear();
    if (direction.kind != Kind::Min) {
      event_.kinks = reformulator_.kinks();
      return;
    }
    const Eigen::VectorXd& lo = model_.lower();
    const Eigen::VectorXd& hi = model_.upper();
    for (Eigen::Index i = 0; i < z.size(); ++i) {
      const double v = z[i] - F_[i];
      const bool bounded = lo[i] > -kInfinity || hi[i] < kInfinity;
      if (bounded && lo[i] != hi[i] && (v == lo[i] || v == hi[i])) event_.kinks.push_back(i);
    }
  }
  void trace(int iteration, const Parameters& merit, const Eigen::VectorXd& z, double residual, const char* direction,
             std::optional<double> step) {
    event_.method = detail::trace_name(method_of(reformulation_));
    event_.kind = TraceKind::NewtonStep;
    event_.iteration = iteration;
    if (iteration == 0) event_.kinks.clear();
    reformulator_.value(merit, z, F_, trace_phi_);
    event_.merit = 0.5 * trace_phi_.squaredNorm();
    event_.residual = residual;
    event_.step = step;
    event_.direction = direction;
    event_.entered.clear();
    event_.left.clear();
    const Eigen::VectorXd& lo = model_.lower();
    const Eigen::VectorXd& hi = model_.upper();
    active_.resize(static_cast<std::size_t>(z.size()), 0);
    Eigen::Index count = 0;
    for (Eigen::Index i = 0; i < z.size(); ++i) {
      const double v = z[i] - F_[i];
      const char now = lo[i] < v && v < hi[i] ? 1 : 0;
      char& before = active_[static_cast<std::size_t>(i)];
      if (now && !before) event_.entered.push_back(i);
      if (!now && before) event_.left.push_back(i);
      before = now;
      count += now;
    }
    event_.active_size = count;
    options_.trace(event_);
  }

  [[nodiscard]] Parameters parameters() const {
    switch (reformulation_) {
      case Reformulation::FischerBurmeister:
        return {Kind::Fb};
      case Reformulation::MinMap:
        return {Kind::Min};
      case Reformulation::PenalizedFb:
        return {Kind::Penalized, 0.0, options_.newton.penalty};
      case Reformulation::Smoothing:
        return {Kind::Smoothed};
    }
    return {Kind::Fb};
  }
  // A singular (or inaccurately solved) Newton system: the Levenberg–Marquardt step
  // (H_mᵀH_m + μI) d = −∇Ψ on the merit's H_m = diag(mDa) + diag(mDb) J, μ = ‖Φ‖₂ (Yamashita–Fukushima:
  // locally fast even where the solutions are not isolated, as for a singular PSD LCP). A descent
  // direction of Ψ whenever ∇Ψ != 0.
  // Where the proximal step of a singular system is no descent direction (μ has fallen with ‖Φ‖
  // and the step follows a nearly singular direction again), the step with μ kProximalRetry times
  // larger (at most the first shift kProximalShift·max|J_ii|): one more Cholesky, where the
  // Levenberg–Marquardt step forms the n×n normal matrix. Dense systems only.
  bool proximal_retry(const Eigen::MatrixXd& J) {
    if (!Model::kProximal || !system_.singular_seen()) return false;
    const double proximal =
        std::min(kProximalShift * J.diagonal().cwiseAbs().maxCoeff(), kProximalRetry * last_proximal_);
    return std::isfinite(proximal) && system_.solve(J, model_.symmetric_jacobian(), Da_, Db_, phi_, d_, proximal);
  }
  static bool proximal_retry(const detail::SparseMatrix& /*J*/) { return false; }
  // The Newton step: the proximal one, μ_k = kProximalShift·max|J_ii|·min(1, ‖Φ_k‖∞/‖Φ_0‖∞)², once
  // the system has met a singular matrix (dense J, models with kProximal); the plain one otherwise.
  bool newton_system(const Eigen::MatrixXd& J) {
    if (!Model::kProximal) return system_.solve(J, model_.symmetric_jacobian(), Da_, Db_, phi_, d_);
    const double size = phi_.size() == 0 ? 0.0 : phi_.cwiseAbs().maxCoeff();
    if (start_phi_ == 0.0) start_phi_ = size;
    const double ratio = start_phi_ > 0.0 ? std::min(1.0, size / start_phi_) : 1.0;
    const double proximal = kProximalShift * J.diagonal().cwiseAbs().maxCoeff() * ratio * ratio;
    last_proximal_ = proximal;
    return system_.solve(J, model_.symmetric_jacobian(), Da_, Db_, phi_, d_, std::isfinite(proximal) ? proximal : 0.0);
  }
  bool newton_system(const detail::SparseMatrix& J) {
    return sparse_system_.solve(J, model_.symmetric_jacobian(), Da_, Db_, phi_, d_);
  }
  // The Levenberg–Marquardt step with J sparse: the same normal equations, factored sparse (LDLᵀ).
  bool levenberg_marquardt(const detail::SparseMatrix& J) {
    const double mu = phi_merit_.norm();
    if (!(mu > 0.0)) return false;
    detail::SparseMatrix H = mDb_.asDiagonal() * J;
    detail::SparseMatrix D(J.rows(), J.cols());
    D.reserve(Eigen::VectorXi::Constant(J.cols(), 1));
    for (Eigen::Index i = 0; i < J.rows(); ++i) D.insert(i, i) = mDa_[i];
    H += D;
    detail::SparseMatrix normal = H.transpose() * H;
    for (Eigen::Index i = 0; i < J.rows(); ++i) D.coeffRef(i, i) = mu;
    normal += D;
    sparse_ldlt_.compute(normal);
    if (sparse_ldlt_.info() != Eigen::Success) return false;
    d_ = sparse_ldlt_.solve(-gradient_);
    if (!d_.allFinite()) return false;
    ++levenberg_marquardt_steps_;
    return true;
  }
  bool levenberg_marquardt(const Eigen::MatrixXd& J) {
    H_ = mDb_.asDiagonal() * J;
    H_.diagonal() += mDa_;
    normal_.noalias() = H_.transpose() * H_;
    const double mu = phi_merit_.norm();
    if (!(mu > 0.0)) return false;
    normal_.diagonal().array() += mu;
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(normal_);
    if (ldlt.info() != Eigen::Success) return false;
    d_ = ldlt.solve(-gradient_);
    if (!d_.allFinite()) return false;
    ++levenberg_marquardt_steps_;
    return true;
  }

  // " (returned point: Psi = …, |grad Psi|_inf = …, …)": the merit and its gradient at z, and
  // whether that is a stationary point of the merit to round-off.
  std::string describe_point(const Parameters& merit, const Eigen::VectorXd& z) {
    const auto& J = model_.jacobian(z);
    reformulator_.derivative(merit, z, F_, J, phi_merit_, mDa_, mDb_);
    gradient_ = mDa_.cwiseProduct(phi_merit_);
    gradient_.noalias() += J.transpose() * mDb_.cwiseProduct(phi_merit_);
    const double psi = 0.5 * phi_merit_.squaredNorm();
    const double g = gradient_.cwiseAbs().maxCoeff();
    // |∇Ψ| = |Hᵀ Φ| <= ‖H‖ ‖Φ‖: stationary when it is round-off of that product.
    const double h_norm = mDa_.cwiseAbs().maxCoeff() + mDb_.cwiseAbs().maxCoeff() * max_column_sum(J);
    const double scale = h_norm * phi_merit_.cwiseAbs().maxCoeff();
    std::string text = format("; returned point: Psi = %.3g, |grad Psi|_inf = %.3g", psi, g);
    text += g <= 1e-8 * scale ? " (a stationary point of the merit: |grad Psi| <= 1e-8 |H| |Phi|)"
                              : format(
                                    " (not a stationary point of the merit: |grad Psi| = %.3g |H| |Phi|, "
                                    "above 1e-8 |H| |Phi|)",
                                    scale > 0 ? g / scale : 0.0);
    return text;
  }

  static Parameters merit_parameters(const Parameters& direction) {
    return direction.kind == Kind::Min ? Parameters{Kind::Fb} : direction;
  }

  Model& model_;
  Reformulation reformulation_;
  const SolveOptions& options_;
  Reformulator reformulator_;
  detail::NewtonSystem system_;
  detail::SparseNewtonSystem sparse_system_;
  Eigen::SimplicialLDLT<detail::SparseMatrix> sparse_ldlt_;
  Eigen::VectorXd F_, phi_, Da_, Db_, phi_merit_, mDa_, mDb_, gradient_, d_, trial_z_, trial_F_, trial_phi_;
  Eigen::MatrixXd H_, normal_;
  int levenberg_marquardt_steps_ = 0;
  double last_proximal_ = 0.0;
  double start_phi_ = 0.0;    // ‖Φ‖∞ at the first Newton system: the scale of the proximal shift
  TraceEvent event_;          // the trace's event and state (untouched without options.trace)
  std::vector<char> active_;  // the active set of the last event
  Eigen::VectorXd trace_phi_;
};

std::string describe(const Outcome& out) {
  std::string text;
  if (out.status == Status::Solved) {
    text = "natural residual met the tolerance after " + std::to_string(out.iterations) + " Newton steps";
    if (out.active_set_steps > 0)
      text += ", the last completed by solving M_aa z_a = -q_a on the identified active set";
  } else {
    text = out.why;
  }
  if (out.best_returned > 0) text += "; returning the iterate of smallest merit";
  if (out.levenberg_marquardt_steps > 0) {
    text += " (" + std::to_string(out.levenberg_marquardt_steps) +
            (out.levenberg_marquardt_steps == 1 ? " Levenberg-Marquardt step" : " Levenberg-Marquardt steps") +
            ": singular Newton system)";
  }
  if (out.gradient_steps > 0) {
    text +=
        " (" + std::to_string(out.gradient_steps) + " of them along -grad Psi: singular or non-descent Newton system)";
  }
  if (out.singular_steps > 0) {
    text += "; singular reduced Newton matrix: " + std::to_string(out.singular_steps) +
            (out.singular_steps == 1 ? " system" : " systems") + " by proximal-shifted Cholesky";
  }
  if (out.lu_steps > 0) {
    text += "; " + std::to_string(out.lu_steps) + (out.lu_steps == 1 ? " system" : " systems") + " by LU";
  }
  return text;
}

// Iterations, history, message and status of a result whose z, w and residual are set.
void report(Result& result, Outcome& out, double tolerance) {
  result.iterations = out.iterations;
  result.history = std::move(out.history);
  result.message = describe(out);
  // The iteration's own test may have passed on its copy of F; the status is judged on the result's.
  detail::judge(result, tolerance, out.status == Status::Solved ? Status::NumericalFailure : out.status,
                result.message);
}

}  // namespace
}  // namespace perp::newton_detail

namespace perp {

Result solve_newton(const Lcp& problem, Reformulation reformulation, const SolveOptions& options) {
  using namespace newton_detail;
  const Method method = method_of(reformulation);
  if (auto trivial = detail::trivial_result(problem, method)) return *trivial;
  LcpModel model(problem);
  Newton<LcpModel> newton(model, reformulation, options);
  Outcome out = newton.run(options.initial_guess.value_or(Eigen::VectorXd::Zero(problem.size())));
  Result result = detail::make_result(problem, std::move(out.z), method);
  // The vertex the iterate approximates: exact where the active set {z_i > w_i} is right.
  std::vector<Eigen::Index> active;
  for (Eigen::Index i = 0; i < result.z.size(); ++i) {
    if (result.z[i] > result.w[i]) active.push_back(i);
  }
  (void)detail::polish_on_active_set(problem, result, active);
  report(result, out, options.tolerance);
  return result;
}

Result solve_newton(const BoxLcp& problem, Reformulation reformulation, const SolveOptions& options) {
  using namespace newton_detail;
  const Method method = method_of(reformulation);
  const Eigen::Index n = problem.size();
  Result result;
  result.method = method;
  if (n == 0) {
    result.status = Status::Solved;
    result.message = "empty problem (n = 0)";
    return result;
  }
  Eigen::VectorXd start = options.initial_guess.value_or(Eigen::VectorXd::Zero(n));
  start = start.cwiseMax(problem.lower).cwiseMin(problem.upper);
  BoxModel model(problem);
  Newton<BoxModel> newton(model, reformulation, options);
  Outcome out = newton.run(std::move(start));
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!std::isfinite(out.z[i])) out.z[i] = 0.0;
  }
  result.w = problem.slack(out.z);
  result.z = std::move(out.z);
  result.residual = natural_residual(result.z, result.w, problem.lower, problem.upper);
  result.relative_residual = model.relative(result.z, result.w);
  report(result, out, options.tolerance);
  return result;
}

Result solve_newton(const Mcp& problem, Reformulation reformulation, const SolveOptions& options) {
  using namespace newton_detail;
  const Method method = method_of(reformulation);
  const Eigen::Index n = problem.size();
  if (n == 0) {  // nothing to solve; F is not called on an empty vector
    Result empty;
    empty.status = Status::Solved;
    empty.method = method;
    empty.message = "empty problem (n = 0)";
    return empty;
  }
  Eigen::VectorXd start = options.initial_guess.value_or(Eigen::VectorXd::Zero(n));
  start = start.cwiseMax(problem.lower).cwiseMin(problem.upper);
  const auto finish = [&](auto& model, Outcome out) {
    Result result;
    result.w = evaluate_function(problem.F, out.z, "F at the returned point");
    result.z = std::move(out.z);
    result.residual = natural_residual(result.z, result.w, problem.lower, problem.upper);
    result.relative_residual = model.relative(result.z, result.w);
    result.method = method;
    report(result, out, options.tolerance);
    return result;
  };
  if (problem.sparse()) {
    SparseMcpModel model(problem);
    Newton<SparseMcpModel> newton(model, reformulation, options);
    return finish(model, newton.run(std::move(start)));
  }
  McpModel model(problem);
  Newton<McpModel> newton(model, reformulation, options);
  return finish(model, newton.run(std::move(start)));
}

}  // namespace perp
