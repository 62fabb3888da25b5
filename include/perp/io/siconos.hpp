#pragma once
/// \file
/// Siconos numerics' LCP, MLCP and FrictionContactProblem text formats (`linearComplementarity_newFromFile`,
/// `mixedLinearComplementarity_newFromFile`, `frictionContact_newFromFile`), read and written. An LCP file is a stream
/// of whitespace-separated tokens: n, then the matrix block `storage rows cols`, then for storage 0 (dense) `rows cols`
/// again and rows·cols values in column-major order, for storage 1 (sparse block) the block-CSR layout of dense
/// column-major blocks; then q. Everything after q is ignored (several corpus files end with free text). The MLCP
/// layout is described at `parse_siconos_mlcp`. See docs/file-formats.md.

#include <filesystem>
#include <iosfwd>
#include <string>

#include "perp/core/friction_contact.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/mlcp.hpp"
#include "perp/core/problem.hpp"

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

/// Parse an MLCP from Siconos text (`mixedLinearComplementarity_newFromFile`; FORMATS.md §3):
/// the header `isStorageType1 isStorageType2 n m`; when isStorageType1 is 1, the row blocks
/// (boundaries `0 … n+m`, then one flag per block, 0 for equality rows), the matrix M
/// = [[A, C], [D, B]] (storage 0 dense column-major, or 1 sparse block) and q = (a, b); when
/// isStorageType2 is 1, A (n×n), B (m×m), C (n×m), D (m×n), each ROW-major, then a and b.
/// Everything after the last section is ignored (many corpus files end with extra numbers).
/// Throws `InvalidProblem` naming the token position and what was expected, as the LCP reader
/// does; also when M is not (n+m)×(n+m) ("M is 3x2 but n + m = 2 (n = 1, m = 1)"), when the
/// row blocks do not put the n equality rows first, when both flags are 0, and when both sections
/// are present but differ (naming the first entry that differs).
[[nodiscard]] Mlcp parse_siconos_mlcp(std::istream& in, const std::string& source = "<input>");
/// Read an MLCP `.dat` file; throws `InvalidProblem` when it cannot be opened or parsed.
[[nodiscard]] Mlcp read_siconos_mlcp(const std::filesystem::path& path);

/// A Siconos `.dat` of any of the three kinds: an LCP (header `n storage n n`), an MLCP
/// (`isStorageType1 isStorageType2 n m`) or a friction-contact problem (`d nc storage n n` with
/// d ∈ {2, 3} and n = d·nc). The header's first five tokens say which kind is likely; that reader
/// runs first, then the others, and the first that reads the whole problem wins. When none reads,
/// the `InvalidProblem` carries every reader's message, the most likely one first.
[[nodiscard]] Problem parse_siconos_problem(const std::string& text, const std::string& source = "<input>");
/// Read a `.dat` file of either kind; throws `InvalidProblem` when it cannot be opened or parsed.
[[nodiscard]] Problem read_siconos_problem(const std::filesystem::path& path);

/// Parse a frictional contact problem from Siconos text (`frictionContact_newFromFile`;
/// FC_FORMAT.md): `d nc`, the matrix W (`storage size0 size1`, then storage 0 dense column-major
/// after the repeated sizes, 1 sparse block, or 2 the CSparse text dump, read line by line, of a
/// CSC, triplet or CSR matrix), q (n = d·nc values) and μ (nc values). Blank lines do not matter
/// and everything after μ is ignored. W is built sparse as its entries arrive (exact zeros
/// dropped, never densified, never symmetrised), so a header claiming a huge size cannot allocate
/// more than the input holds. Throws `InvalidProblem` naming the token position, the token and
/// what was expected, as the LCP reader does: a d other than 2 or 3, W not n×n, a malformed or
/// missing number, NaN/Inf, inconsistent sparse indices, a negative μ (from `FrictionContact::validate`).
[[nodiscard]] FrictionContact parse_siconos_friction_contact(std::istream& in, const std::string& source = "<input>");
/// Read a friction-contact `.dat` file; throws `InvalidProblem` when it cannot be opened or parsed.
[[nodiscard]] FrictionContact read_siconos_friction_contact(const std::filesystem::path& path);

/// How `write_siconos_friction_contact` stores W.
enum class SiconosStorage {
  Automatic,    ///< dense when at least half of the nc² d×d blocks hold an entry (or none does), else sparse block
  Dense,        ///< storage 0: column-major, one column per line
  SparseBlock,  ///< storage 1: the d×d blocks that hold an entry, in block-row order
};

/// Write in Siconos' layout (`frictionContact_printInFile`): d and nc on their own lines, W, then
/// q on one line and μ on one line, each value as the shortest text that reads back as the same
/// double. Throws `InvalidProblem` (from `FrictionContact::validate`) before writing anything when
/// the problem is invalid. A W with no entry is always written dense (Siconos' sparse-block
/// reader builds no matrix from 0 blocks).
void write_siconos_friction_contact(std::ostream& out, const FrictionContact& problem,
                                    SiconosStorage storage = SiconosStorage::Automatic);
/// Write to a file; throws `InvalidProblem` naming the path when it cannot be written.
void write_siconos_friction_contact(const std::filesystem::path& path, const FrictionContact& problem,
                                    SiconosStorage storage = SiconosStorage::Automatic);

/// Write both sections (flags `1 1`), M dense column-major one column per line and A–D row-major
/// one row per line, each value as the shortest text that reads back as the same double. Throws
/// `InvalidProblem` (from `Mlcp::validate`) before writing anything when the problem is invalid.
void write_siconos_mlcp(std::ostream& out, const Mlcp& problem);
/// Write to a file; throws `InvalidProblem` naming the path when it cannot be written.
void write_siconos_mlcp(const std::filesystem::path& path, const Mlcp& problem);

}  // namespace perp
