#pragma once
/// \file
/// Running a scene and writing what it did: the CSVs of `perp simulate` (trajectory, contacts,
/// energy, steps), the energy bookkeeping, and a decimated record of the run kept in memory for
/// plots and the viewer (io/viewer.hpp).
///
/// Files are written under temporary names in the output folder and renamed over the final ones
/// together by `StagedFiles::commit`, once the whole run (and whatever the caller adds: a plot,
/// the viewer page) has succeeded: a run that fails part-way leaves the previous run's files as
/// they were, never a mix of two runs.

#include <array>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "perp/contact/moreau_jean.hpp"
#include "perp/contact/scene.hpp"
#include "perp/core/status.hpp"

namespace perp {

/// The names `perp simulate` writes into --out: the CSVs, plot.png or plot.svg, view.html.
[[nodiscard]] std::vector<std::string> simulation_output_names();

/// A folder of results written as a whole: the files go into a sibling temporary folder
/// (".NAME.partial-PID" beside NAME), and `commit` swaps it in for `dir` by one rename of the
/// folder (an atomic exchange where the file system has one), then removes the earlier results.
/// Until then `dir` is untouched; a run that fails or stops leaves it as it was, never a mix of two
/// runs, and the destructor removes the temporary folder. Since the whole folder is replaced, an
/// existing `dir` may hold only regular files named in `replaceable` (an earlier run's results):
/// anything else there is refused before any work, with its name.
class StagedFiles {
 public:
  /// Creates the temporary folder (and `dir`'s parents when missing); throws `InvalidProblem`
  /// when it cannot, when `dir` is not a folder, or holds what the swap would remove.
  explicit StagedFiles(std::filesystem::path dir, std::vector<std::string> replaceable = simulation_output_names());
  /// The same with the earlier results told by name (`is_step_dump_name` for `perp simulate --dump`).
  StagedFiles(std::filesystem::path dir, std::function<bool(const std::string&)> replaceable);
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();

  /// The temporary path under which final file `name` is to be written; registers `name`.
  [[nodiscard]] std::filesystem::path temporary(const std::string& name);
  /// Swaps the temporary folder in for `dir`; throws `InvalidProblem` (naming the folder and the
  /// system's reason) when it cannot, `dir` then as it was.
  void commit();
  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  /// The temporary folder the files are written into until `commit`.
  [[nodiscard]] const std::filesystem::path& staging() const { return staging_; }
  /// The final names registered so far, in order.
  [[nodiscard]] const std::vector<std::string>& names() const { return names_; }

 private:
  void check_replaceable() const;
  std::filesystem::path dir_;
  std::filesystem::path staging_;
  std::function<bool(const std::string&)> replaceable_;
  std::vector<std::string> names_;
};

/// The file `perp simulate --dump` writes for step k (0-based, as steps.csv's `step`): "step-00012.hdf5"
/// (five digits at least).
[[nodiscard]] std::string step_dump_name(long step);
/// Whether `name` is such a file's name ("step-" then digits then ".hdf5").
[[nodiscard]] bool is_step_dump_name(const std::string& name);

/// Writes a step's frictional contact problem (`StepReport::problem`, kept by
/// `MoreauJeanOptions::keep_problem`) as an fclib file, so that `perp solve FILE` replays it: the
/// global form (`contact::global_problem`: M, H, q = 0, b, in the velocity change of the moving
/// bodies) where the step solved it there (`StepProblem::global`), the local form (W = H M⁻¹ Hᵀ, q, μ)
/// otherwise. The step's returned impulses r, with u (and v for the global form) recomputed from
/// them, are stored as fclib's solution where the step solved Coulomb's law (status solved, no
/// fallback), as its one guess otherwise; the title names the step and time `t` (its start), the
/// description its status, method, relative error and fallback. Throws `InvalidProblem` when the
/// report holds no problem or the file cannot be written.
void write_step_fclib(const std::filesystem::path& path, const contact::StepReport& report, long step, double t);

/// A contact as the viewer draws it: where it acts and the impulse it carries there,
/// P = λ_N n + λ_T t (N·s, world frame).
struct FrameContact {
  double x = 0;
  double y = 0;
  double impulse_x = 0;
  double impulse_y = 0;
};

/// One recorded state of the run: the time, each body's (x, y, angle) in `state` (3 per body),
/// the energies, the contacts of the step that led to it, and the deepest overlap among them
/// (min gap, 0 when none overlaps; negative: penetration).
struct SimulationFrame {
  long step = 0;
  double t = 0;
  std::vector<double> state;
  double kinetic = 0;
  double potential = 0;
  std::vector<FrameContact> contacts;
  double deepest_overlap = 0;
};

/// What `perp simulate --format` writes: the CSVs (the default), simulation.h5, or both.
enum class SimulationFormat { Csv, Hdf5, Both };
/// "csv", "hdf5" or "both"; throws `InvalidProblem` ("--format xyz: expected csv, hdf5 or both").
[[nodiscard]] SimulationFormat simulation_format_from_name(const std::string& name);

/// The binary output's file name: "simulation.h5". Its layout (io/hdf5.hpp writes it):
///   root attributes  format = "perp simulation", dimension (2 or 3), timestep (s), every (K);
///   trajectory/t     (n) the recorded times, as trajectory.csv's t;
///   trajectory/state (n, bodies, fields) each body's state at those times (2D fields: x, y, angle,
///                    vx, vy, omega; 3D: x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz);
///   trajectory/bodies, trajectory/fields  their names;
///   energy/COLUMN    (n) energy.csv's columns;
///   steps/COLUMN     (steps) steps.csv's columns (status, method, fallback as text);
///   contacts/COLUMN  (rows) contacts.csv's columns, only with `contacts`: body_a and body_b are
///                    indices into contacts/surfaces (the bodies, then "ground", then the planes).
inline constexpr const char* kSimulationHdf5File = "simulation.h5";

struct SimulationOutputOptions {
  /// Record every `every`-th step in trajectory and energy (>= 1; `perp simulate --every K`): the
  /// states at steps 0, K, 2K, … and at the last step. steps.csv keeps one row for every step.
  long every = 1;
  /// Write contacts.csv (or the contacts group): each step's active contacts. Off by default: it is
  /// by far the largest output (57 MB of the 210-box pyramid's 10 s).
  bool contacts = false;
  /// The CSVs, simulation.h5 (`kSimulationHdf5File`), or both.
  SimulationFormat format = SimulationFormat::Csv;
  /// Frames kept in memory (for the plot and the viewer): when more than 2·frame_capacity would be
  /// kept, every other one is dropped and the stride doubles, so the kept frames stay evenly
  /// spaced (every stride-th step) and memory stays bounded. 0 = from `frame_budget`.
  std::size_t frame_capacity = 0;
  /// With `frame_capacity` 0: the capacity is frame_budget / (15 · bodies), clamped to [50, 2000]
  /// (a frame holds 3 numbers a body and about 4 numbers for each of ~3 contacts a body).
  std::size_t frame_budget = 600'000;
  /// Called after every step with (steps done, total steps); may be empty.
  std::function<void(long, long)> progress;
  /// `perp simulate --dump DIR`: where each step whose frictional contact problem was not solved
  /// (status not solved, or a fallback taken) is written as an fclib file (`write_step_fclib`,
  /// named `step_dump_name`); null (default): nothing is kept or written, the steps run as without.
  /// Only the Coulomb model on a frictional contact method poses that problem: another model or
  /// method is refused (`InvalidProblem`) before the first step.
  StagedFiles* dump = nullptr;
  /// With `dump`: also every k-th step (steps 0, k, 2k, …; k >= 0, 0 = none), solved or not.
  long dump_every = 0;
  /// With `dump`: at most this many files (>= 1); the steps past it are counted in
  /// `SimulationRecord::dumps_left_out`, not written. Default 1000.
  long dump_limit = 1000;
};

/// What a run did, with its decimated frames.
/// What the solver did over a span of consecutive steps (one step, until a long run merges
/// neighbours): the worst of each of steps.csv's columns over the span, so that a plot of these
/// shows every step's peak (the largest iterations of the run equals steps.csv's largest).
struct StepSample {
  long first_step = 0;     ///< the span's first step (steps.csv's `step`)
  double t = 0;            ///< the time at the end of the span's last step (s)
  std::size_t contacts = 0;  ///< the most active contacts of a step in the span
  int iterations = 0;        ///< the most iterations of a step's solve
  double residual = 0;     ///< the largest `residual` (the solver's criterion; 0 without a solve)
  double solve_ms = 0;     ///< the slowest solve (ms)
  double step_ms = 0;      ///< the slowest step (ms)
};

struct SimulationRecord {
  /// Kept frames, the first at t = 0, then every `frame_stride`-th step (a multiple of
  /// `SimulationOutputOptions::every`; the last step is always kept). Each frame's time equals a
  /// row of trajectory.csv.
  std::vector<SimulationFrame> frames;
  long frame_stride = 1;
  /// `SimulationOutputOptions::every`: the trajectory's rows are every `every`-th step.
  long every = 1;
  long steps = 0;
  std::size_t most_contacts = 0;
  contact::Energy initial_energy;
  double last_time = 0;
  double last_energy = 0;
  /// The deepest overlap of any step (min gap, ≤ 0) and the step where it was seen.
  double deepest_overlap = 0;
  long deepest_overlap_step = -1;
  double solve_ms = 0;
  double step_ms = 0;
  /// The slowest step's wall-clock time (ms) and its index: the mean alone hides steps of seconds.
  double slowest_step_ms = 0;
  long slowest_step = -1;
  long unsolved = 0;
  /// Steps by the method that produced their impulses ("none" for steps without contacts), and
  /// the steps whose chosen method failed and that `auto` finished (`StepReport::fallback`).
  std::map<std::string, long> steps_by_method;
  long fallbacks = 0;
  /// The most iterations one step's solve took.
  int most_iterations = 0;
  long first_failure_step = -1;
  Status first_failure = Status::Solved;
  /// With `SimulationOutputOptions::dump`: the fclib files written, the steps that were to be
  /// written past `dump_limit`, and the first of those (-1: none).
  long dumped = 0;
  long dumps_left_out = 0;
  long first_left_out = -1;
  /// One sample per step, in order, while the run has at most 2 · `kStepSampleCapacity` steps;
  /// beyond, neighbours are merged in pairs (their worst kept) and `step_span` doubles, so the
  /// samples stay evenly spaced and at most 2 · kStepSampleCapacity (56 bytes each).
  std::vector<StepSample> step_samples;
  long step_span = 1;
  static constexpr std::size_t kStepSampleCapacity = 4000;
  /// Whether frames were dropped (steps + 1 > frames.size()).
  [[nodiscard]] bool decimated() const { return static_cast<std::size_t>(steps + 1) > frames.size(); }
};

/// The CSV files `write_simulation` stages, in order.
inline constexpr std::array<const char*, 4> kSimulationCsvFiles = {"trajectory.csv", "contacts.csv", "energy.csv",
                                                                   "steps.csv"};

/// Runs `scene` (validated first) and writes trajectory.csv (t and x, y, angle, vx, vy, omega of
/// every body, every `options.every`-th step), contacts.csv with `options.contacts` (each active
/// contact of each step: bodies, point, gap, impulses), energy.csv (kinetic, potential, total, and
/// dissipated = initial total − total, at the trajectory's times) and steps.csv (each step's status,
/// method, iterations, residual, criteria, timings) into `files` (not committed), as CSVs and/or
/// simulation.h5 (`options.format`). Refuses (`InvalidProblem`) a run whose CSVs would not fit on the disk, a world of
/// overlapping bodies beyond detection's limit, and any non-finite number about to be written
/// (naming the body, the quantity and the time). Numbers are written with 12 significant digits.
SimulationRecord write_simulation(const contact::Scene& scene, StagedFiles& files,
                                  const SimulationOutputOptions& options = {});

/// A number as the CSVs write it: 12 significant digits, −0 as 0.
[[nodiscard]] std::string csv_number(double value);
/// A CSV field per RFC 4180: quoted, with its quotes doubled, when it holds a comma, a quote or a
/// line break; a field starting with =, +, -, @, a tab or a carriage return (a formula to a
/// spreadsheet) is prefixed with an apostrophe first.
[[nodiscard]] std::string csv_field(const std::string& text);

}  // namespace perp
