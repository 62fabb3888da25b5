// Lemke's pivot loop allocates nothing: the number of heap allocations of a solve does not grow
// with the number of pivots. Its own executable, because it interposes malloc (glibc), which
// both Eigen's allocations and operator new go through; not built under the sanitizers, which
// interpose malloc themselves.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>

#include "perp/solvers/solve.hpp"
#include "test_problems.hpp"

extern "C" void* __libc_malloc(std::size_t size);  // glibc's own allocator

namespace {
std::atomic<long> allocations{0};
}  // namespace

extern "C" void* malloc(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
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

}  // namespace
}  // namespace perp
