#include "perp/core/friction_contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"

namespace perp {

void FrictionContact::validate() const {
  if (dimension != 2 && dimension != 3) {
    throw InvalidProblem("dimension: expected 2 or 3, got " + std::to_string(dimension));
  }
  const Eigen::Index nc = mu.size();
  const Eigen::Index n = dimension * nc;
  if (q.size() != n) {
    throw InvalidProblem("q: expected size " + std::to_string(n) + " (dimension " + std::to_string(dimension) +
                         " x " + std::to_string(nc) + " contacts, one mu each), got " + std::to_string(q.size()));
  }
  if (W.rows() != n || W.cols() != n) {
    throw InvalidProblem("W: expected " + std::to_string(n) + "x" + std::to_string(n) + " (dimension x contacts), got " +
                         std::to_string(W.rows()) + "x" + std::to_string(W.cols()));
  }
  detail::require_finite_entries(W, "W");
  require_finite(q, "q");
  detail::require_friction_coefficients(mu);
}

void detail::require_finite_entries(const Eigen::SparseMatrix<double>& A, const char* field) {
  for (Eigen::Index j = 0; j < A.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(A, j); it; ++it) {
      if (!std::isfinite(it.value())) {
        throw InvalidProblem(std::string(field) + "(" + std::to_string(it.row()) + ", " + std::to_string(it.col()) +
                             ") is " + (std::isnan(it.value()) ? "NaN" : "infinite") + "; every entry must be finite");
      }
    }
  }
}

void detail::require_friction_coefficients(const Eigen::VectorXd& mu) {
  require_finite(mu, "mu");
  for (Eigen::Index i = 0; i < mu.size(); ++i) {
    if (mu[i] < 0) {
      throw InvalidProblem("mu[" + std::to_string(i) + "] is " + number_text(mu[i]) +
                           "; a friction coefficient must be >= 0 (0 is frictionless)");
    }
  }
}

Eigen::VectorXd FrictionContact::velocity(const Eigen::VectorXd& r) const {
  require_size(r, q.size(), "r");
  Eigen::VectorXd u = q;
  u.noalias() += W * r;
  return u;
}

FrictionContact friction_contact_from_dense(int dimension, const Eigen::MatrixXd& W, const Eigen::VectorXd& q,
                                            const Eigen::VectorXd& mu) {
  FrictionContact problem;
  problem.dimension = dimension;
  problem.W = W.sparseView(0.0, 0.0);
  problem.q = q;
  problem.mu = mu;
  return problem;
}

void project_on_cone(const double* x, int dimension, double mu, double* out) {
  const double normal = x[0];
  double tangential = 0;
  for (int k = 1; k < dimension; ++k) tangential += x[k] * x[k];
  tangential = std::sqrt(tangential);
  if (mu * tangential <= -normal) {
    for (int k = 0; k < dimension; ++k) out[k] = 0;
    return;
  }
  if (tangential <= mu * normal) {
    for (int k = 0; k < dimension; ++k) out[k] = x[k];
    return;
  }
  // Outside both cones: tangential > 0 here (otherwise one of the two tests above held).
  const double projected_normal = (normal + mu * tangential) / (1 + mu * mu);
  const double scale = mu * projected_normal / tangential;
  out[0] = projected_normal;
  for (int k = 1; k < dimension; ++k) out[k] = scale * x[k];
}

FrictionContactResiduals friction_contact_residuals(const FrictionContact& problem, const Eigen::VectorXd& r) {
  return friction_contact_residuals(problem, r, problem.velocity(r));
}

const char* law_name(FrictionLaw law) { return law == FrictionLaw::Coulomb ? "coulomb" : "convex"; }

FrictionContactResiduals friction_contact_residuals(const FrictionContact& problem, const Eigen::VectorXd& r,
                                                    const Eigen::VectorXd& u) {
  require_size(r, problem.size(), "r");
  require_size(u, problem.size(), "u");
  return cone_residuals(problem.dimension, problem.mu, r, u, FrictionLaw::Coulomb, problem.q.blueNorm());
}

FrictionContactResiduals cone_residuals(int dimension, const Eigen::VectorXd& mus, const Eigen::VectorXd& r,
                                        const Eigen::VectorXd& u, FrictionLaw law, double scale_floor) {
  const int d = dimension;
  require_size(r, d * mus.size(), "r");
  require_size(u, d * mus.size(), "u");
  const bool coulomb = law == FrictionLaw::Coulomb;
  FrictionContactResiduals out;
  double squared = 0;  // Σ (e / largest)²
  double largest = 0;
  double x[3];
  double projected[3];
  for (Eigen::Index i = 0; i < mus.size(); ++i) {
    const double* ri = r.data() + i * d;
    const double* ui = u.data() + i * d;
    const double mu = mus[i];
    double ut_norm = 0;
    double rt_norm = 0;
    double rt_dot_ut = 0;
    for (int k = 1; k < d; ++k) {
      ut_norm += ui[k] * ui[k];
      rt_norm += ri[k] * ri[k];
      rt_dot_ut += ri[k] * ui[k];
    }
    ut_norm = std::sqrt(ut_norm);
    rt_norm = std::sqrt(rt_norm);
    // Natural map: r − P_K(r − û), û = u + μ‖u_T‖ e_N (Coulomb) or u (convex).
    x[0] = ri[0] - (ui[0] + (coulomb ? mu * ut_norm : 0.0));
    for (int k = 1; k < d; ++k) x[k] = ri[k] - ui[k];
    project_on_cone(x, d, mu, projected);
    for (int k = 0; k < d; ++k) {
      const double e = ri[k] - projected[k];
      // Scaled sum of squares (LAPACK's dnrm2 update), so that errors of 1e-200 do not underflow
      // to 0 and errors of 1e200 do not overflow.
      if (e != 0) {
        const double magnitude = std::abs(e);
        if (magnitude > largest) {
          squared = 1 + squared * (largest / magnitude) * (largest / magnitude);
          largest = magnitude;
        } else {
          squared += (magnitude / largest) * (magnitude / largest);
        }
      }
    }
    // The normal velocity the law's Signorini condition applies to.
    const double normal = coulomb ? ui[0] : ui[0] - mu * ut_norm;
    out.signorini = std::max(out.signorini, -normal);
    out.coulomb = std::max({out.coulomb, rt_norm - mu * ri[0], -ri[0]});
    out.complementarity = std::max(out.complementarity, std::abs(ri[0] * normal));
    out.dissipation = std::max(out.dissipation, std::abs(rt_dot_ut + mu * ri[0] * ut_norm));
  }
  out.absolute_error = largest * std::sqrt(squared);
  const double scale = std::max({scale_floor, r.blueNorm(), u.blueNorm()});
  out.relative_error = scale > 0 ? out.absolute_error / scale : out.absolute_error;
  // A point whose r or u overflowed is measured as infinitely far (dividing by an infinite scale
  // would call it exact).
  if (!std::isfinite(scale) || !std::isfinite(out.absolute_error)) {
    out.absolute_error = out.relative_error = std::numeric_limits<double>::infinity();
  }
  return out;
}

}  // namespace perp
