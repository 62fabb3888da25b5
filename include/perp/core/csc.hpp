#pragma once
/// \file
/// A sparse matrix from the three arrays of the compressed sparse column form (scipy's csc_matrix,
/// CSparse): every array checked before any entry is read, duplicates summed, the order of the
/// entries within a column free. Python's scipy.sparse path builds its matrices with it.

#include <Eigen/SparseCore>
#include <span>
#include <string>

namespace perp {

/// The rows × cols matrix whose column j holds `values[k]` at row `indices[k]` for
/// indptr[j] <= k < indptr[j + 1]. Checked, in this order, each failure an `InvalidProblem` naming
/// `name`, the array, the position and the value: rows, cols >= 0; indptr has cols + 1 entries,
/// indptr[0] = 0, nondecreasing, indptr[cols] = the number of entries of `indices` and of `values`;
/// every index in [0, rows). Entries at the same (row, column) add up (scipy's convention); the
/// values are taken as they are (NaN and ±inf included: the problem's own checks judge them).
/// rows and cols at most INT_MAX (Eigen's index), nnz too. O(nnz log nnz + cols) time and O(nnz + cols)
/// memory, whatever the order and repetition of the entries and however large `rows`.
[[nodiscard]] Eigen::SparseMatrix<double> csc_matrix(Eigen::Index rows, Eigen::Index cols,
                                                     std::span<const long long> indptr,
                                                     std::span<const long long> indices,
                                                     std::span<const double> values, const std::string& name);

}  // namespace perp
