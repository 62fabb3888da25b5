#pragma once
/// \file
/// Siconos numerics' LCP in RAII form, shared by compare_siconos and compare_auto (bench only:
/// nothing in perp links to Siconos).

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "perp/core/lcp.hpp"

// Siconos numerics' C API (its headers add the extern "C" themselves).
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>

namespace perp::bench {

/// An LCP in Siconos' form: a dense (column-major) NumericsMatrix and a q array, both owned by
/// the LinearComplementarityProblem and released with freeLinearComplementarityProblem (which
/// in Siconos 4.4 clears and frees M, frees q and the struct itself).
class SiconosLcp {
 public:
  explicit SiconosLcp(const perp::Lcp& problem) : lcp_(newLCP()) {
    const int n = static_cast<int>(problem.size());
    lcp_->size = n;
    lcp_->M = NM_create(NM_DENSE, n, n);
    // Eigen's default storage is column-major, as NumericsMatrix::matrix0 expects.
    std::memcpy(lcp_->M->matrix0, problem.M.data(), sizeof(double) * static_cast<std::size_t>(n) * n);
    lcp_->q = static_cast<double*>(std::malloc(sizeof(double) * static_cast<std::size_t>(std::max(n, 1))));
    std::memcpy(lcp_->q, problem.q.data(), sizeof(double) * static_cast<std::size_t>(n));
  }
  ~SiconosLcp() { freeLinearComplementarityProblem(lcp_); }
  SiconosLcp(const SiconosLcp&) = delete;
  SiconosLcp& operator=(const SiconosLcp&) = delete;

  [[nodiscard]] LinearComplementarityProblem* get() const { return lcp_; }

 private:
  LinearComplementarityProblem* lcp_;
};

/// Siconos 4.4's solver_options_delete frees what the struct points to but not the struct
/// itself (valgrind shows the 120-byte SolverOptions lost otherwise), so it is freed here.
struct SolverOptionsDeleter {
  void operator()(SolverOptions* options) const {
    solver_options_delete(options);
    std::free(options);
  }
};
using SiconosOptions = std::unique_ptr<SolverOptions, SolverOptionsDeleter>;

}  // namespace perp::bench
