#pragma once
// Private parts of the Siconos readers (not installed): the token stream of FORMATS.md §0
// (siconos_tokens.cpp), used by the LCP (siconos.cpp), MLCP (siconos_mlcp.cpp) and
// friction-contact (siconos_fc.cpp) readers so that positions and messages read the same, and the
// NumericsMatrix and vector readers the LCP and MLCP readers share (siconos_matrix.cpp).

#include <Eigen/Core>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "perp/core/error.hpp"

namespace perp::detail {

/// The token stream of FORMATS.md §0: whitespace-separated words, line breaks meaning nothing.
/// Every error it raises names the source, the 1-based token position and the token text:
/// "SOURCE: token K ('TEXT'): PROBLEM". Keeps a reference to `source`, which must outlive it.
class TokenReader {
 public:
  TokenReader(std::istream& in, const std::string& source);
  TokenReader(const TokenReader&) = delete;
  TokenReader& operator=(const TokenReader&) = delete;

  /// Bytes in the input from the first token on, or −1 when the stream cannot tell.
  [[nodiscard]] long long bytes() const { return bytes_; }

  /// Throws unless the input can still hold `count` more tokens (`what` names them, e.g. "M's
  /// 400000000 entries"), so that no reader sizes anything by a claim the file cannot back.
  /// Claims up to kMaxReserve values allocate nothing ahead, so they are left to the token-by-
  /// token errors ("token 12 (end of input): expected a number for q[1]"), which say more.
  void require_tokens(long long count, const std::string& what) const;

  /// Next token, or nothing at end of input. Advances the position either way, so that an
  /// "end of input" error points one past the last token.
  std::optional<std::string> next();

  /// Throw for the token last returned by `next()`: "SOURCE: token K ('TEXT'): PROBLEM".
  [[noreturn]] void fail(const std::string& problem) const;

  /// A nonnegative integer no larger than `kMaxCount` (sizes, counts, indices): what Siconos'
  /// fscanf("%d") could have written.
  Eigen::Index read_count(const std::string& what);

  /// Any integer (the storage type, which is validated by the caller).
  long long read_integer(const std::string& what);

  /// A finite double in C's decimal notation (what fscanf "%lf" reads in Siconos). `what`
  /// names the entry, e.g. "M(0, 1)".
  double read_value(const std::string& what);

  /// Cumulative block sizes (FORMATS.md §1.2): `block_count` strictly increasing values, the last
  /// equal to `total`, stored as they arrive.
  std::vector<Eigen::Index> read_cumulative_sizes(Eigen::Index block_count, Eigen::Index total, const std::string& name,
                                                  const std::string& total_name);

  [[nodiscard]] const std::string& source() const { return source_; }
  /// The 1-based position of the token last returned.
  [[nodiscard]] long long position() const { return position_; }
  /// Count `tokens` more tokens as read: a caller that read lines from `stream()` keeps the
  /// positions of later errors right.
  void skip(long long tokens) { position_ += tokens; }
  /// The underlying stream, for the line-oriented CSparse dump (FC_FORMAT.md §1, storage 2).
  std::istream& stream() { return in_; }

 private:
  [[noreturn]] void fail_here(const std::string& problem, const std::optional<std::string>& token) const;

  std::istream& in_;
  const std::string& source_;
  long long position_ = 0;
  std::optional<std::string> current_;
  long long bytes_ = -1;       // bytes in the input from the first token on; −1 when unknown
  long long max_tokens_ = -1;  // (bytes_ + 1) / 2; −1 when unknown
};

/// `problem` once its `validate()` passes; otherwise `InvalidProblem` with the message prefixed by
/// "SOURCE: ". The last step of every Siconos reader.
template <class P>
P validated(P problem, const std::string& source) {
  try {
    problem.validate();
  } catch (const InvalidProblem& error) {
    throw InvalidProblem(source + ": " + error.what());
  }
  return problem;
}

/// nbblocks, blocknumber0 and blocknumber1 of a sparse-block matrix (FORMATS.md §1.2), each positive.
struct BlockCounts {
  Eigen::Index stored = 0;
  Eigen::Index rows = 0;
  Eigen::Index cols = 0;
};
BlockCounts read_block_counts(TokenReader& tokens);

/// The storage type of a NumericsMatrix (NM_types.h: 0 dense, 1 sparse block, 2 sparse CSparse,
/// which the LCP and MLCP readers do not read).
long long read_storage_type(TokenReader& tokens);

/// size0 × size1 values in column-major order (FORMATS.md §1.1), after the repeated size pair.
Eigen::MatrixXd read_dense_matrix(TokenReader& tokens, Eigen::Index header_rows, Eigen::Index header_cols);

/// The row pointer of a sparse-block matrix (FORMATS.md §1.2): filled1, filled2 (which must equal
/// nbblocks = `block_total`) and index1_data, nondecreasing from 0 to filled2.
std::vector<Eigen::Index> read_block_row_pointer(TokenReader& tokens, Eigen::Index block_rows,
                                                 Eigen::Index block_total);

/// The block row and column of every stored block of a sparse-block matrix, in storage order.
struct BlockPositions {
  std::vector<Eigen::Index> rows;
  std::vector<Eigen::Index> cols;
};

/// index2_data: the block column of every stored block, block row by block row as `row_pointer`
/// (from `read_block_row_pointer`) groups them, each below `block_cols` and none twice in a row.
BlockPositions read_block_columns(TokenReader& tokens, const std::vector<Eigen::Index>& row_pointer,
                                  Eigen::Index block_cols);

/// The block-CSR layout of Siconos' SparseBlockStorage (FORMATS.md §1.2, `SBM_new_from_file`),
/// expanded to a dense matrix.
Eigen::MatrixXd read_sparse_block_matrix(TokenReader& tokens, Eigen::Index rows, Eigen::Index cols);

/// `size` values named NAME[i]; the input must be able to hold them before any is stored.
Eigen::VectorXd read_value_vector(TokenReader& tokens, Eigen::Index size, const std::string& name);

}  // namespace perp::detail
