#include "perp/solvers/mlcp.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "pivoting/enumeration.hpp"
#include "mlcp_detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"
#include "splitting/pgs.hpp"
#include "entry/pipeline.hpp"

namespace perp {

namespace mlcp_detail {

Result make_result(const Mlcp& problem, Eigen::VectorXd z, Method method) {
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    if (!std::isfinite(z[i])) z[i] = 0.0;
  }
  Result result;
  result.w = problem.slack(z);
  if (!result.w.allFinite()) {  // only when the products overflowed; z = 0 is always finite
    z.setZero();
    result.w = problem.slack(z);
  }
  result.z = std::move(z);
  result.residual = natural_residual(problem, result.z);
  result.relative_residual = relative_residual(problem, result.z, result.w);
  result.method = method;
  return result;
}

SolveOptions derived_options(const SolveOptions& options) {
  SolveOptions derived = options;
  derived.initial_guess.reset();
  derived.lemke.covering_vector.reset();
  derived.all_solutions = false;
  return derived;
}

}  // namespace mlcp_detail

namespace {

using mlcp_detail::make_result;

// ---------------------------------------------------------------------------------------------
// The Newton family through the MCP form: z = (u, v) with bounds (−∞, +∞) for u and [0, +∞) for
// v, F(z) = M z + q. The MCP's natural residual is then |F_i| on the u rows and |min(v_j, w_j)|
// on the v rows: the MLCP's own measure.

Result solve_newton_mcp(const Mlcp& problem, Method method, const SolveOptions& options) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  // Shared, so that copies of the std::function do not copy M.
  const auto M = std::make_shared<const Eigen::MatrixXd>(problem.matrix());
  const auto q = std::make_shared<const Eigen::VectorXd>(problem.offset());
  Mcp mcp;
  mcp.F = [M, q](const Eigen::VectorXd& z) -> Eigen::VectorXd { return *M * z + *q; };
  mcp.J = [M](const Eigen::VectorXd&) -> Eigen::MatrixXd { return *M; };
  mcp.lower.resize(n + m);
  mcp.lower << Eigen::VectorXd::Constant(n, -std::numeric_limits<double>::infinity()), Eigen::VectorXd::Zero(m);
  mcp.upper = Eigen::VectorXd::Constant(n + m, std::numeric_limits<double>::infinity());

  SolveOptions inner = options;
  inner.lemke.covering_vector.reset();
  const Result mcp_result = solve(mcp, method, inner);
  Result result = make_result(problem, mcp_result.z);
  result.method = method;
  result.iterations = mcp_result.iterations;
  result.history = mcp_result.history;
  result.message = mcp_result.message;
  result.status = mcp_result.status;
  if (result.status == Status::Solved) {
    detail::judge(result, options.tolerance, Status::NumericalFailure, "the MCP solve ended but the MLCP residual");
    if (result.solved()) result.message = mcp_result.message;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// pgs: the box LCP's projected Gauss–Seidel on z = (u, v), the u rows free (bounds (−∞, ∞):
// row i is solved exactly for u_i) and v in [0, ∞) (Cottle–Pang–Stone §5.2 with the projection
// dropped on the free rows). It converges e.g. when M is symmetric positive definite.

Result solve_pgs(const Mlcp& problem, const SolveOptions& options) {
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  BoxLcp box{problem.matrix(), problem.offset(), Eigen::VectorXd(n + m),
             Eigen::VectorXd::Constant(n + m, std::numeric_limits<double>::infinity()), {}};
  box.lower << Eigen::VectorXd::Constant(n, -std::numeric_limits<double>::infinity()), Eigen::VectorXd::Zero(m);
  return solve_psor(box, options, 1.0);
}

// ---------------------------------------------------------------------------------------------

Result run_method(const Mlcp& problem, Method method, const SolveOptions& options);

// What the MLCP supplies to the pipeline (pipeline.hpp).
struct MlcpSteps {
  static constexpr ProblemKind kind = ProblemKind::Mlcp;
  static void check(const Mlcp& problem, Method method, const SolveOptions& options) {
    const Eigen::Index m = problem.complementarities();
    if (method == Method::Enum && m > options.mlcp.enum_max_complementarities) {
      throw InvalidProblem("enum: enumeration checks 2^m active sets and is limited to m <= " +
                           std::to_string(options.mlcp.enum_max_complementarities) +
                           " (mlcp.enum_max_complementarities), got m = " + std::to_string(m));
    }
  }
  // z = (u, v) = 0 when it solves exactly: a = 0 and b >= 0 (n + m = 0 included).
  static std::optional<Result> trivial(const Mlcp& problem, const SolveOptions&) {
    if ((problem.a.size() > 0 && problem.a.cwiseAbs().maxCoeff() != 0.0) ||
        (problem.b.size() > 0 && problem.b.minCoeff() < 0.0)) {
      return std::nullopt;
    }
    Result result = make_result(problem, Eigen::VectorXd::Zero(problem.size()));
    result.status = Status::Solved;
    result.message = problem.size() == 0 ? "empty problem (n + m = 0)" : "a = 0 and b >= 0: z = 0 solves";
    return result;
  }
  static Result run(const Mlcp& problem, Method method, const SolveOptions& options) {
    return run_method(problem, method, options);
  }
  // The one relative test (core/residual.hpp) on w recomputed from z, whatever the method kept.
  static void finish(const Mlcp& problem, const SolveOptions&, Result& result) {
    if (result.z.size() != problem.size()) result.z = Eigen::VectorXd::Zero(problem.size());
    Result fresh = make_result(problem, std::move(result.z));
    result.z = std::move(fresh.z);
    result.w = std::move(fresh.w);
    result.residual = fresh.residual;
    result.relative_residual = fresh.relative_residual;
  }
};

// schur first when A is well conditioned (it reduces to the smaller LCP and inherits the LCP
// auto's choices); then lemke on the split problem, newton-fb, enum when m is small, pgs.
Result solve_auto(const Mlcp& problem, const SolveOptions& options) {
  const Eigen::Index m = problem.complementarities();
  std::vector<Method> order{Method::Schur, Method::Lemke, Method::NewtonFb};
  if (m <= options.mlcp.enum_max_complementarities) order.push_back(Method::Enum);
  order.push_back(Method::Pgs);
  const std::string reason =
      "schur first (exact reduction to an LCP of size m when A is well conditioned), then lemke (u pivoted in "
      "first, which also handles a singular A), newton-fb, enum (m <= " +
      std::to_string(options.mlcp.enum_max_complementarities) + ") and pgs";
  return detail::first_that_solves(
      order, [&](Method method) { return detail::attempt<MlcpSteps>(problem, method, options); }, reason);
}

Result run_method(const Mlcp& problem, Method method, const SolveOptions& options) {
  switch (method) {
    case Method::Schur:
      return mlcp_detail::solve_schur(problem, options);
    case Method::Enum:
      return solve_enumeration(problem, options);
    case Method::Lemke:
      return mlcp_detail::solve_lemke(problem, options);
    case Method::NewtonFb:
    case Method::NewtonMin:
    case Method::PenalizedFb:
    case Method::Smoothing:
      return solve_newton_mcp(problem, method, options);
    case Method::Pgs:
      return solve_pgs(problem, options);
    case Method::Auto:
      return solve_auto(problem, options);
    default:
      break;
  }
  throw InvalidProblem("method '" + to_string(method) + "' does not accept an Mlcp");  // the table says it does
}

}  // namespace

Result solve(const Mlcp& problem, Method method, const SolveOptions& options) {
  return detail::solve_through<MlcpSteps>(problem, method, options);
}

std::vector<Method> mlcp_methods() { return methods_for(ProblemKind::Mlcp); }

}  // namespace perp
