// to_channels_last (channels_last.h) against the copy written element by element: every path of
// the copy (tiles of 8 channels, tiles paired into whole streamed lines when another worker reads
// the copy, strided columns, a width that is not a multiple of 8, padded channels, the zero rows
// after each batch) must hold each value's bits at (n, h, x) * row + c, zeros past C, and leave
// every byte after the copy alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "core/parallel.h"
#include "grid_sampler2d/channels_last.h"

namespace gradconf::grid_sampler2d {
namespace {

struct Shape {
  int64_t batches, channels, height, width, row, column_stride, zero_rows;
};

// Random bits for every float (NaN payloads, -0 and subnormals included).
std::vector<float> random_floats(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> values(count);
  for (float& v : values) v = std::bit_cast<float>(static_cast<uint32_t>(rng()));
  return values;
}

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};

void expect_copy(const Shape& s, bool shared, int threads) {
  SCOPED_TRACE(testing::Message() << "N " << s.batches << " C " << s.channels << " H " << s.height
                                  << " W " << s.width << " row " << s.row << " column stride "
                                  << s.column_stride << " zero rows " << s.zero_rows << " shared "
                                  << shared << " threads " << threads);
  const int64_t plane = s.height * s.width * s.column_stride;
  const std::vector<float> source =
      random_floats(static_cast<size_t>(s.batches * s.channels * plane),
                    static_cast<uint32_t>(s.channels * 131 + s.width));
  StridedView<const float, 4> view;
  view.origin = source.data();
  view.dims = {s.batches, s.channels, s.height, s.width};
  view.strides = {s.channels * plane, plane, s.width * s.column_stride, s.column_stride};

  const int64_t rows = s.batches * (s.height * s.width + s.zero_rows);
  const int64_t copied = rows * s.row, guard = 64;
  const size_t bytes = static_cast<size_t>((copied + guard) * sizeof(float) + 63) / 64 * 64;
  std::unique_ptr<float, AlignedFree> copy(static_cast<float*>(std::aligned_alloc(64, bytes)));
  const float canary = std::bit_cast<float>(0x7fc0beefu);
  std::fill_n(copy.get(), copied + guard, canary);

  const int previous = num_threads();
  set_num_threads(threads);
  to_channels_last(view, copy.get(), s.row, shared, s.zero_rows);
  set_num_threads(previous);

  for (int64_t n = 0; n < s.batches; ++n) {
    const float* batch = copy.get() + n * (s.height * s.width + s.zero_rows) * s.row;
    for (int64_t h = 0; h < s.height; ++h) {
      for (int64_t x = 0; x < s.width; ++x) {
        for (int64_t c = 0; c < s.row; ++c) {
          const float want = c < s.channels ? view(n, c, h, x) : 0.0f;
          const float got = batch[(h * s.width + x) * s.row + c];
          ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(want))
              << "at n " << n << " h " << h << " x " << x << " c " << c;
        }
      }
    }
    for (int64_t i = 0; i < s.zero_rows * s.row; ++i) {
      ASSERT_EQ(std::bit_cast<uint32_t>(batch[s.height * s.width * s.row + i]), 0u)
          << "zero row value " << i << " of batch " << n;
    }
  }
  for (int64_t i = 0; i < guard; ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(copy.get()[copied + i]), std::bit_cast<uint32_t>(canary))
        << "the copy wrote " << i << " values past its end";
  }
}

TEST(ChannelsLast, every_value_lands_at_its_row_and_channel_on_every_copy_path) {
  const Shape shapes[] = {
      {1, 3, 5, 13, 4, 1, 0},      // C <= 4: rows of 4
      {2, 8, 4, 16, 8, 1, 1},      // one tile of channels
      {1, 9, 3, 17, 16, 1, 0},     // padded to 16: a pair of tiles, the second mostly zeros
      {1, 16, 4, 24, 16, 1, 1},    // one pair, whole lines
      {2, 24, 3, 11, 24, 1, 0},    // 24: not a whole number of pairs, the tile path
      {1, 33, 2, 40, 48, 1, 0},    // pairs and padded channels past C
      {1, 256, 2, 64, 256, 1, 0},  // the large-C bench case's rows
      {1, 40, 3, 19, 48, 3, 1},    // strided columns
  };
  for (const Shape& s : shapes) {
    for (const bool shared : {false, true}) {
      for (const int threads : {1, 2, 3}) expect_copy(s, shared, threads);
    }
  }
}

}  // namespace
}  // namespace gradconf::grid_sampler2d
