// Fixed-order reductions that vectorise: kLanes interleaved partial sums (element k in lane
// k % kLanes) combined in one fixed tree. The order depends only on the length, never on threads
// or on whether the compiler vectorised, so results are bitwise reproducible.
#ifndef GRADCONF_OPS_CORE_LANES_H_
#define GRADCONF_OPS_CORE_LANES_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/conversions_avx512.h"
#include "core/dtype.h"
#include "core/isa.h"

namespace gradconf {

inline constexpr int kLanes = 8;

/// The width elementwise row loops use on the AVX-512 path: 16 floats are one register there.
/// On AVX2 GCC splits them into two and NsaCompress's bf16 forward got slower (4.7 -> 5.4 ms,
/// bench/README session 61), so the narrower paths keep kLanes.
inline constexpr int kWideRowLanes = 16;

/// n rounded up to whole lane vectors of `lanes` (channel rows padded with zeros to this length
/// run their sums in whole vectors; a zero lane adds 0 * 0, which changes no bit of a sum).
constexpr int64_t lane_padded(int64_t n, int64_t lanes = kLanes) {
  return (n + lanes - 1) / lanes * lanes;
}

/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
template <typename Acc>
Acc combine_lanes(const Acc (&lanes)[kLanes]) {
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

/// kLanes (or W) consecutive channels held in registers (GCC/Clang vector extension: 8 floats
/// are one AVX2 register or two SSE registers, the compiler lowers to what the function targets).
/// A loop over a plain array of accumulators would keep them in memory and chain every add
/// through a store and a load.
template <typename Acc, int W = kLanes>
struct LaneVectorOf {
  typedef Acc type __attribute__((vector_size(W * sizeof(Acc))));
};
template <typename Acc, int W = kLanes>
using LaneVector = typename LaneVectorOf<Acc, W>::type;

// Lane vectors are passed by value only between always-inline functions, so the ABI note GCC
// gives for vector arguments on baseline x86-64 does not concern any real call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

/// W lanes of 16-bit storage and of 32-bit patterns (masks stay kLanes). Elementwise row operations
/// (conversions, axpy) may take W = 16 on the AVX-512 path: each element's operations are the
/// same, so the bits are; only the reductions' lane order is fixed at kLanes.
template <int W = kLanes>
using RawLanesOf = LaneVector<uint16_t, W>;
template <int W = kLanes>
using BitLanesOf = LaneVector<uint32_t, W>;
using RawLanes = RawLanesOf<>;
using BitLanes = BitLanesOf<>;
typedef int32_t MaskLanes __attribute__((vector_size(kLanes * sizeof(int32_t))));

/// Each lane's low 16 bits.
template <int W>
inline __attribute__((always_inline)) RawLanesOf<W> low_halves(BitLanesOf<W> bits) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (W == kWideRowLanes) {
    RawLanesOf<W> raw;
    low_halves_avx512(&bits, &raw);
    return raw;
  }
#endif
  return __builtin_convertvector(bits, RawLanesOf<W>);
}

// The 16-bit conversions below work on all lanes at once with integer operations, so they
// vectorise on baseline x86-64 (no F16C). Each gives the same bits as Eigen's scalar conversion
// for every input (tests/core/lane_conversions_test.cpp checks all halves and the rounding
// boundaries of the floats); element by element, conversions went through the stack into the
// vector (a store-forwarding stall per element).

/// IEEE binary16 bits to float, exactly (F. Giesen's half_to_float: normals rebias the exponent,
/// infinities and NaNs move to the float's top exponent, subnormals renormalise through a float
/// subtraction).
template <int W = kLanes>
inline __attribute__((always_inline)) LaneVector<float, W> half_lanes_to_float(RawLanesOf<W> raw) {
  using BitLanes = BitLanesOf<W>;
  const BitLanes h = __builtin_convertvector(raw, BitLanes);
  constexpr uint32_t kShiftedExponent = 0x7c00u << 13;
  BitLanes bits = (h & 0x7fffu) << 13;
  const BitLanes exponent = bits & kShiftedExponent;
  bits += (127u - 15u) << 23;
  const BitLanes top = reinterpret_cast<BitLanes>(exponent == kShiftedExponent);
  const BitLanes zero = reinterpret_cast<BitLanes>(exponent == 0u);
  bits += top & ((128u - 16u) << 23);
  LaneVector<float, W> subnormal;
  const BitLanes renormalised = bits + (1u << 23);
  std::memcpy(&subnormal, &renormalised, sizeof subnormal);
  subnormal -= 6.103515625e-05f;  // 2^-14: the float whose bits are 113 << 23
  BitLanes subnormal_bits;
  std::memcpy(&subnormal_bits, &subnormal, sizeof subnormal_bits);
  bits = (zero & subnormal_bits) | (~zero & bits);
  bits |= (h & 0x8000u) << 16;
  LaneVector<float, W> v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// float to binary16 bits, rounding to nearest even; NaN becomes the quiet NaN 0x7e00 with its
/// sign, overflow infinity (Giesen's float_to_half_fast3_rtne, which Eigen's scalar path is).
template <int W = kLanes>
inline __attribute__((always_inline)) RawLanesOf<W> float_lanes_to_half(LaneVector<float, W> v) {
  using BitLanes = BitLanesOf<W>;
  BitLanes bits;
  std::memcpy(&bits, &v, sizeof bits);
  const BitLanes sign = bits & 0x80000000u;
  bits ^= sign;
  constexpr uint32_t kInfinity = 255u << 23, kHalfMax = (127u + 16u) << 23;
  constexpr uint32_t kDenormMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  // Too large: infinity or NaN.
  const BitLanes huge = reinterpret_cast<BitLanes>(bits >= kHalfMax);
  const BitLanes nan = reinterpret_cast<BitLanes>(bits > kInfinity);
  const BitLanes overflow = (nan & 0x7e00u) | (~nan & 0x7c00u);
  // Subnormal halves: the float addition aligns the mantissa and rounds.
  const BitLanes tiny = reinterpret_cast<BitLanes>(bits < (113u << 23));
  LaneVector<float, W> aligned;
  std::memcpy(&aligned, &bits, sizeof aligned);
  LaneVector<float, W> magic;
  const BitLanes magic_bits = BitLanes{} + kDenormMagic;
  std::memcpy(&magic, &magic_bits, sizeof magic);
  aligned += magic;
  BitLanes subnormal;
  std::memcpy(&subnormal, &aligned, sizeof subnormal);
  subnormal -= kDenormMagic;
  // Normal halves: rebias, round to nearest even on the 13 dropped bits.
  const BitLanes odd = (bits >> 13) & 1u;
  const BitLanes normal = (bits + ((15u - 127u) << 23) + 0xfffu + odd) >> 13;
  const BitLanes result =
      (huge & overflow) | (~huge & ((tiny & subnormal) | (~tiny & normal))) | (sign >> 16);
  return low_halves<W>(result);
}

/// float to bfloat16 bits, rounding to nearest even; NaN becomes 0x7fc0 with its sign (Eigen's
/// float_to_bfloat16_rtne).
template <int W = kLanes>
inline __attribute__((always_inline)) RawLanesOf<W> float_lanes_to_bfloat16(
    LaneVector<float, W> v) {
  using BitLanes = BitLanesOf<W>;
  BitLanes bits;
  std::memcpy(&bits, &v, sizeof bits);
  const BitLanes nan = reinterpret_cast<BitLanes>((bits & 0x7fffffffu) > 0x7f800000u);
  const BitLanes rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
  const BitLanes quiet = ((bits >> 16) & 0x8000u) | 0x7fc0u;
  return low_halves<W>((nan & quiet) | (~nan & rounded));
}

/// Loads W elements p[0], p[stride], ... converted to Acc.
template <typename Acc, int W = kLanes, typename T>
inline __attribute__((always_inline)) LaneVector<Acc, W> load_lanes(const T* p, int64_t stride) {
  LaneVector<Acc, W> v = {};  // every lane is written below; {} only quiets -Wmaybe-uninitialized
  if constexpr (std::is_same_v<T, Acc>) {
    if (stride == 1) {
      std::memcpy(&v, p, sizeof v);
      return v;
    }
  } else if constexpr (std::is_same_v<Acc, float> && is_16_bit_float_v<T>) {
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (W == kWideRowLanes) {
      if (stride == 1) {
        alignas(64) float floats[16];
        widen_to_floats_avx512(p, floats);
        std::memcpy(&v, floats, sizeof v);
        return v;
      }
    }
#endif
    if (stride == 1) {
      RawLanesOf<W> raw;
      std::memcpy(&raw, p, sizeof raw);
      if constexpr (std::is_same_v<T, half>) return half_lanes_to_float<W>(raw);
      // bfloat16 is the top half of a float: widen all lanes at once.
      const BitLanesOf<W> bits = __builtin_convertvector(raw, BitLanesOf<W>) << 16;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (stride == 1) {
      // float <-> double: one vector conversion (element by element went through the stack).
      LaneVector<T, W> raw;
      std::memcpy(&raw, p, sizeof raw);
      return __builtin_convertvector(raw, LaneVector<Acc, W>);
    }
  }
  for (int j = 0; j < W; ++j) v[j] = static_cast<Acc>(p[j * stride]);
  return v;
}

/// W contiguous values p[0..W) converted to Acc (float or double to float or double: one vector
/// conversion, exact or rounding as static_cast does).
template <typename Acc, int W, typename Val>
inline __attribute__((always_inline)) LaneVector<Acc, W> load_row(const Val* p) {
  LaneVector<Val, W> raw;
  std::memcpy(&raw, p, sizeof raw);
  return __builtin_convertvector(raw, LaneVector<Acc, W>);
}

/// Four doubles: one AVX2 register, or two SSE2 ones. GCC lowers 8-double vectors poorly on AVX2
/// (they went through the stack), so kernels that hold doubles in registers use halves.
typedef double Double4 __attribute__((vector_size(4 * sizeof(double))));

/// p[0..4) converted to double.
template <typename T>
inline __attribute__((always_inline)) Double4 load_double4(const T* p) {
  typedef T T4 __attribute__((vector_size(4 * sizeof(T))));
  T4 v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_convertvector(v, Double4);
}

/// kLanes values rounded to float (as static_cast does), four at a time.
template <typename Acc>
inline __attribute__((always_inline)) LaneVector<float> float_lanes(const LaneVector<Acc>& v) {
  if constexpr (std::is_same_v<Acc, float>) {
    return v;
  } else {
    typedef float Float4 __attribute__((vector_size(4 * sizeof(float))));
    Double4 low, high;
    std::memcpy(&low, &v, sizeof low);
    std::memcpy(&high, reinterpret_cast<const unsigned char*>(&v) + sizeof low, sizeof high);
    return __builtin_shufflevector(__builtin_convertvector(low, Float4),
                                   __builtin_convertvector(high, Float4), 0, 1, 2, 3, 4, 5, 6, 7);
  }
}

/// combine_lanes' tree, ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)), in registers: each
/// step adds the vector to its own shuffle (a + b == b + a exactly).
template <typename Acc>
inline __attribute__((always_inline)) Acc combine_lane_vector(const LaneVector<Acc>& v) {
  const LaneVector<Acc> pairs = v + __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6);
  const LaneVector<Acc> quads =
      pairs + __builtin_shufflevector(pairs, pairs, 2, 3, 0, 1, 6, 7, 4, 5);
  return quads[0] + quads[4];
}

/// a where `mask` is all ones, b where it is zero, lane by lane.
inline __attribute__((always_inline)) LaneVector<float> select_lanes(MaskLanes mask,
                                                                     LaneVector<float> a,
                                                                     LaneVector<float> b) {
  BitLanes a_bits, b_bits;
  std::memcpy(&a_bits, &a, sizeof a_bits);
  std::memcpy(&b_bits, &b, sizeof b_bits);
  const BitLanes bits =
      (reinterpret_cast<BitLanes>(mask) & a_bits) | (~reinterpret_cast<BitLanes>(mask) & b_bits);
  LaneVector<float> v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// 2^k for integer lanes k in [-126, 127], exactly.
inline __attribute__((always_inline)) LaneVector<float> power_of_two_lanes(MaskLanes k) {
  const MaskLanes bits = (k + 127) << 23;
  LaneVector<float> v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// e^x for kLanes floats, each lane on its own: the same bits in any lane and on either ISA path
/// (the kernels compile without contraction), where libm's expf is one out-of-line call per
/// element. Cephes' expf: x = n ln2 + r with n = floor(x log2(e) + 1/2), a degree-7 polynomial in
/// r, times 2^n in two exact steps so results down to the subnormals keep their bits. Within one
/// ulp of e^x (0.99 at worst over every float in [-110, 90]; tests/core/exp_lanes_test.cpp).
/// +inf above 88.7228, 0 below -103.9721, NaN stays NaN.
inline __attribute__((always_inline)) LaneVector<float> exp_lanes(LaneVector<float> x) {
  using V = LaneVector<float>;
  const MaskLanes above = x > 88.72283935546875f, below = x < -103.972084045410156f;
  const MaskLanes not_a_number = x != x;
  const V in_range = select_lanes(above | below | not_a_number, V{}, x);
  const V t = in_range * 1.44269504088896341f + 0.5f;
  MaskLanes n = __builtin_convertvector(t, MaskLanes);  // toward zero, then down to the floor
  n += __builtin_convertvector(n, V) > t;
  const V whole = __builtin_convertvector(n, V);
  V r = in_range - whole * 0.693359375f;  // ln 2 in two parts: the first times n is exact
  r = r - whole * -2.12194440e-4f;
  V y = V{} + 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  const MaskLanes half = n >> 1;
  y = y * power_of_two_lanes(half) * power_of_two_lanes(n - half);
  y = select_lanes(above, V{} + __builtin_huge_valf(), y);
  y = select_lanes(below, V{}, y);
  return select_lanes(not_a_number, x, y);
}

/// Stores W values to p[0], p[stride], ... converted to T.
template <typename Acc, int W = kLanes, typename T>
inline __attribute__((always_inline)) void store_lanes(T* p, int64_t stride,
                                                       const LaneVector<Acc, W>& v) {
  if constexpr (std::is_same_v<T, Acc>) {
    if (stride == 1) {
      std::memcpy(p, &v, sizeof v);
      return;
    }
  } else if constexpr (std::is_same_v<Acc, float> && is_16_bit_float_v<T>) {
#if defined(__x86_64__) && defined(__GNUC__)
    if constexpr (W == kWideRowLanes && std::is_same_v<T, half>) {
      if (stride == 1) {
        alignas(64) float floats[16];
        std::memcpy(floats, &v, sizeof floats);
        floats_to_halves_avx512(floats, p);
        return;
      }
    }
#endif
    if (stride == 1) {
      const RawLanesOf<W> raw =
          std::is_same_v<T, half> ? float_lanes_to_half<W>(v) : float_lanes_to_bfloat16<W>(v);
      std::memcpy(static_cast<void*>(p), &raw, sizeof raw);
      return;
    }
  }
  for (int j = 0; j < W; ++j) p[j * stride] = static_cast<T>(v[j]);
}

/// The lanes of the top or bottom half-width slice h of a vector W = 2 kLanes wide (h = 0 holds
/// elements [0, kLanes)).
template <typename Acc, int W>
inline __attribute__((always_inline)) LaneVector<Acc> lane_slice(const LaneVector<Acc, W>& v,
                                                                 int h) {
  LaneVector<Acc> slice;
  std::memcpy(&slice, reinterpret_cast<const unsigned char*>(&v) + h * sizeof slice, sizeof slice);
  return slice;
}

/// Copies `bytes` (a multiple of 8) from `src` to the 8-byte-aligned `dst`, bypassing the caches:
/// no read for ownership of lines that another core's cache may hold. A kernel that streams calls
/// stream_fence() before its threads join.
inline __attribute__((always_inline)) void stream_copy(void* dst, const void* src, size_t bytes) {
#if defined(__x86_64__)
  auto* to = static_cast<char*>(dst);
  const auto* from = static_cast<const char*>(src);
  const auto stream_word = [&](size_t at) GRADCONF_ALWAYS_INLINE_LAMBDA {
    long long word;
    std::memcpy(&word, from + at, sizeof word);
    _mm_stream_si64(reinterpret_cast<long long*>(to + at), word);
  };
  size_t i = 0;
  if (reinterpret_cast<uintptr_t>(to) % sizeof(__m128i) != 0 && bytes > 0) {
    stream_word(0);
    i = sizeof(long long);
  }
#pragma GCC unroll 4
  for (; i + sizeof(__m128i) <= bytes; i += sizeof(__m128i)) {
    __m128i v;
    std::memcpy(&v, from + i, sizeof v);
    _mm_stream_si128(reinterpret_cast<__m128i*>(to + i), v);
  }
  if (i < bytes) stream_word(i);
#else
  std::memcpy(dst, src, bytes);
#endif
}

/// stream_copy from a 64-byte-aligned `src`: where `dst` is 64-byte aligned too and `bytes` whole
/// lines, each line goes out in one 64-byte streaming store. Compiled for AVX-512, so it is
/// inlined into on_widest_isa's AVX-512 path only; a kernel calls it only when kernel_isa() is
/// kAvx512.
GRADCONF_TARGET_AVX512 inline void stream_lines_avx512(void* dst, const void* src, size_t bytes) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (reinterpret_cast<uintptr_t>(dst) % 64 == 0 && bytes % 64 == 0) {
    for (size_t at = 0; at < bytes; at += 64) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(static_cast<char*>(dst) + at),
                          _mm512_load_si512(static_cast<const char*>(src) + at));
    }
    return;
  }
#endif
  stream_copy(dst, src, bytes);
}

/// Stores W values to the 16-byte-aligned p[0..W) converted to T, bypassing the caches.
template <typename Acc, int W = kLanes, typename T>
inline __attribute__((always_inline)) void stream_lanes(T* p, const LaneVector<Acc, W>& v) {
  if constexpr (std::is_same_v<T, Acc> || (std::is_same_v<Acc, float> && is_16_bit_float_v<T>)) {
    alignas(64) T converted[W];
    static_assert(sizeof converted % 16 == 0);
    store_lanes<Acc, W>(converted, 1, v);
    stream_copy(p, converted, sizeof converted);
    return;
  }
  store_lanes<Acc, W>(p, 1, v);
}

/// out[j] = inside[j] ? base[offset[j]] : +0 for the kLanes lanes (`inside` lanes all ones or
/// all zeros), with one AVX2 gather (lanes outside are not read): the bits of the scalar copy.
/// Compiled for AVX2, so it is inlined into on_widest_isa's AVX2 and AVX-512 paths only; a kernel
/// calls it only when kernel_isa() is one of them (from the baseline path it would be an
/// out-of-line call that never runs). `out` by reference: a vector returned by value would change
/// the ABI of the baseline caller (clang refuses it).
GRADCONF_TARGET_AVX2 inline void gathered_lanes_avx2(const float* base, const MaskLanes& offset,
                                                     const MaskLanes& inside,
                                                     LaneVector<float>& out) {
#if defined(__x86_64__) && defined(__GNUC__)
  __m256i index, mask;
  std::memcpy(&index, &offset, sizeof index);
  std::memcpy(&mask, &inside, sizeof mask);
  const __m256 gathered = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, index,
                                                   _mm256_castsi256_ps(mask), sizeof(float));
  std::memcpy(&out, &gathered, sizeof out);
#else
  for (int j = 0; j < kLanes; ++j) out[j] = inside[j] ? base[offset[j]] : 0.0f;
#endif
}

/// Two neighbours in memory per lane, left[j] = base[offset[j]] and right[j] = base[offset[j] +
/// 1], read with one AVX-512 gather of 8-byte elements where two gathers of 4-byte ones would
/// take half as long again (a bilinear group of 8 points: 4.5 against 7 ns on a Zen 5). Lanes
/// outside `inside` (all ones or all zeros) read nothing and give +0 on both sides, so the
/// caller must know both neighbours of an inside lane are addressable. The bits of the scalar
/// copy. Compiled for AVX-512; called only when kernel_isa() is kAvx512.
GRADCONF_TARGET_AVX512 inline void gathered_pairs_avx512(const float* base, const MaskLanes& offset,
                                                         const MaskLanes& inside,
                                                         LaneVector<float>& left,
                                                         LaneVector<float>& right) {
#if defined(__x86_64__) && defined(__GNUC__)
  __m256i index, mask;
  std::memcpy(&index, &offset, sizeof index);
  std::memcpy(&mask, &inside, sizeof mask);
  const auto lanes = static_cast<__mmask8>(_mm256_movemask_ps(_mm256_castsi256_ps(mask)));
  const __m512 pairs = _mm512_castpd_ps(
      _mm512_mask_i32gather_pd(_mm512_setzero_pd(), lanes, index, base, sizeof(float)));
  // Even floats are the left neighbours, odd ones the right: each to the low half of a vector,
  // whose first 32 bytes are copied out. (The maskz forms and the copies: GCC 12's unmasked
  // permute and its 512-to-256-bit cast start from an "undefined" vector -Wuninitialized flags.)
  const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0);
  const __m512i odds = _mm512_add_epi32(evens, _mm512_set1_epi32(1));
  const __m512 low = _mm512_maskz_permutexvar_ps(0xFF, evens, pairs);
  const __m512 high = _mm512_maskz_permutexvar_ps(0xFF, odds, pairs);
  static_assert(sizeof left == 32 && sizeof right == 32);
  std::memcpy(&left, &low, sizeof left);
  std::memcpy(&right, &high, sizeof right);
#else
  for (int j = 0; j < kLanes; ++j) {
    left[j] = inside[j] ? base[offset[j]] : 0.0f;
    right[j] = inside[j] ? base[offset[j] + 1] : 0.0f;
  }
#endif
}

/// gathered_lanes_avx2 stored to out[0..kLanes).
GRADCONF_TARGET_AVX2 inline void gather_lanes_avx2(const float* base, const MaskLanes& offset,
                                                   const MaskLanes& inside, float* out) {
  LaneVector<float> lanes;
  gathered_lanes_avx2(base, offset, inside, lanes);
  std::memcpy(out, &lanes, sizeof lanes);
}

/// out[j] = bit j of `inside` ? base[offset[j]] : +0 for the kLanes lanes, with one scalar load
/// per lane (where kernel_gathers_by_loads: AMD's Zen 1 to 4 run AVX2's gather slower), so every
/// offset must be readable (0 for a lane outside): the bits of gather_lanes_avx2. The offsets are
/// read from memory: extracted from a vector, the loads were no faster than the gather.
GRADCONF_TARGET_AVX2 inline void load_lanes_at_avx2(const float* base, const int32_t* offset,
                                                    unsigned inside, float* out) {
#if defined(__x86_64__) && defined(__GNUC__)
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const __m256 mask = _mm256_castsi256_ps(
      _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(inside)), bit), bit));
  const __m256 lanes = _mm256_and_ps(
      _mm256_setr_ps(base[offset[0]], base[offset[1]], base[offset[2]], base[offset[3]],
                     base[offset[4]], base[offset[5]], base[offset[6]], base[offset[7]]),
      mask);
  std::memcpy(out, &lanes, sizeof lanes);
#else
  for (int j = 0; j < kLanes; ++j) out[j] = inside >> j & 1 ? base[offset[j]] : 0.0f;
#endif
}

/// n binary16 values to floats with F16C's vcvtph2ps, 8 at a time (the AVX2 path's rows, which
/// half_lanes_to_float's integer steps had made a third of NsaCompress's f16 backward). The
/// instruction is exact except that it quiets signalling NaNs: a group holding a NaN converts
/// element by element, with Eigen's scalar conversion, so the bits are the other paths'.
GRADCONF_TARGET_AVX2 inline void widen_half_row_avx2(const half* p, int64_t n, float* out) {
  int64_t k = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  for (; k + 8 <= n; k += 8) {
    const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k)));
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) == 0) {
      _mm256_storeu_ps(out + k, v);
      continue;
    }
    for (int j = 0; j < 8; ++j) out[k + j] = static_cast<float>(p[k + j]);
  }
#endif
  for (; k < n; ++k) out[k] = static_cast<float>(p[k]);
}

/// p[k] = values[k] as binary16, k < n, with F16C's vcvtps2ph rounding to nearest even, 8 at a
/// time (the AVX2 path's rows). It keeps NaN payloads, which Eigen's conversion drops: a group
/// holding a NaN converts element by element. `streaming` as store_row_lanes.
GRADCONF_TARGET_AVX2 inline void store_half_row_avx2(half* p, const float* values, int64_t n,
                                                     bool streaming) {
  int64_t k = 0;
#if defined(__x86_64__) && defined(__GNUC__)
  if (streaming) {
    for (; k < n && reinterpret_cast<uintptr_t>(p + k) % 16 != 0; ++k)
      p[k] = static_cast<half>(values[k]);
  }
  for (; k + 8 <= n; k += 8) {
    const __m256 v = _mm256_loadu_ps(values + k);
    if (_mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q)) != 0) {
      for (int j = 0; j < 8; ++j) p[k + j] = static_cast<half>(values[k + j]);
      continue;
    }
    const __m128i raw = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    if (streaming) {
      _mm_stream_si128(reinterpret_cast<__m128i*>(p + k), raw);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + k), raw);
    }
  }
#endif
  for (; k < n; ++k) p[k] = static_cast<half>(values[k]);
}

/// widen_half_row_avx2(p, n, out) where `f16c` (the AVX2 path) and T is binary16 into float;
/// false, doing nothing, otherwise.
template <typename T, typename Acc>
GRADCONF_ALWAYS_INLINE bool widen_half_row_by_f16c(bool f16c, const T* p, int64_t n, Acc* out) {
  if constexpr (std::is_same_v<T, half> && std::is_same_v<Acc, float>) {
    if (f16c) {
      widen_half_row_avx2(p, n, out);
      return true;
    }
  }
  return false;
}

/// store_half_row_avx2(p, values, n, streaming) where `f16c` (the AVX2 path) and T is binary16
/// from float; false, doing nothing, otherwise.
template <typename T, typename Acc>
GRADCONF_ALWAYS_INLINE bool store_half_row_by_f16c(bool f16c, T* p, const Acc* values, int64_t n,
                                                   bool streaming) {
  if constexpr (std::is_same_v<T, half> && std::is_same_v<Acc, float>) {
    if (f16c) {
      store_half_row_avx2(p, values, n, streaming);
      return true;
    }
  }
  return false;
}

/// Orders this thread's streaming stores before whatever it does next (a join, a flag).
inline void stream_fence() {
#if defined(__x86_64__)
  _mm_sfence();
#endif
}

/// Requests every cache line of `bytes` contiguous bytes from `p` into L2 (locality 1): for a run
/// the hardware prefetcher will not see coming (a jump back), asked for tens of KiB ahead.
/// NsaCompress's forward asks 32 KiB ahead (L1: 48 KiB) and took 8.5-8.7 ms with the lines asked
/// into L1, 6.4-6.8 ms into L2, at 1 thread (bench/README, session 60); L1 evictions of lines it
/// still reads are the likely cause (the VM has no cache counters to show it).
inline __attribute__((always_inline)) void prefetch_bytes(const void* p, int64_t bytes) {
  const auto* at = static_cast<const char*>(p);
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(at + b, 0, 1);
}

/// sum_k a[k] * b[k] over contiguous buffers: element k in lane k % kLanes, lanes combined by
/// combine_lanes' tree.
template <typename Acc>
inline __attribute__((always_inline)) Acc dot_lanes(const Acc* a, const Acc* b, int64_t n) {
  LaneVector<Acc> lanes = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    lanes += load_lanes<Acc>(a + k, 1) * load_lanes<Acc>(b + k, 1);
  for (int j = 0; k < n; ++k, ++j) lanes[j] += a[k] * b[k];
  return combine_lane_vector<Acc>(lanes);
}

/// step(j, kLanes) for j = 0, kLanes, ... while a whole vector remains, then step(j, n - j) once
/// for the rest: the whole steps see a constant count, so their loads and stores compile to
/// vector moves.
template <typename Step>
inline __attribute__((always_inline)) void for_lane_steps(int64_t n, Step step) {
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) step(j, size_t{kLanes});
  if (j < n) step(j, static_cast<size_t>(n - j));
}

/// sum_k a[k] over a contiguous buffer: element k in lane k % kLanes, lanes combined by
/// combine_lanes' tree.
template <typename Acc>
inline __attribute__((always_inline)) Acc sum_lanes(const Acc* a, int64_t n) {
  LaneVector<Acc> lanes = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) lanes += load_lanes<Acc>(a + k, 1);
  for (int j = 0; k < n; ++k, ++j) lanes[j] += a[k];
  return combine_lane_vector<Acc>(lanes);
}

/// y[k] += w * x[k * x_stride] (converted to Acc) for k < n: each element on its own, so the bits
/// are the scalar loop's.
template <int W = kLanes, typename Acc, typename T>
inline __attribute__((always_inline)) void axpy_lanes(Acc w, const T* x, int64_t x_stride, Acc* y,
                                                      int64_t n) {
  int64_t k = 0;
  for (; k + W <= n; k += W) {
    store_lanes<Acc, W>(
        y + k, 1,
        load_lanes<Acc, W>(y + k, 1) + w * load_lanes<Acc, W>(x + k * x_stride, x_stride));
  }
  for (; k < n; ++k) y[k] += w * static_cast<Acc>(x[k * x_stride]);
}

/// axpy_lanes into two rows from one read of x: y0[k] += w0 * x[k], y1[k] += w1 * x[k], each
/// element as axpy_lanes computes it.
template <int W = kLanes, typename Acc, typename T>
inline __attribute__((always_inline)) void axpy2_lanes(Acc w0, Acc w1, const T* x, int64_t x_stride,
                                                       Acc* y0, Acc* y1, int64_t n) {
  int64_t k = 0;
  for (; k + W <= n; k += W) {
    const LaneVector<Acc, W> v = load_lanes<Acc, W>(x + k * x_stride, x_stride);
    store_lanes<Acc, W>(y0 + k, 1, load_lanes<Acc, W>(y0 + k, 1) + w0 * v);
    store_lanes<Acc, W>(y1 + k, 1, load_lanes<Acc, W>(y1 + k, 1) + w1 * v);
  }
  for (; k < n; ++k) {
    const Acc v = static_cast<Acc>(x[k * x_stride]);
    y0[k] += w0 * v;
    y1[k] += w1 * v;
  }
}

/// out[k] = p[k * stride] converted to Acc, k < n.
template <int W = kLanes, typename Acc, typename T>
inline __attribute__((always_inline)) void load_row_lanes(const T* p, int64_t stride, int64_t n,
                                                          Acc* out) {
  int64_t k = 0;
  for (; k + W <= n; k += W)
    store_lanes<Acc, W>(out + k, 1, load_lanes<Acc, W>(p + k * stride, stride));
  for (; k < n; ++k) out[k] = static_cast<Acc>(p[k * stride]);
}

/// p[k * stride] = values[k] converted to T, k < n. `streaming`: contiguous 16-byte-aligned runs
/// bypass the caches (non-temporal stores: no read for ownership of lines the caller will not read
/// again; the same bits). A kernel that streams calls stream_fence() before its threads join.
/// The AVX-512 path's 16-bit rows go to conversions_avx512.h's row functions, which convert and
/// store from registers.
template <int W = kLanes, typename Acc, typename T>
inline __attribute__((always_inline)) void store_row_lanes(T* p, int64_t stride, int64_t n,
                                                           const Acc* values, bool streaming) {
#if defined(__x86_64__) && defined(__GNUC__)
  if constexpr (W == kWideRowLanes && std::is_same_v<Acc, float> && std::is_same_v<T, bfloat16>) {
    if (stride == 1 && kernel_has_bfloat16_conversion()) {
      store_bfloat16_row_avx512bf16(p, values, n, streaming);
      return;
    }
  }
  if constexpr (W == kWideRowLanes && std::is_same_v<Acc, float> && std::is_same_v<T, half>) {
    if (stride == 1) return store_half_row_avx512(p, values, n, streaming);
  }
#endif
  int64_t k = 0;
  if (streaming && stride == 1) {
    for (; k < n && reinterpret_cast<uintptr_t>(p + k) % 16 != 0; ++k)
      p[k] = static_cast<T>(values[k]);
    for (; k + W <= n; k += W) stream_lanes<Acc, W>(p + k, load_lanes<Acc, W>(values + k, 1));
  }
  for (; k + W <= n; k += W)
    store_lanes<Acc, W>(p + k * stride, stride, load_lanes<Acc, W>(values + k, 1));
  for (; k < n; ++k) p[k * stride] = static_cast<T>(values[k]);
}

/// on_widest_isa for a body that takes its row width: body(std::integral_constant<int, W>) with
/// W = kWideRowLanes on the AVX-512 path and kLanes on the others. A kernel should do all its hot
/// row work at W there: NsaCompress's backward with only its stores 16 wide went from 9.5 to
/// 10.4 ms (bf16, 1 thread), with its sums 16 wide too 9.3. Only elementwise work (and reductions
/// that add a wide vector's kLanes halves in order, lane_slice) may use W: the bits are then the
/// same on every path. kEveryPath false compiles the baseline path only (on_widest_isa's).
template <bool kEveryPath = true, typename Body>
void on_widest_isa_rows(Body&& body) {
  auto narrow = [&]()
                    GRADCONF_ALWAYS_INLINE_LAMBDA { body(std::integral_constant<int, kLanes>{}); };
  auto wide = [&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
    body(std::integral_constant<int, kWideRowLanes>{});
  };
  if constexpr (kEveryPath) {
    on_isa_path(narrow, wide);
  } else {
    run_baseline(narrow);
  }
}

#pragma GCC diagnostic pop

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_LANES_H_
