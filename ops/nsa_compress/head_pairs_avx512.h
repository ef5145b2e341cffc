// NsaCompress's 16-bit backwards on CPUs with AVX512_BF16: a token's rows for two heads at once,
// in 512-bit vectors that hold 8 elements of each head. The generic rows (kernels.h) add each
// product's two 8-lane halves to a cover's dot lanes one after the other (an extract and two
// 256-bit adds per 16 products: dot_lanes' lane order on every path) and widen the input in two
// instructions per 16 values. Here a vector holds elements [d, d + 8) of head n in its low half
// and of head n + 1 in its high half, so one 512-bit add advances both heads' dot lanes in that
// same order, one vpermt2w widens (bfloat16) or gathers (binary16) 8 values of each head, and
// the outputGrad rows of a head pair are stored interleaved the same way (head_pair_offset). Each
// element adds the same products in the same order as the generic rows: the same bits
// (tests/nsa_compress/head_pairs_test.cpp). bf16, 4 x 8192 tokens, N 4, D 128, l 32, d 16: 1
// thread 5.42 -> 3.84 ms, 2 threads 3.12 -> 1.91.
#ifndef GRADCONF_OPS_NSA_COMPRESS_HEAD_PAIRS_AVX512_H_
#define GRADCONF_OPS_NSA_COMPRESS_HEAD_PAIRS_AVX512_H_

#include <array>
#include <cstdint>

#include "core/conversions_avx512.h"
#include "core/dtype.h"
#include "core/isa.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace gradconf::nc {

/// A head pair's rows are walked this many elements at a time, a cache line of bfloat16 per
/// head: D must be a multiple.
inline constexpr int64_t kHeadPairStep = 32;

/// Where element d of head `odd` (0: head n, 1: head n + 1) sits in a head pair's interleaved
/// row of 2 dim floats: 8 of head n, then the same 8 of head n + 1.
constexpr int64_t head_pair_offset(int64_t d, int64_t odd) {
  return 16 * (d / 8) + 8 * odd + d % 8;
}

/// One token's rows (t, n) and (t, n + 1) for a head pair.
template <typename T>
struct HeadPairRows {
  const T* input[2];            // unit stride, dim values each
  T* input_grad[2];             // unit stride
  const float* output_grad[2];  // per cover, in window order: the pair's interleaved row
  float weight[2][2];           // [cover][head]: weight[j, n] and weight[j, n + 1]
  int covers;                   // 1 or 2
};

#if defined(__x86_64__) && defined(__GNUC__)

/// vpermt2w indices for the 4 gathers of a step: gather k brings values [8k, 8k + 8) of head n,
/// then the same of head n + 1 (the second source: index 32 on), into words first, first + step,
/// first + 2 step, ...
constexpr std::array<std::array<uint16_t, 32>, 4> head_pair_word_index(int first, int step) {
  std::array<std::array<uint16_t, 32>, 4> index{};
  for (int k = 0; k < 4; ++k) {
    for (int m = 0; m < 16; ++m)
      index[k][first + step * m] = static_cast<uint16_t>(m < 8 ? 8 * k + m : 24 + 8 * k + m);
  }
  return index;
}

/// The 16-bit type's side of a head pair's rows: its input vectors as floats and its inputGrad
/// lines from floats, each with the bits of Eigen's scalar conversion.
template <typename T>
struct PairConversions;

template <>
struct PairConversions<bfloat16> {
  /// The values into the odd words, the even ones zeroed: each 32-bit lane is the float whose
  /// top half is that bfloat16, exact for every value.
  alignas(64) static constexpr auto kIndex = head_pair_word_index(1, 2);
  static constexpr int kInexact = kInexactForBfloat16Narrowing;

  GRADCONF_TARGET_AVX512_BF16 static __m512 widen(__m512i head0, __m512i head1, int k,
                                                  const bfloat16*, const bfloat16*) {
    return _mm512_castsi512_ps(_mm512_maskz_permutex2var_epi16(
        __mmask32(0xaaaaaaaau), head0, _mm512_load_si512(kIndex[k].data()), head1));
  }
  /// Words: [n 0-7 | n+1 0-7 | n 8-15 | n+1 8-15], then the same for 16-31.
  GRADCONF_TARGET_AVX512_BF16 static void narrow(const __m512 grads[4], __m512i& low,
                                                 __m512i& high) {
    low = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(grads[1], grads[0]));
    high = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(grads[3], grads[2]));
  }
};

template <>
struct PairConversions<half> {
  /// The values into words 0-15, for vcvtph2ps.
  alignas(64) static constexpr auto kIndex = head_pair_word_index(0, 1);
  static constexpr int kInexact = kInexactForHalfConversion;

  /// vcvtph2ps quiets signalling NaNs: a vector with a NaN converts element by element.
  GRADCONF_TARGET_AVX512_BF16 static __m512 widen(__m512i head0, __m512i head1, int k,
                                                  const half* input0, const half* input1) {
    const __m512i words =
        _mm512_permutex2var_epi16(head0, _mm512_load_si512(kIndex[k].data()), head1);
    // The zero-masking forms: GCC 12 warns on the plain ones' undefined source.
    // A shuffle, not _mm512_castsi512_si256, whose undefined source GCC 12 warns on.
    const auto low = reinterpret_cast<__m256i>(__builtin_shufflevector(
        reinterpret_cast<__v8di>(words), reinterpret_cast<__v8di>(words), 0, 1, 2, 3));
    const __m512 x = _mm512_maskz_cvtph_ps(__mmask16(0xffff), low);
    if (_mm512_fpclass_ps_mask(x, kInexact) == 0) return x;
    alignas(64) float exact[16];
    for (int p = 0; p < 8; ++p) {
      exact[p] = static_cast<float>(input0[8 * k + p]);
      exact[8 + p] = static_cast<float>(input1[8 * k + p]);
    }
    return _mm512_load_ps(exact);
  }
  /// Halves: [n 0-7 | n+1 0-7 | n 8-15 | n+1 8-15], then the same for 16-31.
  GRADCONF_TARGET_AVX512_BF16 static void narrow(const __m512 grads[4], __m512i& low,
                                                 __m512i& high) {
    // Written out (a lambda would not take this function's target): as a loop GCC passed the
    // sums and the halves through the stack.
    constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    const auto h0 = reinterpret_cast<__v4di>(_mm512_maskz_cvtps_ph(0xffff, grads[0], kRound));
    const auto h1 = reinterpret_cast<__v4di>(_mm512_maskz_cvtps_ph(0xffff, grads[1], kRound));
    const auto h2 = reinterpret_cast<__v4di>(_mm512_maskz_cvtps_ph(0xffff, grads[2], kRound));
    const auto h3 = reinterpret_cast<__v4di>(_mm512_maskz_cvtps_ph(0xffff, grads[3], kRound));
    low = reinterpret_cast<__m512i>(__builtin_shufflevector(h0, h1, 0, 1, 2, 3, 4, 5, 6, 7));
    high = reinterpret_cast<__m512i>(__builtin_shufflevector(h2, h3, 0, 1, 2, 3, 4, 5, 6, 7));
  }
};

template <typename T, int kCovers>
GRADCONF_TARGET_AVX512_BF16 inline void head_pair_rows_avx512(const HeadPairRows<T>& rows,
                                                              int64_t dim, bool streaming,
                                                              float dots[2][2]) {
  using Conversions = PairConversions<T>;
  __m512 weights[kCovers], sums[kCovers];
  for (int c = 0; c < kCovers; ++c) {
    weights[c] =
        _mm512_insertf32x8(_mm512_set1_ps(rows.weight[c][0]), _mm256_set1_ps(rows.weight[c][1]), 1);
    sums[c] = _mm512_setzero_ps();
  }
  const auto line_of = [](const T* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; };
  const bool on_lines = line_of(rows.input_grad[0]) && line_of(rows.input_grad[1]);
  for (int64_t d = 0; d < dim; d += kHeadPairStep) {
    const __m512i head0 = _mm512_loadu_si512(rows.input[0] + d);
    const __m512i head1 = _mm512_loadu_si512(rows.input[1] + d);
    __m512 grads[4];
    __mmask16 inexact = 0;
    // Unrolled: as a loop GCC kept the sums and the four rows of sums on the stack (the bf16
    // backward, 4 x 8192 tokens, N 4, D 128, at 1 thread: 4.40 -> 3.84 ms).
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m512 x = Conversions::widen(head0, head1, k, rows.input[0] + d, rows.input[1] + d);
      // The generic rows' order: +0 plus each cover's weighted row in window order.
      __m512 grad = _mm512_setzero_ps();
#pragma GCC unroll 2
      for (int c = 0; c < kCovers; ++c) {
        const __m512 output_grad = _mm512_loadu_ps(rows.output_grad[c] + 2 * d + 16 * k);
        grad = _mm512_add_ps(grad, _mm512_mul_ps(weights[c], output_grad));
        sums[c] = _mm512_add_ps(sums[c], _mm512_mul_ps(output_grad, x));
      }
      grads[k] = grad;
      inexact |= _mm512_fpclass_ps_mask(grad, Conversions::kInexact);
    }
    __m512i lines[2];
    if (inexact == 0) {
      __m512i low, high;
      Conversions::narrow(grads, low, high);
      // Shuffles, not _mm512_shuffle_i32x4, whose undefined source GCC 12 warns on.
      lines[0] = reinterpret_cast<__m512i>(__builtin_shufflevector(
          reinterpret_cast<__v8di>(low), reinterpret_cast<__v8di>(high), 0, 1, 4, 5, 8, 9, 12, 13));
      lines[1] = reinterpret_cast<__m512i>(__builtin_shufflevector(reinterpret_cast<__v8di>(low),
                                                                   reinterpret_cast<__v8di>(high),
                                                                   2, 3, 6, 7, 10, 11, 14, 15));
    } else {
      alignas(64) float pair[64];
      alignas(64) T exact[2][32];
      for (int k = 0; k < 4; ++k) _mm512_store_ps(pair + 16 * k, grads[k]);
      for (int odd = 0; odd < 2; ++odd) {
        for (int e = 0; e < 32; ++e) exact[odd][e] = static_cast<T>(pair[head_pair_offset(e, odd)]);
        lines[odd] = _mm512_load_si512(exact[odd]);
      }
    }
    for (int odd = 0; odd < 2; ++odd) {
      auto* line = reinterpret_cast<__m512i*>(rows.input_grad[odd] + d);
      if (streaming && on_lines) {
        _mm512_stream_si512(line, lines[odd]);
      } else {
        _mm512_storeu_si512(line, lines[odd]);
      }
    }
  }
  // combine_lane_vector's tree on each half: adjacent lanes, then pairs, then the two quads.
  for (int c = 0; c < kCovers; ++c) {
    const __v16sf v = reinterpret_cast<__v16sf>(sums[c]);
    const __v16sf pairs =
        v + __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14);
    const __v16sf quads = pairs + __builtin_shufflevector(pairs, pairs, 2, 3, 0, 1, 6, 7, 4, 5, 10,
                                                          11, 8, 9, 14, 15, 12, 13);
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, reinterpret_cast<__m512>(quads));
    dots[c][0] = lanes[0] + lanes[4];
    dots[c][1] = lanes[8] + lanes[12];
  }
}

/// head_pair_rows_avx512 for rows.covers covers; dots[c][odd]: the cover's <outputGrad row,
/// input row> for head n + odd, as combine_lane_vector gives it. Call only where
/// kernel_has_bfloat16_conversion() (AVX512BW and AVX512_BF16: binary16 takes the same
/// instructions but vcvtne2ps2bf16), with dim a multiple of kHeadPairStep.
template <typename T>
GRADCONF_TARGET_AVX512_BF16 inline void head_pair_rows(const HeadPairRows<T>& rows, int64_t dim,
                                                       bool streaming, float dots[2][2]) {
  if (rows.covers == 1) {
    head_pair_rows_avx512<T, 1>(rows, dim, streaming, dots);
  } else {
    head_pair_rows_avx512<T, 2>(rows, dim, streaming, dots);
  }
}

#endif

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_HEAD_PAIRS_AVX512_H_
