#include "spd_factor.hpp"

#ifdef PERP_HAVE_CHOLMOD
#include <Eigen/CholmodSupport>
#endif
#include <Eigen/SparseCholesky>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

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
/// (a futex call each; a 30 000-dof factor opens some 1 500 regions): `GOMP_parallel` below runs the
/// region's body directly while `serial_depth` is positive (bench/README.md, "CHOLMOD's regions
/// without libgomp's team, and no transposes (stop 46)").
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

#ifdef PERP_HAVE_CHOLMOD
/// `matrix` itself where it is compressed, else its compressed copy in `storage`.
const Eigen::SparseMatrix<double>& compressed(const Eigen::SparseMatrix<double>& matrix,
                                              Eigen::SparseMatrix<double>& storage) {
  if (matrix.isCompressed()) return matrix;
  storage = matrix;
  storage.makeCompressed();
  return storage;
}
#endif

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
  // CHOLMOD factors P K Pᵀ, P its own fill-reducing ordering (AMD, postordered), found once per
  // pattern. Given K's lower triangle and P, its numeric factorization transposes K twice (P K Pᵀ's
  // upper triangle, then its lower: a tenth of the 3D interior point's time); given P K Pᵀ's lower
  // triangle and the natural ordering, it transposes nothing. So the analysis keeps P and where
  // each entry of K's lower triangle lands in P K Pᵀ's (`slot`), and each factorization gathers the
  // values there: one pass over the entries.
  Eigen::CholmodDecomposition<Eigen::SparseMatrix<double>, Eigen::Lower> cholmod;
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> permutation;  // P: (P b)_k = b of K's index at k
  std::vector<int> slot;           // K's lower entry e lands at value slot[e] of `permuted`
  std::vector<int> outer, inner;   // K's analysed pattern (compressed), to check each factorization's
  Eigen::SparseMatrix<double> permuted;  // P K Pᵀ's lower triangle (pattern fixed by `analyze`)
#endif
  int reused = 0;  // analyses skipped: the pattern was the one analysed last
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt;
};

#ifdef PERP_HAVE_CHOLMOD
void SpdFactor::analyze_permuted(const Eigen::SparseMatrix<double>& lower) {
  Impl& m = *impl_;
  const auto n = static_cast<int>(lower.rows());
  Eigen::SparseMatrix<double> storage;
  const Eigen::SparseMatrix<double>* const K = &compressed(lower, storage);
  m.outer.assign(K->outerIndexPtr(), K->outerIndexPtr() + n + 1);
  m.inner.assign(K->innerIndexPtr(), K->innerIndexPtr() + K->nonZeros());
  // P: CHOLMOD's own choice on K (its default methods and postordering), read from its symbolic factor.
  cholmod_common& common = m.cholmod.cholmod();
  common.nmethods = 0;
  common.method[0].ordering = CHOLMOD_GIVEN;
  common.postorder = 1;
  cholmod_sparse view = Eigen::viewAsCholmod(K->selfadjointView<Eigen::Lower>());
  cholmod_factor* symbolic = cholmod_analyze(&view, &common);
  // order[k]: K's row and column at position k of P K Pᵀ; position: its inverse.
  std::vector<int> order(static_cast<std::size_t>(n));
  if (symbolic != nullptr && symbolic->Perm != nullptr) {
    const int* const perm = static_cast<const int*>(symbolic->Perm);
    std::copy(perm, perm + n, order.begin());
  } else {
    std::iota(order.begin(), order.end(), 0);
  }
  cholmod_free_factor(&symbolic, &common);
  // P K Pᵀ's lower triangle: K's entry (i, j) at (max, min) of their positions; `slot` by a count.
  std::vector<int> position(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) position[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] = k;
  m.permutation.indices() = Eigen::Map<const Eigen::VectorXi>(position.data(), n);
  const int* const outer = K->outerIndexPtr();
  const int* const inner = K->innerIndexPtr();
  const auto entries = static_cast<std::size_t>(K->nonZeros());
  std::vector<int> column_of(entries);
  std::vector<int> row_of(entries);
  std::vector<int> start(static_cast<std::size_t>(n) + 1, 0);
  for (int j = 0; j < n; ++j) {
    for (int p = outer[j]; p < outer[j + 1]; ++p) {
      const int a = position[static_cast<std::size_t>(inner[p])];
      const int b = position[static_cast<std::size_t>(j)];
      column_of[static_cast<std::size_t>(p)] = std::min(a, b);
      row_of[static_cast<std::size_t>(p)] = std::max(a, b);
      ++start[static_cast<std::size_t>(std::min(a, b)) + 1];
    }
  }
  for (int j = 0; j < n; ++j) start[static_cast<std::size_t>(j) + 1] += start[static_cast<std::size_t>(j)];
  // Within a column the rows must increase: place the entries column by column, then sort each
  // column's rows with their entries.
  std::vector<int> fill(start.begin(), start.end() - 1);
  std::vector<int> placed(entries);  // the K entry at each slot
  for (std::size_t e = 0; e < entries; ++e) {
    placed[static_cast<std::size_t>(fill[static_cast<std::size_t>(column_of[e])]++)] = static_cast<int>(e);
  }
  m.permuted.resize(n, n);
  m.permuted.resizeNonZeros(static_cast<Eigen::Index>(entries));
  int* const p_outer = m.permuted.outerIndexPtr();
  int* const p_inner = m.permuted.innerIndexPtr();
  m.slot.assign(entries, 0);
  for (int j = 0; j < n; ++j) {
    const auto begin = placed.begin() + start[static_cast<std::size_t>(j)];
    const auto end = placed.begin() + start[static_cast<std::size_t>(j) + 1];
    std::sort(begin, end, [&](int x, int y) { return row_of[static_cast<std::size_t>(x)] < row_of[static_cast<std::size_t>(y)]; });
    p_outer[j] = start[static_cast<std::size_t>(j)];
    for (auto it = begin; it != end; ++it) {
      const auto at = static_cast<int>(it - placed.begin());
      p_inner[at] = row_of[static_cast<std::size_t>(*it)];
      m.slot[static_cast<std::size_t>(*it)] = at;
    }
  }
  p_outer[n] = static_cast<int>(entries);
  std::fill(m.permuted.valuePtr(), m.permuted.valuePtr() + entries, 0.0);
  // The permuted pattern analysed in its natural order, already postordered: no permutation, so no
  // transpose at each factorization.
  common.nmethods = 1;
  common.method[0].ordering = CHOLMOD_NATURAL;
  common.postorder = 0;
  m.cholmod.analyzePattern(m.permuted);
}
#endif

#ifdef PERP_HAVE_CHOLMOD
bool SpdFactor::same_pattern(const Eigen::SparseMatrix<double>& lower) const {
  const Impl& m = *impl_;
  if (lower.rows() + 1 != static_cast<Eigen::Index>(m.outer.size()) || lower.cols() != lower.rows()) return false;
  const int* const outer = lower.outerIndexPtr();
  const int* const counts = lower.innerNonZeroPtr();  // null where compressed
  const int* const inner = lower.innerIndexPtr();
  for (Eigen::Index j = 0; j < lower.cols(); ++j) {
    const int length = counts != nullptr ? counts[j] : outer[j + 1] - outer[j];
    const auto k = static_cast<std::size_t>(j);
    if (length != m.outer[k + 1] - m.outer[k] ||
        !std::equal(inner + outer[j], inner + outer[j] + length, m.inner.begin() + m.outer[k])) {
      return false;
    }
  }
  return true;
}
#endif

int SpdFactor::reused_analyses() const { return impl_->reused; }

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
  impl_->use_ldlt = false;  // CHOLMOD first again after any analysis
  if (same_pattern(lower)) {
    // The pattern analysed last: its ordering and symbolic factor stand (a holder kept across time
    // steps whose contacts did not change).
    ++impl_->reused;
    return;
  }
  analyze_permuted(lower);
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
    Eigen::SparseMatrix<double> storage;
    const Eigen::SparseMatrix<double>* const K = &compressed(lower, storage);
    const auto entries = static_cast<std::size_t>(K->nonZeros());
    if (!same_pattern(*K)) {
      throw std::invalid_argument("SpdFactor::factorize: the matrix's pattern is not the one analysed (" +
                                  std::to_string(K->rows()) + " rows and " + std::to_string(entries) +
                                  " entries, against " + std::to_string(impl_->outer.size() - 1) + " and " +
                                  std::to_string(impl_->inner.size()) + ")");
    }
    const double* const values = K->valuePtr();
    double* const target = impl_->permuted.valuePtr();
    for (std::size_t e = 0; e < impl_->slot.size(); ++e) target[impl_->slot[e]] = values[e];
    impl_->cholmod.factorize(impl_->permuted);
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
  if (!impl_->use_ldlt) {
    const Eigen::VectorXd permuted_b = impl_->permutation * b;
    return impl_->permutation.transpose() * impl_->cholmod.solve(permuted_b);
  }
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
