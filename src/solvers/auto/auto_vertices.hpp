#pragma once
// The two vertex methods of auto's symmetric route (auto_lcp.cpp; private, not installed): block
// principal pivoting from an active set, and projected Newton steps on ½zᵀMz + qᵀz over z >= 0.
// Both end at a vertex exact to round-off when they solve; the route decides when to run them.

#include <Eigen/Core>
#include <optional>

#include "entry/detail.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail::auto_route {

// Block principal pivoting (Kostreva 1978; Júdice–Pires 1994) from the active set of (z, w):
// solve for the vertex of α, then move every infeasible index across (z_i < 0 leaves α, w_i < 0
// joins it). Sign tests are relative to round-off (detail::sign_feasible's scales). Full exchanges
// can cycle, so instead of Júdice–Pires' fallback to single exchanges the run stops as soon as the
// infeasible count fails to fall below `progress` times its best so far: it is a fast path, and
// the caller has others. Stops also at a vertex that meets the tolerance, after `limit` vertices,
// or when a block cannot be factored.
struct Pivoting {
  std::optional<Result> result;  // set when solved
  Eigen::VectorXd z;             // the last vertex (or the start)
  int vertices = 0;
  bool singular = false;        // stopped at a block M_aa without a Cholesky factor (`definite_only`)
  Eigen::Index block_size = 0;  // |a| of that block
};

// Vertices block pivoting may visit from the start, and from a PGS point whose active set held,
// and the fall of the infeasible count per vertex it must keep up (else it stops). The cold
// factor separates the families measured (bench/HISTORY.md, issue 19, "auto's cold block
// pivoting"): on positive definite M (bench/'s spd family, n = 100–1000) the count falls to
// 0.24–0.64 of its best at every vertex; on the singular contact family it falls to 0.77–0.92 at
// the second vertex (n = 100, 150), where 12 more vertices would cost more than dantzig.
constexpr int kColdVertices = 12;
constexpr double kColdProgress = 0.7;
constexpr int kWarmVertices = 30;
constexpr double kWarmProgress = 0.9;

// With `trace` set, each vertex is an event of method "block-pivoting": the indices that crossed
// to reach it (the first lists its whole set α as entered), |α| and the vertex's natural residual.
// With `definite_only`, a block M_aa that has no plain Cholesky factor ends the run (`singular`).
[[nodiscard]] Pivoting block_pivoting(const Lcp& problem, const DataScale& scale, Eigen::VectorXd z,
                                      const Eigen::VectorXd& w, double tolerance, int limit, double progress,
                                      const TraceCallback& trace, bool definite_only = false);

// Projected Newton steps on f(z) = ½ zᵀMz + qᵀz over z >= 0 (Bertsekas 1982), whose minimizers
// are the LCP's solutions when M is symmetric positive semidefinite: the free set
// F = {z_i > 0 or w_i < 0}, the vertex z_F + δ with M_FF δ = −w_F and z = 0 off F
// (semidefinite_solve: the least-norm δ where M_FF is singular), and a projected backtracking
// search from z toward it, z(t) = max(0, z + t(vertex − z)), until f falls by an Armijo fraction.
// The search is what block principal pivoting lacks: on a singular M its full exchanges wander
// (bench/HISTORY.md), while f falls at every step here. Stops with a result when a vertex meets the
// tolerance, else after 8 steps (kFinishSteps), at a vertex feasible to round-off yet not at the
// tolerance, or when the search finds no decrease; `z` and `w` are then the last point (f no
// higher than at the start).
struct NewtonFinish {
  std::optional<Result> result;
  Eigen::VectorXd z, w;
  int steps = 0;
  bool regularized = false;  // the last vertex's M_FF was singular (semidefinite_solve)
};
[[nodiscard]] NewtonFinish projected_newton(const Lcp& problem, const DataScale& scale, Eigen::VectorXd z,
                                            Eigen::VectorXd w, double tolerance, const TraceCallback& trace);

}  // namespace perp::detail::auto_route
