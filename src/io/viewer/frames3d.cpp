// The 3D viewer's frames (io/simulation3d.hpp, `Frame3dSampler`): a run's states, evenly spaced
// within a budget of numbers.
#include <algorithm>
#include <utility>

#include "perp/io/simulation3d.hpp"

namespace perp {
namespace {

/// What a frame holds, in numbers: its step, time and energies, 7 a body, 8 a contact, 1 a body asleep.
std::size_t frame_numbers(const Simulation3dFrame& frame) {
  return 4 + frame.pose.size() + 8 * frame.contacts.size() + frame.asleep.size();
}

}  // namespace

Frame3dSampler::Frame3dSampler(Simulation3dRecord& record, long steps, const contact3d::World& world,
                               const Eigen::Vector3d& gravity, std::size_t budget)
    : record_(record), steps_(std::max(0L, steps)), gravity_(gravity), budget_(budget) {
  record_.frame_stride = std::max(1L, (steps_ + static_cast<long>(kFrame3dCount)) / static_cast<long>(kFrame3dCount));
  record_.frames.clear();
  record_.frames.push_back(frame(0, 0, world));
  numbers_ = frame_numbers(record_.frames.back());
}

Simulation3dFrame Frame3dSampler::frame(long step, double t, const contact3d::World& world) const {
  Simulation3dFrame f{.step = step, .t = t, .pose = {}, .kinetic = 0, .potential = 0, .contacts = {}};
  f.pose.reserve(7 * world.bodies.size());
  for (const contact3d::Body& body : world.bodies) {
    const Eigen::Quaterniond& q = body.orientation;
    for (const double value : {body.position.x(), body.position.y(), body.position.z(), q.w(), q.x(), q.y(), q.z()}) {
      f.pose.push_back(value);
    }
  }
  const contact::Energy e = contact3d::energy(world, gravity_);
  f.kinetic = e.kinetic;
  f.potential = e.potential;
  return f;
}

void Frame3dSampler::add(long step, double t, const contact3d::World& world, const contact3d::StepReport& report) {
  std::vector<Simulation3dFrame>& frames = record_.frames;
  long& stride = record_.frame_stride;
  const bool on_stride = step % stride == 0;
  if (!on_stride && step != steps_) return;
  Simulation3dFrame f = frame(step, t, world);
  f.contacts.reserve(report.contacts.size());
  for (std::size_t i = 0; i < report.contacts.size(); ++i) {
    const contact3d::Contact& c = report.contacts[i];
    const auto at = 3 * static_cast<Eigen::Index>(i);
    const Eigen::Vector3d impulse =
        report.impulses[at] * c.normal + report.impulses[at + 1] * c.tangent1 + report.impulses[at + 2] * c.tangent2;
    f.contacts.push_back({c.body_a, c.body_b, c.point, impulse});
  }
  f.asleep = report.asleep;
  if (!on_stride) {  // the last step, off the stride: kept past the budget
    frames.push_back(std::move(f));
    return;
  }
  numbers_ += frame_numbers(f);
  frames.push_back(std::move(f));
  while (numbers_ > budget_ && frames.size() > 2) {
    stride *= 2;
    std::size_t kept = 0;
    numbers_ = 0;
    for (Simulation3dFrame& kept_frame : frames) {
      if (kept_frame.step % stride != 0) continue;
      numbers_ += frame_numbers(kept_frame);
      if (&frames[kept] != &kept_frame) frames[kept] = std::move(kept_frame);  // no self-move
      ++kept;
    }
    frames.resize(kept);
  }
}

}  // namespace perp
