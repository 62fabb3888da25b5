#pragma once
// Work arrays that outlive one kernel call (private, not installed): a few blocks of doubles kept
// per thread, so that a loop of solves of one size does not allocate, fault in and hand back its
// n×n work arrays every time (at n = 100–200 that was a fifth of a pivoting solve on this
// machine: the blocks sit above glibc's mmap and trim thresholds).
//
// A block larger than kScratchPooled doubles, or one asked for while the thread's slots are all
// taken (a solve started from a trace callback inside another), is allocated for its holder alone
// and freed with it. So a thread keeps at most kScratchSlots × kScratchPooled doubles (2 MiB)
// between solves, released when the thread ends.

#include <Eigen/Core>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace perp::detail {

inline constexpr std::size_t kScratchPooled = std::size_t{1} << 17;  // doubles (1 MiB): n×n up to n = 362
inline constexpr int kScratchSlots = 2;

/// An uninitialized rows × cols column-major matrix borrowed for the holder's lifetime.
class ScratchMatrix {
 public:
  ScratchMatrix(Eigen::Index rows, Eigen::Index cols);
  ~ScratchMatrix();
  ScratchMatrix(const ScratchMatrix&) = delete;
  ScratchMatrix& operator=(const ScratchMatrix&) = delete;

  Eigen::Map<Eigen::MatrixXd>& matrix() { return map_; }
  [[nodiscard]] const Eigen::Map<Eigen::MatrixXd>& matrix() const { return map_; }

 private:
  double* borrow(std::size_t size);

  int slot_ = -1;                  // the pool slot lent, or −1
  std::unique_ptr<double[]> own_;  // the block when it is not the pool's
  Eigen::Map<Eigen::MatrixXd> map_;
};

/// A std::vector whose storage is kept per thread between holders (cleared, not freed): the
/// index arrays that the packed steps' sparse matrices are built from reach megabytes, and a
/// time step's solve that allocated them afresh faulted in their pages each time (10–14 % of the
/// 1 000-disk heap's run in the kernel's page clearing). One block per element type and thread, up
/// to kRecycledBytes, released when the thread ends; a holder nested in another gets its own.
inline constexpr std::size_t kRecycledBytes = std::size_t{64} << 20;

template <class T>
class RecycledVector {
 public:
  RecycledVector() : items_(std::move(spare())) { items_.clear(); }
  ~RecycledVector() {
    if (items_.capacity() * sizeof(T) <= kRecycledBytes && items_.capacity() > spare().capacity()) {
      spare() = std::move(items_);
    }
  }
  RecycledVector(const RecycledVector&) = delete;
  RecycledVector& operator=(const RecycledVector&) = delete;

  std::vector<T>& operator*() { return items_; }
  const std::vector<T>& operator*() const { return items_; }
  std::vector<T>* operator->() { return &items_; }
  const std::vector<T>* operator->() const { return &items_; }

 private:
  static std::vector<T>& spare() {
    thread_local std::vector<T> block;
    return block;
  }
  std::vector<T> items_;
};

}  // namespace perp::detail
