// The lane conversions of core/lanes.h (integer bit work on 8 lanes at once) give the same bits as
// the scalar conversions, which half_bfloat16_test.cpp checks against hand-written decoders: every
// binary16 and bfloat16 value to float, and to binary16 and bfloat16 every float whose low bits sit
// on or next to a rounding boundary, for every high half (sign, exponent, top of the mantissa), on
// the baseline path, on the AVX2 one and on the AVX-512 one with the wide rows (kWideRowLanes
// lanes, the vpmovdw narrowing; and whole streamed rows, off and on cache lines, which narrow to
// bfloat16 with vcvtneps2bf16 where the CPU has AVX512_BF16) where the CPU has them; and, for
// binary16, the AVX2 path's F16C rows (widen_half_row_avx2, store_half_row_avx2 streamed).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/isa.h"
#include "core/lanes.h"

namespace {

using gradconf::bfloat16;
using gradconf::half;
using gradconf::kLanes;
using gradconf::kWideRowLanes;

// The boundaries of both roundings: bfloat16 drops 16 bits (half-way 0x8000), binary16 normals 13
// (half-way 0x1000); subnormal binary16 drop more, which the high halves' exponents cover.
constexpr std::array<uint32_t, 14> kLowBits = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001,
                                               0x1fff, 0x2000, 0x3000, 0x7fff, 0x8000,
                                               0x8001, 0xb000, 0xf000, 0xffff};

// n is a multiple of kWideRowLanes.
template <typename T, int W = kLanes>
inline __attribute__((always_inline)) void load_all(const uint16_t* raw, float* out, size_t n) {
  for (size_t i = 0; i < n; i += W) {
    const auto v = gradconf::load_lanes<float, W>(reinterpret_cast<const T*>(raw + i), 1);
    std::memcpy(out + i, &v, sizeof v);
  }
}

template <typename T, int W = kLanes>
inline __attribute__((always_inline)) void store_all(const float* in, uint16_t* raw, size_t n) {
  for (size_t i = 0; i < n; i += W) {
    gradconf::LaneVector<float, W> v;
    std::memcpy(&v, in + i, sizeof v);
    gradconf::store_lanes<float, W>(reinterpret_cast<T*>(raw + i), 1, v);
  }
}

enum class Path { kBaseline, kAvx2, kAvx2Rows, kAvx512Wide, kAvx512Rows, kAvx512Lines };

const char* path_name(Path path) {
  switch (path) {
    case Path::kBaseline:
      return " (baseline)";
    case Path::kAvx2:
      return " (avx2)";
    case Path::kAvx2Rows:
      return " (avx2 rows, F16C)";
    case Path::kAvx512Wide:
      return " (avx512)";
    case Path::kAvx512Rows:
      return gradconf::kernel_has_bfloat16_conversion() ? " (avx512 rows, bf16 instructions)"
                                                        : " (avx512 rows)";
    case Path::kAvx512Lines:
      return gradconf::kernel_has_bfloat16_conversion()
                 ? " (avx512 rows on cache lines, bf16 instructions)"
                 : " (avx512 rows on cache lines)";
  }
  return "";
}

template <typename T>
void load_all_baseline(const uint16_t* raw, float* out, size_t n) {
  load_all<T>(raw, out, n);
}

template <typename T>
GRADCONF_TARGET_AVX2 void load_all_avx2(const uint16_t* raw, float* out, size_t n) {
  load_all<T>(raw, out, n);
}

template <typename T>
GRADCONF_TARGET_AVX512 void load_all_avx512(const uint16_t* raw, float* out, size_t n) {
  load_all<T, kWideRowLanes>(raw, out, n);
}

// The F16C rows are binary16's only: bfloat16 takes the AVX2 lanes there.
template <typename T>
void load_row_f16c(const uint16_t* raw, float* out, size_t n) {
  if constexpr (std::is_same_v<T, half>) {
    gradconf::widen_half_row_avx2(reinterpret_cast<const half*>(raw), static_cast<int64_t>(n), out);
  } else {
    load_all_avx2<T>(raw, out, n);
  }
}

template <typename T>
void load_on(Path path, const uint16_t* raw, float* out, size_t n) {
  (path == Path::kBaseline   ? load_all_baseline<T>
   : path == Path::kAvx2Rows ? load_row_f16c<T>
   : path == Path::kAvx2     ? load_all_avx2<T>
                             : load_all_avx512<T>)(raw, out, n);
}

template <typename T>
void store_all_baseline(const float* in, uint16_t* raw, size_t n) {
  store_all<T>(in, raw, n);
}

template <typename T>
GRADCONF_TARGET_AVX2 void store_all_avx2(const float* in, uint16_t* raw, size_t n) {
  store_all<T>(in, raw, n);
}

template <typename T>
GRADCONF_TARGET_AVX512 void store_all_avx512(const float* in, uint16_t* raw, size_t n) {
  store_all<T, kWideRowLanes>(in, raw, n);
}

// One streamed row, as the kernels store theirs (a scalar head up to 16-byte alignment).
template <typename T>
GRADCONF_TARGET_AVX512 void store_row_avx512(const float* in, uint16_t* raw, size_t n) {
  gradconf::store_row_lanes<kWideRowLanes>(reinterpret_cast<T*>(raw + 1), 1,
                                           static_cast<int64_t>(n - 1), in + 1, true);
  gradconf::store_row_lanes<kWideRowLanes>(reinterpret_cast<T*>(raw), 1, 1, in, false);
  gradconf::stream_fence();
}

// One streamed row that starts on a cache line: each whole line goes in one 64-byte store.
template <typename T>
GRADCONF_TARGET_AVX512 void store_lines_avx512(const float* in, uint16_t* raw, size_t n) {
  struct alignas(64) Line {
    uint16_t values[32];
  };
  std::vector<Line> lines((n + 31) / 32);
  gradconf::store_row_lanes<kWideRowLanes>(reinterpret_cast<T*>(lines.data()), 1,
                                           static_cast<int64_t>(n), in, true);
  gradconf::stream_fence();
  std::memcpy(raw, lines.data(), n * sizeof(uint16_t));
}

// One streamed row with a scalar head up to 16-byte alignment, as NsaCompress stores its rows.
template <typename T>
void store_row_f16c(const float* in, uint16_t* raw, size_t n) {
  if constexpr (std::is_same_v<T, half>) {
    gradconf::store_half_row_avx2(reinterpret_cast<half*>(raw + 1), in + 1,
                                  static_cast<int64_t>(n - 1), true);
    gradconf::store_half_row_avx2(reinterpret_cast<half*>(raw), in, 1, false);
    gradconf::stream_fence();
  } else {
    store_all_avx2<T>(in, raw, n);
  }
}

template <typename T>
void store_on(Path path, const float* in, uint16_t* raw, size_t n) {
  (path == Path::kBaseline     ? store_all_baseline<T>
   : path == Path::kAvx2Rows   ? store_row_f16c<T>
   : path == Path::kAvx2       ? store_all_avx2<T>
   : path == Path::kAvx512Wide ? store_all_avx512<T>
   : path == Path::kAvx512Rows ? store_row_avx512<T>
                               : store_lines_avx512<T>)(in, raw, n);
}

std::vector<Path> paths() {
  switch (gradconf::kernel_isa()) {
    case gradconf::Isa::kAvx512:
      return {Path::kBaseline,   Path::kAvx2,       Path::kAvx2Rows,
              Path::kAvx512Wide, Path::kAvx512Rows, Path::kAvx512Lines};
    case gradconf::Isa::kAvx2:
      return {Path::kBaseline, Path::kAvx2, Path::kAvx2Rows};
    case gradconf::Isa::kBaseline:
      break;
  }
  return {Path::kBaseline};
}

template <typename T>
void expect_widening_matches_scalar(const char* name) {
  std::vector<uint16_t> raw(1 << 16);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint16_t>(i);
  for (Path path : paths()) {
    std::vector<float> got(raw.size());
    load_on<T>(path, raw.data(), got.data(), raw.size());
    for (size_t i = 0; i < raw.size(); ++i) {
      const float want = static_cast<float>(std::bit_cast<T>(raw[i]));
      ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want))
          << name << " bits 0x" << std::hex << i << path_name(path);
    }
  }
}

TEST(LaneConversions, EveryHalfWidensExactly) { expect_widening_matches_scalar<half>("half"); }

TEST(LaneConversions, EveryBfloat16WidensExactly) {
  expect_widening_matches_scalar<bfloat16>("bfloat16");
}

template <typename T>
void expect_narrowing_matches_scalar(const char* name) {
  std::vector<float> in;
  for (uint32_t high = 0; high < (1u << 16); ++high) {
    for (uint32_t low : kLowBits) in.push_back(std::bit_cast<float>(high << 16 | low));
  }
  while (in.size() % kWideRowLanes != 0) in.push_back(0.0f);
  for (Path path : paths()) {
    std::vector<uint16_t> got(in.size());
    store_on<T>(path, in.data(), got.data(), in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      const auto want = std::bit_cast<uint16_t>(static_cast<T>(in[i]));
      ASSERT_EQ(got[i], want) << name << " of float bits 0x" << std::hex
                              << std::bit_cast<uint32_t>(in[i]) << path_name(path);
    }
  }
}

TEST(LaneConversions, FloatsNarrowToHalfLikeTheScalarConversion) {
  expect_narrowing_matches_scalar<half>("half");
}

TEST(LaneConversions, FloatsNarrowToBfloat16LikeTheScalarConversion) {
  expect_narrowing_matches_scalar<bfloat16>("bfloat16");
}

}  // namespace
