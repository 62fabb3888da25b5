#pragma once
// Private: the sparse Cholesky factor of a symmetric positive definite matrix given by its lower
// triangle (column-major), its pattern analysed once and refactored for new values: CHOLMOD's LLᵀ
// (SuiteSparse; simplicial or supernodal by its own rule on the factor's flop count) where perp is
// built with it (PERP_HAVE_CHOLMOD, src/CMakeLists.txt), Eigen's simplicial LDLᵀ with AMD otherwise.
// Where LLᵀ meets a pivot <= 0 — round-off on a nearly singular matrix, such as an interior point's
// M + Aᵀ D A with weights spanning 1e16 — the same matrix is factored by Eigen's LDLᵀ (no pivoting),
// and this factor keeps LDLᵀ until the next `analyze`. CHOLMOD's OpenMP regions run on the calling
// thread (spd_factor.cpp, `SerialRegions`), without libgomp's team (`GOMP_parallel` there), and it
// is given P K Pᵀ in its natural order (P its own ordering, found by `analyze`). Measured on the
// packed heaps: bench/README.md, "The Newton matrix's factor: CHOLMOD (stop 36)", "CHOLMOD's
// threads (stop 45)" and "CHOLMOD's regions without libgomp's team, and no transposes (stop 46)".

#include <Eigen/SparseCore>
#include <cstdint>
#include <memory>

namespace perp::detail {

class SpdFactor {
 public:
  SpdFactor();
  ~SpdFactor();
  SpdFactor(const SpdFactor&) = delete;
  SpdFactor& operator=(const SpdFactor&) = delete;

  /// The ordering and the symbolic factor of `lower`'s pattern (kept until the next call). A pattern
  /// equal to the one analysed last keeps that analysis (`reused_analyses` counts them): a factor
  /// kept across time steps pays for the ordering only where the contacts changed.
  void analyze(const Eigen::SparseMatrix<double>& lower);
  /// The numeric factor of `lower` (the analysed pattern); false only where LDLᵀ fails too (a zero
  /// pivot).
  [[nodiscard]] bool factorize(const Eigen::SparseMatrix<double>& lower);
  /// K⁻¹ b for the last factor.
  [[nodiscard]] Eigen::VectorXd solve(const Eigen::VectorXd& b) const;
  /// The OpenMP regions run directly on this thread, without libgomp's team (spd_factor.cpp,
  /// `GOMP_parallel`: those opened while a perp factor works), since the thread began.
  [[nodiscard]] static std::uint64_t regions_run_directly();
  /// The calls of `analyze` that found the pattern analysed last (and so did nothing).
  [[nodiscard]] int reused_analyses() const;
  /// "cholmod" or "eigen-ldlt": the backend this build uses first.
  [[nodiscard]] static const char* backend();

 private:
  void analyze_permuted(const Eigen::SparseMatrix<double>& lower);
  [[nodiscard]] bool same_pattern(const Eigen::SparseMatrix<double>& lower) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perp::detail
