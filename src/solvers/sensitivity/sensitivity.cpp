// Implicit differentiation of complementarity solutions, per problem type (docs/sensitivity.md):
// each adapter checks that it is given a solution, builds the box-constrained affine form
// w = K z + c, lower <= z <= upper (with the friction coupling for contact) and hands it to the
// shared kernel detail::BoxSensitivity (sensitivity_kernel.cpp), then maps the perturbations of its
// data to p = dK z + dc and back.

#include "perp/solvers/sensitivity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "entry/detail.hpp"
#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"
#include "perp/solvers/box_lcp.hpp"

namespace perp {

namespace {

using detail::kSensitivityDenseLimit;

void check_options(const SensitivityOptions& options) {
  if (!(options.tolerance > 0 && options.tolerance < 1)) {
    throw InvalidProblem("sensitivity options: tolerance must be in (0, 1), got " + number_text(options.tolerance));
  }
  if (!(options.solution_tolerance > 0 && options.solution_tolerance < 1)) {
    throw InvalidProblem("sensitivity options: solution_tolerance must be in (0, 1), got " +
                         number_text(options.solution_tolerance));
  }
}

// `v` when sized n, zeros when empty; throws otherwise.
Eigen::VectorXd or_zero(const Eigen::VectorXd& v, Eigen::Index n, const char* field) {
  if (v.size() == 0) return Eigen::VectorXd::Zero(n);
  require_size(v, n, field);
  require_finite(v, field);
  return v;
}

// dK z for a perturbation dK (empty: zero) of an r×cols block.
Eigen::VectorXd times_or_zero(const Eigen::MatrixXd& dK, Eigen::Index rows, const Eigen::VectorXd& z, const char* field) {
  if (dK.size() == 0) return Eigen::VectorXd::Zero(rows);
  if (dK.rows() != rows || dK.cols() != z.size()) {
    throw InvalidProblem(std::string(field) + ": expected " + std::to_string(rows) + "x" + std::to_string(z.size()) +
                         ", got " + std::to_string(dK.rows()) + "x" + std::to_string(dK.cols()));
  }
  require_finite(dK, field);
  return dK * z;
}

void require_solution(double relative, double tolerance, const char* what) {
  if (!(relative <= tolerance)) {
    throw InvalidProblem(std::string(what) + " is not a solution: its relative residual is " + number_text(relative) +
                         " (solution_tolerance " + number_text(tolerance) +
                         "); derivatives are taken at a solution only");
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// LCP

LcpSensitivity::LcpSensitivity(const Lcp& problem, const Eigen::VectorXd& z, const SensitivityOptions& options)
    : z_(z) {
  problem.validate();
  check_options(options);
  require_size(z, problem.size(), "z");
  require_finite(z, "z");
  const Eigen::VectorXd w = problem.M * z + problem.q;
  require_solution(relative_residual(problem, z, w), options.solution_tolerance, "z");
  const Eigen::Index n = problem.size();
  kernel_ = detail::BoxSensitivity(problem.M, w, z, Eigen::VectorXd::Zero(n),
                                   Eigen::VectorXd::Constant(n, std::numeric_limits<double>::infinity()),
                                   std::vector<Eigen::Index>(static_cast<std::size_t>(n), -1), Eigen::VectorXd::Zero(n),
                                   static_cast<double>(w_scale(problem.M, problem.q, z)), options);
}

Eigen::VectorXd LcpSensitivity::jvp(const Eigen::MatrixXd& dM, const Eigen::VectorXd& dq) const {
  const Eigen::Index n = z_.size();
  const Eigen::VectorXd p = times_or_zero(dM, n, z_, "dM") + or_zero(dq, n, "dq");
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  return kernel_.jvp(p, zero, zero, zero);
}

detail::BoxSensitivity::Directional LcpSensitivity::directional(const Eigen::MatrixXd& dM, const Eigen::VectorXd& dq) const {
  const Eigen::Index n = z_.size();
  const Eigen::VectorXd p = times_or_zero(dM, n, z_, "dM") + or_zero(dq, n, "dq");
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  return kernel_.directional(p, zero, zero);
}

LcpSensitivity::Gradient LcpSensitivity::vjp(const Eigen::VectorXd& z_bar) const {
  const auto adj = kernel_.vjp(z_bar);
  return {adj.p * z_.transpose(), adj.p};
}

// ---------------------------------------------------------------------------------------------
// Box LCP

BoxLcpSensitivity::BoxLcpSensitivity(const BoxLcp& problem, const Eigen::VectorXd& z, const SensitivityOptions& options)
    : z_(z), friction_(problem.friction) {
  problem.validate();
  check_options(options);
  const Eigen::Index n = problem.size();
  require_size(z, n, "z");
  require_finite(z, "z");
  const Eigen::VectorXd w = problem.M * z + problem.q;
  require_solution(relative_residual(problem, z, w), options.solution_tolerance, "z");
  std::vector<Eigen::Index> normal(static_cast<std::size_t>(n), -1);
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(n);
  for (const FrictionCoupling& f : problem.friction) {
    normal[static_cast<std::size_t>(f.index)] = f.normal;
    mu(f.index) = f.mu;
  }
  kernel_ = detail::BoxSensitivity(problem.M, w, z, problem.lower, problem.upper, normal, mu,
                                   static_cast<double>(w_scale(problem.M, problem.q, z)), options);
}

Eigen::VectorXd BoxLcpSensitivity::p_of(const Perturbation& d) const {
  const Eigen::Index n = z_.size();
  return times_or_zero(d.M, n, z_, "M") + or_zero(d.q, n, "q");
}

Eigen::VectorXd BoxLcpSensitivity::mu_of(const Perturbation& d) const {
  const Eigen::Index n = z_.size();
  Eigen::VectorXd per_component = Eigen::VectorXd::Zero(n);
  if (d.mu.size() == 0) return per_component;
  require_size(d.mu, static_cast<Eigen::Index>(friction_.size()), "mu");
  require_finite(d.mu, "mu");
  for (std::size_t f = 0; f < friction_.size(); ++f) per_component(friction_[f].index) = d.mu(static_cast<Eigen::Index>(f));
  return per_component;
}

// Infinite bounds have no perturbation: their entries are read as zero.
static Eigen::VectorXd bound_perturbation(const Eigen::VectorXd& d, Eigen::Index n, const char* field) {
  if (d.size() == 0) return Eigen::VectorXd::Zero(n);
  require_size(d, n, field);
  return d.unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });
}

Eigen::VectorXd BoxLcpSensitivity::jvp(const Perturbation& d) const {
  const Eigen::Index n = z_.size();
  return kernel_.jvp(p_of(d), bound_perturbation(d.lower, n, "lower"), bound_perturbation(d.upper, n, "upper"), mu_of(d));
}

detail::BoxSensitivity::Directional BoxLcpSensitivity::directional(const Perturbation& d) const {
  const Eigen::Index n = z_.size();
  if (d.mu.size() != 0 && d.mu.cwiseAbs().maxCoeff() > 0) {
    throw InvalidProblem("BoxLcpSensitivity::directional: a perturbation of mu is not supported (use jvp)");
  }
  return kernel_.directional(p_of(d), bound_perturbation(d.lower, n, "lower"), bound_perturbation(d.upper, n, "upper"));
}

BoxLcpSensitivity::Perturbation BoxLcpSensitivity::vjp(const Eigen::VectorXd& z_bar) const {
  const auto adj = kernel_.vjp(z_bar);
  Perturbation g;
  g.M = adj.p * z_.transpose();
  g.q = adj.p;
  g.lower = adj.lower;
  g.upper = adj.upper;
  g.mu = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(friction_.size()));
  for (std::size_t f = 0; f < friction_.size(); ++f) g.mu(static_cast<Eigen::Index>(f)) = adj.mu(friction_[f].index);
  return g;
}

// ---------------------------------------------------------------------------------------------
// MLCP: z = (u, v), u free (bounds ±∞), v >= 0.

MlcpSensitivity::MlcpSensitivity(const Mlcp& problem, const Eigen::VectorXd& z, const SensitivityOptions& options)
    : n_(problem.equalities()), m_(problem.complementarities()), z_(z) {
  problem.validate();
  check_options(options);
  const Eigen::Index size = problem.size();
  require_size(z, size, "z");
  require_finite(z, "z");
  const Eigen::VectorXd w = problem.slack(z);
  require_solution(relative_residual(problem, z, w), options.solution_tolerance, "z");
  const double inf = std::numeric_limits<double>::infinity();
  Eigen::VectorXd lower(size), upper = Eigen::VectorXd::Constant(size, inf);
  lower << Eigen::VectorXd::Constant(n_, -inf), Eigen::VectorXd::Zero(m_);
  const Eigen::MatrixXd K = problem.matrix();
  kernel_ = detail::BoxSensitivity(K, w, z, lower, upper, std::vector<Eigen::Index>(static_cast<std::size_t>(size), -1),
                                   Eigen::VectorXd::Zero(size), static_cast<double>(w_scale(K, problem.offset(), z)),
                                   options);
}

Eigen::VectorXd MlcpSensitivity::p_of(const Blocks& d) const {
  const Eigen::VectorXd u = z_.head(n_), v = z_.tail(m_);
  Eigen::VectorXd p(n_ + m_);
  p.head(n_) = times_or_zero(d.A, n_, u, "A") + times_or_zero(d.C, n_, v, "C") + or_zero(d.a, n_, "a");
  p.tail(m_) = times_or_zero(d.D, m_, u, "D") + times_or_zero(d.B, m_, v, "B") + or_zero(d.b, m_, "b");
  return p;
}

Eigen::VectorXd MlcpSensitivity::jvp(const Blocks& d) const {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n_ + m_);
  return kernel_.jvp(p_of(d), zero, zero, zero);
}

detail::BoxSensitivity::Directional MlcpSensitivity::directional(const Blocks& d) const {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n_ + m_);
  return kernel_.directional(p_of(d), zero, zero);
}

MlcpSensitivity::Blocks MlcpSensitivity::vjp(const Eigen::VectorXd& z_bar) const {
  const auto adj = kernel_.vjp(z_bar);
  const Eigen::VectorXd u = z_.head(n_), v = z_.tail(m_);
  const Eigen::VectorXd pa = adj.p.head(n_), pb = adj.p.tail(m_);
  return {pa * u.transpose(), pb * v.transpose(), pa * v.transpose(), pb * u.transpose(), pa, pb};
}

// ---------------------------------------------------------------------------------------------
// QP through its KKT LCP: z = (x, μ), K = [[Q, −Aᵀ], [A, 0]], c = (c, −b).

QpSensitivity::QpSensitivity(const Qp& problem, const Eigen::VectorXd& x, const Eigen::VectorXd& mu,
                             const SensitivityOptions& options)
    : n_(problem.variables()), k_(problem.constraints()), x_(x), mu_(mu) {
  problem.validate();
  check_options(options);
  require_size(x, n_, "x");
  require_size(mu, k_, "mu");
  require_finite(x, "x");
  require_finite(mu, "mu");
  const Lcp kkt = kkt_lcp(problem);
  Eigen::VectorXd z(n_ + k_);
  z << x, mu;
  require_solution(relative_residual(kkt, z, kkt.M * z + kkt.q), options.solution_tolerance, "(x, mu)");
  kernel_ = detail::BoxSensitivity(kkt.M, kkt.M * z + kkt.q, z, Eigen::VectorXd::Zero(n_ + k_),
                                   Eigen::VectorXd::Constant(n_ + k_, std::numeric_limits<double>::infinity()),
                                   std::vector<Eigen::Index>(static_cast<std::size_t>(n_ + k_), -1),
                                   Eigen::VectorXd::Zero(n_ + k_), static_cast<double>(w_scale(kkt.M, kkt.q, z)), options);
}

Eigen::VectorXd QpSensitivity::p_of(const Data& d) const {
  Eigen::VectorXd p(n_ + k_);
  Eigen::VectorXd dAt_mu = Eigen::VectorXd::Zero(n_);
  if (d.A.size() != 0) {
    if (d.A.rows() != k_ || d.A.cols() != n_) {
      throw InvalidProblem("A: expected " + std::to_string(k_) + "x" + std::to_string(n_) + ", got " +
                           std::to_string(d.A.rows()) + "x" + std::to_string(d.A.cols()));
    }
    require_finite(d.A, "A");
    dAt_mu = d.A.transpose() * mu_;
  }
  p.head(n_) = times_or_zero(d.Q, n_, x_, "Q") + or_zero(d.c, n_, "c") - dAt_mu;
  p.tail(k_) = times_or_zero(d.A, k_, x_, "A") - or_zero(d.b, k_, "b");
  return p;
}

QpSensitivity::Point QpSensitivity::jvp(const Data& d) const {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n_ + k_);
  const Eigen::VectorXd dz = kernel_.jvp(p_of(d), zero, zero, zero);
  return {dz.head(n_), dz.tail(k_)};
}

QpSensitivity::Data QpSensitivity::vjp(const Eigen::VectorXd& x_bar, const Eigen::VectorXd& mu_bar) const {
  require_size(x_bar, n_, "x_bar");
  require_finite(x_bar, "x_bar");
  Eigen::VectorXd z_bar(n_ + k_);
  z_bar << x_bar, or_zero(mu_bar, k_, "mu_bar");
  const auto adj = kernel_.vjp(z_bar);
  const Eigen::VectorXd p1 = adj.p.head(n_), p2 = adj.p.tail(k_);
  Data g;
  g.Q = p1 * x_.transpose();
  g.A = p2 * x_.transpose() - mu_ * p1.transpose();
  g.c = p1;
  g.b = -p2;
  return g;
}

// ---------------------------------------------------------------------------------------------
// 2D frictional contact: r = (r_N, r_T) per contact, r_N >= 0, r_T coupled to r_N by μ.

FrictionContactSensitivity::FrictionContactSensitivity(const FrictionContact& problem, const Eigen::VectorXd& r,
                                                       const SensitivityOptions& options)
    : r_(r) {
  problem.validate();
  check_options(options);
  if (problem.dimension != 2) {
    throw InvalidProblem("FrictionContactSensitivity: dimension " + std::to_string(problem.dimension) +
                         " is not supported (only d = 2)");
  }
  const Eigen::Index n = problem.size();
  if (n > kSensitivityDenseLimit) {
    throw InvalidProblem("FrictionContactSensitivity: " + std::to_string(n) + " unknowns exceed the dense limit of " +
                         std::to_string(kSensitivityDenseLimit));
  }
  require_size(r, n, "r");
  require_finite(r, "r");
  const Eigen::VectorXd u = problem.velocity(r);
  const FrictionContactResiduals residuals = friction_contact_residuals(problem, r, u);
  require_solution(residuals.relative_error, options.solution_tolerance, "r");
  const double inf = std::numeric_limits<double>::infinity();
  Eigen::VectorXd lower(n), upper(n), mu = Eigen::VectorXd::Zero(n);
  std::vector<Eigen::Index> normal(static_cast<std::size_t>(n), -1);
  for (Eigen::Index c = 0; c < problem.contacts(); ++c) {
    lower(2 * c) = 0;
    upper(2 * c) = inf;
    lower(2 * c + 1) = -inf;
    upper(2 * c + 1) = inf;
    normal[static_cast<std::size_t>(2 * c + 1)] = 2 * c;
    mu(2 * c + 1) = problem.mu(c);
  }
  const double scale = n > 0 ? problem.q.cwiseAbs().maxCoeff() : 0.0;
  kernel_ = detail::BoxSensitivity(Eigen::MatrixXd(problem.W), u, r, lower, upper, normal, mu, scale, options);
}

Eigen::VectorXd FrictionContactSensitivity::jvp(const Perturbation& d) const {
  const Eigen::Index n = r_.size();
  const Eigen::Index nc = n / 2;
  const Eigen::VectorXd p = times_or_zero(d.W, n, r_, "W") + or_zero(d.q, n, "q");
  Eigen::VectorXd dmu = Eigen::VectorXd::Zero(n);
  const Eigen::VectorXd dmu_c = or_zero(d.mu, nc, "mu");
  for (Eigen::Index c = 0; c < nc; ++c) dmu(2 * c + 1) = dmu_c(c);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  return kernel_.jvp(p, zero, zero, dmu);
}

FrictionContactSensitivity::Perturbation FrictionContactSensitivity::vjp(const Eigen::VectorXd& r_bar) const {
  const Eigen::Index n = r_.size();
  const auto adj = kernel_.vjp(r_bar);
  Perturbation g;
  g.W = adj.p * r_.transpose();
  g.q = adj.p;
  g.mu = Eigen::VectorXd(n / 2);
  for (Eigen::Index c = 0; c < n / 2; ++c) g.mu(c) = adj.mu(2 * c + 1);
  return g;
}

}  // namespace perp