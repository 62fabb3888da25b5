#include "perp/core/global_friction_contact.hpp"

#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "perp/core/error.hpp"
#include "perp/core/lcp.hpp"

namespace perp {
namespace {

using ColSparse = Eigen::SparseMatrix<double>;

std::string dims(Eigen::Index rows, Eigen::Index cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

/// M⁻¹ x: 1/M_ii where M is diagonal, else a sparse Cholesky factor (InvalidProblem where it fails).
class MassSolver {
 public:
  explicit MassSolver(const GlobalFrictionContact& problem) : diagonal_(problem.diagonal_mass()) {
    if (diagonal_) {
      inverse_ = problem.M.diagonal().cwiseInverse();
      return;
    }
    llt_.compute(problem.M);
    if (llt_.info() != Eigen::Success) {
      throw InvalidProblem("M: not positive definite (its sparse Cholesky factorization failed)");
    }
  }
  [[nodiscard]] Eigen::VectorXd solve(const Eigen::VectorXd& x) const {
    if (diagonal_) return inverse_.cwiseProduct(x);
    return llt_.solve(x);
  }
  [[nodiscard]] ColSparse solve(const ColSparse& X) const {
    if (diagonal_) return inverse_.asDiagonal() * X;
    return llt_.solve(X);
  }

 private:
  bool diagonal_;
  Eigen::VectorXd inverse_;
  Eigen::SimplicialLLT<ColSparse> llt_;
};

}  // namespace

void GlobalFrictionContact::validate() const {
  if (dimension != 2 && dimension != 3) {
    throw InvalidProblem("dimension: expected 2 or 3, got " + std::to_string(dimension));
  }
  const Eigen::Index nc = mu.size();
  const Eigen::Index n = dimension * nc;
  const Eigen::Index m = q.size();
  if (b.size() != n) {
    throw InvalidProblem("b: expected size " + std::to_string(n) + " (dimension " + std::to_string(dimension) + " x " +
                         std::to_string(nc) + " contacts, one mu each), got " + std::to_string(b.size()));
  }
  if (M.rows() != m || M.cols() != m) {
    throw InvalidProblem("M: expected " + dims(m, m) + " (q's size, the degrees of freedom), got " +
                         dims(M.rows(), M.cols()));
  }
  if (H.rows() != m || H.cols() != n) {
    throw InvalidProblem("H: expected " + dims(m, n) + " (degrees of freedom x dimension*contacts), got " +
                         dims(H.rows(), H.cols()));
  }
  detail::require_finite_entries(M, "M");
  detail::require_finite_entries(H, "H");
  require_finite(q, "q");
  require_finite(b, "b");
  detail::require_friction_coefficients(mu);
  for (Eigen::Index i = 0; i < m; ++i) {
    const double diagonal = M.coeff(i, i);
    if (!(diagonal > 0)) {
      throw InvalidProblem("M(" + std::to_string(i) + ", " + std::to_string(i) + ") is " + number_text(diagonal) +
                           "; a mass matrix has a positive diagonal");
    }
  }
  double largest = 0;
  for (Eigen::Index j = 0; j < M.outerSize(); ++j) {
    for (ColSparse::InnerIterator it(M, j); it; ++it) largest = std::max(largest, std::abs(it.value()));
  }
  const ColSparse transposed = M.transpose();
  const ColSparse asymmetry = M - transposed;
  for (Eigen::Index j = 0; j < asymmetry.outerSize(); ++j) {
    for (ColSparse::InnerIterator it(asymmetry, j); it; ++it) {
      if (std::abs(it.value()) > 1e-12 * largest) {
        throw InvalidProblem("M: not symmetric: M(" + std::to_string(it.row()) + ", " + std::to_string(it.col()) +
                             ") = " + number_text(M.coeff(it.row(), it.col())) + " but M(" +
                             std::to_string(it.col()) + ", " + std::to_string(it.row()) +
                             ") = " + number_text(M.coeff(it.col(), it.row())));
      }
    }
  }
}

bool GlobalFrictionContact::diagonal_mass() const {
  for (Eigen::Index j = 0; j < M.outerSize(); ++j) {
    for (ColSparse::InnerIterator it(M, j); it; ++it) {
      if (it.row() != it.col() && it.value() != 0) return false;
    }
  }
  return true;
}

Eigen::VectorXd GlobalFrictionContact::local_velocity(const Eigen::VectorXd& v) const {
  require_size(v, q.size(), "v");
  Eigen::VectorXd u = b;
  u.noalias() += H.transpose() * v;
  return u;
}

Eigen::VectorXd global_velocity(const GlobalFrictionContact& problem, const Eigen::VectorXd& r) {
  require_size(r, problem.size(), "r");
  Eigen::VectorXd momentum = problem.q;
  momentum.noalias() += problem.H * r;
  return MassSolver(problem).solve(momentum);
}

FrictionContact local_problem(const GlobalFrictionContact& problem) {
  if (problem.law != FrictionLaw::Coulomb) {
    throw InvalidProblem(std::string("law: the local problem poses Coulomb's law; this problem's is ") +
                         law_name(problem.law) + " (solve it in the global form)");
  }
  const MassSolver mass(problem);
  const ColSparse MinvH = mass.solve(problem.H);
  FrictionContact local;
  local.dimension = problem.dimension;
  local.W = ColSparse(problem.H.transpose()) * MinvH;
  local.W.prune(0.0, 0.0);
  local.q = problem.b;
  local.q.noalias() += problem.H.transpose() * mass.solve(problem.q);
  local.mu = problem.mu;
  return local;
}

GlobalFrictionContactResiduals global_friction_contact_residuals(const GlobalFrictionContact& problem,
                                                                 const Eigen::VectorXd& v, const Eigen::VectorXd& r) {
  require_size(v, problem.dofs(), "v");
  require_size(r, problem.size(), "r");
  GlobalFrictionContactResiduals out;
  const Eigen::VectorXd u = problem.local_velocity(v);
  out.contact = cone_residuals(problem.dimension, problem.mu, r, u, problem.law, problem.b.blueNorm());
  const Eigen::VectorXd Mv = problem.M * v;
  const Eigen::VectorXd Hr = problem.H * r;
  out.equilibrium = (Mv - Hr - problem.q).lpNorm<Eigen::Infinity>();
  const double scale = std::max({problem.q.lpNorm<Eigen::Infinity>(), Hr.lpNorm<Eigen::Infinity>(),
                                 Mv.lpNorm<Eigen::Infinity>()});
  out.relative_equilibrium = scale > 0 ? out.equilibrium / scale : out.equilibrium;
  if (!std::isfinite(out.equilibrium)) out.relative_equilibrium = out.equilibrium = std::numeric_limits<double>::infinity();
  return out;
}

}  // namespace perp
