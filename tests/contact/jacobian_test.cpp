#include "perp/contact/jacobian.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "perp/contact/signorini.hpp"
#include "perp/core/error.hpp"
#include "test_worlds.hpp"

namespace perp::contact::contact_jacobian_test {
namespace {

using test::box;
using test::disk;

/// Velocity of a world point p attached to a body: v + ω × (p − c).
Eigen::Vector2d point_velocity(const Body& body, const Eigen::Vector2d& p) {
  const Eigen::Vector2d r = p - body.position;
  return body.velocity + body.angular_velocity * Eigen::Vector2d(-r.y(), r.x());
}

TEST(Jacobian, RowsGiveTheRelativePointVelocity) {
  World world;
  world.bodies = {box("a", 1, 0.5, 2, {0.1, 0.74}, 0.05), box("b", 2, 0.5, 3, {0, 0.25}),
                  disk("c", 0.2, 1, {1.35, 0.2})};
  world.bodies[0].velocity = {0.3, -0.7};
  world.bodies[0].angular_velocity = 1.3;
  world.bodies[1].velocity = {-0.2, 0.1};
  world.bodies[1].angular_velocity = -0.4;
  world.bodies[2].velocity = {0.5, 0.25};
  world.bodies[2].angular_velocity = 2.0;
  world.ground = Ground{0};
  const auto contacts = detect_contacts(world, 0.1);
  ASSERT_GE(contacts.size(), 4u);
  const Eigen::VectorXd v = generalized_velocity(world.bodies);
  const Eigen::VectorXd un = normal_jacobian(contacts, 3) * v;
  const Eigen::VectorXd ut = tangent_jacobian(contacts, 3) * v;
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    Eigen::Vector2d relative = point_velocity(world.bodies[c.body_a], c.point);
    if (c.body_b != kGround) relative -= point_velocity(world.bodies[c.body_b], c.point);
    EXPECT_NEAR(un[static_cast<Eigen::Index>(k)], c.normal.dot(relative), 1e-14) << "contact " << k;
    EXPECT_NEAR(ut[static_cast<Eigen::Index>(k)], c.tangent().dot(relative), 1e-14) << "contact " << k;
  }
}

TEST(Delassus, ChapterTwoContactBlock) {
  // §1.2: A = [[1/m + L²/4I, 1/m − L²/4I], [.., ..]]. With m = 1, I = 1/12, L = 1 the term
  // L²/4I is 3, so A = [[4, −2], [−2, 4]]; [chapter] prints 3/4 and [[7/4, 1/4], [1/4, 7/4]],
  // an arithmetic slip that leaves its answer λ = (5, 5) unchanged: both matrices have row sums
  // 2/m, so A·(5, 5) = (10, 10) either way (signorini_test checks λ).
  const World world = test::chapter_block();
  const auto contacts = detect_contacts(world, 1e-9);
  ASSERT_EQ(contacts.size(), 2u);
  const ContactSpace space = contact_space(world, contacts);
  const Eigen::MatrixXd W = delassus_dense(space.normal, space.inverse_mass);
  EXPECT_NEAR(W(0, 0), 4, 1e-14);
  EXPECT_NEAR(W(1, 1), 4, 1e-14);
  EXPECT_NEAR(W(0, 1), -2, 1e-14);
  EXPECT_NEAR(W(1, 0), -2, 1e-14);
}

TEST(Delassus, SparseEqualsDenseEqualsExplicitInverse) {
  World world;
  for (int i = 0; i < 6; ++i) {
    world.bodies.push_back(disk("d" + std::to_string(i), 0.5, 1.0 + i, {1.0 * i, 0.5 + 0.01 * (i % 2)}));
  }
  world.ground = Ground{0};
  const auto contacts = detect_contacts(world, 0.05);
  ASSERT_EQ(contacts.size(), 11u);
  const ContactSpace space = contact_space(world, contacts);
  const Eigen::MatrixXd dense = delassus_dense(space.normal, space.inverse_mass);
  const Eigen::MatrixXd sparse = Eigen::MatrixXd(delassus_sparse(space.normal, space.inverse_mass));
  Eigen::MatrixXd mass = Eigen::MatrixXd::Zero(18, 18);
  for (int i = 0; i < 6; ++i) {
    mass(3 * i, 3 * i) = world.bodies[i].mass;
    mass(3 * i + 1, 3 * i + 1) = world.bodies[i].mass;
    mass(3 * i + 2, 3 * i + 2) = world.bodies[i].moment_of_inertia();
  }
  const Eigen::MatrixXd J(space.normal);
  const Eigen::MatrixXd reference = J * mass.inverse() * J.transpose();
  EXPECT_LT((dense - reference).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((sparse - reference).cwiseAbs().maxCoeff(), 1e-13);
  // Positive semidefinite, as [chapter] says (§1.2).
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(dense);
  EXPECT_GT(eigen.eigenvalues().minCoeff(), -1e-12);
}

// The block-by-block W of the frictional contact problem equals the sparse product of the
// interleaved Jacobian, on a pile with disk–disk, disk–box, box–box and ground contacts and a
// fixed body.
TEST(Jacobian, InterleavedDelassusEqualsTheSparseProduct) {
  World world;
  world.ground = Ground{0};
  for (int i = 0; i < 6; ++i) {
    world.bodies.push_back(test::disk("d" + std::to_string(i), 0.25, 1.0 + i, {0.49 * i, 0.25}));
    world.bodies.push_back(test::box("b" + std::to_string(i), 0.5, 0.5, 2.0, {0.49 * i + 0.1, 0.74}, 0.05 * i));
  }
  world.bodies[3].fixed = true;
  const std::vector<Contact> contacts = detect_contacts(world, 0.02);
  ASSERT_GT(contacts.size(), 15u);
  const auto n = static_cast<Eigen::Index>(world.bodies.size());
  const Eigen::SparseMatrix<double> JN = normal_jacobian(contacts, n);
  const Eigen::SparseMatrix<double> JT = tangent_jacobian(contacts, n);
  const auto m = static_cast<Eigen::Index>(contacts.size());
  Eigen::MatrixXd J(2 * m, 3 * n);
  for (Eigen::Index k = 0; k < m; ++k) {
    J.row(2 * k) = Eigen::MatrixXd(JN).row(k);
    J.row(2 * k + 1) = Eigen::MatrixXd(JT).row(k);
  }
  const Eigen::VectorXd minv = inverse_mass_diagonal(world.bodies);
  const Eigen::MatrixXd expected = J * minv.asDiagonal() * J.transpose();
  const Eigen::MatrixXd W = Eigen::MatrixXd(delassus_interleaved(contacts, minv));
  EXPECT_LE((W - expected).cwiseAbs().maxCoeff(), 1e-14 * expected.cwiseAbs().maxCoeff());
  EXPECT_LE((W - W.transpose()).cwiseAbs().maxCoeff(), 1e-15 * W.cwiseAbs().maxCoeff());
  // The interleaved J itself: the rows of J_N and J_T, exactly.
  EXPECT_EQ(Eigen::MatrixXd(interleaved_jacobian(contacts, n)), J);
  Contact bad = contacts[0];
  bad.body_b = static_cast<int>(n);
  EXPECT_THROW((void)delassus_interleaved({bad}, minv), InvalidProblem);
  EXPECT_THROW((void)interleaved_jacobian({bad}, n), InvalidProblem);
}

// J_N and J_T are written in place column by column: the same matrix, entry for entry and in the
// same compressed layout, as one built by setFromTriplets from the rows written out by hand (body a's
// (d, r_a × d), body b's negated), on contacts whose second body comes before or after the first,
// the ground, and a body in several contacts.
TEST(Jacobian, WrittenInPlaceEqualsTheTripletBuild) {
  std::vector<Contact> contacts;
  const auto add = [&](int a, int b, double angle, Eigen::Vector2d arm_a, Eigen::Vector2d arm_b) {
    Contact c;
    c.body_a = a;
    c.body_b = b;
    c.normal = {std::cos(angle), std::sin(angle)};
    c.arm_a = arm_a;
    c.arm_b = arm_b;
    contacts.push_back(c);
  };
  add(2, kGround, 1.5707963267948966, {0.0, -0.1}, {0.0, 0.0});
  add(0, 3, 0.3, {0.07, 0.02}, {-0.05, -0.01});
  add(3, 1, 2.2, {-0.04, 0.09}, {0.06, -0.08});
  add(1, 2, -0.7, {0.01, 0.1}, {-0.03, 0.02});
  add(0, kGround, 1.4, {0.02, -0.1}, {0.0, 0.0});
  for (int along = 0; along < 2; ++along) {
    std::vector<Eigen::Triplet<double>> entries;
    for (std::size_t k = 0; k < contacts.size(); ++k) {
      const Contact& c = contacts[k];
      const Eigen::Vector2d d = along == 0 ? c.normal : c.tangent();
      const auto row = static_cast<int>(k);
      const auto arm_cross = [&](const Eigen::Vector2d& r) { return r.x() * d.y() - r.y() * d.x(); };
      entries.emplace_back(row, 3 * c.body_a, d.x());
      entries.emplace_back(row, 3 * c.body_a + 1, d.y());
      entries.emplace_back(row, 3 * c.body_a + 2, arm_cross(c.arm_a));
      if (c.body_b >= 0) {
        entries.emplace_back(row, 3 * c.body_b, -d.x());
        entries.emplace_back(row, 3 * c.body_b + 1, -d.y());
        entries.emplace_back(row, 3 * c.body_b + 2, -arm_cross(c.arm_b));
      }
    }
    Eigen::SparseMatrix<double> expected(static_cast<Eigen::Index>(contacts.size()), 12);
    expected.setFromTriplets(entries.begin(), entries.end());
    const Eigen::SparseMatrix<double> J = along == 0 ? normal_jacobian(contacts, 4) : tangent_jacobian(contacts, 4);
    ASSERT_TRUE(J.isCompressed());
    ASSERT_EQ(J.nonZeros(), expected.nonZeros());
    for (Eigen::Index j = 0; j <= 12; ++j) ASSERT_EQ(J.outerIndexPtr()[j], expected.outerIndexPtr()[j]) << j;
    for (Eigen::Index e = 0; e < J.nonZeros(); ++e) {
      ASSERT_EQ(J.innerIndexPtr()[e], expected.innerIndexPtr()[e]) << e;
      ASSERT_EQ(J.valuePtr()[e], expected.valuePtr()[e]) << e;
    }
  }
  EXPECT_EQ(normal_jacobian({}, 3).nonZeros(), 0);
  EXPECT_EQ(normal_jacobian({}, 3).cols(), 9);
}

}  // namespace
}  // namespace perp::contact::contact_jacobian_test
