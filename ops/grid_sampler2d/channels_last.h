// Channels-last copies of (N, C, H, W) tensors for the kernels: a pixel's (or a grid point's)
// channels become one contiguous row, padded to whole blocks of kLanes, so a kernel handles
// kLanes channels per vector operation at each tap instead of striding across planes.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_CHANNELS_LAST_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_CHANNELS_LAST_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"

namespace gradconf::grid_sampler2d {

/// Transposes 8 x 8 values: on return v[j][i] is what v[i][j] was (AVX's unpack, shuffle and
/// 128-bit permute steps).
template <typename V>
GRADCONF_ALWAYS_INLINE void transpose_lanes(V (&v)[kLanes]) {
  static_assert(kLanes == 8);
  // Unrolled: as loops GCC kept both steps' vectors on the stack.
  V t[8], s[8];
#pragma GCC unroll 4
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(v[i], v[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(v[i], v[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
#pragma GCC unroll 2
  for (int i = 0; i < 8; i += 4) {
    s[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    s[i + 1] = __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    s[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    s[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    v[i] = __builtin_shufflevector(s[i], s[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    v[i + 4] = __builtin_shufflevector(s[i], s[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

/// Transposes the 4 x 4 blocks held in the two 128-bit halves of four vectors: on return, half h
/// of v[i] holds element i of half h of v[0], v[1], v[2], v[3], in that order (two unpack steps).
GRADCONF_ALWAYS_INLINE void transpose_halves(LaneVector<float> (&v)[4]) {
  static_assert(kLanes == 8);
  using V = LaneVector<float>;
  const V t0 = __builtin_shufflevector(v[0], v[1], 0, 8, 1, 9, 4, 12, 5, 13);
  const V t1 = __builtin_shufflevector(v[0], v[1], 2, 10, 3, 11, 6, 14, 7, 15);
  const V t2 = __builtin_shufflevector(v[2], v[3], 0, 8, 1, 9, 4, 12, 5, 13);
  const V t3 = __builtin_shufflevector(v[2], v[3], 2, 10, 3, 11, 6, 14, 7, 15);
  v[0] = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
  v[1] = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
  v[2] = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
  v[3] = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
}

/// The columns of 4 x 8 values: on return column[j][i] is rows[i][j] (transpose_lanes with four
/// zero rows took a step more).
GRADCONF_ALWAYS_INLINE void transpose_4x8(const LaneVector<float> (&rows)[4],
                                          LaneVector<float, 4> (&column)[kLanes]) {
  // Each pair holds two columns: j in its low half, j + 4 in its high half.
  LaneVector<float> pairs[4] = {rows[0], rows[1], rows[2], rows[3]};
  transpose_halves(pairs);
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    column[j] = __builtin_shufflevector(pairs[j], pairs[j], 0, 1, 2, 3);
    column[j + 4] = __builtin_shufflevector(pairs[j], pairs[j], 4, 5, 6, 7);
  }
}

/// transpose_4x8 undone: on return rows[i][j] is column[j][i].
GRADCONF_ALWAYS_INLINE void transpose_8x4(const LaneVector<float, 4> (&column)[kLanes],
                                          LaneVector<float> (&rows)[4]) {
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    rows[j] = __builtin_shufflevector(column[j], column[j + 4], 0, 1, 2, 3, 4, 5, 6, 7);
  }
  transpose_halves(rows);
}

/// Copies src (N, C, H, W) to dst as N * H * W rows of `row` values (channel c at c), the lanes
/// past C zero: 8 x 8 tiles of (channels, columns), transposed in registers. `row` is 4 (C <= 4)
/// or a multiple of kLanes. `shared`: the pass that reads the copy is split across workers.
/// `zero_rows`: rows of zeros after each batch's.
template <typename Val, typename T>
void to_channels_last(const StridedView<const T, 4>& src, Val* dst, int64_t row, bool shared,
                      int64_t zero_rows = 0) {
  const int64_t channels = src.dims[1], height = src.dims[2], width = src.dims[3];
  const int64_t xs = src.strides[3];
  if (width == 0) return;
  // One 8 x 8 tile: channels c.. of columns x.., transposed into the rows of columns x.. (a row
  // of 4, for C <= 4, takes the tile's first 4 channels).
  const int64_t channel_stride = src.strides[1];
  // Rows of at most kLanes make each tile one run of whole lines. When other workers read them
  // they are streamed: another core's random reads of lines this core holds modified cost more
  // than reads from memory (large spatial, C 4, 2 threads: about 1.13x); one worker reads them
  // back from its own cache (streaming was about 1.18x slower there, and 1.2x on small problems
  // that 2 threads leave to one).
  const bool stream = row <= kLanes && shared;
  // Channels first_lane.. of the kLanes columns at `at`, channels past lanes_in zero.
  const auto load_transposed = [&](const T* at, int first_lane, int lanes_in, auto column_stride,
                                   LaneVector<Val>(&tile)[kLanes]) GRADCONF_ALWAYS_INLINE_LAMBDA {
#pragma GCC unroll 8
    for (int i = 0; i < kLanes; ++i) {
      const int lane = first_lane + i;
      tile[i] = lane < lanes_in ? load_lanes<Val>(at + lane * channel_stride, column_stride)
                                : LaneVector<Val>{};
    }
    transpose_lanes(tile);
  };
  // The kLanes columns at `source_columns` (channels past lanes_in zero), transposed into their
  // rows at `out_rows`.
  const auto copy_tile = [&](const T* source_columns, int lanes_in, Val* out_rows,
                             auto column_stride) GRADCONF_ALWAYS_INLINE_LAMBDA {
    LaneVector<Val> tile[kLanes];
    load_transposed(source_columns, 0, lanes_in, column_stride, tile);
    if (stream) {
      alignas(64) Val packed[kLanes * kLanes];
#pragma GCC unroll 8
      for (int j = 0; j < kLanes; ++j) std::memcpy(packed + j * row, &tile[j], row * sizeof(Val));
      stream_copy(out_rows, packed, kLanes * row * sizeof(Val));
      return;
    }
#pragma GCC unroll 8
    for (int j = 0; j < kLanes; ++j) {
      if (row >= kLanes) {
        std::memcpy(out_rows + j * row, &tile[j], sizeof tile[j]);
      } else {
        std::memcpy(out_rows + j * row, &tile[j], 4 * sizeof(Val));
      }
    }
  };
  // Wide rows read by other workers: two tiles (16 channels) at a time, so that each of the 8
  // rows' pieces is one whole line and can be streamed too (a tile's piece is half a line of
  // floats). Streamed, the copy no longer takes ownership of lines the other core's point pass
  // read in the previous call (N 1, C 256, 64 x 64, 2 threads: each worker's half of the copy
  // took 342-357 us, more than the whole copy at 1 thread, 227-233 us; streamed 182-199 us,
  // session 79).
  constexpr int64_t kPairValues = 2 * kLanes;
  const bool stream_pairs = shared && row > kLanes && kPairValues * sizeof(Val) == 64 &&
                            row % kPairValues == 0 && reinterpret_cast<uintptr_t>(dst) % 64 == 0;
  const auto copy_tile_pair = [&](const T* source_columns, int lanes_in, Val* out_rows,
                                  auto column_stride) GRADCONF_ALWAYS_INLINE_LAMBDA {
    LaneVector<Val> tiles[2][kLanes];
    load_transposed(source_columns, 0, lanes_in, column_stride, tiles[0]);
    load_transposed(source_columns, kLanes, lanes_in, column_stride, tiles[1]);
    alignas(64) Val packed[kLanes * kPairValues];
#pragma GCC unroll 8
    for (int j = 0; j < kLanes; ++j) {
      std::memcpy(packed + j * kPairValues, &tiles[0][j], sizeof tiles[0][j]);
      std::memcpy(packed + j * kPairValues + kLanes, &tiles[1][j], sizeof tiles[1][j]);
    }
#pragma GCC unroll 8
    for (int j = 0; j < kLanes; ++j)
      stream_copy(out_rows + j * row, packed + j * kPairValues, kPairValues * sizeof(Val));
  };
  // A value costs a few units (a strided load, its share of the tile's shuffles, a store): at one
  // unit, a 256 x 256 input of 4 channels (about 0.3 ms) stayed on one thread.
  parallel_for(
      0, src.dims[0] * height, grain_for_work(4.0 * double(width) * row),
      [&](int64_t lo, int64_t hi) {
        on_widest_isa([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
          for (int64_t nh = lo; nh < hi; ++nh) {
            const int64_t n = nh / height, h = nh % height;
            Val* rows = dst + (nh * width + n * zero_rows) * row;
            if (h == height - 1) std::fill_n(rows + width * row, zero_rows * row, Val(0));
            const T* line = &src(n, 0, h, 0);
            // A block of kLanes planes at a time along the whole row: its reads are kLanes
            // sequential runs, and each line of rows it writes is finished by the next block
            // while still in L1. The next block's runs are requested into L2 a block ahead
            // (into L1, planes a power of two apart evict each other).
            const int64_t tiled = width / kLanes * kLanes;
            const auto copy_blocks = [&](auto step,
                                         const auto& copy) GRADCONF_ALWAYS_INLINE_LAMBDA {
              constexpr int64_t kStep = decltype(step)::value;
              for (int64_t c = 0; c < row; c += kStep) {
                for (int64_t i = c + kStep; i < std::min(channels, c + 2 * kStep); ++i) {
                  const T* run = line + i * channel_stride;
                  for (int64_t x = 0; x < tiled; x += 64 / sizeof(T))
                    __builtin_prefetch(run + x * xs, 0, 2);
                }
                const int lanes_in = static_cast<int>(std::min<int64_t>(kStep, channels - c));
                const T* planes = lanes_in > 0 ? line + c * channel_stride : line;
                // A unit stride known at compile time: the strided loads' element-by-element
                // fallback kept the tile on the stack.
                if (xs == 1) {
                  for (int64_t x = 0; x < tiled; x += kLanes)
                    copy(planes + x, lanes_in, rows + x * row + c,
                         std::integral_constant<int64_t, 1>{});
                } else {
                  for (int64_t x = 0; x < tiled; x += kLanes)
                    copy(planes + x * xs, lanes_in, rows + x * row + c, xs);
                }
              }
            };
            if (stream_pairs) {
              copy_blocks(std::integral_constant<int64_t, kPairValues>{}, copy_tile_pair);
            } else {
              copy_blocks(std::integral_constant<int64_t, kLanes>{}, copy_tile);
            }
            for (int64_t x = tiled; x < width; ++x) {
              for (int64_t c = 0; c < row; ++c)
                rows[x * row + c] = c < channels ? static_cast<Val>(src(n, c, h, x)) : Val(0);
            }
          }
          stream_fence();
        });
      });
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_CHANNELS_LAST_H_
