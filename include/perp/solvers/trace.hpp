#pragma once
/// \file
/// What `SolveOptions::trace` receives: one `TraceEvent` per iteration of a method (its kind, the
/// pivot's variables, the active set's changes, the residual), and the event's fields by name —
/// what `perp solve --trace --json` writes and what the Python module's trace callback receives,
/// listed once.

#include <Eigen/Core>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perp {

/// What one iteration of a method was (`TraceEvent::kind`); the fields each kind fills are listed
/// at `TraceEvent`.
enum class TraceKind {
  Pivot,           ///< lemke: one complementary pivot of the augmented system w = M z + q + d z0
  PrincipalPivot,  ///< murty, dantzig: one index changes set; block-pivoting: one round (one or more indices)
  Sweep,           ///< pgs, psor: one Gauss–Seidel sweep (iteration 0: the start point)
  NewtonStep,      ///< newton-fb, newton-min, penalized-fb, smoothing: one accepted step (0: the start)
  InteriorStep,    ///< interior-point: one step of the path-following iteration (0: the start)
};

/// "pivot", "principal-pivot", "sweep", "newton-step", "interior-step" (the CLI's and JSON's names).
[[nodiscard]] std::string to_string(TraceKind kind);

/// A variable of Lemke's augmented system w = M z + q + d z0.
struct PivotVariable {
  enum class Kind : unsigned char { W, Z, Z0 };
  Kind kind = Kind::W;
  /// The 0-based component for w and z; 0 for the artificial z0.
  Eigen::Index index = 0;
  friend bool operator==(const PivotVariable&, const PivotVariable&) = default;
};

/// The name of a pivot variable in [chapter] §1.4, 1-based as its tableaux write it: w_0 is "w1",
/// z_{n−1} is "zn", and "z0" is the artificial variable only.
[[nodiscard]] std::string to_string(const PivotVariable& variable);

/// One iteration of a method, handed to `SolveOptions::trace` (issue 17). The fields a kind does not
/// fill stay empty (`std::nullopt`, empty vectors). Indices are 0-based. Values are those of the problem
/// the kernel runs on: an LCP whose data lie outside [2^-64, 2^64] is solved at unit scale (solve.cpp),
/// and its trace reports that problem.
///
/// - `Pivot` (lemke): `entering`, `leaving`, `ratio` (the value `entering` takes: the minimum of the
///   ratio test; for the first pivot, where z0 enters, the maximum of −q_i/d_i), `ratios` (the ratio
///   test by row of the basis, +inf where the row is not a candidate; first pivot: −q_i/d_i), `basis`
///   and `values` (the basic variables and their values by row after the pivot), `z0` after the pivot,
///   `residual` (natural residual of the z read from the basis).
/// - `PrincipalPivot`: murty: `entered` or `left` holds the index that changed set (α = {i : z_i basic}),
///   `residual` after; dantzig: `driving` (the index being driven), `entered`/`left` the index that
///   joined or left the clamped set C (w_i = 0, z_i between its bounds), or neither when the driving
///   index reached a bound, `step` (how far z_driving moved).
/// - `PrincipalPivot` of block-pivoting (the method; auto's first try at n <= 16 and its route on a
///   symmetric M, n > 40): one round's point, `entered`/`left` the indices that crossed to reach it
///   (the first lists its whole set), `active_size`, `residual`.
/// - `Sweep` (pgs, psor on an `Lcp`; the box LCP's and MLCP's sweeps do not trace): `residual`
///   (natural residual of the sweep's z, with w recomputed as M z + q), `entered` and `left` (indices
///   whose z_i became positive / became 0 in this sweep; iteration 0 lists the start point's positive
///   z_i as entered), `active_size` = #{i : z_i > 0}.
/// - `NewtonStep`: `merit` (Ψ = ½‖Φ‖², Φ the FB-type function of the line search, at the new point),
///   `step` (the accepted step length t), `direction` ("newton", "levenberg-marquardt" or "gradient"),
///   `residual` after the step, `entered`/`left` the changes of the active set {i : l_i < z_i − F_i < u_i}
///   (for an LCP {i : z_i > F_i}; iteration 0 lists the start's set as entered), `active_size`, `kinks`
///   (the rows at the nonsmooth point of Φ where the step was computed: an FB pair at (0, 0), a min-map tie
///   z_i − F_i = l_i or u_i).
/// - `InteriorStep`: `residual`, `step` (the fraction of the Newton step taken), `mu` (the duality
///   measure zᵀw/n after the step), `entered`/`left` and `active_size` for {i : z_i > w_i}.
struct TraceEvent {
  /// The method's name as `to_string(Method)` writes it ("lemke", "pgs", …); auto traces each method
  /// it runs under that method's name, its block principal pivoting as "block-pivoting".
  const char* method = "";
  TraceKind kind = TraceKind::Pivot;
  /// Pivots, sweeps or steps so far (1 for the first); 0 for an iterative method's start point.
  int iteration = 0;

  std::optional<PivotVariable> entering;  ///< lemke
  std::optional<PivotVariable> leaving;   ///< lemke
  std::optional<double> ratio;            ///< lemke: the value the entering variable takes
  std::optional<double> z0;               ///< lemke: z0 after the pivot (0 once it has left)
  std::vector<PivotVariable> basis;       ///< lemke: the basis after the pivot, by row
  std::vector<double> values;             ///< lemke: the basic values after the pivot, by row
  std::vector<double> ratios;             ///< lemke: the ratio test by row (+inf: not a candidate)

  std::optional<Eigen::Index> driving;      ///< dantzig: the index being driven
  std::vector<Eigen::Index> entered;        ///< indices that joined the method's active set
  std::vector<Eigen::Index> left;           ///< indices that left it
  std::optional<Eigen::Index> active_size;  ///< the size of the active set after the iteration
  std::vector<Eigen::Index> kinks;          ///< Newton: rows at Φ's kink where the step was computed

  std::optional<double> residual;   ///< natural residual after the iteration
  std::optional<double> merit;      ///< Newton: Ψ at the new point
  std::optional<double> step;       ///< Newton: step length t; dantzig: |Δz_driving|; interior point
  std::optional<double> mu;         ///< interior point: zᵀw / n
  const char* direction = nullptr;  ///< Newton: "newton", "levenberg-marquardt" or "gradient"
};

/// Called once per iteration with what the iteration did; see `TraceEvent`.
using TraceCallback = std::function<void(const TraceEvent&)>;


/// Calls `field(key, value)` for each field `event` carries, in the order and under the keys of
/// `perp solve --trace --json` (docs/cli.md): the one list behind the CLI's JSON object and the
/// Python module's dict. Values are `std::string` (method, kind, entering, leaving, direction),
/// `int` (iteration), `Eigen::Index` (driving, active_size), `double`, `std::vector<double>`,
/// `std::vector<Eigen::Index>` (entered, left, kinks) and `std::vector<std::string>` (basis).
/// `entered`/`left` are present for every kind but pivots, `kinks` for every Newton step.
template <class Field>
void for_each_field(const TraceEvent& event, Field&& field) {
  field("method", std::string(event.method));
  field("kind", to_string(event.kind));
  field("iteration", event.iteration);
  if (event.entering) field("entering", to_string(*event.entering));
  if (event.leaving) field("leaving", to_string(*event.leaving));
  if (event.ratio) field("ratio", *event.ratio);
  if (event.z0) field("z0", *event.z0);
  if (!event.basis.empty()) {
    std::vector<std::string> basis;
    basis.reserve(event.basis.size());
    for (const PivotVariable& v : event.basis) basis.push_back(to_string(v));
    field("basis", basis);
  }
  if (!event.values.empty()) field("values", event.values);
  if (!event.ratios.empty()) field("ratios", event.ratios);
  if (event.driving) field("driving", *event.driving);
  if (event.kind != TraceKind::Pivot) {
    field("entered", event.entered);
    field("left", event.left);
  }
  if (event.active_size) field("active_size", *event.active_size);
  if (event.kind == TraceKind::NewtonStep) field("kinks", event.kinks);
  if (event.residual) field("residual", *event.residual);
  if (event.merit) field("merit", *event.merit);
  if (event.step) field("step", *event.step);
  if (event.mu) field("mu", *event.mu);
  if (event.direction != nullptr) field("direction", std::string(event.direction));
}

}  // namespace perp
