#include "auto_vertices.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <string>
#include <vector>

#include "newton/newton_linear.hpp"
#include "perp/core/residual.hpp"

namespace perp::detail::auto_route {
namespace {

// The vertex of α reached from z: z_N = 0 and z_α + δ with M_αα δ = −(M_αα z_α + q_α), so
// w_α = 0. From z rather than from 0, so that where M_αα is singular (and the vertex one of many)
// the regularized solve stays near the iterate, whose z_α is positive. Empty when M_αα could not
// be factored (not positive semidefinite), or with `definite_only` set, when it has no plain
// Cholesky factor (singular or indefinite; `singular` is then set).
std::optional<Eigen::VectorXd> vertex_from(const Lcp& problem, const Eigen::VectorXd& z,
                                           const std::vector<Eigen::Index>& alpha, bool definite_only, bool& singular) {
  Eigen::VectorXd point = Eigen::VectorXd::Zero(problem.size());
  if (alpha.empty()) return point;
  const Eigen::MatrixXd block = problem.M(alpha, alpha);
  const Eigen::VectorXd start = z(alpha).cwiseMax(0.0);
  const Eigen::VectorXd slack = block * start + problem.q(alpha);
  Eigen::VectorXd delta;
  if (definite_only) {
    const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> cholesky(block);
    if (cholesky.info() != Eigen::Success) {
      singular = true;
      return std::nullopt;
    }
    delta = cholesky.solve(-slack);
  } else {
    SemidefiniteSolver solver;
    if (!solver.compute(block)) return std::nullopt;
    solver.solve(block, -slack, delta);
  }
  if (!delta.allFinite()) return std::nullopt;
  point(alpha) = start + delta;
  return point;
}

// One trace event of a vertex of auto's own runs (block pivoting, projected Newton): its set `now`
// as `entered`/`left` against the last traced set `traced` (which then becomes `now`), its size and
// the vertex's natural residual.
void trace_vertex(const TraceCallback& trace, const char* method, TraceKind kind, int iteration,
                  const std::vector<char>& now, std::vector<char>& traced, double residual) {
  TraceEvent event;
  event.method = method;
  event.kind = kind;
  event.iteration = iteration;
  traced.resize(now.size(), 0);
  for (std::size_t k = 0; k < now.size(); ++k) {
    if (now[k] && !traced[k]) event.entered.push_back(static_cast<Eigen::Index>(k));
    if (!now[k] && traced[k]) event.left.push_back(static_cast<Eigen::Index>(k));
  }
  traced = now;
  event.active_size = static_cast<Eigen::Index>(std::count(now.begin(), now.end(), 1));
  event.residual = residual;
  trace(event);
}

// x with A x = b for a positive semidefinite A that may be singular: the plain Cholesky factor
// where it exists, else newton_linear.hpp's regularized one refined by Tikhonov steps, whose x
// tends to the least-norm solution (`regularized` is then set). The caller solves for a step, so
// the least-norm one stays nearest the point: a factorization that drops the dependent rows
// (pivoted LDLᵀ, their step 0) gave vertices with residuals 4–50 where this gives 7e-4 to 0.7, and
// no solution (bench/HISTORY.md, the last section). False when A has no factor even shifted (not
// positive semidefinite) or x is not finite.
bool semidefinite_solve(const Eigen::MatrixXd& block, const Eigen::VectorXd& rhs, Eigen::VectorXd& x,
                        bool& regularized) {
  SemidefiniteSolver solver;
  if (!solver.compute(block)) return false;
  solver.solve(block, rhs, x);
  regularized = solver.regularized();
  return x.allFinite();
}

constexpr int kFinishSteps = 8;
constexpr int kFinishHalvings = 30;
constexpr double kFinishArmijo = 1e-4;

}  // namespace

Pivoting block_pivoting(const Lcp& problem, const DataScale& scale, Eigen::VectorXd z, const Eigen::VectorXd& w,
                        double tolerance, int limit, double progress, const TraceCallback& trace, bool definite_only) {
  const Eigen::Index n = problem.size();
  std::vector<char> in(static_cast<std::size_t>(n), 0);
  std::vector<Eigen::Index> alpha;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (z[i] > w[i]) in[static_cast<std::size_t>(i)] = 1;
  }
  Pivoting out;
  // The first vertex is measured against the size of the starting active set: on a singular
  // contact matrix most of those indices come out infeasible (80 % on bench/'s family, 43 % on its
  // positive definite one).
  Eigen::Index best = std::max<Eigen::Index>(1, std::count(in.begin(), in.end(), 1));
  std::vector<char> traced_in;  // the set of the last traced vertex
  for (; out.vertices < limit; ++out.vertices) {
    alpha.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      if (in[static_cast<std::size_t>(i)] != 0) alpha.push_back(i);
    }
    std::optional<Eigen::VectorXd> vertex = vertex_from(problem, z, alpha, definite_only, out.singular);
    if (!vertex) {
      out.block_size = static_cast<Eigen::Index>(alpha.size());
      break;
    }
    Result candidate = make_result(problem, std::move(*vertex), Method::BlockPivoting);
    z = candidate.z;
    if (trace) {
      trace_vertex(trace, "block-pivoting", TraceKind::PrincipalPivot, out.vertices + 1, in, traced_in,
                   candidate.residual);
    }
    if (candidate.relative_residual <= tolerance) {
      candidate.status = Status::Solved;
      ++out.vertices;
      out.result = std::move(candidate);
      break;
    }
    const double z_floor = -z_sign_tolerance(candidate.z, 1e-13);
    const double w_floor = -w_sign_tolerance(scale, candidate.z, 1e-13);
    Eigen::Index infeasible = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool inside = in[static_cast<std::size_t>(i)] != 0;
      if ((inside && candidate.z[i] < z_floor) || (!inside && candidate.w[i] < w_floor)) {
        ++infeasible;
      }
    }
    if (infeasible == 0) break;  // feasible to round-off yet not at the tolerance: leave it to others
    // Measured progress: on a positive definite M the count falls by half or more per vertex; on a
    // singular one (contact with more contacts than freedoms) it crawls, and other methods win.
    if (static_cast<double>(infeasible) > progress * static_cast<double>(best)) {
      ++out.vertices;
      break;
    }
    best = std::min(best, infeasible);
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool inside = in[static_cast<std::size_t>(i)] != 0;
      if (inside && candidate.z[i] < z_floor) in[static_cast<std::size_t>(i)] = 0;
      if (!inside && candidate.w[i] < w_floor) in[static_cast<std::size_t>(i)] = 1;
    }
  }
  out.z = std::move(z);
  return out;
}

NewtonFinish projected_newton(const Lcp& problem, const DataScale& scale, Eigen::VectorXd z, Eigen::VectorXd w,
                              double tolerance, const TraceCallback& trace) {
  const Eigen::Index n = problem.size();
  NewtonFinish out;
  std::vector<Eigen::Index> free;
  std::vector<char> traced_in(static_cast<std::size_t>(n), 0);
  Eigen::VectorXd x, vertex, trial, trial_w;
  for (; out.steps < kFinishSteps; ++out.steps) {
    free.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      if (z[i] > 0.0 || w[i] < 0.0) free.push_back(i);
    }
    // The Newton step from z: M_FF δ = −w_F, so that z_F + δ solves M_FF z_F = −q_F; where M_FF is
    // singular, the least-norm δ, so that the vertex stays near the point.
    vertex.setZero(n);
    if (!free.empty()) {
      if (!semidefinite_solve(problem.M(free, free), -w(free), x, out.regularized)) break;
      vertex(free) = z(free) + x;
    }
    Result candidate = make_result(problem, vertex, Method::Pgs);
    if (trace) {
      std::vector<char> now(static_cast<std::size_t>(n), 0);
      for (const Eigen::Index i : free) now[static_cast<std::size_t>(i)] = 1;
      trace_vertex(trace, "projected-newton", TraceKind::NewtonStep, out.steps + 1, now, traced_in, candidate.residual);
    }
    if (candidate.relative_residual <= tolerance) {
      candidate.status = Status::Solved;
      ++out.steps;
      out.result = std::move(candidate);
      break;
    }
    if (sign_feasible(scale, candidate.z, candidate.w, 1e-13)) break;  // feasible yet not at the tolerance
    // The projected search: f(z) = ½ zᵀ(w + q).
    const Eigen::VectorXd direction = vertex - z;
    const double f0 = 0.5 * z.dot(w + problem.q);
    double t = 1.0;
    bool accepted = false;
    for (int halving = 0; halving < kFinishHalvings; ++halving, t *= 0.5) {
      trial = (z + t * direction).cwiseMax(0.0);
      trial_w = problem.slack(trial);
      const double f1 = 0.5 * trial.dot(trial_w + problem.q);
      if (f1 <= f0 - kFinishArmijo * std::max(0.0, w.dot(z - trial))) {
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    z.swap(trial);
    w.swap(trial_w);
  }
  out.z = std::move(z);
  out.w = std::move(w);
  return out;
}

}  // namespace perp::detail::auto_route
