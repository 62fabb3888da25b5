#pragma once
// Private parts of the Newton family (not installed), shared by the iteration and its entries
// (src/solvers/newton.cpp), the problems as the iteration sees them (src/solvers/newton_models.cpp)
// and the reformulation Φ with its D_a, D_b (src/solvers/newton_reformulation.cpp).

#include <Eigen/Core>
#include <cstddef>
#include <vector>

#include "entry/detail.hpp"
#include "perp/core/box_lcp.hpp"
#include "perp/core/lcp.hpp"
#include "perp/core/ncp.hpp"
#include "perp/core/ncp_function.hpp"
#include "sparse_linear.hpp"

namespace perp::newton_detail {

using detail::kInfinity;

// ---------------------------------------------------------------------------------------------
// The problem as the iteration sees it: bounds, F and J (newton_models.cpp).

// F = M z + q, J = M (by reference, never copied): what the LCP and box-LCP models share.
class LinearModel {
 public:
  LinearModel(const Eigen::MatrixXd& M, const Eigen::VectorXd& q);
  [[nodiscard]] Eigen::Index size() const { return q_.size(); }
  // F at a trial point; false when not finite (only possible on overflow).
  bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) const;
  void start_function(const Eigen::VectorXd& z, Eigen::VectorXd& F) const { (void)function(z, F); }
  const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& /*z*/) { return M_; }
  [[nodiscard]] bool symmetric_jacobian() const { return symmetric_; }
  // The relative residual (core/residual.hpp) of z with F = M z + q in the box [lo, hi].
  [[nodiscard]] double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Eigen::VectorXd& lo,
                                const Eigen::VectorXd& hi) const;

 private:
  const Eigen::MatrixXd& M_;
  const Eigen::VectorXd& q_;
  bool symmetric_;
};

// The LCP: bounds [0, +∞).
class LcpModel : public LinearModel {
 public:
  static constexpr bool kWatchdog = false;
  // The proximal shift of singular Newton systems (see Newton::newton_system): on the LCP only,
  // where a singular symmetric M is positive semidefinite (a monotone problem, on which the
  // proximal point method converges). The others keep the plain step: on the MLCP with a singular
  // A of mlcp_test.cpp (an indefinite saddle-point J) the shifted step stalled.
  static constexpr bool kProximal = true;
  explicit LcpModel(const Lcp& problem);
  [[nodiscard]] const Eigen::VectorXd& lower() const { return lower_; }
  [[nodiscard]] const Eigen::VectorXd& upper() const { return upper_; }
  [[nodiscard]] double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F);

  // Active-set identification: once two iterates in a row agree on α = {i : z_i > F_i}, solve
  // M_αα z_α = −q_α (one LU of size |α|); the vertex replaces the iterate when it solves to the
  // tolerance. Each distinct α is tried once.
  bool finish(Eigen::VectorXd& z, Eigen::VectorXd& F, double tolerance);

 private:
  const Lcp& problem_;
  Eigen::VectorXd lower_, upper_;
  std::vector<Eigen::Index> alpha_, previous_, tried_;
};

// A box LCP with fixed bounds.
class BoxModel : public LinearModel {
 public:
  // The non-monotone line search's watchdog (see Newton::run): without it, Newton bounces between
  // two points on random SPD box LCPs with n >= 80 and two-sided bounds, until the stall test stops
  // it. Not (yet) on for the LCP and MCP models: there it turns quick stall reports on problems
  // without a solution into long monotone crawls (tobenna: 24 → 4685 newton-fb steps).
  static constexpr bool kWatchdog = true;
  static constexpr bool kProximal = false;
  explicit BoxModel(const BoxLcp& problem) : LinearModel(problem.M, problem.q), problem_(problem) {}
  [[nodiscard]] const Eigen::VectorXd& lower() const { return problem_.lower; }
  [[nodiscard]] const Eigen::VectorXd& upper() const { return problem_.upper; }
  [[nodiscard]] double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F) {
    return LinearModel::relative(z, F, problem_.lower, problem_.upper);
  }

  // The box analogue of LcpModel::finish: once two iterates in a row agree on the sets (z_i − F_i
  // at or below l_i: z_i = l_i; at or above u_i: z_i = u_i; otherwise clamped, F_i = 0), solve
  // M_CC z_C = −q_C − M_CN z_N (one LU of size |C|) and keep the point when it solves to the
  // tolerance. Each distinct labelling is tried once.
  bool finish(Eigen::VectorXd& z, Eigen::VectorXd& F, double tolerance);

 private:
  const BoxLcp& problem_;
  std::vector<int> labels_, previous_, tried_;
};

// What the models of a user's Mcp share: the bounds and F, checked at every call.
class McpFunction {
 public:
  static constexpr bool kWatchdog = false;
  static constexpr bool kProximal = false;
  explicit McpFunction(const Mcp& problem) : problem_(problem) {}
  [[nodiscard]] Eigen::Index size() const { return problem_.size(); }
  [[nodiscard]] const Eigen::VectorXd& lower() const { return problem_.lower; }
  [[nodiscard]] const Eigen::VectorXd& upper() const { return problem_.upper; }
  bool function(const Eigen::VectorXd& z, Eigen::VectorXd& F) const;
  void start_function(const Eigen::VectorXd& z, Eigen::VectorXd& F) const;
  // No active-set step for a nonlinear F.
  static bool finish(Eigen::VectorXd& /*z*/, Eigen::VectorXd& /*F*/, double /*tolerance*/) { return false; }

 protected:
  const Mcp& problem_;
};

// F and J given as functions, checked at every call.
class McpModel : public McpFunction {
 public:
  explicit McpModel(const Mcp& problem) : McpFunction(problem) {}
  const Eigen::MatrixXd& jacobian(const Eigen::VectorXd& z);
  // The relative residual at the scale of the linearization at z (one J evaluation, kept for
  // the Newton step taken from the same z).
  [[nodiscard]] double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F);
  [[nodiscard]] bool symmetric_jacobian() const { return symmetric_; }

 private:
  Eigen::MatrixXd J_;
  Eigen::VectorXd J_at_;
  bool symmetric_ = false;
};

// The same with the Jacobian given sparse (`Mcp::J_sparse`): nothing dense of size n×n.
class SparseMcpModel : public McpFunction {
 public:
  explicit SparseMcpModel(const Mcp& problem) : McpFunction(problem) {}
  const detail::SparseMatrix& jacobian(const Eigen::VectorXd& z);
  [[nodiscard]] double relative(const Eigen::VectorXd& z, const Eigen::VectorXd& F);
  [[nodiscard]] bool symmetric_jacobian() const { return symmetric_; }

 private:
  detail::SparseMatrix J_;
  Eigen::VectorXd J_at_;
  bool symmetric_ = false;
};

// What the iteration needs of J, for either storage.
void add_column(Eigen::VectorXd& out, const Eigen::MatrixXd& J, Eigen::Index j);
void add_column(Eigen::VectorXd& out, const detail::SparseMatrix& J, Eigen::Index j);
double max_column_sum(const Eigen::MatrixXd& J);
double max_column_sum(const detail::SparseMatrix& J);

// ---------------------------------------------------------------------------------------------
// The reformulation Φ, componentwise, with D_a and D_b (newton_reformulation.cpp).

enum class Kind { Fb, Penalized, Smoothed, Min };

struct Scalar {
  double value = 0;
  double da = 0;
  double db = 0;
  bool kink = false;  // at (0, 0) of an FB-type function: the gradient needs a direction
};

struct Parameters {
  Kind kind = Kind::Fb;
  double mu = 0;        // Smoothed
  double lambda = 1.0;  // Penalized
};

Scalar phi(const Parameters& p, double a, double b);

// The element at the kink (0, 0) along the direction (da, db) of the arguments.
NcpGradient kink_gradient(const Parameters& p, double da, double db);

enum class BoundType { Free, Lower, Upper, Both, Fixed };

BoundType bound_type(double lower, double upper);

// Φ(z) and, when `derivative` is set, D_a and D_b (J is needed only where a pair sits at a kink).
class Reformulator {
 public:
  Reformulator(const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);

  void value(const Parameters& p, const Eigen::VectorXd& z, const Eigen::VectorXd& F, Eigen::VectorXd& out);

  template <class Matrix>
  void derivative(const Parameters& p, const Eigen::VectorXd& z, const Eigen::VectorXd& F, const Matrix& J,
                  Eigen::VectorXd& out, Eigen::VectorXd& Da, Eigen::VectorXd& Db) {
    const Eigen::Index n = z.size();
    out.resize(n);
    Da.resize(n);
    Db.resize(n);
    kinks_.clear();
    for (Eigen::Index i = 0; i < n; ++i) {
      Row row;
      out[i] = component(p, i, z[i], F[i], &row);
      Da[i] = row.da;
      Db[i] = row.db;
      if (row.kink) kinks_.push_back(i);
    }
    if (kinks_.empty()) return;
    // Direction: every kinked z_i moves by +1; its effect on F is J·dir.
    Jdir_.setZero(n);
    for (const Eigen::Index j : kinks_) add_column(Jdir_, J, j);
    for (const Eigen::Index i : kinks_) kink_row(p, i, z[i], F[i], Jdir_[i], Da[i], Db[i]);
  }

  [[nodiscard]] std::size_t kink_count() const { return kinks_.size(); }
  // The rows the last `derivative` found at an FB-type kink (0, 0).
  [[nodiscard]] const std::vector<Eigen::Index>& kinks() const { return kinks_; }

 private:
  struct Row {
    double da = 0;
    double db = 0;
    bool kink = false;
  };

  double component(const Parameters& p, Eigen::Index i, double z, double F, Row* row) const;

  // Row i at a kink, with the directional derivative (dz = 1, dF = JdirI) picking the element.
  void kink_row(const Parameters& p, Eigen::Index i, double z, double F, double JdirI, double& Da, double& Db) const;

  static void set(Row* row, double da, double db, bool kink) {
    if (row == nullptr) return;
    row->da = da;
    row->db = db;
    row->kink = kink;
  }

  const Eigen::VectorXd& lower_;
  const Eigen::VectorXd& upper_;
  std::vector<BoundType> types_;
  std::vector<Eigen::Index> kinks_;
  Eigen::VectorXd Jdir_;
};

}  // namespace perp::newton_detail
