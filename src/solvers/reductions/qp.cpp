#include "perp/solvers/qp.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "perp/core/error.hpp"
#include "perp/solvers/solve.hpp"

namespace perp {
namespace {

// Relative tolerance of the convexity test and of the certificate checks, against the largest
// entry of the data involved: the same convention as classify's (analysis/classify.hpp).
constexpr double kRelativeTolerance = 1e-10;

// A number rounded to 6 significant digits, so that a witness prints short and the value
// printed next to it is computed from exactly the vector printed.
double rounded(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return std::strtod(buffer, nullptr) + 0.0;  // + 0.0: no "-0" in a message
}

std::string vector_text(const Eigen::VectorXd& v) {
  std::string text = "[";
  for (Eigen::Index i = 0; i < v.size(); ++i) text += (i == 0 ? "" : ", ") + number_text(v[i]);
  return text + "]";
}

// Throws when Q has a direction of negative curvature beyond round-off: then ½xᵀQx + cᵀx is not
// convex, its KKT points need not be minimizers, and the KKT LCP's M is not copositive-plus, so
// Lemke's ray would prove nothing ([chapter] §1.2: the LCP ⇔ QP equivalence needs Q PSD).
void require_positive_semidefinite(const Eigen::MatrixXd& Q) {
  if (Q.size() == 0) return;
  const double scale = Q.cwiseAbs().maxCoeff();
  if (scale == 0.0) return;
  // Q is symmetric (validated), so the eigenvalues are real; the smallest decides. Eigenvalues
  // alone first (several times cheaper); the eigenvectors only for the message.
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> values(Q, Eigen::EigenvaluesOnly);
  if (values.info() != Eigen::Success) {
    throw InvalidProblem("Q: the eigenvalue decomposition that checks positive semidefiniteness failed");
  }
  if (values.eigenvalues()[0] >= -kRelativeTolerance * scale) return;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(Q);
  const double smallest = eigen.eigenvalues()[0];
  // The eigenvector of the smallest eigenvalue, scaled to max|x_i| = 1 and rounded.
  Eigen::VectorXd x = eigen.eigenvectors().col(0);
  x /= x.cwiseAbs().maxCoeff();
  // Sign convention: the largest entry positive, so the witness is the same on every platform.
  Eigen::Index largest = 0;
  x.cwiseAbs().maxCoeff(&largest);
  if (x[largest] < 0) x = -x;
  const Eigen::VectorXd shown = x.unaryExpr([](double v) { return rounded(v); });
  double value = shown.dot(Q * shown);
  Eigen::VectorXd witness = shown;
  if (!(value < 0)) {  // rounding lost the sign (a smallest eigenvalue barely below tolerance)
    witness = x;
    value = x.dot(Q * x);
  }
  throw InvalidProblem("Q is not positive semidefinite: x = " + vector_text(witness) + " gives xᵀQx = " +
                       number_text(value) + " < 0 (smallest eigenvalue about " + number_text(rounded(smallest)) +
                       "); the QP is not convex, so its KKT LCP does not characterize its minimizers");
}

// What Lemke's secondary ray on the KKT LCP proves. M = [[Q, −Aᵀ], [A, 0]] is PSD, hence
// copositive-plus, and then a secondary ray z̄ = (d, λ) satisfies z̄ >= 0, z̄ᵀMz̄ = 0, so
// (M + Mᵀ)z̄ = 0 (Q d = 0), Mᵀz̄ <= 0 (Aᵀλ <= 0, A d >= 0) and qᵀz̄ = cᵀd − bᵀλ < 0
// (Cottle–Pang–Stone §4.4). Then
//   bᵀλ > 0: λ is a Farkas certificate: λᵀA x >= λᵀb > 0 for a feasible x, but λᵀA x <= 0;
//   cᵀd < 0: d is a direction of recession (d >= 0, A d >= 0) along which the objective falls
//            linearly (Q d = 0): the QP is unbounded below if it is feasible at all.
// Returns the sentence to report, or empty when the ray does not check out to round-off.
struct RayVerdict {
  bool infeasible = false;
  bool recession = false;  // cᵀd < 0 with d a recession direction
  std::string sentence;
};

// Each condition is checked componentwise at the scale of its own terms (ε Σ|terms|, ε =
// kRelativeTolerance), so that a Q of 1e-13 beside a c of 1 is not mistaken for Q = 0: Q d = 0
// means |(Q d)_i| <= ε Σ_j |Q_ij| d_j, and so on for A d >= 0, Aᵀλ <= 0, bᵀλ > 0 and cᵀd < 0.
RayVerdict read_ray(const Qp& problem, const Eigen::VectorXd& ray) {
  const Eigen::Index n = problem.variables();
  const Eigen::Index k = problem.constraints();
  RayVerdict verdict;
  if (ray.size() != n + k || !ray.allFinite()) return verdict;
  const double ray_scale = ray.cwiseAbs().maxCoeff();
  if (!(ray_scale > 0)) return verdict;
  // Unit scale, tiny negative entries (round-off of the tableau) clipped.
  const Eigen::VectorXd d = (ray.head(n) / ray_scale).cwiseMax(0.0);
  const Eigen::VectorXd lambda = (ray.tail(k) / ray_scale).cwiseMax(0.0);
  const double eps = kRelativeTolerance;
  // Σ_j X_ij y_j and Σ_j |X_ij| y_j for y >= 0, in long double.
  const auto row = [](const Eigen::MatrixXd& X, Eigen::Index i, const Eigen::VectorXd& y, bool transpose) {
    long double sum = 0.0L, size = 0.0L;
    const Eigen::Index count = transpose ? X.rows() : X.cols();
    for (Eigen::Index j = 0; j < count; ++j) {
      const long double term = static_cast<long double>(transpose ? X(j, i) : X(i, j)) * y[j];
      sum += term;
      size += std::fabs(term);
    }
    return std::pair<long double, long double>{sum, size};
  };
  const auto dot = [](const Eigen::VectorXd& x, const Eigen::VectorXd& y) {
    long double sum = 0.0L, size = 0.0L;
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      sum += static_cast<long double>(x[j]) * y[j];
      size += std::fabs(static_cast<long double>(x[j]) * y[j]);
    }
    return std::pair<long double, long double>{sum, size};
  };

  if (k > 0 && lambda.maxCoeff() > 0) {
    bool at_lambda_nonpositive = true;  // Aᵀλ <= 0
    for (Eigen::Index j = 0; j < n && at_lambda_nonpositive; ++j) {
      const auto [sum, size] = row(problem.A, j, lambda, true);
      at_lambda_nonpositive = sum <= eps * size;
    }
    const auto [b_lambda, b_size] = dot(problem.b, lambda);  // > 0
    if (at_lambda_nonpositive && b_lambda > eps * b_size && b_lambda > 0) {
      verdict.infeasible = true;
      verdict.sentence = "the QP is infeasible: λ = " + vector_text(lambda) +
                         " >= 0 has Aᵀλ <= 0 and bᵀλ = " + number_text(static_cast<double>(b_lambda)) +
                         " > 0, so no x >= 0 satisfies A x >= b (Farkas)";
      return verdict;
    }
  }
  if (n == 0 || !(d.maxCoeff() > 0)) return verdict;
  bool flat = true;  // Q d = 0
  for (Eigen::Index i = 0; i < n && flat; ++i) {
    const auto [sum, size] = row(problem.Q, i, d, false);
    flat = std::fabs(sum) <= eps * size;
  }
  bool recedes = true;  // A d >= 0
  for (Eigen::Index i = 0; i < k && recedes; ++i) {
    const auto [sum, size] = row(problem.A, i, d, false);
    recedes = sum >= -eps * size;
  }
  const auto [c_d, c_size] = dot(problem.c, d);
  if (flat && recedes && c_d < -eps * c_size && c_d < 0) {
    verdict.recession = true;
    verdict.sentence = "d = " + vector_text(d) + " >= 0 has A d >= 0, Q d = 0 and cᵀd = " +
                       number_text(static_cast<double>(c_d)) + " < 0: the objective decreases without bound along x + t d";
  }
  return verdict;
}

// The feasibility of A x >= b, x >= 0 by the KKT LCP of the QP with Q = 0, c = 0 (its solutions
// are the feasible points with μ = 0 among them), solved by Lemke, which on this copositive-plus
// M either finds one or ends on a ray that certifies infeasibility.
// Returns the verdict of its ray (infeasible), or `feasible` set when a feasible point was found.
RayVerdict feasibility(const Qp& problem, const SolveOptions& options, bool& feasible) {
  const Eigen::Index n = problem.variables();
  const Qp zero{Eigen::MatrixXd::Zero(n, n), Eigen::VectorXd::Zero(n), problem.A, problem.b};
  const Result found = solve(kkt_lcp(zero), Method::Lemke, options);
  feasible = found.solved();
  RayVerdict verdict;
  if (found.status == Status::RayTermination && found.ray) verdict = read_ray(problem, *found.ray);
  return verdict;
}

}  // namespace

QpResult solve(const Qp& problem, Method method, const SolveOptions& options) {
  problem.validate();
  require_positive_semidefinite(problem.Q);
  const Eigen::Index n = problem.variables();
  const Eigen::Index k = problem.constraints();
  const Lcp lcp = kkt_lcp(problem);

  QpResult out;
  out.lcp = solve(lcp, method, options);
  const Result& result = out.lcp;
  out.x = result.z.head(n);
  out.mu = result.z.tail(k);
  out.nu = result.w.head(n);
  out.objective = problem.objective(out.x);
  if (out.lcp.solved()) return out;

  // No KKT point: find out why. Lemke's ray is the certificate; when the method used was not
  // Lemke (or auto returned another method's point), run Lemke for it, which terminates.
  std::optional<Eigen::VectorXd> ray = result.ray;
  if (!ray && method != Method::Lemke) {
    const Result lemke = solve(lcp, Method::Lemke, options);
    if (lemke.status == Status::RayTermination) ray = lemke.ray;
  }
  if (!ray) return out;

  RayVerdict verdict = read_ray(problem, *ray);
  if (!verdict.infeasible && verdict.recession) {
    // cᵀd < 0 alone proves unboundedness only when the feasible set is not empty.
    bool feasible = false;
    const RayVerdict check = feasibility(problem, options, feasible);
    if (check.infeasible) {
      verdict = check;
    } else if (feasible) {
      verdict.sentence = "the QP is unbounded below: it is feasible and " + verdict.sentence;
    } else {
      verdict.sentence = "the QP has no minimizer: it is infeasible, or unbounded below since " + verdict.sentence;
    }
  }
  if (verdict.sentence.empty()) {
    out.lcp.message +=
        "; Lemke's ray on the KKT LCP (PSD, hence copositive-plus, M) says the QP has no minimizer "
        "(infeasible or unbounded below), but the ray does not check out to round-off";
    return out;
  }
  // The certificate was checked against the data: the KKT LCP provably has no solution.
  out.lcp.status = Status::Infeasible;
  out.lcp.ray = *ray;
  out.lcp.message = verdict.sentence + " (from Lemke's secondary ray on the KKT LCP) [" + to_string(out.lcp.method) +
                    ": " + out.lcp.message + "]";
  return out;
}

}  // namespace perp
