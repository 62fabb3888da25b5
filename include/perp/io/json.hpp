#pragma once
/// \file
/// JSON problem files and JSON results.
/// Problem: {"M": [[row 0], [row 1], ...], "q": [...]} (rows of M, row-major); an optional
/// "type": "lcp" is accepted, and "name" and "comment" (strings) are free text. Any other key
/// is rejected, so that a mistyped "Q" is reported as such. Results: the object printed by
/// `perp solve --json`.

#include <filesystem>
#include <string>

#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"

namespace perp {

/// Parse an LCP from JSON text. Throws `InvalidProblem` for malformed JSON (with the byte
/// position), a missing or mistyped "M"/"q", ragged rows (naming the row and its length), sizes
/// that do not match, non-numeric entries, an unknown key or a "type" other than "lcp".
/// `{"M": [], "q": []}` is the valid problem with n = 0.
[[nodiscard]] Lcp parse_json_lcp(const std::string& text, const std::string& source = "<input>");
/// Read a `.json` problem file.
[[nodiscard]] Lcp read_json_lcp(const std::filesystem::path& path);
/// {"type": "lcp", "M": rows, "q": [...]}, one row of M per line, doubles printed to
/// round-trip exactly. Throws `InvalidProblem` (from `Lcp::validate`) for an invalid problem.
[[nodiscard]] std::string lcp_to_json(const Lcp& problem);

/// The result object of `perp solve --json`: status, method, n, iterations, residual, z, w,
/// time_ms, message, history; "solutions" when non-empty, "ray" when present.
/// `indent` < 0 prints on one line.
[[nodiscard]] std::string result_to_json(const Result& result, int indent = 2);

/// Read a problem file by extension, in any letter case: `.dat` (Siconos) or `.json`. Throws
/// `InvalidProblem` for any other extension, naming it, and "cannot open 'PATH'" for a file
/// that cannot be opened.
[[nodiscard]] Lcp read_lcp_file(const std::filesystem::path& path);

/// The matrix of a problem file, for `perp classify`: a JSON LCP, a JSON object with only "M"
/// (and optionally "type": "lcp", "name", "comment"), or a Siconos `.dat`. With "q" present the
/// file is read and checked as an LCP; without it M must be square and finite. Throws
/// `InvalidProblem` as `parse_json_lcp` does.
[[nodiscard]] Eigen::MatrixXd parse_json_matrix(const std::string& text, const std::string& source = "<input>");
/// `parse_json_matrix` of a `.json` file, `read_siconos_lcp(path).M` of a `.dat`; other
/// extensions are refused as by `read_lcp_file`.
[[nodiscard]] Eigen::MatrixXd read_matrix_file(const std::filesystem::path& path);

}  // namespace perp
