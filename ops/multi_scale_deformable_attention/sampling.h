// Where one (query, head, level, point) samples its level, in the style of PyTorch's GridSampler
// helpers: each step a small named function. Coordinates and weights are computed in double for
// every dtype so that the guard, tap selection and weights are exactly the reference's.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_SAMPLING_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_SAMPLING_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/isa.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "multi_scale_deformable_attention/faults.h"

namespace gradconf::msda {

/// location in [0, 1] -> pixel coordinate of the level (pixel centres at integers).
inline double unnormalize(double location, int64_t size) {
  return location * static_cast<double>(size) - 0.5;
}

/// The sample guard: -1 < x < W and -1 < y < H, both finite (outside it nothing is sampled).
/// Non-finite coordinates need no test of their own: NaN fails every comparison, and -inf or +inf
/// fails one side.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE bool inside_guard(double x, double y, int64_t height, int64_t width) {
  const double w = static_cast<double>(width), h = static_cast<double>(height);
  if constexpr (kFault == Fault::kGuardInclusive) return x >= -1 && x <= w && y >= -1 && y <= h;
  return x > -1 && x < w && y > -1 && y < h;
}

/// floor(x) as an integer for a coordinate inside the guard (|x| far below 2^63): truncation,
/// one down for negative non-integers. Not std::floor, which is a libm call on baseline x86-64.
inline int64_t floor_to_int(double x) {
  const auto truncated = static_cast<int64_t>(x);
  return truncated - (static_cast<double>(truncated) > x ? 1 : 0);
}

/// The four bilinear taps of a sample in the fixed order (y0,x0) (y0,x1) (y1,x0) (y1,x1):
/// their key (start + y*W + x; -1 outside the level) and their weights.
/// Only `taken` is meaningful when it is false.
struct Taps {
  bool taken = false;  ///< false: outside the guard, contributes nothing
  double tx = 0, ty = 0;
  int64_t key[4] = {-1, -1, -1, -1};
  double weight[4] = {0, 0, 0, 0};
};

/// Fills t in place: a Taps returned by value is built on the stack and copied, and that copy
/// reads back the narrow stores just made (a store-forwarding stall per sample).
template <Fault kFault>
GRADCONF_ALWAYS_INLINE void locate(double location_x, double location_y, const Level& level,
                                   Taps& t) {
  if constexpr (kFault == Fault::kSwappedXY) std::swap(location_x, location_y);
  const double x = unnormalize(location_x, level.width);
  const double y = unnormalize(location_y, level.height);
  t.taken = inside_guard<kFault>(x, y, level.height, level.width);
  if (!t.taken) return;
  const int64_t x0 = floor_to_int(x), y0 = floor_to_int(y);
  t.tx = x - static_cast<double>(x0);
  t.ty = y - static_cast<double>(y0);
  const double wx[2] = {1 - t.tx, t.tx}, wy[2] = {1 - t.ty, t.ty};
  for (int k = 0; k < 4; ++k) {
    const int64_t yi = y0 + (k >> 1), xi = x0 + (k & 1);
    t.weight[k] = wy[k >> 1] * wx[k & 1];
    const bool inside = yi >= 0 && yi < level.height && xi >= 0 && xi < level.width;
    t.key[k] = inside ? level.start + yi * level.width + xi : -1;
  }
  if constexpr (kFault == Fault::kSwappedTapWeights) std::swap(t.weight[1], t.weight[2]);
}

/// Samples located together: one AVX2 register of doubles (two SSE2 ones). Wider vectors left
/// the twenty-odd values live per sample in memory.
inline constexpr int kLocateLanes = 4;
using LocateLanes = double __attribute__((vector_size(kLocateLanes * sizeof(double))));

/// Each sample's level as lane-ready doubles (sample i = l * P + p lies on level l), padded to
/// whole LocateLanes with 1 x 1 levels: what locate_lanes reads.
struct SampleLevels {
  std::vector<double> width, height, start;
  /// Every level under 2^31 pixels a side and every key under 2^53: coordinates floor through
  /// int32 lanes and keys are exact in double. Otherwise the samples are located one by one.
  bool lanes_exact = true;
};

inline SampleLevels sample_levels(const std::vector<Level>& levels, int64_t points) {
  SampleLevels g;
  const auto samples = static_cast<size_t>(static_cast<int64_t>(levels.size()) * points);
  const size_t padded = (samples + kLocateLanes - 1) / kLocateLanes * kLocateLanes;
  g.width.assign(padded, 1);
  g.height.assign(padded, 1);
  g.start.assign(padded, 0);
  constexpr int64_t kInt32Side = int64_t{1} << 31, kExactKey = int64_t{1} << 53;
  size_t i = 0;
  for (const Level& level : levels) {
    g.lanes_exact = g.lanes_exact && level.width < kInt32Side && level.height < kInt32Side &&
                    level.start < kExactKey - level.width * level.height;
    for (int64_t p = 0; p < points; ++p, ++i) {
      g.width[i] = static_cast<double>(level.width);
      g.height[i] = static_cast<double>(level.height);
      g.start[i] = static_cast<double>(level.start);
    }
  }
  return g;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

/// locate() for the kLocateLanes samples from `first` on (count of them real), from their
/// location lanes: the same double operations in the same order, so the same bits. Requires
/// g.lanes_exact. Located one by one, the samples of a row were four tenths of the forward's time.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE void locate_lanes(LocateLanes location_x, LocateLanes location_y,
                                         const SampleLevels& g, size_t first, int count,
                                         Taps* out) {
  using V = LocateLanes;
  using Lanes32 = int32_t __attribute__((vector_size(kLocateLanes * sizeof(int32_t))));
  if constexpr (kFault == Fault::kSwappedXY) std::swap(location_x, location_y);
  V w, h, start;
  std::memcpy(&w, g.width.data() + first, sizeof w);
  std::memcpy(&h, g.height.data() + first, sizeof h);
  std::memcpy(&start, g.start.data() + first, sizeof start);
  const V zero = {}, one = zero + 1.0, minus_one = zero - 1.0;
  const V x = location_x * w - 0.5, y = location_y * h - 0.5;
  const auto taken = kFault == Fault::kGuardInclusive
                         ? (x >= minus_one) & (x <= w) & (y >= minus_one) & (y <= h)
                         : (x > minus_one) & (x < w) & (y > minus_one) & (y < h);
  // Outside the guard a coordinate may be anything (NaN, inf, huge): zero it before converting.
  const V xs = taken ? x : zero, ys = taken ? y : zero;
  const V x_trunc = __builtin_convertvector(__builtin_convertvector(xs, Lanes32), V);
  const V y_trunc = __builtin_convertvector(__builtin_convertvector(ys, Lanes32), V);
  const V x0 = x_trunc - (x_trunc > xs ? one : zero), y0 = y_trunc - (y_trunc > ys ? one : zero);
  const V tx = xs - x0, ty = ys - y0;
  const V wx0 = 1 - tx, wy0 = 1 - ty;
  V weight[4] = {wy0 * wx0, wy0 * tx, ty * wx0, ty * tx};
  if constexpr (kFault == Fault::kSwappedTapWeights) std::swap(weight[1], weight[2]);
  const V x1 = x0 + 1, y1 = y0 + 1;
  const auto in_x0 = (x0 >= zero) & (x0 < w), in_x1 = (x1 >= zero) & (x1 < w);
  const auto in_y0 = (y0 >= zero) & (y0 < h), in_y1 = (y1 >= zero) & (y1 < h);
  const decltype(taken) inside[4] = {in_y0 & in_x0, in_y0 & in_x1, in_y1 & in_x0, in_y1 & in_x1};
  const V row0 = start + y0 * w, row1 = start + y1 * w;
  const V key[4] = {row0 + x0, row0 + x1, row1 + x0, row1 + x1};
  for (int j = 0; j < count; ++j) {
    Taps& t = out[j];
    t.taken = taken[j] != 0;
    if (!t.taken) continue;
    t.tx = tx[j];
    t.ty = ty[j];
    for (int k = 0; k < 4; ++k) {
      t.weight[k] = weight[k][j];
      t.key[k] = inside[k][j] ? static_cast<int64_t>(key[k][j]) : -1;
    }
  }
}

#pragma GCC diagnostic pop

/// The level table the kernels read: levelStartIndex as given, or (mutant) recomputed.
template <Fault kFault>
std::vector<Level> effective_levels(std::vector<Level> levels) {
  if constexpr (kFault == Fault::kLevelStartIgnored) {
    int64_t start = 0;
    for (Level& l : levels) {
      l.start = start;
      start += l.height * l.width;
    }
  }
  return levels;
}

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_SAMPLING_H_
