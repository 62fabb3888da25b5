// The other problem types, each solved through the same `perp::solve` (the README's second snippet).
#include <cmath>
#include <cstdio>
#include <limits>
#include <perp/perp.hpp>

int main() {
  const double inf = std::numeric_limits<double>::infinity();
  // A unit point mass hits the ground: normal and tangential impulse, |z_t| <= 0.5 z_n (friction coupling).
  perp::BoxLcp contact{Eigen::Matrix2d::Identity(),
                       Eigen::Vector2d{-1, 2},
                       Eigen::Vector2d{0, 0},
                       Eigen::Vector2d{inf, 0},
                       {{.index = 1, .normal = 0, .mu = 0.5}}};
  perp::Result slide = perp::solve(contact, perp::Method::Dantzig);  // z = (1, -0.5), w = (0, 1.5): sliding

  // 2u + v0 - v1 - 4 = 0 (u free), 0 <= v ⊥ w = (-u + v0 - 1, u + v1 + 1) >= 0.
  perp::Mlcp circuit{Eigen::MatrixXd::Constant(1, 1, 2.0),
                     Eigen::Matrix2d::Identity(),
                     Eigen::RowVector2d{1, -1},
                     Eigen::Vector2d{-1, 1},
                     Eigen::VectorXd::Constant(1, -4.0),
                     Eigen::Vector2d{-1, 1}};
  perp::Result mixed = perp::solve(circuit);  // z = (u, v) = (1, 2, 0)

  perp::Qp qp{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d{-3, -3}, Eigen::MatrixXd(0, 2), Eigen::VectorXd(0)};
  perp::QpResult best = perp::solve(qp);  // x = (1, 1), objective -3

  std::printf("box LCP: %s, z = (%g, %g), w = (%g, %g)\n", slide.brief_report().c_str(), slide.z[0], slide.z[1],
              slide.w[0], slide.w[1]);
  std::printf("MLCP:    %s, (u, v) = (%g, %g, %g)\n", mixed.brief_report().c_str(), mixed.z[0], mixed.z[1], mixed.z[2]);
  std::printf("QP:      %s, x = (%g, %g), objective %g\n", best.lcp.brief_report().c_str(), best.x[0], best.x[1],
              best.objective);
  const bool ok = slide.solved() && std::abs(slide.z[1] + 0.5) < 1e-12 && mixed.solved() &&
                  std::abs(mixed.z[0] - 1) < 1e-12 && best.solved() && std::abs(best.objective + 3) < 1e-12;
  return ok ? 0 : 1;
}
