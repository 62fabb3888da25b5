#include "nsgs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

// The exact local solvers of one contact (nsgs.hpp: solve_local_2d, solve_local_3d, local_error,
// LocalProblems): what every sweep of nsgs, nsgs on the factors and prox calls per contact.

namespace perp::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

// De Saxcé's natural map of one contact, squared: ‖r − P_K(r − û)‖², û = u + μ‖u_T‖ e_N.
double natural_map_squared(int d, double mu, const double* r, const double* u) {
  double ut = 0;
  for (int k = 1; k < d; ++k) ut += u[k] * u[k];
  ut = std::sqrt(ut);
  double x[3];
  double p[3];
  x[0] = r[0] - (u[0] + mu * ut);
  for (int k = 1; k < d; ++k) x[k] = r[k] - u[k];
  project_on_cone(x, d, mu, p);
  double s = 0;
  for (int k = 0; k < d; ++k) s += (r[k] - p[k]) * (r[k] - p[k]);
  return s;
}

double norm(int d, const double* x) {
  double s = 0;
  for (int k = 0; k < d; ++k) s += x[k] * x[k];
  return std::sqrt(s);
}

// project_on_cone for d = 3, inline (the same formula): the 3D local solve calls it several times
// an iteration, and the call and the loops over d were a sixth of the pyramid's step (perf, issue 36).
inline void project3(const double* x, double mu, double* out) {
  const double normal = x[0];
  const double tangential = std::sqrt(x[1] * x[1] + x[2] * x[2]);
  if (mu * tangential <= -normal) {
    out[0] = out[1] = out[2] = 0;
    return;
  }
  if (tangential <= mu * normal) {
    out[0] = x[0];
    out[1] = x[1];
    out[2] = x[2];
    return;
  }
  const double projected_normal = (normal + mu * tangential) / (1 + mu * mu);
  const double scale = mu * projected_normal / tangential;
  out[0] = projected_normal;
  out[1] = scale * x[1];
  out[2] = scale * x[2];
}

// local_error for d = 3, inline: the same value (max of the three norms taken as the root of the
// largest square, one root instead of three).
inline double local_error3(const Mat3& A, double mu, const Vec3& b, const Vec3& r) {
  // u = b + A r summed in local_error's order (b first), so that both give the same value.
  Vec3 u;
  for (int k = 0; k < 3; ++k) u[k] = ((b[k] + A(k, 0) * r[0]) + A(k, 1) * r[1]) + A(k, 2) * r[2];
  const double ut = std::sqrt(u[1] * u[1] + u[2] * u[2]);
  const double x[3] = {r[0] - (u[0] + mu * ut), r[1] - u[1], r[2] - u[2]};
  double p[3];
  project3(x, mu, p);
  const double e = std::sqrt((r[0] - p[0]) * (r[0] - p[0]) + (r[1] - p[1]) * (r[1] - p[1]) + (r[2] - p[2]) * (r[2] - p[2]));
  const double scale = std::sqrt(std::max({b.squaredNorm(), r.squaredNorm(), u.squaredNorm()}));
  return scale > 0 ? e / scale : e;
}

// The Newton step J d = −Φ: by Gaussian elimination with partial pivoting, written out for 3×3,
// where every pivot is at least kPivotFloor times J's largest entry; otherwise (J singular or
// nearly so) by LU with full pivoting where J is invertible, else the least-squares step of least
// norm (a singular J: a rank-deficient block, a row of A zero or A of rank one), a descent
// direction for ‖Φ‖² unless Φ ⊥ range(J). Eigen's FullPivLU for every step was a fifth of a
// Capsules solve's time (perf, issue 35). (The 3×3 inverse by cofactors, tried before, moved the
// tower's 10 s drift from 4.6e-10 to 1.2e-9 m: elimination with pivoting keeps LU's round-off.)
constexpr double kPivotFloor = 1e-10;
inline Vec3 newton_step(const Mat3& J, const Vec3& phi) {
  double m[3][4];
  double largest = 0;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      m[i][j] = J(i, j);
      largest = std::max(largest, std::abs(m[i][j]));
    }
    m[i][3] = -phi[i];
  }
  bool pivoted = largest > 0 && std::isfinite(largest);
  for (int k = 0; k < 3 && pivoted; ++k) {
    int p = k;
    for (int i = k + 1; i < 3; ++i) {
      if (std::abs(m[i][k]) > std::abs(m[p][k])) p = i;
    }
    if (!(std::abs(m[p][k]) >= kPivotFloor * largest)) {
      pivoted = false;
      break;
    }
    if (p != k) {
      for (int j = k; j < 4; ++j) std::swap(m[k][j], m[p][j]);
    }
    for (int i = k + 1; i < 3; ++i) {
      const double factor = m[i][k] / m[k][k];
      for (int j = k + 1; j < 4; ++j) m[i][j] -= factor * m[k][j];
    }
  }
  if (pivoted) {
    Vec3 d;
    d[2] = m[2][3] / m[2][2];
    d[1] = (m[1][3] - m[1][2] * d[2]) / m[1][1];
    d[0] = (m[0][3] - m[0][1] * d[1] - m[0][2] * d[2]) / m[0][0];
    return d;
  }
  const Eigen::FullPivLU<Mat3> lu(J);
  if (lu.isInvertible()) return lu.solve(-phi);
  return Eigen::CompleteOrthogonalDecomposition<Mat3>(J).solve(-phi);
}

// The Alart–Curnier function Φ(r) of one 3D contact and an element of its generalized Jacobian:
//   Φ_N = r_N − max(0, p_N),                       p_N = r_N − ρ_N u_N,
//   Φ_T = r_T − P_{disk(μ max(0, p_N))}(p_T),      p_T = r_T − ρ_T u_T,   u = A r + b.
void alart_curnier(const Mat3& A, double mu, const Vec3& b, const Vec3& r, double rho_n, double rho_t, Vec3& phi,
                   Mat3* J) {
  const Vec3 u = A * r + b;
  const double pn = r[0] - rho_n * u[0];
  const Eigen::RowVector3d e0(1, 0, 0);
  Eigen::RowVector3d dpn = e0 - rho_n * A.row(0);
  if (pn > 0) {
    phi[0] = rho_n * u[0];
    if (J) J->row(0) = rho_n * A.row(0);
  } else {
    phi[0] = r[0];
    if (J) J->row(0) = e0;
  }
  const double radius = mu * std::max(pn, 0.0);
  const Eigen::Vector2d pt(r[1] - rho_t * u[1], r[2] - rho_t * u[2]);
  const double pt_norm = pt.norm();
  if (pt_norm <= radius) {
    phi[1] = rho_t * u[1];
    phi[2] = rho_t * u[2];
    if (J) J->bottomRows<2>() = rho_t * A.bottomRows<2>();
    return;
  }
  const Eigen::Vector2d n = pt / pt_norm;  // pt_norm > radius >= 0
  phi[1] = r[1] - radius * n[0];
  phi[2] = r[2] - radius * n[1];
  if (!J) return;
  Eigen::Matrix<double, 2, 3> dpt = -rho_t * A.bottomRows<2>();
  dpt(0, 1) += 1;
  dpt(1, 2) += 1;
  Eigen::Matrix<double, 2, 3> dproj = (radius / pt_norm) * (Eigen::Matrix2d::Identity() - n * n.transpose()) * dpt;
  if (pn > 0) dproj += n * (mu * dpn);
  Eigen::Matrix<double, 2, 3> jt = -dproj;
  jt(0, 1) += 1;
  jt(1, 2) += 1;
  J->bottomRows<2>() = jt;
}

}  // namespace

double local_error(const double* A, int dimension, double mu, const double* b, const double* r) {
  const int d = dimension;
  double u[3];
  for (int k = 0; k < d; ++k) {
    u[k] = b[k];
    for (int l = 0; l < d; ++l) u[k] += A[k * d + l] * r[l];
  }
  const double scale = std::max({norm(d, b), norm(d, r), norm(d, u)});
  const double e = std::sqrt(natural_map_squared(d, mu, r, u));
  return scale > 0 ? e / scale : e;
}

Local2d prepare_local_2d(const double* A, double mu) {
  Local2d L;
  L.a = A[0];
  L.b = A[1];
  L.c = A[2];
  L.e = A[3];
  const auto reciprocal = [](double x) {
    const double inv = 1 / x;
    return std::isfinite(inv) ? inv : 0.0;
  };
  const double det = L.a * L.e - L.b * L.c;
  L.inv_det = det != 0 && std::isfinite(det) ? reciprocal(det) : 0.0;
  const double forward = L.a - mu * L.b;
  const double backward = L.a + mu * L.b;
  L.inv_forward = forward > 0 ? reciprocal(forward) : 0.0;
  L.inv_backward = backward > 0 ? reciprocal(backward) : 0.0;
  L.inv_a = L.a > 0 ? reciprocal(L.a) : 0.0;
  return L;
}

bool solve_local_2d(const double* A, double mu, const double* b, double* r) {
  return solve_local_2d(prepare_local_2d(A, mu), mu, b, r);
}

bool solve_local_2d(const Local2d& L, double mu, const double* bias, double* r) {
  if (solve_local_2d_exact(L, mu, bias, r)) return true;
  const double bn = bias[0], bt = bias[1];
  // The cases again (nsgs.hpp, solve_local_2d_exact), for the candidate closest to its conditions.
  const double stick_n = (-L.e * bn + L.b * bt) * L.inv_det;
  const double stick_t = (L.c * bn - L.a * bt) * L.inv_det;
  const double forward_n = -bn * L.inv_forward;
  const double forward_ut = (L.c - mu * L.e) * forward_n + bt;
  const double backward_n = -bn * L.inv_backward;
  const double backward_ut = (L.c + mu * L.e) * backward_n + bt;
  if (mu == 0) {  // frictionless and a <= 0 with b_N < 0: no r_N >= 0 gives u_N >= 0
    r[0] = 0;
    r[1] = 0;
    return false;
  }
  // No case holds exactly (round-off at a boundary between cases, or an indefinite or degenerate
  // block): the candidate closest to its case's conditions, in the units of r, put back in the cone.
  const double magnitude = std::max({std::abs(L.a), std::abs(L.b), std::abs(L.c), std::abs(L.e)});
  double best = kInf;
  double candidate[2] = {0, 0};
  const auto consider = [&](double violation, double cn, double ct) {
    if (std::isfinite(violation) && std::isfinite(cn) && std::isfinite(ct) && violation < best) {
      best = violation;
      candidate[0] = cn;
      candidate[1] = ct;
    }
  };
  if (L.inv_det != 0) consider(std::max(-stick_n, std::abs(stick_t) - mu * stick_n), stick_n, stick_t);
  if (L.inv_forward != 0) consider(-forward_ut / magnitude, forward_n, -mu * forward_n);
  if (L.inv_backward != 0) consider(backward_ut / magnitude, backward_n, mu * backward_n);
  if (best == kInf) {  // no case could be formed (a degenerate block)
    r[0] = 0;
    r[1] = 0;
    return false;
  }
  const double exact_enough = 16 * kEps * (std::abs(candidate[0]) + std::abs(candidate[1]));
  project_on_cone(candidate, 2, mu, r);
  return best <= exact_enough;
}

bool solve_local_3d(const double* A_data, const double* inverse, double mu, const double* b_data, double* r_data,
                    double tolerance, int iterations) {
  const Eigen::Map<const Mat3> A(A_data);
  const Eigen::Map<const Vec3> b(b_data);
  Eigen::Map<Vec3> r(r_data);
  if (b[0] >= 0) {  // take-off
    r.setZero();
    return true;
  }
  if (mu == 0) {
    r[1] = 0;
    r[2] = 0;
    if (A(0, 0) > 0) {
      r[0] = -b[0] / A(0, 0);
      return true;
    }
    r[0] = 0;
    return false;
  }
  if (inverse) {  // stick
    const Vec3 x = -(Eigen::Map<const Mat3>(inverse) * b);
    // ‖x_T‖ <= μ x_N, squared (hypot was a twelfth of the pyramid's step); x_N >= 0 first.
    if (x.allFinite() && x[0] >= 0 && x[1] * x[1] + x[2] * x[2] <= (mu * x[0]) * (mu * x[0])) {
      r = x;
      return true;
    }
  }
  // Slide (or a stick missed by round-off): Alart–Curnier Newton from the current r, in the cone.
  const Mat3 Am = A;
  const Vec3 bv = b;
  const double rho_n = A(0, 0) > 0 ? 1 / A(0, 0) : 1 / std::max(A.cwiseAbs().maxCoeff(), 1e-300);
  const double tt = 0.5 * (A(1, 1) + A(2, 2));
  const double rho_t = tt > 0 ? 1 / tt : rho_n;
  Vec3 x = r;
  if (!x.allFinite()) x.setZero();
  project3(x.data(), mu, x.data());
  double x_error = local_error3(Am, mu, bv, x);
  Vec3 phi;
  Mat3 J;
  bool converged = x_error <= tolerance;
  for (int it = 0; it < iterations && !converged; ++it) {
    alart_curnier(Am, mu, bv, x, rho_n, rho_t, phi, &J);
    const double merit = phi.squaredNorm();
    const Vec3 step = newton_step(J, phi);
    if (!step.allFinite()) break;
    double t = 1;
    bool accepted = false;
    Vec3 trial;
    Vec3 trial_phi;
    for (int k = 0; k < 30; ++k, t *= 0.5) {
      trial = x + t * step;
      alart_curnier(Am, mu, bv, trial, rho_n, rho_t, trial_phi, nullptr);
      if (trial_phi.squaredNorm() <= (1 - 1e-4 * t) * merit) {
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
    const bool tiny = (t * step).norm() <= 4 * kEps * std::max(x.norm(), trial.norm());
    x = trial;
    Vec3 projected;
    project3(x.data(), mu, projected.data());
    x_error = local_error3(Am, mu, bv, x);
    if (projected != x) {  // x outside the cone: keep whichever of the two is nearer a solution
      const double e_projected = local_error3(Am, mu, bv, projected);
      if (e_projected <= x_error) {
        x = projected;
        x_error = e_projected;
      }
    }
    if (x_error <= tolerance || tiny) converged = true;
  }
  if (converged) {
    r = x;
    return true;
  }
  // Fallback: the projection iteration, from the best point so far, for at most 20 × `iterations`
  // steps in rounds of `iterations`, its error measured at the end of each round. The iteration
  // converges linearly at best: when the rounds left, at the rate of the last one, would not bring
  // the error to the tolerance, the fallback stops there. In
  // fuzz/regressions/friction/nsgs_3d_two_contacts_sweep_limit_1.8s it ran its 1 000 steps, each
  // measured, on every failing solve (85 µs each, 10 000 sweeps in 1.6 s), most with no progress.
  const double step = 1 / std::max(A.norm(), 1e-300);  // ‖A‖_F >= ‖A‖₂
  Vec3 y = x;
  Vec3 best = x;
  double best_error = x_error;
  const int rounds = 20;
  for (int round = 1; round <= rounds; ++round) {
    const double round_start = best_error;
    for (int it = 0; it < iterations; ++it) {
      const Vec3 u = Am * y + bv;
      Vec3 z = y - step * u;
      z[0] -= step * mu * std::hypot(u[1], u[2]);
      project_on_cone(z.data(), 3, mu, y.data());
    }
    const double e = local_error(A_data, 3, mu, b_data, y.data());
    if (e < best_error) {
      best_error = e;
      best = y;
    }
    if (best_error <= tolerance) break;
    // The error the rounds left would end at, at this round's rate.
    const double rate = best_error / round_start;
    if (!(best_error * std::pow(rate, rounds - round) <= tolerance)) break;
  }
  r = best;
  return best_error <= tolerance;
}

void LocalProblems::prepare(std::vector<double> blocks, const Eigen::VectorXd& mu) {
  blocks_ = std::move(blocks);
  const Eigen::Index nc = mu.size();
  if (d_ == 2) {
    local2_.resize(static_cast<std::size_t>(nc));
    for (Eigen::Index i = 0; i < nc; ++i) {
      local2_[static_cast<std::size_t>(i)] = prepare_local_2d(blocks_.data() + i * 4, mu[i]);
    }
    return;
  }
  inverse_.assign(static_cast<std::size_t>(nc) * 9, 0.0);
  invertible_.assign(static_cast<std::size_t>(nc), 0);
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Eigen::Map<const Mat3> A(blocks_.data() + i * 9);
    const Eigen::FullPivLU<Mat3> lu(A);
    // A stick solution is only trusted from a reasonably conditioned block; Newton handles the rest.
    if (lu.isInvertible() && lu.rcond() > 1e-12) {
      Eigen::Map<Mat3>(inverse_.data() + i * 9) = lu.inverse();
      invertible_[static_cast<std::size_t>(i)] = 1;
    }
  }
}

}  // namespace perp::detail
