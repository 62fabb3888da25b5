// csc_matrix (core/csc.hpp): the arrays of a compressed sparse column matrix, checked and summed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "perp/core/csc.hpp"
#include "perp/core/error.hpp"

namespace perp::core_csc_test {
namespace {

std::string refusal(long long rows, long long cols, const std::vector<long long>& indptr,
                    const std::vector<long long>& indices, const std::vector<double>& values) {
  try {
    (void)csc_matrix(rows, cols, indptr, indices, values, "M");
  } catch (const InvalidProblem& error) {
    return error.what();
  }
  return "accepted";
}

// [[2, 0, 0], [0, 2, 1], [0, 1, 2]] with column 1's row 1 given twice (1 + 1) and out of order.
TEST(CscMatrix, SumsDuplicatesAndSortsRows) {
  const std::vector<long long> indptr = {0, 1, 4, 6};
  const std::vector<long long> indices = {0, 2, 1, 1, 2, 1};
  const std::vector<double> values = {2, 1, 1, 1, 2, 1};
  const Eigen::SparseMatrix<double> M = csc_matrix(3, 3, indptr, indices, values, "M");
  Eigen::Matrix3d expected;
  expected << 2, 0, 0, 0, 2, 1, 0, 1, 2;
  EXPECT_EQ(Eigen::Matrix3d(M), expected);
  EXPECT_EQ(M.nonZeros(), 5);
  EXPECT_EQ(M.innerIndexPtr()[1], 1);  // column 1: rows 1 then 2
  EXPECT_EQ(M.innerIndexPtr()[2], 2);
}

TEST(CscMatrix, RefusesEachBrokenRuleNamingArrayPositionAndValue) {
  EXPECT_EQ(refusal(3, 3, {0, 1, 3, 5}, {0, 7, 2, 1, 2}, {1, 1, 1, 1, 1}),
            "M: indices[1] = 7 is out of range: a row index of a matrix with 3 rows must be in [0, 3)");
  EXPECT_EQ(refusal(3, 3, {0, 3, 1, 5}, {0, 1, 2, 1, 2}, {1, 1, 1, 1, 1}),
            "M: indptr decreases at position 2: indptr[1] = 3, indptr[2] = 1 (it must be nondecreasing)");
  EXPECT_EQ(refusal(3, 3, {1, 1, 3, 5}, {0, 1, 2, 1, 2}, {1, 1, 1, 1, 1}), "M: indptr[0] is 1, expected 0");
  EXPECT_EQ(refusal(3, 3, {0, 1, 3, 4}, {0, 1, 2, 1, 2}, {1, 1, 1, 1, 1}),
            "M: indptr[3] = 4 (the number of stored entries), but indices has 5 and values 5");
  EXPECT_EQ(refusal(3, 2, {0, 1, 3, 5}, {0, 1, 2, 1, 2}, {1, 1, 1, 1, 1}),
            "M: indptr has 4 entries, expected 3 (columns + 1)");
  EXPECT_EQ(refusal(-1, 0, {0}, {}, {}), "M: shape (-1, 0) has a negative size");
  EXPECT_EQ(refusal(1LL << 31, 1, {0, 0}, {}, {}),
            "M: shape (2147483648, 1) is too large: at most 2147483647 rows and columns");
}

// A huge row count with few entries costs memory for the entries only (no array of `rows`).
TEST(CscMatrix, TallMatrixWithFewEntries) {
  const Eigen::SparseMatrix<double> M = csc_matrix(2000000000, 2, std::vector<long long>{0, 1, 2},
                                                   std::vector<long long>{1999999999, 0}, std::vector<double>{3, 4}, "M");
  EXPECT_EQ(M.coeff(1999999999, 0), 3);
  EXPECT_EQ(M.coeff(0, 1), 4);
}

}  // namespace
}  // namespace perp::core_csc_test
