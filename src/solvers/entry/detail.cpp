#include "detail.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "perp/core/error.hpp"
#include "perp/core/residual.hpp"

namespace perp::detail {

std::string format(const char* pattern, double a, double b, double c) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, pattern, a, b, c);
  return buffer;
}

Result make_result(const Lcp& problem, Eigen::VectorXd z, Method method) {
  Result result;
  result.z = std::move(z);
  recompute(problem, result);
  result.method = method;
  return result;
}

void recompute(const Lcp& problem, Result& result) {
  recompute_point(problem, result);
  result.relative_residual = relative_residual(problem, result.z, result.w);
}

void recompute_point(const Lcp& problem, Result& result) {
  if (result.z.size() != problem.size()) result.z = Eigen::VectorXd::Zero(problem.size());
  for (double& x : result.z) {
    if (!std::isfinite(x)) x = 0.0;
  }
  result.w = problem.q;
  result.w.noalias() += problem.M * result.z;
  result.residual = natural_residual(result.z, result.w);
  if (!std::isfinite(result.residual)) {
    // Only possible when M z overflowed; fall back to z = 0, which is always finite.
    result.z.setZero();
    result.w = problem.q;
    result.residual = natural_residual(result.z, result.w);
  }
}

Result refused(Method method, Eigen::Index n, std::string message) {
  Result result;
  result.method = method;
  result.status = Status::NotApplicable;
  result.z = Eigen::VectorXd::Zero(n);
  result.message = std::move(message);
  return result;
}

std::optional<Result> trivial_result(const Lcp& problem, Method method) {
  if (problem.size() != 0 && problem.q.minCoeff() < 0.0) return std::nullopt;
  Result result = make_result(problem, Eigen::VectorXd::Zero(problem.size()), method);
  result.status = Status::Solved;
  result.message = problem.size() == 0 ? "empty problem (n = 0)" : "q >= 0: z = 0 solves";
  return result;
}

void principal_system(const Lcp& problem, const std::vector<Eigen::Index>& alpha, Eigen::MatrixXd& matrix,
                      Eigen::VectorXd& rhs) {
  matrix = problem.M(alpha, alpha);
  rhs = -problem.q(alpha);
}

std::optional<Eigen::VectorXd> active_set_point(const Lcp& problem, const std::vector<Eigen::Index>& alpha) {
  Eigen::VectorXd z = Eigen::VectorXd::Zero(problem.size());
  if (alpha.empty()) return z;
  Eigen::MatrixXd sub;
  Eigen::VectorXd rhs;
  principal_system(problem, alpha, sub, rhs);
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(sub);
  const Eigen::VectorXd solution = lu.solve(rhs);
  if (!solution.allFinite()) return std::nullopt;
  z(alpha) = solution;
  return z;
}

bool polish_on_active_set(const Lcp& problem, Result& result, const std::vector<Eigen::Index>& alpha) {
  std::optional<Eigen::VectorXd> z = active_set_point(problem, alpha);
  if (!z) return false;
  Result candidate = make_result(problem, std::move(*z));
  if (candidate.residual > result.residual) return false;
  result.z = std::move(candidate.z);
  result.w = std::move(candidate.w);
  result.residual = candidate.residual;
  result.relative_residual = candidate.relative_residual;
  return true;
}

DataScale data_scale(const Lcp& problem) { return data_scale(problem.M, problem.q); }

DataScale data_scale(const Eigen::MatrixXd& M, const Eigen::VectorXd& q) {
  if (q.size() == 0) return {};
  return {q.cwiseAbs().maxCoeff(), M.cwiseAbs().maxCoeff()};
}

double z_sign_tolerance(const Eigen::VectorXd& z, double relative) {
  return z.size() == 0 ? 0.0 : relative * z.cwiseAbs().maxCoeff();
}

double w_sign_tolerance(const DataScale& scale, const Eigen::VectorXd& z, double relative) {
  return relative * (scale.q_max + scale.m_max * z.cwiseAbs().sum());
}

bool sign_feasible(const DataScale& scale, const Eigen::VectorXd& z, const Eigen::VectorXd& w, double relative) {
  if (z.size() == 0) return true;
  return z.minCoeff() >= -z_sign_tolerance(z, relative) && w.minCoeff() >= -w_sign_tolerance(scale, z, relative);
}

bool may_meet(const DataScale& scale, const Eigen::VectorXd& z, const Eigen::VectorXd& w, double tolerance) {
  if (z.size() == 0) return true;
  static const Eigen::VectorXd none;
  // W = ‖q‖∞ exactly when q != 0; for q = 0 an upper bound of max_i Σ_j |M_ij z_j|.
  const long double W = scale.q_max > 0.0 ? static_cast<long double>(scale.q_max)
                                          : static_cast<long double>(scale.m_max) *
                                                static_cast<long double>(z.cwiseAbs().sum());
  // First a necessary condition in vectorized double arithmetic: each |min(z_i/Z, w_i/W)| is at
  // least |min(z_i, w_i)| / max(Z, W), so a natural residual above tolerance·max(Z, W) (with room
  // for the rounding of both sides) cannot meet the tolerance. Iterations far from it, most of
  // them, stop here instead of dividing every entry in long double.
  const double largest_z = z.cwiseAbs().maxCoeff();
  const double scale_bound = std::max(largest_z > 0.0 ? largest_z : 1.0, static_cast<double>(W));
  if (z.cwiseMin(w).cwiseAbs().maxCoeff() > tolerance * scale_bound * (1.0 + 1e-9)) return false;
  return scaled_natural_residual(z, w, none, none, z_scale(z, none, none), W) <= tolerance;
}

void judge(Result& result, double tolerance, Status otherwise, const std::string& why_not) {
  if (result.relative_residual <= tolerance) {
    result.status = Status::Solved;
    return;
  }
  result.status = otherwise;
  result.message = why_not + misses_tolerance(result, tolerance);
}

std::string misses_tolerance(const Result& result, double tolerance) {
  char buffer[200];
  std::snprintf(buffer, sizeof buffer,
                " (relative residual %.3g > tolerance %.3g; absolute residual %.3g in the units of z and w)",
                result.relative_residual, tolerance, result.residual);
  return buffer;
}

std::optional<Reformulation> reformulation_of(Method method) {
  switch (method) {
    case Method::NewtonFb:
      return Reformulation::FischerBurmeister;
    case Method::NewtonMin:
      return Reformulation::MinMap;
    case Method::PenalizedFb:
      return Reformulation::PenalizedFb;
    case Method::Smoothing:
      return Reformulation::Smoothing;
    default:
      return std::nullopt;
  }
}

std::string one_line(std::string text, std::size_t limit) {
  // Most messages hold no line break: two memchr scans find that without a pass of compares.
  if (std::memchr(text.data(), '\n', text.size()) != nullptr || std::memchr(text.data(), '\r', text.size()) != nullptr) {
    for (char& c : text) {
      if (c == '\n' || c == '\r') c = ' ';
    }
  }
  if (text.size() <= limit) return text;
  // The head (which method, what it did) and the tail (where messages put their figures: "relative
  // error 3e-11"), the middle replaced by "...", each cut at a UTF-8 character boundary.
  const auto continuation = [&](std::size_t at) { return (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80; };
  const std::size_t room = limit > 3 ? limit - 3 : 0;
  std::size_t head = room - room / 3;
  while (head > 0 && continuation(head)) --head;
  std::size_t tail = text.size() - room / 3;
  while (tail < text.size() && continuation(tail)) ++tail;
  return text.substr(0, head) + "..." + text.substr(tail);
}

Result first_that_solves(const std::vector<Method>& order, const std::function<Result(Method)>& attempt,
                         const std::string& reason) {
  std::string log;
  std::vector<Attempt> attempts;
  Result best;
  bool have_best = false;
  std::string names;  // the methods alone, for a log too long to leave room for the message
  // The log when short, else the methods' names, else their count: the answering method's own
  // message gets the rest of the line.
  const auto trail = [&] {
    constexpr std::size_t kTrailLimit = 80;
    if (log.size() <= kTrailLimit) return log;
    if (names.size() <= kTrailLimit) return names;
    return std::to_string(attempts.size()) + " methods";
  };
  const auto finish = [&](Result& result, const std::string& head) {
    result.message = one_line(head + result.message);
    result.attempts = std::move(attempts);
    result.attempt_order = reason;
  };
  for (const Method method : order) {
    Result result = attempt(method);
    result.method = method;
    log += (log.empty() ? "" : "; ") + to_string(method) + ": " + to_string(result.status);
    names += (names.empty() ? "" : ", ") + to_string(method);
    attempts.push_back({method, result.status, result.iterations, result.relative_residual, result.message});
    if (result.solved() || result.status == Status::Infeasible) {  // a solution, or a proof there is none
      finish(result, "auto (" + trail() + "): ");
      return result;
    }
    const bool stopped = stopped_from_outside(result.status) || stop_state().stopped.has_value();
    if (!have_best || result.residual < best.residual) {
      best = std::move(result);
      have_best = true;
    }
    if (stopped) {  // the time limit or the interrupt: no later method runs
      mark_stopped(best);
      finish(best, "auto stopped (" + trail() + "); returning " + to_string(best.method) + "'s point: ");
      return best;
    }
  }
  finish(best, "auto: no method solved (" + trail() + "); returning " + to_string(best.method) + "'s point: ");
  return best;
}

// Columns j and j+1 are read together with rows j and j+1, whose entries in a column i are adjacent
// in memory, as the two lanes of a packet; the maxima carry no branch.
MatrixScan scan_matrix(const Eigen::MatrixXd& M) {
  using Pair = Eigen::Array2d;
  const Eigen::Index n = M.rows();
  Pair worst = Pair::Zero();
  Pair big = Pair::Zero();
  Eigen::Index j = 0;
  for (; j + 2 <= n; j += 2) {
    const Pair corner_lower(M(j, j), M(j + 1, j));
    const Pair corner_upper(M(j, j + 1), M(j + 1, j + 1));
    big = big.max(corner_lower.abs()).max(corner_upper.abs());
    worst[0] = std::max(worst[0], std::abs(M(j + 1, j) - M(j, j + 1)));
    const double* const lower0 = &M(0, j);
    const double* const lower1 = &M(0, j + 1);
    for (Eigen::Index i = j + 2; i < n; ++i) {
      const Pair lower(lower0[i], lower1[i]);
      const Pair upper = Eigen::Map<const Pair>(&M(j, i));  // M(j, i) and M(j + 1, i)
      worst = worst.max((lower - upper).abs());
      big = big.max(lower.abs()).max(upper.abs());
    }
  }
  if (j < n) big[0] = std::max(big[0], std::abs(M(j, j)));  // odd n: the last diagonal entry
  MatrixScan out;
  out.largest = big.maxCoeff();
  out.symmetric = worst.maxCoeff() <= kSymmetry * out.largest;
  return out;
}

void validate_factors(const Eigen::SparseMatrix<double, Eigen::RowMajor>& factor, const char* name,
                      const Eigen::VectorXd& inverse_mass) {
  // A compressed factor's entries are one array: scanned flat, and by rows (for the entry's name)
  // only where one is not finite.
  bool finite = factor.isCompressed();
  if (finite) {
    const double* const values = factor.valuePtr();
    const Eigen::Index nnz = factor.nonZeros();
    for (Eigen::Index p = 0; p < nnz && finite; ++p) finite = std::isfinite(values[p]);
  }
  for (Eigen::Index i = 0; i < factor.outerSize() && !finite; ++i) {
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(factor, i); it; ++it) {
      if (!std::isfinite(it.value())) {
        throw InvalidProblem(std::string(name) + "(" + std::to_string(it.row()) + ", " + std::to_string(it.col()) +
                             ") is " + number_text(it.value()) + "; every entry must be finite");
      }
    }
  }
  require_finite(inverse_mass, "inverse_mass");
  for (Eigen::Index j = 0; j < inverse_mass.size(); ++j) {
    if (inverse_mass[j] < 0) {
      throw InvalidProblem("inverse_mass[" + std::to_string(j) + "] is " + number_text(inverse_mass[j]) +
                           "; must be >= 0");
    }
  }
}

Eigen::VectorXd factored_product(const Eigen::SparseMatrix<double, Eigen::RowMajor>& factor,
                                 const Eigen::VectorXd& inverse_mass, const Eigen::VectorXd& x,
                                 const Eigen::VectorXd& offset) {
  const Eigen::VectorXd v = inverse_mass.cwiseProduct(Eigen::VectorXd(factor.transpose() * x));
  Eigen::VectorXd y = offset;
  y.noalias() += factor * v;
  return y;
}

}  // namespace perp::detail
