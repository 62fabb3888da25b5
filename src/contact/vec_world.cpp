#include "perp/contact/vec_world.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "advance.hpp"
#include "step_scratch.hpp"
#include "perp/core/error.hpp"

namespace perp::contact {

namespace {

constexpr const char* kComponent[3] = {"fx", "fy", "torque"};
constexpr const char* kVelocityComponent[3] = {"vx", "vy", "omega"};

/// The first non-finite coordinate of a body's state, as "body 'NAME' x = nan"; "" when all are finite.
std::string non_finite_state(const World& world) {
  for (const Body& b : world.bodies) {
    const double values[6] = {b.position.x(), b.position.y(), b.angle,
                              b.velocity.x(), b.velocity.y(), b.angular_velocity};
    constexpr const char* names[6] = {"x", "y", "angle", "vx", "vy", "omega"};
    for (int k = 0; k < 6; ++k) {
      if (!std::isfinite(values[k])) return "body '" + b.name + "' " + names[k] + " = " + number_text(values[k]);
    }
  }
  return {};
}

}  // namespace

/// threads − 1 workers kept for the VecWorld's life, so that a step does not start threads (a step
/// of 1 000 worlds in free flight takes ~1 ms, where starting and ending a thread costs ~0.1 ms and
/// the new thread's first allocations more). `run(task)` calls task(t) on worker t (1 … threads − 1)
/// and task(0) on the calling thread, and returns when all have returned.
class VecWorld::Pool {
 public:
  explicit Pool(unsigned threads) {
    workers_.reserve(threads - 1);
    try {
      for (unsigned t = 1; t < threads; ++t) workers_.emplace_back([this, t] { serve(t); });
    } catch (...) {
      stop();  // std::system_error: the workers already started end before it propagates
      throw;
    }
  }
  ~Pool() { stop(); }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void run(const std::function<void(unsigned)>& task) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      pending_ = workers_.size();
      ++round_;
      start_.notify_all();
    }
    task(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return pending_ == 0; });
    task_ = nullptr;
  }

 private:
  void stop() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
      start_.notify_all();
    }
    for (std::thread& worker : workers_) worker.join();
  }

  void serve(unsigned index) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      start_.wait(lock, [&] { return quit_ || round_ != seen; });
      if (quit_) return;
      seen = round_;
      const std::function<void(unsigned)>* task = task_;
      lock.unlock();
      (*task)(index);  // noexcept: a world's failure is caught inside
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(unsigned)>* task_ = nullptr;
  std::uint64_t round_ = 0;
  std::size_t pending_ = 0;
  bool quit_ = false;
  std::vector<std::thread> workers_;
};

/// A thread's step arrays (step_scratch.hpp) and the report its last world's step wrote.
struct VecWorld::Workspace {
  StepScratch scratch;
  StepReport report;
};

VecWorld::~VecWorld() = default;
VecWorld::VecWorld(VecWorld&&) noexcept = default;
VecWorld& VecWorld::operator=(VecWorld&&) noexcept = default;

VecWorld::VecWorld(Scene scene, std::size_t worlds, unsigned threads) : scene_(std::move(scene)) {
  if (worlds == 0) throw InvalidProblem("worlds: expected >= 1, got 0");
  scene_.validate();
  step_options_ = scene_.options;
  step_options_.solve.record_history = false;
  step_options_.solve.measure_time = false;
  const unsigned wanted = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  threads_ = static_cast<unsigned>(std::min<std::size_t>(wanted, worlds));
  const std::size_t nb = bodies();
  worlds_.assign(worlds, scene_.world);
  positions_.assign(worlds * nb * 3, 0.0);
  velocities_.assign(worlds * nb * 3, 0.0);
  solved_.assign(worlds, 0);
  failed_.assign(worlds, 0);
  status_.assign(worlds, Status::NotRun);
  criterion_.assign(worlds, 0.0);
  contacts_.assign(worlds, 0);
  body_contacts_.assign(worlds * nb, 0);
  steps_.assign(worlds, 0);
  fallback_.assign(worlds, std::string());
  messages_.assign(worlds, std::string());
  for (std::size_t i = 0; i < worlds; ++i) mirror_state(i);
  workspaces_.reserve(threads_);
  for (unsigned t = 0; t < threads_; ++t) workspaces_.push_back(std::make_unique<Workspace>());
  pool_ = std::make_unique<Pool>(threads_);
}

void VecWorld::mirror_state(std::size_t i) {
  const std::size_t nb = bodies();
  double* q = positions_.data() + i * nb * 3;
  double* v = velocities_.data() + i * nb * 3;
  for (const Body& b : worlds_[i].bodies) {
    *q++ = b.position.x();
    *q++ = b.position.y();
    *q++ = b.angle;
    *v++ = b.velocity.x();
    *v++ = b.velocity.y();
    *v++ = b.angular_velocity;
  }
}

void VecWorld::clear_report(std::size_t i) {
  solved_[i] = 0;
  status_[i] = Status::NotRun;
  criterion_[i] = 0;
  contacts_[i] = 0;
  std::fill_n(body_contacts_.begin() + static_cast<std::ptrdiff_t>(i * bodies()), bodies(), std::int64_t{0});
  fallback_[i].clear();
}

void VecWorld::reset(std::span<const std::uint8_t> mask) {
  if (!mask.empty() && mask.size() != size()) {
    throw InvalidProblem("mask: expected " + std::to_string(size()) + " entries (one per world), got " +
                         std::to_string(mask.size()));
  }
  for (std::size_t i = 0; i < size(); ++i) {
    if (!mask.empty() && mask[i] == 0) continue;
    worlds_[i] = scene_.world;
    failed_[i] = 0;
    messages_[i].clear();
    steps_[i] = 0;
    clear_report(i);
    mirror_state(i);
  }
}

void VecWorld::step_world(std::size_t i, std::span<const double> forces, std::span<const double> velocities,
                          Workspace& workspace) {
  World& world = worlds_[i];
  const std::size_t nb = bodies();
  clear_report(i);
  for (std::size_t b = 0; b < nb && !velocities.empty(); ++b) {
    const double* target = velocities.data() + (i * nb + b) * 3;
    Body& body = world.bodies[b];
    if (!std::isnan(target[0])) body.velocity.x() = target[0];
    if (!std::isnan(target[1])) body.velocity.y() = target[1];
    if (!std::isnan(target[2])) body.angular_velocity = target[2];
  }
  for (std::size_t b = 0; b < nb; ++b) {
    const Body& base = scene_.world.bodies[b];
    if (forces.empty()) {
      world.bodies[b].force = base.force;
      world.bodies[b].torque = base.torque;
    } else {
      const double* f = forces.data() + (i * nb + b) * 3;
      world.bodies[b].force = {f[0], f[1]};
      world.bodies[b].torque = f[2];
    }
  }
  std::string failure;
  try {
    // The scene was validated once, and the applied forces checked finite above: the step checks
    // only what it can change itself, the bodies' state (as `simulate` steps).
    StepReport& report = workspace.report;
    advance_unchecked(world, step_options_, workspace.scratch, report);
    status_[i] = report.status;
    solved_[i] = report.status == Status::Solved ? 1 : 0;
    criterion_[i] = report.ran_solve() ? report.result.relative_residual : 0.0;
    contacts_[i] = static_cast<std::int64_t>(report.contacts.size());
    std::int64_t* per_body = body_contacts_.data() + i * nb;
    for (const Contact& c : report.contacts) {
      if (c.body_a >= 0) ++per_body[c.body_a];
      if (c.body_b >= 0) ++per_body[c.body_b];
    }
    fallback_[i] = report.fallback;
    failure = non_finite_state(world);
    if (!failure.empty()) failure = "the step left " + failure;
  } catch (const std::bad_alloc&) {
    failure = "out of memory";
  } catch (const std::exception& error) {
    failure = error.what();
    if (failure.empty()) failure = "unknown error";
  } catch (...) {
    failure = "unknown error (an exception not derived from std::exception)";
  }
  ++steps_[i];
  if (!failure.empty()) {
    failed_[i] = 1;
    messages_[i] = "step " + std::to_string(steps_[i]) + ": " + failure;
    solved_[i] = 0;
  }
  mirror_state(i);
}

bool VecWorld::step(std::span<const double> forces, const std::function<bool()>& interrupt,
                    std::span<const double> velocities) {
  const std::size_t nb = bodies();
  if (!velocities.empty()) {
    if (velocities.size() != size() * nb * 3) {
      throw InvalidProblem("velocities: expected " + std::to_string(size()) + " × " + std::to_string(nb) +
                           " × 3 numbers (worlds, bodies, vx/vy/omega; NaN: not driven), got " +
                           std::to_string(velocities.size()));
    }
    for (std::size_t k = 0; k < velocities.size(); ++k) {
      if (std::isinf(velocities[k])) {
        const std::size_t i = k / (nb * 3), b = (k / 3) % nb;
        throw InvalidProblem("velocities[" + std::to_string(i) + ", " + std::to_string(b) + ", " +
                             std::to_string(k % 3) + "] (world " + std::to_string(i) + ", body '" +
                             scene_.world.bodies[b].name + "', " + kVelocityComponent[k % 3] + ") is " +
                             number_text(velocities[k]) + "; expected a finite number or NaN (not driven)");
      }
    }
  }
  if (!forces.empty()) {
    if (forces.size() != size() * nb * 3) {
      throw InvalidProblem("forces: expected " + std::to_string(size()) + " × " + std::to_string(nb) +
                           " × 3 numbers (worlds, bodies, fx/fy/torque), got " + std::to_string(forces.size()));
    }
    for (std::size_t k = 0; k < forces.size(); ++k) {
      if (!std::isfinite(forces[k])) {
        const std::size_t i = k / (nb * 3), b = (k / 3) % nb;
        throw InvalidProblem("forces[" + std::to_string(i) + ", " + std::to_string(b) + ", " + std::to_string(k % 3) +
                             "] (world " + std::to_string(i) + ", body '" + scene_.world.bodies[b].name + "', " +
                             kComponent[k % 3] + ") is " + number_text(forces[k]) + "; expected a finite number");
      }
    }
  }
  std::atomic<bool> stop{false};
  // Thread t owns the worlds [t N / T, (t + 1) N / T), the same at every step, and steps them in
  // order, so that a world's memory stays with one thread (its cache, its malloc arena: handing
  // worlds out in turn moved them between threads, and a world-step in free flight cost 1.9 µs of
  // CPU on 2 threads against 1.4 on 1; bench/README.md, "Vectorized worlds"). A thread done with its own block takes the worlds left in the others' blocks (each
  // block's cursor is atomic), so that a thread the machine does not schedule for a while does not
  // hold the step up. A world's results land in its own slots, so no lock is needed. Only the
  // calling thread (t = 0) asks `interrupt`.
  struct alignas(64) Block {
    std::atomic<std::size_t> next{0};
    std::size_t end = 0;
  };
  const std::unique_ptr<Block[]> blocks(new Block[threads_]);
  for (unsigned t = 0; t < threads_; ++t) {
    blocks[t].next = size() * t / threads_;
    blocks[t].end = size() * (t + 1) / threads_;
  }
  const auto work = [&](unsigned t, bool poll) noexcept {
    using Clock = std::chrono::steady_clock;
    constexpr auto kPollPeriod = std::chrono::milliseconds(50);
    auto polled = Clock::now() - kPollPeriod;  // asked before the first world
    for (unsigned k = 0; k < threads_; ++k) {
      Block& block = blocks[(t + k) % threads_];
      for (std::size_t i = block.next++; i < block.end; i = block.next++) {
        if (stop.load(std::memory_order_relaxed)) return;
        if (poll && Clock::now() - polled >= kPollPeriod) {
          polled = Clock::now();
          bool asked = false;
          try {
            asked = interrupt();
          } catch (...) {
            asked = true;
          }
          if (asked) {
            stop = true;
            return;
          }
        }
        if (failed_[i] == 0) step_world(i, forces, velocities, *workspaces_[t]);
      }
    }
  };
  const bool poll = static_cast<bool>(interrupt);
  pool_->run([&](unsigned t) { work(t, t == 0 && poll); });
  return !stop;
}

}  // namespace perp::contact
