// solve(GlobalFrictionContact): the global form reduced to the factored form in the plane (M
// diagonal), or to the local problem (include/perp/solvers/friction_contact.hpp).

#include <string>
#include <utility>

#include "friction/convex/admm.hpp"
#include "friction/convex/cone_ipm.hpp"
#include "entry/detail.hpp"
#include "friction/convex/friction_ipm.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/factored_lcp.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// The factored form of a planar problem with M diagonal: H_local = Hᵀ, M⁻¹ = 1/M_ii,
/// q_local = Hᵀ M⁻¹ q + b.
FactoredFrictionContact factored_form(const GlobalFrictionContact& problem) {
  FactoredFrictionContact factored;
  factored.dimension = problem.dimension;
  factored.H = RowSparse(problem.H.transpose());
  factored.H.makeCompressed();
  factored.inverse_mass = problem.M.diagonal().cwiseInverse();
  factored.q = problem.b;
  factored.q.noalias() += factored.H * factored.inverse_mass.cwiseProduct(problem.q);
  factored.mu = problem.mu;
  return factored;
}

/// The convex law in the plane: the half-planes of K_μ* as the rows of a factored LCP, whose
/// multipliers λ give r = λ₊ (1, μ) + λ₋ (1, −μ).
Result convex_on_factors(const FactoredFrictionContact& factored, Method method, const SolveOptions& options) {
  if (method != Method::Auto && method != Method::InteriorPoint) {
    return detail::refused(
        method, factored.size(),
        to_string(method) + " does not solve the convex law; interior-point (and auto) solve it on the factors");
  }
  FactoredLcp edges;
  edges.A = detail::edge_rows(factored.H, factored.mu);
  edges.inverse_mass = factored.inverse_mass;
  edges.c.resize(factored.size());
  for (Eigen::Index i = 0; i < factored.contacts(); ++i) {
    const double mu = factored.mu[i];
    edges.c[2 * i] = factored.q[2 * i] + mu * factored.q[2 * i + 1];
    edges.c[2 * i + 1] = factored.q[2 * i] - mu * factored.q[2 * i + 1];
  }
  SolveOptions lcp_options = options;
  if (options.initial_guess.has_value()) {
    lcp_options.initial_guess = detail::multipliers_of(*options.initial_guess, factored.mu).cwiseMax(0.0);
  }
  Result result = solve(edges, Method::InteriorPoint, lcp_options);
  Eigen::VectorXd r(factored.size());
  detail::reaction_of(result.z, factored.mu, r);
  result.z = std::move(r);
  result.message = "the convex law's half-planes as a factored LCP: " + result.message;
  return result;
}

/// The convex law in 3D (M diagonal), W kept as its factors: interior-point on the second-order
/// cones (cone_ipm.hpp), or admm on the program min ½ rᵀ W r + qᵀ r over the cones (admm.hpp, the
/// shift held at 0). auto runs the interior point, then admm from its point where the interior point
/// stops above the tolerance (bench/README.md, "The 3D interior point on the pour's steps");
/// the other methods refuse.
Result convex_in_3d(const FactoredFrictionContact& factored, Method method, const SolveOptions& options) {
  if (method != Method::Auto && method != Method::Admm && method != Method::InteriorPoint) {
    return detail::refused(method, factored.size(),
                           to_string(method) +
                               " does not solve the convex law in 3D; interior-point, admm (and auto) solve it on the factors");
  }
  FrictionContact shell;
  shell.dimension = factored.dimension;
  shell.q = factored.q;
  shell.mu = factored.mu;
  FrictionContactResiduals residuals;
  if (method == Method::Admm) {
    const Eigen::VectorXd r0 = options.initial_guess.value_or(Eigen::VectorXd::Zero(factored.size()));
    Result result = detail::solve_admm_factored(factored.H, factored.inverse_mass, shell, options, r0, residuals,
                                                FrictionLaw::Convex);
    result.message = "the convex law by admm on the factors: " + result.message;
    return result;
  }
  Result result = detail::solve_convex_cone_interior_point(factored.H, factored.inverse_mass, shell, options, residuals);
  result.message = "the convex law on the factors: " + result.message;
  if (method == Method::Auto && !result.solved() && result.z.allFinite() && !detail::stopped_from_outside(result.status)) {
    // The interior point's round-off floor (its scaling spans 1e14 near the end) above a tight
    // tolerance: admm from its point, where few iterations remain.
    SolveOptions polish = options;
    polish.initial_guess = result.z;
    FrictionContactResiduals polished_residuals;
    Result polished = detail::solve_admm_factored(factored.H, factored.inverse_mass, shell, polish, result.z,
                                                  polished_residuals, FrictionLaw::Convex);
    if (polished.solved() || polished_residuals.relative_error < residuals.relative_error) {
      polished.iterations += result.iterations;
      polished.message = result.message + "; then admm from its point: " + polished.message;
      return polished;
    }
  }
  return result;
}

}  // namespace

Result solve(const GlobalFrictionContact& problem, Method method, const SolveOptions& options, Eigen::VectorXd& v,
             GlobalFrictionContactResiduals& criteria) {
  problem.validate();
  options.validate(problem.size());
  Result result;
  if (problem.dimension == 2 && problem.diagonal_mass()) {
    const FactoredFrictionContact factored = factored_form(problem);
    if (problem.law == FrictionLaw::Coulomb) {
      FrictionContactResiduals local;
      result = solve(factored, method, options, local);
    } else {
      result = convex_on_factors(factored, method, options);
    }
  } else if (problem.law == FrictionLaw::Convex && problem.diagonal_mass()) {
    result = convex_in_3d(factored_form(problem), method, options);
  } else if (problem.law == FrictionLaw::Convex) {
    result = detail::refused(
        method, problem.size(),
        "the convex law is solved on the factors, which needs a diagonal M; this problem has a non-diagonal M");
  } else {
    result = solve(local_problem(problem), method, options);
  }
  const bool inner_solved = result.solved();
  v = global_velocity(problem, result.z);
  criteria = global_friction_contact_residuals(problem, v, result.z);
  result.w = problem.local_velocity(v);
  result.residual = criteria.contact.relative_error;
  result.relative_residual = criteria.contact.relative_error;
  if (result.status == Status::NotApplicable) return result;
  if (result.residual <= options.tolerance) {
    result.status = Status::Solved;
  } else if (inner_solved) {
    // The inner solver's own measure met the tolerance; the law's relative error on the problem as
    // posed does not.
    result.status = Status::NoSolutionFound;
    result.message += "; on the problem as posed the relative error is " + number_text(result.residual) +
                      ", above the tolerance " + number_text(options.tolerance);
  }
  return result;
}

Result solve(const GlobalFrictionContact& problem, Method method, const SolveOptions& options) {
  Eigen::VectorXd v;
  GlobalFrictionContactResiduals criteria;
  return solve(problem, method, options, v, criteria);
}

}  // namespace perp
