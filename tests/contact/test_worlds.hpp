#pragma once
// Small worlds shared by the contact tests.
#include <string>

#include "perp/contact/body.hpp"

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

/// The chapter's §1.2 block: m = 1, I = 1/12, width L = 1, resting on the ground (height 0.5).
inline World chapter_block() {
  World world;
  Body block = box("block", 1.0, 0.5, 1.0, {0.0, 0.25});
  block.inertia = 1.0 / 12;
  world.bodies.push_back(block);
  world.ground = Ground{0.0};
  return world;
}

}  // namespace perp::contact::test
