#include "perp/core/csc.hpp"

#include <Eigen/SparseCore>
#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "perp/core/error.hpp"

namespace perp {

Eigen::SparseMatrix<double> csc_matrix(Eigen::Index rows, Eigen::Index cols, std::span<const long long> indptr,
                                       std::span<const long long> indices, std::span<const double> values,
                                       const std::string& name) {
  if (rows < 0 || cols < 0) {
    throw InvalidProblem(name + ": shape (" + std::to_string(rows) + ", " + std::to_string(cols) +
                         ") has a negative size");
  }
  constexpr long long kLargest = std::numeric_limits<int>::max();  // Eigen's index type
  if (rows > kLargest || cols >= kLargest) {
    throw InvalidProblem(name + ": shape (" + std::to_string(rows) + ", " + std::to_string(cols) +
                         ") is too large: at most " + std::to_string(kLargest) + " rows and columns");
  }
  const auto columns = static_cast<std::size_t>(cols);
  if (indptr.size() != columns + 1) {
    throw InvalidProblem(name + ": indptr has " + std::to_string(indptr.size()) + " entries, expected " +
                         std::to_string(columns + 1) + " (columns + 1)");
  }
  if (indptr[0] != 0) throw InvalidProblem(name + ": indptr[0] is " + std::to_string(indptr[0]) + ", expected 0");
  for (std::size_t j = 0; j < columns; ++j) {
    if (indptr[j + 1] < indptr[j]) {
      throw InvalidProblem(name + ": indptr decreases at position " + std::to_string(j + 1) + ": indptr[" +
                           std::to_string(j) + "] = " + std::to_string(indptr[j]) + ", indptr[" +
                           std::to_string(j + 1) + "] = " + std::to_string(indptr[j + 1]) +
                           " (it must be nondecreasing)");
    }
  }
  const long long nnz = indptr[columns];
  if (static_cast<unsigned long long>(nnz) != indices.size() || static_cast<unsigned long long>(nnz) != values.size()) {
    throw InvalidProblem(name + ": indptr[" + std::to_string(columns) + "] = " + std::to_string(nnz) +
                         " (the number of stored entries), but indices has " + std::to_string(indices.size()) +
                         " and values " + std::to_string(values.size()));
  }
  if (nnz > kLargest) {
    throw InvalidProblem(name + ": " + std::to_string(nnz) + " stored entries, at most " + std::to_string(kLargest));
  }
  for (std::size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0 || indices[k] >= rows) {
      throw InvalidProblem(name + ": indices[" + std::to_string(k) + "] = " + std::to_string(indices[k]) +
                           " is out of range: a row index of a matrix with " + std::to_string(rows) +
                           " rows must be in [0, " + std::to_string(rows) + ")");
    }
  }
  // Each column's entries sorted by row and repeated rows summed, written straight into the
  // compressed arrays (no array sized by `rows`, which may be far larger than nnz).
  std::vector<std::pair<long long, double>> column;
  std::vector<int> outer(columns + 1, 0);
  std::vector<int> inner;
  std::vector<double> stored;
  inner.reserve(indices.size());
  stored.reserve(indices.size());
  for (std::size_t j = 0; j < columns; ++j) {
    column.clear();
    for (auto k = static_cast<std::size_t>(indptr[j]); k < static_cast<std::size_t>(indptr[j + 1]); ++k) {
      column.emplace_back(indices[k], values[k]);
    }
    std::stable_sort(column.begin(), column.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < column.size(); ++k) {
      if (k > 0 && column[k].first == column[k - 1].first) {
        stored.back() += column[k].second;
      } else {
        inner.push_back(static_cast<int>(column[k].first));
        stored.push_back(column[k].second);
      }
    }
    outer[j + 1] = static_cast<int>(inner.size());
  }
  Eigen::SparseMatrix<double> matrix(rows, cols);
  matrix.resizeNonZeros(static_cast<Eigen::Index>(inner.size()));
  std::copy(outer.begin(), outer.end(), matrix.outerIndexPtr());
  std::copy(inner.begin(), inner.end(), matrix.innerIndexPtr());
  std::copy(stored.begin(), stored.end(), matrix.valuePtr());
  return matrix;
}

}  // namespace perp
