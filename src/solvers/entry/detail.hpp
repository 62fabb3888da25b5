#pragma once
// Private helpers shared by the solver kernels (not installed).

#include <Eigen/SparseCore>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/result.hpp"
#include "perp/solvers/method.hpp"
#include "newton/newton.hpp"
#include "perp/solvers/options.hpp"
#include "entry/stop.hpp"

namespace perp::detail {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
// The PGS kernel (pgs.cpp, every problem type's) updates w incrementally (w += Δz_i M_:i); it recomputes
// it from z this often, against round-off, and always before a convergence claim.
inline constexpr int kPgsRefreshEvery = 64;
// Round-off allowance, relative to the problem's scale, for z >= 0 and w >= 0 in enumeration (LCP
// and MLCP) and for accepting a singular principal system's particular solution.
inline constexpr double kEnumerationSign = 1e-10;
// Sensitivity (sensitivity_kernel.cpp, sensitivity.cpp): the most unknowns of the dense system the
// implicit differentiation factors (the free components, or all of a frictional contact problem).
inline constexpr Eigen::Index kSensitivityDenseLimit = 4000;

/// `pattern` (a printf pattern with up to three %g-style conversions) filled with a, b and c, for
/// the messages of the Newton family and path.
[[nodiscard]] std::string format(const char* pattern, double a, double b = 0, double c = 0);

/// The name a method's trace events carry (`TraceEvent::method`): `method_name(method)`, from the
/// one name table; its strings are literals, so the pointer stays valid and is NUL-terminated.
[[nodiscard]] inline const char* trace_name(Method method) { return method_name(method).data(); }

/// A result for z: non-finite entries replaced by 0 (the contract says z, w are finite),
/// w = M z + q and the natural residual recomputed from z. Status and message are left to the
/// caller.
[[nodiscard]] Result make_result(const Lcp& problem, Eigen::VectorXd z, Method method = Method::Auto);

/// The same on a `Result` in place, its z sized n first (zeros when it is not): what the pipeline's
/// finish does for an LCP. Reuses the storage of z and w, so it allocates nothing when they are sized.
void recompute(const Lcp& problem, Result& result);
/// `recompute` less the relative residual (left as it was): for a kernel that compares natural
/// residuals of candidate points and measures the relative one once, on the point it returns.
void recompute_point(const Lcp& problem, Result& result);

/// The answer of a method that does not take this problem: `method`, `Status::NotApplicable`,
/// z = 0 of the problem's size n (w left empty for the caller or the pipeline's finish) and
/// `message`, which names why and which methods do take it.
[[nodiscard]] Result refused(Method method, Eigen::Index n, std::string message);

/// n = 0 or q >= 0: z = 0 solves (w = q >= 0, z·w = 0). Handled before any pivoting.
[[nodiscard]] std::optional<Result> trivial_result(const Lcp& problem, Method method);

/// The principal system of the active set α: M_αα into `matrix`, −q_α into `rhs`.
void principal_system(const Lcp& problem, const std::vector<Eigen::Index>& alpha, Eigen::MatrixXd& matrix,
                      Eigen::VectorXd& rhs);

/// The point of the active set α: z_α solves M_αα z_α = −q_α (LU), z = 0 elsewhere. Empty when
/// that solution is not finite (M_αα singular).
[[nodiscard]] std::optional<Eigen::VectorXd> active_set_point(const Lcp& problem,
                                                              const std::vector<Eigen::Index>& alpha);

/// Replaces `result`'s z (and w, residual) by `active_set_point(alpha)` when its natural residual
/// is no worse: turns a point that is accurate to the iteration's round-off or tolerance into the
/// vertex it approximates. Returns whether it did.
bool polish_on_active_set(const Lcp& problem, Result& result, const std::vector<Eigen::Index>& alpha);

/// The magnitudes of the data, computed once per solve: max|q_i| and max|M_ij|.
struct DataScale {
  double q_max = 0;
  double m_max = 0;
};
[[nodiscard]] DataScale data_scale(const Lcp& problem);
/// The same for the data of any M z + q (an MLCP's assembled matrix and offset).
[[nodiscard]] DataScale data_scale(const Eigen::MatrixXd& M, const Eigen::VectorXd& q);

/// z >= 0 and w >= 0 up to round-off at the problem's own scale: z_i >= −ε‖z‖∞ and
/// w_i >= −ε(‖q‖∞ + max|M|·‖z‖₁), the size of the terms summed into w. Scale-invariant, unlike an
/// absolute tolerance, so the pivoting methods take the same decisions for M, q and 1e-200·(M, q).
[[nodiscard]] bool sign_feasible(const DataScale& scale, const Eigen::VectorXd& z, const Eigen::VectorXd& w,
                                 double relative);
/// The round-off scales of that test: ε‖z‖∞ for z, ε(‖q‖∞ + max|M|·‖z‖₁) for w.
[[nodiscard]] double z_sign_tolerance(const Eigen::VectorXd& z, double relative);
[[nodiscard]] double w_sign_tolerance(const DataScale& scale, const Eigen::VectorXd& z, double relative);

/// `relative_residual(problem, z, w) <= tolerance` in O(n) for q != 0 (W = ‖q‖∞); for q = 0 a
/// necessary condition, W replaced by its upper bound max|M|·‖z‖₁ (a larger W can only shrink
/// each |min(z_i/Z, w_i/W)|). Iterations test this every step and the exact measure when it passes.
[[nodiscard]] bool may_meet(const DataScale& scale, const Eigen::VectorXd& z, const Eigen::VectorXd& w,
                            double tolerance);

/// The reformulation a method of the Newton family solves; empty for the other methods.
[[nodiscard]] std::optional<Reformulation> reformulation_of(Method method);

/// `auto`: runs `attempt(method)` for each method of `order` in turn and returns the first result
/// that solves (or proves there is no solution), or else the attempt with the smallest residual.
/// The message is one line of at most `kAutoMessageLimit` bytes: "auto (lemke: ray-termination; enum:
/// infeasible): " and the answering method's message, cut to fit; `Result::attempts` holds every
/// attempt in full and `Result::attempt_order` the `reason` why the order was chosen.
[[nodiscard]] Result first_that_solves(const std::vector<Method>& order, const std::function<Result(Method)>& attempt,
                                       const std::string& reason);

/// `text` on one line of at most `limit` bytes: line breaks become spaces, and a longer text keeps
/// its first two thirds and its last third with "..." between (cut at UTF-8 character boundaries).
[[nodiscard]] std::string one_line(std::string text, std::size_t limit = kAutoMessageLimit);

/// M counts as symmetric when |M_ij − M_ji| <= kSymmetry·max|M| for every pair: products such as
/// A Aᵀ are symmetric only to round-off.
inline constexpr double kSymmetry = 1e-14;

/// max|M_ij| and whether M counts as symmetric, from one pass over the entries of a square M and
/// no temporary (the solvers that pick a symmetric factorization run it on every solve).
struct MatrixScan {
  double largest = 0;
  bool symmetric = true;
};
[[nodiscard]] MatrixScan scan_matrix(const Eigen::MatrixXd& M);

/// Solved when the relative residual (`Result::relative_residual`, core/residual.hpp) meets the
/// tolerance; otherwise `otherwise` with the message.
void judge(Result& result, double tolerance, Status otherwise, const std::string& why_not);
/// " (relative residual R > tolerance T; absolute residual A in the units of z and w)".
[[nodiscard]] std::string misses_tolerance(const Result& result, double tolerance);

/// The factors of W = F M⁻¹ Fᵀ (`FactoredFrictionContact`, `FactoredLcp`): throws `InvalidProblem`
/// naming `name`(i, j) for a non-finite entry of F, and inverse_mass[j] when it is not finite or < 0.
void validate_factors(const Eigen::SparseMatrix<double, Eigen::RowMajor>& factor, const char* name,
                      const Eigen::VectorXd& inverse_mass);
/// F M⁻¹ Fᵀ x + offset, through v = M⁻¹ Fᵀ x (never forming the product).
[[nodiscard]] Eigen::VectorXd factored_product(const Eigen::SparseMatrix<double, Eigen::RowMajor>& factor,
                                               const Eigen::VectorXd& inverse_mass, const Eigen::VectorXd& x,
                                               const Eigen::VectorXd& offset);

}  // namespace perp::detail
