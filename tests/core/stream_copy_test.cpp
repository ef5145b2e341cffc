// stream_copy (core/lanes.h) writes exactly the bytes it is given, for every length a multiple of
// 8 and every 8-byte-aligned destination, whether or not it starts on 16 bytes: GridSampler2D's
// nearest records are 8 bytes each, filed one at a time at any entry of a list (below AVX-512).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/isa.h"
#include "core/lanes.h"

namespace {

TEST(StreamCopy, writes_every_multiple_of_eight_bytes_at_every_eight_byte_offset) {
  std::vector<uint8_t> source(128);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<uint8_t>(i * 7 + 1);
  for (size_t offset = 0; offset <= 24; offset += 8) {
    for (size_t bytes = 8; bytes <= 96; bytes += 8) {
      alignas(64) uint8_t target[160];
      std::fill(std::begin(target), std::end(target), uint8_t{0xee});
      gradconf::stream_copy(target + offset, source.data(), bytes);
      gradconf::stream_fence();
      SCOPED_TRACE("offset " + std::to_string(offset) + ", " + std::to_string(bytes) + " bytes");
      for (size_t i = 0; i < sizeof target; ++i) {
        const bool copied = i >= offset && i < offset + bytes;
        ASSERT_EQ(target[i], copied ? source[i - offset] : uint8_t{0xee}) << "byte " << i;
      }
    }
  }
}

// compress_store_lanes_avx512 (GridSampler2D's nearest records filed under pixel ranges): for every
// mask, the kept lanes' values (int32 widened, negatives included) and indices in lane order, and
// not a byte past them.
TEST(CompressStoreLanes, stores_the_kept_lanes_in_order_and_nothing_else) {
  if (gradconf::kernel_isa() != gradconf::Isa::kAvx512) GTEST_SKIP() << "no AVX-512 path here";
  const gradconf::MaskLanes values = {7, -1, 1 << 30, 0, -(1 << 30), 42, 5, 65536};
  constexpr int64_t kFirst = (int64_t{1} << 40) + 3;
  constexpr int64_t kUntouched = -12345;
  for (unsigned keep = 0; keep < 256; ++keep) {
    int64_t stored[10], indices[10];
    std::fill(std::begin(stored), std::end(stored), kUntouched);
    std::fill(std::begin(indices), std::end(indices), kUntouched);
    gradconf::compress_store_lanes_avx512(values, kFirst, keep, stored + 1, indices + 1);
    SCOPED_TRACE("mask " + std::to_string(keep));
    int at = 1;
    for (int j = 0; j < gradconf::kLanes; ++j) {
      if (!(keep >> j & 1u)) continue;
      ASSERT_EQ(stored[at], values[j]);
      ASSERT_EQ(indices[at], kFirst + j);
      ++at;
    }
    for (int i : {0, at, at + 1}) {
      if (i >= 10) continue;
      ASSERT_EQ(stored[i], kUntouched) << "slot " << i;
      ASSERT_EQ(indices[i], kUntouched) << "slot " << i;
    }
  }
}

}  // namespace
