// libFuzzer target: bytes → a small LCP (n <= 6, entries on a grid of 1/16 times a power of two
// from 2^-1080 to 2^1016, so subnormal, tiny and huge data all occur), solved by one method and
// classified. Claims are rechecked independently: z finite and sized n; a "solved" point meets
// the library's relative test (docs/solvers.md, "When a point counts as solved"), written out
// again here with plain loops in long double: with Z = ‖z‖∞ (1 when z = 0) and
// W = ‖q‖∞ (max_i Σ_j |M_ij z_j| when q = 0), ‖min(z/Z, w/W)‖∞ <= tolerance, up to w's rounding in double
// ((n + 1)·2^-53·max_i Σ_j |M_ij z_j| / W); an "infeasible" is contradicted by no other method's
// rechecked solution; a ray said to prove infeasibility is a Farkas certificate (v >= 0,
// Mᵀv <= 0, qᵀv < 0); every false class answer of classify carries a witness that refutes it
// (tests/analysis/witness_check.hpp) at unit scale.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../tests/analysis/witness_check.hpp"
#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/solve.hpp"
#include "fuzz_bytes.hpp"

namespace {

using perp_fuzz::Bytes;

// The relative residual of docs/solvers.md, recomputed from the data with plain loops.
long double relative_residual(const perp::Lcp& problem, const Eigen::VectorXd& z) {
  const Eigen::Index n = problem.size();
  long double Z = 0;
  for (Eigen::Index i = 0; i < n; ++i) Z = std::max(Z, std::fabs(static_cast<long double>(z[i])));
  if (Z == 0) Z = 1;
  long double W = 0, homogeneous = 0;
  std::vector<long double> w(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    long double sum = problem.q[i], size = std::fabs(static_cast<long double>(problem.q[i]));
    for (Eigen::Index j = 0; j < n; ++j) {
      const long double term = static_cast<long double>(problem.M(i, j)) * z[j];
      sum += term;
      size += std::fabs(term);
    }
    w[static_cast<std::size_t>(i)] = sum;
    W = std::max(W, std::fabs(static_cast<long double>(problem.q[i])));
    homogeneous = std::max(homogeneous, size - std::fabs(static_cast<long double>(problem.q[i])));
  }
  if (W == 0) W = homogeneous;
  // The library computes w in double: its rounding, up to (n + 1)·2^-53·max_i Σ_j |M_ij z_j|, is
  // allowed on top of the tolerance (w here is summed in long double).
  const long double rounding = W > 0 ? (n + 1) * 0x1p-53L * homogeneous / W : 0.0L;
  long double worst = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    const long double wi = w[static_cast<std::size_t>(i)];
    const long double ws = wi == 0 ? 0.0L : (W == 0 ? HUGE_VALL : wi / W);
    worst = std::max(worst, std::fabs(std::min(static_cast<long double>(z[i]) / Z, ws)));
  }
  return std::max(0.0L, worst - rounding);
}

bool meets(const perp::Lcp& problem, const perp::Result& result, double tolerance) {
  return result.z.size() == problem.size() && result.z.allFinite() &&
         relative_residual(problem, result.z) <= tolerance + 1e-14L;
}

[[noreturn]] void fail(const char* what, perp::Method method) {
  std::fprintf(stderr, "false claim: %s (method %s)\n", what, perp::to_string(method).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes bytes{data, size};
  const Eigen::Index n = 1 + bytes.next() % 6;
  const std::vector<perp::Method> methods = perp::lcp_methods();
  const perp::Method method = methods[bytes.next() % methods.size()];
  const int exponent = static_cast<std::int8_t>(bytes.next()) * 8 - 56;  // 2^-1080 .. 2^960
  perp::Lcp problem{Eigen::MatrixXd(n, n), Eigen::VectorXd(n)};
  for (Eigen::Index j = 0; j < n; ++j) {
    for (Eigen::Index i = 0; i < n; ++i) {
      problem.M(i, j) = std::ldexp(static_cast<std::int8_t>(bytes.next()) / 16.0, exponent);
    }
  }
  for (Eigen::Index i = 0; i < n; ++i)
    problem.q[i] = std::ldexp(static_cast<std::int8_t>(bytes.next()) / 16.0, exponent);

  perp::SolveOptions options;
  options.max_iterations = 500;  // keeps each input fast; enum has 2^6 sets at most
  perp::Result result;
  try {
    result = perp::solve(problem, method, options);
  } catch (const perp::InvalidProblem&) {
    return 0;  // a method that refuses the problem (e.g. interior-point on a non-monotone M)
  }
  if (result.z.size() != n || !result.z.allFinite()) fail("z not sized n or not finite", method);
  if (result.history.size() > perp::kHistoryLimit) fail("history over its limit", method);
  if (result.solved() && !meets(problem, result, options.tolerance))
    fail("solved, but the relative residual misses the tolerance", method);
  if (result.status == perp::Status::Infeasible) {
    for (const perp::Method other : methods) {
      perp::Result check;
      try {
        check = perp::solve(problem, other, options);
      } catch (const perp::InvalidProblem&) {
        continue;
      }
      if (check.solved() && meets(problem, check, options.tolerance))
        fail("infeasible, but another method solves it", method);
    }
  }
  if (result.ray && result.message.find("proves the LCP infeasible") != std::string::npos) {
    const Eigen::VectorXd& v = *result.ray;
    const double size = v.cwiseAbs().maxCoeff();
    long double qv = 0;
    bool ok = size > 0 && v.minCoeff() >= -1e-10 * size;
    for (Eigen::Index i = 0; i < n && ok; ++i) {
      long double sum = 0, magnitude = 0;
      for (Eigen::Index j = 0; j < n; ++j) {
        const long double term = static_cast<long double>(problem.M(j, i)) * std::max(0.0, v[j] / size);
        sum += term;
        magnitude += std::fabs(term);
      }
      ok = sum <= 1e-10L * magnitude;
    }
    long double magnitude = 0;
    for (Eigen::Index j = 0; j < n; ++j) {
      const long double term = static_cast<long double>(problem.q[j]) * std::max(0.0, v[j] / size);
      qv += term;
      magnitude += std::fabs(term);
    }
    if (!ok || !(qv < -1e-10L * magnitude)) fail("a ray said to prove infeasibility does not verify", method);
  }

  perp::ClassifyOptions classify_options;
  classify_options.max_minor_nodes = 1 << 12;
  const perp::MatrixReport report = perp::classify(problem.M, classify_options);
  if (exponent == 0) {
    for (const perp::MatrixClass c : perp::all_matrix_classes()) {
      const perp::ClassAnswer& answer = report[c];
      if (answer.holds == false && !std::holds_alternative<std::monostate>(answer.witness) &&
          !perp::testing_witness::witness_refutes(problem.M, c, answer)) {
        fail(("classify: the witness does not refute " + perp::to_string(c)).c_str(), method);
      }
    }
  }
  return 0;
}
