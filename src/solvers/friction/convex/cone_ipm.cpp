#include "cone_ipm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "entry/detail.hpp"
#include "entry/stop.hpp"
#include "friction_ipm.hpp"
#include "friction/impulse/nsgs.hpp"
#include "perp/core/error.hpp"
#include "cone_algebra.hpp"
#include "spd_factor.hpp"

// The interior point on 3D cones (cone_ipm.hpp). The program, in the scaled variables of each
// contact (D = diag(1, μ, μ), A = D H on the moving columns, c = D q, r = D z):
//   min ½ vᵀ M v  s.t.  s = A v + c,  s ∈ Q;   multipliers z ∈ Q with M v = Aᵀ z.
// The Newton system of a step, with W the Nesterov–Todd scaling of each cone (W z = W⁻¹ s = λ):
//   M Δv − Aᵀ Δz = −r_d,   Δs − A Δv = −r_p,   W⁻¹ Δs + W Δz = λ \ ρ
// (r_d = M v − Aᵀ z, r_p = s − A v − c, ρ the right side of the centring equation, "\" the inverse
// of the Jordan product λ ∘ ·), reduced to (M + Aᵀ W⁻² A) Δv = −r_d + Aᵀ t with
// t = W⁻¹ (λ \ ρ) + W⁻² r_p, then Δz = t − W⁻² A Δv and Δs = A Δv − r_p.

namespace perp::detail {

namespace {

using RowSparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
using ColSparse = Eigen::SparseMatrix<double>;
using namespace cone;  // ConeVector, ConeMatrix and the cone's algebra (cone_algebra.hpp)

/// The default step limit of one program.
constexpr int kSocDefaultSteps = 200;
/// The fraction of the way to the cones' boundary a step goes.
constexpr double kSocToBoundary = 0.99;
/// A solve stops when its best error has not halved in this many steps (round-off floor).
constexpr int kSocStallSteps = 12;
/// Coulomb: shift updates at most, and the window in which the error must halve.
constexpr int kSocMaxShiftUpdates = 30;
constexpr int kSocShiftStallWindow = 4;
/// Each shifted program is solved to this fraction of the tolerance (its error and Coulomb's differ
/// by the scale only, once the shift is the fixed point).
constexpr double kSocInnerTolerance = 0.5;
/// Where a Newton direction is not finite, the matrix is factored again with its diagonal raised
/// by this fraction of its largest entry.
constexpr double kSocRegularization = 1e-14;
/// Rounds of iterative refinement of each Newton direction, once the iterate's relative error is
/// at most kSocRefineBelow: above it the unrefined direction serves as well (the same steps to
/// 1e-6 on the 1 000-sphere pour) and refining cost a sixth of the solve (bench/README.md, "The
/// cone interior point's workspace (stop 47)").
constexpr int kSocRefinements = 2;
constexpr double kSocRefineBelow = 1e-6;
/// nsgs sweeps of the polish after the fixed point.
constexpr int kSocPolishSweeps = 300;

/// What an interior point keeps between solves on one thread: the arrays its pattern is built in,
/// the Newton matrix and its factor. A time step's solve that allocated them afresh faulted in
/// their pages every step (megabytes at 2 000 contacts; with the factor's analysis, about a fifth
/// of the 1 000-sphere pour's convex steps, bench/README.md "The cone interior point's workspace
/// (stop 47)"). Kept while its Newton matrix has at most kKeptEntries entries (the pour's has
/// 160 000; a larger one, and its factor, are freed with the solve), so that a thread holds a
/// bounded amount between solves; a solve started while the thread's workspace is lent (one nested
/// in another) gets its own.
struct Workspace {
  std::vector<Eigen::Index> block_start, block_columns, pair_start, pair_positions, diagonal_positions;
  std::vector<double> block_values;
  // build_pattern's scratch
  std::vector<Eigen::Index> slot, incidence_start, fill, rows;
  std::vector<std::pair<Eigen::Index, Eigen::Index>> incidence;
  std::vector<int> outer, inner;
  ColSparse matrix;
  SpdFactor factor;
};
constexpr Eigen::Index kKeptEntries = Eigen::Index{1} << 20;

/// The thread's workspace, lent for the holder's lifetime and given back at its end.
class Borrowed {
 public:
  Borrowed() : held_(spare() ? std::move(spare()) : std::make_unique<Workspace>()) {}
  ~Borrowed() {
    if (!spare() && held_->matrix.nonZeros() <= kKeptEntries) spare() = std::move(held_);
  }
  Borrowed(const Borrowed&) = delete;
  Borrowed& operator=(const Borrowed&) = delete;
  Workspace* operator->() { return held_.get(); }

 private:
  static std::unique_ptr<Workspace>& spare() {
    thread_local std::unique_ptr<Workspace> kept;
    return kept;
  }
  std::unique_ptr<Workspace> held_;
};

}  // namespace

struct SocInteriorPoint::Impl {
  RowSparse H;                    // the original rows, all columns (for u = H M⁻¹ Hᵀ r + q)
  Eigen::VectorXd inverse_mass;
  Eigen::VectorXd mu;
  Eigen::Index nc = 0;
  ConeProgram program;            // A = D H restricted to the moving columns, its mass
  // The arrays below, the Newton matrix and its factor, kept on the thread between solves
  // (`Workspace`): refilled, not reallocated, and the factor's analysis reused where the pattern
  // has not changed.
  Borrowed workspace;
  // Per contact: its moving columns (sorted), A's 3 × k block on them (column-major), and where each
  // pair (a <= b) of its columns lands in the lower triangle's value array.
  std::vector<Eigen::Index>& block_start = workspace->block_start;  // nc + 1 offsets into `block_columns`
  std::vector<Eigen::Index>& block_columns = workspace->block_columns;
  std::vector<double>& block_values = workspace->block_values;  // 3 per column, offsets 3 × block_start
  std::vector<Eigen::Index>& pair_start = workspace->pair_start;  // nc + 1 offsets into `pair_positions`
  std::vector<Eigen::Index>& pair_positions = workspace->pair_positions;
  std::vector<Eigen::Index>& diagonal_positions = workspace->diagonal_positions;
  ColSparse& matrix = workspace->matrix;  // M + Aᵀ G A, lower triangle
  SpdFactor& factor = workspace->factor;
  int factorizations = 0;

  Impl(const RowSparse& H_, const Eigen::VectorXd& inverse_mass_, const Eigen::VectorXd& mu_)
      : H(H_), inverse_mass(inverse_mass_), mu(mu_), nc(mu_.size()) {
    RowSparse scaled = H;
    for (Eigen::Index i = 0; i < nc; ++i) {
      for (int k = 1; k < 3; ++k) {
        for (RowSparse::InnerIterator it(scaled, 3 * i + k); it; ++it) it.valueRef() *= mu[i];
      }
    }
    program = ConeProgram::restricted(scaled, inverse_mass);
    build_pattern();
  }

  /// Each contact's block of A on its sorted moving columns, and the lower pattern of M + Aᵀ G A:
  /// column c holds c and every column above it that shares a contact with it, written column by
  /// column through a marker array (no triplets to sort), with where each pair of a contact's
  /// columns lands listed as its lower column is written.
  void build_pattern() {
    const Eigen::Index nf = program.mass.size();
    const RowSparse& A = program.A;
    block_start.assign(1, 0);
    pair_start.assign(1, 0);
    block_columns.clear();
    block_columns.reserve(static_cast<std::size_t>(A.nonZeros()));
    block_values.clear();
    block_values.reserve(static_cast<std::size_t>(3 * A.nonZeros()));
    std::vector<Eigen::Index>& slot = workspace->slot;
    slot.assign(static_cast<std::size_t>(nf), -1);
    for (Eigen::Index i = 0; i < nc; ++i) {
      const auto first = block_columns.size();
      for (int k = 0; k < 3; ++k) {
        for (RowSparse::InnerIterator it(A, 3 * i + k); it; ++it) {
          if (slot[static_cast<std::size_t>(it.col())] < 0) {
            slot[static_cast<std::size_t>(it.col())] = 0;
            block_columns.push_back(it.col());
          }
        }
      }
      std::sort(block_columns.begin() + static_cast<std::ptrdiff_t>(first), block_columns.end());
      const auto k_i = static_cast<Eigen::Index>(block_columns.size() - first);
      for (Eigen::Index a = 0; a < k_i; ++a) slot[static_cast<std::size_t>(block_columns[first + static_cast<std::size_t>(a)])] = a;
      const std::size_t values_at = block_values.size();
      block_values.resize(values_at + static_cast<std::size_t>(3 * k_i), 0.0);
      for (int k = 0; k < 3; ++k) {
        for (RowSparse::InnerIterator it(A, 3 * i + k); it; ++it) {
          block_values[values_at + static_cast<std::size_t>(3 * slot[static_cast<std::size_t>(it.col())] + k)] += it.value();
        }
      }
      for (std::size_t at = first; at < block_columns.size(); ++at) slot[static_cast<std::size_t>(block_columns[at])] = -1;
      block_start.push_back(static_cast<Eigen::Index>(block_columns.size()));
      pair_start.push_back(pair_start.back() + k_i * (k_i + 1) / 2);
    }
    // The contacts at each column, with the column's place a in the contact's list (contacts ascending).
    std::vector<Eigen::Index>& incidence_start = workspace->incidence_start;
    incidence_start.assign(static_cast<std::size_t>(nf) + 1, 0);
    for (const Eigen::Index c : block_columns) ++incidence_start[static_cast<std::size_t>(c) + 1];
    for (Eigen::Index c = 0; c < nf; ++c) incidence_start[static_cast<std::size_t>(c) + 1] += incidence_start[static_cast<std::size_t>(c)];
    std::vector<std::pair<Eigen::Index, Eigen::Index>>& incidence = workspace->incidence;
    incidence.resize(block_columns.size());
    {
      std::vector<Eigen::Index>& fill = workspace->fill;
      fill.assign(incidence_start.begin(), incidence_start.end() - 1);
      for (Eigen::Index i = 0; i < nc; ++i) {
        for (Eigen::Index at = block_start[static_cast<std::size_t>(i)]; at < block_start[static_cast<std::size_t>(i) + 1]; ++at) {
          const auto c = static_cast<std::size_t>(block_columns[static_cast<std::size_t>(at)]);
          incidence[static_cast<std::size_t>(fill[c]++)] = {i, at - block_start[static_cast<std::size_t>(i)]};
        }
      }
    }
    std::vector<int>& outer = workspace->outer;
    outer.assign(static_cast<std::size_t>(nf) + 1, 0);
    std::vector<int>& inner = workspace->inner;
    inner.clear();
    inner.reserve(static_cast<std::size_t>(pair_start.back() + nf));
    pair_positions.assign(static_cast<std::size_t>(pair_start.back()), 0);
    diagonal_positions.resize(static_cast<std::size_t>(nf));
    std::vector<Eigen::Index>& where = slot;  // −1 everywhere again
    std::vector<Eigen::Index>& rows = workspace->rows;
    for (Eigen::Index c = 0; c < nf; ++c) {
      rows.assign(1, c);
      where[static_cast<std::size_t>(c)] = 0;
      for (Eigen::Index e = incidence_start[static_cast<std::size_t>(c)]; e < incidence_start[static_cast<std::size_t>(c) + 1]; ++e) {
        const auto [i, a] = incidence[static_cast<std::size_t>(e)];
        const Eigen::Index* cols = block_columns.data() + block_start[static_cast<std::size_t>(i)];
        const Eigen::Index k_i = block_start[static_cast<std::size_t>(i) + 1] - block_start[static_cast<std::size_t>(i)];
        for (Eigen::Index b = a + 1; b < k_i; ++b) {
          if (where[static_cast<std::size_t>(cols[b])] < 0) {
            where[static_cast<std::size_t>(cols[b])] = 0;
            rows.push_back(cols[b]);
          }
        }
      }
      std::sort(rows.begin(), rows.end());
      const auto column_start = static_cast<Eigen::Index>(inner.size());
      for (std::size_t at = 0; at < rows.size(); ++at) {
        where[static_cast<std::size_t>(rows[at])] = column_start + static_cast<Eigen::Index>(at);
        inner.push_back(static_cast<int>(rows[at]));
      }
      outer[static_cast<std::size_t>(c) + 1] = static_cast<int>(inner.size());
      diagonal_positions[static_cast<std::size_t>(c)] = column_start;
      for (Eigen::Index e = incidence_start[static_cast<std::size_t>(c)]; e < incidence_start[static_cast<std::size_t>(c) + 1]; ++e) {
        const auto [i, a] = incidence[static_cast<std::size_t>(e)];
        const Eigen::Index* cols = block_columns.data() + block_start[static_cast<std::size_t>(i)];
        const Eigen::Index k_i = block_start[static_cast<std::size_t>(i) + 1] - block_start[static_cast<std::size_t>(i)];
        // The pairs (a, b >= a) of contact i, listed a by a: (a, a) is at a k − a (a − 1) / 2.
        Eigen::Index* out = pair_positions.data() + pair_start[static_cast<std::size_t>(i)] + a * k_i - a * (a - 1) / 2;
        for (Eigen::Index b = a; b < k_i; ++b) *out++ = where[static_cast<std::size_t>(cols[b])];
      }
      for (const Eigen::Index row : rows) where[static_cast<std::size_t>(row)] = -1;
    }
    matrix.resize(nf, nf);
    matrix.resizeNonZeros(static_cast<Eigen::Index>(inner.size()));
    std::copy(outer.begin(), outer.end(), matrix.outerIndexPtr());
    std::copy(inner.begin(), inner.end(), matrix.innerIndexPtr());
    std::fill(matrix.valuePtr(), matrix.valuePtr() + inner.size(), 0.0);
    factor.analyze(matrix);
  }

  /// M + Aᵀ G A into `matrix`, G = W⁻² per contact (3 × 3 each), plus `regularization` times its
  /// largest diagonal entry on the diagonal (the Newton matrix only: the problem is not changed).
  bool assemble_and_factor(const std::vector<ConeMatrix>& G, double regularization = 0) {
    double* values = matrix.valuePtr();
    std::fill(values, values + matrix.nonZeros(), 0.0);
    for (Eigen::Index j = 0; j < program.mass.size(); ++j) values[diagonal_positions[static_cast<std::size_t>(j)]] = program.mass[j];
    Eigen::Matrix<double, 3, Eigen::Dynamic> block;
    Eigen::MatrixXd product;
    for (Eigen::Index i = 0; i < nc; ++i) {
      const Eigen::Index k_i = block_start[static_cast<std::size_t>(i) + 1] - block_start[static_cast<std::size_t>(i)];
      if (k_i == 0) continue;
      const Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> Ai(
          block_values.data() + 3 * block_start[static_cast<std::size_t>(i)], 3, k_i);
      block.noalias() = G[static_cast<std::size_t>(i)] * Ai;
      product.noalias() = Ai.transpose() * block;
      const Eigen::Index* where = pair_positions.data() + pair_start[static_cast<std::size_t>(i)];
      for (Eigen::Index a = 0; a < k_i; ++a) {
        for (Eigen::Index b = a; b < k_i; ++b) values[*where++] += product(b, a);
      }
    }
    if (regularization > 0) {
      double largest = 0;
      for (const Eigen::Index at : diagonal_positions) largest = std::max(largest, values[at]);
      for (const Eigen::Index at : diagonal_positions) values[at] += regularization * largest;
    }
    ++factorizations;
    return factor.factorize(matrix);
  }

  /// u = H M⁻¹ Hᵀ r + q on the original columns.
  Eigen::VectorXd velocity(const Eigen::VectorXd& r, const Eigen::VectorXd& q) const {
    return factored_product(H, inverse_mass, r, q);
  }

  Outcome solve(const Eigen::VectorXd& q, double tolerance, int limit, std::vector<double>* history);
};

SocInteriorPoint::Outcome SocInteriorPoint::Impl::solve(const Eigen::VectorXd& q, double tolerance, int limit,
                                                        std::vector<double>* history) {
  const Eigen::Index n = 3 * nc;
  const double q_norm = q.norm();
  const RowSparse& A = program.A;
  const ColSparse& At = program.At;
  const Eigen::VectorXd& mass = program.mass;
  Eigen::VectorXd c = q;
  for (Eigen::Index i = 0; i < nc; ++i) c.segment<2>(3 * i + 1) *= mu[i];
  Outcome outcome;
  Eigen::VectorXd r(n);
  const auto reaction = [&](const Eigen::VectorXd& z) {
    r = z;
    for (Eigen::Index i = 0; i < nc; ++i) r.segment<2>(3 * i + 1) *= mu[i];
  };
  double best_error = std::numeric_limits<double>::infinity();
  int best_step = 0;
  const auto judge = [&](const Eigen::VectorXd& z, int step) {
    reaction(z);
    Eigen::VectorXd u = velocity(r, q);
    const FrictionContactResiduals residuals = cone_residuals(3, mu, r, u, FrictionLaw::Convex, q_norm);
    const double error = residuals.relative_error;
    if (history) history->push_back(error);
    if (error < best_error) {
      best_error = error;
      best_step = step;
      outcome.r = r;
      outcome.u = std::move(u);
      outcome.residuals = residuals;
      outcome.error = error;
    }
    return error;
  };

  // The start (Vandenberghe 2010, §4.1, with W = I): v minimizes ½ vᵀ M v + ½ ‖A v + c‖², so that
  // z = −(A v + c) meets M v = Aᵀ z exactly; s = A v + c; each cone's s and z then lifted along
  // e = (1, 0, 0) inside Q by a margin relative to the largest of them.
  std::vector<ConeMatrix> G(static_cast<std::size_t>(nc), ConeMatrix::Identity());
  // r = 0 and its figures, returned where no iterate can be (a failed first factorization) or none
  // had a finite error.
  const auto failed_at_zero = [&](std::string stop) {
    outcome.solved = false;
    outcome.stop = std::move(stop);
    outcome.status = Status::NumericalFailure;
    reaction(Eigen::VectorXd::Zero(n));
    outcome.r = r;
    outcome.u = velocity(r, q);
    outcome.residuals = cone_residuals(3, mu, r, outcome.u, FrictionLaw::Convex, q_norm);
    outcome.error = outcome.residuals.relative_error;
  };
  if (!assemble_and_factor(G)) {
    failed_at_zero("the factorization of M + A^T A failed");
    return outcome;
  }
  Eigen::VectorXd v = factor.solve(-(At * c));
  Eigen::VectorXd s = A * v + c;
  Eigen::VectorXd z = -s;
  // Every cone lifted by the same amount, the largest violation plus a margin (as Vandenberghe's
  // start: a lift per cone leaves the cones that were inside far from the others, badly centred).
  const double margin = std::max(1e-2 * std::max(s.lpNorm<Eigen::Infinity>(), 1e-300), 1e-12);
  double lift_s = 0;
  double lift_z = 0;
  for (Eigen::Index i = 0; i < nc; ++i) {
    lift_s = std::max(lift_s, lift_into_cone(s.segment<3>(3 * i), margin));
    lift_z = std::max(lift_z, lift_into_cone(z.segment<3>(3 * i), margin));
  }
  for (Eigen::Index i = 0; i < nc; ++i) {
    s[3 * i] += lift_s;
    z[3 * i] += lift_z;
  }

  std::vector<ConeMatrix> Ws(static_cast<std::size_t>(nc));
  std::vector<ConeMatrix> W_inverses(static_cast<std::size_t>(nc));
  Eigen::VectorXd lambda(n);
  Eigen::VectorXd lambda_det(nc);
  Eigen::VectorXd r_d;
  Eigen::VectorXd r_p;
  Eigen::VectorXd t(n);
  Eigen::VectorXd dv;
  Eigen::VectorXd dz(n);
  Eigen::VectorXd ds(n);
  // The direction for the centring right side ρ (3 nc): fills dv, dz, ds.
  const auto direction = [&](const Eigen::VectorXd& rho) {
    for (Eigen::Index i = 0; i < nc; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const ConeVector divided = jordan_divide(lambda.segment<3>(3 * i), lambda_det[i], rho.segment<3>(3 * i));
      t.segment<3>(3 * i) = W_inverses[k] * divided + G[k] * r_p.segment<3>(3 * i);
    }
    const Eigen::VectorXd rhs = -r_d + At * t;
    dv = factor.solve(rhs);
    // Iterative refinement: G spans 1e12 and more near the end, and the factor's round-off with it.
    const int rounds = best_error <= kSocRefineBelow ? kSocRefinements : 0;
    for (int round = 0; round < rounds && dv.allFinite(); ++round) {
      const Eigen::VectorXd residual = rhs - matrix.selfadjointView<Eigen::Lower>() * dv;
      dv += factor.solve(residual);
    }
    const Eigen::VectorXd Adv = A * dv;
    for (Eigen::Index i = 0; i < nc; ++i) {
      dz.segment<3>(3 * i) = t.segment<3>(3 * i) - G[static_cast<std::size_t>(i)] * Adv.segment<3>(3 * i);
    }
    ds = Adv - r_p;
  };
  const auto longest_step = [&]() {
    double alpha = std::numeric_limits<double>::infinity();
    for (Eigen::Index i = 0; i < nc; ++i) {
      alpha = std::min(alpha, step_in_cone(s.segment<3>(3 * i), ds.segment<3>(3 * i)));
      alpha = std::min(alpha, step_in_cone(z.segment<3>(3 * i), dz.segment<3>(3 * i)));
    }
    return alpha;
  };

  const int steps = limit > 0 ? limit : kSocDefaultSteps;
  Eigen::VectorXd rho(n);
  for (int step = 0;; ++step) {
    const double error = judge(z, step);
    outcome.steps = step;
    if (error <= tolerance) {
      outcome.solved = true;
      outcome.status = Status::Solved;
      outcome.stop = "the relative error";
      break;
    }
    if (step >= steps) {
      outcome.stop = "the step limit";
      outcome.status = Status::MaxIterations;
      break;
    }
    if (step - best_step >= kSocStallSteps) {
      outcome.stop = "no halving of the error in " + std::to_string(kSocStallSteps) + " steps";
      outcome.status = Status::NoSolutionFound;
      break;
    }
    if (const std::optional<Status> stop = stop_requested()) {
      outcome.stop = stop_message(*stop, step, "steps");
      outcome.status = *stop;
      outcome.interrupted = true;
      break;
    }
    r_d = mass.cwiseProduct(v) - At * z;
    r_p = s - A * v - c;
    const double gap = s.dot(z);
    const double mean_gap = gap / static_cast<double>(std::max<Eigen::Index>(nc, 1));
    for (Eigen::Index i = 0; i < nc; ++i) {
      const auto k = static_cast<std::size_t>(i);
      nt_scaling(s.segment<3>(3 * i), z.segment<3>(3 * i), Ws[k], W_inverses[k]);
      G[k] = W_inverses[k] * W_inverses[k];
      lambda.segment<3>(3 * i) = Ws[k] * z.segment<3>(3 * i);
      lambda_det[i] = std::sqrt(std::max(cone_det(s.segment<3>(3 * i)), 1e-300) * std::max(cone_det(z.segment<3>(3 * i)), 1e-300));
    }
    if (!assemble_and_factor(G)) {
      outcome.stop = "a failed factorization";
      outcome.status = Status::NumericalFailure;
      break;
    }
    // The predictor: ρ = −λ ∘ λ.
    for (Eigen::Index i = 0; i < nc; ++i) rho.segment<3>(3 * i) = -jordan(lambda.segment<3>(3 * i), lambda.segment<3>(3 * i));
    direction(rho);
    if (!dv.allFinite() || !dz.allFinite()) {
      // Round-off in the factor of a matrix whose scaling spans 1e14 and more: once more with the
      // Newton matrix's diagonal raised by kSocRegularization of its largest entry.
      if (assemble_and_factor(G, kSocRegularization)) direction(rho);
    }
    if (!dv.allFinite() || !dz.allFinite()) {
      outcome.stop = "a direction that is not finite (round-off in the Newton system)";
      outcome.status = Status::NumericalFailure;
      break;
    }
    const double alpha_affine = std::min(1.0, longest_step());
    const double affine_gap = (s + alpha_affine * ds).dot(z + alpha_affine * dz);
    const double sigma = std::clamp(std::pow(std::max(affine_gap, 0.0) / gap, 3), 0.0, 1.0);
    // The corrector: ρ = −λ ∘ λ − (W⁻¹ Δs_a) ∘ (W Δz_a) + σ μ e.
    for (Eigen::Index i = 0; i < nc; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const ConeVector scaled_ds = W_inverses[k] * ds.segment<3>(3 * i);
      const ConeVector scaled_dz = Ws[k] * dz.segment<3>(3 * i);
      rho.segment<3>(3 * i) -= jordan(scaled_ds, scaled_dz);
      rho[3 * i] += sigma * mean_gap;
    }
    direction(rho);
    const double alpha = std::min(1.0, kSocToBoundary * longest_step());
    if (!(alpha > 1e-14) || !dv.allFinite()) {
      outcome.stop = "a step that cannot move (length " + number_text(alpha) + ")";
      outcome.status = Status::NumericalFailure;
      break;
    }
    v += alpha * dv;
    s += alpha * ds;
    z += alpha * dz;
  }
  if (outcome.r.size() != n) {
    // No iterate had a finite error (the start itself is not finite where the first factor's
    // round-off swamps it): r = 0 is returned, as after a failed first factorization.
    failed_at_zero("no iterate with a finite error (" + outcome.stop + ")");
  }
  return outcome;
}

SocInteriorPoint::SocInteriorPoint(const RowSparse& H, const Eigen::VectorXd& inverse_mass, const Eigen::VectorXd& mu)
    : impl_(std::make_unique<Impl>(H, inverse_mass, mu)) {}
SocInteriorPoint::~SocInteriorPoint() = default;

SocInteriorPoint::Outcome SocInteriorPoint::solve(const Eigen::VectorXd& q, double tolerance, int limit,
                                                  std::vector<double>* history) {
  return impl_->solve(q, tolerance, limit, history);
}

int SocInteriorPoint::factorizations() const { return impl_->factorizations; }

Result solve_convex_cone_interior_point(const RowSparse& H, const Eigen::VectorXd& inverse_mass,
                                        const FrictionContact& shell, const SolveOptions& options,
                                        FrictionContactResiduals& residuals) {
  Result result;
  result.method = Method::InteriorPoint;
  SocInteriorPoint ipm(H, inverse_mass, shell.mu);
  SocInteriorPoint::Outcome outcome = ipm.solve(shell.q, options.tolerance, options.iteration_limit(kSocDefaultSteps),
                                                options.record_history ? &result.history : nullptr);
  result.z = std::move(outcome.r);
  result.w = std::move(outcome.u);
  residuals = outcome.residuals;
  result.iterations = outcome.steps;
  result.status = outcome.status;
  result.message = "interior point on the second-order cones: " + std::to_string(outcome.steps) +
                   " steps (one factorization each, " + SpdFactor::backend() + "), stopped by " + outcome.stop +
                   " at relative error " + number_text(outcome.error);
  return result;
}

Result solve_coulomb_cone_interior_point(const RowSparse& H, const Eigen::VectorXd& inverse_mass,
                                         const FrictionContact& shell, const SolveOptions& options,
                                         const Eigen::VectorXd& r0, FrictionContactResiduals& residuals) {
  Result result;
  result.method = Method::InteriorPoint;
  const Eigen::Index nc = shell.contacts();
  const Eigen::VectorXd& mu = shell.mu;
  const Eigen::VectorXd& q = shell.q;
  SocInteriorPoint ipm(H, inverse_mass, mu);
  std::vector<double>* history = options.record_history ? &result.history : nullptr;
  const int step_limit = options.iteration_limit(kSocDefaultSteps * 5);

  Eigen::VectorXd best_r = r0;
  Eigen::VectorXd u = factored_product(H, inverse_mass, r0, q);
  FrictionContactResiduals best_residuals = friction_contact_residuals(shell, r0, u);
  Eigen::VectorXd shifted(q.size());
  std::vector<double> errors;
  int steps = 0;
  int updates = 0;
  std::string stop = "the update limit (" + std::to_string(kSocMaxShiftUpdates) + ")";
  bool interrupted = false;
  Status unsolved = Status::MaxIterations;  // the limits; a stall is no-solution-found
  while (updates < kSocMaxShiftUpdates) {
    shifted = q;
    for (Eigen::Index i = 0; i < nc; ++i) shifted[3 * i] += mu[i] * u.segment<2>(3 * i + 1).norm();
    SocInteriorPoint::Outcome outcome =
        ipm.solve(shifted, kSocInnerTolerance * options.tolerance, std::max(step_limit - steps, 1), nullptr);
    steps += outcome.steps;
    ++updates;
    u = factored_product(H, inverse_mass, outcome.r, q);
    const FrictionContactResiduals criteria = friction_contact_residuals(shell, outcome.r, u);
    errors.push_back(criteria.relative_error);
    if (history) history->push_back(criteria.relative_error);
    if (criteria.relative_error < best_residuals.relative_error) {
      best_residuals = criteria;
      best_r = outcome.r;
    }
    if (outcome.interrupted) {
      stop = outcome.stop;
      interrupted = true;
      break;
    }
    if (best_residuals.relative_error <= options.tolerance) {
      stop = "the relative error";
      break;
    }
    if (steps >= step_limit) {
      stop = "the step limit (" + std::to_string(step_limit) + ")";
      break;
    }
    const std::size_t k = errors.size();
    if (k > kSocShiftStallWindow &&
        !(errors[k - 1] <= 0.5 * *std::min_element(errors.begin(), errors.end() - kSocShiftStallWindow))) {
      stop = "no halving of the error in " + std::to_string(kSocShiftStallWindow) + " updates";
      unsolved = Status::NoSolutionFound;
      break;
    }
  }
  result.z = best_r;
  result.w = factored_product(H, inverse_mass, best_r, q);
  residuals = best_residuals;
  result.iterations = steps;
  std::string story = "interior point on the second-order cones, " + std::to_string(updates) +
                      " updates of de Saxce's shift (" + std::to_string(steps) + " steps, " +
                      std::to_string(ipm.factorizations()) + " factorizations), stopped by " + stop +
                      " at relative error " + number_text(best_residuals.relative_error);
  if (best_residuals.relative_error <= options.tolerance) {
    result.status = Status::Solved;
    result.message = story;
    return result;
  }
  if (interrupted) {
    result.status = stop_requested().value_or(Status::MaxIterations);
    result.message = story;
    return result;
  }
  // The polish: nsgs sweeps from the best point (the contact statuses mostly found).
  const SolveOptions sweeps = polish_options(options, kSocPolishSweeps);
  FrictionContactResiduals swept_residuals;
  const Result swept = solve_nsgs_factored(H, inverse_mass, shell, sweeps, best_r, swept_residuals);
  if (swept.residual < best_residuals.relative_error) {
    result.z = swept.z;
    result.w = swept.w;
    result.status = swept.status;
    residuals = swept_residuals;
    result.iterations += swept.iterations;
    result.message = story + "; then nsgs from its point: " + swept.message;
    if (history) history->push_back(swept.residual);
  } else {
    result.status = unsolved;
    result.message = story + "; nsgs from its point did not improve it (" + swept.message + ")";
  }
  return result;
}

}  // namespace perp::detail
