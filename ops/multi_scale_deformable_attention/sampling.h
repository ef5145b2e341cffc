// Where one (query, head, level, point) samples its level, in the style of PyTorch's GridSampler
// helpers: each step a small named function. Coordinates and weights are computed in double for
// every dtype so that the guard, tap selection and weights are exactly the reference's.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_SAMPLING_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_SAMPLING_H_

#include <cmath>
#include <cstdint>
#include <utility>

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
