#pragma once
// The time limit and the interrupt hook of `SolveOptions` (not installed). `solve_through` installs
// a `StopScope` for the solve; every kernel polls `stop_requested()` between iterations and ends
// with the status it returns. The state is per thread, so a solve nested in another (auto's attempts,
// a reduction's inner LCP, a time step's frictional solve) keeps the outer deadline and hook: its own
// deadline is the earlier of the two, and an interruption seen inside stays seen outside.

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "perp/core/result.hpp"
#include "perp/core/status.hpp"
#include "perp/solvers/options.hpp"

namespace perp::detail {

struct StopState {
  using Clock = std::chrono::steady_clock;
  bool active = false;  // a deadline or a hook is installed
  Clock::time_point deadline = Clock::time_point::max();
  const std::function<bool()>* interrupt = nullptr;
  Clock::time_point next_poll{};  // the hook's next call, at most every kInterruptPollMs
  std::optional<Status> stopped;  // sticky once set: every later poll answers the same
  // The clock is read at every `stride`-th poll only: the stride doubles (to kMaxStride) while
  // reads come less than kReadEvery apart and halves when they come more than 4× that apart, so
  // tiny iterations (a 50-unknown pgs sweep: 0.1 µs) do not pay a clock read (20-25 ns) each,
  // and a stop comes within about kReadEvery of the deadline however long an iteration is.
  int countdown = 1;  // polls left before the next read; 1: the first poll reads
  int stride = 1;
  Clock::time_point last_read{};
};

/// Clock reads at least this far apart (when iterations are fast), and the largest stride.
inline constexpr std::chrono::microseconds kReadEvery{250};
inline constexpr int kMaxStride = 1024;

/// This thread's state.
[[nodiscard]] StopState& stop_state();

/// Installs `options.time_limit` and `options.interrupt` for its lifetime (nothing when neither is
/// set and none is installed); restores the enclosing state on exit, keeping an interruption.
class StopScope {
 public:
  explicit StopScope(const SolveOptions& options);
  ~StopScope();
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;

 private:
  StopState saved_;
  double saved_limit_ = 0;
  bool installed_ = false;
};

/// The slow half of `stop_requested`: reads the clock, calls the hook when its period has passed.
[[nodiscard]] std::optional<Status> poll_stop(StopState& state);

/// `Status::TimeLimit` once the deadline has passed, `Status::Interrupted` once the hook said so,
/// else nothing. One thread-local test when no limit is installed.
[[nodiscard]] inline std::optional<Status> stop_requested() {
  StopState& state = stop_state();
  if (!state.active) return std::nullopt;
  if (--state.countdown > 0) return state.stopped;
  return poll_stop(state);
}

/// A status of `stop_requested`: the solve was stopped from outside, not by the method.
[[nodiscard]] constexpr bool stopped_from_outside(Status status) {
  return status == Status::TimeLimit || status == Status::Interrupted;
}

/// "time limit of S s reached after N <what>" or "interrupted after N <what>" (what: "sweeps",
/// "pivots", …; the plural as given).
[[nodiscard]] std::string stop_message(Status status, long long count, const char* what);

/// A result that ended unsolved and without a proof while a stop is pending (a kernel that ended on
/// its own test after the stop cut its iterations short, or an auto chain): its status becomes the
/// stop's and its message says so. Called by the pipeline's judgements; no-op otherwise.
void mark_stopped(Result& result);

/// The time limit installed now, in seconds (+inf when none): for messages.
[[nodiscard]] double installed_time_limit();

}  // namespace perp::detail
