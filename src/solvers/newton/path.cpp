#include "path.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "entry/detail.hpp"
#include "path_detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "sparse_linear.hpp"

namespace perp {

namespace {

using detail::kInfinity;
// The proximal perturbation δ: first kFirstDelta·max(1, ‖J‖∞), ×10 per retry, at most kLastDelta·max(1, ‖J‖∞).
constexpr double kFirstDelta = 1e-6;
constexpr double kLastDelta = 1e6;
// The most proximal-point subproblems of one run.
constexpr int kMaxProximalSteps = 200;

using path_detail::ActiveSetNewtonPoint;
using path_detail::kMaxActiveSetSolves;
using path_detail::LinearPath;
using path_detail::Model;
using path_detail::PathFollower;
using path_detail::PathPoint;
using path_detail::SparseFunctionModel;

// F = M z + q.
class PathLinearModel final : public Model {
 public:
  PathLinearModel(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, const Eigen::VectorXd& lower,
              const Eigen::VectorXd& upper, bool lcp)
      : Model(lower, upper), M_(M), q_(q), lcp_(lcp) {}
  bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) override {
    F.noalias() = M_ * z;
    F += q_;
    return F.allFinite();
  }
  const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& /*z*/) override { return M_; }
  double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) override {
    static const Eigen::VectorXd none;
    const Eigen::VectorXd& lo = lcp_ ? none : lower();
    const Eigen::VectorXd& hi = lcp_ ? none : upper();
    return scaled_natural_residual(z, F, lo, hi, z_scale(z, lo, hi), w_scale(M_, q_, z));
  }

 private:
  const Eigen::MatrixXd& M_;
  const Eigen::VectorXd& q_;
  bool lcp_;
};

// The user's F and J, checked at every call.
class FunctionModel final : public Model {
 public:
  // `log`: the calls made before (solve_path's checks at the start point).
  FunctionModel(const Mcp& problem, path_detail::CallLog log)
      : Model(problem.lower, problem.upper), problem_(problem), log_(std::move(log)) {}
  bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) override {
    return path_detail::user_function(problem_, z, F, log_);
  }
  const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& z) override {
    if (J_at_.size() == z.size() && J_at_ == z) return J_;
    J_ = path_detail::user_jacobian(problem_, z, log_);
    J_at_ = z;
    return J_;
  }
  double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) override {
    return relative_residual(z, F, jacobian(z), lower(), upper());
  }
  [[nodiscard]] std::string non_finite_note() const override { return log_.first_non_finite_f; }

 private:
  const Mcp& problem_;
  Eigen::MatrixXd J_;
  Eigen::VectorXd J_at_;
  path_detail::CallLog log_;
};

// The proximal subproblem G(z) = F(z) + λ (z − centre) of a base model.
class ProximalModel final : public Model {
 public:
  ProximalModel(Model& base, const Eigen::VectorXd& centre, double lambda)
      : Model(base.lower(), base.upper()), base_(base), centre_(centre), lambda_(lambda) {}
  bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) override {
    if (!base_.function(z, F)) return false;
    F += lambda_ * (z - centre_);
    return F.allFinite();
  }
  const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& z) override {
    J_ = base_.jacobian(z);
    J_.diagonal().array() += lambda_;
    return J_;
  }
  [[nodiscard]] bool sparse() const override { return base_.sparse(); }
  const detail::SparseMatrix& sparse_jacobian(const Eigen::VectorXd& z) override {
    if (sparse_at_.size() == z.size() && sparse_at_ == z) return sparse_J_;
    detail::SparseMatrix identity(z.size(), z.size());
    identity.setIdentity();
    sparse_J_ = base_.sparse_jacobian(z) + lambda_ * identity;
    sparse_at_ = z;
    return sparse_J_;
  }
  double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) override {
    if (sparse()) return relative_residual(z, F, sparse_jacobian(z), lower(), upper());
    return relative_residual(z, F, jacobian(z), lower(), upper());
  }
  [[nodiscard]] std::string non_finite_note() const override { return base_.non_finite_note(); }

 private:
  Model& base_;
  const Eigen::VectorXd& centre_;
  double lambda_;
  Eigen::MatrixXd J_;
  detail::SparseMatrix sparse_J_;
  Eigen::VectorXd sparse_at_;
};

// π(x): the projection onto [l, u].
Eigen::VectorXd project(const Eigen::VectorXd& x, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  return x.cwiseMax(lower).cwiseMin(upper);
}

// The point of the path where t first reaches τ (linear between breakpoints).
Eigen::VectorXd point_at(const LinearPath& path, double tau) {
  for (std::size_t j = 1; j < path.points.size(); ++j) {
    const PathPoint& a = path.points[j - 1];
    const PathPoint& b = path.points[j];
    if (b.t >= tau && a.t < tau) {
      const double f = (tau - a.t) / (b.t - a.t);
      return a.x + f * (b.x - a.x);
    }
  }
  return path.points.back().x;
}

double largest_t(const LinearPath& path) {
  double t = 0;
  for (const PathPoint& p : path.points) t = std::max(t, p.t);
  return t;
}

// ---------------------------------------------------------------------------------------------
// The major iteration.

using detail::format;

struct Point {
  Eigen::VectorXd x, z, F, r;  // r = F_B(x) = F(z) + x − z
  double merit = kInfinity;    // ‖r‖₂
};

enum class End { Solved, Stuck, Limit, Stopped };

struct Run {
  End end = End::Limit;
  Point best;  // the point of smallest merit; the end point when solved
  std::string why;
  Status stopped = Status::TimeLimit;  // End::Stopped: which stop (detail::stop_requested)
};

class Path {
 public:
  Path(const SolveOptions& options, int limit) : options_(options), limit_(limit) {}

  // Evaluates the point x; false when F is not finite at π(x).
  // `p` is left as it was when false (a caller may go on with it).
  static bool evaluate(Model& model, const Eigen::VectorXd& x, Point& p) {
    if (!x.allFinite()) return false;  // F is never called at a point not finite
    Point trial;
    trial.x = x;
    trial.z = project(x, model.lower(), model.upper());
    if (!model.function(trial.z, trial.F)) return false;
    trial.r = trial.F + trial.x - trial.z;
    trial.merit = trial.r.norm();
    if (!std::isfinite(trial.merit)) return false;
    p = std::move(trial);
    return true;
  }

  // The x nearest to z with π(x) = z and the smallest residual: x_i = z_i in the interior, and at
  // a bound moved outwards by F_i's part that points out of the box.
  static Eigen::VectorXd lift(const Model& model, const Eigen::VectorXd& z, const Eigen::VectorXd& F) {
    Eigen::VectorXd x = z;
    for (Eigen::Index i = 0; i < z.size(); ++i) {
      if (z[i] <= model.lower()[i] && F[i] > 0) x[i] -= F[i];
      if (z[i] >= model.upper()[i] && F[i] < 0) x[i] -= F[i];
    }
    return x;
  }

  // Newton-type iterations on `model` from x0 until solved, stuck (no δ gives a step) or the
  // iteration budget runs out.
  Run iterate(Model& model, Point current) {
    const NewtonOptions& o = options_.newton;
    const Eigen::Index n = model.size();
    const int max_pivots = std::max(1000, static_cast<int>(std::min<Eigen::Index>(20 * n, 1000000)));
    Run run;
    run.best = current;
    std::deque<double> recent;
    int since_best = 0;
    double delta = 0;
    for (;;) {
      if (&model == base_ && current.merit < best_seen_.merit) best_seen_ = current;
      if (model.relative(current.z, current.F) <= options_.tolerance) {
        run.end = End::Solved;
        run.best = current;
        return run;
      }
      if (iterations_ >= limit_) {
        run.end = End::Limit;
        run.why = "iteration limit " + std::to_string(limit_) + " reached";
        return run;
      }
      if (const std::optional<Status> stop = detail::stop_requested()) {
        run.end = End::Stopped;
        run.stopped = *stop;
        run.why = detail::stop_message(*stop, iterations_, "major iterations");
        return run;
      }
      // Watchdog: after nonmonotone_memory + 1 steps without a new best merit, back to the best
      // point and a monotone search from there.
      if (since_best > o.nonmonotone_memory) {
        current = run.best;
        recent.clear();
        since_best = 0;
        ++watchdog_returns_;
      }
      recent.push_back(current.merit);
      while (static_cast<int>(recent.size()) > o.nonmonotone_memory + 1) recent.pop_front();
      const double reference = *std::max_element(recent.begin(), recent.end());

      const bool sparse = model.sparse();
      const Eigen::MatrixXd* J = sparse ? nullptr : &model.jacobian(current.z);
      const detail::SparseMatrix* Js = sparse ? &model.sparse_jacobian(current.z) : nullptr;
      const double j_scale =
          std::max(1.0, sparse ? detail::max_row_sum(*Js) : J->cwiseAbs().rowwise().sum().maxCoeff());
      const bool symmetric = sparse && detail::is_symmetric(*Js);
      bool stepped = false;
      for (delta = delta < kFirstDelta * j_scale ? 0.0 : delta;;
           delta = delta == 0.0 ? kFirstDelta * j_scale : 10 * delta) {
        if (delta > kLastDelta * j_scale) break;
        // The linearization F(z_k) + M (z − z_k) enters only through r = F_B(x_k) and M.
        LinearPath path;
        if (sparse) {
          sparse_linearization_ = *Js;
          if (delta > 0) {
            detail::SparseMatrix shift(Js->rows(), Js->cols());
            shift.setIdentity();
            sparse_linearization_ += delta * shift;
          }
          path = newton_point_.follow(sparse_linearization_, symmetric, model.lower(), model.upper(), current.x,
                                      current.r);
        } else {
          linearization_ = *J;
          if (delta > 0) linearization_.diagonal().array() += delta;
          path = follower_.follow(linearization_, model.lower(), model.upper(), current.x, current.r, max_pivots);
        }
        pivots_ += path.pivots;
        if (delta > 0) ++perturbed_;
        const double reach = largest_t(path);
        if (!(reach > 0.0)) continue;
        double tau = reach;
        Point trial;
        for (int k = 0; k <= o.max_backtracks; ++k, tau *= o.backtrack) {
          if (!evaluate(model, point_at(path, tau), trial)) continue;
          if (trial.merit <= (1.0 - o.armijo * tau) * reference) {
            stepped = true;
            break;
          }
        }
        if (stepped) {
          if (path.complete && tau == reach) ++full_steps_;
          current = std::move(trial);
          break;
        }
      }
      if (!stepped) {
        run.end = End::Stuck;
        run.why = format(
            "no point of the linearized problems' paths (perturbed by delta up to %.3g) decreases the normal-map "
            "merit |F_B(x)| = %.3g",
            kLastDelta * j_scale, current.merit);
        if (current.merit < run.best.merit) run.best = current;
        return run;
      }
      delta = delta / 10;
      ++iterations_;
      if (options_.record_history && record_) {
        record_history(history_, natural_residual(current.z, current.F, model.lower(), model.upper()));
      }
      if (current.merit < run.best.merit * (1 - 1e-12)) {
        run.best = current;
        since_best = 0;
      } else {
        ++since_best;
      }
    }
  }

  // The whole method on `model` from the start point z0 (already in the box), or from the point
  // `given` of the normal map when there is one.
  Run solve(Model& model, const Eigen::VectorXd& z0, const Eigen::VectorXd* given = nullptr) {
    base_ = &model;
    Point start, other;
    if (given != nullptr && evaluate(model, *given, start)) return restarts(model, iterate(model, start));
    // Crash: the projected step's active set, or z0's own, whichever has the smaller merit.
    if (!evaluate(model, z0, start)) {
      throw InvalidProblem("F is not finite at the start point" +
                           (model.non_finite_note().empty() ? std::string() : " (" + model.non_finite_note() + ")"));
    }
    best_seen_ = start;
    Eigen::VectorXd lifted = lift(model, z0, start.F);
    (void)evaluate(model, lifted, start);
    // The projected step's active set: taken only where the point's own merit is no better, and
    // only on the bounds (interior components keep z0's values).
    Eigen::VectorXd crash = lifted;
    for (Eigen::Index i = 0; i < crash.size(); ++i) {
      const double step = z0[i] - start.F[i];
      if (step <= model.lower()[i] || step >= model.upper()[i]) crash[i] = step;
    }
    if (evaluate(model, crash, other) && other.merit < start.merit) start = std::move(other);

    return restarts(model, iterate(model, start));
  }

  // The proximal-point restarts after a run that got stuck.
  Run restarts(Model& model, Run run) {
    while (run.end == End::Stuck && proximal_steps_ < kMaxProximalSteps && iterations_ < limit_) {
      // Proximal restarts from the best point (Billups–Ferris): solve G(z) = F(z) + λ(z − z̄) ⊥ box,
      // move z̄ to its solution, until F's merit is below the stuck value.
      const double stuck = run.best.merit;
      Eigen::VectorXd centre = run.best.z;
      Point point = run.best;
      bool below = false;
      while (!below && proximal_steps_ < kMaxProximalSteps && iterations_ < limit_) {
        double lowest = 0, j_norm = 0;
        if (model.sparse()) {
          // Sparse: Gershgorin's bound on λ_min instead of the eigenvalues (a λ at least as large).
          const detail::SparseMatrix& J = model.sparse_jacobian(centre);
          lowest = detail::gershgorin_lower_bound(J);
          j_norm = detail::max_row_sum(J);
        } else {
          const Eigen::MatrixXd& J = model.jacobian(centre);
          const Eigen::MatrixXd symmetric = 0.5 * (J + J.transpose());
          lowest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(symmetric, Eigen::EigenvaluesOnly)
                       .eigenvalues()
                       .minCoeff();
          j_norm = J.cwiseAbs().rowwise().sum().maxCoeff();
        }
        const double floor = 1e-2 * std::max(1.0, j_norm);
        double lambda = std::max(floor, 2.0 * std::max(0.0, -lowest));
        Run sub;
        bool started = false;
        for (int attempt = 0; attempt < 6; ++attempt, lambda *= 10) {
          ProximalModel proximal(model, centre, lambda);
          Point sub_start;
          Eigen::VectorXd G;
          // F not finite at the centre or its lift: no subproblem to start (the run ends below).
          if (!proximal.function(centre, G) || !evaluate(proximal, lift(proximal, centre, G), sub_start)) break;
          started = true;
          const bool was = record_;
          record_ = false;
          sub = iterate(proximal, sub_start);
          record_ = was;
          if (sub.end == End::Stopped) {  // the time limit or the interrupt: the best point so far stands
            run.end = End::Stopped;
            run.stopped = sub.stopped;
            run.why = sub.why;
            return run;
          }
          if (sub.end == End::Solved || sub.best.merit < sub_start.merit) break;
        }
        ++proximal_steps_;
        if (!started) break;
        centre = sub.best.z;
        if (!evaluate(model, centre, point)) break;
        (void)evaluate(model, lift(model, centre, point.F), point);
        below = point.merit < stuck * (1 - 1e-3) || model.relative(point.z, point.F) <= options_.tolerance;
      }
      if (!below) {
        run.why += "; " + std::to_string(proximal_steps_) +
                   " proximal-point restarts did not bring the merit below that value";
        break;
      }
      Run next = iterate(model, point);
      if (next.end != End::Solved && run.best.merit < next.best.merit) next.best = run.best;
      run = std::move(next);
    }
    return run;
  }

  [[nodiscard]] std::string summary() const {
    std::string text =
        std::to_string(iterations_) + " major iterations (" + std::to_string(full_steps_) + " full Newton steps), ";
    text += newton_point_.solves() > 0
                ? std::to_string(newton_point_.solves()) + " sparse active-set solves (block pivoting)"
                : std::to_string(pivots_) + " pivots";
    if (newton_point_.unsettled() > 0) {
      text += " (" + std::to_string(newton_point_.unsettled()) +
              " linearizations without a Newton point: block pivoting cycled, met a singular free block or used its " +
              std::to_string(kMaxActiveSetSolves) + " solves; M was then perturbed as for a failed path)";
    }
    if (perturbed_ > 0) text += ", " + std::to_string(perturbed_) + " paths with a proximal perturbation";
    if (watchdog_returns_ > 0) text += ", " + std::to_string(watchdog_returns_) + " watchdog returns";
    if (proximal_steps_ > 0) text += ", " + std::to_string(proximal_steps_) + " proximal-point restarts";
    return text;
  }
  [[nodiscard]] int iterations() const { return iterations_; }
  std::vector<double>& history() { return history_; }
  // The point of smallest merit on the problem's own model so far (the start at least).
  [[nodiscard]] const Point& best_seen() const { return best_seen_; }

 private:
  const SolveOptions& options_;
  int limit_;
  PathFollower follower_;
  ActiveSetNewtonPoint newton_point_;
  Eigen::MatrixXd linearization_;
  detail::SparseMatrix sparse_linearization_;
  std::vector<double> history_;
  const Model* base_ = nullptr;
  Point best_seen_;
  bool record_ = true;
  int iterations_ = 0, pivots_ = 0, full_steps_ = 0, perturbed_ = 0, watchdog_returns_ = 0, proximal_steps_ = 0;
};

// Runs the method and fills z, iterations, history and message; the caller sets w and the residuals.
// `F_out`, when given, gets F at the returned z (as evaluated there: the user's F is not called
// again, since it may no longer be finite). A J not finite ends the run with the best point before
// it, and so does an F not finite when the run does not solve: NumericalFailure, naming the call
// and the iterate.
Result run_path(Model& model, const Eigen::VectorXd& z0, const SolveOptions& options,
                const Eigen::VectorXd* given = nullptr, Eigen::VectorXd* F_out = nullptr) {
  Path path(options, options.iteration_limit(kDefaultMajorIterations));
  Run run;
  std::string non_finite;
  try {
    run = path.solve(model, z0, given);
  } catch (const path_detail::NonFiniteJacobian& error) {
    run.end = End::Stuck;
    run.best = path.best_seen();
    non_finite = error.what();
  }
  if (run.end != End::Solved && non_finite.empty()) non_finite = model.non_finite_note();
  Result result;
  result.method = Method::Path;
  if (F_out != nullptr) *F_out = run.best.F;
  result.z = std::move(run.best.z);
  result.iterations = path.iterations();
  result.history = std::move(path.history());
  switch (run.end) {
    case End::Solved:
      result.status = Status::Solved;
      result.message = "natural residual met the tolerance after " + path.summary();
      break;
    case End::Limit:
      result.status = Status::MaxIterations;
      result.message = run.why + " after " + path.summary() + "; returning the point of smallest merit";
      break;
    case End::Stopped:
      result.status = run.stopped;
      result.message = run.why + " (" + path.summary() + "); returning the point of smallest merit";
      break;
    case End::Stuck:
      result.status = Status::NoSolutionFound;
      result.message = run.why + " (after " + path.summary() + "); returning the point of smallest merit";
      break;
  }
  if (!non_finite.empty()) {
    result.status = Status::NumericalFailure;
    result.message = "the user's " + non_finite + (run.why.empty() ? "" : "; the run then ended: " + run.why) +
                     " (after " + path.summary() + "); returning the point of smallest merit before it";
  }
  return result;
}

void finish(Result& result, double tolerance) {
  const Status claimed = result.status;
  detail::judge(result, tolerance, claimed == Status::Solved ? Status::NumericalFailure : claimed, result.message);
}

}  // namespace

// The public entries validate (path.hpp); through `solve` that is a second pass over the data,
// small beside one path's pivots.
Result solve_path(const Mcp& problem, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  const Eigen::Index n = problem.size();
  if (n == 0) {
    Result empty;
    empty.status = Status::Solved;
    empty.method = Method::Path;
    empty.message = "empty problem (n = 0)";
    return empty;
  }
  const Eigen::VectorXd start =
      project(options.initial_guess.value_or(Eigen::VectorXd::Zero(n)), problem.lower, problem.upper);
  (void)evaluate_function(problem.F, start, "F at the start point");
  const auto run = [&](Model& model) {
    Eigen::VectorXd F;
    Result result = run_path(model, start, options, nullptr, &F);
    result.w = std::move(F);
    result.residual = natural_residual(result.z, result.w, problem.lower, problem.upper);
    try {
      result.relative_residual = model.relative(result.z, result.w);
    } catch (const path_detail::NonFiniteJacobian& error) {  // J at the returned point
      result.relative_residual = kInfinity;
      // Named already where the run ended on it (the same point).
      if (result.status != Status::NumericalFailure) result.message += std::string("; the user's ") + error.what();
      result.status = Status::NumericalFailure;
    }
    finish(result, options.tolerance);
    return result;
  };
  // The checks at the start point are the user's first calls of F and J.
  const path_detail::CallLog start_calls{.f_calls = 1, .j_calls = 1, .first_non_finite_f = {}};
  if (problem.sparse()) {
    (void)evaluate_jacobian(problem.J_sparse, start, "J at the start point");
    SparseFunctionModel model(problem, start_calls);
    return run(model);
  }
  (void)evaluate_jacobian(problem.J, start, "J at the start point");
  FunctionModel model(problem, start_calls);
  return run(model);
}

Result solve_path(const Lcp& problem, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  if (auto trivial = detail::trivial_result(problem, Method::Path)) return *trivial;
  const Eigen::Index n = problem.size();
  const Eigen::VectorXd lower = Eigen::VectorXd::Zero(n);
  const Eigen::VectorXd upper = Eigen::VectorXd::Constant(n, kInfinity);
  PathLinearModel model(problem.M, problem.q, lower, upper, true);
  const Eigen::VectorXd start = options.initial_guess.value_or(Eigen::VectorXd::Zero(n)).cwiseMax(0.0);
  // Without a warm start, the first path is Lemke's (covering vector 1): from z = 0, w = q + z₀·1
  // with z₀ = max(−q), the normal-map point x = −w has F_B(x) = −z₀·1, and the homotopy
  // A(x(t)) = (1 − t) F_B(x) is w = M z + q + (1 − t) z₀·1.
  const Eigen::VectorXd lemke = -(problem.q.array() + std::max(0.0, -problem.q.minCoeff())).matrix();
  Result run = run_path(model, start, options, options.initial_guess ? nullptr : &lemke);
  Result result = detail::make_result(problem, std::move(run.z), Method::Path);
  std::vector<Eigen::Index> active;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (result.z[i] > result.w[i]) active.push_back(i);
  }
  (void)detail::polish_on_active_set(problem, result, active);
  result.status = run.status;
  result.iterations = run.iterations;
  result.history = std::move(run.history);
  result.message = std::move(run.message);
  finish(result, options.tolerance);
  return result;
}

Result solve_path(const BoxLcp& problem, const SolveOptions& options) {
  problem.validate();
  options.validate(problem.size());
  const Eigen::Index n = problem.size();
  Result result;
  result.method = Method::Path;
  if (n == 0) {
    result.status = Status::Solved;
    result.message = "empty problem (n = 0)";
    return result;
  }
  PathLinearModel model(problem.M, problem.q, problem.lower, problem.upper, false);
  const Eigen::VectorXd start =
      project(options.initial_guess.value_or(Eigen::VectorXd::Zero(n)), problem.lower, problem.upper);
  result = run_path(model, start, options);
  result.w = problem.slack(result.z);
  result.residual = natural_residual(result.z, result.w, problem.lower, problem.upper);
  result.relative_residual = model.relative(result.z, result.w);
  finish(result, options.tolerance);
  return result;
}

}  // namespace perp
