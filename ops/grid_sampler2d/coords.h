// Coordinate helpers of the kernels (spec grid_sampler2d.md "Forward", "Backward"), each with its
// gradient twin, in the style of PyTorch's GridSampler.h. Coordinates (unnormalize, padding) are
// computed in the compute type Coord of the dtype, float for FLOAT/FLOAT16/BFLOAT16 and double for
// DOUBLE, with PyTorch's expression order (spec "Coordinate precision"): ties and kinks then fall
// where PyTorch and a device put them, and where the reference puts them.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_COORDS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_COORDS_H_

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/isa.h"
#include "grid_sampler2d/faults.h"

namespace gradconf::grid_sampler2d {

/// The C API's encodings. Bicubic and reflection belong to the cann-latest profile (E-GS-5).
enum class Interpolation : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum class Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

/// Coordinates beyond this magnitude (and NaN, +-inf) make a point out of bounds: the spec's
/// Decision, CANN's and PyTorch CUDA's int-range guard.
inline constexpr double kMaxCoordinate = 2147483646.0;  // 2^31 - 2

/// The element type of a coordinate: itself, or a lane vector's (source_lanes.h locates kLanes
/// points at once with these helpers; always inlined, as every function a lane vector is passed
/// to by value must be: a baseline and an AVX2 function pass it in different places).
template <typename Coord>
struct ScalarOfCoord {
  using type = Coord;
};
template <typename Coord>
requires requires(Coord c) { c[0]; }
struct ScalarOfCoord<Coord> {
  using type = std::remove_cvref_t<decltype(std::declval<Coord>()[0])>;
};
template <typename Coord>
using ScalarOf = typename ScalarOfCoord<Coord>::type;

/// alignCorners: -1 and +1 are the centres of the corner pixels; else their outer edges.
template <typename Coord>
GRADCONF_ALWAYS_INLINE Coord unnormalize(Coord coord, int64_t size, bool align_corners) {
  const auto s = static_cast<ScalarOf<Coord>>(size);
  return align_corners ? (coord + 1) / 2 * (s - 1) : ((coord + 1) * s - 1) / 2;
}

/// d unnormalize / d coord.
inline double unnormalize_grad(int64_t size, bool align_corners) {
  const double s = static_cast<double>(size);
  return align_corners ? (s - 1) / 2 : s / 2;
}

/// Border padding. NaN passes through (and later makes the point out of bounds).
template <typename Coord>
GRADCONF_ALWAYS_INLINE Coord clip_coordinates(Coord coord, int64_t size) {
  const auto high = static_cast<ScalarOf<Coord>>(size - 1);
  return coord <= 0 ? Coord{} : coord >= high ? Coord{} + high : coord;
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

/// Reflection padding (PyTorch's reflect_coordinates_set_grad): folds coord into [low, low + span]
/// and sets *grad to d(result)/d(coord), +-1. The bounds are alignCorners' centres of the corner
/// pixels or their outer edges. The number of folds is only needed for its parity, taken in
/// floating point: PyTorch's int cast of it overflows for far points. fmod is exact, so the
/// folds of points within two spans, exact by subtraction (Sterbenz), give fmod's bits; the
/// parity test f - 2 floor(f / 2) is exact for any integral f. Both fmods were 9% of the
/// reflection backward.
template <typename Coord>
GRADCONF_ALWAYS_INLINE Coord reflect_coordinates(Coord coord, int64_t size, bool align_corners,
                                                 double* grad) {
  if (align_corners && size == 1) {
    *grad = 0;
    return 0;
  }
  const Coord low = align_corners ? Coord(0) : Coord(-0.5);
  const Coord span = static_cast<Coord>(align_corners ? size - 1 : size);
  Coord in = coord - low;
  double sign = 1;
  if (in < 0) {
    sign = -1;
    in = -in;
  }
  const Coord extra = in < span ? in : in < 2 * span ? in - span : std::fmod(in, span);
  const Coord folds = std::floor(in / span);
  const bool even_folds = folds - 2 * std::floor(folds / 2) == 0;
  *grad = even_folds ? sign : -sign;
  return even_folds ? extra + low : span - extra + low;
}

/// Padding of one coordinate (PyTorch's compute_coordinates): border clamps; reflection folds,
/// then clamps (alignCorners false folds into [-0.5, size - 0.5]); zeros leaves it. *grad is
/// the derivative, 0 at and beyond a clamp.
template <Fault kFault = Fault::kNone, typename Coord>
GRADCONF_ALWAYS_INLINE Coord pad_coordinate(Coord coord, int64_t size, Padding padding,
                                            bool align_corners, double* grad) {
  *grad = 1;
  if (padding == Padding::kZeros) return coord;
  if (padding == Padding::kReflection) {
    // Mutant: folds at the pixel centres whatever alignCorners says.
    const bool folds_at_centres =
        align_corners || planted<kFault>(Fault::kReflectionIgnoresAlignCorners);
    coord = reflect_coordinates(coord, size, folds_at_centres, grad);
  } else if (planted<kFault>(Fault::kDroppedBorderClamp)) {
    return coord;
  }
  *grad *= clip_coordinates_grad(coord, size);
  return clip_coordinates(coord, size);
}

/// Keys' cubic convolution with A = -0.75 (PyTorch's get_cubic_upsample_coefficients): the
/// weights of the taps at floor - 1 .. floor + 2 for a fraction t in [0, 1).
template <Fault kFault = Fault::kNone>
void cubic_coefficients(double t, double (&coeffs)[4]) {
  const double A = planted<kFault>(Fault::kWrongCubicCoefficient) ? -0.5 : -0.75;
  const auto near = [A](double x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };  // |x| <= 1
  const auto far = [A](double x) {                                                  // 1 < |x| < 2
    return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  };
  coeffs[0] = far(t + 1);
  coeffs[1] = near(t);
  coeffs[2] = near(1 - t);
  coeffs[3] = far(2 - t);
}

/// d coeffs / d t (PyTorch's get_cubic_coefficients_grad is its negation, which it subtracts).
template <Fault kFault = Fault::kNone>
void cubic_coefficients_grad(double t, double (&grads)[4]) {
  const double A = planted<kFault>(Fault::kWrongCubicCoefficient) ? -0.5 : -0.75;
  const auto near = [A](double x) { return (3 * (A + 2) * x - 2 * (A + 3)) * x; };
  const auto far = [A](double x) { return (3 * A * x - 10 * A) * x + 8 * A; };
  grads[0] = far(t + 1);
  grads[1] = near(t);
  grads[2] = -near(1 - t);
  grads[3] = -far(2 - t);
}

/// Where one grid point samples, and the chain-rule factors of its coordinates.
struct SourcePoint {
  int64_t x0 = 0, y0 = 0;         ///< top-left tap (bilinear) or the nearest pixel (nearest)
  double tx = 0, ty = 0;          ///< fractional offsets from (x0, y0) (bilinear, bicubic)
  double mult_x = 0, mult_y = 0;  ///< d(ix)/d(x), d(iy)/d(y) including padding
  /// floor(ix), floor(iy) in the coordinate type, exactly (bicubic's may exceed int64: its taps
  /// are padded one by one from them).
  double floor_x = 0, floor_y = 0;
  bool addressable = false;  ///< false: samples 0, no gradient anywhere
};

/// floor(ix), floor(iy) and the fractions ix - floor(ix), iy - floor(iy), computed in Coord as
/// PyTorch computes them: in float a coordinate just below an integer has the fraction 1 exactly
/// (errata GS-BICUBIC-FRACTION).
template <typename Coord>
void set_floors_and_fractions(Coord ix, Coord iy, SourcePoint& p) {
  const Coord fx = std::floor(ix);
  const Coord fy = std::floor(iy);
  p.floor_x = static_cast<double>(fx);
  p.floor_y = static_cast<double>(fy);
  p.tx = static_cast<double>(ix - fx);
  p.ty = static_cast<double>(iy - fy);
}

/// x, y: the grid point in the coordinate type (float, or double for DOUBLE problems).
/// Always inlined: a kernel locates every point, and the call (its record returned through
/// memory) cost more than the arithmetic.
template <Fault kFault = Fault::kNone, typename Coord>
GRADCONF_ALWAYS_INLINE SourcePoint locate_source(Coord x, Coord y, int64_t in_h, int64_t in_w,
                                                 Interpolation interpolation, Padding padding,
                                                 bool align_corners) {
  SourcePoint p;
  Coord ix = unnormalize(x, in_w, align_corners);
  Coord iy = unnormalize(y, in_h, align_corners);
  p.mult_x = unnormalize_grad(in_w, align_corners);
  p.mult_y = unnormalize_grad(in_h, align_corners);
  if (interpolation == Interpolation::kBicubic) {
    // Bicubic pads each tap, not the coordinate (PyTorch): any finite point has its 16 taps.
    if (!std::isfinite(ix) || !std::isfinite(iy)) return SourcePoint{};
    p.addressable = true;
    set_floors_and_fractions(ix, iy, p);
    return p;
  }
  double grad_x = 1, grad_y = 1;
  ix = pad_coordinate<kFault>(ix, in_w, padding, align_corners, &grad_x);
  iy = pad_coordinate<kFault>(iy, in_h, padding, align_corners, &grad_y);
  p.mult_x *= grad_x;
  p.mult_y *= grad_y;
  if (!is_addressable(ix) || !is_addressable(iy)) return SourcePoint{};
  p.addressable = true;
  if (interpolation == Interpolation::kNearest) {
    // nearbyint under the default rounding mode: round half to even (spec, E-GS-6).
    if (planted<kFault>(Fault::kNearestRoundsHalfUp)) {
      p.x0 = static_cast<int64_t>(std::round(ix));
      p.y0 = static_cast<int64_t>(std::round(iy));
    } else {
      p.x0 = static_cast<int64_t>(std::nearbyint(ix));
      p.y0 = static_cast<int64_t>(std::nearbyint(iy));
    }
    return p;
  }
  set_floors_and_fractions(ix, iy, p);
  p.x0 = static_cast<int64_t>(p.floor_x);
  p.y0 = static_cast<int64_t>(p.floor_y);
  return p;
}

/// The four bicubic taps of a point along one axis: their padded indices, whether each is inside
/// the input, their weights and d weight / d (unnormalized coordinate).
struct CubicAxis {
  int64_t index[4];
  bool inside[4];
  double weight[4];
  double weight_grad[4];
};

/// floor_coord and t: SourcePoint's floor and fraction along the axis. Taps are padded in the
/// coordinate type Coord, one by one (PyTorch's get_value_bounded).
template <typename Coord, Fault kFault = Fault::kNone>
CubicAxis cubic_axis(double floor_coord, double t, int64_t size, Padding padding,
                     bool align_corners) {
  CubicAxis axis;
  cubic_coefficients<kFault>(t, axis.weight);
  cubic_coefficients_grad<kFault>(t, axis.weight_grad);
  for (int i = 0; i < 4; ++i) {
    double unused_grad;
    const Coord tap =
        pad_coordinate<kFault>(static_cast<Coord>(floor_coord) - 1 + static_cast<Coord>(i), size,
                               padding, align_corners, &unused_grad);
    // Padded taps are whole numbers; under zeros padding a far one is simply outside.
    axis.inside[i] = tap >= 0 && tap < static_cast<Coord>(size);
    axis.index[i] = axis.inside[i] ? static_cast<int64_t>(tap) : 0;
  }
  return axis;
}

/// Bilinear tap k's weight from the fractions tx, ty, in double, taps in the order (y0,x0)
/// (y0,x1) (y1,x0) (y1,x1): (1 - ty or ty) * (1 - tx or tx).
GRADCONF_ALWAYS_INLINE double bilinear_weight(double tx, double ty, int k) {
  return ((k >> 1) ? ty : 1 - ty) * ((k & 1) ? tx : 1 - tx);
}

inline bool in_bounds(int64_t y, int64_t x, int64_t h, int64_t w) {
  return y >= 0 && y < h && x >= 0 && x < w;
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_COORDS_H_
