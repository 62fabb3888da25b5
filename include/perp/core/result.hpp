#pragma once
/// \file
/// What every solve returns.

#include <Eigen/Dense>
#include <optional>
#include <string>
#include <vector>

#include "perp/core/status.hpp"

namespace perp {

struct Result {
  /// The returned point, always sized n and finite whatever the status.
  Eigen::VectorXd z;
  /// w = M z + q recomputed from z (never a method's internal copy); F(z) for an NCP or MCP.
  Eigen::VectorXd w;
  Status status = Status::NoSolutionFound;
  /// Pivots (lemke, murty), sweeps (pgs, psor), Newton steps (the Newton family,
  /// interior-point) or active sets examined (enum).
  int iterations = 0;
  /// Natural residual ‖min(z, w)‖∞ of the returned z: the figure `status` is judged by. For an
  /// MCP with bounds [l, u]: ‖z − mid(l, u, z − F(z))‖∞.
  double residual = 0;
  /// Natural residual after each iteration (pivot or sweep); empty for enumeration.
  std::vector<double> history;
  /// One human-readable sentence: why the method stopped, with indices where relevant.
  std::string message;
  /// The method that produced z (for `auto`, the one that succeeded or the best attempt).
  std::string method;
  /// Wall-clock time of the solve in milliseconds (set by `solve`).
  double time_ms = 0;
  /// With `SolveOptions::all_solutions` (enum): every distinct solution found.
  std::vector<Eigen::VectorXd> solutions;
  /// With `Status::RayTermination`: the z-part of the unbounded direction, sized n.
  std::optional<Eigen::VectorXd> ray;

  [[nodiscard]] bool solved() const { return status == Status::Solved; }
  /// One line: "lemke: solved in 3 iterations, residual 0 (0.01 ms)".
  [[nodiscard]] std::string brief_report() const;
};

}  // namespace perp
