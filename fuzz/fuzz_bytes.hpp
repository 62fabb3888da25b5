#pragma once
// The fuzz targets' reader of libFuzzer's bytes: one byte at a time, 0 past the end (an input of any
// length decodes to a problem).

#include <cstddef>
#include <cstdint>

namespace perp_fuzz {

struct Bytes {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint8_t next() { return at < size ? data[at++] : 0; }
};

}  // namespace perp_fuzz
