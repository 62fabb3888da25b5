#pragma once
// Private parts of path (not installed) shared by the dense model and path search
// (src/solvers/path.cpp), the complementary pivoting of a dense linearization
// (src/solvers/path_pivoting.cpp) and the sparse route (src/solvers/path_sparse.cpp): the problem
// as the method sees it (`Model`), the path of one linearization (`LinearPath`, `PathFollower`), the
// model of an `Mcp` with a sparse Jacobian and the Newton point of a sparse linearization by block
// pivoting (`ActiveSetNewtonPoint`).

#include <Eigen/Core>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "perp/core/ncp.hpp"
#include "sparse_linear.hpp"

namespace perp::path_detail {

// Sparse route: the most block-pivoting (active-set) solves for one Newton point.
inline constexpr int kMaxActiveSetSolves = 60;

// ---------------------------------------------------------------------------------------------
// The problem as the method sees it: bounds, F, J and the relative residual that judges "solved".

class Model {
 public:
  Model(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) : lower_(lower), upper_(upper) {}
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  virtual ~Model() = default;
  [[nodiscard]] Eigen::Index size() const { return lower_.size(); }
  [[nodiscard]] const Eigen::VectorXd& lower() const { return lower_; }
  [[nodiscard]] const Eigen::VectorXd& upper() const { return upper_; }
  // F(z); false when it is not finite there.
  virtual bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) = 0;
  virtual const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& z) = 0;
  virtual double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) = 0;
  // Whether J is sparse: then only `sparse_jacobian` is called, never `jacobian`.
  [[nodiscard]] virtual bool sparse() const { return false; }
  virtual const detail::SparseMatrix& sparse_jacobian(const Eigen::VectorXd& /*z*/) {
    throw std::logic_error("path: sparse_jacobian called on a dense model");
  }
  // The user's first non-finite F ("F call 5 returned F[1] = nan at z = (...)"), empty when none;
  // models of a given M and q have none.
  [[nodiscard]] virtual std::string non_finite_note() const { return {}; }

 private:
  const Eigen::VectorXd& lower_;
  const Eigen::VectorXd& upper_;
};

// The path of one linearization from x₀ (path.cpp: complementary pivoting; path_sparse.cpp: the
// segment to the Newton point found by block pivoting).

struct PathPoint {
  double t = 0;
  Eigen::VectorXd x;
};

struct LinearPath {
  std::vector<PathPoint> points;  // breakpoints in path order; points[0] = (0, x₀)
  bool complete = false;          // reached t = 1
  int pivots = 0;
  const char* failure = "";  // why it stopped short
};

// The path of the affine normal map A(x) = M π(x) + q + x − π(x) from x₀ with A(x(t)) = (1 − t) r,
// r = A(x₀), by complementary pivoting. Unknowns per index i: z_i (column M_i; nonbasic at a bound)
// and s_i = x_i − z_i (column e_i; nonbasic at 0), and t (column r): M z + s + t r = r − q.
// The dense route (path_pivoting.cpp).
class PathFollower {
 public:
  LinearPath follow(const Eigen::MatrixXd& M, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper,
                    const Eigen::VectorXd& x0, const Eigen::VectorXd& r, int max_pivots);

 private:
  enum class State { Interior, AtLower, AtUpper, Fixed };

  // −B⁻¹(p,:)/rate_p < −B⁻¹(q,:)/rate_q, entry by entry (ties within round-off).
  [[nodiscard]] bool lexicographically_smaller(Eigen::Index p, double rate_p, Eigen::Index q, double rate_q) const;

  void column(Eigen::Index var, Eigen::Index n, Eigen::VectorXd& out) const;

  // How far basic variable `var` may move at `rate` per unit step before it meets its bound.
  double room(Eigen::Index var, double rate, Eigen::Index n, const Eigen::VectorXd& lower,
              const Eigen::VectorXd& upper) const;

  void add(Eigen::Index var, double change, Eigen::Index n);

  // The leaving variable is set exactly to the bound it met.
  void snap(Eigen::Index var, double rate, Eigen::Index n, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);

  // LU of the basis matrix and its explicit inverse, recomputed from the columns (the product-form
  // updates between refactorizations accumulate round-off).
  bool refactor();

  static Eigen::Index z_var(Eigen::Index i) { return i; }
  static Eigen::Index s_var(Eigen::Index i, Eigen::Index n) { return n + i; }
  static Eigen::Index t_var(Eigen::Index n) { return 2 * n; }

  [[nodiscard]] Eigen::VectorXd current_x() const { return z_ + s_; }

  const Eigen::MatrixXd* M_ = nullptr;
  const Eigen::VectorXd* r_ = nullptr;
  std::vector<State> state_;
  std::vector<Eigen::Index> basic_;
  Eigen::VectorXd z_, s_, column_, direction_;
  double t_ = 0;
  Eigen::MatrixXd basis_, inverse_;
};

// The user's calls of F and J on one run, counted, and the first F that was not finite, described
// with its call and the iterate (issue 38: such an F after a few calls crashed the path search).
struct CallLog {
  long f_calls = 0;
  long j_calls = 0;
  std::string first_non_finite_f;
};

// A J that is not finite at an iterate: ends the run (path.cpp's run_path turns it into a status
// that names the call and the iterate, with the best point found before it).
class NonFiniteJacobian : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "(z_0, z_1, ...)" with at most 8 entries, for the messages above.
std::string point_text(const Eigen::VectorXd& z);

// F(z) of the user's problem into F; throws `InvalidProblem` unless it has z's size, false when it
// is not finite, which `log` keeps when it is the first (path.cpp; the function of both models of
// an `Mcp`).
bool user_function(const Mcp& problem, const Eigen::VectorXd& z, Eigen::VectorXd& F, CallLog& log);

// J(z) of the user's problem, dense or sparse: `InvalidProblem` for a wrong size (as
// `evaluate_jacobian`), `NonFiniteJacobian` naming the call, the entry and z for a value not finite.
Eigen::MatrixXd user_jacobian(const Mcp& problem, const Eigen::VectorXd& z, CallLog& log);
detail::SparseMatrix user_sparse_jacobian(const Mcp& problem, const Eigen::VectorXd& z, CallLog& log);

// The user's F and sparse J (`Mcp::J_sparse`), checked at every call.
class SparseFunctionModel final : public Model {
 public:
  // `log`: the calls made before (solve_path's checks at the start point).
  SparseFunctionModel(const Mcp& problem, CallLog log)
      : Model(problem.lower, problem.upper), problem_(problem), log_(std::move(log)) {}
  bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) override;
  const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& z) override;
  [[nodiscard]] bool sparse() const override { return true; }
  const detail::SparseMatrix& sparse_jacobian(const Eigen::VectorXd& z) override;
  double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) override;
  [[nodiscard]] std::string non_finite_note() const override { return log_.first_non_finite_f; }

 private:
  const Mcp& problem_;
  detail::SparseMatrix J_;
  Eigen::VectorXd J_at_;
  CallLog log_;
};

// The sparse route: the Newton point of the affine normal map A(x) = M π(x) + c + x − π(x),
// c = F(z₀) − M z₀ (M = J(z₀) + δI), found by block pivoting (the primal-dual active-set method, i.e.
// semismooth Newton on A): each index is labelled at its lower bound, at its upper bound or free;
// the labelled z_N is fixed, the free block solves M_FF z_F = −c_F − M_FN z_N (sparse LDLᵀ or LU),
// and the new labels are read from x = z − (M z + c). Unchanged labels: x is the exact zero of A.
// Starts from the labels of x₀ (the current point's active set). The "path" handed to the search is
// the segment from x₀ to that point in normal-map space (its points π(x) bend along the box).

class ActiveSetNewtonPoint {
 public:
  LinearPath follow(const detail::SparseMatrix& M, bool symmetric, const Eigen::VectorXd& lower,
                    const Eigen::VectorXd& upper, const Eigen::VectorXd& x0, const Eigen::VectorXd& r);
  [[nodiscard]] long solves() const { return solves_; }
  [[nodiscard]] long unsettled() const { return unsettled_; }

 private:
  // −1: at the lower bound (fixed variables too), +1: at the upper bound, 0: free.
  static int label(double x, double lower, double upper);

  std::vector<int> label_;
  std::vector<Eigen::Index> free_, position_;
  Eigen::VectorXd c_, z_, w_, x_, rhs_, solution_, scale_;
  std::vector<std::uint64_t> seen_;
  detail::SparseMatrix block_;
  detail::SparseSolver solver_;
  long solves_ = 0;
  long unsettled_ = 0;
};

}  // namespace perp::path_detail
