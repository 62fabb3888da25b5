#include "perp/contact/jacobian.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "material.hpp"
#include "perp/core/error.hpp"

namespace perp::contact {
namespace {

using detail::cross;

/// Row k: d·(v_a + ω_a × r_a − v_b − ω_b × r_b), with (ω × r)·d = ω (r × d). Written in place,
/// column by column (each column's rows in increasing order, as setFromTriplets leaves them; no
/// two entries share a place, since body_a != body_b): the entries counted per column, then placed.
template <class Direction>
Eigen::SparseMatrix<double> jacobian_along(const std::vector<Contact>& contacts, Eigen::Index body_count,
                                           Direction direction) {
  Eigen::Index entries = 0;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    if (c.body_a < 0 || c.body_a >= body_count || c.body_b >= body_count ||
        c.body_a == c.body_b) {
      throw InvalidProblem("contact " + std::to_string(k) + ": bodies (" + std::to_string(c.body_a) + ", " +
                           std::to_string(c.body_b) + ") out of range for " + std::to_string(body_count) + " bodies");
    }
    entries += c.body_b >= 0 ? 6 : 3;
  }
  Eigen::SparseMatrix<double> J(static_cast<Eigen::Index>(contacts.size()), 3 * body_count);
  J.resizeNonZeros(entries);
  // outer[j + 1] first counts column j's entries, then (prefix sums) marks its start, and serves as
  // its cursor while the entries are placed, ending at column j's end = column j + 1's start.
  int* const outer = J.outerIndexPtr();
  int* const inner = J.innerIndexPtr();
  double* const values = J.valuePtr();
  std::fill(outer, outer + 3 * body_count + 1, 0);
  for (const Contact& c : contacts) {
    for (int i = 1; i <= 3; ++i) {
      ++outer[3 * c.body_a + i];
      if (c.body_b >= 0) ++outer[3 * c.body_b + i];
    }
  }
  // outer[j + 1] := start of column j (shifted by one place, so that placing advances it to the end).
  int start = 0;
  for (Eigen::Index j = 0; j < 3 * body_count; ++j) {
    const int count = outer[j + 1];
    outer[j + 1] = start;
    start += count;
  }
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    const Eigen::Vector2d d = direction(c);
    const auto row = static_cast<int>(k);
    const auto place = [&](Eigen::Index column, double value) {
      const int at = outer[column + 1]++;
      inner[at] = row;
      values[at] = value;
    };
    const Eigen::Index a = 3 * c.body_a;
    place(a, d.x());
    place(a + 1, d.y());
    place(a + 2, cross(c.arm_a, d));
    if (c.body_b >= 0) {
      const Eigen::Index b = 3 * c.body_b;
      place(b, -d.x());
      place(b + 1, -d.y());
      place(b + 2, -cross(c.arm_b, d));
    }
  }
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

Eigen::SparseMatrix<double, Eigen::RowMajor> interleaved_jacobian(const std::vector<Contact>& contacts,
                                                                 Eigen::Index body_count) {
  const auto m = static_cast<Eigen::Index>(contacts.size());
  Eigen::SparseMatrix<double, Eigen::RowMajor> J(2 * m, 3 * body_count);
  // Rows in order, 3 or 6 entries each, written in place (body a's columns, then body b's, sorted).
  J.resizeNonZeros(12 * m);
  int* const outer = J.outerIndexPtr();
  int* const inner = J.innerIndexPtr();
  double* const values = J.valuePtr();
  int written = 0;
  outer[0] = 0;
  for (Eigen::Index k = 0; k < m; ++k) {
    const Contact& c = contacts[static_cast<std::size_t>(k)];
    if (c.body_a < 0 || c.body_a >= body_count || c.body_b >= body_count || c.body_a == c.body_b) {
      throw InvalidProblem("contact " + std::to_string(k) + ": bodies (" + std::to_string(c.body_a) + ", " +
                           std::to_string(c.body_b) + ") out of range for " + std::to_string(body_count) + " bodies");
    }
    for (int row = 0; row < 2; ++row) {
      const Eigen::Vector2d d = row == 0 ? c.normal : c.tangent();
      const auto side = [&](int body, const Eigen::Vector2d& arm, double sign) {
        inner[written] = 3 * body;
        values[written++] = sign * d.x();
        inner[written] = 3 * body + 1;
        values[written++] = sign * d.y();
        inner[written] = 3 * body + 2;
        values[written++] = sign * cross(arm, d);
      };
      if (c.body_b >= 0 && c.body_b < c.body_a) side(c.body_b, c.arm_b, -1.0);
      side(c.body_a, c.arm_a, 1.0);
      if (c.body_b > c.body_a) side(c.body_b, c.arm_b, -1.0);
      outer[2 * k + row + 1] = written;
    }
  }
  J.resizeNonZeros(written);
  return J;
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
  // The (contact, side) entries of each body, as compressed lists: first[b] … first[b + 1] in `entries`.
  std::vector<Eigen::Index> first(static_cast<std::size_t>(bodies + 1), 0);
  std::vector<char> coupled(static_cast<std::size_t>(2 * m), 0);
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
      coupled[static_cast<std::size_t>(2 * k + side)] = 1;
      ++first[static_cast<std::size_t>(body) + 1];
    }
  }
  for (Eigen::Index b = 0; b < bodies; ++b) first[static_cast<std::size_t>(b + 1)] += first[static_cast<std::size_t>(b)];
  std::vector<Eigen::Index> entries(static_cast<std::size_t>(first.back()));
  {
    std::vector<Eigen::Index> next(first.begin(), first.end() - 1);
    for (Eigen::Index e = 0; e < 2 * m; ++e) {
      if (!coupled[static_cast<std::size_t>(e)]) continue;
      const Contact& c = contacts[static_cast<std::size_t>(e / 2)];
      const auto body = static_cast<std::size_t>(e % 2 == 0 ? c.body_a : c.body_b);
      entries[static_cast<std::size_t>(next[body]++)] = e;
    }
  }
  Eigen::SparseMatrix<double> W(2 * m, 2 * m);
  // Column pair 2l, 2l + 1 holds the block W_kl (2 rows each) of every contact k sharing a body
  // with l: at most 4 Σ_b n_b² values over the bodies' n_b entries. W's own storage is sized to
  // that bound, written in place and cut to what was written.
  Eigen::Index bound = 0;
  for (Eigen::Index b = 0; b < bodies; ++b) {
    const Eigen::Index count = first[static_cast<std::size_t>(b + 1)] - first[static_cast<std::size_t>(b)];
    bound += 4 * count * count;
  }
  W.resizeNonZeros(bound);
  int* const outer = W.outerIndexPtr();
  int* const inner = W.innerIndexPtr();
  double* const values = W.valuePtr();
  int written = 0;
  outer[0] = 0;
  std::vector<Eigen::Index> slot(static_cast<std::size_t>(m), -1);
  std::vector<Eigen::Index> rows;
  std::vector<Eigen::Matrix2d> blocks;
  std::vector<std::size_t> order;
  for (Eigen::Index l = 0; l < m; ++l) {
    rows.clear();
    blocks.clear();
    const Contact& c = contacts[static_cast<std::size_t>(l)];
    for (int side = 0; side < 2; ++side) {
      if (!coupled[static_cast<std::size_t>(2 * l + side)]) continue;
      const auto body = static_cast<std::size_t>(side == 0 ? c.body_a : c.body_b);
      const Block& Gl = plain[static_cast<std::size_t>(2 * l + side)];
      for (Eigen::Index p = first[body]; p < first[body + 1]; ++p) {
        const Eigen::Index entry = entries[static_cast<std::size_t>(p)];
        const Eigen::Index k = entry / 2;
        const Eigen::Matrix2d block = scaled[static_cast<std::size_t>(entry)] * Gl.transpose();
        if (slot[static_cast<std::size_t>(k)] < 0) {
          slot[static_cast<std::size_t>(k)] = static_cast<Eigen::Index>(rows.size());
          rows.push_back(k);
          blocks.push_back(block);
        } else {
          blocks[static_cast<std::size_t>(slot[static_cast<std::size_t>(k)])] += block;
        }
      }
    }
    order.resize(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return rows[x] < rows[y]; });
    for (int column = 0; column < 2; ++column) {
      for (const std::size_t i : order) {
        for (int row = 0; row < 2; ++row) {
          inner[written] = static_cast<int>(2 * rows[i] + row);
          values[written] = blocks[i](row, column);
          ++written;
        }
      }
      outer[2 * l + column + 1] = written;
    }
    for (const Eigen::Index k : rows) slot[static_cast<std::size_t>(k)] = -1;
  }
  W.resizeNonZeros(written);
  return W;
}

}  // namespace perp::contact
