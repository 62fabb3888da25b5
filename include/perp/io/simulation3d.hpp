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
/// The run's states are also kept in memory, decimated (`Simulation3dRecord::frames`), for the
/// viewer page (io/viewer3d.hpp).

#include <filesystem>
#include <functional>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact3d/moreau_jean.hpp"
#include "perp/contact3d/scene.hpp"
#include "perp/core/status.hpp"
#include "perp/io/simulation.hpp"

namespace perp {

/// A contact as the 3D viewer draws it: the two sides (body indices; `contact3d::kGround` or
/// −2 − p for plane p on side b), the point on body a and the impulse there,
/// P = Λ_N n + Λ_T1 t1 + Λ_T2 t2 (N·s, world frame).
struct Frame3dContact {
  int body_a = 0;
  int body_b = contact3d::kGround;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  Eigen::Vector3d impulse = Eigen::Vector3d::Zero();
};

/// One kept state: the step that led to it (0: the initial state), its time, each body's pose
/// (x, y, z, qw, qx, qy, qz: 7 numbers a body), the energies, and that step's active contacts.
struct Simulation3dFrame {
  long step = 0;
  double t = 0;
  std::vector<double> pose;
  double kinetic = 0;
  double potential = 0;
  std::vector<Frame3dContact> contacts;
  /// The bodies asleep during the step that led to the frame (indices; with the scene's sleeping).
  std::vector<int> asleep;
};

/// The frames keep at most this many numbers (7 a body, 8 a contact, 4 more a frame; about 30 MB
/// of viewer page), and at most `kFrame3dCount` frames.
inline constexpr std::size_t kFrame3dBudget = 4'000'000;
inline constexpr std::size_t kFrame3dCount = 2000;

struct Simulation3dRecord {
  /// The kept frames (`Frame3dSampler`): t = 0, every `frame_stride`-th step, and the last step.
  std::vector<Simulation3dFrame> frames;
  long frame_stride = 1;
  long steps = 0;
  /// `SimulationOutputOptions::every`: trajectory.csv's rows are every `every`-th step (and the last).
  long every = 1;
  /// Steps whose solve did not end `Solved`, and the first of them (−1: none) with its status.
  long unsolved = 0;
  /// Steps whose report names a fallback (auto's chain unsolved, the packed-step chain's impulses
  /// taken; steps.csv's `fallback` column says which).
  long fallbacks = 0;
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
  /// With `SimulationOutputOptions::dump`: the step files written, the steps past `dump_limit` left
  /// out and the first of them (−1: none), as in 2D.
  long dumped = 0;
  long dumps_left_out = 0;
  long first_left_out = -1;

  /// Whether states were left out of `frames` (steps + 1 > frames.size()).
  [[nodiscard]] bool decimated() const { return static_cast<std::size_t>(steps + 1) > frames.size(); }
};

/// Keeps a run's states in `Simulation3dRecord::frames` for the viewer, evenly spaced and within a
/// budget: every stride-th step and the last, the stride starting at ⌈(steps + 1) / kFrame3dCount⌉
/// and doubling, every other kept frame dropped (frame 0 stays), whenever the kept frames pass
/// `budget` numbers (a pile's contacts outnumber its bodies). Each halving is one pass over the
/// kept frames: at most log2(steps) of them in a run. Energies are computed for kept frames only.
class Frame3dSampler {
 public:
  /// Writes into `record` (its `frames` and `frame_stride`, kept up to date after every `add`) for
  /// a run of `steps` steps (>= 0) from `world` (frame 0, t = 0) under `gravity`.
  Frame3dSampler(Simulation3dRecord& record, long steps, const contact3d::World& world, const Eigen::Vector3d& gravity,
                 std::size_t budget = kFrame3dBudget);
  /// After step `step` (1 to steps: the state it reached, at time t), with that step's report.
  void add(long step, double t, const contact3d::World& world, const contact3d::StepReport& report);

 private:
  [[nodiscard]] Simulation3dFrame frame(long step, double t, const contact3d::World& world) const;

  Simulation3dRecord& record_;
  long steps_;
  Eigen::Vector3d gravity_;
  std::size_t budget_;
  std::size_t numbers_ = 0;
};

/// A 3D step's kept problem (`contact3d::StepOptions::keep_problem`) as an fclib file, as the planar
/// `write_step_fclib` writes it: the local form (W = H M⁻¹ Hᵀ formed, H in each body's principal
/// axes), the step's impulses as the solution where it solved Coulomb's law, else as a guess.
void write_step_fclib(const std::filesystem::path& path, const contact3d::StepReport& report, long step, double t);

/// Runs `scene` (validated first) on a copy of its world and writes into `files` (not committed)
/// what `options` asks (`every`, `contacts`, `format`, `progress(done, total)` after each step; the
/// 2D options `frame_capacity`, `frame_budget` play no part): the CSVs and/or simulation.h5 with
/// the layout of `kSimulationHdf5File` (3D fields); with `dump`, the steps' frictional contact
/// problems as in 2D (`write_step_fclib`; the Coulomb model only). Throws `InvalidProblem` for an
/// invalid scene, `dump` on a scene of another model, an unwritable file, or a state that is no
/// longer finite (naming the body and the time).
Simulation3dRecord write_simulation3d(const contact3d::Scene& scene, StagedFiles& files,
                                      const SimulationOutputOptions& options);
/// The same writing the four CSVs, contacts.csv included, every step.
Simulation3dRecord write_simulation3d(const contact3d::Scene& scene, StagedFiles& files,
                                      const std::function<void(long, long)>& progress = {});

}  // namespace perp
