// The LCP with a sparse M, never formed densely: projected Gauss–Seidel on M's rows, and the sparse
// route of path and the Newton family through the MCP F(z) = M z + q (include/perp/solvers/sparse_lcp.hpp).

#include "perp/solvers/sparse_lcp.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "entry/pipeline.hpp"
#include "perp/core/error.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

/// The sweeps' error is checked every this many sweeps (a check costs about one sweep).
constexpr int kCheckEvery = 10;

/// The relative residual of z with w = M z + q, judged as an Lcp's: the sparse overload of
/// core/residual.hpp's, with the LCP's bounds [0, ∞).
double sparse_error(const SparseLcp& problem, const Eigen::VectorXd& z, const Eigen::VectorXd& w) {
  const Eigen::Index n = problem.size();
  return relative_residual(z, w, problem.M, Eigen::VectorXd::Zero(n), Eigen::VectorXd::Constant(n, detail::kInfinity));
}

double sparse_error(const SparseLcp& problem, const Eigen::VectorXd& z) {
  return sparse_error(problem, z, problem.slack(z));
}

/// w = M z + q and the residuals of z.
void sparse_finish(const SparseLcp& problem, Result& result) {
  result.w = problem.slack(result.z);
  result.residual = natural_residual(result.z, result.w);
  result.relative_residual = sparse_error(problem, result.z, result.w);
}

/// Projected Gauss–Seidel (ω = 1) or SOR sweeps on the rows of M from the initial guess (0 by
/// default); a row with M_ii <= 0 makes the method not applicable (named).
Result sweeps(const SparseLcp& problem, Method method, const SolveOptions& options) {
  Result result;
  result.method = method;
  const Eigen::Index n = problem.size();
  const RowSparse rows = problem.M;
  Eigen::VectorXd diagonal = Eigen::VectorXd::Zero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (RowSparse::InnerIterator it(rows, i); it; ++it) {
      if (it.col() == i) diagonal[i] += it.value();
    }
    if (!(diagonal[i] > 0)) {
      return detail::refused(method, n,
                             to_string(method) + " needs every diagonal entry of M positive: M(" + std::to_string(i) +
                                 ", " + std::to_string(i) + ") = " + number_text(diagonal[i]) +
                                 "; path, newton-fb or newton-min do not");
    }
  }
  const double omega = method == Method::Psor ? options.relaxation.value_or(kDefaultRelaxation) : 1.0;
  const int limit = options.iteration_limit(kDefaultSweeps);
  Eigen::VectorXd z = options.initial_guess.value_or(Eigen::VectorXd::Zero(n)).cwiseMax(0.0);
  Eigen::VectorXd best = z;
  double best_error = sparse_error(problem, z);
  int sweep = 0;
  while (sweep < limit && best_error > options.tolerance) {
    if (detail::stop_requested()) break;  // the pipeline's judgement names the stop
    ++sweep;
    for (Eigen::Index i = 0; i < n; ++i) {
      double w = problem.q[i];
      for (RowSparse::InnerIterator it(rows, i); it; ++it) w += it.value() * z[it.col()];
      z[i] = std::max(0.0, z[i] - omega * w / diagonal[i]);
    }
    if (sweep % kCheckEvery != 0 && sweep != limit) continue;
    const double error = sparse_error(problem, z);
    if (!std::isfinite(error)) break;  // diverged: the best point is kept
    if (error < best_error) {
      best = z;
      best_error = error;
    }
  }
  result.z = std::move(best);
  result.iterations = sweep;
  result.status = best_error <= options.tolerance ? Status::Solved : Status::MaxIterations;
  result.message = (method == Method::Psor ? "projected SOR (omega " + number_text(omega) + ")"
                                           : std::string("projected Gauss-Seidel")) +
                   " on the sparse rows: relative residual " + number_text(best_error) + " after " +
                   std::to_string(sweep) + (sweep == 1 ? " sweep" : " sweeps");
  return result;
}

/// path, newton-fb, newton-min (and auto, which is path) on the MCP F(z) = M z + q, J = M sparse.
Result through_mcp(const SparseLcp& problem, Method method, const SolveOptions& options) {
  const Eigen::Index n = problem.size();
  Mcp mcp;
  mcp.F = [&problem](const Eigen::VectorXd& z) { return problem.slack(z); };
  mcp.J_sparse = [&problem](const Eigen::VectorXd&) { return problem.M; };
  mcp.lower = Eigen::VectorXd::Zero(n);
  mcp.upper = Eigen::VectorXd::Constant(n, detail::kInfinity);
  Result result = solve(mcp, method == Method::Auto ? Method::Path : method, options);
  if (method == Method::Auto) result.message = "auto: path on the sparse matrix: " + result.message;
  return result;
}

struct SparseLcpSteps {
  static constexpr ProblemKind kind = ProblemKind::Lcp;
  static void check(const SparseLcp&, Method, const SolveOptions&) {}
  static std::optional<Result> trivial(const SparseLcp& problem, const SolveOptions&) {
    const Eigen::Index n = problem.size();
    if (n > 0 && problem.q.minCoeff() < 0) return std::nullopt;
    Result result;
    result.z = Eigen::VectorXd::Zero(n);
    result.status = Status::Solved;
    result.message = n == 0 ? "empty problem" : "q >= 0: z = 0 solves (w = q)";
    return result;
  }
  static Result run(const SparseLcp& problem, Method method, const SolveOptions& options) {
    if (method == Method::Pgs || method == Method::Psor) return sweeps(problem, method, options);
    const std::vector<Method>& on_sparse = sparse_lcp_methods();
    if (std::find(on_sparse.begin(), on_sparse.end(), method) != on_sparse.end()) {
      return through_mcp(problem, method, options);
    }
    const double megabytes = 8e-6 * static_cast<double>(problem.size()) * static_cast<double>(problem.size());
    return detail::refused(method, problem.size(),
                           to_string(method) + " needs M dense (" + number_text(megabytes) +
                               " MB at n = " + std::to_string(problem.size()) +
                               "); on a sparse M: pgs, psor, path, newton-fb, newton-min or auto");
  }
  static void finish(const SparseLcp& problem, const SolveOptions&, Result& result) {
    sparse_finish(problem, result);
  }
};

}  // namespace

void SparseLcp::validate() const {
  if (M.rows() != q.size() || M.cols() != q.size()) {
    throw InvalidProblem("M: expected " + std::to_string(q.size()) + "x" + std::to_string(q.size()) +
                         " (q's size), got " + std::to_string(M.rows()) + "x" + std::to_string(M.cols()));
  }
  detail::require_finite_entries(M, "M");
  require_finite(q, "q");
}

Eigen::VectorXd SparseLcp::slack(const Eigen::VectorXd& z) const {
  require_size(z, q.size(), "z");
  Eigen::VectorXd w = q;
  w.noalias() += M * z;
  return w;
}

const std::vector<Method>& sparse_lcp_methods() {
  static const std::vector<Method> methods{Method::Auto, Method::Pgs, Method::Psor, Method::Path, Method::NewtonFb,
                                           Method::NewtonMin};
  return methods;
}

Result solve(const SparseLcp& problem, Method method, const SolveOptions& options) {
  return detail::solve_through<SparseLcpSteps>(problem, method, options);
}

}  // namespace perp
