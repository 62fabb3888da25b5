#pragma once
/// \file
/// Siconos numerics' LCP text format (`linearComplementarity_newFromFile`), read and written.
/// A file is a stream of whitespace-separated tokens: n, then the matrix block
/// `storage rows cols`, then for storage 0 (dense) `rows cols` again and rows·cols values in
/// column-major order, for storage 1 (sparse block) the block-CSR layout of dense column-major
/// blocks; then q. Everything after q is ignored (several corpus files end with free text).
/// See docs/file-formats.md.

#include <filesystem>
#include <iosfwd>
#include <string>

#include "perp/core/lcp.hpp"

namespace perp {

/// Parse an LCP from Siconos text. `source` names the input in error messages. Throws
/// `InvalidProblem` naming the token position (1-based), the token and what was expected, for a
/// missing or malformed number, an unsupported storage type (2, CSparse, is not read),
/// inconsistent sizes or NaN/Inf, e.g. "lcp.dat: token 9 ('abc'): expected a number for M(0, 1)".
/// Stricter than Siconos where it only warns or does not check: M must be n×n, the repeated
/// dense sizes must equal the header's, and sparse-block indices and block numbers must agree.
[[nodiscard]] Lcp parse_siconos_lcp(std::istream& in, const std::string& source = "<input>");
/// Read a `.dat` file; throws `InvalidProblem` when it cannot be opened or parsed.
[[nodiscard]] Lcp read_siconos_lcp(const std::filesystem::path& path);

/// Write in the dense layout (storage 0) of Siconos' writer, one column of M per line, each
/// value as the shortest text that reads back as the same double (at most 17 significant
/// digits). Throws `InvalidProblem` (from `Lcp::validate`) before writing anything when the
/// problem is invalid, since the file could not be read back.
void write_siconos_lcp(std::ostream& out, const Lcp& problem);
/// Write to a file; throws `InvalidProblem` naming the path when it cannot be written.
void write_siconos_lcp(const std::filesystem::path& path, const Lcp& problem);

}  // namespace perp
