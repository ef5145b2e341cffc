// kLanes grid points located at once, as ATen's vectorised GridSampler does: locate_source's
// arithmetic (coords.h) lane by lane, for float coordinates (FLOAT, FLOAT16 and BFLOAT16 grids)
// under bilinear or nearest interpolation with any padding. Every lane gets the bits
// locate_source gives its point: the same float operations in the same order (no contraction:
// -ffp-contract=off), and floor and round-half-even done exactly on the integers a float can
// hold. Bicubic pads tap by tap: it stays point by point.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_SOURCE_LANES_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_SOURCE_LANES_H_

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/checked_math.h"
#include "core/lanes.h"
#include "grid_sampler2d/coords.h"

namespace gradconf::grid_sampler2d {

using FloatLanes = LaneVector<float>;

/// A size as the bound of int32 tap indices: tap indices of addressable points stay below
/// 2^31 - 126, so a larger size bounds them like INT_MAX does.
inline int32_t lane_bound(int64_t size) {
  return static_cast<int32_t>(std::min<int64_t>(size, INT_MAX));
}

/// Whether locate_lanes handles the call's attributes.
inline bool locates_in_lanes(Interpolation interpolation) {
  return interpolation != Interpolation::kBicubic;
}

/// kLanes located points (SourcePoint's fields that bilinear and nearest read).
struct SourceLanes {
  MaskLanes addressable;  ///< all bits set where the point samples, else 0
  MaskLanes x0, y0;       ///< top-left tap (bilinear) or nearest pixel; 0 where not addressable
  FloatLanes tx, ty;      ///< ix - floor(ix), iy - floor(iy) (bilinear)
  MaskLanes moves_x, moves_y;  ///< d padding / d coordinate is not 0 (0: clamped)
  MaskLanes flips_x, flips_y;  ///< reflection reversed the coordinate: its derivative is -1

  /// d padding / d coordinate of lane j as locate_source forms it: +-1, or +-0 where clamped.
  double grad_x(int j) const { return (flips_x[j] ? -1.0 : 1.0) * (moves_x[j] ? 1.0 : 0.0); }
  double grad_y(int j) const { return (flips_y[j] ? -1.0 : 1.0) * (moves_y[j] ? 1.0 : 0.0); }
};

/// is_addressable for floats: |c| <= 2^31 - 2 holds exactly for the floats up to 2^31 - 128
/// (the next float is 2^31); NaN is not.
GRADCONF_ALWAYS_INLINE MaskLanes addressable_lanes(FloatLanes c) {
  constexpr float kMaxFloatCoordinate = 2147483520.0f;
  static_assert(double{kMaxFloatCoordinate} <= kMaxCoordinate &&
                double{kMaxFloatCoordinate} + 128 > kMaxCoordinate);
  return (c <= kMaxFloatCoordinate) & (c >= -kMaxFloatCoordinate);
}

/// floor of addressable lanes (others give 0): truncation is exact there, one step down for
/// negative non-integers, and -0 stays -0 as std::floor keeps it.
GRADCONF_ALWAYS_INLINE FloatLanes floor_lanes(FloatLanes c, MaskLanes addressable) {
  const FloatLanes safe = addressable ? c : FloatLanes{};
  const FloatLanes truncated =
      __builtin_convertvector(__builtin_convertvector(safe, MaskLanes), FloatLanes);
  const FloatLanes down = truncated > safe ? truncated - 1 : truncated;
  return safe == 0 ? safe : down;
}

/// std::nearbyint (round half to even) of addressable lanes as integers (others give 0): below
/// 2^23 adding and subtracting 2^23 rounds to an integer under the default rounding mode; from
/// 2^23 on every float is one.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE MaskLanes nearest_lanes(FloatLanes c, MaskLanes addressable) {
  FloatLanes rounded;
  if (planted<kFault>(Fault::kNearestRoundsHalfUp)) {
    for (int j = 0; j < kLanes; ++j) rounded[j] = addressable[j] ? std::round(c[j]) : 0.0f;
    return __builtin_convertvector(rounded, MaskLanes);
  }
  constexpr float kTwo23 = 8388608.0f;
  const FloatLanes safe = addressable ? c : FloatLanes{};
  const FloatLanes magnitude = safe < 0 ? -safe : safe;
  const FloatLanes whole = magnitude < kTwo23 ? (magnitude + kTwo23) - kTwo23 : magnitude;
  rounded = safe < 0 ? -whole : whole;
  return __builtin_convertvector(rounded, MaskLanes);
}

/// std::floor of any float: from 2^23 on (and inf, NaN) every float is its own floor.
GRADCONF_ALWAYS_INLINE FloatLanes floor_any_lanes(FloatLanes v) {
  constexpr float kTwo23 = 8388608.0f;
  const MaskLanes small = (v < kTwo23) & (v > -kTwo23);
  return small ? floor_lanes(v, small) : v;
}

/// Whether every lane of a mask is set.
GRADCONF_ALWAYS_INLINE bool all_lanes(MaskLanes mask) {
  int32_t all = -1;
  for (int j = 0; j < kLanes; ++j) all &= mask[j];
  return all != 0;
}

/// The folds of lanes beyond two spans, with fmod (rare: the kernels' loops stay free of the
/// calls). Lane vectors cross by reference: this function is not inlined.
[[gnu::noinline]] inline void fold_far_lanes(const FloatLanes& in, const MaskLanes& within_two,
                                             float span, FloatLanes& extra) {
  for (int j = 0; j < kLanes; ++j) {
    if (!within_two[j]) extra[j] = std::fmod(in[j], span);
  }
}

/// reflect_coordinates in lanes, `flips` set where its derivative is -1. Points beyond two spans
/// fold with fmod lane by lane, as the scalar helper does.
GRADCONF_ALWAYS_INLINE FloatLanes reflect_lanes(FloatLanes coord, int64_t size, bool align_corners,
                                                MaskLanes& flips) {
  flips = MaskLanes{};
  if (align_corners && size == 1) return FloatLanes{};
  const float low = align_corners ? 0.0f : -0.5f;
  const auto span = static_cast<float>(align_corners ? size - 1 : size);
  FloatLanes in = coord - low;
  const MaskLanes negative = in < 0;
  in = negative ? -in : in;
  const MaskLanes first_span = in < span;
  FloatLanes extra = first_span ? in : in - span;
  const MaskLanes within_two = in < 2 * span;
  MaskLanes even = first_span;
  if (!all_lanes(within_two)) {
    fold_far_lanes(in, within_two, span, extra);
    const FloatLanes folds = floor_any_lanes(in / span);
    even = folds - 2 * floor_any_lanes(folds / 2) == 0;
  }
  // Within two spans, in / span rounds below 1 exactly where in < span and below 2 elsewhere
  // (the quotient stays more than half an ulp from 1 and from 2), so the folds' parity is
  // first_span: no division.
  flips = negative ^ ~even;
  return even ? extra + low : span - extra + low;
}

/// pad_coordinate in lanes, the derivative as masks: `moves` where it is not 0, `flips` where it
/// is negative (reflection).
template <Fault kFault>
GRADCONF_ALWAYS_INLINE FloatLanes pad_lanes(FloatLanes c, int64_t size, Padding padding,
                                            bool align_corners, MaskLanes& moves,
                                            MaskLanes& flips) {
  moves = MaskLanes{} - 1;
  flips = MaskLanes{};
  if (padding == Padding::kZeros) return c;
  if (padding == Padding::kReflection) {
    const bool folds_at_centres =
        align_corners || planted<kFault>(Fault::kReflectionIgnoresAlignCorners);
    c = reflect_lanes(c, size, folds_at_centres, flips);
  } else if (planted<kFault>(Fault::kDroppedBorderClamp)) {
    return c;
  }
  const auto high = static_cast<float>(size - 1);
  moves = (c > 0) & (c < high);
  return clip_coordinates(c, size);
}

/// x, y: kLanes grid points' coordinates as float.
template <Fault kFault>
GRADCONF_ALWAYS_INLINE SourceLanes locate_lanes(FloatLanes x, FloatLanes y, int64_t in_h,
                                                int64_t in_w, Interpolation interpolation,
                                                Padding padding, bool align_corners) {
  SourceLanes s;
  const FloatLanes ix = pad_lanes<kFault>(unnormalize(x, in_w, align_corners), in_w, padding,
                                          align_corners, s.moves_x, s.flips_x);
  const FloatLanes iy = pad_lanes<kFault>(unnormalize(y, in_h, align_corners), in_h, padding,
                                          align_corners, s.moves_y, s.flips_y);
  s.addressable = addressable_lanes(ix) & addressable_lanes(iy);
  if (interpolation == Interpolation::kNearest) {
    s.x0 = nearest_lanes<kFault>(ix, s.addressable);
    s.y0 = nearest_lanes<kFault>(iy, s.addressable);
    s.tx = s.ty = FloatLanes{};
    return s;
  }
  const FloatLanes fx = floor_lanes(ix, s.addressable);
  const FloatLanes fy = floor_lanes(iy, s.addressable);
  s.x0 = __builtin_convertvector(fx, MaskLanes);
  s.y0 = __builtin_convertvector(fy, MaskLanes);
  s.tx = ix - fx;
  s.ty = iy - fy;
  return s;
}

/// Bilinear weights in double, as BilinearTaps forms them (1 - tx, tx along x; 1 - ty, ty along
/// y), each product rounded once to float. Double4 halves: GCC lowers 8-double vectors through
/// the stack.
struct BilinearWeightLanes {
  struct Halves {
    Double4 low, high;
  };
  Halves x[2], y[2];

  GRADCONF_ALWAYS_INLINE explicit BilinearWeightLanes(const SourceLanes& s) {
    x[1] = halves(s.tx);
    y[1] = halves(s.ty);
    x[0] = {1 - x[1].low, 1 - x[1].high};
    y[0] = {1 - y[1].low, 1 - y[1].high};
  }
  GRADCONF_ALWAYS_INLINE static Halves halves(FloatLanes v) {
    typedef float Float4 __attribute__((vector_size(4 * sizeof(float))));
    const Float4 low = __builtin_shufflevector(v, v, 0, 1, 2, 3);
    const Float4 high = __builtin_shufflevector(v, v, 4, 5, 6, 7);
    return {__builtin_convertvector(low, Double4), __builtin_convertvector(high, Double4)};
  }
  GRADCONF_ALWAYS_INLINE static FloatLanes product(const Halves& a, const Halves& b) {
    return rounded({a.low * b.low, a.high * b.high});
  }
  /// Each lane rounded to float.
  GRADCONF_ALWAYS_INLINE static FloatLanes rounded(const Halves& a) {
    typedef float Float4 __attribute__((vector_size(4 * sizeof(float))));
    const Float4 low = __builtin_convertvector(a.low, Float4);
    const Float4 high = __builtin_convertvector(a.high, Float4);
    return __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7);
  }
  /// a * b lane by lane, in double (the backward's scatter weights are not rounded).
  GRADCONF_ALWAYS_INLINE static void store_product(const Halves& a, const Halves& b,
                                                   double (&out)[kLanes]) {
    const Double4 low = a.low * b.low, high = a.high * b.high;
    std::memcpy(out, &low, sizeof low);
    std::memcpy(out + 4, &high, sizeof high);
  }
};

/// The four bilinear taps of kLanes located points, in BilinearTaps' order (y0,x0) (y0,x1)
/// (y1,x0) (y1,x1): whether each lies inside the input and its offset y * row_stride + x *
/// column_stride (0 outside; the caller checked that the offsets fit int32), and its weight.
template <Fault kFault>
struct BilinearTapLanes {
  MaskLanes inside[4], offset[4];
  BilinearWeightLanes w;

  /// Nearest reads tap 0, (y0, x0), only: the others are left outside.
  GRADCONF_ALWAYS_INLINE BilinearTapLanes(const SourceLanes& s, int64_t in_h, int64_t in_w,
                                          Interpolation interpolation, int32_t row_stride,
                                          int32_t column_stride)
      : w(s) {
    const bool off_by_one =
        planted<kFault>(Fault::kOffByOneTap) && interpolation == Interpolation::kBilinear;
    const int32_t rows = lane_bound(in_h);
    const int32_t columns = lane_bound(off_by_one ? in_w - 1 : in_w);
    const int taps = interpolation == Interpolation::kNearest ? 1 : 4;
    // One product per axis (vector multiplies were 5% of the large spatial backward): tap k's
    // offset is the top-left tap's plus a row and/or a column, formed modulo 2^32 (a tap outside
    // may lie past int32's range; it is masked to 0), which for a tap inside is the exact offset.
    typedef uint32_t Unsigned __attribute__((vector_size(sizeof(MaskLanes))));
    const auto unsigned_lanes = [](MaskLanes v) { return reinterpret_cast<Unsigned>(v); };
    const Unsigned top_left = unsigned_lanes(s.y0) * static_cast<uint32_t>(row_stride) +
                              unsigned_lanes(s.x0) * static_cast<uint32_t>(column_stride);
    // Every lane written here: default member initializers became a memset (rep stos, 7% of the
    // large spatial forward's profile on Zen 3).
    for (int k = 0; k < 4; ++k) {
      if (k >= taps) {
        inside[k] = offset[k] = MaskLanes{};
        continue;
      }
      const MaskLanes x = s.x0 + (k & 1), y = s.y0 + (k >> 1);
      inside[k] = s.addressable & (x >= 0) & (x < columns) & (y >= 0) & (y < rows);
      const uint32_t step = (k >> 1) * static_cast<uint32_t>(row_stride) +
                            (k & 1) * static_cast<uint32_t>(column_stride);
      offset[k] = inside[k] & reinterpret_cast<MaskLanes>(top_left + step);
    }
  }
  /// Tap k's weight rounded to float (the forward's).
  GRADCONF_ALWAYS_INLINE FloatLanes float_weight(int k) const {
    const auto [a, b] = factors(k);
    return BilinearWeightLanes::product(a, b);
  }
  /// Tap k's weight in double (the backward's scatter weight).
  GRADCONF_ALWAYS_INLINE void double_weight(int k, double (&out)[kLanes]) const {
    const auto [a, b] = factors(k);
    BilinearWeightLanes::store_product(a, b, out);
  }

 private:
  GRADCONF_ALWAYS_INLINE
  std::pair<const BilinearWeightLanes::Halves&, const BilinearWeightLanes::Halves&> factors(
      int k) const {
    if (k == 3 && planted<kFault>(Fault::kWrongBilinearWeight)) return {w.x[1], w.x[1]};
    return {w.y[k >> 1], w.x[k & 1]};
  }
};

/// Whether every element of a plane of the view is an int32 offset from its first (the lanes
/// kernels index planes with int32 lanes), and the plane has elements.
template <typename View>
bool plane_fits_lanes(const View& v) {
  if (v.dims[2] == 0 || v.dims[3] == 0 || v.strides[2] < 0 || v.strides[3] < 0) return false;
  const auto rows = checked_mul(v.dims[2] - 1, v.strides[2]);
  const auto columns = checked_mul(v.dims[3] - 1, v.strides[3]);
  const auto last = rows && columns ? checked_add(*rows, *columns) : std::nullopt;
  return last && *last <= INT_MAX;
}

/// Whether a view's elements lie packed in row-major order: element i of the whole view at i.
template <typename View>
bool packed_row_major(const View& v) {
  int64_t expected = 1;
  for (int d = 3; d >= 0; --d) {
    if (v.dims[d] != 1 && v.strides[d] != expected) return false;
    expected *= v.dims[d];
  }
  return true;
}

/// Whether each plane of a view is packed row after row: unit column stride, rows one row long.
template <typename View>
bool planes_packed(const View& v) {
  return v.strides[3] == 1 && v.strides[2] == v.dims[3];
}

/// Points [i0, i0 + count) of a packed grid as float lanes of x and y; a short block repeats its
/// last point, as next_points does (located, never written).
template <typename T>
GRADCONF_ALWAYS_INLINE void packed_points(const T* grid, int64_t i0, int count, FloatLanes& x,
                                          FloatLanes& y) {
  float pairs[2 * kLanes];
  if (count == kLanes) {
    const LaneVector<float> low = load_lanes<float>(grid + 2 * i0, 1);
    const LaneVector<float> high = load_lanes<float>(grid + 2 * i0 + kLanes, 1);
    x = __builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14);
    y = __builtin_shufflevector(low, high, 1, 3, 5, 7, 9, 11, 13, 15);
    return;
  }
  for (int j = 0; j < kLanes; ++j) {
    const int64_t i = i0 + std::min(j, count - 1);
    pairs[2 * j] = static_cast<float>(grid[2 * i]);
    pairs[2 * j + 1] = static_cast<float>(grid[2 * i + 1]);
  }
  for (int j = 0; j < kLanes; ++j) x[j] = pairs[2 * j], y[j] = pairs[2 * j + 1];
}

/// (n, h, w) of grid point i of a grid of out_h x out_w points per batch, and a step to the next
/// point without a division.
struct PointIndex {
  int64_t n = 0, h = 0, w = 0, out_h = 1, out_w = 1;
  PointIndex() = default;
  PointIndex(int64_t i, int64_t rows, int64_t columns)
      : n(i / (rows * columns)),
        h(i % (rows * columns) / columns),
        w(i % columns),
        out_h(rows),
        out_w(columns) {}
  GRADCONF_ALWAYS_INLINE void next() {
    if (++w < out_w) return;
    w = 0;
    if (++h < out_h) return;
    h = 0;
    ++n;
  }
  /// `steps` points on, where they do not pass the end of the row.
  GRADCONF_ALWAYS_INLINE void next_in_row(int64_t steps) {
    w += steps - 1;
    next();
  }
};

/// The coordinates of kLanes grid points from `next` (advanced past the first `count`) as float
/// lanes: a short group repeats its last point (located and sampled, never written). `at`, where
/// given, receives each point's index.
template <typename GridView>
GRADCONF_ALWAYS_INLINE void next_points(PointIndex& next, int count, const GridView& grid,
                                        PointIndex* at, FloatLanes& x, FloatLanes& y) {
  if constexpr (std::is_same_v<std::remove_cv_t<std::remove_reference_t<decltype(*grid.origin)>>,
                               float>) {
    // kLanes points of one row whose (x, y) pairs are packed: two vector loads, deinterleaved
    // (point by point, each lane would be stored, then the vector loaded: a forwarding stall).
    if (count == kLanes && next.w + kLanes <= next.out_w && grid.strides[3] == 1 &&
        grid.strides[2] == 2) {
      packed_points(&grid(next.n, next.h, next.w, 0), 0, kLanes, x, y);
      if (at) {
        for (int j = 0; j < kLanes; ++j) at[j] = next, at[j].w += j;
      }
      next.next_in_row(kLanes);
      return;
    }
  }
  PointIndex last = next;
  for (int j = 0; j < kLanes; ++j) {
    if (j < count) {
      last = next, next.next();
      if (at) at[j] = last;
    }
    x[j] = static_cast<float>(grid(last.n, last.h, last.w, 0));
    y[j] = static_cast<float>(grid(last.n, last.h, last.w, 1));
  }
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_SOURCE_LANES_H_
