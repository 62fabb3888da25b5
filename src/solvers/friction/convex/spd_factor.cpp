#include "spd_factor.hpp"

#ifdef PERP_HAVE_CHOLMOD
#include <Eigen/CholmodSupport>
#endif
#include <Eigen/SparseCholesky>

#include <dlfcn.h>

namespace perp::detail {
namespace {

/// CHOLMOD as Debian builds it (SuiteSparse 5, OpenMP) opens OpenMP regions of a compiled-in 4
/// threads (CHOLMOD_OMP_NUM_THREADS) in its supernodal factorization — one to clear its map and one
/// to zero each supernode of more than 1 024 entries — whatever OMP_NUM_THREADS says. On this
/// project's 2-core machine that oversubscribes the cores: a factorization of a 10 000-disk heap's
/// Newton matrix (30 000 dofs) took 146 ms with those regions and 74 ms with them serial, and the
/// heap's run spent a fifth of its time in the kernel (bench/README.md, "CHOLMOD's threads (stop
/// 45)"). perp's solvers run on the calling thread, so while CHOLMOD works the calling thread's
/// max-active-levels (a per-thread setting in libgomp) is 0: every region it opens runs on it
/// alone; the old value is restored after. The two functions are looked up in the process, where
/// CHOLMOD brought libgomp; where they are absent nothing changes.
class SerialRegions {
 public:
  SerialRegions() {
    if (functions().set != nullptr) {
      saved_ = functions().get();
      functions().set(0);
    }
  }
  ~SerialRegions() {
    if (functions().set != nullptr) functions().set(saved_);
  }
  SerialRegions(const SerialRegions&) = delete;
  SerialRegions& operator=(const SerialRegions&) = delete;

 private:
  struct Functions {
    int (*get)() = nullptr;
    void (*set)(int) = nullptr;
  };
  static const Functions& functions() {
    static const Functions found = [] {
      Functions f;
      void* get = dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
      void* set = dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
      if (get != nullptr && set != nullptr) {
        f.get = reinterpret_cast<int (*)()>(get);
        f.set = reinterpret_cast<void (*)(int)>(set);
      }
      return f;
    }();
    return found;
  }
  int saved_ = 0;
};

}  // namespace

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
  const SerialRegions serial;
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
  const SerialRegions serial;
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
  const SerialRegions serial;
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
