#pragma once
/// A `TraceEvent`'s fields by name: what `perp solve --trace --json` writes and what the Python
/// module's trace callback receives, listed once.

#include <string>
#include <vector>

#include "perp/solvers/options.hpp"

namespace perp {

/// Calls `field(key, value)` for each field `event` carries, in the order and under the keys of
/// `perp solve --trace --json` (docs/cli.md): the one list behind the CLI's JSON object and the
/// Python module's dict. Values are `std::string` (method, kind, entering, leaving, direction),
/// `int` (iteration), `Eigen::Index` (driving, active_size), `double`, `std::vector<double>`,
/// `std::vector<Eigen::Index>` (entered, left, kinks) and `std::vector<std::string>` (basis).
/// `entered`/`left` are present for every kind but pivots, `kinks` for every Newton step.
template <class Field>
void for_each_field(const TraceEvent& event, Field&& field) {
  field("method", std::string(event.method));
  field("kind", to_string(event.kind));
  field("iteration", event.iteration);
  if (event.entering) field("entering", to_string(*event.entering));
  if (event.leaving) field("leaving", to_string(*event.leaving));
  if (event.ratio) field("ratio", *event.ratio);
  if (event.z0) field("z0", *event.z0);
  if (!event.basis.empty()) {
    std::vector<std::string> basis;
    basis.reserve(event.basis.size());
    for (const PivotVariable& v : event.basis) basis.push_back(to_string(v));
    field("basis", basis);
  }
  if (!event.values.empty()) field("values", event.values);
  if (!event.ratios.empty()) field("ratios", event.ratios);
  if (event.driving) field("driving", *event.driving);
  if (event.kind != TraceKind::Pivot) {
    field("entered", event.entered);
    field("left", event.left);
  }
  if (event.active_size) field("active_size", *event.active_size);
  if (event.kind == TraceKind::NewtonStep) field("kinks", event.kinks);
  if (event.residual) field("residual", *event.residual);
  if (event.merit) field("merit", *event.merit);
  if (event.step) field("step", *event.step);
  if (event.mu) field("mu", *event.mu);
  if (event.direction != nullptr) field("direction", std::string(event.direction));
}

}  // namespace perp
