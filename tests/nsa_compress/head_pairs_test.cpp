// head_pairs_avx512.h's rows give the generic rows' bits (kernels.h's sum_token_row, one head at
// a time, then Eigen's rounding to bfloat16 or binary16 and combine_lane_vector), in both types:
// both heads' inputGrad rows and every cover's dot, for one and two covers, D 32-256, streamed
// and stored, on and off cache lines, with outputGrad values that make NaN, infinite, subnormal
// and signed-zero sums (the narrowing's fallback) and NaN inputs (the dots' NaN payloads; a
// signalling one takes the binary16 widening's fallback). Only where the CPU has AVX512_BF16, the
// only place the backward takes these rows.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/random.h"
#include "nsa_compress/backward_kernel.h"

namespace gradconf::nc {
namespace {

template <typename T>
struct GenericRow {
  std::vector<T> input_grad;
  float dots[2];
};

template <typename T>
GenericRow<T> generic_row(const T* input, int64_t dim, const std::vector<const float*>& rows,
                          const std::vector<float>& weights) {
  std::vector<Cover<float>> covers;
  for (size_t c = 0; c < rows.size(); ++c)
    covers.push_back({rows[c], weights[c], static_cast<int64_t>(c)});
  std::vector<float> sums(static_cast<size_t>(dim));
  GenericRow<T> out{std::vector<T>(static_cast<size_t>(dim)), {}};
  const auto sum = [&](auto& lanes) {
    sum_token_row<kWideRowLanes, Fault::kNone>(input, std::integral_constant<int64_t, 1>{}, dim,
                                               covers.data(), lanes, sums.data());
    for (size_t c = 0; c < covers.size(); ++c)
      out.dots[c] = combine_lane_vector<float>(lanes.get(c));
  };
  if (covers.size() == 1) {
    DotLanes<float, 1> lanes;
    sum(lanes);
  } else {
    DotLanes<float, 2> lanes;
    sum(lanes);
  }
  for (int64_t d = 0; d < dim; ++d) out.input_grad[d] = static_cast<T>(sums[d]);
  return out;
}

template <typename T>
uint16_t bits_of(T v) {
  return std::bit_cast<uint16_t>(v);
}

struct PairCase {
  int64_t dim;
  int covers;
  bool streaming;
  bool on_lines;
  bool special;
};

template <typename T>
void expect_generic_bits(const PairCase& pc, uint64_t seed) {
  const int64_t dim = pc.dim;
  SplitMix64 rng(seed, static_cast<uint64_t>(dim * 8 + pc.covers));
  const auto value = [&] { return static_cast<float>(rng.uniform(-1, 1)); };
  std::vector<T> input(static_cast<size_t>(2 * dim));
  for (auto& v : input) v = static_cast<T>(value());
  // outputGrad rows per (cover, head), as floats that are T values (the converted rows).
  std::vector<std::vector<float>> output_grad(2 * pc.covers, std::vector<float>(dim));
  for (auto& row : output_grad) {
    for (auto& v : row) v = static_cast<float>(static_cast<T>(value()));
  }
  std::vector<float> weights(2 * pc.covers);
  for (auto& w : weights) w = static_cast<float>(static_cast<T>(value()));
  if (pc.special) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    output_grad[0][1] = nan;
    output_grad[0][dim - 1] = inf;
    output_grad[0][9] = 1e-39f;  // subnormal products and sums
    output_grad[1][9] = 1e-39f;
    output_grad[0][17] = -0.0f;  // +0 plus -0 products
    output_grad[1][17] = -0.0f;
    output_grad[1][30] = 3e38f;  // an overflowing sum where two covers add up
    output_grad.back()[30] = 3e38f;
    input[3] = static_cast<T>(nan);          // a NaN dot for head n
    input[dim + 12] = static_cast<T>(-inf);  // and an infinite one for head n + 1
    // A signalling NaN input, which vcvtph2ps would quiet.
    input[dim + 20] =
        std::bit_cast<T>(std::is_same_v<T, half> ? uint16_t{0x7d01} : uint16_t{0x7f81});
  }
  // The interleaved rows a head pair reads: [cover] -> 2 dim floats.
  std::vector<std::vector<float>> pairs(pc.covers, std::vector<float>(2 * dim));
  for (int c = 0; c < pc.covers; ++c) {
    for (int odd = 0; odd < 2; ++odd) {
      for (int64_t d = 0; d < dim; ++d)
        pairs[c][head_pair_offset(d, odd)] = output_grad[2 * c + odd][d];
    }
  }
  // Two rows in one buffer, each on a cache line or 16 bytes past one.
  const int64_t shift = pc.on_lines ? 0 : 8;
  std::vector<T, Eigen::aligned_allocator<T>> storage(2 * dim + 64 + 2 * shift);
  auto* base = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) / 64 * 64);
  HeadPairRows<T> rows{{input.data(), input.data() + dim},
                       {base + shift, base + dim + 2 * shift},
                       {},
                       {},
                       pc.covers};
  for (int c = 0; c < pc.covers; ++c) {
    rows.output_grad[c] = pairs[c].data();
    rows.weight[c][0] = weights[2 * c];
    rows.weight[c][1] = weights[2 * c + 1];
  }
  float dots[2][2] = {};
  head_pair_rows(rows, dim, pc.streaming, dots);
  if (pc.streaming) stream_fence();

  std::vector<GenericRow<T>> expected;
  for (int odd = 0; odd < 2; ++odd) {
    std::vector<const float*> head_rows;
    std::vector<float> head_weights;
    for (int c = 0; c < pc.covers; ++c) {
      head_rows.push_back(output_grad[2 * c + odd].data());
      head_weights.push_back(weights[2 * c + odd]);
    }
    expected.push_back(generic_row(input.data() + odd * dim, dim, head_rows, head_weights));
  }
  // The heads' rows differ, so rows swapped between heads cannot pass.
  ASSERT_NE(0, std::memcmp(expected[0].input_grad.data(), expected[1].input_grad.data(),
                           static_cast<size_t>(dim) * sizeof(T)));
  for (int odd = 0; odd < 2; ++odd) {
    for (int64_t d = 0; d < dim; ++d) {
      ASSERT_EQ(bits_of(expected[odd].input_grad[d]), bits_of(rows.input_grad[odd][d]))
          << "head n + " << odd << ", element " << d;
    }
    for (int c = 0; c < pc.covers; ++c) {
      EXPECT_EQ(std::bit_cast<uint32_t>(expected[odd].dots[c]),
                std::bit_cast<uint32_t>(dots[c][odd]))
          << "head n + " << odd << ", cover " << c;
    }
  }
}

template <typename T>
void expect_generic_bits_everywhere() {
  uint64_t seed = 1;
  for (const int64_t dim : {32, 64, 128, 160, 256}) {
    for (const int covers : {1, 2}) {
      for (const bool streaming : {false, true}) {
        for (const bool on_lines : {true, false}) {
          for (const bool special : {false, true}) {
            SCOPED_TRACE(testing::Message() << "D " << dim << ", covers " << covers
                                            << (streaming ? ", streamed" : ", stored")
                                            << (on_lines ? ", on lines" : ", off lines")
                                            << (special ? ", special values" : ""));
            expect_generic_bits<T>({dim, covers, streaming, on_lines, special}, seed++);
          }
        }
      }
    }
  }
}

TEST(HeadPairs, GiveTheGenericRowsBitsInBfloat16) {
  if (!kernel_has_bfloat16_conversion()) GTEST_SKIP() << "no AVX512_BF16 on this CPU";
  expect_generic_bits_everywhere<bfloat16>();
}

TEST(HeadPairs, GiveTheGenericRowsBitsInBinary16) {
  if (!kernel_has_bfloat16_conversion()) GTEST_SKIP() << "no AVX512_BF16 on this CPU";
  expect_generic_bits_everywhere<half>();
}

}  // namespace
}  // namespace gradconf::nc
