#pragma once
// Private to the contact layer (not installed): what a step's derivative (step_sensitivity.cpp) and a
// rollout's (rollout.cpp) both check of the vectors they are given.
#include <Eigen/Dense>
#include <string>

#include "perp/core/error.hpp"

namespace perp::contact::detail {

/// `x`, or n zeros when it is empty; throws `InvalidProblem` ("StepSensitivity: FIELD …") when its
/// size is neither 0 nor n or an entry is not finite.
inline Eigen::VectorXd or_zero(const Eigen::VectorXd& x, Eigen::Index n, const char* field) {
  if (x.size() == 0) return Eigen::VectorXd::Zero(n);
  if (x.size() != n) {
    throw InvalidProblem("StepSensitivity: " + std::string(field) + " has " + std::to_string(x.size()) +
                         " entries, expected " + std::to_string(n) + " (or none for zero)");
  }
  if (!x.allFinite()) throw InvalidProblem("StepSensitivity: " + std::string(field) + " has a non-finite entry");
  return x;
}

}  // namespace perp::contact::detail
