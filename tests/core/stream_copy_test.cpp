// stream_copy (core/lanes.h) writes exactly the bytes it is given, for every length a multiple of
// 8 and every 8-byte-aligned destination, whether or not it starts on 16 bytes: GridSampler2D's
// nearest records are 8 bytes each, filed one at a time at any entry of a list (below AVX-512).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

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

}  // namespace
