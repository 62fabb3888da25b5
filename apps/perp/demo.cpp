// perp demo: the worked examples of [chapter] (docs/references.md), then a few problems of Siconos' corpus.
#include "demo.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>

#include "format.hpp"
#include "perp/perp.hpp"

namespace perp::cli {
namespace {

std::string vector_text(const Eigen::VectorXd& v) { return format_vector(v, 8, 6); }

struct Example {
  std::string title;
  std::string expected;  // what [chapter] (or the file's origin) says
  Lcp problem;
  Method method;
  SolveOptions options;
  std::function<bool(const Result&)> as_expected;
  bool show_history = false;
};

bool near(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double tol = 1e-9) {
  return a.size() == b.size() && (a - b).cwiseAbs().maxCoeff() <= tol;
}

void print_history(const Result& r) {
  std::printf("   natural residual per step:");
  for (const double h : r.history) std::printf(" %.2g", h);
  std::printf("\n");
}

bool show(const Example& example) {
  const Result r = solve(example.problem, example.method, example.options);
  const bool ok = example.as_expected(r);
  std::printf("\n== %s\n", example.title.c_str());
  std::printf("   expected: %s\n", example.expected.c_str());
  std::printf("   %s\n", r.brief_report().c_str());
  std::printf("   z = %s   w = %s\n", vector_text(r.z).c_str(), vector_text(r.w).c_str());
  for (const auto& s : r.solutions) std::printf("   solution %s\n", vector_text(s).c_str());
  if (!r.message.empty()) std::printf("   %s\n", r.message.c_str());
  if (example.show_history) print_history(r);
  std::printf("   %s\n", ok ? "[as expected]" : "[UNEXPECTED]");
  return ok;
}

Lcp make(std::initializer_list<std::initializer_list<double>> rows, std::initializer_list<double> q) {
  Lcp p;
  const auto n = static_cast<Eigen::Index>(q.size());
  p.M.resize(n, n);
  Eigen::Index i = 0;
  for (const auto& row : rows) {
    Eigen::Index j = 0;
    for (const double value : row) p.M(i, j++) = value;
    ++i;
  }
  p.q = Eigen::Map<const Eigen::VectorXd>(q.begin(), n);
  return p;
}

}  // namespace

int run_demo(const std::string& data_dir) {
  std::printf("perp demo: worked examples of [chapter] (docs/references.md), then Siconos test problems\n");
  int unexpected = 0;
  const auto run = [&](const Example& e) { unexpected += show(e) ? 0 : 1; };

  run({"Two-contact block on the ground (chapter 1.2): m = 1, I = 1/12, L = 1, g = 10",
       "W = J M^-1 J^T = [[4, -2], [-2, 4]] ([chapter] prints [[7/4, 1/4], [1/4, 7/4]], but "
       "L^2/(4I) = 3): SPD, unique solution lambda = (5, 5)",
       make({{4, -2}, {-2, 4}}, {-10, -10}),
       Method::Lemke,
       {},
       [](const Result& r) { return r.solved() && near(r.z, Eigen::Vector2d(5, 5)); }});
  run({"The same block by projected Gauss-Seidel",
       "lambda = (5, 5) to the tolerance",
       make({{4, -2}, {-2, 4}}, {-10, -10}),
       Method::Pgs,
       {},
       [](const Result& r) { return r.solved() && near(r.z, Eigen::Vector2d(5, 5), 1e-7); }});
  run({"Lemke's method, chapter 1.4: M = [[1, 0], [2, 1]], q = (-1, -3)",
       "z = (1, 1), w = (0, 0)",
       make({{1, 0}, {2, 1}}, {-1, -3}),
       Method::Lemke,
       {},
       [](const Result& r) { return r.solved() && near(r.z, Eigen::Vector2d(1, 1)); }});
  run({"No solution (chapter 1.2 misconception): M = (-1), q = (-1)",
       "infeasible: z > 0 gives w < 0, z = 0 gives w = -1",
       make({{-1}}, {-1}),
       Method::Enum,
       {},
       [](const Result& r) { return r.status == Status::Infeasible; }});
  run({"The same problem by Lemke",
       "Lemke's path ends on a secondary ray",
       make({{-1}}, {-1}),
       Method::Lemke,
       {},
       [](const Result& r) { return r.status == Status::RayTermination && r.ray.has_value(); }});
  run({"Infinitely many solutions: M = 0 (2x2), q = 0",
       "every z >= 0 solves; the methods return z = 0",
       make({{0, 0}, {0, 0}}, {0, 0}),
       Method::Auto,
       {},
       [](const Result& r) { return r.solved() && near(r.z, Eigen::Vector2d(0, 0)); }});
  run({"The same block by semismooth Newton on Fischer-Burmeister (chapter 1.6)",
       "lambda = (5, 5) in a few steps (the last one an exact solve on the identified active set)",
       make({{4, -2}, {-2, 4}}, {-10, -10}),
       Method::NewtonFb,
       {.tolerance = 1e-14},
       [](const Result& r) { return r.solved() && near(r.z, Eigen::Vector2d(5, 5), 1e-12); },
       true});
  run({"The same block by the interior-point method (monotone LCP)",
       "lambda = (5, 5)",
       make({{4, -2}, {-2, 4}}, {-10, -10}),
       Method::InteriorPoint,
       {.tolerance = 1e-12},
       [](const Result& r) { return r.solved() && near(r.z, Eigen::Vector2d(5, 5), 1e-10); },
       true});
  {
    // An NCP ([chapter] §1.6): F(z) = (2 z0 + z1^2 - 1, z1 - z0 + 1); by hand z = (1/2, 0), F = (0, 1/2).
    Ncp ncp;
    ncp.n = 2;
    ncp.F = [](const Eigen::VectorXd& z) {
      return Eigen::Vector2d(2 * z[0] + z[1] * z[1] - 1, z[1] - z[0] + 1).eval();
    };
    ncp.J = [](const Eigen::VectorXd& z) { return Eigen::Matrix2d{{2, 2 * z[1]}, {-1, 1}}.eval(); };
    const Result r = solve(ncp, Method::NewtonFb, {.tolerance = 1e-12});
    const bool ok = r.solved() && near(r.z, Eigen::Vector2d(0.5, 0), 1e-12);
    std::printf("\n== Nonlinear complementarity: F(z) = (2 z0 + z1^2 - 1, z1 - z0 + 1), newton-fb\n");
    std::printf("   expected: z = (1/2, 0), F(z) = (0, 1/2); the residual falls quadratically at the end\n   %s\n",
                r.brief_report().c_str());
    std::printf("   z = %s   F(z) = %s\n", vector_text(r.z).c_str(), vector_text(r.w).c_str());
    print_history(r);
    std::printf("   %s\n", ok ? "[as expected]" : "[UNEXPECTED]");
    unexpected += ok ? 0 : 1;
  }
  SolveOptions all;
  all.all_solutions = true;
  run({"Three isolated solutions: M = [[1, 2], [2, 1]], q = (-1, -1), enumeration with --all",
       "(1, 0), (0, 1) and (1/3, 1/3)", make({{1, 2}, {2, 1}}, {-1, -1}), Method::Enum, all,
       [](const Result& r) { return r.solved() && r.solutions.size() == 3; }});

  // Box LCP with friction coupling (ODE's findex): a unit point mass hits the ground, W = I,
  // q = (normal, tangential) velocity before the impulse, μ = 0.5. By hand: the normal impulse
  // stops the approach, λ_n = 1; the tangential impulse −v_t would stop the slip, but it is
  // bounded by μ λ_n = 0.5.
  const auto contact = [&](double tangential_velocity, double expected_tangent, double expected_slip,
                           const char* title) {
    BoxLcp box{Eigen::Matrix2d::Identity(),
               Eigen::Vector2d(-1, tangential_velocity),
               Eigen::Vector2d(0, 0),
               Eigen::Vector2d(std::numeric_limits<double>::infinity(), 0),
               {{.index = 1, .normal = 0, .mu = 0.5}}};
    const Result r = solve(box, Method::Dantzig, {.tolerance = 1e-12});
    const bool ok = r.solved() && near(r.z, Eigen::Vector2d(1, expected_tangent), 1e-12) &&
                    near(r.w, Eigen::Vector2d(0, expected_slip), 1e-12);
    std::printf("\n== %s\n", title);
    std::printf("   expected: z = (1, %g) (normal, tangential impulse), w = (0, %g) (velocities after)\n",
                expected_tangent, expected_slip);
    std::printf("   %s\n   z = %s   w = %s\n   %s\n", r.brief_report().c_str(), vector_text(r.z).c_str(),
                vector_text(r.w).c_str(), ok ? "[as expected]" : "[UNEXPECTED]");
    unexpected += ok ? 0 : 1;
  };
  contact(2, -0.5, 1.5,
          "Box LCP, a sliding contact: v = (-1, 2), mu = 0.5, -mu z_n <= z_t <= mu z_n (friction coupling), dantzig");
  contact(0.3, -0.3, 0, "Box LCP, a sticking contact: v = (-1, 0.3), mu = 0.5, dantzig");
  {
    // MLCP ([chapter] §1.2): 2u + v0 − v1 − 4 = 0, 0 <= v ⊥ (−u + v0 − 1, u + v1 + 1) >= 0; by hand
    // u = 1, v = (2, 0), w = (0, 2).
    const Mlcp mlcp{Eigen::MatrixXd::Constant(1, 1, 2.0),
                    Eigen::Matrix2d::Identity(),
                    Eigen::RowVector2d(1, -1),
                    Eigen::Vector2d(-1, 1),
                    Eigen::VectorXd::Constant(1, -4.0),
                    Eigen::Vector2d(-1, 1)};
    const Result r = solve(mlcp, Method::Auto, {.tolerance = 1e-12});
    const bool ok = r.solved() && near(r.z, Eigen::Vector3d(1, 2, 0), 1e-12);
    std::printf(
        "\n== MLCP (chapter 1.2): 2u + v0 - v1 - 4 = 0 with u free, 0 <= v _|_ (-u + v0 - 1, u + v1 + 1) >= 0\n");
    std::printf("   expected: u = 1, v = (2, 0), w = (0, 2)\n   %s\n", r.brief_report().c_str());
    std::printf("   (u, v) = %s   (equality, w) = %s\n   %s\n   %s\n", vector_text(r.z).c_str(),
                vector_text(r.w).c_str(), r.message.c_str(), ok ? "[as expected]" : "[UNEXPECTED]");
    unexpected += ok ? 0 : 1;
  }
  {
    // The exercise of [chapter] §1.2: min_{x >= 0} ½ xᵀ[[2, 1], [1, 2]]x − 3x0 − 3x1. Its KKT LCP is
    // M = [[2, 1], [1, 2]], q = (−3, −3): x = (1, 1), ν = 0, objective ½·6 − 6 = −3.
    const Qp qp{Eigen::Matrix2d{{2, 1}, {1, 2}}, Eigen::Vector2d(-3, -3), Eigen::MatrixXd(0, 2), Eigen::VectorXd(0)};
    const QpResult r = solve(qp, Method::Auto, {.tolerance = 1e-12});
    const bool ok = r.solved() && near(r.x, Eigen::Vector2d(1, 1), 1e-12) && std::abs(r.objective + 3) <= 1e-12;
    std::printf("\n== QP <=> LCP (chapter 1.2 exercise): min_{x >= 0} 1/2 x^T [[2, 1], [1, 2]] x - 3 x0 - 3 x1\n");
    std::printf("   expected: the KKT LCP M = [[2, 1], [1, 2]], q = (-3, -3); x = (1, 1), objective -3\n");
    std::printf("   %s\n   x = %s   nu = %s   objective = %.12g\n   %s\n", r.lcp.brief_report().c_str(),
                vector_text(r.x).c_str(), vector_text(r.nu).c_str(), r.objective,
                ok ? "[as expected]" : "[UNEXPECTED]");
    unexpected += ok ? 0 : 1;
  }

  const std::filesystem::path lcp_dir = std::filesystem::path(data_dir) / "lcp";
  if (!std::filesystem::is_directory(lcp_dir)) {
    std::printf("\n(Siconos corpus not found at %s; pass --data DIR to include it)\n", lcp_dir.c_str());
  } else {
    const auto corpus = [&](const char* file, Method method, const char* expected, bool should_solve) {
      const Lcp p = read_siconos_lcp(lcp_dir / file);
      run({std::string("Siconos ") + file + " (n = " + std::to_string(p.size()) + ") by " + to_string(method),
           expected,
           p,
           method,
           {},
           [should_solve](const Result& r) { return r.solved() == should_solve; }});
    };
    corpus("lcp_deudeu.dat", Method::Lemke, "Murty's 2x2: z = (4/3, 7/3)", true);
    corpus("lcp_mmc.dat", Method::Lemke, "solved (Siconos' LEMKE passes)", true);
    corpus("lcp_CPS_3.dat", Method::Auto, "solved by auto (Siconos' own Lemke fails here)", true);
    corpus("lcp_CPS_3.dat", Method::NewtonFb, "solved by semismooth Newton, where Lemke's path ends on a ray", true);
    corpus("lcp_Pang_isolated_sol_perturbed.dat", Method::Auto, "no solution: must come back not solved", false);
  }
  const std::filesystem::path mlcp_dir = std::filesystem::path(data_dir) / "mlcp";
  if (std::filesystem::is_directory(mlcp_dir)) {
    // Siconos' python test gives this circuit's solution; A is singular, so the Schur reduction
    // cannot run and auto must fall back.
    const Mlcp bridge = read_siconos_mlcp(mlcp_dir / "diodeBridge_mlcp.dat");
    const Result r = solve(bridge, Method::Auto);
    Eigen::VectorXd reference(7);
    reference << 0.985185185, 0.985185185, 0, 9.85185185e-4, 0, 0, 9.85185185e-4;
    const bool ok = r.solved() && near(r.z, reference, 1e-8);
    std::printf("\n== Siconos diodeBridge_mlcp.dat (n = 3 equalities, m = 4 diodes, A singular) by auto\n");
    std::printf("   expected: z = (0.985185185, 0.985185185, 0, 9.85185185e-4, 0, 0, 9.85185185e-4)\n");
    std::printf("   %s\n   z = %s\n   %s\n   %s\n", r.brief_report().c_str(), vector_text(r.z).c_str(),
                r.message.c_str(), ok ? "[as expected]" : "[UNEXPECTED]");
    unexpected += ok ? 0 : 1;
  }
  std::printf("\n%d example%s did not behave as expected\n", unexpected, unexpected == 1 ? "" : "s");
  return unexpected == 0 ? 0 : 1;
}

}  // namespace perp::cli
