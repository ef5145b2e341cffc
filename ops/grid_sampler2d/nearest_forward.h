// The nearest forward a plane at a time. Nearest copies one pixel per point and channel, so the
// cost is reading the planes: point by point (or kLanes points at a time) over all channels, a
// task visits every plane once per block of points, and planes that do not all fit in L2 come
// from L3 again for every block (N 1, C 256, 64 x 64: 4 MB of planes, 85% of the time on the
// gathers' loads). Here a chunk of points is located once into one int32 per point (the pixel's
// offset) and a bit (whether it samples one: NearestChunk), then each channel copies the whole
// chunk: its plane is read while it sits in L1 beside the chunk's 16 KiB of offsets. Every
// layout: a packed grid is read two vectors per kLanes points and packed output planes take
// kLanes points at a time on the AVX2 path (scalar loads, load_lanes_at_avx2, or one gather),
// other views go point by point. A copy has the same bits for any split.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_FORWARD_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_FORWARD_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/source_lanes.h"

namespace gradconf::grid_sampler2d {

/// Whether nearest_forward_planes serves a forward call: nearest on float coordinates (located
/// in lanes) whose plane offsets fit int32 lanes.
template <typename T>
bool nearest_forward_by_planes(const ForwardPlan& plan) {
  return std::is_same_v<compute_t<T>, float> &&
         plan.attrs.interpolation == Interpolation::kNearest &&
         plane_fits_lanes(view_of<const T, 4>(plan.input));
}

/// Points per chunk: their offsets (16 KiB) and a 64 x 64 float plane fit a 48 KiB L1 together.
inline constexpr int64_t kNearestChunkPoints = 4096;

/// A chunk of located points: each point's pixel as its offset inside an input plane, or where
/// the point samples 0 (outside, or not addressable) -1; or, when `by_loads` (the AVX2 path reads
/// kLanes pixels with one scalar load each: kernel_gathers_by_loads), 0 there, so that every
/// offset can be read, and whether each point samples a pixel in `inside`, a bit per point and a
/// byte per kLanes points. (The gather instruction's mask taken from those bits cost 10% more
/// than from the offsets' signs.)
struct NearestChunk {
  static_assert(kLanes == 8);
  alignas(64) int32_t pixel[kNearestChunkPoints];
  uint8_t inside[kNearestChunkPoints / kLanes];
  bool by_loads = false;
};

/// The chunk of `count` points from `first` (a point index over the batches) located into
/// `chunk`.
template <typename T, Fault kFault>
GRADCONF_ALWAYS_INLINE void nearest_chunk_pixels(const StridedView<const T, 4>& grid,
                                                 PointIndex first, int64_t count, int64_t in_h,
                                                 int64_t in_w, int32_t row_stride,
                                                 int32_t column_stride, const Attributes& a,
                                                 NearestChunk& chunk) {
  const bool packed = packed_row_major(grid);
  const T* batch_grid = &grid(first.n, 0, 0, 0);
  const int64_t p0 = first.h * first.out_w + first.w;
  PointIndex next = first;
  for (int64_t i = 0; i < count; i += kLanes) {
    const int in_block = static_cast<int>(std::min<int64_t>(kLanes, count - i));
    FloatLanes x, y;
    if (packed) {
      packed_points(batch_grid, p0 + i, in_block, x, y);
    } else {
      PointIndex at[kLanes];
      next_points(next, in_block, grid, at, x, y);
    }
    const SourceLanes s =
        locate_lanes<kFault>(x, y, in_h, in_w, Interpolation::kNearest, a.padding, a.align_corners);
    const BilinearTapLanes<kFault> t(s, in_h, in_w, Interpolation::kNearest, row_stride,
                                     column_stride);
    if (chunk.by_loads) {
      std::memcpy(chunk.pixel + i, &t.offset[0], sizeof(int32_t) * in_block);
      const MaskLanes bits = t.inside[0] & MaskLanes{1, 2, 4, 8, 16, 32, 64, 128};
      int32_t inside = 0;
      for (int j = 0; j < kLanes; ++j) inside |= bits[j];
      chunk.inside[i / kLanes] = static_cast<uint8_t>(inside & ((1 << in_block) - 1));
    } else {
      const MaskLanes offsets = t.inside[0] ? t.offset[0] : MaskLanes{} - 1;
      std::memcpy(chunk.pixel + i, &offsets, sizeof(int32_t) * in_block);
    }
  }
}

/// One channel of a chunk of `count` points from `first`: out(n, c, point) from `plane` at the
/// chunk's pixels. `gathers`: kLanes points at a time on the AVX2 path, by scalar loads or by the
/// gather instruction as the chunk says. kByLoads: chunk.by_loads (a test per point of a flag the
/// compiler did not hoist made the bfloat16 copy 50% slower).
template <bool kByLoads, typename T>
GRADCONF_ALWAYS_INLINE void copy_nearest_pixels(const T* plane, const NearestChunk& chunk,
                                                int64_t count, const StridedView<T, 4>& out,
                                                PointIndex first, int64_t c, bool gathers) {
  const auto pixel_value = [&](int64_t i) {
    const bool samples =
        kByLoads ? (chunk.inside[i / kLanes] >> (i % kLanes) & 1) != 0 : chunk.pixel[i] >= 0;
    return samples ? plane[chunk.pixel[i]] : T(0);
  };
  if (!planes_packed(out)) {
    for (int64_t i = 0; i < count; ++i, first.next())
      out(first.n, c, first.h, first.w) = pixel_value(i);
    return;
  }
  T* line = &out(first.n, c, first.h, first.w);
  int64_t i = 0;
  if constexpr (std::is_same_v<T, float>) {
    if (gathers && kByLoads) {
      for (; i + kLanes <= count; i += kLanes)
        load_lanes_at_avx2(plane, chunk.pixel + i, chunk.inside[i / kLanes], line + i);
    } else if (gathers) {
      for (; i + kLanes <= count; i += kLanes) {
        MaskLanes offset;
        std::memcpy(&offset, chunk.pixel + i, sizeof offset);
        gather_lanes_avx2(plane, offset, offset >= 0, line + i);
      }
    }
  }
  for (; i < count; ++i) line[i] = pixel_value(i);
}

template <typename T, Fault kFault>
void nearest_forward_planes(const ForwardPlan& plan) {
  const auto input = view_of<const T, 4>(plan.input);
  const auto grid = view_of<const T, 4>(plan.grid);
  const auto out = view_of<T, 4>(plan.out);
  const int64_t channels = input.dims[1], in_h = input.dims[2], in_w = input.dims[3];
  const int64_t points = grid.dims[1] * grid.dims[2];
  const int64_t chunks = (points + kNearestChunkPoints - 1) / kNearestChunkPoints;
  const auto row_stride = static_cast<int32_t>(input.strides[2]);
  const auto column_stride = static_cast<int32_t>(input.strides[3]);
  const bool gathers = kFault == Fault::kNone && kernel_isa() != Isa::kBaseline;
  // An item is one channel of one chunk, channels innermost: a task locates its first chunk and
  // each next one; a split inside a chunk's channels locates that chunk twice (about a tenth of
  // a channel-plane copy per point, so an item costs about that much more where channels are
  // few).
  const int64_t items = input.dims[0] * chunks * channels;
  const int64_t grain = grain_for_work(static_cast<double>(std::min(points, kNearestChunkPoints)) *
                                       (1.0 + 8.0 / channels));
  parallel_for(0, items, grain, [&](int64_t lo, int64_t hi) {
    on_widest_isa<kFault == Fault::kNone>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      NearestChunk chunk;
      chunk.by_loads = std::is_same_v<T, float> && gathers && kernel_gathers_by_loads();
      int64_t located = -1;  // the (batch, chunk) whose pixels `chunk` holds
      for (int64_t item = lo; item < hi; ++item) {
        const int64_t batch_chunk = item / channels, c = item % channels;
        const int64_t n = batch_chunk / chunks, p0 = batch_chunk % chunks * kNearestChunkPoints;
        const int64_t count = std::min(kNearestChunkPoints, points - p0);
        const PointIndex first(n * points + p0, grid.dims[1], grid.dims[2]);
        if (batch_chunk != located) {
          nearest_chunk_pixels<T, kFault>(grid, first, count, in_h, in_w, row_stride, column_stride,
                                          plan.attrs, chunk);
          located = batch_chunk;
        }
        if (chunk.by_loads) {
          copy_nearest_pixels<true>(&input(n, c, 0, 0), chunk, count, out, first, c, gathers);
        } else {
          copy_nearest_pixels<false>(&input(n, c, 0, 0), chunk, count, out, first, c, gathers);
        }
      }
    });
  });
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_FORWARD_H_
