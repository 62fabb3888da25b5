#pragma once
// Private parts of path (not installed) shared by the dense model and path search
// (src/solvers/path.cpp) and the sparse route (src/solvers/path_sparse.cpp): the problem as the
// method sees it (`Model`), the path of one linearization (`LinearPath`), the model of an `Mcp`
// with a sparse Jacobian and the Newton point of a sparse linearization by block pivoting.

#include <Eigen/Core>
#include <cstdint>
#include <stdexcept>
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

// The user's F and sparse J (`Mcp::J_sparse`), checked at every call.
class SparseFunctionModel final : public Model {
 public:
  explicit SparseFunctionModel(const Mcp& problem) : Model(problem.lower, problem.upper), problem_(problem) {}
  bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) override;
  const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& z) override;
  [[nodiscard]] bool sparse() const override { return true; }
  const detail::SparseMatrix& sparse_jacobian(const Eigen::VectorXd& z) override;
  double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) override;

 private:
  const Mcp& problem_;
  detail::SparseMatrix J_;
  Eigen::VectorXd J_at_;
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
