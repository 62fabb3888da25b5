#include "perp/solvers/recommend.hpp"

#include <string>

#include "perp/core/error.hpp"

namespace perp {
namespace {

/// The fallbacks after `first`: Murty where its pivots stay cheap, PGS where the diagonal allows
/// a sweep, enumeration (the only exhaustive method) where 2ⁿ is small. None repeats `first`.
std::vector<Method> with_fallbacks(std::vector<Method> order, const MatrixReport& report, Eigen::Index n) {
  const bool positive_diagonal = report.min_diagonal > 0;
  auto add = [&order](Method m) {
    for (const Method existing : order) {
      if (existing == m) return;
    }
    order.push_back(m);
  };
  if (positive_diagonal && n <= kRecommendMurtyLimit) add(Method::Murty);
  if (positive_diagonal) add(Method::Pgs);
  if (n <= kRecommendEnumerationLimit) add(Method::Enum);
  add(Method::Lemke);
  return order;
}

Recommendation make(std::vector<Method> order, const MatrixReport& report, Eigen::Index n, std::string reason) {
  Recommendation r;
  r.order = with_fallbacks(std::move(order), report, n);
  r.method = r.order.front();
  r.reason = std::move(reason);
  return r;
}

}  // namespace

Recommendation recommend(const MatrixReport& report, Eigen::Index n) {
  if (n != report.n) {
    throw InvalidProblem("recommend: the report is for n = " + std::to_string(report.n) +
                         ", got n = " + std::to_string(n));
  }
  const bool symmetric = report.proves(MatrixClass::Symmetric);
  const bool large = n > kRecommendPgsFirstSize;
  const bool positive_diagonal = report.min_diagonal > 0;

  // Appendix A, "large (n > 1000) → PGS (scalable)": where PGS is known to converge.
  if (large && symmetric && report.proves(MatrixClass::PositiveDefinite)) {
    return make({Method::Pgs, Method::Lemke}, report, n,
                "symmetric positive definite and large (n > 1000): projected Gauss–Seidel converges and a sweep costs "
                "one product with M; Lemke as fallback");
  }
  if (large && symmetric && positive_diagonal && report.proves(MatrixClass::PositiveSemidefinite)) {
    // MERGE POINT (newton family): Appendix A also names the interior-point method here.
    return make({Method::Pgs, Method::Lemke}, report, n,
                "symmetric positive semidefinite and large (n > 1000): projected Gauss–Seidel (Appendix A); Lemke, "
                "which ends with a solution or a proof of infeasibility, as fallback");
  }
  if (large && positive_diagonal && report.proves(MatrixClass::DiagonallyDominant)) {
    return make({Method::Pgs, Method::Lemke}, report, n,
                "strictly diagonally dominant with a positive diagonal and large (n > 1000): projected Gauss–Seidel is "
                "a contraction; Lemke as fallback");
  }
  // Small and medium sizes: Lemke is exact and its pivots are few (Appendix A, n < 100; for
  // 100..1000 the chapter names PGS or semismooth Newton, and Lemke stays the safer first try
  // while PGS convergence is not proven).
  // MERGE POINT (newton family): for 100 < n <= 1000 with PD or P, Appendix A's "semismooth
  // Newton" (newton-fb) belongs here, before or after Lemke.
  if (report.proves(MatrixClass::PositiveDefinite)) {
    return make({Method::Lemke}, report, n,
                "positive definite: exactly one solution for every q, which Lemke finds; any method applies "
                "(Appendix A)");
  }
  if (report.proves(MatrixClass::P)) {
    return make({Method::Lemke}, report, n,
                "P-matrix: exactly one solution for every q; Lemke and Murty's method (n <= 200) are both finite");
  }
  if (report.proves(MatrixClass::CopositivePlus)) {
    return make({Method::Lemke}, report, n,
                std::string(report.proves(MatrixClass::PositiveSemidefinite) ? "positive semidefinite, so " : "") +
                    "copositive-plus: Lemke ends with a solution or a ray that proves there is none");
  }
  // MERGE POINT (newton family): no class guarantees a method here (non-monotone problems);
  // Appendix A and the issue put newton-fb first, with Lemke and the others as fallbacks.
  return make({Method::Lemke}, report, n,
              "no class proves that a method succeeds (not known to be P or copositive-plus): Lemke first, then the "
              "fallbacks; enumeration (n <= 16) is the only exhaustive one");
}

}  // namespace perp
