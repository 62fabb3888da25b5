#pragma once
/// \file
/// What `perp simulate` writes for a 3D scene (issue 36, first slice): the planar run's CSVs
/// (io/simulation.hpp, whose `StagedFiles`, `csv_number` and `csv_field` it uses) with 3D columns,
/// and/or simulation.h5 (`kSimulationHdf5File`).
///   trajectory.csv  t, then per body NAME.x, .y, .z, .qw, .qx, .qy, .qz, .vx, .vy, .vz, .wx, .wy, .wz
///                   (the state at t; the first row is t = 0);
///   contacts.csv    t, body_a, body_b, feature, x, y, z, nx, ny, nz, gap, normal_impulse,
///                   tangent1_impulse, tangent2_impulse (each step's active contacts, geometry at its
///                   start t; body_b is a body's name, "ground" or the plane's name or "plane[p]");
///   energy.csv      t, kinetic, potential, total;
///   steps.csv       step, t, contacts, status, method, iterations, residual, signorini, coulomb,
///                   complementarity, dissipation, warm_started, solve_ms, step_ms.
/// No viewer page and no plot yet.

#include <functional>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact3d/scene.hpp"
#include "perp/core/status.hpp"
#include "perp/io/simulation.hpp"

namespace perp {

struct Simulation3dRecord {
  long steps = 0;
  /// Steps whose solve did not end `Solved`, and the first of them (−1: none) with its status.
  long unsolved = 0;
  long first_failure_step = -1;
  Status first_failure = Status::Solved;
  std::size_t most_contacts = 0;
  /// Deepest overlap of an active contact at the start of a step (m, >= 0).
  double max_penetration = 0;
  double step_ms = 0;
  double solve_ms = 0;
  contact::Energy initial_energy;
  double last_energy = 0;
  double last_time = 0;
};

/// Runs `scene` (validated first) on a copy of its world and writes into `files` (not committed)
/// what `options` asks (`every`, `contacts`, `format`, `progress(done, total)` after each step; the
/// 2D options `frame_capacity`, `frame_budget` play no part, `dump` is refused): the CSVs and/or
/// simulation.h5 with the layout of `kSimulationHdf5File` (3D fields). Throws `InvalidProblem` for
/// an invalid scene, an unwritable file, or a state that is no longer finite (naming the body and
/// the time).
Simulation3dRecord write_simulation3d(const contact3d::Scene& scene, StagedFiles& files,
                                      const SimulationOutputOptions& options);
/// The same writing the four CSVs, contacts.csv included, every step.
Simulation3dRecord write_simulation3d(const contact3d::Scene& scene, StagedFiles& files,
                                      const std::function<void(long, long)>& progress = {});

}  // namespace perp
