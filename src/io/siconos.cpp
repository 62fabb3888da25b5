#include "perp/io/siconos.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <new>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/mlcp.hpp"

namespace perp {
namespace {

using detail::kMaxCount;
using detail::kMaxReserve;

// The largest dense M a sparse-block file may expand to: 2^28 entries (2 GiB of doubles, n up to
// 16384). perp holds M dense, and a few small blocks can claim any n, so the claim is capped here
// rather than by the file's size.
constexpr long long kMaxDenseEntries = 1LL << 28;
constexpr long long kDenseEntriesPerByte = 4096;
constexpr long long kMaxReserveEntries = 1LL << 16;

using detail::index_text;

}  // namespace

namespace detail {

/// The token stream of FORMATS.md §0: whitespace-separated words, line breaks meaning nothing.
/// Every error it raises names the source, the 1-based token position and the token text.
/// (In perp::detail, not file-local: `SiconosTokens::Impl` holds one.)
class TokenReader {
 public:
  TokenReader(std::istream& in, const std::string& source) : in_(in), source_(source) {
    // The bytes the input holds, when it can tell (a file or string; not a pipe): every token
    // takes at least 2 of them (one character and a separator, the last one excepted), which
    // bounds what a header can claim by what the file really holds.
    const std::istream::pos_type start = in_.tellg();
    if (start != std::istream::pos_type(-1) && in_.seekg(0, std::ios::end)) {
      const std::istream::pos_type end = in_.tellg();
      in_.seekg(start);
      if (end != std::istream::pos_type(-1) && end >= start) {
        bytes_ = static_cast<long long>(end - start);
        max_tokens_ = (bytes_ + 1) / 2;
      }
    }
    in_.clear();
    // A UTF-8 byte-order mark before the first token is skipped, as the JSON reader skips it.
    if (in_.peek() == 0xEF) {
      char mark[3] = {};
      in_.read(mark, 3);
      const bool bom = in_.gcount() == 3 && static_cast<unsigned char>(mark[1]) == 0xBB &&
                       static_cast<unsigned char>(mark[2]) == 0xBF;
      if (!bom) {
        in_.clear();
        in_.seekg(start);
      }
    }
  }

  /// Throws unless the input can still hold `count` more tokens (`what` names them, e.g. "M's
  /// 400000000 entries"), so that no reader sizes anything by a claim the file cannot back.
  /// Bytes in the input from the first token on, or −1 when the stream cannot tell.
  long long bytes() const { return bytes_; }

  /// Claims up to kMaxReserve values allocate nothing ahead, so they are left to the token-by-
  /// token errors ("token 12 (end of input): expected a number for q[1]"), which say more.
  void require_tokens(long long count, const std::string& what) const {
    if (count <= static_cast<long long>(kMaxReserve)) return;
    if (max_tokens_ >= 0 && count > max_tokens_ - position_) {
      fail(what + " need " + std::to_string(count) + " more numbers, but the input holds only " +
           std::to_string(bytes_) + " bytes (each number takes at least 2)");
    }
  }

  /// Next token, or nothing at end of input. Advances the position either way, so that an
  /// "end of input" error points one past the last token.
  std::optional<std::string> next() {
    ++position_;
    std::string token;
    if (in_ >> token) {
      current_ = token;
      return token;
    }
    if (in_.bad()) fail_here("read error", std::nullopt);
    current_.reset();
    return std::nullopt;
  }

  /// Throw for the token last returned by `next()`: "SOURCE: token K ('TEXT'): PROBLEM".
  [[noreturn]] void fail(const std::string& problem) const { fail_here(problem, current_); }

  /// A nonnegative integer no larger than `kMaxCount` (sizes, counts, indices).
  Eigen::Index read_count(const std::string& what) {
    const auto token = next();
    if (!token) fail("expected a nonnegative integer for " + what);
    long long value = 0;
    const std::errc error = parse_integer(*token, value);
    if (error != std::errc() && error != std::errc::result_out_of_range) {
      fail("expected a nonnegative integer for " + what);
    }
    if (error == std::errc() && value < 0) {
      fail("expected a nonnegative integer for " + what + ", got " + std::to_string(value));
    }
    if (error == std::errc::result_out_of_range || value > kMaxCount) {
      fail(what + " = " + *token + " is too large (at most " + std::to_string(kMaxCount) + ")");
    }
    return static_cast<Eigen::Index>(value);
  }

  /// Any integer (the storage type, which is validated by the caller).
  long long read_integer(const std::string& what) {
    const auto token = next();
    if (!token) fail("expected an integer for " + what);
    long long value = 0;
    const std::errc error = parse_integer(*token, value);
    if (error == std::errc::result_out_of_range) fail(what + " = " + *token + " is out of range");
    if (error != std::errc()) fail("expected an integer for " + what);
    return value;
  }

  /// A finite double in C's decimal notation (what fscanf "%lf" reads in Siconos). `what`
  /// names the entry, e.g. "M(0, 1)".
  double read_value(const std::string& what) {
    const auto token = next();
    if (!token) fail("expected a number for " + what);
    // std::from_chars rather than strtod: it ignores the C locale, whose decimal separator
    // could otherwise turn "1.5" into 1.
    const char* first = skip_plus_sign(*token);
    const char* last = token->data() + token->size();
    double value = 0;
    const auto [stop, error] = std::from_chars(first, last, value);
    if (error == std::errc::result_out_of_range) {
      fail(what + " is out of the range of a double (overflow or underflow)");
    }
    if (error != std::errc() || stop != last) fail("expected a number for " + what);
    // from_chars, like strtod, accepts "nan" and "inf"; an LCP with them has no meaning.
    if (std::isnan(value)) fail(what + " is NaN; every entry must be finite");
    if (std::isinf(value)) fail(what + " is infinite; every entry must be finite");
    return value;
  }

  const std::string& source() const { return source_; }
  // For detail::SiconosTokens, whose line-oriented readers step past tokens themselves.
  long long position() const { return position_; }
  void skip(long long tokens) { position_ += tokens; }
  std::istream& stream() { return in_; }

 private:
  /// fscanf accepts a leading '+' and std::from_chars does not, so step over one; a sign
  /// after it ("+-1") stays and is rejected.
  static const char* skip_plus_sign(const std::string& token) {
    const char* first = token.data();
    if (token.size() > 1 && token[0] == '+' && token[1] != '-') ++first;
    return first;
  }

  /// The whole token as a decimal integer; anything left over is std::errc::invalid_argument.
  static std::errc parse_integer(const std::string& token, long long& value) {
    const char* first = skip_plus_sign(token);
    const char* last = token.data() + token.size();
    const auto [stop, error] = std::from_chars(first, last, value);
    if (error == std::errc() && stop != last) return std::errc::invalid_argument;
    return error;
  }

  [[noreturn]] void fail_here(const std::string& problem, const std::optional<std::string>& token) const {
    std::string shown = "end of input";
    if (token) {
      // A binary or garbled file can hold one enormous "token"; its first characters suffice.
      constexpr std::size_t kShownLength = 40;
      shown = "'" + (token->size() > kShownLength ? token->substr(0, kShownLength) + "..." : *token) + "'";
    }
    throw InvalidProblem(source_ + ": token " + std::to_string(position_) + " (" + shown + "): " + problem);
  }

  std::istream& in_;
  const std::string& source_;
  long long position_ = 0;
  std::optional<std::string> current_;
  long long bytes_ = -1;       // bytes in the input from the first token on; −1 when unknown
  long long max_tokens_ = -1;  // (bytes_ + 1) / 2; −1 when unknown
};

}  // namespace detail

namespace {

using detail::TokenReader;

/// size0 × size1 values in column-major order (FORMATS.md §1.1), after the repeated size pair.
Eigen::MatrixXd read_dense_matrix(TokenReader& tokens, Eigen::Index header_rows, Eigen::Index header_cols) {
  // Siconos uses this second pair; a file where it disagrees with the header is corrupt.
  const Eigen::Index rows = tokens.read_count("the repeated row count of M");
  if (rows != header_rows) {
    tokens.fail("the repeated row count " + std::to_string(rows) + " differs from the header's " +
                std::to_string(header_rows));
  }
  const Eigen::Index cols = tokens.read_count("the repeated column count of M");
  if (cols != header_cols) {
    tokens.fail("the repeated column count " + std::to_string(cols) + " differs from the header's " +
                std::to_string(header_cols));
  }

  const Eigen::Index count = rows * cols;
  tokens.require_tokens(count, "M's " + std::to_string(rows) + "x" + std::to_string(cols) + " entries");
  std::vector<double> values;
  values.reserve(std::min(static_cast<std::size_t>(count), kMaxReserve));
  for (Eigen::Index k = 0; k < count; ++k) {
    values.push_back(tokens.read_value("M" + index_text(k % rows, k / rows)));
  }
  // Eigen's default storage is column-major too, so the values map over unchanged.
  return Eigen::Map<const Eigen::MatrixXd>(values.data(), rows, cols);
}

/// Cumulative block sizes (FORMATS.md §1.2): strictly increasing, the last equal to `total`.
std::vector<Eigen::Index> read_cumulative_sizes(TokenReader& tokens, Eigen::Index block_count, Eigen::Index total,
                                                const std::string& name, const std::string& total_name) {
  std::vector<Eigen::Index> cumulative;
  cumulative.reserve(std::min(static_cast<std::size_t>(block_count), kMaxReserve));
  Eigen::Index previous = 0;
  for (Eigen::Index b = 0; b < block_count; ++b) {
    const std::string what = name + "[" + std::to_string(b) + "]";
    const Eigen::Index value = tokens.read_count(what);
    if (value <= previous) {
      tokens.fail(what + " = " + std::to_string(value) + " must exceed the previous cumulative size " +
                  std::to_string(previous) + " (sizes are cumulative and blocks nonempty)");
    }
    if (value > total || (b + 1 == block_count && value != total)) {
      tokens.fail(what + " = " + std::to_string(value) + ": the cumulative sizes must end at the " + total_name + " " +
                  std::to_string(total));
    }
    cumulative.push_back(value);
    previous = value;
  }
  return cumulative;
}

/// One stored block: where it goes and its values, column-major within the block.
struct StoredBlock {
  Eigen::Index first_row = 0;
  Eigen::Index first_col = 0;
  Eigen::Index rows = 0;
  Eigen::Index cols = 0;
  std::vector<double> values;
};

/// The block-CSR layout of Siconos' SparseBlockStorage (FORMATS.md §1.2, `SBM_new_from_file`).
Eigen::MatrixXd read_sparse_block_matrix(TokenReader& tokens, Eigen::Index rows, Eigen::Index cols) {
  const Eigen::Index block_total = tokens.read_count("nbblocks (the number of stored blocks)");
  // Siconos' reader returns no matrix at all for 0 blocks, so no such file is meaningful.
  if (block_total == 0) tokens.fail("a sparse-block matrix needs at least one block (nbblocks = 0)");
  const Eigen::Index block_rows = tokens.read_count("blocknumber0 (the number of block rows)");
  if (block_rows == 0) tokens.fail("blocknumber0 must be positive");
  const Eigen::Index block_cols = tokens.read_count("blocknumber1 (the number of block columns)");
  if (block_cols == 0) tokens.fail("blocknumber1 must be positive");
  if (rows * cols > kMaxDenseEntries) {
    tokens.fail("M is " + std::to_string(rows) + "x" + std::to_string(cols) +
                ", too large to hold as a dense matrix (" +
                "perp holds M dense, at most 2^28 = " + std::to_string(kMaxDenseEntries) + " entries, n <= 16384)");
  }
  // Below that, a sparse file may expand by kDenseEntriesPerByte (32 KiB of M for each byte):
  // more than any real sparse-block file (a diagonal of 1×1 blocks takes ~15 bytes a row), and
  // a 60-byte file cannot make perp allocate gigabytes.
  if (tokens.bytes() >= 0 && rows * cols > std::max(kMaxReserveEntries, kDenseEntriesPerByte * tokens.bytes())) {
    tokens.fail("M is " + std::to_string(rows) + "x" + std::to_string(cols) + " but the file holds only " +
                std::to_string(tokens.bytes()) + " bytes; a sparse-block file may describe at most " +
                std::to_string(kDenseEntriesPerByte) + " dense entries per byte");
  }
  // Every block size is a token, and every stored block at least three (its column index, its
  // number and one value): the index arrays below are sized only after this check.
  tokens.require_tokens(block_rows + block_cols, "the block sizes (blocknumber0 + blocknumber1)");
  tokens.require_tokens(3 * block_total, "the " + std::to_string(block_total) + " stored blocks (nbblocks)");

  const auto row_ends = read_cumulative_sizes(tokens, block_rows, rows, "blocksize0", "row count");
  const auto col_ends = read_cumulative_sizes(tokens, block_cols, cols, "blocksize1", "column count");

  // filled1 is the length of the row-pointer array: one more than the last nonempty block row.
  const Eigen::Index pointer_count = tokens.read_count("filled1 (the length of index1_data)");
  if (pointer_count < 1 || pointer_count > block_rows + 1) {
    tokens.fail("filled1 = " + std::to_string(pointer_count) +
                " must lie in [1, blocknumber0 + 1 = " + std::to_string(block_rows + 1) + "]");
  }
  const Eigen::Index stored_count = tokens.read_count("filled2 (the length of index2_data)");
  if (stored_count != block_total) {
    tokens.fail("filled2 = " + std::to_string(stored_count) + " must equal nbblocks = " + std::to_string(block_total));
  }

  std::vector<Eigen::Index> row_pointer;
  row_pointer.reserve(std::min(static_cast<std::size_t>(pointer_count), kMaxReserve));
  for (Eigen::Index r = 0; r < pointer_count; ++r) {
    const std::string what = "index1_data[" + std::to_string(r) + "]";
    const Eigen::Index value = tokens.read_count(what);
    const Eigen::Index expected_min = r == 0 ? 0 : row_pointer.back();
    if (r == 0 && value != 0) tokens.fail(what + " must be 0 (the row pointer starts at block 0)");
    if (value < expected_min || value > stored_count) {
      tokens.fail(what + " = " + std::to_string(value) + " must lie in [" + std::to_string(expected_min) + ", " +
                  std::to_string(stored_count) + "] (the row pointer never decreases)");
    }
    if (r + 1 == pointer_count && value != stored_count) {
      tokens.fail(what + " = " + std::to_string(value) +
                  ": the row pointer must end at filled2 = " + std::to_string(stored_count));
    }
    row_pointer.push_back(value);
  }

  // Block k belongs to the block row r with row_pointer[r] <= k < row_pointer[r + 1].
  std::vector<Eigen::Index> block_row_of(static_cast<std::size_t>(stored_count));
  for (std::size_t r = 0; r + 1 < row_pointer.size(); ++r) {
    for (Eigen::Index k = row_pointer[r]; k < row_pointer[r + 1]; ++k) {
      block_row_of[static_cast<std::size_t>(k)] = static_cast<Eigen::Index>(r);
    }
  }

  // Two blocks at one place would make the matrix ambiguous; remember, per block column, the
  // last block row that stored a block there.
  std::vector<Eigen::Index> last_row_in_col(static_cast<std::size_t>(block_cols), -1);
  std::vector<Eigen::Index> block_col_of;
  block_col_of.reserve(static_cast<std::size_t>(stored_count));
  for (Eigen::Index k = 0; k < stored_count; ++k) {
    const std::string what = "index2_data[" + std::to_string(k) + "]";
    const Eigen::Index c = tokens.read_count(what);
    if (c >= block_cols) {
      tokens.fail(what + " = " + std::to_string(c) +
                  " is not a block column (blocknumber1 = " + std::to_string(block_cols) + ")");
    }
    const Eigen::Index r = block_row_of[static_cast<std::size_t>(k)];
    if (last_row_in_col[static_cast<std::size_t>(c)] == r) {
      tokens.fail(what + ": block row " + std::to_string(r) + " stores block column " + std::to_string(c) + " twice");
    }
    last_row_in_col[static_cast<std::size_t>(c)] = r;
    block_col_of.push_back(c);
  }

  std::vector<StoredBlock> blocks;
  blocks.reserve(static_cast<std::size_t>(stored_count));
  for (Eigen::Index k = 0; k < stored_count; ++k) {
    const Eigen::Index number = tokens.read_count("the number of block " + std::to_string(k));
    // Siconos only warns here; a mismatch means the payload is out of step with the index.
    if (number != k) tokens.fail("expected block number " + std::to_string(k) + ", got " + std::to_string(number));

    const auto r = static_cast<std::size_t>(block_row_of[static_cast<std::size_t>(k)]);
    const auto c = static_cast<std::size_t>(block_col_of[static_cast<std::size_t>(k)]);
    StoredBlock block;
    block.first_row = r == 0 ? 0 : row_ends[r - 1];
    block.first_col = c == 0 ? 0 : col_ends[c - 1];
    block.rows = row_ends[r] - block.first_row;
    block.cols = col_ends[c] - block.first_col;
    const Eigen::Index count = block.rows * block.cols;
    block.values.reserve(std::min(static_cast<std::size_t>(count), kMaxReserve));
    for (Eigen::Index e = 0; e < count; ++e) {
      const Eigen::Index i = e % block.rows;
      const Eigen::Index j = e / block.rows;
      block.values.push_back(tokens.read_value("M" + index_text(block.first_row + i, block.first_col + j) + " (block " +
                                               std::to_string(k) + ", entry " + index_text(i, j) + ")"));
    }
    blocks.push_back(std::move(block));
  }

  // The dense M is allocated only now: a header can claim a huge n with a few small blocks.
  Eigen::MatrixXd matrix;
  try {
    matrix.setZero(rows, cols);
  } catch (const std::bad_alloc&) {
    throw InvalidProblem(tokens.source() + ": M is " + std::to_string(rows) + "x" + std::to_string(cols) +
                         ", too large to hold as a dense matrix");
  }
  for (const StoredBlock& block : blocks) {
    matrix.block(block.first_row, block.first_col, block.rows, block.cols) =
        Eigen::Map<const Eigen::MatrixXd>(block.values.data(), block.rows, block.cols);
  }
  return matrix;
}

void write_number(std::ostream& out, double value) {
  // The shortest text that reads back as the same double (never more than 17 significant
  // digits), independent of the stream's flags and locale.
  char buffer[64];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (error != std::errc()) throw InvalidProblem("cannot format the value " + std::to_string(value));
  out.write(buffer, end - buffer);
}

/// The storage type of a NumericsMatrix (NM_types.h: 0 dense, 1 sparse block, 2 sparse CSparse,
/// which perp does not read).
long long read_storage_type(TokenReader& tokens) {
  const long long storage = tokens.read_integer("the storage type of M (0 dense, 1 sparse block)");
  if (storage == 2) {
    tokens.fail("unsupported storage type 2 (Siconos' CSparse dump; perp reads 0 = dense and 1 = sparse block)");
  }
  if (storage != 0 && storage != 1) {
    tokens.fail("unsupported storage type " + std::to_string(storage) + " (expected 0 = dense or 1 = sparse block)");
  }
  return storage;
}

/// The `storage rows cols` header and payload of a NumericsMatrix that must be `size`×`size`
/// (FORMATS.md §1); `what` explains the size in the error, e.g. "n + m = 3 (n = 2, m = 1)".
Eigen::MatrixXd read_square_matrix(TokenReader& tokens, Eigen::Index size, const std::string& what) {
  const long long storage = read_storage_type(tokens);
  const Eigen::Index rows = tokens.read_count("the row count of M");
  if (rows != size) {
    tokens.fail("M has " + std::to_string(rows) + " rows but " + what + "; M must be (n+m)×(n+m)");
  }
  const Eigen::Index cols = tokens.read_count("the column count of M");
  if (cols != size) {
    tokens.fail("M is " + std::to_string(rows) + "x" + std::to_string(cols) + " but " + what +
                "; M must be (n+m)×(n+m)");
  }
  return storage == 0 ? read_dense_matrix(tokens, rows, cols) : read_sparse_block_matrix(tokens, rows, cols);
}

/// rows×cols values in row-major order (the ABCD section of an MLCP file, FORMATS.md §3.1).
/// Stored as the stream delivers them, so a header claiming a huge size cannot allocate much.
Eigen::MatrixXd read_row_major(TokenReader& tokens, Eigen::Index rows, Eigen::Index cols, const std::string& name) {
  tokens.require_tokens(rows * cols, name + "'s " + std::to_string(rows) + "x" + std::to_string(cols) + " entries");
  std::vector<double> values;
  values.reserve(std::min(static_cast<std::size_t>(rows * cols), kMaxReserve));
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) values.push_back(tokens.read_value(name + index_text(i, j)));
  }
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(values.data(), rows,
                                                                                                  cols);
}

Eigen::VectorXd read_vector(TokenReader& tokens, Eigen::Index size, const std::string& name) {
  tokens.require_tokens(size, name + "'s " + std::to_string(size) + " entries");
  std::vector<double> values;
  values.reserve(std::min(static_cast<std::size_t>(size), kMaxReserve));
  for (Eigen::Index i = 0; i < size; ++i) values.push_back(tokens.read_value(name + "[" + std::to_string(i) + "]"));
  return Eigen::Map<const Eigen::VectorXd>(values.data(), size);
}

/// 0 or 1 (the section flags of an MLCP file).
bool read_flag(TokenReader& tokens, const std::string& what) {
  const long long value = tokens.read_integer(what);
  if (value != 0 && value != 1) tokens.fail("expected 0 or 1 for " + what + ", got " + std::to_string(value));
  return value == 1;
}

/// The (M, q) section's description of the rows: cumulative block boundaries read until one
/// reaches n + m, then one flag per block (0 = equality rows). perp's Mlcp keeps the n equality
/// rows first, so the equality blocks must cover exactly rows 0 .. n − 1.
void read_row_blocks(TokenReader& tokens, Eigen::Index n, Eigen::Index m) {
  const Eigen::Index total = n + m;
  std::vector<Eigen::Index> bounds;
  while (bounds.empty() || bounds.back() < total) {
    const std::string what = "blocksRows[" + std::to_string(bounds.size()) + "]";
    const Eigen::Index value = tokens.read_count(what);
    if (bounds.empty() && value != 0)
      tokens.fail(what + " = " + std::to_string(value) + ": the first block starts at row 0");
    if (!bounds.empty() && value <= bounds.back()) {
      tokens.fail(what + " = " + std::to_string(value) + " must exceed the previous boundary " +
                  std::to_string(bounds.back()) + " (blocks are nonempty)");
    }
    if (value > total) {
      tokens.fail(what + " = " + std::to_string(value) + " passes n + m = " + std::to_string(total) +
                  "; the last boundary must equal it");
    }
    bounds.push_back(value);
  }
  for (std::size_t k = 0; k + 1 < bounds.size(); ++k) {
    const std::string what = "blocksIsComp[" + std::to_string(k) + "]";
    const long long flag = tokens.read_integer(what);
    const bool equality_rows = bounds[k + 1] <= n;
    const bool complementarity_rows = bounds[k] >= n;
    if (flag == 0 && !equality_rows) {
      tokens.fail(what + " = 0 marks rows " + std::to_string(bounds[k]) + ".." + std::to_string(bounds[k + 1] - 1) +
                  " as equalities, but with n = " + std::to_string(n) + " only rows 0.." + std::to_string(n - 1) +
                  " are (perp needs the equality rows first)");
    }
    if (flag != 0 && !complementarity_rows) {
      tokens.fail(what + " = " + std::to_string(flag) + " marks rows " + std::to_string(bounds[k]) + ".." +
                  std::to_string(bounds[k + 1] - 1) + " as complementarity rows, but with n = " + std::to_string(n) +
                  " rows 0.." + std::to_string(n - 1) + " are equalities (perp needs the equality rows first)");
    }
  }
}

/// Throws when the (M, q) and ABCD sections of one file describe different problems, naming the
/// first entry that differs. They are written from the same doubles, so they must agree exactly.
void require_same(const Mlcp& from_m, const Mlcp& from_blocks, const std::string& source) {
  const auto compare = [&](const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, const char* name, Eigen::Index row0,
                           Eigen::Index col0) {
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      for (Eigen::Index i = 0; i < x.rows(); ++i) {
        if (x(i, j) != y(i, j)) {
          char buffer[160];
          std::snprintf(buffer, sizeof buffer, "M(%lld, %lld) = %.17g but %s%s = %.17g",
                        static_cast<long long>(row0 + i), static_cast<long long>(col0 + j), x(i, j), name,
                        index_text(i, j).c_str(), y(i, j));
          throw InvalidProblem(source + ": the (M, q) and (A, B, C, D, a, b) sections disagree: " + buffer);
        }
      }
    }
  };
  const Eigen::Index n = from_m.equalities();
  compare(from_m.A, from_blocks.A, "A", 0, 0);
  compare(from_m.C, from_blocks.C, "C", 0, n);
  compare(from_m.D, from_blocks.D, "D", n, 0);
  compare(from_m.B, from_blocks.B, "B", n, n);
  const auto compare_vector = [&](const Eigen::VectorXd& x, const Eigen::VectorXd& y, const char* name,
                                  Eigen::Index first) {
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (x[i] != y[i]) {
        char buffer[160];
        std::snprintf(buffer, sizeof buffer, "q[%lld] = %.17g but %s[%lld] = %.17g", static_cast<long long>(first + i),
                      x[i], name, static_cast<long long>(i), y[i]);
        throw InvalidProblem(source + ": the (M, q) and (A, B, C, D, a, b) sections disagree: " + buffer);
      }
    }
  };
  compare_vector(from_m.a, from_blocks.a, "a", 0);
  compare_vector(from_m.b, from_blocks.b, "b", n);
}

void write_row(std::ostream& out, const auto& values) {
  for (Eigen::Index i = 0; i < values.size(); ++i) {
    if (i > 0) out << ' ';
    write_number(out, values[i]);
  }
  out << '\n';
}
}  // namespace

Lcp parse_siconos_lcp(std::istream& in, const std::string& source) {
  TokenReader tokens(in, source);

  const Eigen::Index n = tokens.read_count("n (the problem size)");

  const long long storage = read_storage_type(tokens);

  // Siconos does not compare these with n; perp does, since an LCP needs an n×n M.
  const Eigen::Index rows = tokens.read_count("the row count of M");
  if (rows != n) {
    tokens.fail("M has " + std::to_string(rows) + " rows but n is " + std::to_string(n) + "; M must be n×n");
  }
  const Eigen::Index cols = tokens.read_count("the column count of M");
  if (cols != n) {
    tokens.fail("M has " + std::to_string(cols) + " columns but n is " + std::to_string(n) + "; M must be n×n");
  }

  Lcp problem;
  problem.M = storage == 0 ? read_dense_matrix(tokens, rows, cols) : read_sparse_block_matrix(tokens, rows, cols);

  problem.q = read_vector(tokens, cols, "q");
  // Whatever follows q (free-text remarks in several corpus files) is ignored, as Siconos does.

  try {
    problem.validate();
  } catch (const InvalidProblem& error) {
    throw InvalidProblem(source + ": " + error.what());
  }
  return problem;
}

Lcp read_siconos_lcp(const std::filesystem::path& path) {
  std::istringstream in(detail::read_whole_file(path));
  return parse_siconos_lcp(in, path.string());
}

void write_siconos_lcp(std::ostream& out, const Lcp& problem) {
  // Writing NaN or a non-square M would produce a file no reader accepts.
  problem.validate();
  const Eigen::Index rows = problem.M.rows();
  const Eigen::Index cols = problem.M.cols();

  // The layout of linearComplementarity_printInFile / NM_write_in_file: n, storage 0, the sizes
  // twice, one column of M per line, then q on one line.
  out << problem.size() << '\n' << 0 << '\n' << rows << '\n' << cols << '\n' << rows << '\t' << cols << '\n';
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) {
      if (i > 0) out << ' ';
      write_number(out, problem.M(i, j));
    }
    out << '\n';
  }
  for (Eigen::Index i = 0; i < problem.q.size(); ++i) {
    if (i > 0) out << ' ';
    write_number(out, problem.q[i]);
  }
  out << '\n';
}

void write_siconos_lcp(const std::filesystem::path& path, const Lcp& problem) {
  // Validate before opening, so that an invalid problem does not truncate an existing file.
  problem.validate();
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot open '" + path.string() + "' for writing");
  write_siconos_lcp(out, problem);
  out.flush();
  if (!out) throw InvalidProblem("error while writing '" + path.string() + "'");
}

}  // namespace perp

namespace perp {

Mlcp parse_siconos_mlcp(std::istream& in, const std::string& source) {
  TokenReader tokens(in, source);
  const bool has_m = read_flag(tokens, "isStorageType1 (whether the (M, q) section is present)");
  const bool has_blocks = read_flag(tokens, "isStorageType2 (whether the (A, B, C, D, a, b) section is present)");
  const Eigen::Index n = tokens.read_count("n (the number of equalities)");
  const Eigen::Index m = tokens.read_count("m (the number of complementarity pairs)");
  if (n > kMaxCount - m) tokens.fail("n + m is too large (at most " + std::to_string(kMaxCount) + ")");
  if (!has_m && !has_blocks) {
    throw InvalidProblem(source + ": both isStorageType1 and isStorageType2 are 0, so the file holds no problem");
  }
  const std::string sizes =
      "n + m = " + std::to_string(n + m) + " (n = " + std::to_string(n) + ", m = " + std::to_string(m) + ")";

  std::optional<Mlcp> from_m;
  if (has_m) {
    read_row_blocks(tokens, n, m);
    const Eigen::MatrixXd M = read_square_matrix(tokens, n + m, sizes);
    const Eigen::VectorXd q = read_vector(tokens, n + m, "q");
    from_m = mlcp_from_blocks(M, q, n);
  }
  std::optional<Mlcp> from_blocks;
  if (has_blocks) {
    Mlcp problem;
    problem.A = read_row_major(tokens, n, n, "A");
    problem.B = read_row_major(tokens, m, m, "B");
    problem.C = read_row_major(tokens, n, m, "C");
    problem.D = read_row_major(tokens, m, n, "D");
    problem.a = read_vector(tokens, n, "a");
    problem.b = read_vector(tokens, m, "b");
    from_blocks = std::move(problem);
  }
  // Whatever follows b (extra numbers in many corpus files) is ignored, as Siconos does.
  if (from_m && from_blocks) require_same(*from_m, *from_blocks, source);
  Mlcp problem = from_m ? std::move(*from_m) : std::move(*from_blocks);
  try {
    problem.validate();
  } catch (const InvalidProblem& error) {
    throw InvalidProblem(source + ": " + error.what());
  }
  return problem;
}

Problem parse_siconos_problem(const std::string& text, const std::string& source) {
  // The first five tokens say which kind is likely: an MLCP starts with two 0/1 flags, a
  // friction-contact file with `d nc storage n n` (d ∈ {2, 3}, n = d·nc), an LCP with `n storage n n`.
  std::istringstream header(text);
  long long t[5] = {-1, -1, -1, -1, -1};
  for (long long& value : t) {
    std::string token;
    if (!(header >> token)) break;
    const auto [stop, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || stop != token.data() + token.size()) {
      value = -1;
      break;
    }
  }
  const auto flag = [](long long value) { return value == 0 || value == 1; };
  const bool mlcp_likely = flag(t[0]) && flag(t[1]);
  const bool fc_likely = (t[0] == 2 || t[0] == 3) && t[1] >= 0 && t[1] <= kMaxCount && t[2] >= 0 && t[2] <= 2 &&
                         t[3] == t[0] * t[1] && t[4] == t[3];

  enum Kind { kLcp, kMlcp, kFrictionContact };
  std::vector<Kind> order = {kLcp, kMlcp, kFrictionContact};
  const Kind likely = mlcp_likely ? kMlcp : fc_likely ? kFrictionContact : kLcp;
  std::stable_partition(order.begin(), order.end(), [&](Kind kind) { return kind == likely; });

  std::string messages;
  for (const Kind kind : order) {
    std::istringstream in(text);
    try {
      if (kind == kLcp) return parse_siconos_lcp(in, source);
      if (kind == kMlcp) return parse_siconos_mlcp(in, source);
      return parse_siconos_friction_contact(in, source);
    } catch (const InvalidProblem& error) {
      const char* name = kind == kLcp ? "an LCP" : kind == kMlcp ? "an MLCP" : "a friction-contact problem";
      messages += std::string("; read as ") + name + ": " + error.what();
    }
  }
  throw InvalidProblem(source + ": not a Siconos LCP, MLCP or friction-contact file" + messages);
}

Problem read_siconos_problem(const std::filesystem::path& path) {
  return parse_siconos_problem(detail::read_whole_file(path), path.string());
}

Mlcp read_siconos_mlcp(const std::filesystem::path& path) {
  std::istringstream in(detail::read_whole_file(path));
  return parse_siconos_mlcp(in, path.string());
}

void write_siconos_mlcp(std::ostream& out, const Mlcp& problem) {
  problem.validate();
  const Eigen::Index n = problem.equalities();
  const Eigen::Index m = problem.complementarities();
  // Both sections, as Siconos' mixedLinearComplementarity_printInFile writes them: the header,
  // the row blocks (equalities, then complementarity rows; empty blocks left out), M column-major
  // one column per line and q, then A, B, C, D row-major one row per line, a and b.
  out << 1 << ' ' << 1 << ' ' << n << ' ' << m << '\n';
  out << 0;
  if (n > 0) out << ' ' << n;
  if (m > 0) out << ' ' << n + m;
  out << '\n';
  if (n > 0) out << 0 << (m > 0 ? " " : "");
  if (m > 0) out << 1;
  out << '\n';
  const Eigen::MatrixXd M = problem.matrix();
  out << 0 << '\n' << n + m << '\n' << n + m << '\n' << n + m << '\t' << n + m << '\n';
  for (Eigen::Index j = 0; j < M.cols(); ++j) write_row(out, M.col(j));
  write_row(out, problem.offset());
  for (const Eigen::MatrixXd* block : {&problem.A, &problem.B, &problem.C, &problem.D}) {
    // A k×0 block has no values and no storage: row(i) of it would offset a null pointer (UB).
    if (block->cols() == 0) continue;
    for (Eigen::Index i = 0; i < block->rows(); ++i) write_row(out, block->row(i));
  }
  write_row(out, problem.a);
  write_row(out, problem.b);
}

void write_siconos_mlcp(const std::filesystem::path& path, const Mlcp& problem) {
  problem.validate();  // before opening, so that an invalid problem does not truncate a file
  std::ofstream out(path);
  if (!out) throw InvalidProblem("cannot open '" + path.string() + "' for writing");
  write_siconos_mlcp(out, problem);
  out.flush();
  if (!out) throw InvalidProblem("error while writing '" + path.string() + "'");
}

}  // namespace perp

namespace perp::detail {

struct SiconosTokens::Impl {
  Impl(std::istream& in, const std::string& name) : source(name), tokens(in, source) {}
  std::string source;  // owned: TokenReader keeps a reference
  TokenReader tokens;
};

SiconosTokens::SiconosTokens(std::istream& in, const std::string& source) : impl_(std::make_unique<Impl>(in, source)) {}
SiconosTokens::~SiconosTokens() = default;
std::optional<std::string> SiconosTokens::next() { return impl_->tokens.next(); }
void SiconosTokens::fail(const std::string& problem) const { impl_->tokens.fail(problem); }
Eigen::Index SiconosTokens::read_count(const std::string& what) { return impl_->tokens.read_count(what); }
long long SiconosTokens::read_integer(const std::string& what) { return impl_->tokens.read_integer(what); }
double SiconosTokens::read_value(const std::string& what) { return impl_->tokens.read_value(what); }
std::vector<Eigen::Index> SiconosTokens::read_cumulative_sizes(Eigen::Index block_count, Eigen::Index total,
                                                               const std::string& name, const std::string& total_name) {
  return perp::read_cumulative_sizes(impl_->tokens, block_count, total, name, total_name);
}
long long SiconosTokens::position() const { return impl_->tokens.position(); }
void SiconosTokens::skip(long long tokens) { impl_->tokens.skip(tokens); }
std::istream& SiconosTokens::stream() { return impl_->tokens.stream(); }
const std::string& SiconosTokens::source() const { return impl_->source; }

void write_shortest(std::ostream& out, double value) { perp::write_number(out, value); }

}  // namespace perp::detail
