#pragma once
// Hand-derived global frictional contact problems shared by the core and solver tests.
#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "perp/core/global_friction_contact.hpp"

namespace perp::test {

inline Eigen::SparseMatrix<double> sparse(const Eigen::MatrixXd& dense) { return dense.sparseView(0.0, 0.0); }

/// A point mass m = 2 in the plane (dofs x, y) on the ground, one contact: its normal slot is y, its
/// tangent slot x (H's columns). A step of h = 0.1 from v_k = (2, −1) under g = 10: q = M v_k + h m g
/// = (4, −4). Coulomb, μ = 0.3: the normal impulse stops the fall, r_N = 4 (v_y = (−4 + r_N)/2 = 0);
/// sticking would need r_T = −4, outside the cone (1.2), so it slides: r_T = −1.2, v_x = 1.4. The
/// convex law: r = r_N (1, −μ) and u_N = μ u_T while sliding, with u_N = (r_N − 4)/2 and
/// u_T = (4 − μ r_N)/2: r_N (1 + μ²) = 4 (1 + μ).
inline GlobalFrictionContact sliding_mass(FrictionLaw law = FrictionLaw::Coulomb) {
  GlobalFrictionContact p;
  p.dimension = 2;
  p.law = law;
  p.M = sparse(Eigen::Matrix2d{{2, 0}, {0, 2}});
  p.H = sparse(Eigen::Matrix2d{{0, 1}, {1, 0}});
  p.q = Eigen::Vector2d{4, -4};
  p.b = Eigen::Vector2d::Zero();
  p.mu = Eigen::VectorXd::Constant(1, 0.3);
  return p;
}

}  // namespace perp::test
