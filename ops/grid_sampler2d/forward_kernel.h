// NOTE [GridSampler2D forward kernel]
// One task per grid point (n, h, w): the point is located once (coords.h, in the coordinate
// type), then every channel c samples input(n, c, ., .) at it (4 taps bilinear, 1 nearest, 16
// bicubic) and writes out(n, c, h, w). Each output element has one writer, so any thread count
// gives the same bits. All tensors are read through their views. Four forms: below DOUBLE,
// bicubic and bilinear with more than 4 channels (for float, more than 64 or where each worker
// copies its own batches or channel groups: workspace.h, forward_workspace) read a channels-last
// copy of the input, kLanes channels per vector operation (bilinear: bilinear_from_copy.h, which
// also reads 3 or 4 channels in rows of four where points are many: narrow_copy_pays); nearest
// below DOUBLE copies one channel plane at a time for a chunk of points located in lanes
// (nearest_forward.h); the other bilinear calls below DOUBLE locate kLanes points at once
// (source_lanes.h) and read the planes directly (on the AVX-512 path a float tap row's two
// neighbours with one gather of 8-byte elements); the rest (DOUBLE, and planes whose offsets pass
// int32) go point by point. All give the same bits.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_FORWARD_KERNEL_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_FORWARD_KERNEL_H_

#include <algorithm>
#include <climits>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "core/dtype.h"
#include "core/isa.h"
#include "core/parallel.h"
#include "core/view.h"
#include "grid_sampler2d/bilinear_from_copy.h"
#include "grid_sampler2d/channels_last.h"
#include "grid_sampler2d/coords.h"
#include "grid_sampler2d/kernels.h"
#include "grid_sampler2d/nearest_forward.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/source_lanes.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// The direct kernels' walk over output points [lo, hi): blocks of up to kBlock points of one
/// batch, `locate(next, count)` locating a block's points (and advancing `next` past them), then
/// `gather(in_plane, out_plane)` writing one channel of the block's outputs: the writes walk one
/// output plane instead of striding across all C planes per point.
inline constexpr int64_t kBlockPoints = 32;
template <int64_t kBlock = kBlockPoints, typename T, typename Locate, typename Gather>
GRADCONF_ALWAYS_INLINE void for_point_blocks(int64_t lo, int64_t hi,
                                             const StridedView<const T, 4>& input,
                                             const StridedView<T, 4>& out, Locate&& locate,
                                             Gather&& gather) {
  const int64_t out_h = out.dims[2], out_w = out.dims[3], points = out_h * out_w;
  PointIndex next(lo, out_h, out_w);
  for (int64_t start = lo; start < hi;) {
    const int64_t n = next.n;
    const int64_t end = std::min({hi, start + kBlock, (n + 1) * points});
    locate(next, static_cast<int>(end - start));
    // Pointers are formed for real channels only (a size-1 dim may have any stride).
    const T* in_batch = &input(n, 0, 0, 0);
    T* out_batch = &out(n, 0, 0, 0);
    for (int64_t c = 0; c < input.dims[1]; ++c)
      gather(in_batch + c * input.strides[1], out_batch + c * out.strides[1]);
    start = end;
  }
}

/// The four bilinear taps of a located point with their weights, in the fixed order
/// (y0,x0) (y0,x1) (y1,x0) (y1,x1). Out-of-bounds taps are flagged, never read.
template <typename Acc, Fault kFault>
struct BilinearTaps {
  int64_t y[4], x[4];
  Acc weight[4];
  bool inside[4];

  BilinearTaps() = default;
  BilinearTaps(const SourcePoint& p, int64_t h, int64_t w) {
    // Weights in double, as the reference defines them, rounded once: an offset within 2^-25 of
    // 1 rounded to float first would make 1 - tx exactly 0 and drop a tap (an inf or NaN pixel
    // under a tiny weight must still reach the output).
    const int64_t last_column = planted<kFault>(Fault::kOffByOneTap) ? w - 1 : w;
    // Unrolled so the four taps live in registers (at -O2 GCC keeps a rolled loop in memory).
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const int dy = k >> 1, dx = k & 1;
      y[k] = p.y0 + dy;
      x[k] = p.x0 + dx;
      weight[k] = static_cast<Acc>(bilinear_weight(p.tx, p.ty, k));
      inside[k] = in_bounds(y[k], x[k], h, last_column);
    }
    if (planted<kFault>(Fault::kWrongBilinearWeight)) weight[3] = static_cast<Acc>(p.tx * p.tx);
  }

  /// Offsets of the taps inside a plane with these row and column strides (0 for taps outside,
  /// which are never read).
  void plane_offsets(int64_t row_stride, int64_t column_stride, int64_t (&offset)[4]) const {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k)
      offset[k] = inside[k] ? y[k] * row_stride + x[k] * column_stride : 0;
  }
};

/// A bicubic point's 4 x 4 taps as offsets inside a plane, separably: tap (j, i) reads
/// row_offset[j] + column_offset[i] when both axes are inside, with weight wy[j] * wx[i].
template <typename Acc>
struct BicubicTaps {
  int64_t row_offset[4] = {}, column_offset[4] = {};
  /// The rows and columns inside, in order: sample() walks only them, without a test per tap.
  int rows_inside[4] = {}, columns_inside[4] = {};
  int row_count = 0, column_count = 0;
  Acc wx[4] = {}, wy[4] = {};

  BicubicTaps() = default;
  BicubicTaps(const CubicAxis& x, const CubicAxis& y, int64_t row_stride, int64_t column_stride) {
    for (int k = 0; k < 4; ++k) {
      column_offset[k] = x.index[k] * column_stride;
      row_offset[k] = y.index[k] * row_stride;
      if (x.inside[k]) columns_inside[column_count++] = k;
      if (y.inside[k]) rows_inside[row_count++] = k;
      wx[k] = static_cast<Acc>(x.weight[k]);
      wy[k] = static_cast<Acc>(y.weight[k]);
    }
  }

  /// PyTorch's order: each row interpolated along x, then the rows along y. Every tap inside is
  /// read whatever its weight, so an inf or NaN pixel under a zero weight still shows (0 * inf).
  template <typename T>
  Acc sample(const T* plane) const {
    Acc value = 0;
    for (int jj = 0; jj < row_count; ++jj) {
      const int j = rows_inside[jj];
      Acc row = 0;
      for (int ii = 0; ii < column_count; ++ii) {
        const int i = columns_inside[ii];
        row += wx[i] * static_cast<Acc>(plane[row_offset[j] + column_offset[i]]);
      }
      value += wy[j] * row;
    }
    return value;
  }
};

/// A located bicubic point's taps along x and along y, padded in T's coordinate type.
struct CubicAxes {
  CubicAxis x, y;
};

template <typename T, Fault kFault>
CubicAxes cubic_axes(const SourcePoint& p, int64_t in_h, int64_t in_w, const Attributes& a) {
  using Coord = compute_t<T>;
  return {cubic_axis<Coord, kFault>(p.floor_x, p.tx, in_w, a.padding, a.align_corners),
          cubic_axis<Coord, kFault>(p.floor_y, p.ty, in_h, a.padding, a.align_corners)};
}

/// The bicubic taps of a located point (none inside for an unaddressable one).
template <typename T, typename Acc, Fault kFault>
BicubicTaps<Acc> bicubic_taps(const SourcePoint& p, int64_t in_h, int64_t in_w, const Attributes& a,
                              int64_t row_stride, int64_t column_stride) {
  if (!p.addressable) return BicubicTaps<Acc>{};
  const CubicAxes axes = cubic_axes<T, kFault>(p, in_h, in_w, a);
  return BicubicTaps<Acc>(axes.x, axes.y, row_stride, column_stride);
}

/// Bicubic forward: the direct kernels' walk (for_point_blocks) with 16 taps per point.
template <typename T, typename Acc, Fault kFault>
void bicubic_forward_kernel(const ForwardPlan& plan) {
  const auto input = view_of<const T, 4>(plan.input);
  const auto grid = view_of<const T, 4>(plan.grid);
  const auto out = view_of<T, 4>(plan.out);
  const int64_t channels = input.dims[1], in_h = input.dims[2], in_w = input.dims[3];
  const int64_t out_w = grid.dims[2], points = grid.dims[1] * out_w;
  const Attributes& a = plan.attrs;
  const int64_t grain = std::max<int64_t>(1, 1024 / std::max<int64_t>(1, channels));
  parallel_for(0, input.dims[0] * points, grain, [&](int64_t lo, int64_t hi) {
    on_widest_isa<kFault == Fault::kNone>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      int64_t out_offset[kBlockPoints];
      BicubicTaps<Acc> taps[kBlockPoints];
      int count = 0;
      const auto locate = [&](PointIndex& next, int points_in_block) GRADCONF_ALWAYS_INLINE_LAMBDA {
        count = points_in_block;
        for (int j = 0; j < count; ++j, next.next()) {
          const int64_t n = next.n, h = next.h, w = next.w;
          const SourcePoint p =
              locate_source<kFault>(static_cast<compute_t<T>>(grid(n, h, w, 0)),
                                    static_cast<compute_t<T>>(grid(n, h, w, 1)), in_h, in_w,
                                    a.interpolation, a.padding, a.align_corners);
          out_offset[j] = h * out.strides[2] + w * out.strides[3];
          taps[j] =
              bicubic_taps<T, Acc, kFault>(p, in_h, in_w, a, input.strides[2], input.strides[3]);
        }
      };
      const auto gather = [&](const T* in_plane, T* out_plane) GRADCONF_ALWAYS_INLINE_LAMBDA {
        for (int j = 0; j < count; ++j)
          out_plane[out_offset[j]] = static_cast<T>(taps[j].sample(in_plane));
      };
      for_point_blocks(lo, hi, input, out, locate, gather);
    });
  });
}

/// Bilinear and bicubic on the channels-last float copy of the input in `workspace` (its rows, then
/// a row of zeros): points a tile of two groups of kLanes at a time, each tap adding kLanes
/// channels per vector operation in the scalar kernels' order (so the same bits), the tile's rows
/// transposed back into the output planes. Two groups make a tile: each output plane then gets a
/// whole cache line at once (with one group, planes a multiple of 4 KiB apart evicted each other's
/// half-written lines between groups: 256 planes, all in one L1 set and 8 L2 sets). Bilinear
/// located in lanes is bilinear_from_copy's. Where the workers divide (batch, channel
/// group) items evenly (private_channel_groups), each copies and samples its items alone: N 1, C
/// 256, 64 x 64 at 2 threads 0.90-0.94 -> 0.77-0.82 ms (the shared copy's second half came from
/// the other core); else the copy is shared and the points split.
template <typename T, Fault kFault>
void channels_last_forward(const ForwardPlan& plan, float* pixels) {
  const auto input = view_of<const T, 4>(plan.input);
  const auto grid = view_of<const T, 4>(plan.grid);
  const auto out = view_of<T, 4>(plan.out);
  const int64_t batches = input.dims[0], channels = input.dims[1];
  const int64_t in_h = input.dims[2], in_w = input.dims[3];
  const int64_t out_h = grid.dims[1], out_w = grid.dims[2];
  const Attributes& a = plan.attrs;
  const SamplerLayout layout(plan.input, plan.grid);
  const int64_t row = forward_copy_row(layout, a.interpolation), plane = in_h * in_w * row;
  const bool bicubic = a.interpolation == Interpolation::kBicubic;
  const bool in_lanes = locates_in_lanes(a.interpolation) && in_h * in_w <= INT_MAX;
  const int64_t per_batch = out_h * out_w, points = batches * per_batch;
  const int64_t grain = channels_last_grain(layout, a.interpolation);
  const int parts = channels_last_parts(layout, a.interpolation);
  constexpr int kGroups = 2;
  constexpr int64_t kTile = kGroups * kLanes;
  float* zero_row = pixels + batches * plane;
  std::fill_n(zero_row, row, 0.0f);
  // Samples points [lo, hi) into output channels c0 + [0, copied) from a copy whose batch n
  // starts at copy + n * batch_stride, in rows of copy_row: bilinear located in lanes by
  // bilinear_from_copy, bicubic (and bilinear on planes past int32 offsets) here.
  const auto sample_points = [&](int64_t lo, int64_t hi, const float* copy, int64_t batch_stride,
                                 int64_t copy_row, int64_t c0, int64_t copied) {
    on_widest_isa<kFault == Fault::kNone>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      if (in_lanes) {
        bilinear_from_copy<T, kFault>({copy, batch_stride, copy_row, c0, copied, zero_row}, grid,
                                      out, lo, hi, in_h, in_w, a, parts > 1);
        return;
      }
      PointIndex next(lo, out_h, out_w);
      // Written for a group's points before they are read: declared once, not cleared per
      // group (clearing them was 13% of a C 32 bilinear profile).
      const float* tap_row[kGroups][4][kLanes];  // bilinear: each tap's row, null outside
      float tap_weight[kGroups][4][kLanes];
      BicubicTaps<float> cubic[kGroups][kLanes];
      PointIndex at[kGroups][kLanes];
      int count[kGroups] = {};
      // Locates group g's `count[g]` points from `next`.
      const auto locate_group = [&](int g) GRADCONF_ALWAYS_INLINE_LAMBDA {
        for (PointIndex& p : at[g]) p = next;
        FloatLanes x, y;
        next_points(next, count[g], grid, at[g], x, y);
        for (int p = 0; p < count[g]; ++p) {
          const SourcePoint s = locate_source<kFault>(x[p], y[p], in_h, in_w, a.interpolation,
                                                      a.padding, a.align_corners);
          const float* batch = copy + at[g][p].n * batch_stride;
          if (bicubic) {
            cubic[g][p] =
                bicubic_taps<T, float, kFault>(s, in_h, in_w, a, in_w * copy_row, copy_row);
            continue;
          }
          const BilinearTaps<float, kFault> t(s, in_h, in_w);
          for (int k = 0; k < 4; ++k) {
            tap_weight[g][k][p] = t.weight[k];
            tap_row[g][k][p] = s.addressable && t.inside[k]
                                   ? batch + (t.y[k] * in_w + t.x[k]) * copy_row
                                   : nullptr;
          }
        }
      };
      // One point's kLanes channels from c, in the scalar kernels' order.
      const auto sample = [&](int g, int p, int64_t c) GRADCONF_ALWAYS_INLINE_LAMBDA {
        LaneVector<float> value{};
        if (bicubic) {
          const BicubicTaps<float>& t = cubic[g][p];
          for (int jj = 0; jj < t.row_count; ++jj) {
            const int j = t.rows_inside[jj];
            LaneVector<float> line{};
            for (int ii = 0; ii < t.column_count; ++ii) {
              const int i = t.columns_inside[ii];
              line += t.wx[i] * load_lanes<float>(copy + at[g][p].n * batch_stride +
                                                      t.row_offset[j] + t.column_offset[i] + c,
                                                  1);
            }
            value += t.wy[j] * line;
          }
          return value;
        }
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
          if (tap_row[g][k][p])
            value += tap_weight[g][k][p] * load_lanes<float>(tap_row[g][k][p] + c, 1);
        }
        return value;
      };
      for (int64_t i0 = lo; i0 < hi; i0 += kTile) {
        const int64_t in_tile = std::min<int64_t>(kTile, hi - i0);
        const int groups = static_cast<int>((in_tile + kLanes - 1) / kLanes);
        for (int g = 0; g < groups; ++g) {
          count[g] = static_cast<int>(std::min<int64_t>(kLanes, in_tile - g * kLanes));
          locate_group(g);
        }
        // The tile's points are consecutive: one output row, or scattered past its end.
        const bool one_row = in_tile == kTile && at[0][0].w + kTile <= out_w;
        // Each point samples a span of channels before the next point does: its taps' rows
        // are then read in order (a row of many channels spans many cache lines, which the
        // hardware fetches ahead), not one line of each of 32 rows in turn.
        constexpr int64_t kSpan = 32 * kLanes;
        LaneVector<float> sampled[kGroups][kLanes][kSpan / kLanes];
        for (int64_t c = 0; c < copied; c += kLanes) {
          const int64_t in_span = c % kSpan / kLanes;
          if (in_span == 0) {
            const int64_t end = std::min(copied, c + kSpan);
            for (int g = 0; g < groups; ++g) {
              for (int p = 0; p < count[g]; ++p) {
                for (int64_t cc = c; cc < end; cc += kLanes)
                  sampled[g][p][(cc - c) / kLanes] = sample(g, p, cc);
              }
            }
          }
          LaneVector<float> tile[kGroups][kLanes];
          for (int g = 0; g < groups; ++g) {
            for (int p = 0; p < kLanes; ++p)
              tile[g][p] = p < count[g] ? sampled[g][p][in_span] : LaneVector<float>{};
            transpose_lanes(tile[g]);
          }
          const int lanes = static_cast<int>(std::min<int64_t>(kLanes, copied - c));
          for (int j = 0; j < lanes; ++j) {
            if (one_row) {
              T* line = &out(at[0][0].n, c0 + c + j, at[0][0].h, at[0][0].w);
              for (int g = 0; g < kGroups; ++g)
                store_lanes<float>(line + g * kLanes * out.strides[3], out.strides[3], tile[g][j]);
              continue;
            }
            for (int g = 0; g < groups; ++g) {
              for (int p = 0; p < count[g]; ++p)
                out(at[g][p].n, c0 + c + j, at[g][p].h, at[g][p].w) = static_cast<T>(tile[g][j][p]);
            }
          }
        }
      }
    });
  };
  if (const auto split = private_channel_groups(batches, channels, parts)) {
    const int64_t per_group = split->channels_per_group, groups = split->groups;
    parallel_for(
        0, batches * groups, 1,
        [&](int64_t lo, int64_t hi) {
          for (int64_t item = lo; item < hi; ++item) {
            const int64_t n = item / groups, c0 = item % groups * per_group;
            const int64_t copied = std::min(per_group, channels - c0);
            // One group copies the whole row (rows of four at C <= kNarrowLanes).
            const int64_t copy_row = groups == 1 ? row : lane_padded(copied);
            auto source = input;
            source.origin = &input(n, c0, 0, 0);
            source.dims[0] = 1;
            source.dims[1] = copied;
            // The groups' rows of copy_row values add up to a batch's plane.
            float* copy = pixels + n * plane + c0 * in_h * in_w;
            to_channels_last(source, copy, copy_row, false);
            sample_points(n * per_batch, (n + 1) * per_batch, copy, 0, copy_row, c0, copied);
          }
        },
        parts);
    return;
  }
  // Rows of four stay cached even when shared: streamed, N 1, C 4, 256 x 256 at 2 threads took
  // 0.91-1.24 ms, cached 0.84-0.89 (AVX2, Zen 3; each worker's taps then come from either core's
  // cache instead of memory).
  to_channels_last(input, pixels, row, parts > 1 && row > kNarrowLanes);
  parallel_for(0, points, grain, [&](int64_t lo, int64_t hi) {
    sample_points(lo, hi, pixels, plane, row, 0, channels);
  });
}

/// Bilinear on float coordinates, straight from the input planes: kLanes points of one batch at
/// a time, located in lanes (source_lanes.h), then each channel gathers their taps and adds them
/// in the point kernel's order, in float as the point kernel does, a tap outside adding nothing.
/// Offsets inside a plane are int32 lanes (the caller checks that they fit).
template <typename T, Fault kFault>
void lanes_forward_kernel(const ForwardPlan& plan) {
  const auto input = view_of<const T, 4>(plan.input);
  const auto grid = view_of<const T, 4>(plan.grid);
  const auto out = view_of<T, 4>(plan.out);
  const int64_t channels = input.dims[1], in_h = input.dims[2], in_w = input.dims[3];
  const int64_t out_h = grid.dims[1], out_w = grid.dims[2], points = out_h * out_w;
  const Attributes& a = plan.attrs;
  const auto row_stride = static_cast<int32_t>(input.strides[2]);
  const auto column_stride = static_cast<int32_t>(input.strides[3]);
  const int64_t grain = std::max<int64_t>(kLanes, 4096 / std::max<int64_t>(1, channels));
  const bool gathers = kFault == Fault::kNone && kernel_isa() != Isa::kBaseline;
  const bool pairs =
      std::is_same_v<T, float> && gathers && kernel_isa() == Isa::kAvx512 && column_stride == 1;
  const bool packed = packed_row_major(grid) && planes_packed(out);
  parallel_for(0, input.dims[0] * points, grain, [&](int64_t lo, int64_t hi) {
    on_widest_isa<kFault == Fault::kNone>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      // 32 groups (256 points, 14 KB) a block: they stay in L1 beside the input plane being
      // gathered, and each plane is visited once per 256 points, not once per 32 (nearest, when
      // it took this kernel, N 4, C 32: 1.36x; C 256: 1.8x; bilinear measured the same at 64 to
      // 4,096 points: its paired gathers bound it).
      constexpr int kGroups = 32;
      struct Group {
        MaskLanes inside[4], offset[4];
        FloatLanes weight[4];
        int64_t out_offset[kLanes];
        int count;
        bool one_row;
        // Each tap row's two taps are both inside or both outside in every lane: with unit
        // column strides a row's pair is one 8-byte read (gathered_pairs_avx512).
        bool paired;
      };
      Group block[kGroups];
      int groups = 0;
      const auto locate = [&](PointIndex& next, int count) GRADCONF_ALWAYS_INLINE_LAMBDA {
        // A packed grid and output planes: a block's points are consecutive in both, so no
        // point's indices are formed lane by lane (N 1, C 4, 256 x 256 at 1 thread: 0.55 ->
        // 0.52 ms).
        const int64_t first = next.h * out_w + next.w;
        const T* block_grid = packed ? &grid(next.n, 0, 0, 0) + 2 * first : nullptr;
        if (packed) next = PointIndex(next.n * points + first + count, out_h, out_w);
        for (groups = 0; groups * kLanes < count; ++groups) {
          Group& g = block[groups];
          g.count = std::min(kLanes, count - groups * kLanes);
          FloatLanes x, y;
          if (packed) {
            packed_points(block_grid, groups * kLanes, g.count, x, y);
            for (int j = 0; j < kLanes; ++j) g.out_offset[j] = first + groups * kLanes + j;
            g.one_row = g.count == kLanes;
          } else {
            PointIndex at[kLanes] = {next, next, next, next, next, next, next, next};
            next_points(next, g.count, grid, at, x, y);
            for (int j = 0; j < kLanes; ++j)
              g.out_offset[j] = at[j].h * out.strides[2] + at[j].w * out.strides[3];
            g.one_row = g.count == kLanes && out.strides[3] == 1 &&
                        g.out_offset[kLanes - 1] == g.out_offset[0] + kLanes - 1;
          }
          const SourceLanes s =
              locate_lanes<kFault>(x, y, in_h, in_w, a.interpolation, a.padding, a.align_corners);
          const BilinearTapLanes<kFault> t(s, in_h, in_w, a.interpolation, row_stride,
                                           column_stride);
          for (int k = 0; k < 4; ++k) {
            g.inside[k] = t.inside[k];
            g.offset[k] = t.offset[k];
            g.weight[k] = t.float_weight(k);
          }
          g.paired =
              pairs && all_lanes((t.inside[0] == t.inside[1]) & (t.inside[2] == t.inside[3]));
        }
      };
      const auto gather = [&](const T* plane, T* out_plane) GRADCONF_ALWAYS_INLINE_LAMBDA {
        for (int gi = 0; gi < groups; ++gi) {
          const Group& g = block[gi];
          FloatLanes sum{};
          FloatLanes tap[4];
          if constexpr (std::is_same_v<T, float>) {
            if (g.paired) {
              gathered_pairs_avx512(plane, g.offset[0], g.inside[0], tap[0], tap[1]);
              gathered_pairs_avx512(plane, g.offset[2], g.inside[2], tap[2], tap[3]);
            }
          }
#pragma GCC unroll 4
          for (int k = 0; k < 4; ++k) {
            FloatLanes& v = tap[k];
            if constexpr (std::is_same_v<T, float>) {
              if (gathers && !g.paired) gathered_lanes_avx2(plane, g.offset[k], g.inside[k], v);
            }
            if (!std::is_same_v<T, float> || !gathers) {
              for (int j = 0; j < kLanes; ++j) v[j] = static_cast<float>(plane[g.offset[k][j]]);
            }
            sum += g.inside[k] ? g.weight[k] * v : FloatLanes{};
          }
          if (g.one_row) {
            store_lanes<float>(out_plane + g.out_offset[0], 1, sum);
            continue;
          }
          for (int j = 0; j < g.count; ++j) out_plane[g.out_offset[j]] = static_cast<T>(sum[j]);
        }
      };
      for_point_blocks<kGroups * kLanes>(lo, hi, input, out, locate, gather);
    });
  });
}

template <typename T, Fault kFault>
void forward_kernel(const ForwardPlan& plan, std::byte* workspace) {
  using Acc = std::conditional_t<kFault == Fault::kDoubleComputedInFloat, float, compute_t<T>>;
  const auto input = view_of<const T, 4>(plan.input);
  const auto grid = view_of<const T, 4>(plan.grid);
  const auto out = view_of<T, 4>(plan.out);
  const int64_t n_batch = input.dims[0], channels = input.dims[1];
  const int64_t in_h = input.dims[2], in_w = input.dims[3];
  const int64_t out_h = grid.dims[1], out_w = grid.dims[2];
  const int64_t points = out_h * out_w;
  const Attributes& a = plan.attrs;
  // Nothing to write; and empty tensors may have no storage to form pointers into.
  if (channels == 0 || n_batch * points == 0) return;
  if constexpr (std::is_same_v<Acc, float>) {
    if (plan.channels_last)
      return channels_last_forward<T, kFault>(plan, reinterpret_cast<float*>(workspace));
  }
  if (a.interpolation == Interpolation::kBicubic)
    return bicubic_forward_kernel<T, Acc, kFault>(plan);
  if constexpr (std::is_same_v<compute_t<T>, float>) {
    if (nearest_forward_by_planes<T>(plan)) return nearest_forward_planes<T, kFault>(plan);
    if (a.interpolation == Interpolation::kBilinear && plane_fits_lanes(input))
      return lanes_forward_kernel<T, kFault>(plan);
  }
  // ~4k channel samples per task keeps the pool busy without drowning small problems in overhead.
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, channels));
  const bool nearest = a.interpolation == Interpolation::kNearest;
  parallel_for(0, n_batch * points, grain, [&](int64_t lo, int64_t hi) {
    on_widest_isa<kFault == Fault::kNone>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      struct Located {
        int64_t out_offset;  // of (h, w) inside an output plane
        BilinearTaps<Acc, kFault>
            taps;               // none inside for an unaddressable point; nearest: [0] only
        int64_t tap_offset[4];  // of the taps inside an input plane
      };
      Located block[kBlockPoints];
      int count = 0;
      const auto locate = [&](PointIndex& next, int points_in_block) GRADCONF_ALWAYS_INLINE_LAMBDA {
        count = points_in_block;
        for (int j = 0; j < count; ++j, next.next()) {
          const int64_t n = next.n, h = next.h, w = next.w;
          Located& b = block[j];
          const SourcePoint p =
              locate_source<kFault>(static_cast<compute_t<T>>(grid(n, h, w, 0)),
                                    static_cast<compute_t<T>>(grid(n, h, w, 1)), in_h, in_w,
                                    a.interpolation, a.padding, a.align_corners);
          b.out_offset = h * out.strides[2] + w * out.strides[3];
          b.taps = BilinearTaps<Acc, kFault>(p, in_h, in_w);
          if (nearest) {
            // The nearest pixel is the (y0, x0) tap; the others are never read.
            b.taps.inside[0] = in_bounds(p.y0, p.x0, in_h, in_w);
            b.taps.inside[1] = b.taps.inside[2] = b.taps.inside[3] = false;
          }
          // An unaddressable point (NaN, +-inf, far outside) samples 0: no tap is read.
          if (!p.addressable) std::fill(std::begin(b.taps.inside), std::end(b.taps.inside), false);
          b.taps.plane_offsets(input.strides[2], input.strides[3], b.tap_offset);
        }
      };
      const auto gather = [&](const T* in_plane, T* out_plane) GRADCONF_ALWAYS_INLINE_LAMBDA {
        for (int j = 0; j < count; ++j) {
          const Located& b = block[j];
          T value = T(0);
          if (nearest) {
            if (b.taps.inside[0]) value = in_plane[b.tap_offset[0]];
          } else {
            Acc sum = 0;
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
              if (b.taps.inside[k])
                sum += b.taps.weight[k] * static_cast<Acc>(in_plane[b.tap_offset[k]]);
            }
            value = static_cast<T>(sum);
          }
          out_plane[b.out_offset] = value;
        }
      };
      for_point_blocks(lo, hi, input, out, locate, gather);
    });
  });
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_FORWARD_KERNEL_H_
