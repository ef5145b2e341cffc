// NOTE [GridSampler2D backward kernel]
// Three passes over a workspace laid out as workspace.h lists it:
//   1. channels last: for gridGrad, input is copied so that a pixel's channels are contiguous, in
//      blocks of W channels (kLanes, or 4 when C <= 4: workspace.h; channels_last.h): the later
//      passes handle several channels per vector operation instead of striding across planes.
//      A single batch of few channels split across workers gets one input copy per worker, each
//      made by the worker that samples it (workspace.h, private_input_copies). A single batch of
//      a float input with C <= 4 is not copied on the AVX2 and AVX-512 paths: the bilinear
//      gridGrad gathers its taps from the planes (gathers_input_planes).
//      gradOutput is read where it is, kLanes points of a plane transposed in registers at a
//      time, or, in double or when a plane's points are not evenly strided, copied the same way
//      (workspace.h, grad_output_readable_in_place); or the point pass writes the rows it
//      transposes for the scatter to read (workspace.h, with_grad_rows_by_points);
//   2. points: every grid point (n, h, w) is located once (coords.h, in the coordinate type) and
//      its taps formed once (scatter_records.h). When inputGrad is wanted its scatter taps (1
//      nearest, 4 bilinear, 16 bicubic offsets and weights, or for bilinear in lanes the offsets
//      and fractions: workspace.h, BilinearFractionTaps) are stored; when gridGrad is, its
//      channel terms are summed in the compute type, a vector of channels at a time (each lane its
//      channels in order, the lanes then in a fixed tree), four points side by side, and both
//      components written. Bilinear and nearest on float coordinates (any padding) locate kLanes
//      points at once and form their taps in lanes (source_lanes.h, locate_in_lanes): the same
//      values, so the same bits. Nearest on a packed grid takes a pass of its own that stores
//      only the records and gridGrad's zeros (nearest_passes.h), and files no record lists;
//   3. inputGrad (input_grad_pass.h): one task per (batch n, block of W channels, range of
//      input rows) clears its worker's accumulator (W double lanes per pixel), scatters into it,
//      in point order, every point of batch n with a tap in its range (taps outside the input or
//      the range land in trash slots past the pixels, so the loop has no branch), then writes its
//      pixels out. With several ranges, pass 2 files each point's taps under every range it
//      reaches, in point order (workspace.h, record_chunks), and a range's task reads its list.
//      Nearest with fewer (batch, block) tasks than workers scatters a plane per task instead
//      (nearest_passes.h, nearest_plane_scatter).
// With several batches that split evenly over the workers, each worker takes whole batches and
// runs the three passes on one batch before the next, in its own regions (workspace.h,
// batch_major_workers): the batch's copy, records and accumulator stay in its core's L2.
// Each output element has exactly one writer and a fixed summation order, whatever the blocks,
// ranges or thread count, so results are bitwise identical for any of them; no atomics. The
// scatter accumulates in double because a pixel can gather every point of its batch (half
// outputs could not even hold the sum). Empty problems need no workspace.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_BACKWARD_KERNEL_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_BACKWARD_KERNEL_H_

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "grid_sampler2d/channels_last.h"
#include "grid_sampler2d/coordinate_grads.h"
#include "grid_sampler2d/coords.h"
#include "grid_sampler2d/forward_kernel.h"
#include "grid_sampler2d/input_grad_pass.h"
#include "grid_sampler2d/kernels.h"
#include "grid_sampler2d/nearest_passes.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/scatter_records.h"
#include "grid_sampler2d/source_lanes.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// Empty problems: whatever wanted output still has elements is zero (spec, E-GS-8).
template <typename T>
void zero_empty_outputs(const BackwardPlan& plan, const SamplerLayout& l) {
  if (plan.wants.grid_grad && l.channels == 0) zero_fill(view_of<T, 4>(plan.grid_grad));
  if (plan.wants.input_grad && l.points() == 0) zero_fill(view_of<T, 4>(plan.input_grad));
}

template <Fault kFault, typename T>
void write_grid_grad(const StridedView<T, 4>& grid_grad, int64_t n, int64_t h, int64_t w, double gx,
                     double gy) {
  if (planted<kFault>(Fault::kSwappedGridGradXY)) std::swap(gx, gy);
  if (planted<kFault>(Fault::kGridGradRoundedToFloat)) {
    gx = static_cast<float>(gx);
    gy = static_cast<float>(gy);
  }
  grid_grad(n, h, w, 0) = static_cast<T>(gx);
  if (planted<kFault>(Fault::kIgnoredGridGradStride)) {
    (&grid_grad(n, h, w, 0))[1] = static_cast<T>(gy);
  } else {
    grid_grad(n, h, w, 1) = static_cast<T>(gy);
  }
}

/// The channels-last gradOutput rows (`row` values each, zero past C) of a block's `count`
/// points into `rows`, read where they are (wants.grad_output_in_place): kLanes points of one
/// plane are kLanes evenly strided values per channel, loaded and transposed in registers as the
/// copy would; a block that crosses batches or ends early takes its values one by one.
template <typename T>
GRADCONF_ALWAYS_INLINE void grad_rows_in_place(const StridedView<const T, 4>& grad_output,
                                               const PointIndex (&at)[kLanes], int count,
                                               int64_t row, float* rows) {
  const int64_t channels = grad_output.dims[1];
  if (count < kLanes || at[0].n != at[kLanes - 1].n) {
    for (int j = 0; j < count; ++j) {
      for (int64_t c = 0; c < row; ++c) {
        rows[j * row + c] =
            c < channels ? static_cast<float>(grad_output(at[j].n, c, at[j].h, at[j].w)) : 0.0f;
      }
    }
    return;
  }
  const T* first = &grad_output(at[0].n, 0, at[0].h, at[0].w);
  const int64_t plane = grad_output.strides[1], step = grad_output.strides[3];
  if (row == kNarrowLanes)
    return transpose_point_rows<kNarrowLanes>(first, plane, step, channels, rows, row);
  for (int64_t c0 = 0; c0 < row; c0 += kLanes) {
    transpose_point_rows<kLanes>(first + c0 * plane, plane, step, channels - c0, rows + c0, row);
  }
}

/// narrow_grad_lanes of a full block read where gradOutput is (wants.grad_output_in_place): one
/// plane's kLanes evenly strided values per channel, the lanes grad_rows_in_place's rows give.
/// False for a block that crosses batches or ends early.
template <typename T>
GRADCONF_ALWAYS_INLINE bool narrow_grad_lanes_in_place(const StridedView<const T, 4>& grad_output,
                                                       const PointIndex (&at)[kLanes], int count,
                                                       FloatLanes (&grad)[kNarrowLanes]) {
  if (count < kLanes || at[0].n != at[kLanes - 1].n) return false;
  const T* first = &grad_output(at[0].n, 0, at[0].h, at[0].w);
  const int64_t channels = grad_output.dims[1];
  for (int c = 0; c < kNarrowLanes; ++c) {
    grad[c] = c < channels
                  ? load_lanes<float>(first + c * grad_output.strides[1], grad_output.strides[3])
                  : FloatLanes{};
  }
  return true;
}

/// A block of up to kLanes consecutive points, located, with their taps: what the point pass reads
/// after locating. Entries past the block's count repeat its last point (computed, never written).
template <typename Taps>
struct LocatedPoints {
  Taps scatter[kLanes];
  CoordinateTaps coordinate[kLanes];
  MaskLanes offsets[4];  ///< located in lanes: tap k's offsets in lanes (lane_point_taps)
  /// Fraction records in lanes on the AVX-512 path: the `scatter` records as their 3 cache lines
  /// (fraction_record_lines_avx512), which `scatter` then does not hold.
  alignas(64) int32_t record_lines[6 * kLanes];
  int64_t addressable[kLanes];  ///< 1 or 0: read as lanes by write_block_grid_grad
  double mult_x[kLanes], mult_y[kLanes];
};

/// Writes the gridGrad of a block's `count` points: point j's (gx[j] * mult_x[j], gy[j] *
/// mult_y[j]), or zeros where it reads nothing or is not addressable (write_grid_grad's values).
/// Eight points along one row of a contiguous gridGrad below double are written as one run of 16
/// values, the products formed and rounded lane by lane as the scalar path forms them: the same
/// bits (float16: large spatial 1 thread 3.68-3.83 -> 3.27-3.36 ms; Eigen converts one by one).
template <Fault kFault, typename T, typename Taps>
GRADCONF_ALWAYS_INLINE void write_block_grid_grad(const StridedView<T, 4>& grid_grad,
                                                  const PointIndex (&at)[kLanes], int count,
                                                  const LocatedPoints<Taps>& located, bool reads,
                                                  const double (&gx)[kLanes],
                                                  const double (&gy)[kLanes]) {
  const bool one_run = count == kLanes && at[0].n == at[kLanes - 1].n &&
                       at[0].h == at[kLanes - 1].h && grid_grad.strides[3] == 1 &&
                       grid_grad.strides[2] == 2;
  if constexpr (std::is_same_v<compute_t<T>, float> && kFault == Fault::kNone) {
    // Nearest reads no tap: its zeros without forming the products (large spatial nearest at
    // 1 thread 0.413-0.431 -> 0.393-0.407 ms in five alternating rounds, session 80).
    if (one_run && !reads) {
      T* run = &grid_grad(at[0].n, at[0].h, at[0].w, 0);
      for (int h = 0; h < 2; ++h) store_lanes<float>(run + h * kLanes, 1, LaneVector<float>{});
      return;
    }
    if (one_run) {
      typedef float Float4 __attribute__((vector_size(4 * sizeof(float))));
      typedef int64_t Long4 __attribute__((vector_size(4 * sizeof(int64_t))));
      Float4 x[2], y[2];
      for (int h = 0; h < 2; ++h) {
        Long4 sums = {};
        if (reads) std::memcpy(&sums, located.addressable + 4 * h, sizeof sums);
        const Double4 px = load_double4(gx + 4 * h) * load_double4(located.mult_x + 4 * h);
        const Double4 py = load_double4(gy + 4 * h) * load_double4(located.mult_y + 4 * h);
        x[h] = __builtin_convertvector(sums != 0 ? px : Double4{}, Float4);
        y[h] = __builtin_convertvector(sums != 0 ? py : Double4{}, Float4);
      }
      const LaneVector<float> xs = __builtin_shufflevector(x[0], x[1], 0, 1, 2, 3, 4, 5, 6, 7);
      const LaneVector<float> ys = __builtin_shufflevector(y[0], y[1], 0, 1, 2, 3, 4, 5, 6, 7);
      const LaneVector<float, 2 * kLanes> pairs =
          __builtin_shufflevector(xs, ys, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
      // Half types round through float, as static_cast<T>(double) does (Eigen).
      T* run = &grid_grad(at[0].n, at[0].h, at[0].w, 0);
      for (int h = 0; h < 2; ++h)
        store_lanes<float>(run + h * kLanes, 1, lane_slice<float, 2 * kLanes>(pairs, h));
      return;
    }
  }
  for (int j = 0; j < count; ++j) {
    const bool sums = reads && located.addressable[j];
    write_grid_grad<kFault>(grid_grad, at[j].n, at[j].h, at[j].w,
                            sums ? gx[j] * located.mult_x[j] : 0.0,
                            sums ? gy[j] * located.mult_y[j] : 0.0);
  }
}

/// Locates a block point by point in the coordinate type: every interpolation, padding and dtype.
template <typename T, Fault kFault, typename Taps>
GRADCONF_ALWAYS_INLINE void locate_one_by_one(PointIndex& next, int count,
                                              const StridedView<const T, 4>& grid,
                                              const SamplerLayout& l, const Attributes& a,
                                              bool reads, PointIndex (&at)[kLanes],
                                              LocatedPoints<Taps>& located) {
  for (int j = 0; j < kLanes; ++j) {
    if (j < count) at[j] = next, next.next();
    const PointIndex& point = at[std::min(j, count - 1)];
    const SourcePoint p =
        locate_source<kFault>(static_cast<compute_t<T>>(grid(point.n, point.h, point.w, 0)),
                              static_cast<compute_t<T>>(grid(point.n, point.h, point.w, 1)), l.in_h,
                              l.in_w, a.interpolation, a.padding, a.align_corners);
    located.addressable[j] = p.addressable;
    located.mult_x[j] = p.mult_x;
    located.mult_y[j] = p.mult_y;
    point_taps<T, kFault>(p, l, a, j, located.scatter[j], reads ? &located.coordinate[j] : nullptr);
  }
}

/// Locates a block's kLanes points at once (source_lanes.h: bilinear and nearest on float
/// coordinates, any padding) into `located` and `s`: the values
/// locate_one_by_one gives, so the same bits.
template <typename T, Fault kFault, typename Taps>
GRADCONF_ALWAYS_INLINE void locate_in_lanes(PointIndex& next, int count,
                                            const StridedView<const T, 4>& grid,
                                            const SamplerLayout& l, const Attributes& a, bool reads,
                                            PointIndex (&at)[kLanes], LocatedPoints<Taps>& located,
                                            SourceLanes& s, bool record_lines) {
  FloatLanes x, y;
  next_points(next, count, grid, at, x, y);
  s = locate_lanes<kFault>(x, y, l.in_h, l.in_w, a.interpolation, a.padding, a.align_corners);
  lane_point_taps<kFault>(s, l, located.scatter, located.offsets,
                          reads ? &located.coordinate : nullptr,
                          record_lines ? located.record_lines : nullptr);
  const double mult_x = unnormalize_grad(l.in_w, a.align_corners);
  const double mult_y = unnormalize_grad(l.in_h, a.align_corners);
  for (int j = 0; j < kLanes; ++j) {
    located.addressable[j] = s.addressable[j] != 0;
    located.mult_x[j] = mult_x * s.grad_x(j);
    located.mult_y[j] = mult_y * s.grad_y(j);
  }
}

/// One record list's newest records on the AVX-512 path (fraction records from
/// LocatedPoints::record_lines, nearest ones from its offsets), held in L1 until a whole run of
/// kLanes can be streamed to the list (kLanes fraction records are 3 cache lines, nearest ones 1,
/// their indices 1; lists start on a line: workspace_regions), so the list is written in whole
/// lines and the records are staged without a branch per record. Filed one by one (a loop of
/// data-dependent length per range and block, a partial line per streamed record, each record
/// loaded from the narrow stores that built it) fraction records were about 100 us of large
/// spatial's 870 at 2 threads (the pass timed with the filing skipped); staged, 0.86 -> 0.83 ms.
/// Nearest records went straight to the lists with compressing stores: on AMD's Zen 5 the filing
/// then cost more than the rest of the pass (large spatial nearest ran no faster at 2 threads
/// than at 1), whatever the store instruction (plain stores to lines the other core's scatter
/// read in the previous call, as far as a machine without counters shows).
template <typename Taps>
struct StagedRecords {
  alignas(64) Taps taps[2 * kLanes];
  alignas(64) int64_t points[2 * kLanes];
  int staged = 0;
};

/// Whether the point pass stages its records (StagedRecords): lists on the AVX-512 path, of
/// fraction records or nearest ones located in lanes.
template <bool kInLanes, typename Taps>
constexpr bool stages_records() {
  return kInLanes &&
         (std::is_same_v<Taps, BilinearFractionTaps> || std::is_same_v<Taps, NearestScatterTaps>);
}

/// Files a block's `count` records under every pixel range they reach (workspace.h,
/// record_chunks), each with its point's index in the batch: per range the points that reach it,
/// as bits, in point order (whether a point reaches a range is data: a branch per point and range
/// mispredicted), compared in lanes when located in lanes (2 threads, large spatial: 1.62-1.68 ->
/// 1.49-1.54 ms). A block's points are consecutive in one chunk, so in one batch: their indices
/// are the first's plus their lane. On the AVX-512 path fraction records and nearest ones in lanes
/// are staged (`staged` not null: StagedRecords, range r's at `staged[r]`; nearest ones went with
/// compressing stores before: large spatial nearest at 2 threads 0.63-0.64 -> 0.51-0.52 ms on
/// Intel). `filed[r]`: the entries unit `unit`'s list for range r has written so far.
template <bool kInLanes, typename Taps>
GRADCONF_ALWAYS_INLINE void file_records(const RecordLists& lists,
                                         const std::vector<PixelRange>& ranges, int64_t unit,
                                         const LocatedPoints<Taps>& located,
                                         const PointIndex (&at)[kLanes], int count, int64_t out_w,
                                         int64_t* filed, StagedRecords<Taps>* staged) {
  const Taps(&records)[kLanes] = located.scatter;
  const int64_t first = at[0].h * out_w + at[0].w;
  for (int64_t r = 0; r < lists.ranges; ++r) {
    const PixelRange& range = ranges[static_cast<size_t>(r)];
    unsigned reached = 0;
    if constexpr (kInLanes) {
      reached = range.reached_by(located.offsets, Taps::kCount) & ((1u << count) - 1);
    } else {
      for (int j = 0; j < count; ++j) reached |= unsigned{range.reached_by(records[j])} << j;
    }
    // In locals: the index stores would otherwise reload the list's bounds.
    const int64_t list = lists.list(unit, r);
    Taps* const list_taps = lists.taps<Taps>(list);
    int64_t* const list_points = lists.points(list);
    int64_t entry = filed[r];
    if constexpr (stages_records<kInLanes, Taps>()) {
      if (staged) {
        // The last block's run is streamed now, when the stores that staged it have completed.
        StagedRecords<Taps>& stage = staged[r];
        if (stage.staged >= kLanes) {
          stream_lines_avx512(list_taps + entry, stage.taps, sizeof(Taps) * kLanes);
          stream_lines_avx512(list_points + entry, stage.points, sizeof(int64_t) * kLanes);
          std::memcpy(stage.taps, stage.taps + kLanes, sizeof(Taps) * kLanes);
          std::memcpy(stage.points, stage.points + kLanes, sizeof(int64_t) * kLanes);
          stage.staged -= kLanes;
          filed[r] = entry + kLanes;
        }
        if constexpr (std::is_same_v<Taps, BilinearFractionTaps>) {
          stage.staged = stage_fraction_records_avx512(located.record_lines, reached, first,
                                                       stage.taps, stage.points, stage.staged);
        } else {
          stage.staged = stage_nearest_records_avx512(located.offsets[0], reached, first,
                                                      stage.taps, stage.points, stage.staged);
        }
        continue;
      }
    }
    for (; reached != 0; reached &= reached - 1, ++entry) {
      const int j = __builtin_ctz(reached);
      stream_copy(list_taps + entry, &records[j], sizeof(Taps));
      list_points[entry] = first + j;
    }
    filed[r] = entry;
  }
}

/// Streams what a unit's lists still stage (file_records; `staged` null: nothing) and records
/// each list's length.
template <typename Taps>
void close_record_lists(const RecordLists& lists, int64_t unit, const int64_t* filed,
                        const StagedRecords<Taps>* staged) {
  for (int64_t r = 0; r < lists.ranges; ++r) {
    const int64_t list = lists.list(unit, r);
    int64_t entries = filed[r];
    if (staged) {
      const StagedRecords<Taps>& stage = staged[r];
      stream_copy(lists.taps<Taps>(list) + entries, stage.taps, sizeof(Taps) * stage.staged);
      stream_copy(lists.points(list) + entries, stage.points, sizeof(int64_t) * stage.staged);
      entries += stage.staged;
    }
    lists.counts[list] = entries;
  }
}

/// Whether the point pass's gridGrad gathers the taps from the input planes (NarrowTapPlanes)
/// instead of a channels-last copy: one batch of a contiguous float input with C <= 4, bilinear
/// in lanes (narrow_coordinate_grads: every such call takes it) on an AVX2 or AVX-512 path. The
/// same values, so the same bits, and no copy: at 1 thread the copy cost more than the gathers do,
/// and split across workers each worker copied the whole input for itself (private_input_copies),
/// which the second thread did not shorten (N 1, C 4, 256 x 256: 1 thread 2.26-2.43 -> 1.96-1.99
/// ms, 2 threads 1.39-1.45 -> 1.19-1.20; bench/README session 70). The copies' workspace is then
/// left unused.
template <typename T, Fault kFault>
bool gathers_input_planes(const BackwardPlan& plan, const SamplerLayout& l) {
  const auto input = view_of<const T, 4>(plan.input);
  return std::is_same_v<T, float> && !planted<kFault>(Fault::kThreadDependentSum) &&
         plan.wants.grid_reads() && plan.attrs.interpolation == Interpolation::kBilinear &&
         locates_in_lanes(plan.attrs.interpolation) && records_fit_lanes(l) && l.n_batch == 1 &&
         l.padded_channels() == kNarrowLanes && kernel_isa() != Isa::kBaseline &&
         planes_packed(input);
}

/// Pass 2: every point located, kLanes at a time (in lanes when kInLanes); its scatter taps stored
/// (inputGrad) and its gridGrad computed from the channels-last copies (or, `gathers_planes`:
/// gathers_input_planes, from the input planes) and written (gridGrad), kPointGroup points' sums
/// side by side.
template <typename T, Fault kFault, bool kInLanes, typename Taps, typename Val>
void point_pass(const BackwardPlan& plan, const SamplerLayout& l, Val* grad_rows, Val* input_rows,
                const BackwardWorkspace& ws, std::byte* workspace, bool gathers_planes,
                ClearAsYouGo& clearing) {
  const auto grid = view_of<const T, 4>(plan.grid);
  const auto grid_grad = view_of<T, 4>(plan.grid_grad);
  const auto grad_output = view_of<const T, 4>(plan.grad_output);
  const Attributes& a = plan.attrs;
  const int64_t row = l.padded_channels();
  const bool reads = plan.wants.grid_reads();
  const bool in_place = plan.wants.grad_output_in_place;
  // C <= 4 on float coordinates: the bilinear gridGrad in lanes (narrow_coordinate_grads). The
  // thread-dependent fault's partial sums exist point by point only.
  constexpr bool kNarrowInLanes = kInLanes && std::is_same_v<Val, float> && Taps::kCount == 4;
  const bool narrow = kNarrowInLanes && reads && row == kNarrowLanes &&
                      !planted<kFault>(Fault::kThreadDependentSum);
  static_assert(kLanes % kPointGroup == 0);
  const int copies = ws.input_copies;
  const auto input = view_of<const T, 4>(plan.input);
  const float* planes[kNarrowLanes] = {};
  if constexpr (std::is_same_v<T, float>) {
    for (int64_t c = 0; gathers_planes && c < l.channels; ++c) planes[c] = &input(0, c, 0, 0);
  }
  const int channels = static_cast<int>(std::min<int64_t>(l.channels, kNarrowLanes));
  const auto outside = static_cast<int32_t>(std::min<int64_t>(l.pixels(), INT_MAX));
  auto* scatter = reinterpret_cast<Taps*>(workspace + ws.scatter);
  // Record lists (workspace.h, record_chunks): a task's units are chunks, each filing its points'
  // taps under the pixel ranges they reach; else its units are points, stored in point order.
  const int64_t chunks = ws.record_chunks, points = l.points();
  const RecordLists lists(workspace, ws);
  const bool avx512_records = kFault == Fault::kNone && kernel_isa() == Isa::kAvx512;
  const bool record_lines =
      avx512_records && std::is_same_v<Taps, BilinearFractionTaps> && plan.wants.input_grad;
  const bool stages =
      avx512_records && stages_records<kInLanes, Taps>() && plan.wants.input_grad && chunks > 0;
  std::vector<PixelRange> ranges;
  for (int64_t r = 0; chunks > 0 && r < lists.ranges; ++r) ranges.emplace_back(l, r, lists.ranges);
  const auto task = [&](int64_t units_lo, int64_t units_hi) {
    ClearAsYouGo::Slice clear = clearing.slice(units_lo, units_hi);
    // With private copies (workspace.h, private_input_copies) this worker makes its own first.
    Val* pixel_rows = input_rows;
    if (copies > 1 && reads && !gathers_planes) {
      pixel_rows += worker_index() * ws.input_copy_bytes / sizeof(Val);
      to_channels_last(input, pixel_rows, row, false, 1);
    }
    on_widest_isa<kFault == Fault::kNone>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      // Declared once per task (3.9 KB): a block resets only the coordinate counts it adds to.
      LocatedPoints<Taps> located;
      std::vector<Val> block_grad(reads && in_place ? static_cast<size_t>(kLanes * row) : 0);
      std::vector<int64_t> filed(static_cast<size_t>(lists.ranges));
      std::vector<StagedRecords<Taps>> staged(stages ? lists.ranges : 0);
      for (int64_t unit = units_lo; unit < (chunks > 0 ? units_hi : units_lo + 1); ++unit) {
        const int64_t n = unit / std::max<int64_t>(chunks, 1),
                      k = unit % std::max<int64_t>(chunks, 1);
        const int64_t lo = chunks > 0 ? n * points + k * points / chunks : units_lo;
        const int64_t hi = chunks > 0 ? n * points + (k + 1) * points / chunks : units_hi;
        std::fill(filed.begin(), filed.end(), 0);
        for (StagedRecords<Taps>& stage : staged) stage.staged = 0;
        PointIndex next(lo, l.out_h, l.out_w);
        for (int64_t i0 = lo; i0 < hi; i0 += kLanes) {
          const int count = static_cast<int>(std::min<int64_t>(kLanes, hi - i0));
          clear.step();
          PointIndex at[kLanes] = {next, next, next, next, next, next, next, next};
          for (int j = 0; reads && j < kLanes; ++j) located.coordinate[j].count = 0;
          // Point j's batch's channels-last input rows, and its gradOutput row.
          const auto pixels_of = [&](int j) GRADCONF_ALWAYS_INLINE_LAMBDA {
            return pixel_rows + at[j].n * input_copy_rows(l) * row;
          };
          const auto grad_of = [&](int j) GRADCONF_ALWAYS_INLINE_LAMBDA -> const Val* {
            return in_place ? block_grad.data() + j * row : grad_rows + (i0 + j) * row;
          };
          [[maybe_unused]] SourceLanes source;
          if constexpr (kInLanes) {
            locate_in_lanes<T, kFault>(next, count, grid, l, a, reads && !narrow, at, located,
                                       source, record_lines);
          } else {
            locate_one_by_one<T, kFault>(next, count, grid, l, a, reads, at, located);
          }
          // Streamed: the scatter tasks of every worker read these records, so the lines are
          // shared with other cores when the next call writes them again.
          if (plan.wants.input_grad && chunks == 0 && record_lines) {
            stream_lines_avx512(scatter + i0, located.record_lines, count * sizeof(Taps));
          } else if (plan.wants.input_grad && chunks == 0) {
            stream_copy(scatter + i0, located.scatter, count * sizeof(Taps));
          } else if (plan.wants.input_grad) {
            file_records<kInLanes>(lists, ranges, unit, located, at, count, l.out_w, filed.data(),
                                   staged.empty() ? nullptr : staged.data());
          }
          if (!plan.wants.grid_grad) continue;
          if constexpr (kNarrowInLanes) {
            if (narrow) {
              FloatLanes grad[kNarrowLanes];
              if (!in_place || !narrow_grad_lanes_in_place(grad_output, at, count, grad)) {
                if (in_place) grad_rows_in_place(grad_output, at, count, row, block_grad.data());
                const float* rows[kLanes];
                for (int j = 0; j < kLanes; ++j) rows[j] = grad_of(std::min(j, count - 1));
                narrow_grad_lanes(rows, grad);
              }
              FloatLanes gx{}, gy{};
              if constexpr (std::is_same_v<T, float>) {
                if (gathers_planes) {
                  narrow_coordinate_grads<kFault>(
                      source, NarrowTapPlanes{planes, channels, outside, located.offsets}, grad, gx,
                      gy);
                }
              }
              if (!gathers_planes) {
                const float* pixels[kLanes];
                for (int j = 0; j < kLanes; ++j) pixels[j] = pixels_of(std::min(j, count - 1));
                narrow_coordinate_grads<kFault>(source, NarrowTapRows{pixels, located.offsets},
                                                grad, gx, gy);
              }
              double gx_block[kLanes], gy_block[kLanes];
              for (int j = 0; j < kLanes; ++j) gx_block[j] = gx[j], gy_block[j] = gy[j];
              write_block_grid_grad<kFault>(grid_grad, at, count, located, true, gx_block,
                                            gy_block);
              continue;
            }
          }
          if constexpr (std::is_same_v<Val, float>) {
            if (reads && in_place)
              grad_rows_in_place(grad_output, at, count, row, block_grad.data());
            if (plan.wants.grad_rows_by_points)
              grad_rows_in_place(grad_output, at, count, row, grad_rows + i0 * row);
          }
          // The taps' pixel rows lie anywhere in the input: the block's rows are requested,
          // whole, before the first group's sums wait on theirs (C 32: base about 4% faster; C
          // 256, N 1: 1 thread 3.39-3.73 -> 3.31-3.46 ms, 2 threads 1.99-2.05 -> 1.77-1.79, where
          // half the rows are in the other core's cache; a long row's first line alone did not
          // help).
          for (int j = 0; reads && j < count; ++j) {
            const Val* pixels = pixels_of(j);
            for (int k = 0; k < located.coordinate[j].count; ++k)
              for (int64_t at_byte = 0; at_byte < row * int64_t{sizeof(Val)}; at_byte += 64)
                __builtin_prefetch(
                    reinterpret_cast<const char*>(pixels + located.coordinate[j].pixel[k] * row) +
                    at_byte);
          }
          double gx_block[kLanes] = {}, gy_block[kLanes] = {};
          for (int g = 0; g < count; g += kPointGroup) {
            const int group = std::min(kPointGroup, count - g);
            double gx[kPointGroup] = {}, gy[kPointGroup] = {};
            if (reads) {
              const Val* pixels[kPointGroup];
              const Val* grad[kPointGroup];
              const CoordinateTaps(&group_taps)[kPointGroup] =
                  *reinterpret_cast<const CoordinateTaps(*)[kPointGroup]>(located.coordinate + g);
              for (int p = 0; p < kPointGroup; ++p) {
                const int j = g + std::min(p, group - 1);
                pixels[p] = pixels_of(j);
                grad[p] = grad_of(j);
              }
              // Rows of 4 (C <= 4) or, below double, of whole kLanes blocks.
              if (row % kLanes == 0 && !std::is_same_v<Val, double>) {
                coordinate_grads<T, kFault, kLanes>(group_taps, pixels, grad, row, gx, gy);
              } else {
                coordinate_grads<T, kFault, 4>(group_taps, pixels, grad, row, gx, gy);
              }
            }
            for (int p = 0; p < group; ++p) gx_block[g + p] = gx[p], gy_block[g + p] = gy[p];
          }
          write_block_grid_grad<kFault>(grid_grad, at, count, located, reads, gx_block, gy_block);
        }
        if (chunks > 0)
          close_record_lists<Taps>(lists, unit, filed.data(),
                                   staged.empty() ? nullptr : staged.data());
      }
      stream_fence();
    });
    clear.finish();
  };
  const int max_workers = copies > 1 ? copies : 1 << 30;
  if (chunks > 0) return parallel_for(0, l.n_batch * chunks, 1, task, max_workers);
  parallel_for(0, l.n_batch * points, point_grain(l), task, max_workers);
  clearing.done = clearing.at != nullptr;
}

/// The three passes over the batches of `plan`, in the regions `ws` gives. `shared`: the passes
/// are split across workers (so another core reads what the copies write).
template <typename T, Fault kFault>
void backward_passes(const BackwardPlan& plan, const SamplerLayout& l, const BackwardWorkspace& ws,
                     std::byte* workspace, bool shared, ClearedPixels& cleared) {
  using Val = compute_t<T>;
  auto* grad_rows = reinterpret_cast<Val*>(workspace + ws.grad_output);
  auto* pixel_rows = reinterpret_cast<Val*>(workspace + ws.input);
  if (plan.wants.copies_grad_output() && !plan.wants.grad_rows_by_points)
    to_channels_last(view_of<const T, 4>(plan.grad_output), grad_rows, l.padded_channels(), shared);
  const bool gathers_planes = gathers_input_planes<T, kFault>(plan, l);
  // One worker runs the scatter on one accumulator: the point pass clears it as it goes, where
  // its stores cost little, instead of the scatter clearing it first (a memset of 2 MiB at C 4,
  // 256 x 256 was 8% of the nearest backward; 1 thread 0.654-0.704 -> 0.624-0.626 ms).
  ClearAsYouGo clearing;
  if (plan.wants.input_grad && plan.workers == 1 && !shared && ws.record_chunks == 0 &&
      cleared[0] < l.pixels() && !planted<kFault>(Fault::kWorkspaceAssumedZero)) {
    clearing.at = workspace + ws.accumulators;
    clearing.bytes =
        static_cast<uint64_t>(l.pixels() + kTrashSlots) * l.block_lanes() * sizeof(double);
    clearing.units = l.n_batch * l.points();
  }
  if (plan.wants.grid_reads() && ws.input_copies == 1 && !gathers_planes)
    to_channels_last(view_of<const T, 4>(plan.input), pixel_rows, l.padded_channels(), shared, 1);
  if (lean_nearest_points<T, kFault>(plan, l, ws)) {
    nearest_point_pass<T, kFault>(plan, l, ws, workspace, clearing);
  } else {
    with_scatter_taps(
        plan.attrs.interpolation,
        [&](auto* type) {
          using Taps = std::remove_pointer_t<decltype(type)>;
          if constexpr (std::is_same_v<compute_t<T>, float> && Taps::kCount < 16) {
            if (locates_in_lanes(plan.attrs.interpolation) && records_fit_lanes(l)) {
              return point_pass<T, kFault, true, Taps>(plan, l, grad_rows, pixel_rows, ws,
                                                       workspace, gathers_planes, clearing);
            }
          }
          if constexpr (!std::is_same_v<Taps, BilinearFractionTaps>)
            point_pass<T, kFault, false, Taps>(plan, l, grad_rows, pixel_rows, ws, workspace,
                                               gathers_planes, clearing);
        },
        records_hold_fractions<T, kFault>(plan.attrs.interpolation, l));
  }
  if (clearing.at) {
    if (!clearing.done) std::memset(clearing.at, 0, clearing.bytes);
    cleared[0] = l.pixels();
  }
  if (scatters_nearest_planes<T, kFault>(plan, l, ws, shared)) {
    nearest_plane_scatter<T>(plan, l, workspace, ws);
  } else if (plan.wants.input_grad) {
    with_block_lanes(l, [&](auto lanes) {
      input_grad_pass<T, kFault, lanes()>(plan, l, workspace, ws, grad_rows, cleared);
    });
  }
}

/// Batch n of a plan's tensors, as a plan of one batch.
inline BackwardPlan batch_of(const BackwardPlan& plan, int64_t n) {
  BackwardPlan one = plan;
  for (aclTensor* t : {&one.grad_output, &one.input, &one.grid, &one.input_grad, &one.grid_grad}) {
    if (rank(*t) != 4) continue;
    t->offset += n * t->strides[0];
    t->view_dims[0] = 1;
  }
  return one;
}

template <typename T, Fault kFault>
void backward_kernel(const BackwardPlan& plan, std::byte* workspace) {
  const SamplerLayout l(plan);
  if (l.empty()) return zero_empty_outputs<T>(plan, l);
  const BackwardWorkspace ws =
      *backward_workspace(l, plan.wants, plan.workers, plan.point_workers, plan.batch_major);
  ClearedPixels cleared(static_cast<size_t>(plan.workers), 0);
  if (ws.batch_slots == l.n_batch) {
    // The point pass reads both copies; the scatter reads gradOutput's, split when the points are.
    const bool shared = parallel_parts(l.n_batch * l.points(), point_grain(l)) > 1;
    return backward_passes<T, kFault>(plan, l, ws, workspace, shared, cleared);
  }
  // Batch-major (workspace.h, batch_major_workers): a worker's batches one after another, each
  // through all three passes in the worker's own regions (the passes' loops then run inline).
  SamplerLayout one = l;
  one.n_batch = 1;
  parallel_for(
      0, l.n_batch, 1,
      [&](int64_t lo, int64_t hi) {
        const BackwardWorkspace own = batch_slot(ws, one, plan.wants, worker_index());
        for (int64_t n = lo; n < hi; ++n)
          backward_passes<T, kFault>(batch_of(plan, n), one, own, workspace, false, cleared);
      },
      static_cast<int>(ws.batch_slots));
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_BACKWARD_KERNEL_H_
