#include "perp/solvers/batch.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <new>
#include <thread>

#include "entry/stop.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {

std::vector<BatchResult> solve_many(std::span<const Lcp> problems, Method method, const SolveOptions& options,
                                    unsigned threads) {
  std::vector<BatchResult> out(problems.size());
  if (problems.empty()) return out;
  unsigned workers = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  workers = static_cast<unsigned>(std::min<std::size_t>(workers, problems.size()));
  std::atomic<std::size_t> next{0};
  // Each worker takes the next index until none is left; results land in their own slots, so no
  // lock is needed and the order is the input's.
  // The interrupt hook is polled between problems too (at most every kInterruptPollMs, as in a
  // solve): a batch of many small problems, none of which polls it long enough to see it, still
  // ends. Each problem keeps its own time limit.
  SolveOptions between;
  between.interrupt = options.interrupt;
  const auto work = [&]() noexcept {
    const detail::StopScope scope(between);
    for (std::size_t i = next++; i < problems.size(); i = next++) {
      BatchResult& item = out[i];
      if (detail::stop_requested()) {
        item.result = Result{};
        item.result.method = method;
        item.result.status = Status::Interrupted;
        item.result.message = "not solved: the batch was interrupted before this problem";
        continue;
      }
      try {
        item.result = solve(problems[i], method, options);
      } catch (const std::bad_alloc&) {
        item.result = Result{};
        item.error = "out of memory";
        item.out_of_memory = true;
      } catch (const std::exception& error) {
        item.result = Result{};
        item.error = error.what();
        if (item.error.empty()) item.error = "unknown error";
      } catch (...) {
        item.result = Result{};
        item.error = "unknown error (an exception not derived from std::exception)";
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  return out;
}

}  // namespace perp
