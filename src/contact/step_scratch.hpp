#pragma once
// Private to the contact layer (not installed): the work arrays of a planar Moreau–Jean step, kept
// by a caller that steps many times (a `VecWorld` keeps one per thread) so that a step of a small
// world reuses them instead of allocating them anew. Only storage: a step overwrites every entry
// it reads, so the results do not depend on what a scratch held before (the step with a fresh
// scratch and the step with a used one are the same computation, bit for bit).
// Also the writers of body.hpp's per-body vectors into a given vector, which body.cpp's own use.
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"
#include "perp/contact/moreau_jean.hpp"

namespace perp::contact {

/// `detect_contacts`' own arrays: which bodies are held (fixed or frozen).
struct DetectionScratch {
  std::vector<char> held;
};

/// `detect_contacts(world, margin, frozen)` written into `out` (cleared first), the same contacts in
/// the same order, its arrays taken from `scratch`. Throws as `detect_contacts` does.
void detect_contacts_into(const World& world, double margin, const std::vector<char>& frozen,
                          DetectionScratch& scratch, std::vector<Contact>& out);

/// `generalized_velocity(bodies)` and `inverse_mass_diagonal(bodies)` (body.hpp) written into `out`
/// (resized: no allocation when it has the size already).
void generalized_velocity_into(const std::vector<Body>& bodies, Eigen::VectorXd& out);
void inverse_mass_diagonal_into(const std::vector<Body>& bodies, Eigen::VectorXd& out);

/// The step's arrays (moreau_jean.cpp, `advance_from`): the velocities (3 per body), M⁻¹'s
/// diagonal, the contacts detection found and the pairs that carried a load.
struct StepScratch {
  Eigen::VectorXd velocity, inverse_mass, start_velocity, free_velocity, next_velocity;
  std::vector<Contact> detected;
  std::vector<std::pair<int, int>> loaded;
  DetectionScratch detection;
};

/// `advance_unchecked(world, options)` (advance.hpp) with its work arrays from `scratch` and its
/// report written into `report` (every field set as a fresh `StepReport` would have it; the
/// storage of its contact list and impulse vectors reused).
void advance_unchecked(World& world, const MoreauJeanOptions& options, StepScratch& scratch, StepReport& report);

}  // namespace perp::contact
