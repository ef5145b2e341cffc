// exp_lanes (core/lanes.h), the exponential of NsaSelectedAttention's softmax: within one ulp of
// e^x, computed in double, on a sweep of float bit patterns over its whole finite range; the
// documented values past that range; and the same bits on the baseline, AVX2 and AVX-512 paths.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/isa.h"
#include "core/lanes.h"

namespace {

using gradconf::kLanes;
using Floats = gradconf::LaneVector<float>;

void exp_all(const float* in, float* out, size_t n) {
  for (size_t i = 0; i < n; i += kLanes) {
    Floats v;
    std::memcpy(&v, in + i, sizeof v);
    v = gradconf::exp_lanes(v);
    std::memcpy(out + i, &v, sizeof v);
  }
}

GRADCONF_TARGET_AVX2 void exp_all_avx2(const float* in, float* out, size_t n) {
  exp_all(in, out, n);
}

GRADCONF_TARGET_AVX512 void exp_all_avx512(const float* in, float* out, size_t n) {
  exp_all(in, out, n);
}

// Every 257th float from -104 to 89 by bit pattern (about 8 million), padded to whole vectors.
std::vector<float> sweep() {
  std::vector<float> x;
  for (uint32_t bits = std::bit_cast<uint32_t>(-104.0f); bits > 0x80000000u; bits -= 257)
    x.push_back(std::bit_cast<float>(bits));
  for (uint32_t bits = 0; std::bit_cast<float>(bits) < 89.0f; bits += 257)
    x.push_back(std::bit_cast<float>(bits));
  while (x.size() % kLanes != 0) x.push_back(0.0f);
  return x;
}

TEST(ExpLanes, WithinOneUlpOfTheExponential) {
  const std::vector<float> x = sweep();
  std::vector<float> got(x.size());
  exp_all(x.data(), got.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    if (want > std::numeric_limits<float>::max()) {
      ASSERT_GE(got[i], std::numeric_limits<float>::max()) << "x = " << x[i];
      continue;
    }
    // One ulp of the float nearest e^x; subnormals have the smallest exponent's ulp.
    const double ulp = std::ldexp(1.0, std::max(std::ilogb(want), -126) - 23);
    ASSERT_LE(std::fabs(static_cast<double>(got[i]) - want), ulp)
        << "x = " << x[i] << " bits 0x" << std::hex << std::bit_cast<uint32_t>(x[i]);
  }
}

TEST(ExpLanes, PastTheRangeInfinityZeroAndNan) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float in[kLanes] = {inf, -inf, nan, 0.0f, 88.73f, -103.98f, -0.0f, 1.0f};
  float out[kLanes];
  exp_all(in, out, kLanes);
  EXPECT_EQ(out[0], inf);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_TRUE(std::isnan(out[2]));
  EXPECT_EQ(out[3], 1.0f);
  EXPECT_EQ(out[4], inf);
  EXPECT_EQ(out[5], 0.0f);
  EXPECT_EQ(out[6], 1.0f);
  EXPECT_EQ(out[7], std::exp(1.0f));
}

// `path` (exp_all compiled for another ISA) gives exp_all's baseline bits on the whole sweep.
void expect_baseline_bits(void (*path)(const float*, float*, size_t)) {
  const std::vector<float> x = sweep();
  std::vector<float> baseline(x.size()), other(x.size());
  exp_all(x.data(), baseline.data(), x.size());
  path(x.data(), other.data(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(baseline[i]), std::bit_cast<uint32_t>(other[i]))
        << "x = " << x[i];
  }
}

TEST(ExpLanes, BaselineAndAvx2PathsGiveTheSameBits) {
  if (gradconf::kernel_isa() == gradconf::Isa::kBaseline) GTEST_SKIP() << "this CPU has no AVX2";
  expect_baseline_bits(exp_all_avx2);
}

TEST(ExpLanes, Avx512PathGivesTheBaselineBits) {
  if (gradconf::kernel_isa() != gradconf::Isa::kAvx512) GTEST_SKIP() << "this CPU has no AVX-512";
  expect_baseline_bits(exp_all_avx512);
}

}  // namespace
