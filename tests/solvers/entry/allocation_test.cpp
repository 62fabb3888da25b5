// Lemke's pivot loop allocates nothing: the number of heap allocations of a solve does not grow
// with the number of pivots. Its own executable, because it interposes malloc, calloc and realloc (glibc), which
// both Eigen's allocations and operator new go through; not built under the sanitizers, which
// interpose malloc themselves.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <utility>

#include "perp/solvers/friction_contact.hpp"
#include "perp/solvers/solve.hpp"
#include "../test_problems.hpp"

extern "C" void* __libc_malloc(std::size_t size);  // glibc's own allocator
extern "C" void* __libc_calloc(std::size_t count, std::size_t size);
extern "C" void* __libc_realloc(void* pointer, std::size_t size);

namespace {
std::atomic<long> allocations{0};
}  // namespace

extern "C" void* malloc(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}

// GCC turns a malloc followed by zeroing (an Eigen vector resized, then setZero) into calloc.
extern "C" void* calloc(std::size_t count, std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}

extern "C" void* realloc(void* pointer, std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(pointer, size);
}

namespace perp {
namespace {

long allocations_of_solve(const Lcp& problem, int& pivots) {
  SolveOptions options;
  options.lemke.refine = false;  // the refinement's active-set list grows with the solution
  const long before = allocations.load();
  const Result r = solve(problem, Method::Lemke, options);
  const long count = allocations.load() - before;
  EXPECT_TRUE(r.solved()) << r.message;
  pivots = r.iterations;
  return count;
}

TEST(LemkeAllocations, DoNotGrowWithThePivots) {
  int small_pivots = 0;
  int large_pivots = 0;
  const long small = allocations_of_solve(testing_problems::random_spd(20, 9), small_pivots);
  const long large = allocations_of_solve(testing_problems::random_spd(150, 9), large_pivots);
  ASSERT_GT(large_pivots, 3 * small_pivots);  // the larger solve really pivots much more
  EXPECT_EQ(small, large) << small_pivots << " pivots: " << small << " allocations; " << large_pivots
                          << " pivots: " << large << " allocations";
  EXPECT_LT(large, 40);  // a fixed set-up: tableau, work vectors, result
}

// A small solve through the lean route (solve.cpp, issue 19) allocates its result's z and w, lemke's
// message (auto's, "auto (bpp): ok" or "auto (pgs): ok", fits the string's own buffer) and the history
// when recorded: no tableau or principal system, no validation or classification, no formatting.
TEST(SmallSolveAllocations, OnlyTheResult) {
  for (const Eigen::Index n : {2, 4, 9, 10, 16}) {
    const Lcp dense = testing_problems::random_spd(n, 3);
    Lcp lower = dense;  // its lower triangle: auto's sweep
    lower.M = dense.M.triangularView<Eigen::Lower>().toDenseMatrix();
    for (const bool sweep : {false, true}) {
      const Lcp& problem = sweep ? lower : dense;
      for (const Method method : {Method::Lemke, Method::Auto}) {
        for (const bool history : {false, true}) {
          SolveOptions options;
          options.record_history = history;
          const long before = allocations.load();
          const Result r = solve(problem, method, options);
          const long count = allocations.load() - before;
          ASSERT_TRUE(r.solved()) << r.message;
          // auto at n <= 2 examines the bases one by one (enum, which records no history)
          const Method route = method == Method::Lemke ? Method::Lemke
                               : sweep                 ? Method::Pgs
                               : n <= 2                ? Method::Enum
                                                       : Method::BlockPivoting;
          EXPECT_EQ(r.method, route) << "n = " << n << ": " << r.message;
          const long message = method == Method::Lemke ? 1 : 0;
          EXPECT_EQ(count, 2 + message + (history && route != Method::Enum ? 1 : 0))
              << "n = " << n << ", " << to_string(method) << ", history " << history << ": " << r.message;
        }
      }
    }
  }
}

// A solve into a reused Result (solve.hpp) of the size of the last one allocates nothing where
// auto's first tries at n <= 16 answer: the triangular sweep, the bases one by one (n <= 2), block
// principal pivoting and Lemke on the stack write z, w and the history in place, and their messages
// fit the string's own buffer.
TEST(SmallSolveAllocations, NoneIntoAReusedResult) {
  for (const Eigen::Index n : {2, 4, 9, 10, 16}) {
    const Lcp dense = testing_problems::random_spd(n, 3);
    Lcp lower = dense;  // auto's sweep
    lower.M = dense.M.triangularView<Eigen::Lower>().toDenseMatrix();
    // M = ones, q = −1 (lcp_CPS_1 at n = 2): every principal block of 2 or more is singular, so
    // block pivoting gives up and Lemke on the stack answers; at n = 2 auto examines the bases one
    // by one instead (enum), on both.
    const Lcp singular{Eigen::MatrixXd::Ones(n, n), Eigen::VectorXd::Constant(n, -1.0)};
    const bool bases = n <= 2;
    const std::pair<const Lcp*, Method> routes[] = {{&dense, bases ? Method::Enum : Method::BlockPivoting},
                                                    {&lower, Method::Pgs},
                                                    {&singular, bases ? Method::Enum : Method::Lemke}};
    for (const auto& [problem, route] : routes) {
      for (const bool history : {false, true}) {
        SolveOptions options;
        options.record_history = history;
        Result result;
        solve(*problem, Method::Auto, options, result);  // sizes the vectors
        ASSERT_TRUE(result.solved()) << result.message;
        EXPECT_EQ(result.method, route) << "n = " << n << ": " << result.message;
        const long before = allocations.load();
        solve(*problem, Method::Auto, options, result);
        const long count = allocations.load() - before;
        ASSERT_TRUE(result.solved()) << result.message;
        EXPECT_EQ(count, 0) << "n = " << n << ", " << to_string(route) << ", history " << history << ": "
                            << result.message;
      }
    }
  }
}

// nsgs's sweeps allocate nothing: a solve of 500 sweeps allocates as often as one of 50 (2D and 3D;
// error checks at the same powers of two below 50 and at the end, no history).
long allocations_of_nsgs(const FrictionContact& problem, int sweeps) {
  SolveOptions options;
  options.max_iterations = sweeps;
  options.record_history = false;
  options.friction_contact.nsgs.error_every = 1000000;
  const long before = allocations.load();
  const Result r = solve(problem, Method::Nsgs, options);
  const long count = allocations.load() - before;
  EXPECT_EQ(r.iterations, sweeps) << r.message;
  return count;
}

TEST(NsgsAllocations, DoNotGrowWithTheSweeps) {
  for (const int d : {2, 3}) {
    // A chain of contacts, each coupled to its neighbours; W = tridiagonal blocks, non-solvable in
    // 50 sweeps at 1e-8.
    const Eigen::Index nc = 200;
    Eigen::MatrixXd W = Eigen::MatrixXd::Zero(d * nc, d * nc);
    for (Eigen::Index i = 0; i < nc; ++i) {
      for (int k = 0; k < d; ++k) W(d * i + k, d * i + k) = 2.0;
      if (i > 0) {
        for (int k = 0; k < d; ++k) {
          W(d * i + k, d * (i - 1) + k) = -0.999;
          W(d * (i - 1) + k, d * i + k) = -0.999;
        }
      }
    }
    Eigen::VectorXd q = Eigen::VectorXd::Zero(d * nc);
    for (Eigen::Index i = 0; i < nc; ++i) {
      q[d * i] = -1.0;
      q[d * i + 1] = 0.5 * static_cast<double>(i % 3) - 0.5;
    }
    const FrictionContact problem = friction_contact_from_dense(d, W, q, Eigen::VectorXd::Constant(nc, 0.3));
    const long few = allocations_of_nsgs(problem, 50);
    const long many = allocations_of_nsgs(problem, 500);
    EXPECT_EQ(few, many) << "d = " << d;
    EXPECT_LT(many, 80);
  }
}

}  // namespace
}  // namespace perp
