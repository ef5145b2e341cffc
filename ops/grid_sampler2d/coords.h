// Coordinate helpers of the kernels (spec grid_sampler2d.md "Forward", "Backward"), each with its
// gradient twin, in the style of PyTorch's GridSampler.h. Coordinates (unnormalize, padding) are
// computed in the compute type Coord of the dtype, float for FLOAT/FLOAT16/BFLOAT16 and double for
// DOUBLE, with PyTorch's expression order (spec "Coordinate precision"): ties and kinks then fall
// where PyTorch and a device put them, and where the reference puts them.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_COORDS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_COORDS_H_

#include <cmath>
#include <cstdint>

#include "grid_sampler2d/faults.h"

namespace gradconf::grid_sampler2d {

enum class Interpolation : int64_t { kBilinear = 0, kNearest = 1 };
enum class Padding : int64_t { kZeros = 0, kBorder = 1 };

/// Coordinates beyond this magnitude (and NaN, +-inf) make a point out of bounds: the spec's
/// Decision, CANN's and PyTorch CUDA's int-range guard.
inline constexpr double kMaxCoordinate = 2147483646.0;  // 2^31 - 2

/// alignCorners: -1 and +1 are the centres of the corner pixels; else their outer edges.
template <typename Coord>
Coord unnormalize(Coord coord, int64_t size, bool align_corners) {
  const auto s = static_cast<Coord>(size);
  return align_corners ? (coord + 1) / 2 * (s - 1) : ((coord + 1) * s - 1) / 2;
}

/// d unnormalize / d coord.
inline double unnormalize_grad(int64_t size, bool align_corners) {
  const double s = static_cast<double>(size);
  return align_corners ? (s - 1) / 2 : s / 2;
}

/// Border padding. NaN passes through (and later makes the point out of bounds).
template <typename Coord>
Coord clip_coordinates(Coord coord, int64_t size) {
  const auto high = static_cast<Coord>(size - 1);
  if (coord <= 0) return 0;
  if (coord >= high) return high;
  return coord;
}

/// d clip / d coord: 1 strictly inside (0, size-1), 0 at or beyond either border (PyTorch's
/// convention: a point exactly on the border gets no grid gradient).
template <typename Coord>
double clip_coordinates_grad(Coord coord, int64_t size) {
  return (coord > 0 && coord < static_cast<Coord>(size - 1)) ? 1.0 : 0.0;
}

template <typename Coord>
bool is_addressable(Coord coord) {
  return std::fabs(static_cast<double>(coord)) <= kMaxCoordinate;
}

/// Where one grid point samples, and the chain-rule factors of its coordinates.
struct SourcePoint {
  int64_t x0 = 0, y0 = 0;         ///< top-left tap (bilinear) or the nearest pixel (nearest)
  double tx = 0, ty = 0;          ///< fractional offsets from (x0, y0) (bilinear)
  double mult_x = 0, mult_y = 0;  ///< d(ix)/d(x), d(iy)/d(y) including padding
  bool addressable = false;       ///< false: samples 0, no gradient anywhere
};

/// x, y: the grid point in the coordinate type (float, or double for DOUBLE problems).
template <Fault kFault = Fault::kNone, typename Coord>
SourcePoint locate_source(Coord x, Coord y, int64_t in_h, int64_t in_w, Interpolation interpolation,
                          Padding padding, bool align_corners) {
  SourcePoint p;
  Coord ix = unnormalize(x, in_w, align_corners);
  Coord iy = unnormalize(y, in_h, align_corners);
  p.mult_x = unnormalize_grad(in_w, align_corners);
  p.mult_y = unnormalize_grad(in_h, align_corners);
  if (padding == Padding::kBorder && kFault != Fault::kDroppedBorderClamp) {
    p.mult_x *= clip_coordinates_grad(ix, in_w);
    p.mult_y *= clip_coordinates_grad(iy, in_h);
    ix = clip_coordinates(ix, in_w);
    iy = clip_coordinates(iy, in_h);
  }
  if (!is_addressable(ix) || !is_addressable(iy)) return SourcePoint{};
  p.addressable = true;
  if (interpolation == Interpolation::kNearest) {
    // nearbyint under the default rounding mode: round half to even (spec, E-GS-6).
    if constexpr (kFault == Fault::kNearestRoundsHalfUp) {
      p.x0 = static_cast<int64_t>(std::round(ix));
      p.y0 = static_cast<int64_t>(std::round(iy));
    } else {
      p.x0 = static_cast<int64_t>(std::nearbyint(ix));
      p.y0 = static_cast<int64_t>(std::nearbyint(iy));
    }
    return p;
  }
  // ix - floor(ix) is exact in Coord: tx and ty are the coordinate's own fractions.
  const Coord fx = std::floor(ix);
  const Coord fy = std::floor(iy);
  p.x0 = static_cast<int64_t>(fx);
  p.y0 = static_cast<int64_t>(fy);
  p.tx = static_cast<double>(ix - fx);
  p.ty = static_cast<double>(iy - fy);
  return p;
}

inline bool in_bounds(int64_t y, int64_t x, int64_t h, int64_t w) {
  return y >= 0 && y < h && x >= 0 && x < w;
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_COORDS_H_
