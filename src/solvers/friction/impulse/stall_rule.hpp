#pragma once
// Private: the stop on progress of the frictional iterations (issue 38), a rule on the sequence of
// error checks of one run, shared by nsgs' sweeps (nsgs.cpp, run_sweeps) and prox's outer
// iterations (prox.cpp). Not installed.

#include <algorithm>
#include <cmath>
#include <string>

#include "perp/core/error.hpp"

namespace perp::detail {

/// The rule, on a run whose progress is counted in steps (nsgs: sweeps; prox: outer iterations).
/// The run is cut into windows that double: the first from the start (step 0) to the first check
/// at or after `min_steps`, each next one from the end of the last to the first check at or after
/// twice that step. At the end s of a window [a, s], with B(s) the best error of the checks up to
/// s, the window's rate is g = ln(B(a)/B(s))/(s − a) per step (0 when the best did not move), and
/// the error the run would end at after `horizon` steps in all (where its budget ends) is projected:
///   geometric (the error falls by the same factor every step): B(s) · exp(−g (horizon − s));
///   where the rate slows (g at most `slowing` times the last window's, as a power law B ~ s^−p
///   does: g halves each window) the power law through the window's ends,
///   B(s) · (horizon/s)^−p with p = ln(B(a)/B(s)) / ln(s/a), which is larger.
/// The run stops (stalled) when that projection is above the tolerance and either the window's
/// best fell by at most 1 % (flat or rising: `flat`) or the run is past `project_from` steps.
/// The defaults are nsgs' (nsgs.hpp, `kNsgsStall`, with why); prox's: prox.cpp, `kProxStall`.
struct StallRule {
  int min_steps = 100;        ///< the first window's end
  double slowing = 0.75;      ///< a rate at most this times the last window's is read as a power law
  double flat = 0.00995;      ///< ln(1.01): the window's best fell by at most 1 %
  int project_from = 1000;    ///< before this step only a flat or rising window stops the run
};

/// `StallRule` applied to one run: the best error so far, the window's start (step, best error
/// there) and the last window's rate. Holds no allocation; every call is O(1).
class StallWatch {
 public:
  StallWatch(const StallRule& rule, double start_error) : rule_(rule) { restart(start_error); }

  /// Progress counts from here: the best error and the first window's start become `error`, and
  /// the windows count their steps from `origin` (nsgs: the first sweep's error, not the start's,
  /// see kNsgsStall; prox: afresh after each cut of ρ, see kProxStall).
  void restart(double error, int origin = 0) {
    best_ = error;
    window_best_ = error;
    origin_ = origin;
    window_start_ = origin;
    last_rate_ = -1;
  }

  /// The check at `step` (>= 1, increasing) with `error`; `horizon`: the step the run's budget
  /// ends at. Records the error; at the end of a window returns true when the run stalled (the
  /// figures of `describe` are then the verdict's), else opens the next window.
  /// Steps, windows and `horizon` count from the origin of the last `restart` (0 by default).
  bool stalled(int step, double error, double horizon, double tolerance) {
    best_ = std::min(best_, error);
    const int s = step - origin_;
    const int a = window_start_ - origin_;
    if (s < std::max(rule_.min_steps, 2 * a)) return false;
    const double drop = std::log(window_best_ / best_);  // >= 0; 0 when the best did not move
    const double rate = drop / (s - a);
    slowing_ = last_rate_ > 0 && rate <= rule_.slowing * last_rate_;
    projected_ = slowing_ ? best_ * std::pow((horizon - origin_) / s, -drop / std::log(static_cast<double>(s) / a))
                          : best_ * std::exp(-rate * (horizon - step));
    horizon_ = horizon;
    step_ = step;
    if (!(projected_ <= tolerance) && (drop <= rule_.flat || s >= rule_.project_from)) return true;
    window_start_ = step;
    window_best_ = best_;
    last_rate_ = rate;
    return false;
  }

  /// The best error so far.
  [[nodiscard]] double best() const { return best_; }

  /// The verdict in words, after `stalled` returned true: "at the rate of <steps> a-s (…) the
  /// error after H <steps> would be near P, above the tolerance T" (`step`, `steps`: the unit's names).
  [[nodiscard]] std::string describe(const std::string& step, const std::string& steps, double tolerance) const {
    return "at the rate of " + steps + " " + std::to_string(window_start_) + "-" + std::to_string(step_) + " (" +
           (slowing_ ? "slowing as a power law" : "the same factor each " + step) + ") the error after " +
           std::to_string(static_cast<long long>(horizon_)) + " " + steps + " would be near " +
           number_text(projected_) + ", above the tolerance " + number_text(tolerance);
  }

 private:
  StallRule rule_;
  double best_ = 0;
  int origin_ = 0;
  int window_start_ = 0;
  double window_best_ = 0;
  double last_rate_ = -1;  // none yet
  bool slowing_ = false;
  double projected_ = 0;
  double horizon_ = 0;
  int step_ = 0;
};

}  // namespace perp::detail
