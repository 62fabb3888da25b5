// `perp diagnose`: the troubleshooting table of [chapter] (its Appendix A flow and the failure modes
// of §1.3–§1.7) as a command, on public library calls only.
#include "diagnose.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "diagnose_parts.hpp"
#include "perp/perp.hpp"
#include "perp/io/simulation.hpp"
#include "perp/solvers/friction_contact.hpp"

namespace perp::cli {
namespace {

using nlohmann::ordered_json;
using diagnose_detail::depth;
using diagnose_detail::diagnose_scene;
using diagnose_detail::finding;
using diagnose_detail::three_digits;

/// Above this size M is not classified nor factored densely (classify's own budgets bound its
/// work; the condition estimate is one dense LU).
constexpr Eigen::Index kDenseLimit = 3000;

/// The shape of a residual history: "converging" (it reached the tolerance, or fell by 10^3 and
/// still falls), "stalling" (the last quarter cut it by less than half), "oscillating" (over 30 %
/// of the steps go up and the last quarter does not fall), "too short" (fewer than 3 entries:
/// pivoting methods that stop after a few pivots).
std::string curve_shape(const std::vector<double>& history, bool solved) {
  if (history.empty()) return "no history";
  if (solved) return "converging";
  if (history.size() < 3) return "too short";
  std::size_t increases = 0;
  for (std::size_t k = 1; k < history.size(); ++k) increases += history[k] > history[k - 1] * (1 + 1e-12) ? 1 : 0;
  const std::size_t quarter = std::max<std::size_t>(history.size() / 4, 1);
  const double tail_start = *std::max_element(history.end() - static_cast<std::ptrdiff_t>(quarter) - 1, history.end());
  const double tail_end = history.back();
  const bool tail_falls = tail_end < 0.5 * tail_start;
  if (static_cast<double>(increases) > 0.3 * static_cast<double>(history.size() - 1) && !tail_falls) return "oscillating";
  if (!tail_falls) return "stalling";
  return "converging";
}

struct Attempt {
  Method method = Method::Auto;
  Result result;
  double ms = 0;
};

template <typename P>
Attempt attempt(const P& problem, Method method, const SolveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Attempt a{method, {}, 0};
  try {
    if constexpr (std::is_same_v<P, Qp>) {
      a.result = solve(problem, method, options).lcp;
    } else {
      a.result = solve(problem, method, options);
    }
  } catch (const InvalidProblem& e) {
    a.result.status = Status::NotApplicable;
    a.result.message = e.what();
    a.result.method = method;
  }
  a.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return a;
}

ordered_json attempt_json(const Attempt& a) {
  ordered_json o;
  o["method"] = to_string(a.method);
  o["status"] = to_string(a.result.status);
  o["residual"] = a.result.residual;
  o["relative_residual"] = a.result.relative_residual;
  o["iterations"] = a.result.iterations;
  o["curve"] = curve_shape(a.result.history, a.result.solved());
  o["time_ms"] = a.ms;
  o["message"] = a.result.message;
  return o;
}

std::string outcome_text(const Result& r) {
  return to_string(r.method) + ": " + to_string(r.status) + ", residual " + three_digits(r.residual) + " after " +
         std::to_string(r.iterations) + " iterations";
}

/// Classes, condition and scaling of a square matrix, with the LCP's q.
ordered_json matrix_section(const Eigen::MatrixXd& M, const Eigen::VectorXd& q, std::optional<MatrixReport>& report) {
  ordered_json o;
  const Eigen::Index n = M.rows();
  o["n"] = n;
  if (n > 0 && n <= kDenseLimit) {
    report = classify(M);
    ordered_json holds = ordered_json::array();
    ordered_json fails = ordered_json::array();
    ordered_json undecided = ordered_json::array();
    for (const MatrixClass c : all_matrix_classes()) {
      const ClassAnswer& a = (*report)[c];
      if (!a.holds) {
        undecided.push_back(to_string(c));
      } else if (*a.holds) {
        holds.push_back(to_string(c));
      } else {
        fails.push_back(to_string(c));
      }
    }
    o["classes"] = holds;
    o["not"] = fails;
    o["undecided"] = undecided;
    o["implications"] = report->implications;
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(M);
    const double rcond = lu.rcond();
    o["rcond"] = rcond;
    o["condition_estimate"] = rcond > 0 ? ordered_json(1 / rcond) : ordered_json(nullptr);  // null: singular
  }
  ordered_json scaling;
  const double max_entry = n > 0 ? M.cwiseAbs().maxCoeff() : 0;
  const Eigen::VectorXd diagonal = M.diagonal();
  scaling["max_abs_M"] = max_entry;
  scaling["min_diagonal"] = n > 0 ? diagonal.minCoeff() : 0;
  scaling["max_diagonal"] = n > 0 ? diagonal.maxCoeff() : 0;
  double ratio = 0;
  if (n > 0 && diagonal.cwiseAbs().minCoeff() > 0) ratio = diagonal.cwiseAbs().maxCoeff() / diagonal.cwiseAbs().minCoeff();
  scaling["diagonal_ratio"] = ratio;
  scaling["max_abs_q"] = q.size() > 0 ? q.cwiseAbs().maxCoeff() : 0;
  scaling["min_q"] = q.size() > 0 ? q.minCoeff() : 0;
  scaling["q_nonnegative"] = q.size() == 0 || q.minCoeff() >= 0;
  o["scaling"] = scaling;
  return o;
}

/// The rows of the generalized Jacobian of min(z, Mz + q) at z: row i of M where z_i > w_i
/// (the pair is active on w), of I otherwise; its reciprocal condition estimate.
double min_map_jacobian_rcond(const Lcp& lcp, const Eigen::VectorXd& z) {
  const Eigen::VectorXd w = lcp.M * z + lcp.q;
  Eigen::MatrixXd B = Eigen::MatrixXd::Identity(lcp.size(), lcp.size());
  for (Eigen::Index i = 0; i < lcp.size(); ++i) {
    if (w[i] < z[i]) B.row(i) = lcp.M.row(i);
  }
  const double rcond = Eigen::PartialPivLU<Eigen::MatrixXd>(B).rcond();
  return std::isfinite(rcond) ? rcond : 0.0;  // an exactly singular B gives 0/0
}

bool is_newton(Method m) {
  return m == Method::NewtonFb || m == Method::NewtonMin || m == Method::PenalizedFb || m == Method::Smoothing;
}

/// For a frictional problem that fails: the μ at which the solution disappears (auto with μ
/// scaled by 0, 1/8, …, 4), and whether the fix of [chapter], lowering μ (halved), helps.
template <typename P, typename Scale>
ordered_json friction_finding(const P& problem, double max_mu, const SolveOptions& options, Scale with_factor) {
  ordered_json rows = ordered_json::array();
  double last_solved = -1;
  double first_failed = -1;
  for (const double factor : {0.0, 0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0}) {
    const Result r = solve(with_factor(problem, factor), Method::Auto, options);
    rows.push_back({{"mu_factor", factor}, {"max_mu", factor * max_mu}, {"status", to_string(r.status)}});
    if (r.solved() && first_failed < 0) last_solved = factor;
    if (!r.solved() && first_failed < 0) first_failed = factor;
  }
  const Result lower = solve(with_factor(problem, 0.5), Method::Auto, options);
  ordered_json f = finding("friction large enough for a Painleve-type inconsistency",
                           first_failed < 0
                               ? "auto fails at the given mu (" + three_digits(max_mu) + ") but solves every scaled mu"
                               : "auto with mu scaled: solved up to mu = " + three_digits(last_solved * max_mu) +
                                     ", not at mu = " + three_digits(first_failed * max_mu) +
                                     ": the solution disappears as mu grows (largest mu given " + three_digits(max_mu) + ")",
                           "lower mu (here: halved)", lower.solved(), "mu/2: " + outcome_text(lower));
  f["sweep"] = rows;
  return f;
}

/// Runs `methods` on `problem` in order; their outcomes go to out["methods"].
template <typename P>
std::vector<Attempt> run_methods(const P& problem, const std::vector<Method>& methods, const SolveOptions& options,
                                 ordered_json& out) {
  std::vector<Attempt> attempts;
  ordered_json tried = ordered_json::array();
  for (const Method m : methods) {
    attempts.push_back(attempt(problem, m, options));
    tried.push_back(attempt_json(attempts.back()));
  }
  out["methods"] = tried;
  return attempts;
}

/// Sets the findings, "solved" (some attempt solved it) and the verdict.
void conclude(ordered_json& out, ordered_json findings, const std::vector<Attempt>& attempts) {
  const auto first = std::find_if(attempts.begin(), attempts.end(), [](const Attempt& a) { return a.result.solved(); });
  out["findings"] = std::move(findings);
  out["solved"] = first != attempts.end();
  // `infeasible` is a proof (docs/solvers.md, "Proofs are checked before they are claimed"):
  // enumeration of every active set, or Lemke's ray verified on the data as a Farkas certificate.
  const auto proof =
      std::find_if(attempts.begin(), attempts.end(), [](const Attempt& a) { return a.result.status == Status::Infeasible; });
  if (first != attempts.end()) {
    out["verdict"] = "solved by " + to_string(first->method) + " (the first in the order that solved it)";
  } else if (proof != attempts.end()) {
    out["verdict"] = "no solution exists: " + to_string(proof->method) + " proves it (" + proof->result.message + ")";
    ordered_json certificate{{"method", to_string(proof->method)}, {"message", proof->result.message}};
    if (proof->result.ray) certificate["farkas_vector"] = std::vector<double>(proof->result.ray->begin(), proof->result.ray->end());
    out["certificate"] = std::move(certificate);
  } else {
    out["verdict"] = "no method solved it";
  }
}

/// The LCP table: classes, methods in the recommended order, findings with their fixes tried.
ordered_json diagnose_lcp(const Lcp& lcp, const SolveOptions& options) {
  ordered_json out;
  std::optional<MatrixReport> report;
  out["matrix"] = matrix_section(lcp.M, lcp.q, report);
  const Eigen::Index n = lcp.size();
  std::vector<Method> order;
  if (report) {
    const Recommendation rec = recommend(*report, n);
    order = rec.order;
    out["recommendation"] = {{"method", to_string(rec.method)}, {"reason", rec.reason}};
  } else {
    order = {Method::Pgs, Method::NewtonMin, Method::Lemke};
    out["recommendation"] = {{"method", "pgs"}, {"reason", "too large to classify densely: the large-problem order"}};
  }
  // Every family appears once: the recommended order, then what it left out of pgs / newton-min / lemke.
  for (const Method m : {Method::Lemke, Method::Pgs, Method::NewtonMin}) {
    if (std::find(order.begin(), order.end(), m) == order.end()) order.push_back(m);
  }
  const std::vector<Attempt> attempts = run_methods(lcp, order, options, out);
  const auto solved_by = [&](Method m) -> const Attempt* {
    for (const Attempt& a : attempts) {
      if (a.method == m) return &a;
    }
    return nullptr;
  };
  const Attempt* solver = nullptr;
  for (const Attempt& a : attempts) {
    if (a.result.solved()) {
      solver = &a;
      break;
    }
  }

  ordered_json findings = ordered_json::array();
  // 1. No class guarantees a solution.
  if (report) {
    const bool guaranteed = report->proves(MatrixClass::P) || report->proves(MatrixClass::PositiveDefinite) ||
                            report->proves(MatrixClass::StrictlyCopositive);
    if (!guaranteed && !lcp.q.isZero() && lcp.q.minCoeff() < 0) {
      const ClassAnswer& p = (*report)[MatrixClass::P];
      std::string evidence = "M is not shown P, positive definite or strictly copositive";
      if (p.holds == false) evidence += "; not P: " + witness_to_text(p.witness);
      const bool copositive_plus = report->proves(MatrixClass::CopositivePlus);
      if (copositive_plus) evidence += "; copositive-plus: Lemke solves it whenever it is feasible";
      const Attempt* lemke = solved_by(Method::Lemke);
      const Attempt* enumeration = solved_by(Method::Enum);
      std::string tried_text = lemke ? outcome_text(lemke->result) : "lemke not run";
      if (enumeration) {
        tried_text += "; " + outcome_text(enumeration->result);
        if (enumeration->result.status == Status::NoSolutionFound) {
          tried_text += " (every one of the 2^" + std::to_string(n) + " active sets examined: LCP(q, M) has no solution)";
        }
      }
      const bool any = solver != nullptr;
      findings.push_back(finding(
          "no class of M guarantees a solution for every q", evidence,
          copositive_plus ? "Lemke's method: a solution, or a secondary ray that proves there is none"
                          : "Lemke's method (a ray proves nothing for this M); enumeration (n <= 16) decides",
          any, tried_text));
    }
    // 2. Ill conditioning.
    const double rcond = out["matrix"].value("rcond", 1.0);
    if (rcond < 1e-10) {
      // Fix: symmetric diagonal scaling D M D, D = diag(1/sqrt|M_ii|) (identity where M_ii = 0).
      Eigen::VectorXd d(n);
      for (Eigen::Index i = 0; i < n; ++i) d[i] = lcp.M(i, i) != 0 ? 1 / std::sqrt(std::abs(lcp.M(i, i))) : 1.0;
      const Lcp scaled{d.asDiagonal() * lcp.M * d.asDiagonal(), d.asDiagonal() * lcp.q};
      const Result r = solve(scaled, Method::Auto, options);
      const Eigen::VectorXd z = d.asDiagonal() * r.z;
      const Eigen::VectorXd w = lcp.M * z + lcp.q;
      const double rel = relative_residual(lcp, z, w);
      const bool helped = rel <= options.tolerance && solver == nullptr;
      findings.push_back(finding("ill conditioning",
                                 "reciprocal condition estimate " + three_digits(rcond) + " (condition about " +
                                     three_digits(1 / std::max(rcond, 1e-300)) + ")",
                                 "rescale: solve D M D, D q with D = diag(1/sqrt|M_ii|), and map z back",
                                 solver == nullptr ? std::optional<bool>(helped) : std::nullopt,
                                 "scaled auto: " + to_string(r.status) + ", relative residual of the unscaled z " +
                                     three_digits(rel)));
    }
  }
  // 3. Zero or negative diagonal: PGS divides by M_ii.
  if (n > 0 && lcp.M.diagonal().minCoeff() <= 0) {
    Eigen::Index i = 0;
    const double m = lcp.M.diagonal().minCoeff(&i);
    const Attempt* pgs = solved_by(Method::Pgs);
    const Attempt* lemke = solved_by(Method::Lemke);
    findings.push_back(finding("zero or negative diagonal: PGS cannot run",
                               "M(" + std::to_string(i) + ", " + std::to_string(i) + ") = " + three_digits(m) +
                                   (pgs ? "; pgs: " + to_string(pgs->result.status) : ""),
                               "a pivoting method (Lemke), which needs no diagonal",
                               lemke ? std::optional<bool>(lemke->result.solved()) : std::nullopt,
                               lemke ? outcome_text(lemke->result) : "lemke not run"));
  }
  // 4. PGS ran but did not converge: warm start it from Lemke.
  const Attempt* pgs = solved_by(Method::Pgs);
  if (pgs && !pgs->result.solved() && n > 0 && lcp.M.diagonal().minCoeff() > 0) {
    const std::string shape = curve_shape(pgs->result.history, false);
    const Attempt* lemke = solved_by(Method::Lemke);
    std::optional<bool> helped;
    std::string outcome = "lemke did not solve it: no start";
    if (lemke && lemke->result.solved()) {
      SolveOptions warm = options;
      warm.initial_guess = lemke->result.z;
      const Result r = solve(lcp, Method::Pgs, warm);
      helped = r.solved();
      outcome = "pgs from lemke's z: " + outcome_text(r);
    }
    const bool proven = report && ((report->proves(MatrixClass::Symmetric) &&
                                    report->proves(MatrixClass::PositiveSemidefinite)) ||
                                   report->proves(MatrixClass::DiagonallyDominant));
    std::string why = report && !proven
                          ? "; M is neither symmetric PSD nor diagonally dominant, where PGS is proven to converge"
                          : "";
    findings.push_back(finding("PGS does not converge", "pgs: " + to_string(pgs->result.status) + ", curve " + shape + why,
                               "warm-start PGS from Lemke's solution", helped, outcome));
  }
  // 5. Newton failed: a singular generalized Jacobian where it stopped? Start it from PGS.
  for (const Attempt& a : attempts) {
    if (!is_newton(a.method) || a.result.solved()) continue;
    const double rcond = n <= kDenseLimit ? min_map_jacobian_rcond(lcp, a.result.z) : 1.0;
    const std::string evidence =
        to_string(a.method) + ": " + to_string(a.result.status) + ", curve " + curve_shape(a.result.history, false) +
        "; reciprocal condition of the generalized Jacobian of min(z, w) at its last z: " + three_digits(rcond) +
        (rcond < 1e-12 ? " (singular)" : "");
    if (lcp.M.diagonal().minCoeff() <= 0) {
      findings.push_back(finding("Newton stalls", evidence, "start Newton from PGS", std::nullopt,
                                 "not tried: PGS cannot run on this M (a zero or negative diagonal)"));
      break;
    }
    SolveOptions start = options;
    SolveOptions short_pgs = options;
    short_pgs.max_iterations = 200;
    start.initial_guess = solve(lcp, Method::Pgs, short_pgs).z;
    const Result r = solve(lcp, a.method, start);
    findings.push_back(finding("Newton stalls", evidence, "start Newton from PGS (200 sweeps)", r.solved(),
                               to_string(a.method) + " from pgs's z: " + outcome_text(r)));
    break;
  }
  conclude(out, findings, attempts);
  return out;
}

ordered_json diagnose_friction_contact(const FrictionContact& fc, const SolveOptions& options) {
  ordered_json out;
  std::optional<MatrixReport> report;
  out["matrix"] = matrix_section(Eigen::MatrixXd(fc.W), fc.q, report);
  const std::vector<Attempt> attempts =
      run_methods(fc, {Method::Nsgs, Method::NewtonAc, Method::Prox, Method::Lemke}, options, out);
  const bool solved = std::any_of(attempts.begin(), attempts.end(), [](const Attempt& a) { return a.result.solved(); });
  ordered_json findings = ordered_json::array();
  if (!solved && fc.mu.size() > 0 && fc.mu.maxCoeff() > 0) {
    findings.push_back(friction_finding(fc, fc.mu.maxCoeff(), options, [](const FrictionContact& p, double f) {
      FrictionContact scaled = p;
      scaled.mu *= f;
      return scaled;
    }));
  }
  conclude(out, findings, attempts);
  return out;
}

ordered_json diagnose_box_lcp(const BoxLcp& box, const SolveOptions& options) {
  ordered_json out;
  std::optional<MatrixReport> report;
  out["matrix"] = matrix_section(box.M, box.q, report);
  const std::vector<Attempt> attempts =
      run_methods(box, {Method::Dantzig, Method::Pgs, Method::NewtonFb, Method::NewtonMin}, options, out);
  const bool solved = std::any_of(attempts.begin(), attempts.end(), [](const Attempt& a) { return a.result.solved(); });
  ordered_json findings = ordered_json::array();
  if (box.M.rows() > 0 && box.M.diagonal().minCoeff() <= 0) {
    findings.push_back(finding("zero or negative diagonal: PGS cannot run",
                               "min M_ii = " + three_digits(box.M.diagonal().minCoeff()), "dantzig (pivoting)",
                               attempts[0].result.solved(), outcome_text(attempts[0].result)));
  }
  if (!solved && !box.friction.empty()) {
    double max_mu = 0;
    for (const FrictionCoupling& c : box.friction) max_mu = std::max(max_mu, c.mu);
    findings.push_back(friction_finding(box, max_mu, options, [](const BoxLcp& p, double f) {
      BoxLcp scaled = p;
      for (FrictionCoupling& c : scaled.friction) c.mu *= f;
      return scaled;
    }));
  }
  conclude(out, findings, attempts);
  return out;
}

ordered_json diagnose_mlcp(const Mlcp& mlcp, const SolveOptions& options) {
  ordered_json out;
  const Eigen::Index n = mlcp.equalities();
  const Eigen::Index m = mlcp.complementarities();
  Eigen::MatrixXd full(n + m, n + m);
  full << mlcp.A, mlcp.C, mlcp.D, mlcp.B;
  Eigen::VectorXd rhs(n + m);
  rhs << mlcp.a, mlcp.b;
  std::optional<MatrixReport> report;
  out["matrix"] = matrix_section(full, rhs, report);
  if (n > 0) {
    double rcond_a = Eigen::PartialPivLU<Eigen::MatrixXd>(mlcp.A).rcond();
    if (!std::isfinite(rcond_a)) rcond_a = 0;  // an all-zero A
    out["matrix"]["rcond_A"] = rcond_a;
  }
  std::vector<Method> methods = mlcp_methods();
  methods.erase(std::remove(methods.begin(), methods.end(), Method::Auto), methods.end());
  const std::vector<Attempt> attempts = run_methods(mlcp, methods, options, out);
  ordered_json findings = ordered_json::array();
  const auto schur = std::find_if(attempts.begin(), attempts.end(), [](const Attempt& a) { return a.method == Method::Schur; });
  if (schur != attempts.end() && !schur->result.solved()) {
    const auto solved_it = std::find_if(attempts.begin(), attempts.end(), [](const Attempt& a) { return a.result.solved(); });
    const Attempt* other = solved_it == attempts.end() ? nullptr : &*solved_it;
    findings.push_back(finding("the Schur reduction is not available: A (the equations in the free unknowns) is singular "
                               "or ill conditioned",
                               "reciprocal condition of A " +
                                   (n > 0 ? three_digits(out["matrix"]["rcond_A"].get<double>()) : std::string("-")) +
                                   "; schur: " + schur->result.message,
                               "a method on the whole MLCP (enum, lemke, the Newton family)", other != nullptr,
                               other ? outcome_text(other->result) : "none of them solved it"));
  }
  conclude(out, findings, attempts);
  return out;
}

void print_text(const ordered_json& d) {
  std::cout << d["file"].get<std::string>() << " (" << d["type"].get<std::string>() << ")\n";
  if (d.contains("matrix")) {
    const ordered_json& m = d["matrix"];
    std::cout << "\nmatrix: n = " << m["n"] << "\n";
    if (m.contains("classes")) {
      const auto list = [](const ordered_json& a) {
        std::string s;
        for (const auto& x : a) s += (s.empty() ? "" : ", ") + x.get<std::string>();
        return s.empty() ? std::string("none") : s;
      };
      std::cout << "  classes: " << list(m["classes"]) << "\n  not: " << list(m["not"]) << "\n";
      if (!m["undecided"].empty()) std::cout << "  undecided: " << list(m["undecided"]) << "\n";
      for (const auto& i : m["implications"]) std::cout << "  - " << i.get<std::string>() << "\n";
      std::cout << "  condition estimate "
                << (m["condition_estimate"].is_null() ? std::string("infinite (singular)")
                                                      : three_digits(m["condition_estimate"].get<double>()))
                << " (rcond "
                << three_digits(m["rcond"].get<double>()) << ")\n";
    }
    const ordered_json& s = m["scaling"];
    std::cout << "  scaling: max|M| " << three_digits(s["max_abs_M"]) << ", diagonal in ["
              << three_digits(s["min_diagonal"]) << ", " << three_digits(s["max_diagonal"]) << "] (ratio "
              << three_digits(s["diagonal_ratio"]) << "), max|q| " << three_digits(s["max_abs_q"]) << ", min q "
              << three_digits(s["min_q"]) << (s["q_nonnegative"].get<bool>() ? " (q >= 0: z = 0 solves it)" : "")
              << "\n";
  }
  if (d.contains("recommendation")) {
    std::cout << "\nrecommended: " << d["recommendation"]["method"].get<std::string>() << " ("
              << d["recommendation"]["reason"].get<std::string>() << ")\n";
  }
  if (d.contains("methods")) {
    std::cout << "\nmethods tried:\n";
    for (const auto& a : d["methods"]) {
      char line[256];
      std::snprintf(line, sizeof line, "  %-14s %-18s residual %-10s iterations %-6d curve %-12s %.3g ms\n",
                    a["method"].get<std::string>().c_str(), a["status"].get<std::string>().c_str(),
                    three_digits(a["residual"]).c_str(), a["iterations"].get<int>(), a["curve"].get<std::string>().c_str(),
                    a["time_ms"].get<double>());
      std::cout << line;
    }
  }
  if (d.contains("run")) {
    const ordered_json& r = d["run"];
    const auto counted = [](const ordered_json& n, const char* one, const char* many) {
      return n.dump() + " " + (n.get<long>() == 1 ? one : many);
    };
    std::cout << "\nrun: " << counted(r["steps"], "step", "steps") << ", " << counted(r["bodies"], "body", "bodies")
              << ", up to " << counted(r["most_contacts"], "contact", "contacts") << "; " << r["unsolved_steps"]
              << " unsolved; deepest overlap "
              << three_digits(depth(r["deepest_overlap"].get<double>())) << " m; energy " << three_digits(r["energy_start"])
              << " J -> " << three_digits(r["energy_end"]) << " J\n";
    std::string methods;
    for (const auto& [name, count] : r["steps_by_method"].items()) {
      methods += (methods.empty() ? "" : ", ") + name + " " + std::to_string(count.get<long>());
    }
    std::cout << "steps by method: " << methods << "; " << r["fallbacks"] << " fell back to auto; at most "
              << counted(r["most_iterations"], "iteration", "iterations") << " in one step\n";
  }
  std::cout << "\nfindings:" << (d["findings"].empty() ? " none\n" : "\n");
  for (const auto& f : d["findings"]) {
    std::cout << "  * " << f["cause"].get<std::string>() << "\n    evidence: " << f["evidence"].get<std::string>()
              << "\n    fix: " << f["fix"].get<std::string>() << "\n    tried: " << f["outcome"].get<std::string>()
              << " -> "
              << (f["helped"].is_null() ? "not judged" : f["helped"].get<bool>() ? "helped" : "did not help") << "\n";
  }
  std::cout << "\nverdict: " << d["verdict"].get<std::string>() << "\n";
}

}  // namespace

CLI::App* add_diagnose_command(CLI::App& app, DiagnoseArguments& args) {
  CLI::App* command = app.add_subcommand(
      "diagnose", "Why a problem or scene fails: classes, conditioning, methods tried, causes and fixes tried");
  command->add_option("FILE", args.file, "problem file (.dat, .json) or scene (.json with \"bodies\")")->required();
  command->add_flag("--json", args.json, "print one JSON object");
  command->add_option("--tol", args.tolerance, "tolerance of the solves")->capture_default_str();
  command->add_option("--time-limit", args.time_limit,
                      "wall-clock limit in seconds of each solve it runs (0 = none): a method that reaches it is "
                      "reported time-limit")
      ->check(CLI::NonNegativeNumber);
  return command;
}

int run_diagnose(const DiagnoseArguments& args) {
  SolveOptions options;
  options.tolerance = args.tolerance;
  if (args.time_limit > 0) options.time_limit = args.time_limit;
  options.validate(0);
  ordered_json d;
  d["file"] = args.file;
  std::optional<Problem> problem;
  try {
    problem = read_problem_file(args.file);
  } catch (const InvalidProblem& problem_error) {
    // Not a problem file: a scene? Its reader names what is wrong when it is neither.
    if (std::filesystem::path(args.file).extension() != ".json") throw;
    contact::Scene scene;
    try {
      scene = read_scene_file(args.file);
    } catch (const InvalidProblem& scene_error) {
      throw InvalidProblem(std::string(problem_error.what()) + "; as a scene: " + scene_error.what());
    }
    d["type"] = "scene";
    if (args.time_limit > 0) scene.options.solve.time_limit = args.time_limit;
    d.update(diagnose_scene(scene));
  }
  if (problem) {
    d["type"] = std::string(problem_type(*problem));
    std::visit(
        [&](const auto& p) {
          using P = std::decay_t<decltype(p)>;
          if constexpr (std::is_same_v<P, Lcp>) {
            d.update(diagnose_lcp(p, options));
          } else if constexpr (std::is_same_v<P, Qp>) {
            d["note"] = "a QP is diagnosed through the LCP of its KKT conditions";
            d.update(diagnose_lcp(kkt_lcp(p), options));
          } else if constexpr (std::is_same_v<P, BoxLcp>) {
            d.update(diagnose_box_lcp(p, options));
          } else if constexpr (std::is_same_v<P, Mlcp>) {
            d.update(diagnose_mlcp(p, options));
          } else {
            d.update(diagnose_friction_contact(p, options));
          }
        },
        *problem);
  }
  if (args.json) {
    std::cout << d.dump(2) << "\n";
  } else {
    print_text(d);
  }
  return d["solved"].get<bool>() ? 0 : 1;
}

}  // namespace perp::cli
