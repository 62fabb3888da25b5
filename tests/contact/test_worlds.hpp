#pragma once
// Small worlds shared by the contact tests.
#include <string>

#include "perp/contact/body.hpp"
#include "perp/core/error.hpp"

namespace perp::contact::test {

inline Body disk(const std::string& name, double radius, double mass, Eigen::Vector2d position) {
  Body body;
  body.name = name;
  body.shape = Disk{radius};
  body.mass = mass;
  body.position = position;
  return body;
}

inline Body box(const std::string& name, double width, double height, double mass, Eigen::Vector2d position,
                double angle = 0) {
  Body body;
  body.name = name;
  body.shape = Box{width, height};
  body.mass = mass;
  body.position = position;
  body.angle = angle;
  return body;
}

inline Body rod(const std::string& name, double length, double mass, Eigen::Vector2d position, double angle) {
  Body body;
  body.name = name;
  body.shape = Rod{length};
  body.mass = mass;
  body.position = position;
  body.angle = angle;
  return body;
}

/// The block of [chapter] §1.2: m = 1, I = 1/12, width L = 1, resting on the ground (height 0.5).
inline World chapter_block() {
  World world;
  Body block = box("block", 1.0, 0.5, 1.0, {0.0, 0.25});
  block.inertia = 1.0 / 12;
  world.bodies.push_back(block);
  world.ground = Ground{0.0};
  return world;
}

/// `count` disks of radius 0.25 (mass π/16) in rows of 6, dropped between two walls on the ground:
/// a small twin of bench/compare_box2d's disk heaps. At rest the heap is packed (more contacts
/// than degrees of freedom).
inline World disk_heap_between_walls(int count) {
  World world;
  for (int k = 0; k < count; ++k) {
    const int row = k / 6;
    const int column = k % 6;
    const double x = 0.55 * column + (row % 2 == 0 ? 0.0 : 0.1) - 1.65;
    world.bodies.push_back(disk("d" + std::to_string(k), 0.25, 3.14159265358979323846 * 0.0625, {x, 0.3 + 0.55 * row}));
  }
  world.ground = Ground{0};
  Plane left;
  left.point = {-2.05, 0};
  left.normal = {1, 0};
  Plane right;
  right.point = {2.15, 0};
  right.normal = {-1, 0};
  world.planes = {left, right};
  return world;
}

/// The message of the `InvalidProblem` that `call()` throws, or "" when it throws none.
inline std::string refusal(const auto& call) {
  try {
    call();
  } catch (const InvalidProblem& e) {
    return e.what();
  }
  return {};
}

}  // namespace perp::contact::test
