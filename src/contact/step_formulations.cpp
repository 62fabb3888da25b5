#include "step_formulations.hpp"

#include <algorithm>
#include <utility>

#include "perp/contact/jacobian.hpp"

// The LCP formulations of a Moreau–Jean step and the layout of their unknowns (step_formulations.hpp).

namespace perp::contact::detail {

FactoredFrictionContact coulomb_formulation(const std::vector<Contact>& contacts, const Eigen::VectorXd& inverse_mass,
                                            const Eigen::VectorXd& normal_bias, const Eigen::VectorXd& tangent_bias,
                                            const Eigen::VectorXd& friction) {
  FactoredFrictionContact problem;
  problem.dimension = 2;
  Eigen::SparseMatrix<double, Eigen::RowMajor> H = interleaved_jacobian(contacts, inverse_mass.size() / 3);
  problem.H.swap(H);  // not assigned: Eigen 3.4's sparse assignment copies
  problem.inverse_mass = inverse_mass;
  problem.q = coulomb_interleave(normal_bias, tangent_bias);
  problem.mu = friction;
  return problem;
}

Eigen::VectorXd coulomb_interleave(const Eigen::VectorXd& normal, const Eigen::VectorXd& tangent) {
  const Eigen::Index m = normal.size();
  Eigen::VectorXd r(2 * m);
  for (Eigen::Index k = 0; k < m; ++k) {
    r[2 * k] = normal[k];
    r[2 * k + 1] = tangent[k];
  }
  return r;
}

void read_coulomb(const Eigen::VectorXd& r, Eigen::VectorXd& normal, Eigen::VectorXd& tangent) {
  const Eigen::Index m = r.size() / 2;
  for (Eigen::Index k = 0; k < m; ++k) {
    normal[k] = r[2 * k];
    tangent[k] = r[2 * k + 1];
  }
}

void read_convex(const Eigen::VectorXd& z, const Eigen::VectorXd& friction, Eigen::VectorXd& normal,
                 Eigen::VectorXd& tangent) {
  const Eigen::Index m = friction.size();
  if (z.size() == m) {
    normal = z;
    return;
  }
  normal = z.head(m) + z.tail(m);
  tangent = friction.cwiseProduct(z.head(m) - z.tail(m));
}

Eigen::VectorXd convex_start(const Eigen::VectorXd& normal, const Eigen::VectorXd& tangent,
                             const Eigen::VectorXd& friction) {
  const Eigen::Index m = friction.size();
  if (friction.maxCoeff() == 0) return normal.cwiseMax(0.0);
  Eigen::VectorXd z(2 * m);
  for (Eigen::Index k = 0; k < m; ++k) {
    const double edge = friction[k] > 0 ? tangent[k] / friction[k] : 0.0;
    z[k] = std::max(0.0, (normal[k] + edge) / 2);
    z[m + k] = std::max(0.0, (normal[k] - edge) / 2);
  }
  return z;
}

LcpFormulation lcp_formulation(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                               const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction,
                               FrictionModel model) {
  const Eigen::Index m = space.contact_count();
  if (friction.maxCoeff() == 0) {
    return {{delassus_dense(space.normal, space.inverse_mass), normal_bias},
            [friction](const Eigen::VectorXd& z, Eigen::VectorXd& normal, Eigen::VectorXd& tangent) {
              read_convex(z, friction, normal, tangent);
            }};
  }
  if (model == FrictionModel::StewartTrinkle) {
    return {stewart_trinkle_lcp(space, normal_bias, tangent_bias, friction),
            [m](const Eigen::VectorXd& z, Eigen::VectorXd& normal, Eigen::VectorXd& tangent) {
              normal = z.segment(0, m);
              tangent = z.segment(m, m) - z.segment(2 * m, m);
            }};
  }
  return {anitescu_potra_lcp(space, normal_bias, tangent_bias, friction),
          [friction](const Eigen::VectorXd& z, Eigen::VectorXd& normal, Eigen::VectorXd& tangent) {
            read_convex(z, friction, normal, tangent);
          }};
}

FactoredLcp factored_formulation(const ContactSpace& space, const Eigen::VectorXd& normal_bias,
                                 const Eigen::VectorXd& tangent_bias, const Eigen::VectorXd& friction) {
  FactoredLcp problem;
  problem.inverse_mass = space.inverse_mass;
  if (friction.maxCoeff() == 0) {
    problem.A = space.normal;
    problem.c = normal_bias;
    return problem;
  }
  const Eigen::SparseMatrix<double> scaled_tangent = friction.asDiagonal() * space.tangent;
  const Eigen::Index m = space.contact_count();
  Eigen::SparseMatrix<double, Eigen::RowMajor> A(2 * m, space.inverse_mass.size());
  A.topRows(m) = space.normal + scaled_tangent;
  A.bottomRows(m) = space.normal - scaled_tangent;
  problem.A = std::move(A);
  problem.c.resize(2 * m);
  problem.c.head(m) = normal_bias + friction.cwiseProduct(tangent_bias);
  problem.c.tail(m) = normal_bias - friction.cwiseProduct(tangent_bias);
  return problem;
}

}  // namespace perp::contact::detail
