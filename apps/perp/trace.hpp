#pragma once
// perp solve --trace: the iterations of a solve (SolveOptions::trace), as text lines or a JSON array.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "perp/solvers/options.hpp"

namespace perp::cli {

/// One event as a JSON object: "method", "kind", "iteration", then the fields the event fills
/// (`TraceEvent`), pivot variables by their names in [chapter] §1.4 ("w1", "z2", "z0"), non-finite numbers
/// (a ratio test row that is no candidate) as null.
[[nodiscard]] nlohmann::ordered_json trace_event_json(const TraceEvent& event);

/// One event as a line of text (vectors cut to their first 12 entries), without the newline.
[[nodiscard]] std::string trace_event_text(const TraceEvent& event);

/// Adds `trace` (an array of trace_event_json objects) to the result object `result_json` and
/// returns the object as text.
[[nodiscard]] std::string with_trace(const std::string& result_json, const nlohmann::ordered_json& trace);

}  // namespace perp::cli
