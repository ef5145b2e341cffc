// locate_lanes computes tap keys in double lanes when sample_levels finds every key below 2^50,
// and in int64 lane by lane otherwise. The laws run on small levels, so they only ever reach the
// double lanes: here both paths are held against each other and against keys written out by hand,
// and the switch between them is pinned at its bound.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "multi_scale_deformable_attention/sampling.h"

namespace gradconf::msda {
namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

LocatedLanes locate(const SampleLevels& g, const double (&x)[kLocateLanes],
                    const double (&y)[kLocateLanes]) {
  LocateLanes lx, ly;
  for (int j = 0; j < kLocateLanes; ++j) {
    lx[j] = x[j];
    ly[j] = y[j];
  }
  LocatedLanes out;
  locate_lanes<Fault::kNone>(lx, ly, g, 0, out);
  return out;
}

TEST(SampleLevels, KeysInDoubleUpToTheirBound) {
  const int64_t bound = int64_t{1} << 50;
  // The largest key a tap of a level can form is start + H*W + W (row H, column W; out of the
  // level, but formed before it is masked).
  const int64_t width = 1 << 20, height = 4;
  const int64_t start_at_bound = bound - height * width - width - 1;
  EXPECT_TRUE(sample_levels({{height, width, start_at_bound - 1}}, 1).keys_in_double);
  EXPECT_FALSE(sample_levels({{height, width, start_at_bound}}, 1).keys_in_double);
  EXPECT_FALSE(sample_levels({{1, 1, 0}, {1, bound, 1}}, 2).keys_in_double);
  EXPECT_TRUE(
      sample_levels({{64, 64, 0}, {32, 32, 4096}, {16, 16, 5120}, {8, 8, 5376}}, 4).keys_in_double);
}

TEST(LocateLanes, DoubleAndInt64KeysAgree) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> location(-0.1, 1.1);
  const double specials[] = {0.0,
                             1.0,
                             -0.0,
                             std::nextafter(0.0, -1.0),
                             std::nextafter(1.0, 2.0),
                             std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity()};
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t height = 1 + static_cast<int64_t>(rng() % 70);
    const int64_t width = 1 + static_cast<int64_t>(rng() % 70);
    const int64_t start = static_cast<int64_t>(rng() % (int64_t{1} << 40));
    SampleLevels in_double = sample_levels({{height, width, start}}, kLocateLanes);
    ASSERT_TRUE(in_double.keys_in_double);
    SampleLevels in_int64 = in_double;
    in_int64.keys_in_double = false;
    double x[kLocateLanes], y[kLocateLanes];
    for (int j = 0; j < kLocateLanes; ++j) {
      x[j] = rng() % 8 == 0 ? specials[rng() % 8] : location(rng);
      y[j] = rng() % 8 == 0 ? specials[rng() % 8] : location(rng);
    }
    const LocatedLanes a = locate(in_double, x, y), b = locate(in_int64, x, y);
    for (int j = 0; j < kLocateLanes; ++j) {
      ASSERT_EQ(a.taken[j], b.taken[j]);
      for (int k = 0; k < 4; ++k) {
        ASSERT_EQ(a.key[k][j], b.key[k][j])
            << "H " << height << " W " << width << " x " << x[j] << " y " << y[j] << " tap " << k;
        if (a.taken[j]) {
          ASSERT_EQ(a.weight[k][j], b.weight[k][j]);
        }
      }
    }
  }
}

TEST(LocateLanes, KeysBeyondDoublePrecisionAreExact) {
  // start + y*W + x above 2^53, where a double cannot hold every integer.
  const int64_t width = int64_t{1} << 40, height = 3, start = int64_t{1} << 60;
  const SampleLevels g = sample_levels({{height, width, start}}, kLocateLanes);
  ASSERT_FALSE(g.keys_in_double);
  // x = 0.5 -> pixel 2^39 - 0.5: columns 2^39 - 1 and 2^39. y = 0.5 -> pixel 1.0: rows 1 and 2.
  // x = 1.0 - 2^-41 -> pixel W - 1: columns W - 1 and W (outside). y = 0 -> pixel -0.5: rows -1
  // (outside) and 0.
  const double x[kLocateLanes] = {0.5, 1.0 - 0x1p-41, 0.5, 2.0};
  const double y[kLocateLanes] = {0.5, 0.5, 0.0, 0.5};
  const LocatedLanes t = locate(g, x, y);
  const int64_t half = int64_t{1} << 39;
  const int64_t expected[3][4] = {{start + width + half - 1, start + width + half,
                                   start + 2 * width + half - 1, start + 2 * width + half},
                                  {start + 2 * width - 1, -1, start + 3 * width - 1, -1},
                                  {-1, -1, start + half - 1, start + half}};
  for (int j = 0; j < 3; ++j) {
    ASSERT_TRUE(t.taken[j]) << j;
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(t.key[k][j], expected[j][k]) << "lane " << j << " tap " << k;
  }
  EXPECT_FALSE(t.taken[3]);  // x = 2.0 is past the guard
  for (int k = 0; k < 4; ++k) EXPECT_EQ(t.key[k][3], -1);
}

#pragma GCC diagnostic pop

}  // namespace
}  // namespace gradconf::msda
