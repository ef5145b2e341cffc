// A located point's records for the backward passes: its scatter taps (inputGrad's records, in
// the layouts workspace.h lists) and its coordinate taps (gridGrad), formed once for both, point
// by point (point_taps) or kLanes points at a time from lanes (lane_point_taps): the same values.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_SCATTER_RECORDS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_SCATTER_RECORDS_H_

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/lanes.h"
#include "core/planted_fault.h"
#include "grid_sampler2d/channels_last.h"
#include "grid_sampler2d/coordinate_grads.h"
#include "grid_sampler2d/coords.h"
#include "grid_sampler2d/faults.h"
#include "grid_sampler2d/forward_kernel.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/source_lanes.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// A located point's taps, computed once for both gradients: its scatter taps (inputGrad; see
/// ScatterTaps: tap (j, i) of bicubic at 4 j + i, taps outside at a trash slot (trash_slot: the
/// point is in lane `lane` of its block), weights in the accumulator's type) and, when
/// `coordinate` is given, its coordinate taps (gridGrad). Bicubic taps are padded one by one, so
/// several may land on one pixel.
template <typename T, Fault kFault, typename Taps>
GRADCONF_ALWAYS_INLINE void point_taps(const SourcePoint& p, const SamplerLayout& l,
                                       const Attributes& a, int lane, Taps& scatter,
                                       CoordinateTaps* coordinate) {
  using PlaneAcc = std::conditional_t<kFault == Fault::kDoubleComputedInFloat, float, double>;
  for (int k = 0; k < Taps::kCount; ++k) {
    scatter.offset[k] = trash_slot(l.pixels(), k, lane, Taps::kCount);
    if constexpr (Taps::kCount > 1) scatter.weight[k] = 0;
  }
  if (!p.addressable) return;
  if constexpr (Taps::kCount == 16) {
    const auto [x, y] = cubic_axes<T, kFault>(p, l.in_h, l.in_w, a);
    for (int j = 0; j < 4; ++j) {
      for (int i = 0; i < 4; ++i) {
        if (!x.inside[i] || !y.inside[j]) continue;
        const int64_t pixel = y.index[j] * l.in_w + x.index[i];
        scatter.offset[4 * j + i] = pixel;
        scatter.weight[4 * j + i] = x.weight[i] * y.weight[j];
        if (coordinate) {
          coordinate->add(pixel, x.weight_grad[i] * y.weight[j], x.weight[i] * y.weight_grad[j]);
        }
      }
    }
  } else if constexpr (Taps::kCount == 1) {
    // One tap (NearestScatterTaps); no coordinate gradient.
    if (in_bounds(p.y0, p.x0, l.in_h, l.in_w)) scatter.offset[0] = p.y0 * l.in_w + p.x0;
  } else {
    const BilinearTaps<double, kFault> taps(p, l.in_h, l.in_w);
    double weight[4];
    for (int k = 0; k < 4; ++k) weight[k] = static_cast<PlaneAcc>(taps.weight[k]);
    if (planted<kFault>(Fault::kBackwardSwapsTapWeights)) std::swap(weight[1], weight[2]);
    const double dwx[4] = {-(1 - p.ty), 1 - p.ty, -p.ty, p.ty};
    const double dwy[4] = {-(1 - p.tx), -p.tx, 1 - p.tx, p.tx};
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      if (!taps.inside[k]) continue;
      scatter.offset[k] = taps.y[k] * l.in_w + taps.x[k];
      scatter.weight[k] = weight[k];
      if (coordinate) coordinate->add(scatter.offset[k], dwx[k], dwy[k]);
    }
  }
}

/// Tap k's offsets of kLanes points, `outside` (the first offset past the plane, an int32 in the
/// lanes path) where the tap falls outside the input.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE MaskLanes offsets_or_outside(const BilinearTapLanes<kFault>& t, int k,
                                                    int64_t outside) {
  return t.inside[k] ? t.offset[k] : MaskLanes{} + static_cast<int32_t>(outside);
}

/// Tap k's record offsets of kLanes points: its offsets, or trash_slot where it falls outside (an
/// int32 in the lanes path: the caller checked that the trash slots fit).
template <Fault kFault>
GRADCONF_ALWAYS_INLINE MaskLanes offsets_or_trash(const BilinearTapLanes<kFault>& t, int k,
                                                  int taps, int64_t pixels) {
  MaskLanes trash;
  for (int j = 0; j < kLanes; ++j) trash[j] = static_cast<int32_t>(trash_slot(pixels, k, j, taps));
  return t.inside[k] ? t.offset[k] : trash;
}

/// The bilinear scatter records of kLanes points in lanes (lane_point_taps' values): each tap's
/// record offsets (offsets_or_trash) and double weights selected in lanes, then transposed to one
/// record per point.
template <Fault kFault, typename Taps>
GRADCONF_ALWAYS_INLINE void bilinear_records_in_lanes(const BilinearTapLanes<kFault>& t,
                                                      const MaskLanes (&offsets)[4],
                                                      Taps (&scatter)[kLanes]) {
  static_assert(Taps::kCount == 4 && kLanes == 8);
  typedef int32_t Int4 __attribute__((vector_size(4 * sizeof(int32_t))));
  typedef int64_t Long4 __attribute__((vector_size(4 * sizeof(int64_t))));
  // Offsets: tap k's lanes as the rows of a 4 x 8 block, transposed to a row of 4 per point.
  LaneVector<float> offset_rows[4];
  for (int k = 0; k < 4; ++k) std::memcpy(&offset_rows[k], &offsets[k], sizeof offsets[k]);
  LaneVector<float, 4> offset_columns[kLanes];
  transpose_4x8(offset_rows, offset_columns);
  // Weights: per half of the lanes, a 4 x 4 block of (tap, point) doubles, transposed.
  Double4 weight[2][4];
  for (int k = 0; k < 4; ++k) {
    double w[kLanes];
    t.double_weight(k, w);
    for (int h = 0; h < 2; ++h) {
      Int4 inside;
      std::memcpy(&inside, reinterpret_cast<const int32_t*>(&t.inside[k]) + 4 * h, sizeof inside);
      const Long4 mask = __builtin_convertvector(inside, Long4);
      weight[h][k] = mask != 0 ? load_double4(w + 4 * h) : Double4{};
    }
  }
  for (int h = 0; h < 2; ++h) {
    const Double4(&rows)[4] = weight[h];
    const Double4 low01 = __builtin_shufflevector(rows[0], rows[1], 0, 4, 2, 6);
    const Double4 high01 = __builtin_shufflevector(rows[0], rows[1], 1, 5, 3, 7);
    const Double4 low23 = __builtin_shufflevector(rows[2], rows[3], 0, 4, 2, 6);
    const Double4 high23 = __builtin_shufflevector(rows[2], rows[3], 1, 5, 3, 7);
    const Double4 columns[4] = {__builtin_shufflevector(low01, low23, 0, 1, 4, 5),
                                __builtin_shufflevector(high01, high23, 0, 1, 4, 5),
                                __builtin_shufflevector(low01, low23, 2, 3, 6, 7),
                                __builtin_shufflevector(high01, high23, 2, 3, 6, 7)};
    for (int i = 0; i < 4; ++i) {
      Int4 offsets;
      std::memcpy(&offsets, &offset_columns[4 * h + i], sizeof offsets);
      const Long4 wide = __builtin_convertvector(offsets, Long4);
      std::memcpy(scatter[4 * h + i].offset, &wide, sizeof wide);
      std::memcpy(scatter[4 * h + i].weight, &columns[i], sizeof columns[i]);
    }
  }
}

/// Where each dword of kLanes fraction records laid out as in memory (record j at dwords
/// [6j, 6j + 6): its 4 offsets, tx, ty; BilinearFractionTaps) comes from, per 16-dword part p of
/// those 3 lines: `pair` indexes the offsets' lanes as two 16-dword sources (taps 0 and 1, then 2
/// and 3), `fraction` the tx and ty lanes (one source) where `fraction_dwords` has the dword's
/// bit; `record_bit` is 1 << the dword's record.
struct FractionLineIndices {
  alignas(64) int32_t pair[3][16] = {};
  alignas(64) int32_t fraction[3][16] = {};
  alignas(64) int32_t record_bit[3][16] = {};
  uint16_t fraction_dwords[3] = {};
  /// Per mask of records kept (bit j: record j): the dwords kept in each part, then the records.
  uint8_t kept[256][4] = {};
};
constexpr FractionLineIndices fraction_line_indices() {
  static_assert(sizeof(BilinearFractionTaps) == 6 * sizeof(int32_t) && kLanes == 8);
  FractionLineIndices t;
  for (int p = 0; p < 3; ++p) {
    for (int d = 0; d < 16; ++d) {
      const int record = (16 * p + d) / 6, field = (16 * p + d) % 6;
      t.record_bit[p][d] = 1 << record;
      if (field < 4) {
        t.pair[p][d] = (field >= 2 ? 16 : 0) + field % 2 * kLanes + record;
      } else {
        t.fraction[p][d] = (field - 4) * kLanes + record;
        t.fraction_dwords[p] = static_cast<uint16_t>(t.fraction_dwords[p] | 1u << d);
      }
    }
  }
  for (int mask = 0; mask < 256; ++mask) {
    for (int j = 0; j < kLanes; ++j) {
      if (!(mask >> j & 1)) continue;
      for (int d = 6 * j; d < 6 * j + 6; ++d) ++t.kept[mask][d / 16];
      ++t.kept[mask][3];
    }
  }
  return t;
}
inline constexpr FractionLineIndices kFractionLines = fraction_line_indices();

/// kLanes points' fraction records (`offsets`: offsets_or_trash per tap; `tx`, `ty`) as they lie
/// in memory, the 3 cache lines at `lines` (64-byte aligned), formed in registers. Built a field
/// at a time on the stack, every later 16-byte load of a record waited for the narrow stores under
/// it (store forwarding fails): in the point pass's stores and in its filing under pixel ranges.
/// Compiled for AVX-512, so it is inlined into on_widest_isa's AVX-512 path only; a kernel calls
/// it only when kernel_isa() is kAvx512.
GRADCONF_TARGET_AVX512 inline void fraction_record_lines_avx512(const MaskLanes (&offsets)[4],
                                                                const FloatLanes& tx,
                                                                const FloatLanes& ty,
                                                                int32_t* lines) {
#if defined(__x86_64__) && defined(__GNUC__)
  // Two lane vectors as the halves of one, concatenated as vector extensions (GCC 12 warns on
  // _mm512_castsi256_si512's undefined upper half).
  typedef int32_t Int16 __attribute__((vector_size(16 * sizeof(int32_t))));
  MaskLanes lanes[6] = {offsets[0], offsets[1], offsets[2], offsets[3]};
  std::memcpy(&lanes[4], &tx, sizeof tx);
  std::memcpy(&lanes[5], &ty, sizeof ty);
  __m512i sources[3];
  for (int i = 0; i < 3; ++i) {
    const Int16 both = __builtin_shufflevector(lanes[2 * i], lanes[2 * i + 1], 0, 1, 2, 3, 4, 5, 6,
                                               7, 8, 9, 10, 11, 12, 13, 14, 15);
    std::memcpy(&sources[i], &both, sizeof both);
  }
  const __m512i taps01 = sources[0], taps23 = sources[1], fractions = sources[2];
  for (int p = 0; p < 3; ++p) {
    const __m512i pair = _mm512_load_si512(kFractionLines.pair[p]);
    const __m512i fraction = _mm512_load_si512(kFractionLines.fraction[p]);
    const __m512i part =
        _mm512_mask_permutexvar_epi32(_mm512_permutex2var_epi32(taps01, pair, taps23),
                                      kFractionLines.fraction_dwords[p], fraction, fractions);
    _mm512_store_si512(lines + 16 * p, part);
  }
#else
  for (int j = 0; j < kLanes; ++j) {
    for (int k = 0; k < 4; ++k) lines[6 * j + k] = offsets[k][j];
    std::memcpy(&lines[6 * j + 4], &tx[j], sizeof(float));
    std::memcpy(&lines[6 * j + 5], &ty[j], sizeof(float));
  }
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
/// The indices `first + j` of the points whose bit j of `reached` is set, in point order, at
/// points[0..): compressed in registers and stored whole (64 bytes; the stages have room). The
/// points' half of both stage functions below.
GRADCONF_TARGET_AVX512 inline void stage_reached_points_avx512(int64_t first, unsigned reached,
                                                               int64_t* points) {
  const __m512i indices =
      _mm512_add_epi64(_mm512_set1_epi64(first), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
  _mm512_storeu_si512(points, _mm512_maskz_compress_epi64(static_cast<__mmask8>(reached), indices));
}
#endif

/// Appends the records of `lines` (fraction_record_lines_avx512) whose bit of `reached` is set,
/// in record order, at record `staged` of `records`, and their points `first + j` at
/// points[staged..): a compress in registers and a whole-vector store per line, so a store may
/// write up to 64 bytes past what it appends (staged < kLanes; `records` and `points` have room
/// for 2 kLanes). Returns staged plus the records appended. AVX-512 only, as above.
GRADCONF_TARGET_AVX512 inline int stage_fraction_records_avx512(const int32_t* lines,
                                                                unsigned reached, int64_t first,
                                                                BilinearFractionTaps* records,
                                                                int64_t* points, int staged) {
#if defined(__x86_64__) && defined(__GNUC__)
  const __m512i bits = _mm512_set1_epi32(static_cast<int>(reached));
  auto* dwords = reinterpret_cast<int32_t*>(records + staged);
  for (int p = 0; p < 3; ++p) {
    const __mmask16 keep =
        _mm512_test_epi32_mask(bits, _mm512_load_si512(kFractionLines.record_bit[p]));
    _mm512_storeu_si512(dwords,
                        _mm512_maskz_compress_epi32(keep, _mm512_load_si512(lines + 16 * p)));
    dwords += kFractionLines.kept[reached][p];
  }
  stage_reached_points_avx512(first, reached, points + staged);
  return staged + kFractionLines.kept[reached][3];
#else
  for (int j = 0; j < kLanes; ++j) {
    if (!(reached >> j & 1u)) continue;
    std::memcpy(&records[staged], lines + 6 * j, sizeof(BilinearFractionTaps));
    points[staged++] = first + j;
  }
  return staged;
#endif
}

/// Appends the nearest records of kLanes points located in lanes (their pixel offsets, widened)
/// whose bit of `reached` is set, in point order, at record `staged` of `records`, and their
/// points `first + j` at points[staged..): compressed in registers and stored whole, as
/// stage_fraction_records_avx512 does (staged < kLanes; room for 2 kLanes). Returns staged plus
/// the records appended. AVX-512 only, as above.
GRADCONF_TARGET_AVX512 inline int stage_nearest_records_avx512(const MaskLanes& offsets,
                                                               unsigned reached, int64_t first,
                                                               NearestScatterTaps* records,
                                                               int64_t* points, int staged) {
  static_assert(sizeof(NearestScatterTaps) == sizeof(int64_t));
#if defined(__x86_64__) && defined(__GNUC__)
  // Widened as a vector extension: GCC 12 warns on _mm512_cvtepi32_epi64's undefined source.
  typedef int64_t Long8 __attribute__((vector_size(kLanes * sizeof(int64_t))));
  const Long8 wide = __builtin_convertvector(offsets, Long8);
  __m512i widened;
  std::memcpy(&widened, &wide, sizeof widened);
  _mm512_storeu_si512(records + staged,
                      _mm512_maskz_compress_epi64(static_cast<__mmask8>(reached), widened));
  stage_reached_points_avx512(first, reached, points + staged);
  return staged + __builtin_popcount(reached);
#else
  for (int j = 0; j < kLanes; ++j) {
    if (!(reached >> j & 1u)) continue;
    records[staged].offset[0] = offsets[j];
    points[staged++] = first + j;
  }
  return staged;
#endif
}

/// point_taps for kLanes points located in lanes (bilinear and nearest; pixel offsets and trash
/// slots in int32 lanes, which the caller checked): the same taps, offsets and weights, point by
/// point. Tap k's offsets also stay in lanes, `offsets[k]`, the first offset past the plane for
/// taps outside (for filing: PixelRange::reached_by, and the zero row: input_copy_rows). Given
/// `record_lines` (fraction records on the AVX-512 path), the records go there as their cache
/// lines (fraction_record_lines_avx512) and `scatter` is left unwritten.
template <Fault kFault, typename Taps>
GRADCONF_ALWAYS_INLINE void lane_point_taps(const SourceLanes& s, const SamplerLayout& l,
                                            Taps (&scatter)[kLanes], MaskLanes (&offsets)[4],
                                            CoordinateTaps (*coordinate)[kLanes],
                                            int32_t* record_lines = nullptr) {
  using PlaneAcc = std::conditional_t<kFault == Fault::kDoubleComputedInFloat, float, double>;
  const int64_t outside = l.pixels();  // every tap is written below: inside, or here
  constexpr Interpolation kInterpolation =
      Taps::kCount == 1 ? Interpolation::kNearest : Interpolation::kBilinear;
  const BilinearTapLanes<kFault> t(s, l.in_h, l.in_w, kInterpolation, static_cast<int32_t>(l.in_w),
                                   1);
  // Selects, not branches: whether a tap falls inside is data (grids reach past the input), and
  // a mispredicted branch per tap was a quarter of the nearest point pass.
  MaskLanes records[4];
  for (int k = 0; k < Taps::kCount; ++k) {
    offsets[k] = offsets_or_outside(t, k, outside);
    records[k] = offsets_or_trash(t, k, Taps::kCount, outside);
  }
  if constexpr (Taps::kCount == 1) {
    for (int j = 0; j < kLanes; ++j) scatter[j].offset[0] = records[0][j];
  } else {
    if constexpr (std::is_same_v<Taps, BilinearFractionTaps>) {
      if (record_lines) {
        fraction_record_lines_avx512(records, s.tx, s.ty, record_lines);
      } else {
        for (int k = 0; k < 4; ++k)
          for (int j = 0; j < kLanes; ++j) scatter[j].offset[k] = records[k][j];
        for (int j = 0; j < kLanes; ++j) scatter[j].tx = s.tx[j], scatter[j].ty = s.ty[j];
      }
    } else if (kFault == Fault::kNone) {
      bilinear_records_in_lanes(t, records, scatter);
    } else {
      double weight[4][kLanes];
      for (int k = 0; k < 4; ++k) t.double_weight(k, weight[k]);
      if (planted<kFault>(Fault::kBackwardSwapsTapWeights)) std::swap(weight[1], weight[2]);
      for (int j = 0; j < kLanes; ++j) {
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
          scatter[j].offset[k] = records[k][j];
          scatter[j].weight[k] = t.inside[k][j] != 0 ? static_cast<PlaneAcc>(weight[k][j]) : 0;
        }
      }
    }
    if (coordinate) {
      for (int j = 0; j < kLanes; ++j) {
        const double tx = s.tx[j], ty = s.ty[j];
        const double dwx[4] = {-(1 - ty), 1 - ty, -ty, ty};
        const double dwy[4] = {-(1 - tx), -tx, 1 - tx, tx};
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k)
          (*coordinate)[j].add_if(t.inside[k][j] != 0, t.offset[k][j], dwx[k], dwy[k]);
      }
    }
  }
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_SCATTER_RECORDS_H_
