#pragma once
/// \file
/// Contact Jacobians and the Delassus operator W = J M⁻¹ Jᵀ ([chapter] §1.2, eq. for A).
///
/// Row k of the normal Jacobian J_N maps the generalised velocity v (3 per body: vx, vy, omega)
/// to the normal relative velocity of contact k, ġ_N = n · (v_a + ω_a × r_a − v_b − ω_b × r_b);
/// the tangent Jacobian J_T does the same along the contact tangent. Each row has at most six
/// non-zeros.

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <vector>

#include "perp/contact/body.hpp"
#include "perp/contact/detection.hpp"

namespace perp::contact {

/// J_N: contacts.size() × 3·body_count. Throws `InvalidProblem` for a body index out of range.
[[nodiscard]] Eigen::SparseMatrix<double> normal_jacobian(const std::vector<Contact>& contacts,
                                                          Eigen::Index body_count);
/// J_T, along `Contact::tangent()`.
[[nodiscard]] Eigen::SparseMatrix<double> tangent_jacobian(const std::vector<Contact>& contacts,
                                                           Eigen::Index body_count);

/// J of the frictional contact problem (d = 2): the normal and tangent rows of contact k
/// interleaved (rows 2k, 2k + 1), row-major — the factor H of `FactoredFrictionContact`, W = J M⁻¹ Jᵀ.
/// Throws `InvalidProblem` for a body index out of range.
[[nodiscard]] Eigen::SparseMatrix<double, Eigen::RowMajor> interleaved_jacobian(const std::vector<Contact>& contacts,
                                                                              Eigen::Index body_count);

/// W = A M⁻¹ Bᵀ with M⁻¹ = diag(inverse_mass) used directly (no inverse of a dense M), dense.
/// Sizes: A is m×n, B is p×n, inverse_mass n. Throws `InvalidProblem` for mismatched sizes.
[[nodiscard]] Eigen::MatrixXd delassus_dense(const Eigen::SparseMatrix<double>& A, const Eigen::VectorXd& inverse_mass,
                                             const Eigen::SparseMatrix<double>& B);
/// The same product kept sparse: worth it for piles, where each contact couples two bodies.
[[nodiscard]] Eigen::SparseMatrix<double> delassus_sparse(const Eigen::SparseMatrix<double>& A,
                                                          const Eigen::VectorXd& inverse_mass,
                                                          const Eigen::SparseMatrix<double>& B);
/// W = J M⁻¹ Jᵀ, dense.
[[nodiscard]] inline Eigen::MatrixXd delassus_dense(const Eigen::SparseMatrix<double>& J,
                                                    const Eigen::VectorXd& inverse_mass) {
  return delassus_dense(J, inverse_mass, J);
}
/// W = J M⁻¹ Jᵀ, sparse.
[[nodiscard]] inline Eigen::SparseMatrix<double> delassus_sparse(const Eigen::SparseMatrix<double>& J,
                                                                 const Eigen::VectorXd& inverse_mass) {
  return delassus_sparse(J, inverse_mass, J);
}

/// W = J M⁻¹ Jᵀ of the frictional contact problem (d = 2): J with the normal and tangent rows of
/// contact k interleaved (rows 2k, 2k + 1), assembled 2×2 block by block from the contacts'
/// geometry in compressed column form — the same matrix as `delassus_sparse` of that J, without
/// the general sparse product (which was 35 % of a 210-box pyramid's step). Bodies with a zero
/// inverse mass (fixed) couple nothing. Sizes: inverse_mass has 3 entries per body.
[[nodiscard]] Eigen::SparseMatrix<double> delassus_interleaved(const std::vector<Contact>& contacts,
                                                               const Eigen::VectorXd& inverse_mass);

}  // namespace perp::contact
