// The first program to read: build an LCP, solve it, check the answer.
// The two-contact block of the reference chapter (§1.2): λ = (5, 5).
#include <cstdio>
#include <perp/perp.hpp>

int main() {
  perp::Lcp block;
  block.M = Eigen::Matrix2d{{1.75, 0.25}, {0.25, 1.75}};  // Delassus operator J M⁻¹ Jᵀ
  block.q = Eigen::Vector2d{-10.0, -10.0};                // free acceleration at the contacts

  perp::SolveOptions options;
  options.tolerance = 1e-12;
  const perp::Result r = perp::solve(block, perp::Method::Lemke, options);
  std::printf("%s\nlambda = (%g, %g), residual %g\n", r.brief_report().c_str(), r.z[0], r.z[1],
              perp::natural_residual(block, r.z));

  // The same problem by every method that should solve it.
  for (const perp::Method m : {perp::Method::Enum, perp::Method::Murty, perp::Method::Pgs, perp::Method::Auto}) {
    std::printf("%s\n", perp::solve(block, m, options).brief_report().c_str());
  }
  return r.solved() ? 0 : 1;
}
