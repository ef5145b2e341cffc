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
  if (planted<kFault>(Fault::kGuardInclusive)) {
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

/// Keys as lanes: int64, like the masks.
using KeyLanes = LocateMask;

/// kLocateLanes located samples (lane j is the group's j-th sample): the four bilinear taps of
/// each in the fixed order (y0,x0) (y0,x1) (y1,x0) (y1,x1), their keys (start + y*W + x; -1 for a
/// tap outside the level and for every tap of a sample outside the guard) and weights.
/// Only `taken` is meaningful in a lane where it is false. Aligned explicitly: a 32-byte vector
/// type is only 16-byte aligned where the baseline ISA has no 32-byte registers, but the AVX2
/// kernels access it with aligned moves.
struct alignas(sizeof(LocateLanes)) LocatedLanes {
  LocateMask taken;  ///< all ones: inside the guard; zero: contributes nothing
  LocateLanes tx, ty;
  KeyLanes key[4];
  LocateLanes weight[4];
};

/// One sample of a LocatedLanes group, as the kernels read it.
struct LocatedSample {
  const LocatedLanes& lanes;
  int lane;
  bool taken() const { return lanes.taken[lane] != 0; }
  int64_t key(int k) const { return lanes.key[k][lane]; }
  double weight(int k) const { return lanes.weight[k][lane]; }
  double tx() const { return lanes.tx[lane]; }
  double ty() const { return lanes.ty[lane]; }
};

/// Each sample's level (sample i = l * P + p lies on level l), padded to whole LocateLanes with
/// 1 x 1 levels, and its sides and start as lanes: what locate_lanes and the gradLocation factors
/// read. keys_in_double: every key a tap can form (start - W - 1 up to start + H*W + W) is below
/// 2^50, so keys are computed exactly in double lanes; levels beyond that take int64 per lane.
struct SampleLevels {
  std::vector<Level> level;
  std::vector<double> width, height, start;
  bool keys_in_double = true;
};

inline SampleLevels sample_levels(const std::vector<Level>& levels, int64_t points) {
  constexpr int64_t kExactKeys = int64_t{1} << 50;
  SampleLevels g;
  const auto samples = static_cast<size_t>(static_cast<int64_t>(levels.size()) * points);
  const size_t padded = (samples + kLocateLanes - 1) / kLocateLanes * kLocateLanes;
  g.level.assign(padded, Level{1, 1, 0});
  for (size_t i = 0; i < samples; ++i) g.level[i] = levels[i / static_cast<size_t>(points)];
  for (const Level& level : g.level) {
    g.width.push_back(static_cast<double>(level.width));
    g.height.push_back(static_cast<double>(level.height));
    g.start.push_back(static_cast<double>(level.start));
    // Validated levels lie inside num_keys, so start + H*W does not overflow.
    g.keys_in_double = g.keys_in_double && level.width < kExactKeys &&
                       level.start + level.height * level.width < kExactKeys - level.width - 1;
  }
  return g;
}

/// Integer-valued lanes of magnitude below 2^51 -> int64 lanes: added to 1.5 * 2^52 the integer
/// is the low mantissa bits (two's complement against the constant's own).
GRADCONF_ALWAYS_INLINE KeyLanes integral_to_int64(LocateLanes v) {
  const LocateLanes shift = LocateLanes{} + 0x1.8p52;
  const LocateLanes shifted = v + shift;
  KeyLanes bits, shift_bits;
  std::memcpy(&bits, &shifted, sizeof bits);
  std::memcpy(&shift_bits, &shift, sizeof shift_bits);
  return bits - shift_bits;
}

/// Locates the kLocateLanes samples from `first` on from their location lanes: guard, taps and
/// weights in double, as the reference computes them, all lanes at once (padding lanes locate on
/// their 1 x 1 levels and are never read). Per sample and tap in scalar code, locating was the
/// backward's largest cost after the gradValue scatter.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE void locate_lanes(LocateLanes location_x, LocateLanes location_y,
                                         const SampleLevels& g, size_t first, LocatedLanes& out) {
  using V = LocateLanes;
  if (planted<kFault>(Fault::kSwappedXY)) std::swap(location_x, location_y);
  V w, h, start;
  std::memcpy(&w, g.width.data() + first, sizeof w);
  std::memcpy(&h, g.height.data() + first, sizeof h);
  std::memcpy(&start, g.start.data() + first, sizeof start);
  const V x = unnormalize(location_x, w), y = unnormalize(location_y, h);
  const LocateMask taken = inside_guard<kFault>(x, y, h, w);
  // Outside the guard a coordinate may be anything (NaN, inf, huge): zero it before converting.
  const V zero = {}, xs = taken ? x : zero, ys = taken ? y : zero;
  const V x0 = floor_lanes(xs), y0 = floor_lanes(ys);
  const V tx = xs - x0, ty = ys - y0;
  const V wx[2] = {1 - tx, tx}, wy[2] = {1 - ty, ty};
  out.taken = taken;
  out.tx = tx;
  out.ty = ty;
  for (int k = 0; k < 4; ++k) out.weight[k] = wy[k >> 1] * wx[k & 1];
  const KeyLanes none = KeyLanes{} - 1;
  if (g.keys_in_double) {
    // Tap (y0, x0)'s key converted once; the others lie 1, W and W + 1 after it.
    const KeyLanes corner = integral_to_int64(start + y0 * w + x0), width = integral_to_int64(w);
    const KeyLanes offset[4] = {KeyLanes{}, KeyLanes{} + 1, width, width + 1};
    const LocateMask column_inside[2] = {(x0 >= 0) & (x0 < w), (x0 + 1 >= 0) & (x0 + 1 < w)};
    const LocateMask row_inside[2] = {(y0 >= 0) & (y0 < h), (y0 + 1 >= 0) & (y0 + 1 < h)};
    for (int k = 0; k < 4; ++k) {
      const LocateMask inside = taken & row_inside[k >> 1] & column_inside[k & 1];
      out.key[k] = inside ? corner + offset[k] : none;
    }
  } else {  // keys too large for double lanes: taps in int64, lane by lane
    for (int k = 0; k < 4; ++k) {
      for (int j = 0; j < kLocateLanes; ++j) {
        const Level& level = g.level[first + static_cast<size_t>(j)];
        const int64_t yi = static_cast<int64_t>(y0[j]) + (k >> 1);
        const int64_t xi = static_cast<int64_t>(x0[j]) + (k & 1);
        const bool tap_inside = yi >= 0 && yi < level.height && xi >= 0 && xi < level.width;
        out.key[k][j] = taken[j] && tap_inside ? level.start + yi * level.width + xi : -1;
      }
    }
  }
  if (planted<kFault>(Fault::kSwappedTapWeights)) std::swap(out.weight[1], out.weight[2]);
}

#pragma GCC diagnostic pop

/// The level table the kernels read: levelStartIndex as given, or (mutant) recomputed.
template <Fault kFault>
std::vector<Level> effective_levels(std::vector<Level> levels) {
  if (planted<kFault>(Fault::kLevelStartIgnored)) {
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
