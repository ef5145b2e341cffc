// The 16-bit conversions in x86 instructions, for the AVX-512 path's wide rows (core/lanes.h):
// each gives the bits of Eigen's scalar conversion, which core/lanes.h's integer lane conversions
// also give (tests/core/lane_conversions_test.cpp checks every path). Each is compiled for its own
// target and called only from a path that has it; those core/lanes.h calls take pointers, not
// vectors: a 512-bit argument of a function compiled without AVX-512 would change the ABI (clang
// refuses it), and inlined the copies vanish. Vectors pass only between functions of this file.
#ifndef GRADCONF_OPS_CORE_CONVERSIONS_AVX512_H_
#define GRADCONF_OPS_CORE_CONVERSIONS_AVX512_H_

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <cstdint>

#include "core/dtype.h"
#include "core/isa.h"

namespace gradconf {

/// The low 16 bits of each of 16 lanes: one vpmovdw, where GCC narrowed the generic vector with
/// masks, a pack and a permute. Only W = kWideRowLanes conversions call it, and only
/// on_widest_isa_rows' AVX-512 path makes those.
GRADCONF_TARGET_AVX512 inline void low_halves_avx512(const void* bits, void* out) {
  const __m512i wide = _mm512_loadu_si512(bits);
  _mm256_storeu_si256(static_cast<__m256i*>(out),
                      _mm512_maskz_cvtepi32_epi16(__mmask16(0xffff), wide));
}

/// 16 bfloat16 values to float: each the top half of its float, so one vpmovzxwd and a shift
/// (exact for every value, NaNs included), where GCC widened the generic vector in two halves and
/// an insert. Only W = kWideRowLanes loads call it (the AVX-512 path).
GRADCONF_TARGET_AVX512 inline void widen_to_floats_avx512(const bfloat16* values, float* floats) {
  // The zero-masking forms: GCC 12 warns on the plain ones' undefined source.
  const __m512i words = _mm512_maskz_cvtepu16_epi32(
      __mmask16(0xffff), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(values)));
  _mm512_storeu_si512(floats, _mm512_maskz_slli_epi32(__mmask16(0xffff), words, 16));
}

// The conversion instructions below differ from the scalar conversions only on NaNs (and, for
// vcvtneps2bf16, subnormals); a vector that has one converts element by element instead, with
// Eigen's scalar conversions (the lane functions would take a vector argument across the target
// boundary).

/// The vfpclassps categories that vcvtneps2bf16 and vcvtne2ps2bf16 get wrong: they read
/// subnormals as zero and keep NaN payloads.
inline constexpr int kInexactForBfloat16Narrowing = 0x01 | 0x20 | 0x80;  // qNaN, subnormal, sNaN
/// The categories vcvtps2ph gets wrong (it keeps NaN payloads) and vcvtph2ps gets wrong (it
/// quiets signalling NaNs): NaNs.
inline constexpr int kInexactForHalfConversion = 0x01 | 0x80;  // qNaN, sNaN

/// 16 binary16 values to float with vcvtph2ps: exact, except that it quiets signalling NaNs.
/// Only W = kWideRowLanes loads call it (the AVX-512 path).
GRADCONF_TARGET_AVX512 inline void widen_to_floats_avx512(const half* halves, float* floats) {
  const __m512 v = _mm512_maskz_cvtph_ps(
      __mmask16(0xffff), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(halves)));
  if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) == 0) {
    _mm512_storeu_ps(floats, v);
    return;
  }
  for (int j = 0; j < 16; ++j) floats[j] = static_cast<float>(halves[j]);
}

/// 16 floats to binary16 with vcvtps2ph, rounding to nearest even, except that it keeps NaN
/// payloads. Only W = kWideRowLanes stores call it (the AVX-512 path).
GRADCONF_TARGET_AVX512 inline __m256i halves_of_floats_avx512(const float* floats) {
  const __m512 v = _mm512_loadu_ps(floats);
  if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q) == 0)
    return _mm512_maskz_cvtps_ph(__mmask16(0xffff), v,
                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  alignas(32) half exact[16];
  for (int j = 0; j < 16; ++j) exact[j] = static_cast<half>(floats[j]);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(exact));
}

/// halves_of_floats_avx512 stored to halves[0..16).
GRADCONF_TARGET_AVX512 inline void floats_to_halves_avx512(const float* floats, half* halves) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(halves), halves_of_floats_avx512(floats));
}

/// 16 raw 16-bit values to p[0..16): streamed (p 16-byte aligned) or stored.
GRADCONF_TARGET_AVX512 inline void store_16_bit_lanes(void* p, __m256i raw, bool streaming) {
  if (streaming) {
    _mm_stream_si128(static_cast<__m128i*>(p), _mm256_castsi256_si128(raw));
    _mm_stream_si128(static_cast<__m128i*>(p) + 1, _mm256_extracti128_si256(raw, 1));
  } else {
    _mm256_storeu_si256(static_cast<__m256i*>(p), raw);
  }
}

/// 32 raw 16-bit values, low then high, streamed to the whole cache line at p (64-byte aligned) in
/// one store, not four 16-byte ones (NsaCompress's bf16 backward, whose row stores were a fifth of
/// its samples: 2 threads 3.24-3.25 -> 2.78-2.93 ms; its bf16 lines now come whole from
/// bfloat16_line_avx512bf16, its binary16 ones through here).
GRADCONF_TARGET_AVX512 inline void store_line_of_16_bit_lanes(void* p, __m256i low, __m256i high) {
  // A shuffle, not _mm512_inserti64x4, whose undefined source GCC 12 warns on.
  const auto line = __builtin_shufflevector(reinterpret_cast<__v4di>(low),
                                            reinterpret_cast<__v4di>(high), 0, 1, 2, 3, 4, 5, 6, 7);
  _mm512_stream_si512(static_cast<__m512i*>(p), reinterpret_cast<__m512i>(line));
}

/// p[k] = values[k] as binary16, k < n, 16 at a time (halves_of_floats_avx512); `streaming`, the
/// aligned head and the tail as in store_row_lanes, whose AVX-512 rows call it: converted in a
/// register and stored from there (through a stack copy and stream_copy, NsaCompress's f16
/// backward took 9.9-10.1 ms at 1 thread instead of 8.1-8.4).
GRADCONF_TARGET_AVX512 inline void store_half_row_avx512(half* p, const float* values, int64_t n,
                                                         bool streaming) {
  int64_t k = 0;
  if (streaming) {
    for (; k < n && reinterpret_cast<uintptr_t>(p + k) % 16 != 0; ++k)
      p[k] = static_cast<half>(values[k]);
  }
  if (streaming && reinterpret_cast<uintptr_t>(p + k) % 64 == 0) {
    for (; k + 32 <= n; k += 32) {
      store_line_of_16_bit_lanes(p + k, halves_of_floats_avx512(values + k),
                                 halves_of_floats_avx512(values + k + 16));
    }
  }
  for (; k + 16 <= n; k += 16)
    store_16_bit_lanes(p + k, halves_of_floats_avx512(values + k), streaming);
  for (; k < n; ++k) p[k] = static_cast<half>(values[k]);
}

/// floats[0..16) as bfloat16 with vcvtneps2bf16 (round to nearest even, except that it reads
/// subnormal inputs as zero and keeps NaN payloads: a vector with either, vfpclassps says,
/// converts element by element).
GRADCONF_TARGET_AVX512_BF16 inline __m256i bfloat16_lanes_avx512bf16(const float* floats) {
  const __m512 v = _mm512_loadu_ps(floats);
  if (_mm512_fpclass_ps_mask(v, kInexactForBfloat16Narrowing) == 0)
    return reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v));
  alignas(32) bfloat16 exact[16];
  for (int j = 0; j < 16; ++j) exact[j] = static_cast<bfloat16>(floats[j]);
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(exact));
}

/// floats[0..32) as the 32 bfloat16 values of one cache line, in one vcvtne2ps2bf16 where a
/// vector of 16 took a vcvtneps2bf16 and half a shuffle: the rounding and the fallback of
/// bfloat16_lanes_avx512bf16.
GRADCONF_TARGET_AVX512_BF16 inline __m512i bfloat16_line_avx512bf16(const float* floats) {
  const __m512 low = _mm512_loadu_ps(floats), high = _mm512_loadu_ps(floats + 16);
  if ((_mm512_fpclass_ps_mask(low, kInexactForBfloat16Narrowing) |
       _mm512_fpclass_ps_mask(high, kInexactForBfloat16Narrowing)) == 0)
    return reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low));
  alignas(64) bfloat16 exact[32];
  for (int j = 0; j < 32; ++j) exact[j] = static_cast<bfloat16>(floats[j]);
  return _mm512_load_si512(exact);
}

/// p[k] = values[k] as bfloat16, k < n, 16 at a time with vcvtneps2bf16 (round to nearest even,
/// except that it reads subnormal inputs as zero and keeps NaN payloads: a vector with either,
/// vfpclassps says, converts element by element). The same bits in 5 instructions per 16 values
/// instead of 15. `streaming`, the aligned head and the tail as in store_row_lanes, whose AVX-512
/// rows call it after kernel_has_bfloat16_conversion(): a whole row per call, since a function
/// with AVX512_BF16's target cannot be inlined into the AVX-512 path.
GRADCONF_TARGET_AVX512_BF16 inline void store_bfloat16_row_avx512bf16(bfloat16* p,
                                                                      const float* values,
                                                                      int64_t n, bool streaming) {
  int64_t k = 0;
  if (streaming) {
    for (; k < n && reinterpret_cast<uintptr_t>(p + k) % 16 != 0; ++k)
      p[k] = static_cast<bfloat16>(values[k]);
  }
  if (streaming && reinterpret_cast<uintptr_t>(p + k) % 64 == 0) {
    for (; k + 32 <= n; k += 32)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p + k), bfloat16_line_avx512bf16(values + k));
  }
  for (; k + 16 <= n; k += 16)
    store_16_bit_lanes(p + k, bfloat16_lanes_avx512bf16(values + k), streaming);
  for (; k < n; ++k) p[k] = static_cast<bfloat16>(values[k]);
}

}  // namespace gradconf

#endif
#endif  // GRADCONF_OPS_CORE_CONVERSIONS_AVX512_H_
