#pragma once
/// \file
/// JSON problem files and JSON results (docs/file-formats.md).
///
/// Problems are JSON objects whose "type" says which (absent: "lcp"):
///   - "lcp":     {"M": rows, "q": [...]}
///   - "box-lcp": {"M": rows, "q": [...], "lo": [...], "hi": [...], "friction": [{"index": i,
///                "normal": j, "mu": μ}, ...]}, null in lo/hi for −∞/+∞, "friction" optional
///   - "mlcp":    {"A": rows, "B": rows, "C": rows, "D": rows, "a": [...], "b": [...]}
///   - "qp":      {"Q": rows, "c": [...], "A": rows, "b": [...]}, "A"/"b" optional together
///   - "friction-contact": {"dimension": 2|3, "W": rows or {"rows": n, "cols": n, "triplets":
///                [[i, j, value], ...]}, "q": [...], "mu": [...]}
/// Matrices are arrays of rows (row-major); indices are 0-based; "name" and "comment" (strings)
/// are free text. Any other key is rejected, with a hint when it looks like a known one, so that
/// a mistyped "Q" is reported as such. Every error names the source, the key, the row or index
/// and the sizes. Results: the objects printed by `perp solve --json`.

#include <filesystem>
#include <string>

#include "perp/core/box_lcp.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/core/problem.hpp"
#include "perp/core/qp.hpp"
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

/// Parse a box LCP: "M", "q", "lo", "hi" required ("lo"/"hi" with n entries, each a number or
/// null for −∞ resp. +∞), "friction" optional (an array of objects with exactly the integer keys
/// "index" and "normal", 0-based, and the number "mu"). "type" may be absent or "box-lcp".
/// Throws `InvalidProblem` as `parse_json_lcp` does, and for lo/hi of the wrong size
/// ("lo: expected 3 entries (n = size of q), got 2"), lo_i > hi_i, a friction entry that is not
/// an object, lacks a key, has an unknown key or a non-integer index, and everything
/// `BoxLcp::validate` refuses.
[[nodiscard]] BoxLcp parse_json_box_lcp(const std::string& text, const std::string& source = "<input>");
[[nodiscard]] BoxLcp read_json_box_lcp(const std::filesystem::path& path);
/// {"type": "box-lcp", "M", "q", "lo", "hi"[, "friction"]}: ±∞ bounds as null, doubles exact,
/// "friction" only when there is a coupling. Throws `InvalidProblem` for an invalid problem.
[[nodiscard]] std::string box_lcp_to_json(const BoxLcp& problem);

/// Parse an MLCP: n = size of "a", m = size of "b". A block or vector may be left out when it is
/// empty and its size is not in doubt: "a" and "A" when n = 0, "b" and "B" when m = 0, "C" and
/// "D" when n = 0 or m = 0 (so {"type": "mlcp", "B": rows, "b": [...]} is an LCP). An empty block
/// may also be written [] whatever its shape. "type" may be absent or "mlcp". Throws
/// `InvalidProblem` naming the key and the expected shape ("C: expected 2x3 ..., got 2x1"),
/// a missing block that is not empty, ragged rows and non-numbers as `parse_json_lcp` does.
[[nodiscard]] Mlcp parse_json_mlcp(const std::string& text, const std::string& source = "<input>");
[[nodiscard]] Mlcp read_json_mlcp(const std::filesystem::path& path);
/// {"type": "mlcp", "A", "B", "C", "D", "a", "b"}, every block written (empty ones as [] or as
/// rows of no entries), doubles exact. Throws `InvalidProblem` for an invalid problem.
[[nodiscard]] std::string mlcp_to_json(const Mlcp& problem);

/// Parse a QP: "Q" and "c" required; "A" and "b" both present or both absent (k = 0; an empty
/// "A" may be written []). "type" may be absent or "qp". Throws `InvalidProblem` naming the key
/// and the sizes, and for what `Qp::validate` refuses (a non-symmetric Q). Whether Q is PSD is
/// checked by the solve.
[[nodiscard]] Qp parse_json_qp(const std::string& text, const std::string& source = "<input>");
[[nodiscard]] Qp read_json_qp(const std::filesystem::path& path);
/// {"type": "qp", "Q", "c", "A", "b"} ("A": [] when k = 0), doubles exact.
[[nodiscard]] std::string qp_to_json(const Qp& problem);

/// Parse a frictional contact problem (core/friction_contact.hpp): "dimension" (the integer 2 or
/// 3), "q" (n = d·nc entries), "mu" (nc entries, each >= 0) and "W", either dense as an array of
/// rows or sparse as {"rows": n, "cols": n, "triplets": [[i, j, value], ...]} with 0-based integer
/// indices, each (i, j) at most once, absent entries 0. "type" may be absent or "friction-contact".
/// Throws `InvalidProblem` naming the key path ("W.triplets[3][1] = 7 is out of range (W is 6x6,
/// ...)", "W.rows = 4 but q has 6 entries"), and for what `FrictionContact::validate` refuses.
[[nodiscard]] FrictionContact parse_json_friction_contact(const std::string& text,
                                                          const std::string& source = "<input>");
[[nodiscard]] FrictionContact read_json_friction_contact(const std::filesystem::path& path);
/// {"type": "friction-contact", "dimension", "W", "q", "mu"}: W as rows when n <= 16, as triplets
/// (column by column) otherwise; doubles exact. Throws `InvalidProblem` for an invalid problem.
[[nodiscard]] std::string friction_contact_to_json(const FrictionContact& problem);

/// Any problem: "type" absent or "lcp" → Lcp, "box-lcp" → BoxLcp, "mlcp" → Mlcp, "qp" → Qp,
/// "friction-contact" → FrictionContact, read by the parser above. Throws `InvalidProblem` for a "type" that is not a
/// string or not one of these, listing the valid ones.
[[nodiscard]] Problem parse_json_problem(const std::string& text, const std::string& source = "<input>");
/// The `*_to_json` of whichever problem it holds.
[[nodiscard]] std::string problem_to_json(const Problem& problem);

/// The result object of `perp solve --json` for an LCP: status, method, n, iterations, residual,
/// z, w, time_ms, message, history; "solutions" when non-empty, "ray" when present.
/// `indent` < 0 prints on one line.
[[nodiscard]] std::string result_to_json(const Result& result, int indent = 2);
/// For a box LCP: the same keys as `result_to_json` (z, w = M z + q); `residual` is the box
/// natural residual the solve reported.
[[nodiscard]] std::string box_lcp_result_to_json(const Result& result, int indent = 2);
/// For an MLCP: status, method, n, m, iterations, residual, equality_residual (‖A u + C v + a‖∞,
/// recomputed), u, v, w (the m complementarity slacks D u + B v + b, recomputed), time_ms,
/// message, history, and "solutions"/"ray" when set. Throws `InvalidProblem` when the result's z
/// does not have n + m entries.
[[nodiscard]] std::string mlcp_result_to_json(const Mlcp& problem, const Result& result, int indent = 2);
/// For a QP: status, method, n, k, iterations, residual (the KKT LCP's), x, mu, nu, objective,
/// time_ms, message, history, and "solutions"/"ray" (of the KKT LCP, z = (x, μ)) when set.
[[nodiscard]] std::string qp_result_to_json(const QpResult& result, int indent = 2);

/// For a frictional contact problem: status, method, dimension, contacts, iterations, residual
/// (Siconos' relative error), absolute_error, signorini, coulomb, complementarity, dissipation,
/// r, u, time_ms, message, history, and "solutions"/"ray" when set. u and every residual are
/// recomputed from r (`friction_contact_residuals`). Throws `InvalidProblem` when r does not have
/// d·nc entries.
[[nodiscard]] std::string friction_contact_result_to_json(const FrictionContact& problem, const Result& result,
                                                          int indent = 2);

/// Read a problem file by extension, in any letter case: `.dat` (Siconos) or `.json`. Throws
/// `InvalidProblem` for any other extension, naming it, and "cannot open 'PATH'" for a file
/// that cannot be opened.
[[nodiscard]] Lcp read_lcp_file(const std::filesystem::path& path);

/// Read any problem file by extension, in any letter case: `.json` by `parse_json_problem`,
/// `.dat` by `read_siconos_problem` (a Siconos LCP, MLCP or friction-contact problem). Other extensions and unreadable
/// files are refused as by `read_lcp_file`.
[[nodiscard]] Problem read_problem_file(const std::filesystem::path& path);

/// The matrix of a problem file, for `perp classify`: a JSON LCP, a JSON object with only "M"
/// (and optionally "type": "lcp", "name", "comment"), or a Siconos `.dat`. With "q" present the
/// file is read and checked as an LCP; without it M must be square and finite. Throws
/// `InvalidProblem` as `parse_json_lcp` does.
[[nodiscard]] Eigen::MatrixXd parse_json_matrix(const std::string& text, const std::string& source = "<input>");
/// `parse_json_matrix` of a `.json` file, `read_siconos_lcp(path).M` of a `.dat`; other
/// extensions are refused as by `read_lcp_file`.
[[nodiscard]] Eigen::MatrixXd read_matrix_file(const std::filesystem::path& path);

}  // namespace perp
