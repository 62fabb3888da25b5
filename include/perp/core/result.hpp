#pragma once
/// \file
/// What every solve returns.

#include <Eigen/Dense>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "perp/core/method.hpp"
#include "perp/core/status.hpp"

namespace perp {

/// The most entries `Result::history` keeps: 10 000.
inline constexpr std::size_t kHistoryLimit = 10000;

/// Appends `residual` to `history` while it holds fewer than `kHistoryLimit` entries; past that,
/// overwrites the last entry, so memory stays bounded whatever the iteration limit.
void record_history(std::vector<double>& history, double residual);

/// One method that `auto` (or a fallback chain) ran, as it returned (`Result::attempts`).
struct Attempt {
  Method method = Method::Auto;
  Status status = Status::NotRun;
  /// Its iterations, relative residual and full message (auto's own message keeps one line).
  int iterations = 0;
  double relative_residual = 0;
  std::string message;
};

/// The longest `Result::message` auto writes: 160 bytes (one line; the trail is in `attempts`).
inline constexpr std::size_t kAutoMessageLimit = 160;

struct Result {
  /// The returned point, always sized n and finite whatever the status.
  Eigen::VectorXd z;
  /// w = M z + q recomputed from z (never a method's internal copy); F(z) for an NCP or MCP.
  Eigen::VectorXd w;
  /// `NotRun` until a method sets it.
  Status status = Status::NotRun;
  /// Pivots (lemke, murty), sweeps (pgs, psor), Newton steps (the Newton family,
  /// interior-point) or active sets examined (enum).
  int iterations = 0;
  /// Natural residual ‖min(z, w)‖∞ of the returned z, in the units of z and w (absolute; the
  /// status is judged by `relative_residual`). For an
  /// MCP with bounds [l, u]: ‖z − mid(l, u, z − F(z))‖∞.
  double residual = 0;
  /// The relative residual of the returned z (core/residual.hpp, `relative_residual`): the
  /// natural residual of z/Z and w/W at the problem's own scale. `Solved` means
  /// relative_residual <= the tolerance, for every method and problem type.
  double relative_residual = 0;
  /// Natural residual after each iteration (pivot or sweep); empty for enumeration. Holds at
  /// most `kHistoryLimit` entries: the first `kHistoryLimit − 1` iterations, then the last
  /// entry is overwritten by each later one, so `history.back()` is always the latest residual
  /// (see `record_history`). A run of 10^7 sweeps keeps 80 KB, not 80 MB.
  std::vector<double> history;
  /// One human-readable sentence: why the method stopped, with indices where relevant.
  std::string message;
  /// The method that produced z (for `auto`, the one that succeeded or the best attempt; `Auto`
  /// itself where auto answered without running one, as for z = 0). Its name is `to_string(method)`.
  Method method = Method::Auto;
  /// Wall-clock time of the solve in milliseconds (set by `solve`; 0 with
  /// `SolveOptions::measure_time` off).
  double time_ms = 0;
  /// With `SolveOptions::all_solutions` (enum): every distinct solution found.
  std::vector<Eigen::VectorXd> solutions;
  /// With `Status::RayTermination`: the z-part of the unbounded direction, sized n.
  std::optional<Eigen::VectorXd> ray;
  /// auto (LCP, box LCP, MLCP, NCP/MCP, frictional contact): every method its chain ran, in order,
  /// with what each returned; empty for any other method and for auto's first tries on small LCPs
  /// (block pivoting, lemke), whose message names the one that answered.
  std::vector<Attempt> attempts;
  /// auto: why it tried the methods of `attempts` in that order (empty where `attempts` is).
  std::string attempt_order;

  [[nodiscard]] bool solved() const { return status == Status::Solved; }
  /// One line: "lemke: solved in 3 iterations, residual 0, relative 0 (0.01 ms)"; "?" for the method
  /// of a result no method has filled (`Status::NotRun`).
  [[nodiscard]] std::string brief_report() const;
};

}  // namespace perp
