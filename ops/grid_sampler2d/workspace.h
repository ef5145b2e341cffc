// The backward's workspace plan, apart from the kernel so that the GS-LIMIT-01 clause can size a
// call before phase 1 builds an executor for it.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_

#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <type_traits>

#include "core/checked_math.h"
#include "core/executor.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/tensor.h"
#include "grid_sampler2d/clauses.h"
#include "grid_sampler2d/coords.h"

namespace gradconf::grid_sampler2d {

/// The backward's channel block for C <= 4: four doubles (the scatter's accumulators) are one AVX2
/// register, and the gridGrad pass reads a row of four channels as one vector.
inline constexpr int kNarrowLanes = 4;

/// The sizes both passes' channels-last copies are laid out by (the forward's input copy, in rows
/// of forward_copy_row(); the backward's gradOutput and input copies, in rows of
/// padded_channels()).
struct SamplerLayout {
  int64_t n_batch, channels, in_h, in_w, out_h, out_w;
  SamplerLayout(int64_t n_batch, int64_t channels, int64_t in_h, int64_t in_w, int64_t out_h,
                int64_t out_w)
      : n_batch(n_batch), channels(channels), in_h(in_h), in_w(in_w), out_h(out_h), out_w(out_w) {}
  SamplerLayout(const aclTensor& input, const aclTensor& grid)
      : SamplerLayout(input.view_dims[0], input.view_dims[1], input.view_dims[2],
                      input.view_dims[3], grid.view_dims[1], grid.view_dims[2]) {}
  template <typename Plan>
  explicit SamplerLayout(const Plan& plan) : SamplerLayout(plan.input, plan.grid) {}
  int64_t points() const { return out_h * out_w; }
  int64_t pixels() const { return in_h * in_w; }
  bool empty() const { return n_batch == 0 || channels == 0 || points() == 0; }
  /// The backward's channels-last rows hold whole blocks of this many channels (the last one
  /// zero-padded): kNarrowLanes for few channels, whose rows, copies and accumulators then take
  /// half the bytes of kLanes (at C <= 4 and many pixels they spill out of L2 otherwise).
  int64_t block_lanes() const { return channels <= kNarrowLanes ? kNarrowLanes : kLanes; }
  int64_t padded_channels() const { return lane_padded(channels, block_lanes()); }
  int64_t channel_blocks() const { return padded_channels() / block_lanes(); }
};

/// Calls body with std::integral_constant<int, W> for the layout's block_lanes() W. Always
/// inlined, so a body on the widest ISA stays there.
template <typename Body>
GRADCONF_ALWAYS_INLINE void with_block_lanes(const SamplerLayout& l, Body&& body) {
  if (l.block_lanes() == kNarrowLanes) return body(std::integral_constant<int, kNarrowLanes>{});
  return body(std::integral_constant<int, kLanes>{});
}

/// Where a located point sends its gradOutput in the inputGrad scatter: pixel offsets inside an
/// input plane (y * W + x) with their weights, fixed tap order (1 nearest, 4 bilinear, 16
/// bicubic). Taps outside the input have an offset past the plane, their trash slot (trash_slot):
/// the scatter adds them there, without a branch.
template <int kTaps>
struct ScatterTapsOf {
  static constexpr int kCount = kTaps;
  int64_t offset[kTaps];
  double weight[kTaps];
};
/// Nearest's one tap has weight 1 (1 * g == g exactly, NaN and inf included): only its pixel is
/// recorded, half the bytes the scatter reads per point.
struct NearestScatterTaps {
  static constexpr int kCount = 1;
  int64_t offset[1];
};
using ScatterTaps = ScatterTapsOf<4>;
using BicubicScatterTaps = ScatterTapsOf<16>;

/// Bilinear records of points located in lanes (source_lanes.h; records_fit_lanes):
/// the tap offsets and the fractions tx, ty, from which the scatter forms each weight as
/// BilinearWeightLanes does, (1 - ty or ty) * (1 - tx or tx) in double: the same doubles in 24
/// bytes instead of 64 (the point pass streams every record out and the scatter reads it back once
/// per block of channels).
struct BilinearFractionTaps {
  static constexpr int kCount = 4;
  int32_t offset[4];
  float tx, ty;
};

/// Tap k's scatter weight.
template <int kTaps>
GRADCONF_ALWAYS_INLINE double tap_weight(const ScatterTapsOf<kTaps>& t, int k) {
  return t.weight[k];
}
GRADCONF_ALWAYS_INLINE double tap_weight(const BilinearFractionTaps& t, int k) {
  return bilinear_weight(t.tx, t.ty, k);
}

/// Calls body with a null pointer of the interpolation's scatter-tap type (`fractions`: bilinear
/// records as BilinearFractionTaps). Always inlined, so a body on the widest ISA stays there.
template <typename Body>
GRADCONF_ALWAYS_INLINE void with_scatter_taps(Interpolation interpolation, Body&& body,
                                              bool fractions = false) {
  switch (interpolation) {
    case Interpolation::kNearest:
      return body(static_cast<NearestScatterTaps*>(nullptr));
    case Interpolation::kBicubic:
      return body(static_cast<BicubicScatterTaps*>(nullptr));
    default:
      if (fractions) return body(static_cast<BilinearFractionTaps*>(nullptr));
      return body(static_cast<ScatterTaps*>(nullptr));
  }
}

/// Trash slots after an accumulator's pixels. Consecutive trash taps go to different slots: one
/// slot would chain every one of them through a store and a load.
inline constexpr int64_t kTrashSlots = 16;

/// The offset a record gives tap k (of `taps`) of the point in lane `lane` of its block when the
/// tap falls outside the input: a trash slot past the plane's `pixels`, so that the scatter of a
/// whole plane adds every tap at its record's offset without a check (a compare and a select per
/// tap and block of channels).
inline int64_t trash_slot(int64_t pixels, int k, int lane, int taps) {
  return pixels + ((k + taps * lane) & (kTrashSlots - 1));
}

/// Whether the backward's point pass may locate points in lanes on this plane: its records'
/// offsets, trash slots included, are int32 lanes there.
inline bool records_fit_lanes(const SamplerLayout& l) {
  return l.pixels() <= INT_MAX - kTrashSlots;
}

inline int scatter_tap_count(Interpolation interpolation) {
  int count = 0;
  with_scatter_taps(interpolation,
                    [&](auto* taps) { count = std::extent_v<decltype(taps->offset)>; });
  return count;
}

inline int64_t scatter_bytes_per_point(Interpolation interpolation) {
  int64_t bytes = 0;
  with_scatter_taps(interpolation, [&](auto* taps) { bytes = sizeof(*taps); });
  return bytes;
}

/// Which outputs a backward call computes, and in what it computes.
struct BackwardWants {
  bool input_grad = true;
  bool grid_grad = true;
  Interpolation interpolation = Interpolation::kBilinear;
  int64_t value_bytes = sizeof(float);  ///< of the channels-last copies: compute_t of the dtype
  /// The passes read gradOutput where it is, kLanes points of a plane at a time transposed in
  /// registers, not from a channels-last copy (grad_output_readable_in_place below).
  bool grad_output_in_place = false;
  /// The point pass writes gradOutput's channels-last rows (transposed in registers from where
  /// it is) for the inputGrad scatter, which then reads rows rather than transposing again.
  bool grad_rows_by_points = false;
  /// gridGrad reads input and gradOutput (nearest's gridGrad is zero and reads nothing).
  bool grid_reads() const { return grid_grad && interpolation != Interpolation::kNearest; }
  bool copies_grad_output() const { return (grid_reads() || input_grad) && !grad_output_in_place; }
};

/// Whether the passes can read gradOutput where it is: values below double (loaded and
/// transposed as floats) and each plane's points one stride apart. The copy's write and reread
/// were a third of the nearest backward's time.
inline bool grad_output_readable_in_place(const aclTensor& grad_output) {
  const auto& dims = grad_output.view_dims;
  const auto& strides = grad_output.strides;
  const bool points_evenly_strided =
      dims[2] <= 1 || checked_mul(dims[3], strides[3]) == std::optional<int64_t>(strides[2]);
  return grad_output.dtype != ACL_DOUBLE && points_evenly_strided;
}

/// Float bilinear with more than kNarrowLanes (fewer: narrow_copy_pays) and at most this many
/// channels reads the input planes directly (each channel's taps gathered in lanes, one hardware
/// gather per tap on the AVX2 and AVX-512 paths) where the channels-last forward's workers could
/// not each copy and sample whole batches or channel groups of their own (forward_workspace).
/// There the copy's sampler (bilinear_from_copy) wins: 1 thread, 64 x 64 planes, C 32 N 4
/// 0.59-0.65 -> 0.27-0.30 ms, N 1 0.134 -> 0.069, C 64 N 2 0.65-0.71 -> 0.25-0.27; a shared copy
/// lost to the gathers (N 1, C 32 at 2 threads 0.074 -> 0.092: half of each worker's tap rows
/// were the other core's lines), as did groups of 16 channels (0.089).
inline constexpr int64_t kDirectBilinearChannels = 64;

/// A channels-last forward split into items of (batch, group of channels): each item is copied
/// and sampled by one worker, start to end, so no worker reads copy lines another core wrote (a
/// shared copy gives each worker half its tap rows from the other core's cache).
struct ChannelGroups {
  int64_t channels_per_group = 0, groups = 0;
};
/// Fewer channels per group than this and each worker's locating of every point outweighs
/// what the private copy saves (bicubic N 1, C 32, 64 x 64 at 2 threads in two groups of 16:
/// 0.29-0.31 -> 0.34-0.35 ms; two groups of 32 of C 64: 0.57-0.60 -> 0.50).
inline constexpr int64_t kMinGroupChannels = 32;

/// Items that `parts` workers take the same number of: channels are split only as far as the
/// batches alone do not divide evenly. None when that needs groups narrower than
/// kMinGroupChannels.
inline std::optional<ChannelGroups> private_channel_groups(int64_t batches, int64_t channels,
                                                           int parts) {
  const int64_t wanted = parts / std::gcd<int64_t>(batches, parts);
  const int64_t per_group = lane_padded((channels + wanted - 1) / wanted);
  const int64_t groups = (channels + per_group - 1) / per_group;
  if (batches * groups % parts != 0 || (groups > 1 && per_group < kMinGroupChannels))
    return std::nullopt;
  return ChannelGroups{per_group, groups};
}

/// The values in a row of the channels-last forward's copy: bilinear located in lanes keeps C <=
/// kNarrowLanes in rows of kNarrowLanes (bilinear_from_copy transposes a tap's rows of a group);
/// every other sampler loads kLanes channels at a time.
inline int64_t forward_copy_row(const SamplerLayout& l, Interpolation interpolation) {
  const bool narrow = interpolation == Interpolation::kBilinear && l.pixels() <= INT_MAX;
  return narrow ? l.padded_channels() : lane_padded(l.channels);
}

/// The channels-last forward's grain: a point reads each tap's row of the copy.
inline int64_t channels_last_grain(const SamplerLayout& l, Interpolation interpolation) {
  const double taps = interpolation == Interpolation::kBicubic ? 16.0 : 4.0;
  return grain_for_work(taps * double(forward_copy_row(l, interpolation)));
}

/// How many workers the channels-last forward splits a call's points across.
inline int channels_last_parts(const SamplerLayout& l, Interpolation interpolation) {
  return parallel_parts(l.n_batch * l.points(), channels_last_grain(l, interpolation));
}

/// Bilinear of at most kNarrowLanes channels samples a copy in rows of four (bilinear_from_copy)
/// only where the copy pays: at 3 or 4 channels, with at least a quarter as many points as pixels
/// per batch; elsewhere the direct kernel's gathers read the planes. AVX2 (Zen 3), float, 1
/// thread, 256 x 256 input: C 4 with 256 x 256 points 1.27-1.35 -> 0.69 ms (bfloat16 2.2-2.6 ->
/// 1.0-1.4), 128 x 128 points 0.31 -> 0.23, 64 x 64 points 0.078 -> 0.113; C 3 1.1-1.8 ->
/// 0.73-0.81, 128 x 128 points 0.43 -> 0.32; C 2 about even; C 1 0.57-1.04 -> 0.70-0.95.
inline bool narrow_copy_pays(const SamplerLayout& l) {
  return l.channels >= 3 && l.points() >= l.pixels() / 4;
}

/// The forward's workspace: bilinear and bicubic below double sample a channels-last float copy
/// of the input; 0 (the direct kernel, which reads the input where it is) for nearest, double,
/// bilinear of at most kNarrowLanes channels where the copy does not pay (narrow_copy_pays),
/// float bilinear of at most kDirectBilinearChannels that the workers would share a copy of, or a
/// copy whose size is not representable.
inline uint64_t forward_workspace(const CallArgs& a) {
  const SamplerLayout l(*a.input, *a.grid);
  const auto interpolation = static_cast<Interpolation>(a.interpolation_mode);
  if (l.empty() || interpolation == Interpolation::kNearest || a.input->dtype == ACL_DOUBLE)
    return 0;
  const bool direct_gathers =
      a.input->dtype == ACL_FLOAT && l.channels > kNarrowLanes &&
      l.channels <= kDirectBilinearChannels &&
      !private_channel_groups(l.n_batch, l.channels, channels_last_parts(l, interpolation));
  // Few channels on planes past int32 offsets would be copied in rows of kLanes, mostly padding.
  const bool narrow_direct =
      l.channels <= kNarrowLanes &&
      (forward_copy_row(l, interpolation) > kNarrowLanes || !narrow_copy_pays(l));
  if (interpolation == Interpolation::kBilinear && (direct_gathers || narrow_direct)) return 0;
  // The copy's rows and one row of zeros, which a bilinear tap outside reads (bilinear_from_copy).
  const auto pixels = checked_mul(l.n_batch, l.pixels());
  const auto rows = pixels ? checked_add(*pixels, int64_t{1}) : std::nullopt;
  const auto values = rows ? checked_mul(*rows, forward_copy_row(l, interpolation)) : std::nullopt;
  const auto bytes = values ? checked_mul(*values, int64_t{sizeof(float)}) : std::nullopt;
  if (!bytes || static_cast<uint64_t>(*bytes) > kMaxWorkspaceBytes) return 0;
  return static_cast<uint64_t>(*bytes);
}

/// What a validated backward call asks for.
inline BackwardWants wants_of(const CallArgs& a) {
  BackwardWants wants{.input_grad = bool(a.output_mask->values[0]),
                      .grid_grad = bool(a.output_mask->values[1]),
                      .interpolation = static_cast<Interpolation>(a.interpolation_mode),
                      .value_bytes = a.input->dtype == ACL_DOUBLE ? 8 : 4};
  wants.grad_output_in_place = grad_output_readable_in_place(*a.grad_output);
  return wants;
}

/// The point pass's grain: a point's gridGrad reads its 4 taps' rows and its own.
inline int64_t point_grain(const SamplerLayout& l) {
  return grain_for_work(8.0 * double(l.padded_channels()));
}

/// How many workers the point pass splits into with `threads` threads.
inline int point_workers(const SamplerLayout& l, int threads) {
  const auto points = checked_mul(l.n_batch, l.points());
  if (l.empty() || !points) return 1;
  return parallel_parts(*points, point_grain(l), threads);
}

/// A private channels-last input copy is at most this large: a worker's copy should stay in its
/// own L2 while its points gather from it.
inline constexpr double kMaxPrivateCopyBytes = 2.0 * 1024 * 1024;

/// Channels-last input copies for the point pass: one per point-pass worker when a single batch of
/// few channels (rows of at most kLanes) is split across workers and sampled at least as often as
/// it has pixels. Each worker then copies the whole input itself and gathers from its own cache;
/// from one shared copy, every worker's taps fell on lines another core had written (N 1, C 4,
/// 256 x 256 at 2 threads: 2.11-2.24 ms with the shared copy, 1.58-1.67 with private ones). Else 1.
/// Phase 2 leaves every copy unused where the gridGrad gathers from the input planes instead
/// (backward_kernel.h, gathers_input_planes: float, C <= 4, bilinear, AVX2 or AVX-512).
inline int private_input_copies(const SamplerLayout& l, const BackwardWants& wants,
                                int point_workers) {
  if (point_workers <= 1 || !wants.grid_reads() || l.n_batch != 1 || l.padded_channels() > kLanes ||
      4.0 * double(l.points()) < double(l.pixels()))
    return 1;
  const double bytes = double(l.pixels()) * double(l.padded_channels()) * double(wants.value_bytes);
  return bytes <= kMaxPrivateCopyBytes ? point_workers : 1;
}

/// Byte offsets of the workspace regions, in this order:
///   scatter         the scatter taps of every point (inputGrad); with record lists (below), a
///                   list of taps per (batch, chunk of points, pixel range);
///   record_indices  with record lists: the point (within its batch) of each list entry;
///   record_counts   with record lists: each list's length;
///   grad_output     gradOutput channels-last, one padded row per point (copies_grad_output());
///   input           input channels-last, one padded row per pixel and a zero row per batch
///                   (gridGrad; input_copy_rows); input_copies of them, one per point-pass
///                   worker, when private_input_copies says so;
///   accumulators    one accumulator per worker (inputGrad): block_lanes() doubles per pixel of a
///                   plane, then kTrashSlots trash slots.
struct BackwardWorkspace {
  uint64_t scatter = 0, record_indices = 0, record_counts = 0, grad_output = 0, input = 0,
           accumulators = 0;
  uint64_t accumulator_bytes = 0;  ///< of one worker's accumulator
  int input_copies = 1;
  uint64_t input_copy_bytes = 0;  ///< of one input copy, aligned: copy k starts k times this in
  /// Record lists: 0 when the point pass stores every point's taps in point order, else how many
  /// chunks each batch's points are split into (see record_chunks).
  int64_t record_chunks = 0;
  /// The pixel ranges the inputGrad pass splits a plane into: pixel_ranges() with record lists,
  /// else 1 (a plan whose lists would not fit scatters whole planes).
  int64_t record_ranges = 1;
  int64_t list_capacity = 0;  ///< entries a list has room for: the longest chunk, in kLanes runs
  /// Batches whose copies and records the regions hold: every batch, or in a batch-major plan
  /// one per worker (batch_major_workers).
  int64_t batch_slots = 0;
  uint64_t total = 0;
};

/// inputGrad tasks: one per (batch, channel block, pixel range); the plane is split into ranges
/// only when there are fewer (batch, block) pairs than threads. Any split gives the same bits.
inline int64_t pixel_ranges(const SamplerLayout& l, int threads) {
  const int64_t blocks = l.n_batch * l.channel_blocks();
  if (blocks >= threads || l.in_h <= 1) return 1;
  return std::min<int64_t>(l.in_h, (threads + blocks - 1) / blocks);
}

/// Pixel range r of `ranges`: input rows [first_row, end_row) = [r * in_h / ranges, (r + 1) *
/// in_h / ranges), as pixel offsets [first, first + count).
struct PixelRange {
  int64_t first_row, end_row, first, count;
  PixelRange(const SamplerLayout& l, int64_t r, int64_t ranges)
      : first_row(r * l.in_h / ranges),
        end_row((r + 1) * l.in_h / ranges),
        first(first_row * l.in_w),
        count((end_row - first_row) * l.in_w) {}
  GRADCONF_ALWAYS_INLINE bool holds(int64_t pixel) const {
    return static_cast<uint64_t>(pixel - first) < static_cast<uint64_t>(count);
  }
  /// Whether a tap of `taps` falls inside (taps outside the input have offsets past the plane).
  template <typename Taps>
  GRADCONF_ALWAYS_INLINE bool reached_by(const Taps& taps) const {
    bool hit = false;
    for (int k = 0; k < Taps::kCount; ++k) hit |= holds(taps.offset[k]);
    return hit;
  }
  /// reached_by of kLanes points' records whose `taps` offsets are in lanes (lane_point_taps),
  /// as bits (bit j: point j). In lanes every offset, the outside one included, fits int32.
  GRADCONF_ALWAYS_INLINE unsigned reached_by(const MaskLanes (&offsets)[4], int taps) const {
    BitLanes hit = {};
    for (int k = 0; k < taps; ++k) {
      hit |= __builtin_convertvector(offsets[k], BitLanes) - static_cast<uint32_t>(first) <
             static_cast<uint32_t>(count);
    }
    unsigned bits = 0;
    for (int j = 0; j < kLanes; ++j) bits |= (hit[j] & 1u) << j;
    return bits;
  }
};

/// Accumulators the inputGrad pass can use: one per worker, no more workers than tasks, and no
/// more than its work pays for (a small scatter stays whole on one worker: split into row ranges
/// it was about 10% slower, and on 2 workers slower still).
inline int accumulator_workers(const SamplerLayout& l, int threads) {
  if (l.empty()) return 1;
  const double scatter_work =  // in double: the sizes are not yet checked against overflow
      double(l.n_batch) * double(l.padded_channels()) *
      (4.0 * double(l.out_h) * double(l.out_w) + double(l.in_h) * double(l.in_w));
  threads = workers_for_work(scatter_work, threads);
  const auto tasks = checked_mul(l.n_batch, l.channel_blocks());
  const int64_t count = tasks ? *tasks * pixel_ranges(l, threads) : INT64_MAX;
  return static_cast<int>(std::clamp<int64_t>(count, 1, std::max(threads, 1)));
}

/// Record lists: when the inputGrad pass splits a plane into pixel ranges, the point pass files
/// each point's taps under every range it reaches, in point order, in chunks of each batch's
/// points (one chunk per point-pass worker, at most one per inputGrad worker: the workspace stays
/// sized by the workers that can work), so that a range's task reads its own points' taps rather
/// than every point's (N 1, C 4, 256 x 256 at 2 threads: each range's task read all 4 MiB of
/// taps). 0: one record per point in point order. Nearest files none: with its records one
/// offset each (nearest_passes.h), one scatter task per (batch, block) beat both the lists and
/// ranges that each read every record (N 1, C 4, 256 x 256, uniform grid, 2 threads: 0.32, 0.26
/// and 0.21-0.23 ms).
inline int64_t record_chunks(const SamplerLayout& l, const BackwardWants& wants, int workers,
                             int point_workers) {
  if (l.empty() || !wants.input_grad || pixel_ranges(l, workers) <= 1 ||
      wants.interpolation == Interpolation::kNearest)
    return 0;
  return std::clamp(point_workers, 1, std::max(workers, 1));
}

/// The record lists in a workspace laid out as `ws` says: list (chunk, r) for chunk `chunk` (batch
/// n's chunks are n * chunks .. n * chunks + chunks - 1) and pixel range r, `capacity` entries
/// each.
struct RecordLists {
  std::byte* records;
  int64_t* indices;  ///< each entry's point within its batch
  int64_t* counts;
  int64_t chunks, ranges, capacity;
  RecordLists(std::byte* workspace, const BackwardWorkspace& ws)
      : records(workspace + ws.scatter),
        indices(reinterpret_cast<int64_t*>(workspace + ws.record_indices)),
        counts(reinterpret_cast<int64_t*>(workspace + ws.record_counts)),
        chunks(ws.record_chunks),
        ranges(ws.record_ranges),
        capacity(ws.list_capacity) {}
  int64_t list(int64_t chunk, int64_t r) const { return chunk * ranges + r; }
  template <typename Taps>
  Taps* taps(int64_t list) const {
    return reinterpret_cast<Taps*>(records) + list * capacity;
  }
  int64_t* points(int64_t list) const { return indices + list * capacity; }
};

/// Batch-major plans: each worker takes whole batches and runs the three passes on one batch
/// before the next, so that batch's input copy, records and accumulator are still in its core's
/// L2 when the next pass reads them (copying all batches first evicted the first ones: N 4, C 32,
/// 64 x 64 at 1 thread took 2.22 ms, its batches alone 0.49 ms each). Taken when the batches split
/// evenly over the inputGrad pass's workers and the point pass would use no more of them (a pass
/// over all batches splits points and planes finer); the regions then hold one batch per worker.
/// Returns those workers, else 0.
inline int batch_major_workers(const SamplerLayout& l, int workers, int point_workers) {
  if (l.empty() || l.n_batch < 2 || workers < 1 || l.n_batch % workers != 0 ||
      point_workers > workers)
    return 0;
  return workers;
}

/// The rows of one batch's channels-last input copy: its pixels', then a row of zeros, where the
/// gridGrad of points located in lanes reads the taps outside the input (narrow_coordinate_grads).
inline int64_t input_copy_rows(const SamplerLayout& l) { return l.pixels() + 1; }

/// One batch's share of the regions that hold every batch in turn: its records (one per point),
/// gradOutput rows and input rows (input_copy_rows). nullopt where a size is not representable.
struct BatchBytes {
  std::optional<int64_t> records, grad_rows, input_rows;
};
inline BatchBytes batch_bytes(const SamplerLayout& l, const BackwardWants& wants) {
  const auto row_bytes = checked_mul(l.padded_channels(), wants.value_bytes);
  const auto rows = [&](int64_t count) {
    return row_bytes ? checked_mul(count, *row_bytes) : std::nullopt;
  };
  return {checked_mul(l.points(), scatter_bytes_per_point(wants.interpolation)), rows(l.points()),
          rows(input_copy_rows(l))};
}

/// Worker `slot`'s regions in a batch-major workspace: batch `slot` of those it holds, and the
/// shared accumulators (each worker uses its own). The workspace was laid out for these sizes.
inline BackwardWorkspace batch_slot(const BackwardWorkspace& ws, const SamplerLayout& l,
                                    const BackwardWants& wants, int64_t slot) {
  BackwardWorkspace own = ws;
  const BatchBytes batch = batch_bytes(l, wants);
  const auto at = static_cast<uint64_t>(slot);
  if (wants.input_grad) own.scatter += at * static_cast<uint64_t>(*batch.records);
  if (wants.copies_grad_output()) own.grad_output += at * static_cast<uint64_t>(*batch.grad_rows);
  if (wants.grid_reads()) own.input += at * static_cast<uint64_t>(*batch.input_rows);
  own.batch_slots = 1;
  return own;
}

/// The regions for `copies` input copies and `chunks` record chunks (0: no record lists).
inline std::optional<BackwardWorkspace> workspace_regions(const SamplerLayout& l,
                                                          const BackwardWants& wants, int workers,
                                                          int copies, int64_t chunks) {
  BackwardWorkspace ws;
  if (l.empty()) return ws;
  const auto times = [](std::optional<int64_t> a, int64_t b) {
    return a ? checked_mul(*a, b) : std::nullopt;
  };
  const auto if_used = [](bool used, std::optional<int64_t> bytes) {
    return used ? bytes : std::optional<int64_t>(0);
  };
  const BatchBytes batch = batch_bytes(l, wants);
  const auto slots = checked_add(l.pixels(), kTrashSlots);
  // Whole runs of kLanes entries: each list then starts on a cache line (StagedRecords).
  const int64_t capacity =
      chunks > 0 ? ((l.points() + chunks - 1) / chunks + kLanes - 1) / kLanes * kLanes : 0;
  const int64_t ranges = chunks > 0 ? pixel_ranges(l, workers) : 1;
  const auto lists = times(times(l.n_batch, chunks), ranges);
  const auto list_entries = times(lists, capacity);
  const auto copy_bytes = times(batch.input_rows, l.n_batch);
  const auto aligned_copy =
      copy_bytes ? checked_align_up(static_cast<uint64_t>(*copy_bytes), kWorkspaceAlignment)
                 : std::nullopt;
  const bool reads = wants.grid_reads();
  const std::array<std::optional<int64_t>, 6> sizes = {
      if_used(wants.input_grad,
              chunks > 0 ? times(list_entries, scatter_bytes_per_point(wants.interpolation))
                         : times(batch.records, l.n_batch)),
      if_used(chunks > 0, times(list_entries, int64_t{sizeof(int64_t)})),
      if_used(chunks > 0, times(lists, int64_t{sizeof(int64_t)})),
      if_used(wants.copies_grad_output(), times(batch.grad_rows, l.n_batch)),
      if_used(reads, aligned_copy && *aligned_copy <= uint64_t{INT64_MAX}
                         ? times(static_cast<int64_t>(*aligned_copy), copies)
                         : std::nullopt),
      if_used(wants.input_grad,
              times(times(slots, l.block_lanes() * int64_t{sizeof(double)}), workers))};
  std::array<uint64_t, 6> offsets{};
  uint64_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (!sizes[i]) return std::nullopt;
    const auto aligned = checked_align_up(static_cast<uint64_t>(*sizes[i]), kWorkspaceAlignment);
    if (!aligned || *aligned > kMaxWorkspaceBytes - total) return std::nullopt;
    offsets[i] = total;
    total += *aligned;
  }
  ws.scatter = offsets[0];
  ws.record_indices = offsets[1];
  ws.record_counts = offsets[2];
  ws.grad_output = offsets[3];
  ws.input = offsets[4];
  ws.accumulators = offsets[5];
  ws.input_copies = reads ? copies : 1;
  ws.input_copy_bytes = reads ? *aligned_copy : 0;
  ws.record_chunks = chunks;
  ws.record_ranges = ranges;
  ws.list_capacity = capacity;
  ws.batch_slots = l.n_batch;
  ws.accumulator_bytes = wants.input_grad ? static_cast<uint64_t>(*sizes[5]) / workers : 0;
  ws.total = total;
  return ws;
}

/// nullopt when the plain plan (one input copy, one record per point) exceeds kMaxWorkspaceBytes
/// (clause GS-LIMIT-01): the faster layouts are taken only where they fit too, so the limit does
/// not depend on them. Regions a call does not use are not sized at all (their size may not even
/// be representable). `workers`: the inputGrad pass's accumulators; `point_workers`: the point
/// pass's split (point_workers()); `batch_major`: whether a batch-major plan may be taken.
inline std::optional<BackwardWorkspace> backward_workspace(const SamplerLayout& l,
                                                           const BackwardWants& wants, int workers,
                                                           int point_workers,
                                                           bool batch_major = true) {
  auto plain = workspace_regions(l, wants, workers, 1, 0);
  if (!plain) return std::nullopt;
  const int slots = batch_major ? batch_major_workers(l, workers, point_workers) : 0;
  if (slots > 0) {
    SamplerLayout held = l;
    held.n_batch = slots;
    if (auto faster = workspace_regions(held, wants, workers, 1, 0)) return faster;
    return plain;
  }
  const int copies = private_input_copies(l, wants, point_workers);
  const int64_t chunks = record_chunks(l, wants, workers, point_workers);
  if (copies == 1 && chunks == 0) return plain;
  if (auto faster = workspace_regions(l, wants, workers, copies, chunks)) return faster;
  return plain;
}

/// A batch's gradOutput rows that the point pass writes for the scatter (grad_rows_by_points) at
/// most: they should stay in L2 beside the batch's accumulator and records (C 256, 64 x 64, 4 MiB
/// of rows: 2.93 -> 3.07 ms at 1 thread, against the scatter transposing the planes itself).
inline constexpr int64_t kMaxGradRowsBytes = int64_t{1} << 20;

/// `wants` with grad_rows_by_points where it pays: gradOutput read in place by both passes,
/// rows of whole kLanes blocks (they are transposed for gridGrad anyway; C <= 4 reads lanes), a
/// batch's rows within kMaxGradRowsBytes, and each batch's passes on one worker (one worker, or a
/// batch-major plan), so the rows are read back from the cache that wrote them. N 4, C 32,
/// 64 x 64 at 1 thread: 1.54-1.60 -> 1.52-1.54 ms (bf16 1.64-1.66 -> 1.58-1.62, reflection
/// 1.68-1.71 -> 1.64-1.65). Only where its workspace fits (the limit is the plain plan's).
inline BackwardWants with_grad_rows_by_points(const SamplerLayout& l, BackwardWants wants,
                                              int workers, int point_workers, bool batch_major) {
  const double rows_bytes = double(l.points()) * double(l.padded_channels()) * sizeof(float);
  const bool one_worker_per_batch =
      (workers == 1 && point_workers == 1) ||
      (batch_major && batch_major_workers(l, workers, point_workers) > 0);
  if (l.empty() || !wants.grad_output_in_place || !wants.grid_reads() || !wants.input_grad ||
      l.padded_channels() < kLanes || rows_bytes > double(kMaxGradRowsBytes) ||
      !one_worker_per_batch)
    return wants;
  BackwardWants rows = wants;
  rows.grad_output_in_place = false;
  rows.grad_rows_by_points = true;
  return backward_workspace(l, rows, workers, point_workers, batch_major) ? rows : wants;
}

/// A region the point pass clears as it goes (backward_passes: the scatter's accumulator when one
/// worker runs the scatter): the task of point units [lo, hi) of `units` clears its own slice,
/// kClearPerBlock bytes a block and the rest when it ends. Slices, not one cursor: phase 2 may
/// run with more threads than phase 1 planned for, and the point pass then splits across them
/// (a shared cursor lost updates and cleared past the region: a crash in the determinism law on
/// the baseline path).
struct ClearAsYouGo {
  static constexpr uint64_t kClearPerBlock = 256;
  std::byte* at = nullptr;
  uint64_t bytes = 0;
  int64_t units = 1;
  bool done = false;  ///< set by the point pass once every slice is cleared
  /// What one task has left to clear of its slice.
  struct Slice {
    std::byte* at = nullptr;
    uint64_t bytes = 0;
    /// Once per block of points: the next kClearPerBlock bytes, if that many are left. As vector
    /// stores, inlined into the caller's instruction-set path: GCC made the memset of 256 bytes a
    /// string store (rep stos), whose start-up was 17% of the nearest point pass on Zen 3.
    GRADCONF_ALWAYS_INLINE void step() {
      if (bytes < kClearPerBlock) return;
      static_assert(kClearPerBlock % sizeof(LaneVector<float>) == 0);
#pragma GCC unroll 8
      for (uint64_t b = 0; b < kClearPerBlock; b += sizeof(LaneVector<float>))
        store_lanes<float>(reinterpret_cast<float*>(at + b), 1, LaneVector<float>{});
      at += kClearPerBlock;
      bytes -= kClearPerBlock;
    }
    /// When the task ends: the rest.
    void finish() {
      if (bytes > 0) std::memset(at, 0, bytes);
      bytes = 0;
    }
  };
  /// The slice of units [lo, hi) (nothing when there is no region).
  Slice slice(int64_t lo, int64_t hi) const {
    if (!at) return {};
    const auto offset = [&](int64_t unit) {
      return static_cast<uint64_t>(static_cast<unsigned __int128>(bytes) *
                                   static_cast<uint64_t>(unit) / static_cast<uint64_t>(units));
    };
    return {at + offset(lo), offset(hi) - offset(lo)};
  }
};

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_
