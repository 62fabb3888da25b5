#include "friction_ipm.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "cone_ipm.hpp"
#include "entry/detail.hpp"
#include "friction/impulse/nsgs.hpp"
#include "perp/core/error.hpp"
#include "spd_factor.hpp"

namespace perp::detail {
namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using ColSparse = Eigen::SparseMatrix<double>;

/// The fraction of the distance to the boundary of s >= 0, λ >= 0 that a step may cover.
constexpr double kToBoundary = 0.995;
/// At the start, s and λ are pushed at least this fraction of their scale inside the orthant.
constexpr double kStartInside = 1e-2;
/// Mehrotra's centring σ = (μ_aff/μ)³, at most kCenteringCap: on the packed heaps (degenerate:
/// redundant rows) the affine step is short and σ stayed at 0.2–0.5 for most steps, the gap falling
/// 2–3× a step; the lower target, with Gondzio's correctors to keep the products centred, took 5–6 %
/// fewer steps on the 1 000- and 10 000-disk heaps (bench/README.md, "The interior point's centring
/// (stop 49)").
constexpr double kCenteringCap = 0.1;
/// The largest D_k times row k's diagonal of A M⁻¹ Aᵀ in the Newton matrix (its conditioning).
constexpr double kStiffnessCap = 1e16;
/// Gondzio's centrality correctors after the predictor-corrector direction: at most kCorrectors,
/// each aiming at the step min(1, kCorrectorReach α + kCorrectorExtra), pulling the products s_k λ_k
/// into [kCorrectorLow, kCorrectorHigh] times the centring target σμ, kept when the step grows to
/// at least kCorrectorGain α + kCorrectorGainExtra. On the 10 000-disk heap's packed steps (10 000
/// to 43 000 rows) they cut the interior-point steps by 20–35 % at one solve each (bench/README.md,
/// "Packed step, stop 39").
constexpr int kCorrectors = 3;
constexpr double kCorrectorReach = 1.5;
constexpr double kCorrectorExtra = 0.1;
constexpr double kCorrectorLow = 0.1;
constexpr double kCorrectorHigh = 10.0;
constexpr double kCorrectorGain = 1.01;
constexpr double kCorrectorGainExtra = 0.01;
/// The interior point stops where one step multiplies the error by more than kBlowUp once the best
/// error is below kBlowUpFrom (round-off in the Newton matrix near the end; bench/README.md,
/// "Packed step, stop 39").
constexpr double kBlowUp = 1e6;
constexpr double kBlowUpFrom = 1e-4;
/// The crossover: nsgs sweeps from the interior point's best point.
constexpr int kCrossoverSweeps = 1000;
// The shifts ε / max|W_ij| of W + εI tried in turn where W's own LDLᵀ breaks down
// (solve_friction_interior_point on a problem given by W).
constexpr std::array<double, 4> kFactorShifts{0.0, 1e-10, 1e-8, 1e-6};
/// The interior point stops when the error has not fallen below this fraction of its mark over a
/// window of steps: on a frictional problem (then the crossover), `kStallWindow` steps, where the
/// fixed point on the shift can drift away.
constexpr double kStallFactor = 0.5;
constexpr int kStallWindow = 15;

/// The largest α in (0, 1] with x + α dx >= 0, times kToBoundary when the boundary binds. A
/// component divides only where it shortens the step found so far (−dx_k α > kToBoundary x_k): the
/// division on every decreasing component had been 2 % of the 10 000-disk heap's time.
double step_to_boundary(const Eigen::VectorXd& x, const Eigen::VectorXd& dx) {
  double alpha = 1.0;
  const double* const xs = x.data();
  const double* const dxs = dx.data();
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    if (dxs[k] < 0 && -dxs[k] * alpha > kToBoundary * xs[k]) alpha = std::min(alpha, -kToBoundary * xs[k] / dxs[k]);
  }
  return alpha;
}

/// M + Aᵀ D A, its lower triangle on a pattern fixed once: where each product A_ka D_k A_kb of
/// row k lands in the value array is found at construction, so that a step only scatters.
class NewtonMatrix {
 public:
  explicit NewtonMatrix(const ConeProgram& program) : program_(program) {
    const Eigen::Index nf = program.mass.size();
    // Column j of the lower triangle: j and every dof i > j that shares a row of A with it, found
    // by a marker array and written sorted (no triplets to sort and merge: building the pattern that
    // way had been 4.6 % of the 1 000-disk heap's time, bench/README.md, "The interior point's
    // centring (stop 49)").
    const ColSparse by_column = program.A;  // column j: the rows of A that touch dof j
    std::vector<int> outer(static_cast<std::size_t>(nf) + 1, 0);
    RecycledVector<int> recycled_inner;
    std::vector<int>& inner = *recycled_inner;
    std::vector<Eigen::Index> mark(static_cast<std::size_t>(nf), -1);
    std::vector<int> column;
    for (Eigen::Index j = 0; j < nf; ++j) {
      column.assign(1, static_cast<int>(j));
      for (ColSparse::InnerIterator r(by_column, j); r; ++r) {
        for (RowSparse::InnerIterator a(program.A, r.row()); a; ++a) {
          Eigen::Index& seen = mark[static_cast<std::size_t>(a.col())];
          if (a.col() > j && seen != j) {
            seen = j;
            column.push_back(static_cast<int>(a.col()));
          }
        }
      }
      std::sort(column.begin(), column.end());
      inner.insert(inner.end(), column.begin(), column.end());
      outer[static_cast<std::size_t>(j) + 1] = static_cast<int>(inner.size());
    }
    RecycledVector<double> recycled_zeros;
    std::vector<double>& zeros = *recycled_zeros;
    zeros.assign(inner.size(), 0.0);
    matrix_ = Eigen::Map<ColSparse>(nf, nf, static_cast<Eigen::Index>(inner.size()), outer.data(), inner.data(),
                                    zeros.data());
    const auto at = [&](Eigen::Index row, Eigen::Index col) {
      const int* begin = matrix_.innerIndexPtr() + matrix_.outerIndexPtr()[col];
      const int* end = matrix_.innerIndexPtr() + matrix_.outerIndexPtr()[col + 1];
      return static_cast<Eigen::Index>(std::lower_bound(begin, end, static_cast<int>(row)) - matrix_.innerIndexPtr());
    };
    for (Eigen::Index j = 0; j < nf; ++j) diagonal_.push_back(at(j, j));
    for (Eigen::Index k = 0; k < program.A.outerSize(); ++k) {
      for (RowSparse::InnerIterator a(program.A, k); a; ++a) {
        for (RowSparse::InnerIterator b(program.A, k); b && b.col() <= a.col(); ++b) {
          position_->push_back(at(a.col(), b.col()));
        }
      }
    }
  }

  /// The matrix for the weights D (lower triangle only; the rest of the pattern is empty).
  const ColSparse& assemble(const Eigen::VectorXd& D) {
    double* values = matrix_.valuePtr();
    std::fill(values, values + matrix_.nonZeros(), 0.0);
    for (std::size_t j = 0; j < diagonal_.size(); ++j) values[diagonal_[j]] = program_.mass[static_cast<Eigen::Index>(j)];
    std::size_t next = 0;
    for (Eigen::Index k = 0; k < program_.A.outerSize(); ++k) {
      for (RowSparse::InnerIterator a(program_.A, k); a; ++a) {
        const double weighted = D[k] * a.value();
        for (RowSparse::InnerIterator b(program_.A, k); b && b.col() <= a.col(); ++b) {
          values[(*position_)[next++]] += weighted * b.value();
        }
      }
    }
    return matrix_;
  }

 private:
  const ConeProgram& program_;
  ColSparse matrix_;
  std::vector<Eigen::Index> diagonal_;
  RecycledVector<Eigen::Index> position_;
};

/// max |x_ij| over the stored entries (0 for none).
double max_abs(const ColSparse& x) {
  double largest = 0;
  for (Eigen::Index j = 0; j < x.outerSize(); ++j) {
    for (ColSparse::InnerIterator it(x, j); it; ++it) largest = std::max(largest, std::abs(it.value()));
  }
  return largest;
}

}  // namespace

/// A: the cone's two edges times H, per contact i the rows H_N,i + μ_i H_T,i and H_N,i − μ_i H_T,i.
RowSparse edge_rows(const RowSparse& H, const Eigen::VectorXd& mu) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(2 * H.nonZeros()));
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    for (int a = 0; a < 2; ++a) {
      const double factor = a == 0 ? 1.0 : mu[i];  // normal row: 1 in both; tangent row: ±μ
      if (factor == 0.0) continue;
      for (RowSparse::InnerIterator it(H, 2 * i + a); it; ++it) {
        entries.emplace_back(2 * i, it.col(), factor * it.value());
        entries.emplace_back(2 * i + 1, it.col(), (a == 0 ? 1.0 : -1.0) * factor * it.value());
      }
    }
  }
  RowSparse A(2 * mu.size(), H.cols());
  A.setFromTriplets(entries.begin(), entries.end());
  A.makeCompressed();
  return A;
}

/// r from the multipliers of the two half-planes: r_N = λ₊ + λ₋, r_T = μ (λ₊ − λ₋).
void reaction_of(const Eigen::VectorXd& lambda, const Eigen::VectorXd& mu, Eigen::VectorXd& r) {
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    r[2 * i] = lambda[2 * i] + lambda[2 * i + 1];
    r[2 * i + 1] = mu[i] * (lambda[2 * i] - lambda[2 * i + 1]);
  }
}

/// The multipliers of r (r_T/μ split evenly around r_N; μ = 0: r_N halved), not yet interior.
Eigen::VectorXd multipliers_of(const Eigen::VectorXd& r, const Eigen::VectorXd& mu) {
  Eigen::VectorXd lambda(r.size());
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    const double t = mu[i] > 0 ? r[2 * i + 1] / mu[i] : 0.0;
    lambda[2 * i] = 0.5 * (r[2 * i] + t);
    lambda[2 * i + 1] = 0.5 * (r[2 * i] - t);
  }
  return lambda;
}

ConeProgram ConeProgram::restricted(const RowSparse& A, const Eigen::VectorXd& inverse_mass) {
  std::vector<Eigen::Index> index(static_cast<std::size_t>(A.cols()), -1);
  ConeProgram program;
  for (Eigen::Index row = 0; row < A.outerSize(); ++row) {
    for (RowSparse::InnerIterator it(A, row); it; ++it) {
      if (inverse_mass[it.col()] > 0) index[static_cast<std::size_t>(it.col())] = 0;
    }
  }
  for (Eigen::Index c = 0; c < A.cols(); ++c) {
    if (index[static_cast<std::size_t>(c)] == 0) {
      index[static_cast<std::size_t>(c)] = static_cast<Eigen::Index>(program.columns.size());
      program.columns.push_back(c);
    }
  }
  const auto nf = static_cast<Eigen::Index>(program.columns.size());
  program.mass.resize(nf);
  for (Eigen::Index j = 0; j < nf; ++j) {
    program.mass[j] = 1.0 / inverse_mass[program.columns[static_cast<std::size_t>(j)]];
  }
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<std::size_t>(A.nonZeros()));
  for (Eigen::Index row = 0; row < A.outerSize(); ++row) {
    for (RowSparse::InnerIterator it(A, row); it; ++it) {
      const Eigen::Index j = index[static_cast<std::size_t>(it.col())];
      if (j >= 0) entries.emplace_back(row, j, it.value());
    }
  }
  program.A.resize(A.rows(), nf);
  program.A.setFromTriplets(entries.begin(), entries.end());
  program.A.makeCompressed();
  program.At = ColSparse(program.A.transpose());
  program.row_diagonal = Eigen::VectorXd::Zero(program.A.rows());
  for (Eigen::Index k = 0; k < program.A.outerSize(); ++k) {
    for (RowSparse::InnerIterator it(program.A, k); it; ++it) {
      program.row_diagonal[k] += it.value() * it.value() / program.mass[it.col()];
    }
  }
  return program;
}

InteriorOutcome mehrotra_on_cones(const ConeProgram& program, Eigen::VectorXd& e, const Eigen::VectorXd& lambda0,
                                  const std::function<double(const Eigen::VectorXd&)>& error_of,
                                  const std::function<bool(const Eigen::VectorXd&, double, double)>& after_step, double tolerance,
                                  int limit, int stall_window, std::vector<double>* history, int near_window) {
  const Eigen::Index m = program.A.rows();
  const Eigen::Index nf = program.mass.size();
  InteriorOutcome outcome;
  outcome.lambda = lambda0;
  outcome.error = error_of(lambda0);
  outcome.stop = "the step limit " + std::to_string(limit);
  outcome.limit_reached = true;
  if (outcome.error <= tolerance) {
    outcome.limit_reached = false;
    outcome.stop = "the start, which solves";
    return outcome;
  }
  // The start: v from λ0, s and λ pushed inside the orthant by a fraction of their scales: of the
  // constraint values (velocities), and of the multipliers (the impulse |e_k| that stops row k
  // alone, over its diagonal of A M⁻¹ Aᵀ).
  Eigen::VectorXd lambda = lambda0;
  Eigen::VectorXd v = (program.At * lambda).cwiseQuotient(program.mass);
  Eigen::VectorXd s = program.A * v + e;
  double velocity_scale = std::max(e.lpNorm<Eigen::Infinity>(), s.lpNorm<Eigen::Infinity>());
  double impulse_scale = lambda.lpNorm<Eigen::Infinity>();
  // D_k is capped at kStiffnessCap over row k's diagonal of A M⁻¹ Aᵀ: an active row's D grows
  // without bound, and past the cap M + Aᵀ D A would be singular to round-off (redundant rows).
  Eigen::VectorXd cap(m);
  for (Eigen::Index k = 0; k < m; ++k) {
    const double diagonal = program.row_diagonal[k];
    if (diagonal > 0) impulse_scale = std::max(impulse_scale, std::abs(e[k]) / diagonal);
    cap[k] = diagonal > 0 ? kStiffnessCap / diagonal : kInfinity;
  }
  if (!(velocity_scale > 0)) velocity_scale = 1.0;
  if (!(impulse_scale > 0)) impulse_scale = 1.0;
  for (Eigen::Index k = 0; k < m; ++k) {
    s[k] = std::max(s[k], kStartInside * velocity_scale);
    lambda[k] = std::max(lambda[k], kStartInside * impulse_scale);
  }

  SpdFactor factor;
  bool analyzed = false;
  int last_halving = 0;
  double halving_mark = kInfinity;  // the first step's error sets it
  Eigen::VectorXd rp(m), rd(nf), rhs(nf), dv(nf), ds(m), dl(m), ds_aff(m), dl_aff(m), rc(m), D(m);
  Eigen::VectorXd rc_corrected(m), dv_corrected(nf), ds_corrected(m), dl_corrected(m);
  NewtonMatrix newton_matrix(program);
  while (outcome.steps < limit) {
    if (const std::optional<Status> stop = stop_requested()) {  // the caller's status reads the stop state
      outcome.limit_reached = false;
      outcome.stop = stop_message(*stop, outcome.steps, "steps");
      break;
    }
    const int window = near_window > 0 && outcome.error <= std::min(kNearTolerances * tolerance, kNearFloor)
                           ? std::min(near_window, stall_window)
                           : stall_window;
    if (window > 0 && outcome.steps - last_halving >= window) {
      outcome.limit_reached = false;
      outcome.stop = "no halving of the error in " + std::to_string(window) + " steps";
      break;
    }
    ++outcome.steps;
    rp = program.A * v + e - s;
    rd = program.mass.cwiseProduct(v);
    rd.noalias() -= program.At * lambda;
    const double gap = s.dot(lambda) / static_cast<double>(m);
    D = lambda.cwiseQuotient(s).cwiseMin(cap);
    const ColSparse& K = newton_matrix.assemble(D);
    if (!analyzed) {
      factor.analyze(K);  // D > 0 throughout: the pattern of K never changes
      analyzed = true;
    }
    if (!factor.factorize(K)) {
      outcome.limit_reached = false;
      outcome.stop = "a Newton matrix M + A^T D A that could not be factored";
      break;
    }
    // One Newton solve for the complementarity target: Δv from the reduced system, then Δs, Δλ.
    const auto newton = [&](const Eigen::VectorXd& target, Eigen::VectorXd& dv_out, Eigen::VectorXd& ds_out,
                            Eigen::VectorXd& dl_out) {
      rhs = -rd;
      rhs.noalias() += program.At * (target.cwiseQuotient(s) - D.cwiseProduct(rp));
      dv_out = factor.solve(rhs);
      ds_out = program.A * dv_out + rp;
      dl_out = (target - lambda.cwiseProduct(ds_out)).cwiseQuotient(s);
    };
    rc = -s.cwiseProduct(lambda);
    newton(rc, dv, ds_aff, dl_aff);
    const double alpha_aff = std::min(step_to_boundary(s, ds_aff), step_to_boundary(lambda, dl_aff)) / kToBoundary;
    const double gap_aff = (s + alpha_aff * ds_aff).dot(lambda + alpha_aff * dl_aff) / static_cast<double>(m);
    const double sigma = gap > 0 ? std::min(kCenteringCap, std::pow(std::clamp(gap_aff / gap, 0.0, 1.0), 3)) : 0.0;
    rc.array() += sigma * gap - ds_aff.array() * dl_aff.array();
    newton(rc, dv, ds, dl);
    double alpha = std::min(step_to_boundary(s, ds), step_to_boundary(lambda, dl));
    // Gondzio's centrality correctors: where the step is short, the products s_k λ_k a longer
    // trial step would reach are pulled into [kCorrectorLow, kCorrectorHigh] σμ, and the corrected
    // direction (one more solve with the same factor) kept while it lengthens the step.
    for (int corrector = 0; corrector < kCorrectors && alpha < 1.0; ++corrector) {
      const double trial = std::min(1.0, kCorrectorReach * alpha + kCorrectorExtra);
      const double centre = sigma * gap;
      for (Eigen::Index k = 0; k < m; ++k) {
        const double product = (s[k] + trial * ds[k]) * (lambda[k] + trial * dl[k]);
        const double pull = std::clamp(product, kCorrectorLow * centre, kCorrectorHigh * centre) - product;
        rc_corrected[k] = rc[k] + std::max(pull, -kCorrectorHigh * centre);
      }
      newton(rc_corrected, dv_corrected, ds_corrected, dl_corrected);
      const double corrected = std::min(step_to_boundary(s, ds_corrected), step_to_boundary(lambda, dl_corrected));
      if (!(corrected >= kCorrectorGain * alpha + kCorrectorGainExtra) || !dv_corrected.allFinite()) break;
      rc.swap(rc_corrected);
      dv.swap(dv_corrected);
      ds.swap(ds_corrected);
      dl.swap(dl_corrected);
      alpha = corrected;
    }
    if (!(alpha > 0) || !dv.allFinite() || !dl.allFinite()) {
      outcome.limit_reached = false;
      outcome.stop = "a step of length 0";
      break;
    }
    v += alpha * dv;
    s += alpha * ds;
    lambda += alpha * dl;
    const double error = error_of(lambda);
    if (history) history->push_back(error);
    if (error <= kStallFactor * halving_mark) {
      halving_mark = error;
      last_halving = outcome.steps;
    }
    if (outcome.error < kBlowUpFrom && error > kBlowUp * outcome.error) {
      // Weights λ/s spanning 1e15 leave the Newton matrix singular to round-off: the step's solve
      // is wrong and the iterate leaves the region it had reached; nothing after recovers it (on
      // the 10 000-disk heap the error stayed above 1 for the stall window's 8 steps).
      outcome.limit_reached = false;
      outcome.stop = "round-off (the error grew from " + number_text(outcome.error) + " to " + number_text(error) +
                     " in one step)";
      break;
    }
    if (error < outcome.error) {
      outcome.error = error;
      outcome.lambda = lambda;
    }
    if (error <= tolerance) {
      outcome.limit_reached = false;
      outcome.stop = "the tolerance";
      break;
    }
    const double program_error =
        std::max((program.A * v + e - s).lpNorm<Eigen::Infinity>() / velocity_scale,
                 s.dot(lambda) / (static_cast<double>(m) * velocity_scale * impulse_scale));
    if (after_step(lambda, program_error, error)) {
      outcome.limit_reached = false;
      outcome.stop = "the caller, whose point solves";
      break;
    }
  }
  return outcome;
}

Result solve_friction_interior_point(const RowSparse& H, const Eigen::VectorXd& inverse_mass,
                                     const FrictionContact& shell, const SolveOptions& options,
                                     const Eigen::VectorXd& r0) {
  if (shell.dimension == 3) {
    // The second-order cones: de Saxcé's fixed point around the interior point (cone_ipm.hpp).
    FrictionContactResiduals residuals;
    return solve_coulomb_cone_interior_point(H, inverse_mass, shell, options, r0, residuals);
  }
  Result result;
  result.method = Method::InteriorPoint;
  const Eigen::Index nc = shell.contacts();
  const Eigen::Index n = shell.size();
  const Eigen::VectorXd& mu = shell.mu;
  const Eigen::VectorXd& q = shell.q;
  const ConeProgram program = ConeProgram::restricted(edge_rows(H, mu), inverse_mass);

  // u = H M⁻¹ Hᵀ r + q from r (what finish recomputes), and the relative error of r.
  Eigen::VectorXd u(n);
  Eigen::VectorXd r(n);
  const auto error_of = [&](const Eigen::VectorXd& lambda) {
    reaction_of(lambda, mu, r);
    const Eigen::VectorXd v = inverse_mass.cwiseProduct(Eigen::VectorXd(H.transpose() * r));
    u = q;
    u.noalias() += H * v;
    return friction_contact_residuals(shell, r, u).relative_error;
  };
  // e_± = q_N + s ± μ q_T with the shift s = μ|u_T| of the velocities u.
  Eigen::VectorXd e(2 * nc);
  const auto set_shift = [&](const Eigen::VectorXd& velocities) {
    for (Eigen::Index i = 0; i < nc; ++i) {
      const double shift = mu[i] * std::abs(velocities[2 * i + 1]);
      e[2 * i] = q[2 * i] + shift + mu[i] * q[2 * i + 1];
      e[2 * i + 1] = q[2 * i] + shift - mu[i] * q[2 * i + 1];
    }
  };
  const Eigen::VectorXd lambda0 = multipliers_of(r0, mu);
  (void)error_of(lambda0);
  set_shift(u);
  int updates = 0;
  // The shift follows the velocities reached once the program of the current shift is solved
  // well past the frictional error (its residual below a tenth of it).
  const auto after_step = [&](const Eigen::VectorXd&, double program_error, double error) {
    if (program_error <= 0.1 * error) {
      set_shift(u);
      ++updates;
    }
    return false;
  };
  const InteriorOutcome outcome =
      mehrotra_on_cones(program, e, lambda0, error_of, after_step, options.tolerance,
                        options.iteration_limit(kDefaultConeInteriorSteps), kStallWindow, options.record_history ? &result.history : nullptr);
  result.iterations = outcome.steps;
  result.z.resize(n);
  reaction_of(outcome.lambda, mu, result.z);
  const std::string first = "interior point: " + std::to_string(outcome.steps) + " steps and " +
                            std::to_string(updates) + " updates of de Saxce's shift, stopped by " + outcome.stop +
                            " at relative error " + number_text(outcome.error);
  if (outcome.error <= options.tolerance) {
    result.status = Status::Solved;
    result.message = first;
    return result;
  }
  // Crossover: nsgs sweeps from the best point, where the contact statuses are (mostly) found.
  const SolveOptions sweeps = polish_options(options, kCrossoverSweeps);
  FrictionContactResiduals residuals;
  const Result crossed = solve_nsgs_factored(H, inverse_mass, shell, sweeps, result.z, residuals);
  if (crossed.residual < outcome.error) {
    result.z = crossed.z;
    result.status = crossed.status;
    result.message = first + "; then nsgs from its point: " + crossed.message;
    result.iterations += crossed.iterations;
    if (options.record_history) result.history.push_back(crossed.residual);
  } else {
    result.status = Status::MaxIterations;
    result.message = first + "; nsgs from its point did not improve it (" + crossed.message + ")";
  }
  return result;
}

Result solve_friction_interior_point(const FrictionContact& problem, const SolveOptions& options,
                                     const Eigen::VectorXd& r0) {
  Result result;
  result.method = Method::InteriorPoint;
  result.z = r0;
  result.status = Status::NotApplicable;
  const ColSparse& W = problem.W;
  const double scale = max_abs(W);
  if (max_abs(ColSparse(W.transpose()) - W) > 1e-12 * scale) {
    result.message = "interior-point needs a symmetric W (it solves W's convex program); W is not symmetric";
    return result;
  }
  // W = Pᵀ L D Lᵀ P by a sparse LDLᵀ without pivoting (AMD order). Round-off may leave pivots
  // slightly negative on a singular W: clipped to 0, and W accepted as positive semidefinite when
  // it is rebuilt from the factors to round-off. A W that is singular, or semidefinite only to the
  // round-off of its file (Siconos' BoxesStack1, Confeti-ex13, FrictionContactProblem00727: the
  // smallest eigenvalue of (W + Wᵀ)/2 is −9e-13, −6.7e-11 and −5.5e-8 against the largest 2 712,
  // 7.2e-4 and 3.5), breaks that factorization down (a zero pivot, then a large negative one):
  // W + εI is factored instead, ε = kFactorShifts × max|W| in turn, the program solved on it, and
  // its point polished by nsgs on W itself, whose error is the one judged.
  const double tiny = 1e-12 * scale;
  double shift = 0;
  double worst_pivot = 0;
  RowSparse H;
  Eigen::VectorXd d;
  bool factored = false;
  for (const double relative : kFactorShifts) {
    shift = relative * scale;
    ColSparse shifted;  // W + εI where ε > 0; W itself is factored at ε = 0
    if (shift > 0) {
      ColSparse identity(W.rows(), W.cols());
      identity.setIdentity();
      shifted = W + shift * identity;
    }
    const ColSparse& factored_matrix = shift > 0 ? shifted : W;
    Eigen::SimplicialLDLT<ColSparse, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt(factored_matrix);
    d = ldlt.vectorD();
    if (ldlt.info() != Eigen::Success || !d.allFinite() || d.minCoeff() < -tiny) {
      if (relative == 0) worst_pivot = d.size() > 0 ? d.minCoeff() : 0.0;
      continue;
    }
    d = d.cwiseMax(0.0);
    H = ldlt.permutationPinv() * ColSparse(ldlt.matrixL());
    const ColSparse rebuilt = ColSparse(H * d.asDiagonal()) * ColSparse(H.transpose());
    if (max_abs(rebuilt - factored_matrix) > 1e-9 * scale) continue;
    factored = true;
    break;
  }
  if (!factored) {
    result.message = "interior-point needs a positive semidefinite W; its LDL^T (no pivoting) has a negative pivot " +
                     number_text(worst_pivot) + " or does not rebuild W, and so for W + eps I up to eps = " +
                     number_text(kFactorShifts.back()) + " max|W_ij|";
    return result;
  }
  if (shift == 0) return solve_friction_interior_point(H, d, problem, options, r0);
  Result shifted = solve_friction_interior_point(H, d, problem, options, r0);
  const std::string on_shift = "on W + eps I, eps = " + number_text(shift) + " (" +
                               number_text(shift / scale) +
                               " max|W_ij|: W's own LDL^T without pivoting broke down, so W is singular or semidefinite "
                               "only to within eps): " +
                               to_string(shifted.status) + ", " + shifted.message;
  if (!shifted.z.allFinite()) {
    shifted.message = on_shift;
    return shifted;
  }
  const SolveOptions sweeps = polish_options(options, kCrossoverSweeps);
  FrictionContactResiduals residuals;
  Result polished = solve_nsgs(problem, sweeps, shifted.z, residuals);
  polished.method = Method::InteriorPoint;
  polished.iterations += shifted.iterations;
  polished.message = on_shift + "; then nsgs on W from its point: " + polished.message;
  return polished;
}

}  // namespace perp::detail
