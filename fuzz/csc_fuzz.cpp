// libFuzzer target: any bytes as the arrays of a compressed sparse column matrix (the form Python's
// scipy.sparse path hands the library, issue 38: an index past the shape freed twice, a decreasing
// indptr crashed) read by `csc_matrix`. Must either throw InvalidProblem exactly when the arrays
// break one of its documented rules, checked here by rules written out again, or return the
// matrix those arrays hold, compared with a dense sum of the entries made here.
//
// Bytes: rows and cols (0-15 each; a top bit of rows asks for 2^31 rows, past Eigen's index),
// then the lengths of indptr, indices and values (each within 3 of the valid one, so that most
// inputs are near valid), then indptr's entries (each within 2 of a running total), indices
// (0-17, with 255 read as −1) and values (small integers, 0xff read as NaN).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <Eigen/Dense>

#include "perp/core/csc.hpp"
#include "perp/core/error.hpp"
#include "fuzz_bytes.hpp"

namespace {

using perp_fuzz::Bytes;

// The length wanted ± 3, never below 0.
std::size_t near(std::size_t wanted, std::uint8_t byte) {
  const long long length = static_cast<long long>(wanted) + (byte % 7) - 3;
  return static_cast<std::size_t>(length < 0 ? 0 : length);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in{data, size};
  const std::uint8_t shape = in.next();
  const long long rows = (shape & 0x80) ? (1LL << 31) : (shape & 0x0f);
  const long long cols = in.next() % 16;
  const std::size_t entries = in.next() % 24;
  std::vector<long long> indptr(near(static_cast<std::size_t>(cols) + 1, in.next()));
  std::vector<long long> indices(near(entries, in.next()));
  std::vector<double> values(near(entries, in.next()));
  long long total = 0;
  for (std::size_t j = 0; j < indptr.size(); ++j) {
    const std::uint8_t b = in.next();
    indptr[j] = j == 0 ? (b % 5 == 4 ? 1 : 0) : total + (b % 5) - 1;  // mostly nondecreasing from 0
    total = indptr[j];
  }
  for (long long& i : indices) {
    const std::uint8_t b = in.next();
    i = b == 255 ? -1 : b % 18;
  }
  for (double& v : values) {
    const std::uint8_t b = in.next();
    v = b == 255 ? std::nan("") : static_cast<double>(static_cast<int>(b) - 128);
  }

  // The rules of csc_matrix (core/csc.hpp), written out again.
  bool valid = indptr.size() == static_cast<std::size_t>(cols) + 1 && rows <= 2147483647LL && !indptr.empty() &&
               indptr[0] == 0;
  for (std::size_t j = 0; valid && j + 1 < indptr.size(); ++j) valid = indptr[j + 1] >= indptr[j];
  valid = valid && indptr.back() == static_cast<long long>(indices.size()) &&
          indptr.back() == static_cast<long long>(values.size());
  for (std::size_t k = 0; valid && k < indices.size(); ++k) valid = indices[k] >= 0 && indices[k] < rows;

  Eigen::SparseMatrix<double> matrix;
  try {
    matrix = perp::csc_matrix(rows, cols, indptr, indices, values, "fuzz");
  } catch (const perp::InvalidProblem&) {
    if (valid) std::abort();  // refused arrays that follow every rule
    return 0;
  }
  if (!valid) std::abort();  // accepted arrays that break a rule
  if (matrix.rows() != rows || matrix.cols() != cols || !matrix.isCompressed()) std::abort();
  // The entries summed into a dense matrix here (rows <= 15 when valid), against the result.
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(rows, cols);
  Eigen::MatrixXi stored = Eigen::MatrixXi::Zero(rows, cols);
  for (long long j = 0; j < cols; ++j) {
    for (long long k = indptr[static_cast<std::size_t>(j)]; k < indptr[static_cast<std::size_t>(j) + 1]; ++k) {
      dense(indices[static_cast<std::size_t>(k)], j) += values[static_cast<std::size_t>(k)];
      stored(indices[static_cast<std::size_t>(k)], j) = 1;
    }
  }
  if (matrix.nonZeros() != stored.sum()) std::abort();  // one stored entry per (row, column) given
  for (long long j = 0; j < cols; ++j) {
    Eigen::Index last = -1;
    for (Eigen::SparseMatrix<double>::InnerIterator it(matrix, j); it; ++it) {
      if (it.row() <= last || !stored(it.row(), j)) std::abort();  // rows increasing, only those given
      last = it.row();
      const double expected = dense(it.row(), j);
      if (!(it.value() == expected || (std::isnan(it.value()) && std::isnan(expected)))) std::abort();
    }
  }
  return 0;
}
