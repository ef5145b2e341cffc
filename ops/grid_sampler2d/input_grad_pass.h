// Pass 3 of the GridSampler2D backward (the NOTE in backward_kernel.h): inputGrad, scattered
// through the point pass's stored taps into per-worker double accumulators.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_INPUT_GRAD_PASS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_INPUT_GRAD_PASS_H_

#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "grid_sampler2d/channels_last.h"
#include "grid_sampler2d/faults.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {
/// One inputGrad task's accumulator: the pixels of a range of a plane, then kTrashSlots trash
/// slots where every other tap lands (the scatter then has no branch).
template <typename PlaneAcc, int W, typename Taps>
struct ScatterRange {
  LaneVector<PlaneAcc, W>* acc;
  PixelRange pixels;

  /// Point i's gradOutput channels g through its taps t. kWholePlane: the range is the plane, and
  /// each record's offset is its slot (a pixel, or a trash slot: trash_slot).
  template <bool kWholePlane = false>
  GRADCONF_ALWAYS_INLINE void add(const Taps& t, int64_t i,
                                  const LaneVector<PlaneAcc, W>& g) const {
    const auto slot = [&](int k) GRADCONF_ALWAYS_INLINE_LAMBDA -> int64_t {
      if constexpr (kWholePlane) return t.offset[k];
      return pixels.holds(t.offset[k])
                 ? t.offset[k] - pixels.first
                 : pixels.count + ((k + Taps::kCount * i) & (kTrashSlots - 1));
    };
    if constexpr (Taps::kCount == 1) {
      // Nearest: weight 1, and 1 * g == g exactly, NaN and inf included.
      acc[slot(0)] += g;
    } else {
#pragma GCC unroll 16
      for (int k = 0; k < Taps::kCount; ++k)
        acc[slot(k)] += static_cast<PlaneAcc>(tap_weight(t, k)) * g;
    }
  }
};

/// How far ahead (in points) a scatter asks for the tap records of kLanes points. The point pass
/// streamed them to memory; with the hardware prefetcher alone the scan of them ran at about
/// 4 GB/s (large spatial, C 4, where each extra pixel range cost about 1 ms at 1 thread).
inline constexpr int64_t kTapsAhead = 64;

/// Requests the records of points [i + kTapsAhead, + kLanes), or the last kLanes, into L1.
/// Bicubic's records (256 bytes) are not asked for: its scatter got about 5% slower.
template <typename Taps>
GRADCONF_ALWAYS_INLINE void prefetch_taps(const Taps* taps, int64_t i, int64_t points) {
  if constexpr (sizeof(Taps) > 64) return;
  const int64_t first = std::max<int64_t>(0, std::min(i + kTapsAhead, points - kLanes));
  const auto* at = reinterpret_cast<const char*>(taps + first);
  for (size_t b = 0; b < kLanes * sizeof(Taps); b += 64) __builtin_prefetch(at + b);
}

/// One inputGrad task: scatters gradOutput rows of one batch and channel block of W channels
/// (`grad`, row by row) through each point's taps, in point order, into `range` (the whole plane:
/// a plane split into ranges is scattered from record lists, scatter_lists).
template <typename PlaneAcc, int W, typename Taps, typename Val>
GRADCONF_ALWAYS_INLINE void scatter_block(const ScatterRange<PlaneAcc, W, Taps>& range,
                                          const Taps* taps, const Val* grad, int64_t row,
                                          int64_t points) {
  for (int64_t i = 0; i < points; ++i) {
    if (i % kLanes == 0) prefetch_taps(taps, i, points);
    range.template add<true>(taps[i], i, load_row<PlaneAcc, W>(grad + i * row));
  }
}

/// The channels-last rows of kLanes consecutive points of one plane: point j's channel c < W read
/// at grad[c * plane + j * step], zero from `channels` on, written to rows + j * row. The planes
/// are loaded kLanes points at a time and transposed in registers, so each row holds what a
/// channels-last copy would.
template <int W, typename T>
GRADCONF_ALWAYS_INLINE void transpose_point_rows(const T* grad, int64_t plane, int64_t step,
                                                 int64_t channels, float* rows, int64_t row) {
  LaneVector<float> tile[kLanes];
#pragma GCC unroll 8
  for (int c = 0; c < kLanes; ++c) {
    tile[c] =
        c < W && c < channels ? load_lanes<float>(grad + c * plane, step) : LaneVector<float>{};
  }
  if constexpr (W == kNarrowLanes) {
    LaneVector<float, 4> column[kLanes];
    transpose_4x8(reinterpret_cast<const LaneVector<float>(&)[4]>(tile), column);
    for (int j = 0; j < kLanes; ++j) std::memcpy(rows + j * row, &column[j], sizeof column[j]);
  } else {
    static_assert(W == kLanes);
    transpose_lanes(tile);
    for (int j = 0; j < kLanes; ++j) std::memcpy(rows + j * row, &tile[j], sizeof tile[j]);
  }
}

/// scatter_block reading gradOutput where it is (wants.grad_output_in_place): point i's channel
/// c at grad[c * plane + i * step], `channels` (at most W) of them. kLanes consecutive points are
/// loaded plane by plane and transposed in registers, so each point adds the values its
/// channels-last row would hold (zero past `channels`), in the same order: the same bits.
template <typename PlaneAcc, int W, typename Taps, typename T>
GRADCONF_ALWAYS_INLINE void scatter_block_from_planes(const ScatterRange<PlaneAcc, W, Taps>& range,
                                                      const Taps* taps, const T* grad,
                                                      int64_t plane, int64_t step, int channels,
                                                      int64_t points) {
  int64_t i = 0;
  for (; i + kLanes <= points; i += kLanes) {
    prefetch_taps(taps, i, points);
    alignas(32) float rows[kLanes][W];
    transpose_point_rows<W>(grad + i * step, plane, step, channels, &rows[0][0], W);
#pragma GCC unroll 8
    for (int j = 0; j < kLanes; ++j)
      range.template add<true>(taps[i + j], i + j, load_row<PlaneAcc, W>(rows[j]));
  }
  for (; i < points; ++i) {
    LaneVector<float> g = {};
    for (int c = 0; c < channels; ++c) g[c] = static_cast<float>(grad[c * plane + i * step]);
    range.template add<true>(taps[i], i, load_row<PlaneAcc, W>(reinterpret_cast<float*>(&g)));
  }
}

/// Writes input rows [y0, y1) of channels c0 .. c0 + W (those that exist) of batch n from the
/// accumulator, whose pixel 0 is (y0, 0). Below double, 8 pixels at a time are written as tiles
/// of (pixels, W channels) transposed in registers, through float: Eigen rounds double
/// to half and bfloat16 through float too, so the bits are the scalar cast's. Each pixel read is
/// cleared, so the worker's next task finds its accumulator zero (a separate clearing pass over
/// it was about 5% of the nearest backward). On the AVX-512 path (kRowLanes = kWideRowLanes) the
/// half types convert two tiles' planes as one vector: half the conversion's integer operations
/// per value (N 4, C 32, 64 x 64 at 1 thread: bf16 1.57-1.61 -> 1.52-1.55 ms, float16 1.83-1.88
/// -> 1.67-1.73).
template <typename T, typename PlaneAcc, int W, int kRowLanes = kLanes>
GRADCONF_ALWAYS_INLINE void write_block(const StridedView<T, 4>& input_grad,
                                        LaneVector<PlaneAcc, W>* acc, int64_t n, int64_t c0,
                                        int64_t y0, int64_t y1) {
  const int64_t width = input_grad.dims[3], xs = input_grad.strides[3];
  const int lanes = static_cast<int>(std::min<int64_t>(W, input_grad.dims[1] - c0));
  constexpr bool kTiles = !std::is_same_v<T, double>;
  T* planes[W];
  for (int j = 0; j < lanes; ++j) planes[j] = &input_grad(n, c0 + j, 0, 0);
  // The accumulator's pixels [x0, x0 + kLanes) of the current row as a tile of planes (tile[j]:
  // channel c0 + j of those pixels, in float), the pixels cleared.
  const auto take_tile = [&](int64_t x0,
                             LaneVector<float>(&tile)[kLanes]) GRADCONF_ALWAYS_INLINE_LAMBDA {
    if constexpr (W == kLanes) {
      for (int i = 0; i < kLanes; ++i) {
        tile[i] = float_lanes<PlaneAcc>(acc[x0 + i]);
        acc[x0 + i] = LaneVector<PlaneAcc, W>{};
      }
      transpose_lanes(tile);
    } else {
      static_assert(W == kNarrowLanes);
      LaneVector<float, kNarrowLanes> columns[kLanes];
      for (int i = 0; i < kLanes; ++i) {
        columns[i] = __builtin_convertvector(acc[x0 + i], LaneVector<float, kNarrowLanes>);
        acc[x0 + i] = LaneVector<PlaneAcc, W>{};
      }
      transpose_8x4(columns, reinterpret_cast<LaneVector<float>(&)[kNarrowLanes]>(tile));
    }
  };
  for (int64_t y = y0; y < y1; ++y, acc += width) {
    const int64_t row_offset = y * input_grad.strides[2];
    int64_t x = 0;
    if constexpr (kTiles && W == kLanes && kRowLanes == 2 * kLanes && sizeof(T) == 2) {
      for (; x + 2 * kLanes <= width; x += 2 * kLanes) {
        LaneVector<float> tiles[2][kLanes];
        take_tile(x, tiles[0]);
        take_tile(x + kLanes, tiles[1]);
        for (int j = 0; j < lanes; ++j) {
          const LaneVector<float, 2 * kLanes> both = __builtin_shufflevector(
              tiles[0][j], tiles[1][j], 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
          store_lanes<float, 2 * kLanes>(planes[j] + row_offset + x * xs, xs, both);
        }
      }
    }
    if constexpr (kTiles) {
      for (; x + kLanes <= width; x += kLanes) {
        LaneVector<float> tile[kLanes];
        take_tile(x, tile);
        for (int j = 0; j < lanes; ++j)
          store_lanes<float>(planes[j] + row_offset + x * xs, xs, tile[j]);
      }
    }
    for (; x < width; ++x) {
      for (int j = 0; j < lanes; ++j) planes[j][row_offset + x * xs] = static_cast<T>(acc[x][j]);
      acc[x] = LaneVector<PlaneAcc, W>{};
    }
  }
}

/// Point i's gradOutput channels (W, zero past `channels`) read where they are: channel c at
/// grad[c * plane + i * step], as scatter_block_from_planes reads them. A functor whose call is
/// always inlined: a lambda here without GRADCONF_ALWAYS_INLINE_LAMBDA was compiled for the
/// baseline path and returned its vector in another ABI than the AVX-512 caller read.
template <typename PlaneAcc, int W, typename T>
struct PlaneGrad {
  const T* grad;
  int64_t plane, step;
  int channels;
  GRADCONF_ALWAYS_INLINE LaneVector<PlaneAcc, W> operator()(int64_t i) const {
    // Built in registers, lane by lane at fixed indices (channels >= 1; lanes past it read the
    // last channel and are zeroed): a loop to `channels` put the lanes on the stack, and the
    // vector loaded back waited on their stores (large spatial nearest at 2 threads: half the
    // scatter's samples on that load).
    LaneVector<PlaneAcc, W> g = {};
#pragma GCC unroll 16
    for (int c = 0; c < W; ++c) {
      const auto value = static_cast<PlaneAcc>(
          static_cast<float>(grad[std::min(c, channels - 1) * plane + i * step]));
      g[c] = c < channels ? value : PlaneAcc{0};
    }
    return g;
  }
};

/// Point i's gradOutput channels from the channels-last copy's rows of `row` values.
template <typename PlaneAcc, int W, typename Val>
struct RowGrad {
  const Val* grad;
  int64_t row;
  GRADCONF_ALWAYS_INLINE LaneVector<PlaneAcc, W> operator()(int64_t i) const {
    return load_row<PlaneAcc, W>(grad + i * row);
  }
};

/// scatter_block over the record lists of one range (workspace.h, record_chunks): the chunks of a
/// batch in order and each list in point order, so every pixel adds its points in point order, as
/// scatter_block does; `grad_of(i)`: point i's gradOutput channels.
template <typename PlaneAcc, int W, typename Taps, typename GradOf>
GRADCONF_ALWAYS_INLINE void scatter_lists(const ScatterRange<PlaneAcc, W, Taps>& range,
                                          const RecordLists& lists, int64_t first_chunk, int64_t r,
                                          const GradOf& grad_of) {
  for (int64_t k = 0; k < lists.chunks; ++k) {
    const int64_t list = lists.list(first_chunk + k, r), count = lists.counts[list];
    const Taps* taps = lists.taps<Taps>(list);
    const int64_t* points = lists.points(list);
    for (int64_t e = 0; e < count; ++e) {
      if (e % kLanes == 0) prefetch_taps(taps, e, count);
      range.add(taps[e], points[e], grad_of(points[e]));
    }
  }
}

/// Whether the point pass stores bilinear records as BilinearFractionTaps: points located in
/// lanes (float coordinates, planes of int32 offsets) whose channels are one block, so the
/// scatter forms each weight once (N 1, C 4, 256 x 256 at 1 thread: 2.77-2.92 -> 2.44-2.53 ms;
/// with 32 blocks, C 256, forming them 32 times cost 2-4% more than reading them). Planted faults
/// keep the records of weights (their weight faults live there).
template <typename T, Fault kFault>
bool records_hold_fractions(Interpolation interpolation, const SamplerLayout& l) {
  return std::is_same_v<compute_t<T>, float> && kFault == Fault::kNone &&
         interpolation == Interpolation::kBilinear && records_fit_lanes(l) &&
         l.channel_blocks() == 1;
}

/// Per worker, how many leading pixels of its accumulator are known zero: none at first (the
/// workspace holds anything), then those its last task wrote out (write_block clears them).
using ClearedPixels = std::vector<int64_t>;

/// Pass 3: inputGrad, one task per (batch, channel block of W, row range). `cleared` carries over
/// from one call of the pass to the next on the same accumulators.
template <typename T, Fault kFault, int W, typename Val>
void input_grad_pass(const BackwardPlan& plan, const SamplerLayout& l, std::byte* workspace,
                     const BackwardWorkspace& ws, const Val* grad_rows, ClearedPixels& cleared) {
  const std::byte* scatter = workspace + ws.scatter;
  std::byte* accumulators = workspace + ws.accumulators;
  // inputGrad sums over every grid point of the batch (thousands of terms, cancelling), so its
  // accumulator is double for every dtype (spec README §3).
  using PlaneAcc = std::conditional_t<kFault == Fault::kDoubleComputedInFloat, float, double>;
  const auto input_grad = view_of<T, 4>(plan.input_grad);
  const auto grad_output = view_of<const T, 4>(plan.grad_output);
  const int64_t points = l.points(), row = l.padded_channels(), blocks = l.channel_blocks();
  const RecordLists lists(workspace, ws);
  const int64_t ranges = lists.ranges;
  const Interpolation interpolation = plan.attrs.interpolation;
  const bool fractions = records_hold_fractions<T, kFault>(interpolation, l);
  // A task reads every tap of its batch's points (picking those that reach its range), then
  // scatters its share of them and writes its pixels, W channels each.
  const int taps = scatter_tap_count(interpolation);
  const double task_work = double(points) * taps * (1.0 + double(W) / double(ranges)) +
                           double(l.pixels()) * W / double(ranges);
  parallel_for(
      0, l.n_batch * blocks * ranges, grain_for_work(task_work),
      [&](int64_t lo, int64_t hi) {
        auto* acc = reinterpret_cast<LaneVector<PlaneAcc, W>*>(accumulators + ws.accumulator_bytes *
                                                                                  worker_index());
        int64_t& zero_pixels = cleared[static_cast<size_t>(worker_index())];
        on_widest_isa_rows<kFault ==
                           Fault::kNone>([&](auto row_lanes) GRADCONF_ALWAYS_INLINE_LAMBDA {
          for (int64_t task = lo; task < hi; ++task) {
            const int64_t n = task / (blocks * ranges), b = task / ranges % blocks;
            const int64_t r = task % ranges;
            const PixelRange pixels(l, r, ranges);
            const int64_t count = pixels.count;
            // Trash slots are cleared with the pixels before them, though never read: whatever
            // the workspace held (subnormals) would slow every add into them.
            if (zero_pixels < count && !planted<kFault>(Fault::kWorkspaceAssumedZero))
              std::fill(acc + zero_pixels, acc + count + kTrashSlots, LaneVector<PlaneAcc, W>{});
            zero_pixels = count;
            const int64_t batch = planted<kFault>(Fault::kGridOfFirstBatchOnly) ? 0 : n * points;
            with_scatter_taps(
                interpolation,
                [&](auto* type) GRADCONF_ALWAYS_INLINE_LAMBDA {
                  using Taps = std::remove_pointer_t<decltype(type)>;
                  const ScatterRange<PlaneAcc, W, Taps> range{acc, pixels};
                  const Taps* taps = reinterpret_cast<const Taps*>(scatter) + batch;
                  const int channels = static_cast<int>(std::min<int64_t>(W, l.channels - b * W));
                  if (lists.chunks > 0) {
                    const int64_t first_chunk = batch / points * lists.chunks;
                    if constexpr (!std::is_same_v<T, double>) {
                      if (plan.wants.grad_output_in_place) {
                        const PlaneGrad<PlaneAcc, W, T> grad{&grad_output(n, b * W, 0, 0),
                                                             grad_output.strides[1],
                                                             grad_output.strides[3], channels};
                        return scatter_lists(range, lists, first_chunk, r, grad);
                      }
                    }
                    const RowGrad<PlaneAcc, W, Val> grad{grad_rows + n * points * row + b * W, row};
                    return scatter_lists(range, lists, first_chunk, r, grad);
                  }
                  if constexpr (!std::is_same_v<T, double>) {
                    if (plan.wants.grad_output_in_place) {
                      return scatter_block_from_planes(range, taps, &grad_output(n, b * W, 0, 0),
                                                       grad_output.strides[1],
                                                       grad_output.strides[3], channels, points);
                    }
                  }
                  scatter_block(range, taps, grad_rows + n * points * row + b * W, row, points);
                },
                fractions);
            write_block<T, PlaneAcc, W, row_lanes()>(input_grad, acc, n, b * W, pixels.first_row,
                                                     pixels.end_row);
          }
        });
      },
      plan.workers);
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_INPUT_GRAD_PASS_H_
