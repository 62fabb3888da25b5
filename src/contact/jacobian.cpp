#include "perp/contact/jacobian.hpp"

#include <algorithm>
#include <string>
#include <vector>

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

Eigen::SparseMatrix<double> delassus_interleaved(const std::vector<Contact>& contacts,
                                                 const Eigen::VectorXd& inverse_mass) {
  const auto m = static_cast<Eigen::Index>(contacts.size());
  const Eigen::Index bodies = inverse_mass.size() / 3;
  using Block = Eigen::Matrix<double, 2, 3>;
  // Per contact and side (0: a, 1: b) the 2×3 block of J, rows normal then tangent, with the
  // body's M⁻¹ applied: G = J_c M_c⁻¹.
  std::vector<Block> scaled(static_cast<std::size_t>(2 * m));
  std::vector<Block> plain(static_cast<std::size_t>(2 * m));
  std::vector<std::vector<Eigen::Index>> on_body(static_cast<std::size_t>(bodies));
  const auto cross = [](const Eigen::Vector2d& r, const Eigen::Vector2d& d) { return r.x() * d.y() - r.y() * d.x(); };
  for (Eigen::Index k = 0; k < m; ++k) {
    const Contact& c = contacts[static_cast<std::size_t>(k)];
    const Eigen::Vector2d n = c.normal;
    const Eigen::Vector2d t = c.tangent();
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? c.body_a : c.body_b;
      if (body < 0) continue;
      if (body >= bodies || c.body_a < 0) {
        throw InvalidProblem("delassus_interleaved: contact " + std::to_string(k) + " names body " +
                             std::to_string(body) + ", out of range for " + std::to_string(bodies) + " bodies");
      }
      const Eigen::Vector3d minv = inverse_mass.segment<3>(3 * body);
      if (minv.isZero()) continue;  // a fixed body couples nothing
      const Eigen::Vector2d& arm = side == 0 ? c.arm_a : c.arm_b;
      const double sign = side == 0 ? 1.0 : -1.0;
      Block J;
      J << sign * n.x(), sign * n.y(), sign * cross(arm, n), sign * t.x(), sign * t.y(), sign * cross(arm, t);
      plain[static_cast<std::size_t>(2 * k + side)] = J;
      scaled[static_cast<std::size_t>(2 * k + side)] = J * minv.asDiagonal();
      on_body[static_cast<std::size_t>(body)].push_back(2 * k + side);
    }
  }
  std::vector<int> outer(static_cast<std::size_t>(2 * m + 1), 0);
  std::vector<int> inner;
  std::vector<double> values;
  std::vector<Eigen::Index> slot(static_cast<std::size_t>(m), -1);
  std::vector<Eigen::Index> rows;
  std::vector<Eigen::Matrix2d> blocks;
  for (Eigen::Index l = 0; l < m; ++l) {
    rows.clear();
    blocks.clear();
    const Contact& c = contacts[static_cast<std::size_t>(l)];
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? c.body_a : c.body_b;
      if (body < 0) continue;
      if (inverse_mass.segment<3>(3 * body).isZero()) continue;  // fixed
      const auto& list = on_body[static_cast<std::size_t>(body)];
      const Block& Gl = plain[static_cast<std::size_t>(2 * l + side)];
      for (const Eigen::Index entry : list) {
        const Eigen::Index k = entry / 2;
        Eigen::Matrix2d block = scaled[static_cast<std::size_t>(entry)] * Gl.transpose();
        if (slot[static_cast<std::size_t>(k)] < 0) {
          slot[static_cast<std::size_t>(k)] = static_cast<Eigen::Index>(rows.size());
          rows.push_back(k);
          blocks.push_back(block);
        } else {
          blocks[static_cast<std::size_t>(slot[static_cast<std::size_t>(k)])] += block;
        }
      }
    }
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return rows[x] < rows[y]; });
    for (int column = 0; column < 2; ++column) {
      for (const std::size_t i : order) {
        for (int row = 0; row < 2; ++row) {
          inner.push_back(static_cast<int>(2 * rows[i] + row));
          values.push_back(blocks[i](row, column));
        }
      }
      outer[static_cast<std::size_t>(2 * l + column + 1)] = static_cast<int>(inner.size());
    }
    for (const Eigen::Index k : rows) slot[static_cast<std::size_t>(k)] = -1;
  }
  return Eigen::Map<const Eigen::SparseMatrix<double>>(2 * m, 2 * m, static_cast<Eigen::Index>(values.size()),
                                                       outer.data(), inner.data(), values.data());
}

}  // namespace perp::contact
