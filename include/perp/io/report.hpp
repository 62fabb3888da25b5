#pragma once
/// \file
/// The matrix report of `classify` with its recommendation, as the JSON object and the table
/// that `perp classify` prints.
///
/// JSON: {"n", "scale", "tolerance", "classes": {name: {"holds": true|false|null, "method",
/// "witness": null|{...}, "reason"}}, "implications": [...], "recommendation": {"method",
/// "reason", "order": [...]}}. Witnesses: {"x", "value"} (+ "symmetric_product"),
/// {"indices", "minor"}, {"row", "col", "value"} (+ "transposed"), {"row", "diagonal",
/// "off_diagonal_sum"}, {"x", "products", "transposed"}; see docs/analysis.md.

#include <string>

#include "perp/analysis/classify.hpp"
#include "perp/solvers/recommend.hpp"

namespace perp {

/// The object above; `indent` < 0 prints on one line.
[[nodiscard]] std::string report_to_json(const MatrixReport& report, const Recommendation& recommendation,
                                         int indent = 2);
/// A readable table: one line per class (holds, method, reason, witness), then the
/// implications and the recommendation.
[[nodiscard]] std::string report_to_text(const MatrixReport& report, const Recommendation& recommendation);
/// One line for a witness: "x = [1, 1], x^T M x = -1", "minor {0, 1} = -3", …; "" for none.
[[nodiscard]] std::string witness_to_text(const Witness& witness);

}  // namespace perp
