// The NumericsMatrix and vector readers of the Siconos LCP and MLCP readers (FORMATS.md §1;
// declared in siconos_reader.hpp): dense and sparse-block storage, held dense.

#include <Eigen/Core>
#include <algorithm>
#include <cstddef>
#include <new>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "perp/core/error.hpp"
#include "siconos_reader.hpp"

namespace perp::detail {
namespace {

// The largest dense M a sparse-block file may expand to: 2^28 entries (2 GiB of doubles, n up to
// 16384). perp holds M dense, and a few small blocks can claim any n, so the claim is capped here
// rather than by the file's size.
constexpr long long kMaxDenseEntries = 1LL << 28;
constexpr long long kDenseEntriesPerByte = 4096;
constexpr long long kMaxReserveEntries = 1LL << 16;

/// One stored block: where it goes and its values, column-major within the block.
struct StoredBlock {
  Eigen::Index first_row = 0;
  Eigen::Index first_col = 0;
  Eigen::Index rows = 0;
  Eigen::Index cols = 0;
  std::vector<double> values;
};

}  // namespace

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

BlockCounts read_block_counts(TokenReader& tokens) {
  BlockCounts counts;
  counts.stored = tokens.read_count("nbblocks (the number of stored blocks)");
  // Siconos' reader returns no matrix at all for 0 blocks, so no such file is meaningful.
  if (counts.stored == 0) tokens.fail("a sparse-block matrix needs at least one block (nbblocks = 0)");
  counts.rows = tokens.read_count("blocknumber0 (the number of block rows)");
  if (counts.rows == 0) tokens.fail("blocknumber0 must be positive");
  counts.cols = tokens.read_count("blocknumber1 (the number of block columns)");
  if (counts.cols == 0) tokens.fail("blocknumber1 must be positive");
  return counts;
}

std::vector<Eigen::Index> read_block_row_pointer(TokenReader& tokens, Eigen::Index block_rows,
                                                 Eigen::Index block_total) {
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
    const Eigen::Index lowest = r == 0 ? 0 : row_pointer.back();
    if (r == 0 && value != 0) tokens.fail(what + " must be 0 (the row pointer starts at block 0)");
    if (value < lowest || value > stored_count) {
      tokens.fail(what + " = " + std::to_string(value) + " must lie in [" + std::to_string(lowest) + ", " +
                  std::to_string(stored_count) + "] (the row pointer never decreases)");
    }
    if (r + 1 == pointer_count && value != stored_count) {
      tokens.fail(what + " = " + std::to_string(value) +
                  ": the row pointer must end at filled2 = " + std::to_string(stored_count));
    }
    row_pointer.push_back(value);
  }
  return row_pointer;
}

BlockPositions read_block_columns(TokenReader& tokens, const std::vector<Eigen::Index>& row_pointer,
                                  Eigen::Index block_cols) {
  BlockPositions positions;
  const Eigen::Index stored_count = row_pointer.back();
  positions.rows.reserve(std::min(static_cast<std::size_t>(stored_count), kMaxReserve));
  positions.cols.reserve(std::min(static_cast<std::size_t>(stored_count), kMaxReserve));
  // Two blocks at one place would make the matrix ambiguous: the columns of the current block row.
  std::unordered_set<Eigen::Index> in_this_row;
  for (std::size_t r = 0; r + 1 < row_pointer.size(); ++r) {
    in_this_row.clear();
    for (Eigen::Index k = row_pointer[r]; k < row_pointer[r + 1]; ++k) {
      const std::string what = "index2_data[" + std::to_string(k) + "]";
      const Eigen::Index c = tokens.read_count(what);
      if (c >= block_cols) {
        tokens.fail(what + " = " + std::to_string(c) +
                    " is not a block column (blocknumber1 = " + std::to_string(block_cols) + ")");
      }
      if (!in_this_row.insert(c).second) {
        tokens.fail(what + ": block row " + std::to_string(r) + " stores block column " + std::to_string(c) + " twice");
      }
      positions.rows.push_back(static_cast<Eigen::Index>(r));
      positions.cols.push_back(c);
    }
  }
  return positions;
}

Eigen::MatrixXd read_sparse_block_matrix(TokenReader& tokens, Eigen::Index rows, Eigen::Index cols) {
  const BlockCounts counts = read_block_counts(tokens);
  const Eigen::Index block_total = counts.stored;
  const Eigen::Index block_rows = counts.rows;
  const Eigen::Index block_cols = counts.cols;
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

  const auto row_ends = tokens.read_cumulative_sizes(block_rows, rows, "blocksize0", "row count");
  const auto col_ends = tokens.read_cumulative_sizes(block_cols, cols, "blocksize1", "column count");

  const std::vector<Eigen::Index> row_pointer = read_block_row_pointer(tokens, block_rows, block_total);
  const BlockPositions positions = read_block_columns(tokens, row_pointer, block_cols);
  const std::vector<Eigen::Index>& block_row_of = positions.rows;
  const std::vector<Eigen::Index>& block_col_of = positions.cols;
  const Eigen::Index stored_count = block_total;

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

Eigen::VectorXd read_value_vector(TokenReader& tokens, Eigen::Index size, const std::string& name) {
  tokens.require_tokens(size, name + "'s " + std::to_string(size) + " entries");
  std::vector<double> values;
  values.reserve(std::min(static_cast<std::size_t>(size), kMaxReserve));
  for (Eigen::Index i = 0; i < size; ++i) values.push_back(tokens.read_value(name + "[" + std::to_string(i) + "]"));
  return Eigen::Map<const Eigen::VectorXd>(values.data(), size);
}

}  // namespace perp::detail
