// The bilinear forward's sampler over a channels-last float copy of the input (channels_last.h):
// each point's four tap rows give kLanes channels per vector operation, and each kLanes x kLanes
// block of (points, channels) is transposed in registers into the output planes. Rows of four
// (C 3 or 4: workspace.h, narrow_copy_pays) go the other way round: a tap's rows of kLanes
// points are transposed into its four channels in lanes by point, then weighted and summed.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_BILINEAR_FROM_COPY_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_BILINEAR_FROM_COPY_H_

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>

#include "core/lanes.h"
#include "core/view.h"
#include "grid_sampler2d/channels_last.h"
#include "grid_sampler2d/coords.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/source_lanes.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// Where a sampler reads a channels-last copy: batch n's rows start at rows + n * batch_stride,
/// a pixel's row holds `row` floats, of which channels c0 + [0, channels) are the ones sampled;
/// `zero_row` holds `row` zeros (what a tap outside reads).
struct ChannelsLastSource {
  const float* rows = nullptr;
  int64_t batch_stride = 0, row = 0, c0 = 0, channels = 0;
  const float* zero_row = nullptr;
};

/// Bilinear points [lo, hi) of `out` from the copy, tiles of two groups of kLanes points located
/// in lanes. A tap outside reads the zero row with weight 0, which adds +0: the point kernel's
/// sum (0, then each tap inside in order) is never -0, so the bits are its bits. A tile whose 16
/// points lie in one packed output row writes each plane a whole cache line at once (planes a
/// multiple of 4 KiB apart share an L1 set, and half-written lines were evicted between groups).
/// `stream_out` (the call split across workers) streams those lines past the caches: with cached
/// stores one worker's output slowed the other's copy and taps 1.5-5x (N 2, C 32, 64 x 64 at 2
/// threads 0.118 -> 0.081 ms streamed); one worker alone measured 5% faster with cached stores.
/// Tap rows are Offset (int32_t where the whole copy fits: one multiply per lane, where int64_t
/// lanes took three on AVX2) from source.rows.
template <typename T, Fault kFault, typename Offset>
GRADCONF_ALWAYS_INLINE void bilinear_tiles(const ChannelsLastSource& source,
                                           const StridedView<const T, 4>& grid,
                                           const StridedView<T, 4>& out, int64_t lo, int64_t hi,
                                           int64_t in_h, int64_t in_w, const Attributes& a,
                                           bool stream_out) {
  constexpr int kGroups = 2;
  constexpr int64_t kTile = kGroups * kLanes;
  typedef Offset Offsets __attribute__((vector_size(kLanes * sizeof(Offset))));
  const int64_t out_h = grid.dims[1], out_w = grid.dims[2], per_batch = out_h * out_w;
  const int64_t channels = source.channels;
  const Offset row = static_cast<Offset>(source.row);
  const Offset zero_offset = static_cast<Offset>(source.zero_row - source.rows);
  PointIndex next(lo, out_h, out_w);
  // Each tap's row as an offset from source.rows, and its weight (0 outside), lane by point.
  Offset tap_row[kGroups][4][kLanes];
  float tap_weight[kGroups][4][kLanes];
  PointIndex first[kGroups];  // each group's first point; the others follow by PointIndex::next
  int count[kGroups] = {};
  for (int64_t i0 = lo; i0 < hi; i0 += kTile) {
    const int64_t in_tile = std::min<int64_t>(kTile, hi - i0);
    const int groups = static_cast<int>((in_tile + kLanes - 1) / kLanes);
    // A short tile's missing points read the zero row: every tile is sampled whole.
    for (int g = groups; g < kGroups; ++g) {
      std::fill_n(&tap_row[g][0][0], 4 * kLanes, zero_offset);
      std::fill_n(&tap_weight[g][0][0], 4 * kLanes, 0.0f);
    }
    for (int g = 0; g < groups; ++g) {
      count[g] = static_cast<int>(std::min<int64_t>(kLanes, in_tile - g * kLanes));
      const MaskLanes live = MaskLanes{0, 1, 2, 3, 4, 5, 6, 7} < count[g];
      FloatLanes x, y;
      first[g] = next;
      next_points(next, count[g], grid, nullptr, x, y);
      const SourceLanes s =
          locate_lanes<kFault>(x, y, in_h, in_w, a.interpolation, a.padding, a.align_corners);
      const BilinearTapLanes<kFault> t(s, in_h, in_w, a.interpolation, static_cast<int32_t>(in_w),
                                       1);
      Offsets batch = Offsets{} + static_cast<Offset>(first[g].n * source.batch_stride);
      if (first[g].h * out_w + first[g].w + count[g] > per_batch) {
        // The group crosses into the next batch.
        PointIndex q = first[g];
        for (int p = 0; p < kLanes; ++p) {
          batch[p] = static_cast<Offset>(q.n * source.batch_stride);
          if (p + 1 < count[g]) q.next();
        }
      }
      for (int k = 0; k < 4; ++k) {
        const MaskLanes read = t.inside[k] & live;
        const Offsets inside = __builtin_convertvector(read, Offsets);
        const Offsets offset = __builtin_convertvector(t.offset[k], Offsets) * row + batch;
        const Offsets chosen = (offset & inside) | (zero_offset & ~inside);
        const FloatLanes weight = select_lanes(read, t.float_weight(k), FloatLanes{});
        std::memcpy(tap_row[g][k], &chosen, sizeof chosen);
        std::memcpy(tap_weight[g][k], &weight, sizeof weight);
      }
    }
    const PointIndex& start = first[0];
    const bool one_row = in_tile == kTile && start.w + kTile <= out_w && out.strides[3] == 1;
    T* line = one_row ? &out(start.n, source.c0, start.h, start.w) : nullptr;
    // Stores channels c + [0, lanes) of the tile: block[g][j] holds channel c + j of group g's
    // points, lane by point.
    const auto store_block = [&](const LaneVector<float>(&block)[kGroups][kLanes], int64_t c,
                                 int lanes) GRADCONF_ALWAYS_INLINE_LAMBDA {
      for (int j = 0; j < lanes; ++j) {
        if (one_row) {
          T* plane_line = line + (c + j) * out.strides[1];
          if (stream_out && reinterpret_cast<uintptr_t>(plane_line) % 16 == 0) {
            for (int g = 0; g < kGroups; ++g)
              stream_lanes<float>(plane_line + g * kLanes, block[g][j]);
            continue;
          }
          for (int g = 0; g < kGroups; ++g)
            store_lanes<float>(plane_line + g * kLanes, 1, block[g][j]);
          continue;
        }
        for (int g = 0; g < groups; ++g) {
          PointIndex q = first[g];
          for (int p = 0; p < count[g]; ++p, q.next())
            out(q.n, source.c0 + c + j, q.h, q.w) = static_cast<T>(block[g][j][p]);
        }
      }
    };
    LaneVector<float> block[kGroups][kLanes];
    if (row == kNarrowLanes) {
      // Rows of four: each tap's rows of a group's points, transposed, are its channels in
      // lanes by point, weighted by the tap's weights as they are (no broadcast per point).
#pragma GCC unroll 2
      for (int g = 0; g < kGroups; ++g) {
        LaneVector<float> sum[kNarrowLanes] = {};
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
          LaneVector<float, kNarrowLanes> tap[kLanes];
#pragma GCC unroll 8
          for (int p = 0; p < kLanes; ++p)
            tap[p] = load_lanes<float, kNarrowLanes>(source.rows + tap_row[g][k][p], 1);
          LaneVector<float> tap_channel[kNarrowLanes];
          transpose_8x4(tap, tap_channel);
          LaneVector<float> weight;
          std::memcpy(&weight, tap_weight[g][k], sizeof weight);
#pragma GCC unroll 4
          for (int c = 0; c < kNarrowLanes; ++c) sum[c] += weight * tap_channel[c];
        }
        std::copy_n(sum, kNarrowLanes, block[g]);
      }
      store_block(block, 0, static_cast<int>(channels));
      continue;
    }
    for (int64_t c = 0; c < channels; c += kLanes) {
#pragma GCC unroll 2
      for (int g = 0; g < kGroups; ++g) {
#pragma GCC unroll 8
        for (int p = 0; p < kLanes; ++p) {
          LaneVector<float> value{};
#pragma GCC unroll 4
          for (int k = 0; k < 4; ++k)
            value += tap_weight[g][k][p] * load_lanes<float>(source.rows + tap_row[g][k][p] + c, 1);
          block[g][p] = value;
        }
      }
      transpose_lanes(block[0]);
      transpose_lanes(block[1]);
      store_block(block, c, static_cast<int>(std::min<int64_t>(kLanes, channels - c)));
    }
  }
  if (stream_out) stream_fence();
}

/// bilinear_tiles with int32 tap offsets where the copy (its last row the zero row) fits them.
template <typename T, Fault kFault>
GRADCONF_ALWAYS_INLINE void bilinear_from_copy(const ChannelsLastSource& source,
                                               const StridedView<const T, 4>& grid,
                                               const StridedView<T, 4>& out, int64_t lo, int64_t hi,
                                               int64_t in_h, int64_t in_w, const Attributes& a,
                                               bool stream_out) {
  if (source.zero_row - source.rows + source.row <= INT_MAX) {
    return bilinear_tiles<T, kFault, int32_t>(source, grid, out, lo, hi, in_h, in_w, a, stream_out);
  }
  bilinear_tiles<T, kFault, int64_t>(source, grid, out, lo, hi, in_h, in_w, a, stream_out);
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_BILINEAR_FROM_COPY_H_
