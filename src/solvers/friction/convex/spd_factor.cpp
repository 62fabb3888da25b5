#include "spd_factor.hpp"

#ifdef PERP_HAVE_CHOLMOD
#include <Eigen/CholmodSupport>
#endif
#include <Eigen/SparseCholesky>

namespace perp::detail {

struct SpdFactor::Impl {
  // LLᵀ fails where round-off leaves a pivot <= 0 (an interior point's weights span 1e16); Eigen's
  // LDLᵀ then factors the same matrix (its pattern analysed at the first such failure).
  bool use_ldlt = true;
  bool ldlt_analyzed = false;
#ifdef PERP_HAVE_CHOLMOD
  Eigen::CholmodDecomposition<Eigen::SparseMatrix<double>, Eigen::Lower> cholmod;
#endif
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt;
};

SpdFactor::SpdFactor() : impl_(std::make_unique<Impl>()) {
#ifdef PERP_HAVE_CHOLMOD
  impl_->use_ldlt = false;
  impl_->cholmod.cholmod().print = 0;  // a failed factor is reported by `factorize`, not printed
#endif
}

SpdFactor::~SpdFactor() = default;

void SpdFactor::analyze(const Eigen::SparseMatrix<double>& lower) {
  impl_->ldlt_analyzed = false;
#ifdef PERP_HAVE_CHOLMOD
  impl_->cholmod.analyzePattern(lower);
#endif
  if (impl_->use_ldlt) {
    impl_->ldlt.analyzePattern(lower);
    impl_->ldlt_analyzed = true;
  }
}

bool SpdFactor::factorize(const Eigen::SparseMatrix<double>& lower) {
#ifdef PERP_HAVE_CHOLMOD
  if (!impl_->use_ldlt || !impl_->ldlt_analyzed) {
    impl_->cholmod.factorize(lower);
    impl_->use_ldlt = impl_->cholmod.info() != Eigen::Success;
    if (!impl_->use_ldlt) return true;
  }
#endif
  if (!impl_->ldlt_analyzed) {
    impl_->ldlt.analyzePattern(lower);
    impl_->ldlt_analyzed = true;
  }
  impl_->ldlt.factorize(lower);
  return impl_->ldlt.info() == Eigen::Success;
}

Eigen::VectorXd SpdFactor::solve(const Eigen::VectorXd& b) const {
#ifdef PERP_HAVE_CHOLMOD
  if (!impl_->use_ldlt) return impl_->cholmod.solve(b);
#endif
  return impl_->ldlt.solve(b);
}

const char* SpdFactor::backend() {
#ifdef PERP_HAVE_CHOLMOD
  return "cholmod";
#else
  return "eigen-ldlt";
#endif
}

}  // namespace perp::detail
