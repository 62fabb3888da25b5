#include "perp/analysis/classify.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <utility>

#include "perp/core/enum_names.hpp"
#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"
#include "classify_parts.hpp"

namespace perp {
namespace {

using namespace classify_detail;

constexpr std::array<detail::EnumName<MatrixClass>, kMatrixClassCount> kMatrixClassNames{{
    {MatrixClass::Symmetric, "symmetric"},
    {MatrixClass::PositiveDefinite, "positive-definite"},
    {MatrixClass::PositiveSemidefinite, "positive-semidefinite"},
    {MatrixClass::P, "p-matrix"},
    {MatrixClass::P0, "p0-matrix"},
    {MatrixClass::Z, "z-matrix"},
    {MatrixClass::MMatrix, "m-matrix"},
    {MatrixClass::DiagonallyDominant, "diagonally-dominant"},
    {MatrixClass::Copositive, "copositive"},
    {MatrixClass::StrictlyCopositive, "strictly-copositive"},
    {MatrixClass::CopositivePlus, "copositive-plus"},
    {MatrixClass::ColumnSufficient, "column-sufficient"},
    {MatrixClass::RowSufficient, "row-sufficient"},
}};
static_assert(detail::in_declaration_order(kMatrixClassNames));

constexpr std::array<detail::EnumName<Decision>, 4> kDecisionNames{{
    {Decision::Exact, "exact"},
    {Decision::SufficientCondition, "sufficient-condition"},
    {Decision::NecessaryCondition, "necessary-condition"},
    {Decision::Undecided, "undecided"},
}};
static_assert(detail::in_declaration_order(kDecisionNames));

// Sizes up to which the cheap report does O(n³) work anyway: microseconds (see ClassifyOptions).
constexpr Index kCheapFactorizeSize = 16;

// ---------------------------------------------------------------------------------------------
// symmetric, Z, diagonally dominant: entrywise.

void decide_symmetric(const Context& c, MatrixReport& r) {
  double worst = 0;
  Index wi = 0;
  Index wj = 0;
  // A(i, j) − A(j, i) = 2 (A(i, j) − S(i, j)): read down columns only (A(j, i) would stride
  // across rows, a cache miss per entry for large n) and without a temporary matrix.
  for (Index j = 0; j < c.n; ++j) {
    for (Index i = 0; i < j; ++i) {
      const double gap = 2 * std::abs(c.A(i, j) - c.S(i, j));
      if (gap > worst) {
        worst = gap;
        wi = i;
        wj = j;
      }
    }
  }
  ClassAnswer& answer = r[MatrixClass::Symmetric];
  if (worst <= c.tol) {
    decide(answer, true, Decision::Exact, "M(i, j) = M(j, i) for every pair, to the tolerance");
  } else {
    decide(answer, false, Decision::Exact,
           "M(" + std::to_string(wi) + ", " + std::to_string(wj) + ") differs from M(" + std::to_string(wj) + ", " +
               std::to_string(wi) + ")",
           EntryWitness{wi, wj, c.M(wi, wj), c.M(wj, wi)});
  }
}

void decide_z(const Context& c, MatrixReport& r) {
  double worst = -std::numeric_limits<double>::infinity();
  Index wi = 0;
  Index wj = 0;
  for (Index j = 0; j < c.n; ++j) {
    for (Index i = 0; i < c.n; ++i) {
      if (i != j && c.A(i, j) > worst) {
        worst = c.A(i, j);
        wi = i;
        wj = j;
      }
    }
  }
  ClassAnswer& answer = r[MatrixClass::Z];
  if (c.n == 1 || worst <= c.tol) {
    decide(answer, true, Decision::Exact, "every off-diagonal entry is <= 0");
  } else {
    decide(answer, false, Decision::Exact,
           "the off-diagonal entry M(" + std::to_string(wi) + ", " + std::to_string(wj) + ") is positive",
           EntryWitness{wi, wj, c.M(wi, wj), std::nullopt});
  }
}

void decide_diagonal_dominance(const Context& c, MatrixReport& r) {
  double diagonal = 0;
  double off_sum = 0;
  const Index row = first_non_dominant_row(c.A, c.tol, diagonal, off_sum);
  ClassAnswer& answer = r[MatrixClass::DiagonallyDominant];
  if (row < 0) {
    decide(answer, true, Decision::Exact, "|M_ii| > sum of |M_ij|, j != i, in every row");
  } else {
    const double off = c.M.row(row).cwiseAbs().sum() - std::abs(c.M(row, row));
    decide(answer, false, Decision::Exact, "row " + std::to_string(row) + " is not strictly diagonally dominant",
           RowWitness{row, std::abs(c.M(row, row)), off});
  }
}

// ---------------------------------------------------------------------------------------------
// Positive (semi)definiteness of the symmetric part: Cholesky of S ∓ tol·I.

/// x with xᵀSx as small as the LDLT factorization S = Pᵀ L D Lᵀ P shows: Lᵀ P x = e_k for the
/// smallest d_k gives xᵀSx = d_k. Checked against an eigenvector when round-off spoils it.
VectorXd low_curvature_vector(const MatrixXd& S, double threshold) {
  const Eigen::LDLT<MatrixXd> ldlt(S);
  if (ldlt.info() == Eigen::Success) {
    Index k = 0;
    ldlt.vectorD().minCoeff(&k);
    const VectorXd u = ldlt.matrixU().solve(unit_vector(S.rows(), k));
    VectorXd x = ldlt.transpositionsP().transpose() * u;
    if (x.allFinite() && x.squaredNorm() > 0 && x.dot(S * x) <= threshold * x.squaredNorm()) return x;
  }
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eigen(S);
  return eigen.eigenvectors().col(0);
}

void decide_definiteness(const Context& c, MatrixReport& r, bool factorize) {
  ClassAnswer& pd = r[MatrixClass::PositiveDefinite];
  ClassAnswer& psd = r[MatrixClass::PositiveSemidefinite];
  Index k = 0;
  const double smallest = c.A.diagonal().minCoeff(&k);
  if (smallest < -c.tol) {
    const std::string why = "the diagonal entry M(" + std::to_string(k) + ", " + std::to_string(k) + ") is negative";
    decide(psd, false, Decision::NecessaryCondition, why, quadratic_witness(c.M, unit_vector(c.n, k)));
    decide(pd, false, Decision::NecessaryCondition, why, quadratic_witness(c.M, unit_vector(c.n, k)));
    return;
  }
  if (smallest <= c.tol) {
    decide(pd, false, Decision::NecessaryCondition,
           "the diagonal entry M(" + std::to_string(k) + ", " + std::to_string(k) + ") is zero",
           quadratic_witness(c.M, unit_vector(c.n, k)));
  }
  if (!factorize) {
    const std::string why = "not factorized in the cheap report (n = " + std::to_string(c.n) +
                            "; only symmetric M with a positive diagonal above n = " +
                            std::to_string(c.options.symmetric_factorization_above) + ")";
    if (undecided(pd)) pd.reason = why;
    psd.reason = why;
    return;
  }
  const MatrixXd identity = MatrixXd::Identity(c.n, c.n);
  if (undecided(pd)) {
    const Eigen::LLT<MatrixXd> shifted(c.S - c.tol * identity);
    if (shifted.info() == Eigen::Success) {
      decide(pd, true, Decision::Exact,
             "Cholesky of the symmetric part (M + M^T)/2 succeeds, pivots above the tolerance");
      decide(psd, true, Decision::SufficientCondition, "positive definite");
      return;
    }
    const VectorXd x = low_curvature_vector(c.S, c.tol);
    decide(pd, false, Decision::Exact, "Cholesky of the symmetric part fails: x^T M x <= 0 (to the tolerance) for x",
           quadratic_witness(c.M, x));
  }
  const Eigen::LLT<MatrixXd> shifted(c.S + c.tol * identity);
  if (shifted.info() == Eigen::Success) {
    decide(psd, true, Decision::Exact, "Cholesky of the symmetric part plus tolerance·I succeeds");
    return;
  }
  const VectorXd x = low_curvature_vector(c.S, -c.tol);
  QuadraticFormWitness w = quadratic_witness(c.M, x);
  if (w.value < 0) {
    decide(psd, false, Decision::Exact, "Cholesky of the symmetric part fails: x^T M x < 0 for x", std::move(w));
  } else {
    psd.reason = "Cholesky of the symmetric part fails, but no vector with x^T M x < 0 was found (round-off)";
  }
}

}  // namespace

std::string to_string(MatrixClass matrix_class) {
  const std::string_view name = detail::name_in(kMatrixClassNames, matrix_class, {});
  if (!name.empty()) return std::string(name);
  return "unknown-class-" + std::to_string(static_cast<int>(matrix_class));
}

template <>
MatrixClass from_string<MatrixClass>(std::string_view name) {
  return detail::value_in(kMatrixClassNames, name, "matrix class");
}

std::ostream& operator<<(std::ostream& out, MatrixClass matrix_class) { return out << to_string(matrix_class); }

std::vector<MatrixClass> all_matrix_classes() {
  std::vector<MatrixClass> classes;
  for (std::size_t i = 0; i < kMatrixClassCount; ++i) classes.push_back(static_cast<MatrixClass>(i));
  return classes;
}

std::string to_string(Decision decision) {
  return std::string(detail::name_in(kDecisionNames, decision, "unknown-decision"));
}

std::ostream& operator<<(std::ostream& out, Decision decision) { return out << to_string(decision); }

ClassifyOptions ClassifyOptions::cheap() {
  ClassifyOptions options;
  options.max_minor_size = 6;
  options.max_copositive_size = 4;
  options.always_factorize = false;
  return options;
}

void ClassifyOptions::validate() const {
  if (!(tolerance >= 0 && tolerance < 1)) {
    throw InvalidProblem("ClassifyOptions::tolerance must be in [0, 1), got " + number_text(tolerance));
  }
  if (max_minor_size < 0 || max_minor_size > 40) {
    throw InvalidProblem("ClassifyOptions::max_minor_size must be in [0, 40], got " + std::to_string(max_minor_size));
  }
  if (symmetric_factorization_above < 0) {
    throw InvalidProblem("ClassifyOptions::symmetric_factorization_above must be >= 0, got " +
                         std::to_string(symmetric_factorization_above));
  }
  if (max_copositive_size < 0 || max_copositive_size > 30) {
    throw InvalidProblem("ClassifyOptions::max_copositive_size must be in [0, 30], got " +
                         std::to_string(max_copositive_size));
  }
  if (max_minor_nodes < 1) {
    throw InvalidProblem("ClassifyOptions::max_minor_nodes must be >= 1, got " + std::to_string(max_minor_nodes));
  }
  if (max_copositive_submatrices < 1) {
    throw InvalidProblem("ClassifyOptions::max_copositive_submatrices must be >= 1, got " +
                         std::to_string(max_copositive_submatrices));
  }
}

MatrixReport classify(const Eigen::MatrixXd& M, const ClassifyOptions& options) {
  options.validate();
  if (M.rows() != M.cols()) {
    throw InvalidProblem("M must be square: got " + std::to_string(M.rows()) + "x" + std::to_string(M.cols()));
  }
  if (M.rows() == 0) throw InvalidProblem("M is empty (0×0): there is nothing to classify");
  require_finite(M, "M");

  MatrixReport report;
  report.n = M.rows();
  report.scale = M.cwiseAbs().maxCoeff();
  report.tolerance = options.tolerance * report.scale;
  report.min_diagonal = M.diagonal().minCoeff();
  for (ClassAnswer& answer : report.answers) answer.reason = "undecided";

  Context c{M, {}, {}, M.rows(), options.tolerance, options};
  c.A = report.scale > 0 ? MatrixXd(M / report.scale) : M;
  c.S = 0.5 * (c.A + c.A.transpose());

  decide_symmetric(c, report);
  decide_z(c, report);
  decide_diagonal_dominance(c, report);
  const bool factorize =
      options.always_factorize || c.n <= kCheapFactorizeSize ||
      (report.proves(MatrixClass::Symmetric) && report.min_diagonal > 0 && c.n > options.symmetric_factorization_above);
  c.factorize = factorize;
  decide_definiteness(c, report, factorize);
  decide_p(c, report);
  decide_m_matrix(report);
  decide_copositivity(c, report);
  decide_sufficiency(c, report);
  add_implications(report);
  return report;
}

}  // namespace perp
