#include "spd_factor.hpp"

#ifdef PERP_HAVE_CHOLMOD
#include <Eigen/CholmodSupport>
#endif
#include <Eigen/SparseCholesky>

#include <dlfcn.h>

#include <cstdint>

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
/// A region run that way still costs libgomp a team of one, whose barriers wake through the kernel
/// (a futex call each, some 1 500 a factorization): `GOMP_parallel` below runs the region's body
/// directly while `serial_depth` is positive (bench/README.md, "CHOLMOD's regions without libgomp's
/// team (stop 46)").
thread_local int serial_depth = 0;
/// Regions run directly on this thread (`SpdFactor::regions_run_directly`).
thread_local std::uint64_t direct_regions = 0;

class SerialRegions {
 public:
  SerialRegions() {
    ++serial_depth;
    if (functions().set != nullptr) {
      saved_ = functions().get();
      functions().set(0);
    }
  }
  ~SerialRegions() {
    --serial_depth;
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
}  // namespace perp::detail

/// libgomp's entry to a `#pragma omp parallel` region (GCC's ABI: the region's body `fn` and its
/// data, the threads asked, the flags), the only one CHOLMOD calls; defined here, it comes before
/// libgomp's in the lookup of CHOLMOD's reference. While perp's factor runs (`serial_depth`), the
/// body runs once on the calling thread with no team: what a team of one does, since CHOLMOD's
/// loops split their range by omp_get_num_threads() and omp_get_thread_num(), which give 1 and 0
/// outside a team, and its regions have no barrier of their own; without the team's two barriers
/// and their futex calls. Everywhere else (a user's own OpenMP) it hands over to libgomp's.
extern "C" __attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void*), void* data, unsigned threads,
                                                                      unsigned flags) {
  using Parallel = void (*)(void (*)(void*), void*, unsigned, unsigned);
  static const Parallel next = [] {
    void* found = dlvsym(RTLD_NEXT, "GOMP_parallel", "GOMP_4.0");
    if (found == nullptr) found = dlsym(RTLD_NEXT, "GOMP_parallel");
    return reinterpret_cast<Parallel>(found);
  }();
  if (perp::detail::serial_depth > 0 || next == nullptr) {
    ++perp::detail::direct_regions;
    fn(data);
    return;
  }
  next(fn, data, threads, flags);
}

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

std::uint64_t SpdFactor::regions_run_directly() { return direct_regions; }

const char* SpdFactor::backend() {
#ifdef PERP_HAVE_CHOLMOD
  return "cholmod";
#else
  return "eigen-ldlt";
#endif
}

}  // namespace perp::detail
