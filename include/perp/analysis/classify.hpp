#pragma once
/// \file
/// Matrix classes of LCP theory, each decided with a witness anyone can check
/// (Cottle–Pang–Stone ch. 3; [chapter] §1.3). Depends on core only.
///
/// `classify(M)` answers, for every class, `holds` (true, false, or unset when it cannot be
/// decided within the size limits), how it was decided, and for a false answer a witness: a
/// vector x with its xᵀMx, a principal minor with its indices, an entry, a row, or a
/// sign-reversing vector. Decisions are made at a tolerance relative to max|M_ij|
/// (`ClassifyOptions::tolerance`), so that the answers do not depend on the units of M; a
/// quantity within that tolerance of zero counts as zero. See docs/analysis.md.

#include <Eigen/Dense>
#include <array>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "perp/core/status.hpp"

namespace perp {

/// The classes `classify` decides, with stable lower-case names (`to_string`).
enum class MatrixClass {
  Symmetric,             ///< "symmetric": M = Mᵀ
  PositiveDefinite,      ///< "positive-definite": xᵀMx > 0 for x ≠ 0 (the symmetric part is PD)
  PositiveSemidefinite,  ///< "positive-semidefinite": xᵀMx >= 0 for all x
  P,                     ///< "p-matrix": every principal minor > 0
  P0,                    ///< "p0-matrix": every principal minor >= 0
  Z,                     ///< "z-matrix": every off-diagonal entry <= 0
  MMatrix,               ///< "m-matrix": Z and P (a nonsingular M-matrix)
  DiagonallyDominant,    ///< "diagonally-dominant": |M_ii| > Σ_{j≠i} |M_ij| for every row (strict)
  Copositive,            ///< "copositive": xᵀMx >= 0 for x >= 0
  StrictlyCopositive,    ///< "strictly-copositive": xᵀMx > 0 for x >= 0, x ≠ 0
  CopositivePlus,        ///< "copositive-plus": copositive and [x >= 0, xᵀMx = 0 ⇒ (M + Mᵀ)x = 0]
  ColumnSufficient,      ///< "column-sufficient": x_i(Mx)_i <= 0 for all i ⇒ x_i(Mx)_i = 0 for all i
  RowSufficient,         ///< "row-sufficient": Mᵀ is column sufficient
};
inline constexpr std::size_t kMatrixClassCount = 13;

std::string to_string(MatrixClass matrix_class);
template <>
MatrixClass from_string<MatrixClass>(std::string_view name);
std::ostream& operator<<(std::ostream& out, MatrixClass matrix_class);
/// Every class, in declaration order (the order of reports).
std::vector<MatrixClass> all_matrix_classes();

/// How an answer was obtained.
enum class Decision {
  Exact,                ///< "exact": a complete test (factorization, enumeration, entrywise check)
  SufficientCondition,  ///< "sufficient-condition": true because a stronger class holds
  NecessaryCondition,   ///< "necessary-condition": false because a condition the class implies fails
  Undecided,            ///< "undecided": beyond the size limits, and no condition settles it
};
std::string to_string(Decision decision);
std::ostream& operator<<(std::ostream& out, Decision decision);

/// A vector x and its quadratic form xᵀMx (x >= 0 for the copositive classes). For
/// copositive-plus, when `value` is zero within the tolerance, `symmetric_product` holds
/// (M + Mᵀ)x, which is not zero.
struct QuadraticFormWitness {
  Eigen::VectorXd x;
  double value = 0;  ///< xᵀMx, computed from M and x
  std::optional<Eigen::VectorXd> symmetric_product;
};
/// A principal minor det(M[indices, indices]), indices 0-based and increasing.
struct MinorWitness {
  std::vector<Eigen::Index> indices;
  double minor = 0;
};
/// One entry M(row, col); for `symmetric`, `transposed` is M(col, row).
struct EntryWitness {
  Eigen::Index row = 0;
  Eigen::Index col = 0;
  double value = 0;
  std::optional<double> transposed;
};
/// A row that is not strictly diagonally dominant: |M_ii| <= Σ_{j≠i} |M_ij|.
struct RowWitness {
  Eigen::Index row = 0;
  double diagonal = 0;          ///< |M_ii|
  double off_diagonal_sum = 0;  ///< Σ_{j≠i} |M_ij|
};
/// x ≠ 0 whose products x_i (Mx)_i (column sufficiency) or x_i (Mᵀx)_i (row sufficiency) are all
/// <= 0 and not all zero.
struct SignReversalWitness {
  Eigen::VectorXd x;
  Eigen::VectorXd products;  ///< x_i (Mx)_i, or x_i (Mᵀx)_i when `transposed`
  bool transposed = false;
};
/// No witness (true answers, undecided ones).
using Witness =
    std::variant<std::monostate, QuadraticFormWitness, MinorWitness, EntryWitness, RowWitness, SignReversalWitness>;

/// The answer for one class.
struct ClassAnswer {
  std::optional<bool> holds;  ///< unset: undecided
  Decision decision = Decision::Undecided;
  Witness witness;     ///< for false answers (std::monostate otherwise)
  std::string reason;  ///< one sentence: what was checked, or why it is undecided
};

/// How much work `classify` may do.
struct ClassifyOptions {
  /// Relative tolerance: quantities (entries, pivots, eigenvalues, minors' pivots) within
  /// tolerance·max|M_ij| of zero count as zero. Default 1e-10; must be in [0, 1).
  double tolerance = 1e-10;
  /// Largest n for which P and P0 are decided exactly by enumerating principal minors
  /// (2ⁿ − 1 of them, by recursive Schur complements, pruned at the first failure). Beyond it,
  /// sufficient and necessary conditions only. Default 20; 0..40.
  Eigen::Index max_minor_size = 20;
  /// Largest n for which the copositive classes are decided exactly (Kaplan's eigenvector test
  /// over all 2ⁿ − 1 principal submatrices of the symmetric part). Default 12; 0..30.
  Eigen::Index max_copositive_size = 12;
  /// Budget of the principal-minor recursion (P, P0): at most this many nodes, each O(n²); when
  /// it runs out, P and P0 stay undecided (the reason says so) unless a failing minor was found.
  /// Default 2^24 (under a second; the whole recursion of every M with n <= 24 fits); must be >= 1.
  long long max_minor_nodes = 1LL << 24;
  /// Budget of Kaplan's copositivity test: at most this many principal submatrices visited (each a
  /// sign test, and an eigen-decomposition unless it is nonnegative); when it runs out, the copositive classes stay undecided unless a
  /// violating eigenvector was found. Default 2^18 (under a second; every M with n <= 18 fits);
  /// must be >= 1.
  long long max_copositive_submatrices = 1LL << 18;
  /// Allow O(n³) work for every M: the Cholesky/LDLT factorizations that decide positive
  /// (semi)definiteness, the Z-matrix elimination (Fiedler–Pták) for P, eigenvectors for
  /// witnesses. When false (the cheap report) they run only for n <= 16, or for M symmetric with a
  /// positive diagonal and n > `symmetric_factorization_above`; otherwise those classes are left
  /// undecided unless an O(n²) test settles them.
  bool always_factorize = true;
  /// See `always_factorize`. Default 1000: the size above which `recommend` sends symmetric
  /// positive (semi)definite problems to PGS, the one place where its order depends on them.
  Eigen::Index symmetric_factorization_above = 1000;

  /// The report `Method::Auto` uses, costing less than the solve it steers: the O(n²) tests, the
  /// factorizations only where `recommend`'s order depends on them (see `always_factorize`), and
  /// the exact enumerations only for n <= 6 (P) and n <= 4 (copositivity).
  [[nodiscard]] static ClassifyOptions cheap();

  /// Throws `InvalidProblem` naming the bad field.
  void validate() const;
};

/// The report of `classify`.
struct MatrixReport {
  Eigen::Index n = 0;
  double scale = 0;      ///< max|M_ij|
  double tolerance = 0;  ///< the absolute threshold used: options.tolerance · scale
  double min_diagonal = 0;
  std::array<ClassAnswer, kMatrixClassCount> answers;
  /// What follows for LCP(q, M) from the classes that hold or fail, one sentence each.
  std::vector<std::string> implications;

  [[nodiscard]] const ClassAnswer& operator[](MatrixClass c) const { return answers[static_cast<std::size_t>(c)]; }
  [[nodiscard]] ClassAnswer& operator[](MatrixClass c) { return answers[static_cast<std::size_t>(c)]; }
  /// holds == true.
  [[nodiscard]] bool proves(MatrixClass c) const { return (*this)[c].holds.value_or(false); }
  /// holds == false.
  [[nodiscard]] bool refutes(MatrixClass c) const { return !(*this)[c].holds.value_or(true); }
};

/// Classify M. Throws `InvalidProblem` when M is empty, not square, or has a NaN/Inf entry, or
/// when the options are invalid.
[[nodiscard]] MatrixReport classify(const Eigen::MatrixXd& M, const ClassifyOptions& options = {});

}  // namespace perp
