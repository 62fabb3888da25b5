// libFuzzer target: bytes → a small LCP (n <= 6, entries on a grid of 1/16 times a power of two
// from 2^-1080 to 2^1016, so subnormal, tiny and huge data all occur), solved by one method and
// classified. Claims are rechecked independently: z finite and sized n; a "solved" point has a
// natural residual, recomputed here by plain loops, within the tolerance (times the problem's
// scale when that exceeds 1); every false class answer of classify carries a witness that
// refutes it (tests/analysis/witness_check.hpp) at unit scale.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../tests/analysis/witness_check.hpp"
#include "perp/analysis/classify.hpp"
#include "perp/core/error.hpp"
#include "perp/solvers/method.hpp"
#include "perp/solvers/solve.hpp"

namespace {

struct Bytes {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
};

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
  if (result.solved()) {
    double worst = 0;
    double scale = problem.q.cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; i < n; ++i) {
      double w = problem.q[i];
      for (Eigen::Index j = 0; j < n; ++j) {
        w += problem.M(i, j) * result.z[j];
        scale = std::max(scale, std::abs(problem.M(i, j) * result.z[j]));
      }
      worst = std::max(worst, std::abs(std::min(result.z[i], w)));
    }
    if (!(worst <= options.tolerance * std::max(1.0, scale)))
      fail("solved, but the residual misses the tolerance", method);
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
