// The frictional contact problem given by its factors, W = H M⁻¹ Hᵀ (FactoredFrictionContact): its
// checks, and `solve` on it (nsgs and interior-point on the factors; auto's sweeps there, then W
// formed and the chain of friction_contact.cpp).
#include "perp/solvers/friction_contact.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "entry/detail.hpp"
#include "entry/pipeline.hpp"
#include "friction/convex/admm.hpp"
#include "friction/convex/friction_ipm.hpp"
#include "friction/convex/friction_shift.hpp"
#include "friction/impulse/nsgs.hpp"
#include "judgement.hpp"
#include "perp/core/error.hpp"

namespace perp {

using detail::friction::Fresh;
using detail::friction::check_friction_options;
using detail::friction::judge_point;
using detail::friction::recompute_point;
using detail::friction::start_of;
using detail::friction::trivial_result;

void FactoredFrictionContact::validate() const {
  if (dimension != 2 && dimension != 3) {
    throw InvalidProblem("dimension: expected 2 or 3, got " + std::to_string(dimension));
  }
  const Eigen::Index n = dimension * mu.size();
  if (q.size() != n) {
    throw InvalidProblem("q: expected size " + std::to_string(n) + " (dimension " + std::to_string(dimension) +
                         " x " + std::to_string(mu.size()) + " contacts, one mu each), got " + std::to_string(q.size()));
  }
  if (H.rows() != n || H.cols() != inverse_mass.size()) {
    throw InvalidProblem("H: expected " + std::to_string(n) + "x" + std::to_string(inverse_mass.size()) +
                         " (dimension x contacts, inverse_mass's size), got " + std::to_string(H.rows()) + "x" +
                         std::to_string(H.cols()));
  }
  detail::validate_factors(H, "H", inverse_mass);
  require_finite(q, "q");
  require_finite(mu, "mu");
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    if (mu[i] < 0) throw InvalidProblem("mu[" + std::to_string(i) + "] is " + number_text(mu[i]) + "; must be >= 0");
  }
}

Eigen::VectorXd FactoredFrictionContact::velocity(const Eigen::VectorXd& r) const {
  require_size(r, q.size(), "r");
  return detail::factored_product(H, inverse_mass, r, q);
}

FrictionContact FactoredFrictionContact::assembled() const {
  FrictionContact problem;
  problem.dimension = dimension;
  const Eigen::SparseMatrix<double> scaled = H * inverse_mass.asDiagonal();
  problem.W = scaled * Eigen::SparseMatrix<double>(H.transpose());
  problem.W.makeCompressed();
  problem.q = q;
  problem.mu = mu;
  return problem;
}

namespace {

// What the factored form supplies to the pipeline: the steps of FrictionContactSteps on `shell`
// (d, q and μ for the residuals; its W is never formed or read), with u = H M⁻¹ Hᵀ r + q.
struct FactoredFrictionContactSteps {
  static constexpr ProblemKind kind = ProblemKind::FrictionContact;
  FrictionContact shell;
  Fresh fresh;
  bool overflowed = false;

  explicit FactoredFrictionContactSteps(const FactoredFrictionContact& problem) {
    shell.dimension = problem.dimension;
    shell.q = problem.q;
    shell.mu = problem.mu;
  }
  static void check(const FactoredFrictionContact& problem, Method, const SolveOptions& options) {
    check_friction_options(options, problem.contacts());
  }
  std::optional<Result> trivial(const FactoredFrictionContact&, const SolveOptions&) const {
    return trivial_result(shell);
  }
  Result run(const FactoredFrictionContact& problem, Method method, const SolveOptions& options);
  void finish(const FactoredFrictionContact& problem, const SolveOptions&, Result& result) {
    const auto velocity = [&problem](const Eigen::VectorXd& r) { return problem.velocity(r); };
    overflowed = recompute_point(shell, velocity, result, fresh);
  }
  void judge(const FactoredFrictionContact&, const SolveOptions& options, Result& result) const {
    judge_point(shell, options, *fresh, overflowed, result);
  }
};

// interior-point and nsgs on the factors; auto: nsgs on the factors, then in the plane the
// relaxation where nothing slides and (when asked) the shift, then W formed and auto's chain; the
// other methods on W formed.
Result FactoredFrictionContactSteps::run(const FactoredFrictionContact& problem, Method method,
                                         const SolveOptions& options) {
  fresh.reset();
  if (method == Method::Admm) {
    FrictionContactResiduals residuals;
    Result result = detail::solve_admm_factored(problem.H, problem.inverse_mass, shell, options,
                                                start_of(options, problem.size()), residuals);
    fresh = residuals;
    return result;
  }
  if (method != Method::InteriorPoint && method != Method::Nsgs && method != Method::Auto) {
    return detail::friction::attempt_on_w(problem.assembled(), method, options, fresh);
  }
  const Eigen::VectorXd r0 = start_of(options, problem.size());
  if (method == Method::InteriorPoint) {
    return detail::solve_friction_interior_point(problem.H, problem.inverse_mass, shell, options, r0);
  }
  std::string from_rest;
  if (method == Method::Auto && problem.dimension == 2 && r0.isZero()) {
    // No impulse to start from and no contact sliding at the free velocity (every |q_T| within
    // 1 % of ‖q‖∞): a structure from rest. The relaxation first, where nsgs would need hundreds
    // to thousands of sweeps on a statically indeterminate pile (a 20-row pyramid's first step:
    // 50-60 ms against 170-390 ms for 1 000 sweeps and the relaxation after them; a 5-row one:
    // 2.4 ms against nsgs' 1.1 ms in 310 sweeps). Kept only where it solves.
    FrictionContactResiduals relaxed_residuals;
    if (std::optional<Result> relaxed = detail::solve_at_rest(problem.H, problem.inverse_mass, shell, options, r0, 1.0,
                                                              relaxed_residuals)) {
      if (relaxed->solved()) {
        fresh = relaxed_residuals;
        relaxed->message = detail::one_line("auto: from rest, " + relaxed->message);
        return *std::move(relaxed);
      }
      from_rest = "from rest, " + relaxed->message + " (not solved); then ";
    }
  }
  SolveOptions attempt = options;
  if (method == Method::Auto) {
    attempt.max_iterations =
        std::min(options.iteration_limit(kDefaultSweeps), options.friction_contact.automatic.nsgs_sweeps);
  }
  FrictionContactResiduals residuals;
  Result result = detail::solve_nsgs_factored(problem.H, problem.inverse_mass, shell, attempt, r0, residuals,
                                              method == Method::Auto);
  fresh = residuals;
  if (method == Method::Nsgs) return result;
  detail::conclude(*this, problem, attempt, result);  // auto decides on the sweeps' judged point
  if (result.solved()) {
    result.attempt_order = from_rest + "nsgs on the factors of W: solved";
    result.message = detail::one_line("auto (" + result.attempt_order + "): " + result.message);
    return result;
  }
  std::string story = from_rest + "nsgs on the factors of W: " + to_string(result.status) + " after " +
                      std::to_string(result.iterations) + " sweeps (relative error " + number_text(result.residual) +
                      ")";
  const Eigen::VectorXd swept = result.z;
  const int sweeps = result.iterations;
  if (problem.dimension == 2) {
    // In the plane, where no contact slides at the sweeps' point: Anitescu–Potra's relaxation,
    // whose solution is Coulomb's when the bodies are at rest (a structure from rest).
    FrictionContactResiduals relaxed_residuals;
    if (std::optional<Result> relaxed = detail::solve_at_rest(problem.H, problem.inverse_mass, shell, options, swept,
                                                              result.residual, relaxed_residuals)) {
      story += "; then " + relaxed->message;
      if (relaxed->residual < result.residual) {
        relaxed->iterations += sweeps;
        result = *std::move(relaxed);
        fresh = relaxed_residuals;
      }
    }
  }
  if (!result.solved() && problem.dimension == 2 && options.friction_contact.automatic.shift_updates > 0) {
    // In the plane, when asked for: the fixed point on de Saxcé's shift from the sweeps' point,
    // each update an exact convex program on the factors (W still not formed).
    FrictionContactResiduals shifted_residuals;
    SolveOptions shift_options = options;
    shift_options.max_iterations = options.friction_contact.automatic.shift_updates;
    Result shifted =
        detail::solve_by_shifts(problem.H, problem.inverse_mass, shell, shift_options, swept, shifted_residuals);
    story += "; then " + shifted.message;
    if (shifted.residual < result.residual) {
      shifted.iterations += sweeps;
      result = std::move(shifted);
      fresh = shifted_residuals;
    }
  }
  if (!result.solved()) {
    // W formed, and auto's chain from the sweeps' point (newton-ac first: the sweeps on the
    // factors were the chain's first nsgs). Not from the shift's point: on packed heaps, where
    // the shift stalls, the chain from its vertex solved fewer steps than from the sweeps'.
    const FrictionContact formed = problem.assembled();
    Fresh chain_fresh;
    Result chained = detail::friction::auto_chain(formed, options, swept, chain_fresh, true);
    if (chained.solved() || chained.residual <= result.residual) {
      chained.iterations += result.iterations;
      story += "; then W formed, from the sweeps' point: " + chained.message;
      result = std::move(chained);
      fresh = std::move(chain_fresh);
    } else {
      story += "; then W formed, and its chain from the sweeps' point ended farther (" + chained.message +
               "): the best point before it is returned";
    }
  }
  // One line (which method's point, and its message); the story in full in attempt_order.
  result.attempt_order = story + (result.attempt_order.empty() ? "" : " [the chain's order: " + result.attempt_order + "]");
  result.message = detail::one_line("auto (nsgs on the factors of W, then " + to_string(result.method) + "): " + result.message);
  return result;
}

}  // namespace

Result solve(const FactoredFrictionContact& problem, Method method, const SolveOptions& options,
             FrictionContactResiduals& criteria) {
  if (!problem.H.isCompressed()) {
    // H filled by insert() and not compressed: the sweeps on the factors read its compressed arrays.
    FactoredFrictionContact compressed = problem;
    compressed.H.makeCompressed();
    return solve(compressed, method, options, criteria);
  }
  FactoredFrictionContactSteps steps(problem);
  Result result = detail::solve_through(steps, problem, method, options);
  criteria = *steps.fresh;
  return result;
}

}  // namespace perp
