// Where one (query, head, level, point) samples its level, in the style of PyTorch's GridSampler
// helpers: each step a small named function. Coordinates and weights are computed in double for
// every dtype so that the guard, tap selection and weights are exactly the reference's.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_SAMPLING_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_SAMPLING_H_

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "core/isa.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "multi_scale_deformable_attention/faults.h"

namespace gradconf::msda {

/// Samples located together: one AVX2 register of doubles (two SSE2 ones). Wider vectors left
/// the twenty-odd values live per sample in memory.
inline constexpr int kLocateLanes = 4;
using LocateLanes = double __attribute__((vector_size(kLocateLanes * sizeof(double))));
/// The mask a comparison of LocateLanes gives (all ones where true).
using LocateMask = int64_t __attribute__((vector_size(kLocateLanes * sizeof(int64_t))));

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

/// location in [0, 1] -> pixel coordinate of the level (pixel centres at integers), per lane.
GRADCONF_ALWAYS_INLINE LocateLanes unnormalize(LocateLanes location, LocateLanes size) {
  return location * size - 0.5;
}

/// The sample guard: -1 < x < W and -1 < y < H, both finite (outside it nothing is sampled).
/// Non-finite coordinates need no test of their own: NaN fails every comparison, and -inf or +inf
/// fails one side.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE LocateMask inside_guard(LocateLanes x, LocateLanes y, LocateLanes height,
                                               LocateLanes width) {
  if constexpr (kFault == Fault::kGuardInclusive) {
    return x >= -1 && x <= width && y >= -1 && y <= height;
  }
  return x > -1 && x < width && y > -1 && y < height;
}

/// floor(x) of coordinates inside the guard, in double lanes (converting lanes to integers is
/// scalar before AVX-512): below 2^52, adding and taking away 2^52 rounds to an integer, one too
/// high where it rounded up; from 2^52 on every double is an integer; (-1, 0) floors to -1.
GRADCONF_ALWAYS_INLINE LocateLanes floor_lanes(LocateLanes x) {
  constexpr double kIntegral = 0x1p52;
  const LocateLanes zero = {}, one = zero + 1;
  const LocateLanes rounded = (x + kIntegral) - kIntegral;
  const LocateLanes below = rounded - (rounded > x ? one : zero);
  const LocateLanes small = x < 0 ? zero - 1 : below;
  return x >= kIntegral ? x : small;
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

/// Each sample's level (sample i = l * P + p lies on level l), padded to whole LocateLanes with
/// 1 x 1 levels, and its sides as lanes: what locate_lanes and the gradLocation factors read.
struct SampleLevels {
  std::vector<Level> level;
  std::vector<double> width, height;
};

inline SampleLevels sample_levels(const std::vector<Level>& levels, int64_t points) {
  SampleLevels g;
  const auto samples = static_cast<size_t>(static_cast<int64_t>(levels.size()) * points);
  const size_t padded = (samples + kLocateLanes - 1) / kLocateLanes * kLocateLanes;
  g.level.assign(padded, Level{1, 1, 0});
  for (size_t i = 0; i < samples; ++i) g.level[i] = levels[i / static_cast<size_t>(points)];
  for (const Level& level : g.level) {
    g.width.push_back(static_cast<double>(level.width));
    g.height.push_back(static_cast<double>(level.height));
  }
  return g;
}

/// Locates the kLocateLanes samples from `first` on (count of them real) from their location
/// lanes: guard, taps and weights in double, as the reference computes them. Located one by one,
/// the samples of a row were four tenths of the forward's time.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE void locate_lanes(LocateLanes location_x, LocateLanes location_y,
                                         const SampleLevels& g, size_t first, int count,
                                         Taps* out) {
  using V = LocateLanes;
  if constexpr (kFault == Fault::kSwappedXY) std::swap(location_x, location_y);
  V w, h;
  std::memcpy(&w, g.width.data() + first, sizeof w);
  std::memcpy(&h, g.height.data() + first, sizeof h);
  const V x = unnormalize(location_x, w), y = unnormalize(location_y, h);
  const LocateMask taken = inside_guard<kFault>(x, y, h, w);
  // Outside the guard a coordinate may be anything (NaN, inf, huge): zero it before converting.
  const V zero = {}, xs = taken ? x : zero, ys = taken ? y : zero;
  const V x0 = floor_lanes(xs), y0 = floor_lanes(ys);
  const V tx = xs - x0, ty = ys - y0;
  const V wx[2] = {1 - tx, tx}, wy[2] = {1 - ty, ty};
  for (int j = 0; j < count; ++j) {
    Taps& t = out[j];
    t.taken = taken[j] != 0;
    if (!t.taken) continue;
    const Level& level = g.level[first + static_cast<size_t>(j)];
    t.tx = tx[j];
    t.ty = ty[j];
    for (int k = 0; k < 4; ++k) {
      const int64_t yi = static_cast<int64_t>(y0[j]) + (k >> 1);
      const int64_t xi = static_cast<int64_t>(x0[j]) + (k & 1);
      t.weight[k] = wy[k >> 1][j] * wx[k & 1][j];
      const bool inside = yi >= 0 && yi < level.height && xi >= 0 && xi < level.width;
      t.key[k] = inside ? level.start + yi * level.width + xi : -1;
    }
    if constexpr (kFault == Fault::kSwappedTapWeights) std::swap(t.weight[1], t.weight[2]);
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
