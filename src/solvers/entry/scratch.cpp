#include "scratch.hpp"

#include <array>

namespace perp::detail {
namespace {

struct Slot {
  std::unique_ptr<double[]> data;
  std::size_t capacity = 0;
  bool lent = false;
};

std::array<Slot, kScratchSlots>& pool() {
  thread_local std::array<Slot, kScratchSlots> slots;
  return slots;
}

}  // namespace

ScratchMatrix::ScratchMatrix(Eigen::Index rows, Eigen::Index cols)
    : map_(borrow(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)), rows, cols) {}

ScratchMatrix::~ScratchMatrix() {
  if (slot_ >= 0) pool()[static_cast<std::size_t>(slot_)].lent = false;
}

double* ScratchMatrix::borrow(std::size_t size) {
  if (size == 0) return nullptr;
  if (size <= kScratchPooled) {
    // A free slot that holds `size` already, else the free slot with the largest block, grown.
    std::array<Slot, kScratchSlots>& slots = pool();
    int chosen = -1;
    for (int k = 0; k < kScratchSlots; ++k) {
      const Slot& s = slots[static_cast<std::size_t>(k)];
      if (s.lent) continue;
      if (chosen < 0) {
        chosen = k;
        continue;
      }
      const Slot& c = slots[static_cast<std::size_t>(chosen)];
      const bool fits = s.capacity >= size;
      const bool chosen_fits = c.capacity >= size;
      if ((fits && !chosen_fits) || (!fits && !chosen_fits && s.capacity > c.capacity)) chosen = k;
    }
    if (chosen >= 0) {
      Slot& s = slots[static_cast<std::size_t>(chosen)];
      if (s.capacity < size) {
        s.data.reset();  // the old block first: the two never coexist
        s.data = std::make_unique_for_overwrite<double[]>(size);
        s.capacity = size;
      }
      s.lent = true;
      slot_ = chosen;
      return s.data.get();
    }
  }
  own_ = std::make_unique_for_overwrite<double[]>(size);
  return own_.get();
}

}  // namespace perp::detail
