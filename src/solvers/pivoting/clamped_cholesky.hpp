#pragma once
// The Cholesky factor of the clamped block M_CC of Dantzig's principal pivoting (dantzig.cpp), kept
// up to date as the clamped set gains and loses indices (not installed).

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "entry/scratch.hpp"

namespace perp::detail {

// The range in which a sum of two squares is formed without overflow and without losing the
// smaller square to underflow in a way that matters (the Givens rotations of CholeskyFactor::remove).
inline constexpr double kSquareFloor = 0x1p-900;
inline constexpr double kSquareCeiling = 0x1p900;

// a·b over `size` entries, with four partial sums so that the adds do not wait on each other
// (the compiler may not reorder floating-point sums itself).
inline double dot(const double* a, const double* b, Eigen::Index size) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  Eigen::Index i = 0;
  for (; i + 4 <= size; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < size; ++i) s0 += a[i] * b[i];
  return (s0 + s2) + (s1 + s3);
}

// The Cholesky factor L (M_CC = L Lᵀ) of the clamped block, column-major in an n×n buffer so that
// the triangular solves run down contiguous columns (a thread's scratch block, scratch.hpp). Rows
// are in the order of the clamped list.
class CholeskyFactor {
 public:
  explicit CholeskyFactor(Eigen::Index capacity) : storage_(capacity, capacity), inverse_diagonal_(capacity) {}
  void clear() { m_ = 0; }

  // y ← L⁻¹ y and x ← L⁻ᵀ x on the first m entries. Written out rather than Eigen's blocked
  // triangular solves: the clamped blocks here are mostly a few dozen rows, where the blocking's
  // calls cost as much as the arithmetic. Forward runs axpys down the contiguous columns, backward
  // dot products with them; both multiply by the kept reciprocal diagonal instead of dividing,
  // which would sit on the dependency chain of every step.
  //
  // Both take the columns four at a time: the small triangle of the four first, then one sweep
  // over the rest of the vector for all four columns, so that the vector is read (and, forward,
  // written) once per four columns instead of once per column.
  void forward(Eigen::VectorXd& y) const {
    double* __restrict const v = y.data();
    const double* const L = factor().data();
    const Eigen::Index ld = factor().rows();
    const double* const inv = inverse_diagonal_.data();
    Eigen::Index j = 0;
    for (; j + 4 <= m_; j += 4) {
      const double* __restrict const c0 = L + j * ld;
      const double* __restrict const c1 = c0 + ld;
      const double* __restrict const c2 = c1 + ld;
      const double* __restrict const c3 = c2 + ld;
      const double y0 = v[j] * inv[j];
      const double y1 = (v[j + 1] - y0 * c0[j + 1]) * inv[j + 1];
      const double y2 = (v[j + 2] - y0 * c0[j + 2] - y1 * c1[j + 2]) * inv[j + 2];
      const double y3 = (v[j + 3] - y0 * c0[j + 3] - y1 * c1[j + 3] - y2 * c2[j + 3]) * inv[j + 3];
      v[j] = y0;
      v[j + 1] = y1;
      v[j + 2] = y2;
      v[j + 3] = y3;
      for (Eigen::Index i = j + 4; i < m_; ++i) v[i] -= (y0 * c0[i] + y1 * c1[i]) + (y2 * c2[i] + y3 * c3[i]);
    }
    for (; j < m_; ++j) {
      const double yj = v[j] * inv[j];
      v[j] = yj;
      const double* __restrict const column = L + j * ld;
      for (Eigen::Index i = j + 1; i < m_; ++i) v[i] -= yj * column[i];
    }
  }
  void backward(Eigen::VectorXd& x) const {
    double* const v = x.data();
    const double* const L = factor().data();
    const Eigen::Index ld = factor().rows();
    const double* const inv = inverse_diagonal_.data();
    Eigen::Index j = m_;
    for (; j % 4 != 0; --j) {  // the last m mod 4 rows one by one, then blocks of four
      const Eigen::Index r = j - 1;
      v[r] = (v[r] - dot(L + r * ld + r + 1, v + r + 1, m_ - r - 1)) * inv[r];
    }
    for (; j > 0; j -= 4) {
      const Eigen::Index r = j - 4;
      const double* const c0 = L + r * ld;
      const double* const c1 = c0 + ld;
      const double* const c2 = c1 + ld;
      const double* const c3 = c2 + ld;
      // Two partial sums per column (even and odd i) held as one two-lane packet, so that the
      // sweep runs in vector instructions (the compiler does not reorder a scalar sum itself).
      using Pair = Eigen::Array2d;
      using PairMap = Eigen::Map<const Pair>;
      Pair p0 = Pair::Zero(), p1 = Pair::Zero(), p2 = Pair::Zero(), p3 = Pair::Zero();
      Eigen::Index i = j;
      for (; i + 2 <= m_; i += 2) {
        const Pair a = PairMap(v + i);
        p0 += PairMap(c0 + i) * a;
        p1 += PairMap(c1 + i) * a;
        p2 += PairMap(c2 + i) * a;
        p3 += PairMap(c3 + i) * a;
      }
      double s0 = p0[0], s1 = p1[0], s2 = p2[0], s3 = p3[0];
      const double t0 = p0[1], t1 = p1[1], t2 = p2[1], t3 = p3[1];
      if (i < m_) {
        s0 += c0[i] * v[i];
        s1 += c1[i] * v[i];
        s2 += c2[i] * v[i];
        s3 += c3[i] * v[i];
      }
      const double x3 = (v[r + 3] - (s3 + t3)) * inv[r + 3];
      const double x2 = (v[r + 2] - (s2 + t2) - c2[r + 3] * x3) * inv[r + 2];
      const double x1 = (v[r + 1] - (s1 + t1) - c1[r + 2] * x2 - c1[r + 3] * x3) * inv[r + 1];
      const double x0 = (v[r] - (s0 + t0) - c0[r + 1] * x1 - c0[r + 2] * x2 - c0[r + 3] * x3) * inv[r];
      v[r] = x0;
      v[r + 1] = x1;
      v[r + 2] = x2;
      v[r + 3] = x3;
    }
  }

  // Appends index i's row (yᵀ, √pivot) with y = L⁻¹ M_C,i and pivot = M_ii − ‖y‖² > 0: the
  // bordered factorization of M_{C∪i}.
  void append(const Eigen::VectorXd& y, double pivot) {
    Eigen::Map<Eigen::MatrixXd>& L = factor();
    for (Eigen::Index j = 0; j < m_; ++j) L(m_, j) = y[j];
    L(m_, m_) = std::sqrt(pivot);
    inverse_diagonal_[m_] = 1.0 / L(m_, m_);
    ++m_;
  }
  // Deletes row and column k of M_CC from the factor. Deleting row k of L leaves rows k+1.. with
  // one entry right of the diagonal; Givens rotations of columns (j, j+1), j = k.., applied from
  // the right (so L Lᵀ is unchanged) move it back left, then the last column is zero. O((m − k)²).
  //
  // `carry`, when given, is a y with L y = b for the old factor; it is rotated along, so that its
  // first m − 1 entries then solve the new factor against b without entry k (the dropped last
  // entry meets the zero column), in O(m) instead of a new triangular solve.
  void remove(Eigen::Index k, double* carry = nullptr) {
    double* const L = factor().data();
    const Eigen::Index ld = factor().rows();
    for (Eigen::Index j = k; j + 1 < m_; ++j) {
      double* const left = L + j * ld;
      double* const right = L + (j + 1) * ld;
      const double a = left[j + 1];
      const double b = right[j + 1];  // a diagonal entry not yet rotated: > 0
      // √(a² + b²) directly where the squares can neither overflow nor underflow (libm's hypot,
      // which guards against both, was a twentieth of a pivoting solve at n = 100–200).
      const double squares = a * a + b * b;
      const double r = squares > kSquareFloor && squares < kSquareCeiling ? std::sqrt(squares) : std::hypot(a, b);
      const double c = a / r;
      const double s = b / r;
      for (Eigen::Index i = j + 1; i < m_; ++i) {
        const double u = left[i];
        const double v = right[i];
        left[i] = c * u + s * v;
        right[i] = c * v - s * u;
      }
      if (carry != nullptr) {
        const double u = carry[j];
        const double v = carry[j + 1];
        carry[j] = c * u + s * v;
        carry[j + 1] = c * v - s * u;
      }
    }
    for (Eigen::Index j = 0; j + 1 < m_; ++j) {  // drop row k: rows below it move up by one
      double* const column = L + j * ld;
      const Eigen::Index from = std::max(k, j) + 1;
      std::memmove(column + from - 1, column + from, static_cast<std::size_t>(m_ - from) * sizeof(double));
    }
    --m_;
    for (Eigen::Index j = k; j < m_; ++j) inverse_diagonal_[j] = 1.0 / L[j * ld + j];
  }

 private:
  Eigen::Map<Eigen::MatrixXd>& factor() { return storage_.matrix(); }
  [[nodiscard]] const Eigen::Map<Eigen::MatrixXd>& factor() const { return storage_.matrix(); }

  ScratchMatrix storage_;
  Eigen::VectorXd inverse_diagonal_;  // 1 / L_jj, j < m_
  Eigen::Index m_ = 0;
};

}  // namespace perp::detail
