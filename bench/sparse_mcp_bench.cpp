// A sparse nonlinear MCP (issue 16): the 2-D obstacle-type problem on the unit square, an m×m grid
// of interior nodes (n = m², h = 1/(m + 1)),
//   F(u) = s (A u + κ u³ − f),   −0.1 <= u <= 0.1,
// A the 5-point Laplacian / h², κ = 1000, f(x, y) = 60 sin(2πx) sin(2πy) (both bounds are active on
// large sets), s = h² (the finite-element scaling, J's entries O(1); the default) or s = 1 with
// --fd (the finite-difference one, J's entries up to 8/h²); s does not change the solutions.
// J(u) = s (A + 3κ diag(u²)) is given sparse (`Mcp::J_sparse`). Each (n, method) runs in
// its own child process (fork), so that its peak RSS (getrusage, ru_maxrss) is its own; the child
// reports time, iterations, the natural residual ‖u − mid(l, h, u − F(u))‖∞ recomputed from the
// returned u, and the peak RSS; the parent's RSS before the fork is printed as the baseline.
//
// Usage: sparse_mcp_bench [--fd] [m ...]   (default 100 316: n = 10 000 and 99 856)
//        methods: path, newton-min, newton-fb (from u = 0, default options, tolerance 1e-10 relative)

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../tests/solvers/mcp_problems.hpp"  // the obstacle problem, shared with the tests
#include "perp/perp.hpp"

namespace {

using Sparse = Eigen::SparseMatrix<double>;

double residual(const perp::Mcp& p, const Eigen::VectorXd& u) {
  const Eigen::VectorXd F = p.F(u);
  double worst = 0;
  for (Eigen::Index i = 0; i < u.size(); ++i) {
    worst = std::max(worst, std::abs(u[i] - std::clamp(u[i] - F[i], p.lower[i], p.upper[i])));
  }
  return worst;
}

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sides;
  bool fd = false;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--fd") {
      fd = true;
    } else {
      sides.push_back(std::atoi(argv[a]));
    }
  }
  if (sides.empty()) sides = {100, 316};
  std::printf("scaling: %s\n\n", fd ? "s = 1 (finite differences)" : "s = h^2 (finite elements)");
  std::printf("| n | nnz(J) | method | status | time s | iterations | residual | peak RSS MiB | baseline MiB |\n");
  std::printf("|---:|---:|---|---|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  for (const int m : sides) {
    for (const char* name : {"path", "newton-min", "newton-fb"}) {
      const long baseline = peak_rss_kib();
      const pid_t child = fork();
      if (child < 0) {
        std::perror("fork");
        return 1;
      }
      if (child == 0) {
        const perp::Mcp p = perp::mcp_problems::obstacle_2d(m, !fd);
        const Sparse J0 = p.J_sparse(Eigen::VectorXd::Zero(p.size()));
        const auto start = std::chrono::steady_clock::now();
        const perp::Result r = perp::solve(p, perp::from_string<perp::Method>(name));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("| %ld | %ld | %s | %s | %.2f | %d | %.2e | %.1f | %.1f |\n", static_cast<long>(p.size()),
                    static_cast<long>(J0.nonZeros()), name, perp::to_string(r.status).c_str(), seconds, r.iterations,
                    residual(p, r.z), static_cast<double>(peak_rss_kib()) / 1024.0,
                    static_cast<double>(baseline) / 1024.0);
        if (!r.solved()) std::printf("  (%s)\n", r.message.c_str());
        std::fflush(stdout);
        std::_Exit(r.solved() ? 0 : 2);
      }
      int status = 0;
      waitpid(child, &status, 0);
    }
  }
  return 0;
}
