#pragma once
// Private: Anderson acceleration (type II) of a fixed point x = G(x), shared by prox's outer loop
// (prox.cpp) and the fixed point on de Saxcé's shift (friction_shift.cpp). Not installed.

#include <Eigen/Dense>
#include <optional>
#include <utility>
#include <vector>

namespace perp::detail {

/// Keeps the last `depth` differences of the residuals f = G(x) − x and of the images G(x), and
/// combines the images: G(x) − Σ_j γ_j ΔG_j, with γ the least-squares fit of f by the ΔF_j (a
/// column-pivoted QR, so that dependent differences do not break it). While G is affine the
/// combination converges as a Krylov method would, where the plain iteration crawls at the rate of
/// G's largest eigenvalue.
class AndersonMixing {
 public:
  explicit AndersonMixing(int depth) : depth_(depth) {}

  /// Whether a pair is recorded, so that `combine` will take differences.
  [[nodiscard]] bool ready() const { return have_last_; }
  /// Forgets everything: the next pair only starts the differences.
  void restart() {
    clear_history();
    have_last_ = false;
  }
  /// Forgets the differences but keeps the last pair (the next differences are taken from it).
  void clear_history() {
    residual_steps_.clear();
    image_steps_.clear();
  }
  /// Records (x, g = G(x)) as the last pair and returns the combination, or nothing where no pair
  /// was recorded before it or where γ is not finite.
  [[nodiscard]] std::optional<Eigen::VectorXd> combine(const Eigen::VectorXd& x, const Eigen::VectorXd& g) {
    Eigen::VectorXd f = g - x;
    std::optional<Eigen::VectorXd> combined;
    if (have_last_) {
      residual_steps_.push_back(f - last_residual_);
      image_steps_.push_back(g - last_image_);
      if (static_cast<int>(residual_steps_.size()) > depth_) {
        residual_steps_.erase(residual_steps_.begin());
        image_steps_.erase(image_steps_.begin());
      }
      const auto k = static_cast<Eigen::Index>(residual_steps_.size());
      Eigen::MatrixXd F(f.size(), k);
      for (Eigen::Index j = 0; j < k; ++j) F.col(j) = residual_steps_[static_cast<std::size_t>(j)];
      const Eigen::VectorXd gamma = F.colPivHouseholderQr().solve(f);
      if (gamma.allFinite()) {
        combined = g;
        for (Eigen::Index j = 0; j < k; ++j) *combined -= gamma[j] * image_steps_[static_cast<std::size_t>(j)];
      }
    }
    last_residual_ = std::move(f);
    last_image_ = g;
    have_last_ = true;
    return combined;
  }

 private:
  int depth_;
  std::vector<Eigen::VectorXd> residual_steps_;
  std::vector<Eigen::VectorXd> image_steps_;
  Eigen::VectorXd last_residual_;
  Eigen::VectorXd last_image_;
  bool have_last_ = false;
};

}  // namespace perp::detail
