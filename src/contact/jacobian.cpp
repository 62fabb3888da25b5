#include "perp/contact/jacobian.hpp"

#include <string>

#include "perp/core/error.hpp"

namespace perp::contact {
namespace {

double cross(const Eigen::Vector2d& a, const Eigen::Vector2d& b) { return a.x() * b.y() - a.y() * b.x(); }

/// Row k: d·(v_a + ω_a × r_a − v_b − ω_b × r_b), with (ω × r)·d = ω (r × d).
template <class Direction>
Eigen::SparseMatrix<double> jacobian_along(const std::vector<Contact>& contacts, Eigen::Index body_count,
                                           Direction direction) {
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(6 * contacts.size());
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    if (c.body_a < 0 || c.body_a >= body_count || c.body_b >= body_count ||
        c.body_a == c.body_b) {
      throw InvalidProblem("contact " + std::to_string(k) + ": bodies (" + std::to_string(c.body_a) + ", " +
                           std::to_string(c.body_b) + ") out of range for " + std::to_string(body_count) + " bodies");
    }
    const Eigen::Vector2d d = direction(c);
    const auto row = static_cast<Eigen::Index>(k);
    const Eigen::Index a = 3 * c.body_a;
    entries.emplace_back(row, a, d.x());
    entries.emplace_back(row, a + 1, d.y());
    entries.emplace_back(row, a + 2, cross(c.arm_a, d));
    if (c.body_b >= 0) {
      const Eigen::Index b = 3 * c.body_b;
      entries.emplace_back(row, b, -d.x());
      entries.emplace_back(row, b + 1, -d.y());
      entries.emplace_back(row, b + 2, -cross(c.arm_b, d));
    }
  }
  Eigen::SparseMatrix<double> J(static_cast<Eigen::Index>(contacts.size()), 3 * body_count);
  J.setFromTriplets(entries.begin(), entries.end());
  return J;
}

void check_sizes(const Eigen::SparseMatrix<double>& A, const Eigen::VectorXd& inverse_mass,
                 const Eigen::SparseMatrix<double>& B) {
  if (A.cols() != inverse_mass.size() || B.cols() != inverse_mass.size()) {
    throw InvalidProblem("delassus: Jacobians have " + std::to_string(A.cols()) + " and " + std::to_string(B.cols()) +
                         " columns, expected inverse_mass size " + std::to_string(inverse_mass.size()));
  }
}

}  // namespace

Eigen::SparseMatrix<double> normal_jacobian(const std::vector<Contact>& contacts, Eigen::Index body_count) {
  return jacobian_along(contacts, body_count, [](const Contact& c) { return c.normal; });
}

Eigen::SparseMatrix<double> tangent_jacobian(const std::vector<Contact>& contacts, Eigen::Index body_count) {
  return jacobian_along(contacts, body_count, [](const Contact& c) { return c.tangent(); });
}

Eigen::MatrixXd delassus_dense(const Eigen::SparseMatrix<double>& A, const Eigen::VectorXd& inverse_mass,
                               const Eigen::SparseMatrix<double>& B) {
  check_sizes(A, inverse_mass, B);
  const Eigen::SparseMatrix<double> scaled = A * inverse_mass.asDiagonal();
  return Eigen::MatrixXd(scaled * B.transpose());
}

Eigen::SparseMatrix<double> delassus_sparse(const Eigen::SparseMatrix<double>& A, const Eigen::VectorXd& inverse_mass,
                                            const Eigen::SparseMatrix<double>& B) {
  check_sizes(A, inverse_mass, B);
  const Eigen::SparseMatrix<double> scaled = A * inverse_mass.asDiagonal();
  Eigen::SparseMatrix<double> W = scaled * Eigen::SparseMatrix<double>(B.transpose());
  W.makeCompressed();
  return W;
}

}  // namespace perp::contact
