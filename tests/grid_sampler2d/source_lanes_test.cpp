// locate_lanes (source_lanes.h) against locate_source (coords.h), lane by lane: the kernels that
// locate kLanes points at once claim the bits of the point-by-point path; so does the backward's
// gridGrad with the points in lanes (C <= 4) against its point-by-point sums, under every padding
// (reflection's folds, fmod past two spans, included). Coordinates cover
// what the float paths must agree on: ties of round-half-even, -0, the integers near 2^23 and 2^31,
// the addressable limit, NaN and infinities, and random floats of every magnitude; on the baseline
// path and on the AVX2 one where the CPU has it.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "grid_sampler2d/backward_kernel.h"
#include "grid_sampler2d/forward_kernel.h"
#include "grid_sampler2d/source_lanes.h"

namespace gradconf::grid_sampler2d {
namespace {

struct Attrs {
  Interpolation interpolation;
  Padding padding;
  bool align_corners;
  int64_t size;
};

std::vector<float> coordinates() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> c = {0.0f,        -0.0f,        1.0f,          -1.0f,        0.5f,
                          -0.5f,       1.5f,         -1.5f,         2.5f,         -2.5f,
                          1e-30f,      -1e-30f,      8388607.5f,    -8388607.5f,  8388608.0f,
                          16777217.0f, 2147483520.f, -2147483520.f, 2147483648.f, -2147483648.f,
                          1e30f,       -1e30f,       inf,           -inf,         std::nanf("")};
  // Grid values whose unnormalized coordinate lands on or next to a pixel edge or centre.
  for (int k = -40; k <= 40; ++k) {
    const float v = static_cast<float>(k) / 16;
    c.insert(c.end(), {v, std::nextafter(v, 2.0f), std::nextafter(v, -2.0f)});
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1.2f, 1.2f);
  for (int i = 0; i < 4000; ++i) c.push_back(unit(rng));
  for (int i = 0; i < 4000; ++i) {
    const auto bits = static_cast<uint32_t>(rng());
    c.push_back(std::bit_cast<float>(bits));  // every magnitude, NaN payloads included
  }
  while (c.size() % kLanes != 0) c.push_back(0.25f);
  return c;
}

// Lanes of coordinates from c: x the kLanes values from i on, y those at (i + j * step + shift)
// modulo c's size, so that each x meets many ys across a test's blocks.
void coordinate_lanes(const std::vector<float>& c, size_t i, size_t step, size_t shift,
                      FloatLanes& x, FloatLanes& y) {
  for (int j = 0; j < kLanes; ++j) {
    x[j] = c[i + static_cast<size_t>(j)];
    y[j] = c[(i + static_cast<size_t>(j) * step + shift) % c.size()];
  }
}

// Lane vectors cross these calls through memory: baseline and AVX2 functions pass them by value
// in different places.
GRADCONF_ALWAYS_INLINE void locate(const FloatLanes& x, const FloatLanes& y, const Attrs& a,
                                   SourceLanes& out) {
  out = locate_lanes<Fault::kNone>(x, y, a.size, a.size + 3, a.interpolation, a.padding,
                                   a.align_corners);
}
void locate_baseline(const FloatLanes& x, const FloatLanes& y, const Attrs& a, SourceLanes& out) {
  locate(x, y, a, out);
}
GRADCONF_TARGET_AVX2 void locate_avx2(const FloatLanes& x, const FloatLanes& y, const Attrs& a,
                                      SourceLanes& out) {
  locate(x, y, a, out);
}

void expect_lanes_match_points(const Attrs& a, bool avx2) {
  const std::vector<float> c = coordinates();
  const double mult_x = unnormalize_grad(a.size + 3, a.align_corners);
  const double mult_y = unnormalize_grad(a.size, a.align_corners);
  for (size_t i = 0; i < c.size(); i += kLanes) {
    FloatLanes x, y;
    coordinate_lanes(c, i, 7, 3, x, y);
    SourceLanes lanes;
    (avx2 ? locate_avx2 : locate_baseline)(x, y, a, lanes);
    for (int j = 0; j < kLanes; ++j) {
      const SourcePoint p = locate_source(x[j], y[j], a.size, a.size + 3, a.interpolation,
                                          a.padding, a.align_corners);
      SCOPED_TRACE(testing::Message()
                   << "x " << x[j] << " y " << y[j] << " size " << a.size << " align "
                   << a.align_corners << " padding " << static_cast<int>(a.padding)
                   << (avx2 ? " (avx2)" : " (baseline)"));
      ASSERT_EQ(lanes.addressable[j] != 0, p.addressable);
      if (!p.addressable) continue;  // no tap, no gradient: the kernels read nothing else
      // Bit for bit: a reflected clamp's derivative is -0, and gridGrad keeps that sign.
      ASSERT_EQ(std::bit_cast<uint64_t>(mult_x * lanes.grad_x(j)),
                std::bit_cast<uint64_t>(p.mult_x));
      ASSERT_EQ(std::bit_cast<uint64_t>(mult_y * lanes.grad_y(j)),
                std::bit_cast<uint64_t>(p.mult_y));
      ASSERT_EQ(lanes.x0[j], p.x0);
      ASSERT_EQ(lanes.y0[j], p.y0);
      if (a.interpolation == Interpolation::kNearest) continue;
      ASSERT_EQ(std::bit_cast<uint64_t>(static_cast<double>(lanes.tx[j])),
                std::bit_cast<uint64_t>(p.tx));
      ASSERT_EQ(std::bit_cast<uint64_t>(static_cast<double>(lanes.ty[j])),
                std::bit_cast<uint64_t>(p.ty));
    }
  }
}

TEST(SourceLanes, EveryLaneIsLocatedAsItsPointIs) {
  const bool has_avx2 = kernel_isa() != Isa::kBaseline;
  for (Interpolation interpolation : {Interpolation::kBilinear, Interpolation::kNearest}) {
    for (Padding padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
      for (bool align_corners : {false, true}) {
        for (int64_t size : {1, 2, 7, 64, 1 << 20}) {
          const Attrs a{interpolation, padding, align_corners, size};
          expect_lanes_match_points(a, false);
          if (has_avx2) expect_lanes_match_points(a, true);
        }
      }
    }
  }
}

// BilinearTapLanes against BilinearTaps, point by point: inside flags, offsets and weights.
GRADCONF_ALWAYS_INLINE void taps(const FloatLanes& x, const FloatLanes& y, const Attrs& a,
                                 MaskLanes (&inside)[4], MaskLanes (&offset)[4],
                                 FloatLanes (&weight)[4]) {
  const SourceLanes s = locate_lanes<Fault::kNone>(x, y, a.size, a.size + 3, a.interpolation,
                                                   a.padding, a.align_corners);
  const BilinearTapLanes<Fault::kNone> t(s, a.size, a.size + 3, a.interpolation, 100, 1);
  for (int k = 0; k < 4; ++k) {
    inside[k] = t.inside[k];
    offset[k] = t.offset[k];
    weight[k] = t.float_weight(k);
  }
}
void taps_baseline(const FloatLanes& x, const FloatLanes& y, const Attrs& a, MaskLanes (&inside)[4],
                   MaskLanes (&offset)[4], FloatLanes (&weight)[4]) {
  taps(x, y, a, inside, offset, weight);
}
GRADCONF_TARGET_AVX2 void taps_avx2(const FloatLanes& x, const FloatLanes& y, const Attrs& a,
                                    MaskLanes (&inside)[4], MaskLanes (&offset)[4],
                                    FloatLanes (&weight)[4]) {
  taps(x, y, a, inside, offset, weight);
}

TEST(SourceLanes, BilinearTapLanesAreEachPointsBilinearTaps) {
  const std::vector<float> c = coordinates();
  std::vector<bool> paths = {false};
  if (kernel_isa() != Isa::kBaseline) paths.push_back(true);
  for (bool avx2 : paths) {
    for (int64_t size : {1, 2, 7}) {
      const Attrs a{Interpolation::kBilinear, Padding::kZeros, false, size};
      for (size_t i = 0; i < c.size(); i += kLanes) {
        FloatLanes x, y;
        coordinate_lanes(c, i, 5, 1, x, y);
        MaskLanes inside[4], offset[4];
        FloatLanes weight[4];
        (avx2 ? taps_avx2 : taps_baseline)(x, y, a, inside, offset, weight);
        for (int j = 0; j < kLanes; ++j) {
          const SourcePoint p = locate_source(x[j], y[j], size, size + 3, a.interpolation,
                                              a.padding, a.align_corners);
          const BilinearTaps<float, Fault::kNone> want(p, size, size + 3);
          for (int k = 0; k < 4; ++k) {
            SCOPED_TRACE(testing::Message() << "x " << x[j] << " y " << y[j] << " lane " << j
                                            << " tap " << k << (avx2 ? " (avx2)" : ""));
            const bool in = p.addressable && want.inside[k];
            ASSERT_EQ(inside[k][j] != 0, in);
            if (!in) continue;
            ASSERT_EQ(offset[k][j], want.y[k] * 100 + want.x[k]);
            ASSERT_EQ(std::bit_cast<uint32_t>(weight[k][j]),
                      std::bit_cast<uint32_t>(want.weight[k]));
          }
        }
      }
    }
  }
}

// The bilinear weights as the point kernels form them: the double product, rounded once to float
// (forward) or kept (backward).
TEST(SourceLanes, BilinearWeightsAreThePointKernelsProducts) {
  SourceLanes s{};
  for (int j = 0; j < kLanes; ++j) {
    s.tx[j] = std::nextafter(1.0f, 0.0f) / static_cast<float>(j + 1);
    s.ty[j] = 1.0f / static_cast<float>(3 * j + 7);
  }
  const BilinearWeightLanes w(s);
  double backward[kLanes];
  BilinearWeightLanes::store_product(w.y[0], w.x[1], backward);
  const FloatLanes forward = BilinearWeightLanes::product(w.y[1], w.x[0]);
  for (int j = 0; j < kLanes; ++j) {
    const double tx = s.tx[j], ty = s.ty[j];
    EXPECT_EQ(backward[j], (1 - ty) * tx);
    EXPECT_EQ(forward[j], static_cast<float>(ty * (1 - tx)));
  }
}

// The two record types of points located in lanes: the taps' offsets (the lanes' for a tap
// inside, its trash slot for a tap outside), and the weights the scatter reads (ScatterTapsOf<4>)
// or forms from the fractions (BilinearFractionTaps), bit for bit.
TEST(SourceLanes, FractionRecordsGiveTheWeightRecordsWeights) {
  const std::vector<float> c = coordinates();
  for (Padding padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
    for (int64_t size : {1, 2, 7, 64}) {
      const SamplerLayout layout(1, 4, size, size + 3, 1, kLanes);
      for (size_t i = 0; i < c.size(); i += kLanes) {
        FloatLanes x, y;
        coordinate_lanes(c, i, 3, 1, x, y);
        const SourceLanes s = locate_lanes<Fault::kNone>(x, y, size, size + 3,
                                                         Interpolation::kBilinear, padding, false);
        ScatterTapsOf<4> weights[kLanes];
        BilinearFractionTaps fractions[kLanes];
        MaskLanes weight_offsets[4], fraction_offsets[4];
        lane_point_taps<Fault::kNone>(s, layout, weights, weight_offsets, nullptr);
        lane_point_taps<Fault::kNone>(s, layout, fractions, fraction_offsets, nullptr);
        for (int j = 0; j < kLanes; ++j) {
          SCOPED_TRACE(testing::Message() << "x " << x[j] << " y " << y[j] << " size " << size);
          for (int k = 0; k < 4; ++k) {
            ASSERT_EQ(fractions[j].offset[k], weights[j].offset[k]);
            ASSERT_EQ(fraction_offsets[k][j], weight_offsets[k][j]);
            if (weight_offsets[k][j] == layout.pixels()) {  // outside: never weighed
              ASSERT_EQ(weights[j].offset[k], trash_slot(layout.pixels(), k, j, 4));
              continue;
            }
            ASSERT_EQ(weight_offsets[k][j], weights[j].offset[k]);
            ASSERT_EQ(std::bit_cast<uint64_t>(tap_weight(fractions[j], k)),
                      std::bit_cast<uint64_t>(tap_weight(weights[j], k)));
          }
        }
      }
    }
  }
}

// The AVX-512 path's fraction records formed in registers (fraction_record_lines_avx512) are the
// bytes of the records lane_point_taps stores one by one; staged under a range
// (stage_fraction_records_avx512) they append, for every mask of reaching points and with runs
// already staged, exactly the reaching records and their points in point order, after the staged
// ones, which stay as they were.
TEST(SourceLanes, FractionRecordLinesAreTheRecordsAndStageInPointOrder) {
  if (kernel_isa() != Isa::kAvx512) GTEST_SKIP() << "no AVX-512 path here";
  const std::vector<float> c = coordinates();
  constexpr int64_t kFirst = (int64_t{1} << 33) + 5;
  for (int64_t size : {1, 7, 64}) {
    const SamplerLayout layout(1, 4, size, size + 3, 1, kLanes);
    for (size_t i = 0; i + kLanes <= c.size(); i += kLanes) {
      FloatLanes x, y;
      coordinate_lanes(c, i, 3, 1, x, y);
      const SourceLanes s = locate_lanes<Fault::kNone>(
          x, y, size, size + 3, Interpolation::kBilinear, Padding::kZeros, false);
      BilinearFractionTaps records[kLanes], unused[kLanes];
      MaskLanes offsets[4];
      lane_point_taps<Fault::kNone>(s, layout, records, offsets, nullptr);
      alignas(64) int32_t lines[6 * kLanes];
      lane_point_taps<Fault::kNone>(s, layout, unused, offsets, nullptr, lines);
      SCOPED_TRACE(testing::Message() << "block at " << i << " size " << size);
      ASSERT_EQ(std::memcmp(lines, records, sizeof records), 0);
      if (i >= 4 * kLanes) continue;  // every mask on the first blocks
      for (unsigned reached = 0; reached < 256; ++reached) {
        for (int staged : {0, 1, 7}) {
          alignas(64) BilinearFractionTaps stage[2 * kLanes];
          alignas(64) int64_t points[2 * kLanes];
          std::memset(stage, 0xab, sizeof stage);
          std::fill(std::begin(points), std::end(points), int64_t{-1});
          const int total =
              stage_fraction_records_avx512(lines, reached, kFirst, stage, points, staged);
          ASSERT_EQ(total, staged + std::popcount(reached)) << "mask " << reached;
          for (int e = 0; e < staged; ++e) {
            const auto* bytes = reinterpret_cast<const unsigned char*>(&stage[e]);
            ASSERT_TRUE(std::all_of(bytes, bytes + sizeof stage[e],
                                    [](unsigned char b) { return b == 0xab; }))
                << "staged record " << e;
            ASSERT_EQ(points[e], -1);
          }
          for (int j = 0, at = staged; j < kLanes; ++j) {
            if (!(reached >> j & 1u)) continue;
            ASSERT_EQ(std::memcmp(&stage[at], &records[j], sizeof records[j]), 0)
                << "mask " << reached << " record " << j;
            ASSERT_EQ(points[at++], kFirst + j);
          }
        }
      }
    }
  }
}

// Nearest records staged under a range (stage_nearest_records_avx512): for every mask of reaching
// points and with runs already staged, exactly the reaching points' offsets (int32 widened,
// negatives included) and their indices in point order, after the staged ones, which stay as they
// were.
TEST(SourceLanes, NearestRecordsStageInPointOrder) {
  if (kernel_isa() != Isa::kAvx512) GTEST_SKIP() << "no AVX-512 path here";
  const MaskLanes offsets = {7, -1, 1 << 30, 0, -(1 << 30), 42, 5, 65536};
  constexpr int64_t kFirst = (int64_t{1} << 40) + 3;
  constexpr int64_t kUntouched = -12345;
  for (unsigned reached = 0; reached < 256; ++reached) {
    for (int staged : {0, 1, 7}) {
      alignas(64) NearestScatterTaps stage[2 * kLanes];
      alignas(64) int64_t points[2 * kLanes];
      for (NearestScatterTaps& record : stage) record.offset[0] = kUntouched;
      std::fill(std::begin(points), std::end(points), kUntouched);
      const int total =
          stage_nearest_records_avx512(offsets, reached, kFirst, stage, points, staged);
      SCOPED_TRACE(testing::Message() << "mask " << reached << " staged " << staged);
      ASSERT_EQ(total, staged + std::popcount(reached));
      for (int e = 0; e < staged; ++e) {
        ASSERT_EQ(stage[e].offset[0], kUntouched) << "staged record " << e;
        ASSERT_EQ(points[e], kUntouched) << "staged record " << e;
      }
      for (int j = 0, at = staged; j < kLanes; ++j) {
        if (!(reached >> j & 1u)) continue;
        ASSERT_EQ(stage[at].offset[0], offsets[j]) << "record " << j;
        ASSERT_EQ(points[at++], kFirst + j) << "record " << j;
      }
    }
  }
}

// Filing records under pixel ranges: the points a range gets from the offsets in lanes are the
// points whose records reach it tap by tap (taps outside the input reach no range), for ranges
// of every split of small planes, nearest and bilinear.
TEST(SourceLanes, LaneOffsetsReachTheRangesTheRecordsReach) {
  const std::vector<float> c = coordinates();
  int reached = 0;
  for (Interpolation interpolation : {Interpolation::kNearest, Interpolation::kBilinear}) {
    for (int64_t size : {1, 2, 7, 64}) {
      const SamplerLayout layout(1, 4, size, size + 3, 1, kLanes);
      for (size_t i = 0; i < c.size(); i += kLanes) {
        FloatLanes x, y;
        coordinate_lanes(c, i, 5, 2, x, y);
        const SourceLanes s =
            locate_lanes<Fault::kNone>(x, y, size, size + 3, interpolation, Padding::kZeros, true);
        ScatterTapsOf<4> bilinear[kLanes];
        NearestScatterTaps nearest[kLanes];
        MaskLanes offsets[4];
        const bool four = interpolation == Interpolation::kBilinear;
        if (four) {
          lane_point_taps<Fault::kNone>(s, layout, bilinear, offsets, nullptr);
        } else {
          lane_point_taps<Fault::kNone>(s, layout, nearest, offsets, nullptr);
        }
        for (int64_t ranges = 1; ranges <= std::min<int64_t>(size, 4); ++ranges) {
          for (int64_t r = 0; r < ranges; ++r) {
            const PixelRange range(layout, r, ranges);
            const unsigned bits = range.reached_by(offsets, four ? 4 : 1);
            for (int j = 0; j < kLanes; ++j) {
              const bool expected =
                  four ? range.reached_by(bilinear[j]) : range.reached_by(nearest[j]);
              ASSERT_EQ((bits >> j) & 1u, unsigned{expected}) << "point " << j << " range " << r;
              reached += expected;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(reached, 100);  // the coordinates reach ranges, not only the outside
}

// The backward's gridGrad of kLanes points in lanes (narrow_coordinate_grads, C <= 4) against
// coordinate_grads' point-by-point sums over the same located points and lane_point_taps' taps:
// the same bits (NaN for NaN) for every point that samples, with NaN, infinities, -0 and large
// values among the input's and gradOutput's channels, and taps outside (read from the zero row
// past the pixels, as the backward's input copy holds it: input_copy_rows).
struct NarrowBlock {
  SamplerLayout layout;
  SourceLanes s;
  const float* pixels[kLanes];
  const float* grad[kLanes];
};
GRADCONF_ALWAYS_INLINE void narrow_grads(const NarrowBlock& b, FloatLanes& gx, FloatLanes& gy) {
  FloatLanes grad[kNarrowLanes];
  narrow_grad_lanes(b.grad, grad);
  BilinearFractionTaps records[kLanes];
  MaskLanes offsets[4];
  lane_point_taps<Fault::kNone>(b.s, b.layout, records, offsets, nullptr);
  narrow_coordinate_grads<Fault::kNone>(b.s, NarrowTapRows{b.pixels, offsets}, grad, gx, gy);
}
void narrow_grads_baseline(const NarrowBlock& b, FloatLanes& gx, FloatLanes& gy) {
  narrow_grads(b, gx, gy);
}
GRADCONF_TARGET_AVX2 void narrow_grads_avx2(const NarrowBlock& b, FloatLanes& gx, FloatLanes& gy) {
  narrow_grads(b, gx, gy);
}
// The same block's taps gathered from the input planes (NarrowTapPlanes: AVX2 gathers).
GRADCONF_TARGET_AVX2 void narrow_grads_from_planes(const NarrowBlock& b,
                                                   const float* const (&planes)[kNarrowLanes],
                                                   int channels, FloatLanes& gx, FloatLanes& gy) {
  FloatLanes grad[kNarrowLanes];
  narrow_grad_lanes(b.grad, grad);
  BilinearFractionTaps records[kLanes];
  MaskLanes offsets[4];
  lane_point_taps<Fault::kNone>(b.s, b.layout, records, offsets, nullptr);
  const auto outside = static_cast<int32_t>(b.layout.pixels());
  narrow_coordinate_grads<Fault::kNone>(b.s, NarrowTapPlanes{planes, channels, outside, offsets},
                                        grad, gx, gy);
}

void point_grads(const NarrowBlock& b, double (&gx)[kLanes], double (&gy)[kLanes]) {
  ScatterTapsOf<4> scatter[kLanes];
  MaskLanes offsets[4];
  CoordinateTaps coordinate[kLanes];
  lane_point_taps<Fault::kNone>(b.s, b.layout, scatter, offsets, &coordinate);
  for (int g = 0; g < kLanes; g += kPointGroup) {
    const CoordinateTaps(&taps)[kPointGroup] =
        *reinterpret_cast<const CoordinateTaps(*)[kPointGroup]>(coordinate + g);
    const float* const(&pixels)[kPointGroup] =
        *reinterpret_cast<const float* const(*)[kPointGroup]>(b.pixels + g);
    const float* const(&grad)[kPointGroup] =
        *reinterpret_cast<const float* const(*)[kPointGroup]>(b.grad + g);
    double group_x[kPointGroup], group_y[kPointGroup];
    coordinate_grads<float, Fault::kNone, kNarrowLanes>(taps, pixels, grad, kNarrowLanes, group_x,
                                                        group_y);
    for (int p = 0; p < kPointGroup; ++p) gx[g + p] = group_x[p], gy[g + p] = group_y[p];
  }
}

testing::AssertionResult same_bits(float lanes, double points) {
  const auto point = static_cast<float>(points);  // it holds a float's sum
  if ((std::isnan(lanes) && std::isnan(point)) ||
      std::bit_cast<uint32_t>(lanes) == std::bit_cast<uint32_t>(point)) {
    return testing::AssertionSuccess();
  }
  return testing::AssertionFailure() << lanes << " in lanes against " << point << " point by point";
}

TEST(SourceLanes, NarrowGridGradsInLanesAreThePointByPointSums) {
  const std::vector<float> c = coordinates();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> unit(-2.0f, 2.0f);
  const float specials[] = {std::nanf(""),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            -0.0f,
                            3e38f,
                            1e-40f};
  const auto value = [&] {
    return rng() % 16 == 0 ? specials[rng() % std::size(specials)] : unit(rng);
  };
  std::vector<bool> paths = {false};
  if (kernel_isa() != Isa::kBaseline) paths.push_back(true);
  int compared = 0, unaddressed = 0, compared_from_planes = 0;
  for (bool avx2 : paths) {
    for (Padding padding : {Padding::kZeros, Padding::kBorder, Padding::kReflection}) {
      for (bool align_corners : {false, true}) {
        for (int64_t size : {1, 2, 7}) {
          // C 4, and C 2 (rows zero past the channels, as the copy pads them).
          const int channels = size == 2 ? 2 : 4;
          NarrowBlock b{SamplerLayout(1, channels, size, size + 3, 1, kLanes), {}, {}, {}};
          std::vector<float> pixels(static_cast<size_t>(input_copy_rows(b.layout) * kNarrowLanes));
          std::vector<float> grad(kLanes * kNarrowLanes);
          const int64_t plane = b.layout.pixels();
          std::vector<float> planes_data(static_cast<size_t>(channels * plane));
          const float* planes[kNarrowLanes] = {};
          for (int ch = 0; ch < channels; ++ch) planes[ch] = planes_data.data() + ch * plane;
          for (size_t i = 0; i < c.size(); i += kLanes) {
            for (int64_t p = 0; p < plane; ++p) {
              for (int ch = 0; ch < kNarrowLanes; ++ch) {
                const float v = ch < channels ? value() : 0.0f;
                pixels[static_cast<size_t>(p * kNarrowLanes + ch)] = v;
                if (ch < channels) planes_data[static_cast<size_t>(ch * plane + p)] = v;
              }
            }
            for (float& v : grad) v = value();
            FloatLanes x, y;
            coordinate_lanes(c, i, 3, 2, x, y);
            for (int j = 0; j < kLanes; ++j) {
              b.pixels[j] = pixels.data();
              b.grad[j] = grad.data() + j * kNarrowLanes;
            }
            b.s = locate_lanes<Fault::kNone>(x, y, size, size + 3, Interpolation::kBilinear,
                                             padding, align_corners);
            FloatLanes lanes_x, lanes_y;
            (avx2 ? narrow_grads_avx2 : narrow_grads_baseline)(b, lanes_x, lanes_y);
            double points_x[kLanes], points_y[kLanes];
            point_grads(b, points_x, points_y);
            for (int j = 0; j < kLanes; ++j) {
              SCOPED_TRACE(testing::Message() << "x " << x[j] << " y " << y[j] << " size " << size
                                              << " lane " << j << (avx2 ? " (avx2)" : ""));
              if (b.s.addressable[j] == 0) {
                ++unaddressed;  // written as zero, whatever the lane holds
                continue;
              }
              ASSERT_TRUE(same_bits(lanes_x[j], points_x[j]));
              ASSERT_TRUE(same_bits(lanes_y[j], points_y[j]));
              ++compared;
            }
            if (!avx2) continue;
            FloatLanes planes_x, planes_y;
            narrow_grads_from_planes(b, planes, channels, planes_x, planes_y);
            for (int j = 0; j < kLanes; ++j) {
              if (b.s.addressable[j] == 0) continue;
              SCOPED_TRACE(testing::Message() << "from planes, x " << x[j] << " y " << y[j]
                                              << " size " << size << " lane " << j);
              ASSERT_TRUE(same_bits(planes_x[j], points_x[j]));
              ASSERT_TRUE(same_bits(planes_y[j], points_y[j]));
              ++compared_from_planes;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 1000);
  EXPECT_GT(unaddressed, 0);  // the coordinates hold NaN and infinities
  if (kernel_isa() != Isa::kBaseline) {
    EXPECT_GT(compared_from_planes, 500);
  }
}

// The accumulator the point pass clears as it goes (ClearAsYouGo): however the pass's points are
// split across workers, the tasks' slices tile the region, each from where the previous one
// ended (phase 2 may run with more threads than phase 1 planned for).
TEST(ClearAsYouGo, SlicesOfAnySplitTileTheRegion) {
  std::mt19937_64 rng(7);
  auto* const at = reinterpret_cast<std::byte*>(uintptr_t{1} << 20);
  for (const uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{255}, uint64_t{256},
                               uint64_t{4109}, uint64_t{3} << 31}) {
    for (const int64_t units : {int64_t{1}, int64_t{7}, int64_t{1000}, int64_t{1} << 22}) {
      for (int parts = 1; parts <= 9; ++parts) {
        ClearAsYouGo clearing;
        clearing.at = at;
        clearing.bytes = bytes;
        clearing.units = units;
        std::vector<int64_t> cuts = {0, units};
        for (int k = 1; k < parts; ++k)
          cuts.push_back(std::uniform_int_distribution<int64_t>(0, units)(rng));
        std::sort(cuts.begin(), cuts.end());
        std::byte* next = at;
        for (size_t k = 0; k + 1 < cuts.size(); ++k) {
          const auto [first, length] = clearing.slice(cuts[k], cuts[k + 1]);
          ASSERT_EQ(next, first) << bytes << " bytes, " << units << " units";
          next = first + length;
        }
        EXPECT_EQ(at + bytes, next) << bytes << " bytes, " << units << " units";
      }
    }
  }
}

}  // namespace
}  // namespace gradconf::grid_sampler2d
