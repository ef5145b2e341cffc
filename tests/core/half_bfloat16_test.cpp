// gradconf::half / gradconf::bfloat16 (Eigen types) are bit-exact IEEE conversions with round to
// nearest even (spec README §3). Expected values come from hand-written decoders of the bit fields,
// never from Eigen itself.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/dtype.h"

namespace {

using gradconf::bfloat16;
using gradconf::half;

uint16_t bits_of(half h) { return std::bit_cast<uint16_t>(h); }
uint16_t bits_of(bfloat16 b) { return std::bit_cast<uint16_t>(b); }
half half_from_bits(uint16_t v) { return std::bit_cast<half>(v); }
bfloat16 bf16_from_bits(uint16_t v) { return std::bit_cast<bfloat16>(v); }
uint32_t bits_of(float f) { return std::bit_cast<uint32_t>(f); }
float float_from_bits(uint32_t v) { return std::bit_cast<float>(v); }

bool is_nan_bf16(uint16_t v) { return (v & 0x7F80) == 0x7F80 && (v & 0x007F) != 0; }
bool is_nan_half(uint16_t v) { return (v & 0x7C00) == 0x7C00 && (v & 0x03FF) != 0; }

// IEEE binary16: 1 sign bit, 5 exponent bits (bias 15), 10 fraction bits.
double decode_binary16(uint16_t v) {
  const int sign = v >> 15;
  const int exponent = (v >> 10) & 0x1F;
  const int fraction = v & 0x3FF;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(fraction), -24);  // subnormal: f * 2^-14 / 2^10
  } else if (exponent == 31) {
    magnitude = fraction == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(1024.0 + fraction, exponent - 25);  // (1 + f/2^10) * 2^(e-15)
  }
  return sign ? -magnitude : magnitude;
}

TEST(Bfloat16, to_float_is_the_bits_shifted_left_by_16_for_all_patterns) {
  for (uint32_t v = 0; v <= 0xFFFF; ++v) {
    const float f = static_cast<float>(bf16_from_bits(static_cast<uint16_t>(v)));
    if (is_nan_bf16(static_cast<uint16_t>(v))) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << v;
    } else {
      ASSERT_EQ(bits_of(f), v << 16) << std::hex << v;
    }
  }
}

TEST(Bfloat16, round_trip_through_float_is_identity_for_every_non_nan_pattern) {
  int checked = 0;
  for (uint32_t v = 0; v <= 0xFFFF; ++v) {
    const auto b = static_cast<uint16_t>(v);
    if (is_nan_bf16(b)) {
      ASSERT_TRUE(is_nan_bf16(bits_of(bfloat16(static_cast<float>(bf16_from_bits(b))))));
      continue;
    }
    ASSERT_EQ(bits_of(bfloat16(static_cast<float>(bf16_from_bits(b)))), b) << std::hex << v;
    ++checked;
  }
  EXPECT_EQ(checked, 65536 - 2 * 127);  // 2 signs x (2^7 - 1) NaN fractions
}

// For every finite bf16 value b, the floats between b and its successor: exactly half way (a tie,
// low half 0x8000) rounds to the even one of the two; one ulp of float below / above the tie
// rounds down / up.
TEST(Bfloat16, float_to_bf16_rounds_to_nearest_even) {
  for (uint32_t v = 0; v <= 0xFFFF; ++v) {
    const auto b = static_cast<uint16_t>(v);
    if ((b & 0x7F80) == 0x7F80) continue;  // inf and NaN have no successor in this sense
    const uint16_t up = static_cast<uint16_t>(b + 1);  // next magnitude, same sign (may be inf)
    const uint16_t even = (b & 1) == 0 ? b : up;
    const uint32_t base = static_cast<uint32_t>(b) << 16;
    ASSERT_EQ(bits_of(bfloat16(float_from_bits(base | 0x8000))), even) << std::hex << v;
    ASSERT_EQ(bits_of(bfloat16(float_from_bits(base | 0x7FFF))), b) << std::hex << v;
    ASSERT_EQ(bits_of(bfloat16(float_from_bits(base | 0x8001))), up) << std::hex << v;
    ASSERT_EQ(bits_of(bfloat16(float_from_bits(base | 0x0001))), b) << std::hex << v;
    ASSERT_EQ(bits_of(bfloat16(float_from_bits(base | 0xFFFF))), up) << std::hex << v;
  }
  // Named ties: 1 + 2^-8 lies between 1 (even) and 1 + 2^-7 (odd); 1 + 3*2^-8 between two
  // values whose even one is the upper.
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f + 0x1p-8f)), 1.0f);
  EXPECT_EQ(static_cast<float>(bfloat16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(NAN))));
  EXPECT_EQ(static_cast<float>(bfloat16(INFINITY)), INFINITY);
  EXPECT_EQ(static_cast<float>(bfloat16(-INFINITY)), -INFINITY);
}

TEST(Half, to_float_matches_a_hand_decoder_for_all_patterns) {
  for (uint32_t v = 0; v <= 0xFFFF; ++v) {
    const auto h = static_cast<uint16_t>(v);
    const float f = static_cast<float>(half_from_bits(h));
    const double expected = decode_binary16(h);
    if (is_nan_half(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << v;
    } else {
      ASSERT_EQ(static_cast<double>(f), expected) << std::hex << v;
      ASSERT_EQ(std::signbit(f), (h & 0x8000) != 0) << std::hex << v;  // -0 stays -0
    }
  }
}

TEST(Half, round_trip_through_float_is_identity_for_every_non_nan_pattern) {
  int checked = 0;
  for (uint32_t v = 0; v <= 0xFFFF; ++v) {
    const auto h = static_cast<uint16_t>(v);
    if (is_nan_half(h)) {
      ASSERT_TRUE(is_nan_half(bits_of(half(static_cast<float>(half_from_bits(h))))));
      continue;
    }
    ASSERT_EQ(bits_of(half(static_cast<float>(half_from_bits(h)))), h) << std::hex << v;
    ++checked;
  }
  EXPECT_EQ(checked, 65536 - 2 * 1023);
}

// Midpoints between consecutive finite half values (computed exactly from the hand decoder; a
// midpoint needs 12 significant bits, so it is exact in float) round to the even neighbour; one
// float ulp either side rounds to the nearer neighbour. Includes subnormals, the 0 / smallest
// subnormal tie and the overflow tie 65520 -> inf.
TEST(Half, float_to_half_rounds_to_nearest_even) {
  for (uint32_t v = 0; v <= 0xFFFF; ++v) {
    const auto h = static_cast<uint16_t>(v);
    if ((h & 0x7C00) == 0x7C00) continue;  // inf, NaN
    const uint16_t up = static_cast<uint16_t>(h + 1);
    const double lo = decode_binary16(h), hi = decode_binary16(up);
    const double mid = std::isinf(hi) ? std::copysign(65520.0, lo) : (lo + hi) / 2;
    const auto fmid = static_cast<float>(mid);
    ASSERT_EQ(static_cast<double>(fmid), mid) << std::hex << v;
    const uint16_t even = (h & 1) == 0 ? h : up;
    ASSERT_EQ(bits_of(half(fmid)), even) << std::hex << v << " mid " << mid;
    const float toward_lo = std::nextafter(fmid, static_cast<float>(lo));
    const float hi_f = static_cast<float>(std::isinf(hi) ? std::copysign(INFINITY, lo) : hi);
    const float toward_hi = std::nextafter(fmid, hi_f);
    ASSERT_EQ(bits_of(half(toward_lo)), h) << std::hex << v;
    ASSERT_EQ(bits_of(half(toward_hi)), up) << std::hex << v;
  }
  EXPECT_EQ(static_cast<float>(half(0x1p-25f)), 0.0f);          // tie with 0: even is 0
  EXPECT_EQ(static_cast<float>(half(3 * 0x1p-25f)), 0x1p-23f);  // tie: even is 2 * 2^-24
  EXPECT_EQ(static_cast<float>(half(65519.0f)), 65504.0f);
  EXPECT_EQ(static_cast<float>(half(65520.0f)), INFINITY);
  EXPECT_EQ(static_cast<float>(half(1.0f + 0x1p-11f)), 1.0f);
  EXPECT_EQ(static_cast<float>(half(1.0f + 3 * 0x1p-11f)), 1.0f + 0x1p-9f);
}

}  // namespace
