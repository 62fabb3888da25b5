#include "perp/solvers/recommend.hpp"

#include <string>

#include "perp/core/error.hpp"

namespace perp {
namespace {

/// The fallbacks after `first`: Murty where its pivots stay cheap, PGS where the diagonal allows
/// a sweep, semismooth Newton (newton-fb) everywhere, the interior-point method where M is proven
/// positive semidefinite (it needs a monotone LCP), enumeration (the only exhaustive method) where
/// 2ⁿ is small, and Lemke. None repeats.
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
  add(Method::NewtonFb);
  if (report.proves(MatrixClass::PositiveSemidefinite)) add(Method::InteriorPoint);
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
    return make({Method::Pgs, Method::NewtonMin, Method::Lemke}, report, n,
                "symmetric positive definite and large (n > 1000): projected Gauss–Seidel converges and a sweep costs "
                "one product with M; semismooth Newton on the min map (a few Cholesky steps), then Lemke, as "
                "fallbacks");
  }
  if (large && symmetric && positive_diagonal && report.proves(MatrixClass::PositiveSemidefinite)) {
    return make({Method::Pgs, Method::InteriorPoint, Method::Lemke}, report, n,
                "symmetric positive semidefinite and large (n > 1000): projected Gauss–Seidel (Appendix A); the "
                "interior-point method (monotone LCP) and Lemke, which ends with a solution or a proof of "
                "infeasibility, as fallbacks");
  }
  if (large && positive_diagonal && report.proves(MatrixClass::DiagonallyDominant)) {
    return make({Method::Pgs, Method::Lemke}, report, n,
                "strictly diagonally dominant with a positive diagonal and large (n > 1000): projected Gauss–Seidel is "
                "a contraction; Lemke as fallback");
  }
  // Small sizes: Lemke is exact and its pivots are few (Appendix A, n < 100). For 100 < n <= 1000
  // Appendix A names PGS or semismooth Newton: where M is proven positive definite the min-map
  // Newton takes 3–5 steps (bench/HISTORY.md: at n = 500, 3.8 ms against Lemke's 7.9 ms); elsewhere
  // Lemke stays the safer first try.
  if (n > kRecommendNewtonFirstSize && report.proves(MatrixClass::PositiveDefinite)) {
    return make({Method::NewtonMin, Method::Lemke}, report, n,
                "positive definite and medium-sized (100 < n <= 1000): exactly one solution, which semismooth "
                "Newton on the min map reaches in a few factorizations (Appendix A); Lemke as fallback");
  }
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
  // No class guarantees a method here (not known to be monotone, P or copositive-plus). Lemke
  // first, semismooth Newton first among the fallbacks: Lemke-first solves every solvable corpus
  // file but CPS_3 (which newton-fb then solves), while newton-fb first fails on tobenna and, on
  // the indeterminate friction LCPs of the contact layer, returns a different valid impulse split
  // than the one Lemke's path gives, so Moreau–Jean trajectories would depend on the order.
  return make({Method::Lemke, Method::NewtonFb}, report, n,
              "no class proves that a method succeeds (not known to be P or copositive-plus): Lemke first, then "
              "semismooth Newton on Fischer-Burmeister and the other fallbacks; enumeration (n <= 16) is the only "
              "exhaustive one");
}

}  // namespace perp
