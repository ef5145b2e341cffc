// gathered_pairs_avx512 (core/lanes.h), the bilinear forward's read of a tap row's two
// neighbours as one 8-byte element per lane, gives each inside lane exactly the two floats at
// its offset and the next (any bits: NaN payloads, signed zeros, subnormals) and each outside
// lane +0 on both sides without reading it: outside lanes carry offsets far past the buffer,
// and the buffer's last float ends a page whose next page is inaccessible, so a read past it
// crashes the test in any build. load_lanes_at_avx2, the nearest forward's per-lane loads where
// AVX2's gather instruction is slow (kernel_gathers_by_loads), gives the bits gather_lanes_avx2
// gives for the same lanes.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include "core/isa.h"
#include "core/lanes.h"

namespace {

using gradconf::kLanes;

TEST(GatheredPairs, reads_each_inside_lanes_two_neighbours_and_nothing_else) {
  if (gradconf::kernel_isa() != gradconf::Isa::kAvx512)
    GTEST_SKIP() << "this CPU has no AVX-512 path";
  constexpr int kFloats = 37;
  // Bit patterns an interpolation must pass through untouched.
  constexpr std::array<uint32_t, 8> kSpecial = {0x7fc00001, 0xffa00000, 0x80000000, 0x00000001,
                                                0x7f800000, 0xff800000, 0x00000000, 0x3f800000};
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* pages = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(static_cast<char*>(pages) + page, page, PROT_NONE), 0);
  float* floats = reinterpret_cast<float*>(static_cast<char*>(pages) + page) - kFloats;
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 2000; ++trial) {
    for (int i = 0; i < kFloats; ++i) {
      const uint32_t bits = rng() % 4 == 0 ? kSpecial[rng() % kSpecial.size()] : rng();
      std::memcpy(&floats[i], &bits, sizeof bits);
    }
    gradconf::MaskLanes offset, inside;
    for (int j = 0; j < kLanes; ++j) {
      inside[j] = rng() % 4 == 0 ? 0 : -1;
      // The last pair sometimes; outside lanes point far past the buffer.
      offset[j] = inside[j]
                      ? static_cast<int32_t>(rng() % 3 == 0 ? kFloats - 2 : rng() % (kFloats - 1))
                      : static_cast<int32_t>(1 << 28) + static_cast<int32_t>(rng() % 64);
    }
    gradconf::LaneVector<float> left{}, right{};
    gradconf::gathered_pairs_avx512(floats, offset, inside, left, right);
    for (int j = 0; j < kLanes; ++j) {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", lane " + std::to_string(j));
      const uint32_t want_left = inside[j] ? std::bit_cast<uint32_t>(floats[offset[j]]) : 0;
      const uint32_t want_right = inside[j] ? std::bit_cast<uint32_t>(floats[offset[j] + 1]) : 0;
      ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(left[j])), want_left);
      ASSERT_EQ(std::bit_cast<uint32_t>(static_cast<float>(right[j])), want_right);
    }
  }
  munmap(pages, 2 * page);
}

TEST(LoadedLanes, give_the_gathers_bits_and_plus_zero_outside) {
  if (gradconf::kernel_isa() == gradconf::Isa::kBaseline) GTEST_SKIP() << "this CPU has no AVX2";
  constexpr int kFloats = 37;
  std::array<float, kFloats> floats;
  std::mt19937 rng(2027);
  for (int trial = 0; trial < 2000; ++trial) {
    for (float& f : floats) {
      const uint32_t bits = rng();
      std::memcpy(&f, &bits, sizeof bits);
    }
    // The loads' form: every offset readable, 0 outside, the inside lanes as bits; the gather's:
    // the same offsets under a lane mask.
    alignas(32) int32_t offsets[kLanes];
    gradconf::MaskLanes offset, inside_lanes;
    unsigned inside = 0;
    for (int j = 0; j < kLanes; ++j) {
      const bool in = rng() % 4 != 0;
      offsets[j] = in ? static_cast<int32_t>(rng() % kFloats) : 0;
      offset[j] = offsets[j];
      inside_lanes[j] = in ? -1 : 0;
      inside |= (in ? 1u : 0u) << j;
    }
    float loaded[kLanes], gathered[kLanes];
    gradconf::load_lanes_at_avx2(floats.data(), offsets, inside, loaded);
    gradconf::gather_lanes_avx2(floats.data(), offset, inside_lanes, gathered);
    for (int j = 0; j < kLanes; ++j) {
      SCOPED_TRACE("trial " + std::to_string(trial) + ", lane " + std::to_string(j));
      const uint32_t want = inside >> j & 1 ? std::bit_cast<uint32_t>(floats[offsets[j]]) : 0;
      ASSERT_EQ(std::bit_cast<uint32_t>(loaded[j]), want);
      ASSERT_EQ(std::bit_cast<uint32_t>(gathered[j]), want);
    }
  }
}

}  // namespace
