#pragma once
// Private parts of the MLCP methods (not installed), shared by the entry (src/solvers/mlcp.cpp:
// the pipeline's steps, auto, the Newton family through the MCP form and pgs) and the files of the
// exact methods: mlcp_reductions.cpp (schur and lemke, through an LCP) and enumeration.cpp (enum,
// the LCP's enumeration with the u rows free).

#include <Eigen/Core>

#include "perp/core/mlcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/options.hpp"

namespace perp::mlcp_detail {


// The result for z = (u, v): non-finite entries replaced by 0 (the contract says z, w are finite),
// w = (A u + C v + a, D u + B v + b) and the natural residual recomputed from z by the MLCP's own
// measure, whatever the method computed internally.
Result make_result(const Mlcp& problem, Eigen::VectorXd z, Method method = Method::Auto);

// Options for a method run on a problem derived from the MLCP (the Schur LCP, the split LCP):
// the warm start and the covering vector are sized n + m and are mapped by the caller.
SolveOptions derived_options(const SolveOptions& options);

// schur: the Schur-complement LCP in v when A is well conditioned (mlcp_reductions.cpp).
Result solve_schur(const Mlcp& problem, const SolveOptions& options);
// lemke: Lemke's method after the free u have been pivoted in (mlcp_reductions.cpp).
Result solve_lemke(const Mlcp& problem, const SolveOptions& options);

}  // namespace perp::mlcp_detail
