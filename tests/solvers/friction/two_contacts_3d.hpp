#pragma once
// Two 3D contacts with a diagonally dominant W (μ = 0.3 and 0.6), shared by nsgs_test.cpp and
// prox_test.cpp: nsgs and prox solve them at a steady linear rate to 1e-12.

#include <Eigen/Dense>

#include "perp/core/friction_contact.hpp"

namespace perp::test {

inline Eigen::MatrixXd two_contacts_3d_w() {
  Eigen::MatrixXd W(6, 6);
  W << 2.0, 0.3, 0.1, 0.9, 0.2, 0.0,  //
      0.3, 2.0, 0.2, 0.1, 0.8, 0.1,   //
      0.1, 0.2, 2.0, 0.0, 0.1, 0.9,   //
      0.9, 0.1, 0.0, 2.0, 0.3, 0.1,   //
      0.2, 0.8, 0.1, 0.3, 2.0, 0.2,   //
      0.0, 0.1, 0.9, 0.1, 0.2, 2.0;
  return W;
}

inline Eigen::VectorXd two_contacts_3d_q() {
  Eigen::VectorXd q(6);
  q << -1, 0.5, -0.2, -0.8, -0.1, 0.7;
  return q;
}

inline Eigen::Vector2d two_contacts_3d_mu() { return {0.3, 0.6}; }

inline FrictionContact two_contacts_3d() {
  return friction_contact_from_dense(3, two_contacts_3d_w(), two_contacts_3d_q(), two_contacts_3d_mu());
}

}  // namespace perp::test
