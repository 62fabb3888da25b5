#pragma once
/// \file
/// Which method to run on an LCP, from what `classify` proved about M: [chapter] Appendix A
/// decision flow (PSD → QP/PGS/Lemke, PD → anything, size bands for Lemke and PGS), extended by
/// the classes (P → Lemke or Murty, copositive-plus → Lemke). `Method::Auto` runs the order.

#include <string>
#include <vector>

#include "perp/analysis/classify.hpp"
#include "perp/solvers/method.hpp"

namespace perp {

struct Recommendation {
  /// The first method to run (`order.front()`).
  Method method = Method::Lemke;
  /// `method` first, then the fallbacks in the order `Method::Auto` tries them. Never contains
  /// `Method::Auto`; enum appears only for n <= `kRecommendEnumerationLimit`.
  std::vector<Method> order;
  /// Why: the class or size band that decided, in one sentence.
  std::string reason;
};

/// Enumeration (2ⁿ systems) is a fallback only up to this size.
inline constexpr Eigen::Index kRecommendEnumerationLimit = 16;
/// Murty's method (one LU per pivot) is a fallback only up to this size.
inline constexpr Eigen::Index kRecommendMurtyLimit = 200;
/// Above this size (and up to kRecommendPgsFirstSize) a positive definite problem goes to
/// newton-min first, Lemke second.
inline constexpr Eigen::Index kRecommendNewtonFirstSize = 100;
/// Above this size symmetric PD/PSD or diagonally dominant problems go to PGS first (Appendix A,
/// "large"): a sweep costs one product with M, a Lemke pivot up to O(n²).
inline constexpr Eigen::Index kRecommendPgsFirstSize = 1000;

/// n is the size of the LCP; it must equal `report.n` (`InvalidProblem` otherwise).
[[nodiscard]] Recommendation recommend(const MatrixReport& report, Eigen::Index n);

}  // namespace perp
