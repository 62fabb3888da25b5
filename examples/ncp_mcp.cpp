// An NCP and an MCP solved through the installed package (the program of the Newton issue).
#include <perp/perp.hpp>
#include <cstdio>
#include <limits>
int main() {
  perp::Ncp p;
  p.n = 2;
  p.F = [](const Eigen::VectorXd& z) { Eigen::VectorXd f(2); f << 2*z[0] + z[1]*z[1] - 1, z[1] - z[0] + 1; return f; };
  p.J = [](const Eigen::VectorXd& z) { Eigen::MatrixXd j(2, 2); j << 2, 2*z[1], -1, 1; return j; };
  perp::SolveOptions o;
  o.tolerance = 1e-12;
  o.max_iterations = 100;
  o.initial_guess = Eigen::VectorXd::Zero(2);
  perp::Result r = perp::solve(p, perp::Method::NewtonFb, o);
  std::printf("%s after %d iterations, residual %g, history %zu\n",
              perp::to_string(r.status).c_str(), r.iterations, r.residual, r.history.size());
  perp::Mcp b;
  b.F = p.F; b.J = p.J;
  b.lower = Eigen::VectorXd::Constant(2, -0.5);
  b.upper = Eigen::VectorXd::Constant(2, std::numeric_limits<double>::infinity());
  r = perp::solve(b, perp::Method::NewtonMin, o);
  return r.status == perp::Status::Solved ? 0 : 1;
}
