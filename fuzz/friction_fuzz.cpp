// libFuzzer target: bytes → a small frictional contact problem (d = 2 or 3, 1 to 4 contacts) at
// extreme friction, scale and tolerance (issue 38: frictional auto looped forever at μ = 1e8,
// μ = 20 with tolerance 0.1, and on a problem scaled by 1e-6), solved by one frictional method.
// Every run must end within a second of CPU time in an optimized build (this thread's, so that a
// loaded machine does not fail it; abort otherwise: a hang is the defect this target hunts),
// return a finite r of the problem's size, and not claim "solved" above the tolerance: the
// relative error is recomputed by `friction_contact_residuals` from r (its formula is checked
// against hand values in tests/core/friction_contact_test.cpp).
//
// W = A Aᵀ + ε I (symmetric positive semidefinite plus a shift from the bytes, as a Delassus
// matrix), q from the bytes; both multiplied by 2^k, k in [−60, 60]; μ from {0, 1e-3, 0.3, 1, 20,
// 1e4, 1e8}; tolerance from {0.1, 1e-4, 1e-8, 1e-12}.
#include <time.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <Eigen/Dense>

#include "perp/core/error.hpp"
#include "perp/core/friction_contact.hpp"
#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/method.hpp"
#include "fuzz_bytes.hpp"

namespace {

using perp_fuzz::Bytes;

// The CPU a run may take. A second in an optimized build (what a user runs). The sanitizer tree
// (clang -O1, ASan + UBSan, libFuzzer's coverage on the library) runs the same solve 8-50x slower:
// measured on fuzz/regressions/friction/, crash-a00d604... 0.10 s in Release, 0.84 s there alone and
// 1.66 s there beside the rest of ctest -j2; the inputs found by 1 s runs there end within 0.02-0.04 s
// in Release. There the second is scaled by 10, which still catches a loop without a bound.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kCpuSecondsAllowed = 10.0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kCpuSecondsAllowed = 10.0;
#else
constexpr double kCpuSecondsAllowed = 1.0;
#endif
#else
constexpr double kCpuSecondsAllowed = 1.0;
#endif

[[noreturn]] void fail(const char* what, const perp::Result& result) {
  std::fprintf(stderr, "friction_fuzz: %s (method %s, status %s): %s\n", what, perp::to_string(result.method).c_str(),
               perp::to_string(result.status).c_str(), result.message.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in{data, size};
  const int d = (in.next() & 1) ? 3 : 2;
  const int contacts = 1 + in.next() % 4;
  const Eigen::Index n = static_cast<Eigen::Index>(d) * contacts;
  constexpr std::array<double, 7> kMu = {0, 1e-3, 0.3, 1, 20, 1e4, 1e8};
  constexpr std::array<double, 4> kTolerance = {0.1, 1e-4, 1e-8, 1e-12};
  const double scale = std::ldexp(1.0, static_cast<int>(in.next() % 121) - 60);
  const double tolerance = kTolerance[in.next() % kTolerance.size()];

  Eigen::MatrixXd A(n, n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) A(i, j) = (static_cast<int>(in.next()) - 128) / 32.0;
  }
  const double shift = (in.next() % 5) * 0.25;  // 0 leaves W singular where A is
  const Eigen::MatrixXd W = scale * (A * A.transpose() + shift * Eigen::MatrixXd::Identity(n, n));
  Eigen::VectorXd q(n);
  for (Eigen::Index i = 0; i < n; ++i) q[i] = scale * (static_cast<int>(in.next()) - 128) / 16.0;
  Eigen::VectorXd mu(contacts);
  for (int c = 0; c < contacts; ++c) mu[c] = kMu[in.next() % kMu.size()];
  const perp::FrictionContact problem = perp::friction_contact_from_dense(d, W, q, mu);

  const std::vector<perp::Method> methods = perp::friction_contact_methods();
  const perp::Method method = methods[in.next() % methods.size()];
  perp::SolveOptions options;
  options.tolerance = tolerance;
  const auto cpu_seconds = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
  };
  const double start = cpu_seconds();
  perp::Result result;
  try {
    result = perp::solve(problem, method, options);
  } catch (const perp::InvalidProblem&) {
    return 0;  // a refusal with a sentence (e.g. a method for d = 2 only on a 3D problem) is fine
  }
  const double seconds = cpu_seconds() - start;
  if (seconds > kCpuSecondsAllowed) {
    char what[112];
    std::snprintf(what, sizeof what, "a run of %.3g s of CPU time, over the %.3g s allowed in this build", seconds,
                  kCpuSecondsAllowed);
    fail(what, result);
  }
  if (result.z.size() != n) fail("r has the wrong size", result);
  if (!result.z.allFinite()) fail("r is not finite", result);
  if (result.solved()) {
    const perp::FrictionContactResiduals criteria = perp::friction_contact_residuals(problem, result.z);
    // The tolerance, with room for the recomputation's round-off relative to the data's size.
    if (!(criteria.relative_error <= tolerance * (1 + 1e-6) + 1e-12)) fail("solved above the tolerance", result);
  }
  return 0;
}
