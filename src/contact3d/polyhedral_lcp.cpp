#include <Eigen/SparseCore>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "perp/contact3d/moreau_jean.hpp"
#include "perp/core/error.hpp"

namespace perp::contact3d {

// The polyhedral model's LCP (moreau_jean.hpp): with G the per-contact map from (r_N, β) to r,
// G = [1 0; 0 D] (D the 2×k directions in the contact's tangent frame), the LCP's rows of r_N and
// β are Gᵀ W G and Gᵀ q, and the rows of λ couple a contact's own unknowns.
PolyhedralLcp polyhedral_lcp(const FrictionContact& problem, int facets) {
  if (problem.dimension != 3) {
    throw InvalidProblem("polyhedral_lcp: the problem's dimension must be 3, got " + std::to_string(problem.dimension));
  }
  if (facets < 3) throw InvalidProblem("polyhedral_lcp: facets must be >= 3, got " + std::to_string(facets));
  problem.validate();
  const Eigen::Index nc = problem.contacts();
  const Eigen::Index per = facets + 2;
  const Eigen::Index size = nc * per;
  std::vector<Eigen::Triplet<double>> g_entries;
  g_entries.reserve(static_cast<std::size_t>(nc) * static_cast<std::size_t>(2 * facets + 1));
  for (Eigen::Index i = 0; i < nc; ++i) {
    g_entries.emplace_back(3 * i, i * per, 1.0);
    for (int l = 0; l < facets; ++l) {
      const double angle = 2 * std::numbers::pi * l / facets;
      g_entries.emplace_back(3 * i + 1, i * per + 1 + l, std::cos(angle));
      g_entries.emplace_back(3 * i + 2, i * per + 1 + l, std::sin(angle));
    }
  }
  Eigen::SparseMatrix<double> G(3 * nc, size);
  G.setFromTriplets(g_entries.begin(), g_entries.end());
  const Eigen::SparseMatrix<double> Gt = G.transpose();
  Eigen::SparseMatrix<double> inner = Gt * problem.W * G;
  PolyhedralLcp out;
  out.facets = facets;
  out.lcp.M = Eigen::MatrixXd(inner);
  out.lcp.q = Gt * problem.q;
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Eigen::Index lambda = i * per + 1 + facets;
    for (int l = 0; l < facets; ++l) {
      out.lcp.M(i * per + 1 + l, lambda) = 1.0;
      out.lcp.M(lambda, i * per + 1 + l) = -1.0;
    }
    out.lcp.M(lambda, i * per) = problem.mu[i];
    out.lcp.q[lambda] = 0;
  }
  return out;
}

Eigen::VectorXd PolyhedralLcp::reaction(const Eigen::VectorXd& z) const {
  const Eigen::Index per = facets + 2;
  const Eigen::Index nc = z.size() / per;
  Eigen::VectorXd r = Eigen::VectorXd::Zero(3 * nc);
  for (Eigen::Index i = 0; i < nc; ++i) {
    r[3 * i] = z[i * per];
    for (int l = 0; l < facets; ++l) {
      const double angle = 2 * std::numbers::pi * l / facets;
      r[3 * i + 1] += std::cos(angle) * z[i * per + 1 + l];
      r[3 * i + 2] += std::sin(angle) * z[i * per + 1 + l];
    }
  }
  return r;
}

}  // namespace perp::contact3d
