// What the decided classes imply for the LCP, in prose (part of classify).
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "classify_parts.hpp"
#include "perp/core/error.hpp"

namespace perp::classify_detail {

// ---------------------------------------------------------------------------------------------

void add_implications(MatrixReport& r) {
  auto& out = r.implications;
  if (r.proves(MatrixClass::P)) {
    out.emplace_back(
        "P-matrix: LCP(q, M) has exactly one solution for every q (Samelson–Thrall–Wesler 1958; "
        "Cottle–Pang–Stone §3.3); Lemke's and Murty's methods are finite");
  } else if (r.refutes(MatrixClass::P)) {
    out.emplace_back(
        "not a P-matrix: for some q, LCP(q, M) has no solution or more than one "
        "(Cottle–Pang–Stone §3.3)");
  }
  if (r.proves(MatrixClass::PositiveDefinite) && r.proves(MatrixClass::Symmetric)) {
    out.emplace_back(
        "symmetric positive definite: LCP(q, M) is the strictly convex QP min ½zᵀMz + qᵀz, z >= 0; "
        "projected Gauss–Seidel converges");
  }
  if (r.proves(MatrixClass::PositiveSemidefinite)) {
    out.emplace_back(
        "positive semidefinite: LCP(q, M) has a solution whenever it is feasible, and its solution set "
        "is a convex polyhedron (Cottle–Pang–Stone §3.1)");
  }
  if (r.proves(MatrixClass::StrictlyCopositive)) {
    out.emplace_back("strictly copositive: LCP(q, M) has a solution for every q (Cottle–Dantzig 1968)");
  }
  if (r.proves(MatrixClass::CopositivePlus)) {
    out.emplace_back(
        "copositive-plus: Lemke's method ends with a solution, or with a secondary ray that proves "
        "LCP(q, M) infeasible (Lemke 1965; Cottle–Pang–Stone §4.4)");
  } else if (r.refutes(MatrixClass::CopositivePlus)) {
    out.emplace_back("not copositive-plus: a Lemke ray termination proves nothing about solvability");
  }
  if (r.proves(MatrixClass::ColumnSufficient)) {
    out.emplace_back(
        "column sufficient: for every q the solution set of LCP(q, M) is convex "
        "(Cottle–Pang–Venkateswaran 1989)");
  }
  if (r.proves(MatrixClass::RowSufficient)) {
    out.emplace_back(
        "row sufficient: for every q, LCP(q, M) has a solution whenever it is feasible (its solutions "
        "are the KKT points of min zᵀ(Mz + q), z >= 0, Mz + q >= 0)");
  }
  if (r.proves(MatrixClass::P0) && !r.proves(MatrixClass::P)) {
    out.emplace_back(
        "P0: M + εI is a P-matrix for every ε > 0, so each regularized LCP(q, M + εI) has exactly one "
        "solution");
  }
  if (r.proves(MatrixClass::MMatrix)) {
    out.emplace_back(
        "M-matrix: the unique solution is the least element of the feasible set "
        "{z >= 0 : Mz + q >= 0} (Cottle–Pang–Stone §3.11)");
  } else if (r.proves(MatrixClass::Z)) {
    out.emplace_back(
        "Z-matrix: when LCP(q, M) is feasible, its feasible set has a least element, and that element "
        "solves it (Cottle–Pang–Stone §3.11)");
  }
  if (r.proves(MatrixClass::DiagonallyDominant) && r.min_diagonal > 0) {
    out.emplace_back(
        "strictly diagonally dominant with a positive diagonal: a P-matrix, and projected Gauss–Seidel "
        "is a contraction in the max-norm, so it converges for every q");
  }
}

}  // namespace perp::classify_detail
