#pragma once
/// \file
/// Many independent copies of one planar scene stepped together on a pool of threads
/// (`VecWorld`): the vectorized world of issue 39, for training a policy on thousands of copies.
///
/// Each copy ("world") is the scene's world advanced by `moreau_jean_step` with the scene's
/// options; the copies share nothing while they step, so world i after k steps is bit-identical to
/// the scene's world stepped k times alone with the same applied forces, whatever the number of
/// threads. The state is kept as contiguous arrays of shape (worlds, bodies, 3), row-major.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "perp/contact/scene.hpp"
#include "perp/core/status.hpp"

namespace perp::contact {

class VecWorld {
 public:
  /// `worlds` copies of `scene` (validated first: `Scene::validate`, `InvalidProblem` naming the
  /// field), stepped on `threads` threads (0: `std::thread::hardware_concurrency()`; never more
  /// than `worlds`; the calling thread is one of them). `worlds` >= 1. `scene.duration` is not
  /// used: a copy steps as long as it is asked to.
  VecWorld(Scene scene, std::size_t worlds, unsigned threads = 0);
  ~VecWorld();
  VecWorld(VecWorld&&) noexcept;
  VecWorld& operator=(VecWorld&&) noexcept;
  VecWorld(const VecWorld&) = delete;
  VecWorld& operator=(const VecWorld&) = delete;

  /// Advances every world that has not failed by one step. `forces` holds worlds × bodies × 3
  /// numbers (fx, fy, torque per body, row-major: world, body, component), each finite, set on
  /// `Body::force` and `Body::torque` for this step in place of the scene's own (as `rollout`'s
  /// forces); empty, the scene's own (zero unless the scene sets one). A step applies them beside
  /// gravity. A wrong size or a non-finite entry throws `InvalidProblem` naming the world, the body
  /// and the component, before any world steps.
  ///
  /// A world whose step throws (`InvalidProblem`, out of memory) or leaves a non-finite position
  /// or velocity is flagged `failed` with the reason in `message(i)`, and is not stepped again
  /// until `reset`; the others go on. A step whose problem is not solved still advances (as
  /// `moreau_jean_step` does) and shows as `solved(i) == false`; it does not fail the world.
  ///
  /// `interrupt`, when set, is called by the calling thread before the first world it steps and
  /// then between the worlds it steps, at most every 50 ms: once it returns true no further world
  /// starts its step, the worlds already started finish theirs, and `step` returns false. The
  /// worlds that did step have their `steps` count raised by one; the others (state and report)
  /// are as they were. Returns true when every live world stepped.
  ///
  /// `velocities`, when not empty, holds worlds × bodies × 3 target velocities (vx, vy, ω, laid
  /// out as `forces`): each entry that is not NaN sets that component of the body's velocity at
  /// the start of this step (NaN: the component is not driven). A fixed body driven so is a
  /// kinematic one — a pusher, a conveyor: it moves by that velocity and pushes what it touches;
  /// a free body starts the step at that velocity (a velocity actuator of unbounded gain), and
  /// gravity, its applied force and its contacts act on it during the step. A wrong size or an
  /// infinite entry throws `InvalidProblem` naming the world, the body and the component.
  bool step(std::span<const double> forces, const std::function<bool()>& interrupt,
            std::span<const double> velocities);
  bool step(std::span<const double> forces = {}, const std::function<bool()>& interrupt = {}) {
    return step(forces, interrupt, {});
  }

  /// Restores the scene's initial state — bodies, warm-start impulses, rest times, rods' sides —
  /// of the worlds whose `mask` entry is true (all when `mask` is empty; otherwise it has one entry
  /// per world), clears their failure, step count and last report. A wrong size throws.
  void reset(std::span<const std::uint8_t> mask = {});

  [[nodiscard]] std::size_t size() const { return worlds_.size(); }
  [[nodiscard]] std::size_t bodies() const { return scene_.world.bodies.size(); }
  /// The threads a step runs on (the constructor's, resolved and capped): the calling thread and
  /// threads() − 1 workers started with the VecWorld, which wait (blocked, not spinning) between
  /// steps and end with it.
  [[nodiscard]] unsigned threads() const { return threads_; }
  [[nodiscard]] const Scene& scene() const { return scene_; }
  /// World i as it is now (its bodies' applied forces are those of its last step).
  [[nodiscard]] const World& world(std::size_t i) const { return worlds_.at(i); }

  /// (worlds, bodies, 3): x, y, angle of every body.
  [[nodiscard]] std::span<const double> positions() const { return positions_; }
  /// (worlds, bodies, 3): vx, vy, ω of every body.
  [[nodiscard]] std::span<const double> velocities() const { return velocities_; }

  // The last step's report, one entry per world (a world that has not stepped since its reset, or
  // that failed in the last step, reads solved = 0, criterion = 0, contacts = 0, status NotRun).
  /// 1 when the step's problem ended `Status::Solved` (or the step had no active contact).
  [[nodiscard]] std::span<const std::uint8_t> solved() const { return solved_; }
  /// The step's status (`StepReport::status`; NotRun for a world that did not step).
  [[nodiscard]] std::span<const Status> status() const { return status_; }
  /// The step's criterion: the relative residual of its solve (`Result::relative_residual`, the
  /// figure the options' tolerance bounds; for the Coulomb model the relative error of the
  /// frictional contact problem); 0 without active contacts.
  [[nodiscard]] std::span<const double> criterion() const { return criterion_; }
  /// Active contacts of the step (geometry at its start).
  [[nodiscard]] std::span<const std::int64_t> contacts() const { return contacts_; }
  /// (worlds, bodies): the active contacts each body took part in during the step.
  [[nodiscard]] std::span<const std::int64_t> body_contacts() const { return body_contacts_; }
  /// `StepReport::fallback` of world i's step ("" when none).
  [[nodiscard]] const std::string& fallback(std::size_t i) const { return fallback_.at(i); }
  /// Steps since the world's last reset (the construction counts as one).
  [[nodiscard]] std::span<const std::int64_t> steps() const { return steps_; }
  /// 1 for a world that failed (see `step`) and waits for its reset.
  [[nodiscard]] std::span<const std::uint8_t> failed() const { return failed_; }
  /// Why world i failed: "step K: <the exception's message>"; "" when it has not.
  [[nodiscard]] const std::string& message(std::size_t i) const { return messages_.at(i); }

 private:
  struct Workspace;
  void step_world(std::size_t i, std::span<const double> forces, std::span<const double> velocities,
                  Workspace& workspace);
  void clear_report(std::size_t i);
  void mirror_state(std::size_t i);

  class Pool;

  Scene scene_;
  /// The scene's options without what no VecWorld accessor reads: the solvers' per-iteration
  /// history and their timing (`SolveOptions::record_history`, `measure_time`), which change no
  /// impulse.
  MoreauJeanOptions step_options_;
  unsigned threads_ = 1;
  std::unique_ptr<Pool> pool_;
  /// One per thread: the step's work arrays and report, reused from world to world and step to step
  /// (a world's step on thread t uses workspaces_[t]; nothing in it outlives the world's step).
  std::vector<std::unique_ptr<Workspace>> workspaces_;
  std::vector<World> worlds_;
  std::vector<double> positions_, velocities_;
  std::vector<std::uint8_t> solved_, failed_;
  std::vector<Status> status_;
  std::vector<double> criterion_;
  std::vector<std::int64_t> contacts_, body_contacts_, steps_;
  std::vector<std::string> fallback_, messages_;
};

}  // namespace perp::contact
