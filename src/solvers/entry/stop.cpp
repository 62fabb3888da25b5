#include "stop.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "perp/core/error.hpp"

namespace perp::detail {
namespace {

thread_local StopState t_state;
thread_local double t_limit = std::numeric_limits<double>::infinity();

}  // namespace

StopState& stop_state() { return t_state; }

StopScope::StopScope(const SolveOptions& options) {
  const bool limit = std::isfinite(options.time_limit);
  const bool hook = static_cast<bool>(options.interrupt);
  if (!limit && !hook) return;  // the enclosing state (if any) stays in force
  saved_ = t_state;
  saved_limit_ = t_limit;
  installed_ = true;
  t_state.active = true;
  t_state.countdown = 1;  // the first poll of the new scope reads the clock
  t_state.stride = 1;
  if (hook) t_state.interrupt = &options.interrupt;  // next_poll stays: one period per thread
  if (limit) {
    const auto now = StopState::Clock::now();
    // Clamped to a century, so that the addition cannot overflow the clock's representation.
    const double seconds = std::min(options.time_limit, 3.15e9);
    const auto deadline = now + std::chrono::duration_cast<StopState::Clock::duration>(
                                    std::chrono::duration<double>(seconds));
    if (deadline < t_state.deadline) {
      t_state.deadline = deadline;
      t_limit = options.time_limit;
    }
  }
}

StopScope::~StopScope() {
  if (!installed_) return;
  const std::optional<Status> inner = t_state.stopped;
  t_state = saved_;
  t_limit = saved_limit_;
  // An interruption is the user's, whoever's scope saw it; a time limit is re-read from the clock.
  // (Only into an enclosing solve's state: outside every solve nothing is pending.)
  if (inner == Status::Interrupted && t_state.active) t_state.stopped = Status::Interrupted;
}

std::optional<Status> poll_stop(StopState& state) {
  if (state.stopped) return state.stopped;
  const auto now = StopState::Clock::now();
  const auto since = now - state.last_read;
  if (since < kReadEvery && state.stride < kMaxStride) {
    state.stride *= 2;
  } else if (since > 4 * kReadEvery && state.stride > 1) {
    state.stride /= 2;
  }
  state.countdown = state.stride;
  state.last_read = now;
  if (now >= state.deadline) {
    state.stopped = Status::TimeLimit;
  } else if (state.interrupt != nullptr && now >= state.next_poll) {
    state.next_poll = now + std::chrono::milliseconds(kInterruptPollMs);
    if ((*state.interrupt)()) state.stopped = Status::Interrupted;
  }
  return state.stopped;
}

std::string stop_message(Status status, long long count, const char* what) {
  const std::string after = " after " + std::to_string(count) + " " + what;
  if (status == Status::Interrupted) return "interrupted" + after;
  return "time limit of " + number_text(t_limit) + " s reached" + after;
}

void mark_stopped(Result& result) {
  const std::optional<Status> stop = t_state.stopped;
  if (!stop || result.solved() || result.status == Status::Infeasible || stopped_from_outside(result.status)) return;
  result.message += *stop == Status::Interrupted ? "; interrupted"
                                                 : "; time limit of " + number_text(t_limit) + " s reached";
  result.message += " (was " + to_string(result.status) + ")";
  result.status = *stop;
}

double installed_time_limit() { return t_limit; }

}  // namespace perp::detail
