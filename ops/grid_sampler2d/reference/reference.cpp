// NOTE: Naive double-precision oracle for GridSampler2D; see reference.h for why it is kept
// separate from the kernels. The helpers mirror the steps of the spec (unnormalize -> padding ->
// range check
// -> taps) one by one so that each can be checked against the spec text by eye. Speed is
// irrelevant.
#include "ops/grid_sampler2d/reference/reference.h"

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace gradconf::grid_sampler2d::reference {
namespace {

constexpr int64_t kNearest = 1;
constexpr int64_t kBicubic = 2;
constexpr int64_t kBorder = 1;
constexpr int64_t kReflection = 2;

// CANN and PyTorch CUDA refuse to cast a coordinate beyond the int32 range into an index and treat
// the point as out of bounds instead (CANN's -100 sentinel, PyTorch's safe_downgrade_to_int_range).
constexpr double kMaxSafeCoordinate = 2147483646.0;  // 2^31 - 2

// A source coordinate in pixel units together with d(coordinate) / d(normalized grid value).
struct SourceIndex {
  double coord;
  double grad;
};

// One sample position. `usable` is false when either coordinate failed the range check; such a
// point reads 0 and has no gradient at all.
struct SourcePoint {
  bool usable;
  SourceIndex x;
  SourceIndex y;
};

// One bilinear corner: its pixel, its interpolation weight and the weight's partial derivatives
// with respect to the unnormalized coordinates ix and iy (what the grid gradient is built from).
struct Tap {
  int64_t y;
  int64_t x;
  double weight;
  double dweight_dx;
  double dweight_dy;
};

// The taps of one point, 4 or 16, in a fixed-size list: the reference runs inside fuzz targets,
// where a heap allocation per sample was a quarter of their time under ASan.
struct Taps {
  std::array<Tap, 16> tap;
  size_t count = 0;
  void push_back(const Tap& t) { tap[count++] = t; }
  const Tap* begin() const { return tap.data(); }
  const Tap* end() const { return tap.data() + count; }
};

// With align_corners, -1 and +1 are the centres of the corner pixels; without, their outer edges.
// In the coordinate's compute type C, with PyTorch's expression order.
template <typename C>
C unnormalize(C coord, int64_t size, bool align_corners) {
  if (align_corners) return (coord + C(1)) / C(2) * static_cast<C>(size - 1);
  return ((coord + C(1)) * static_cast<C>(size) - C(1)) / C(2);
}

// d(unnormalize)/d(coord); a constant because unnormalize is affine.
double unnormalize_grad(int64_t size, bool align_corners) {
  return align_corners ? static_cast<double>(size - 1) / 2.0 : static_cast<double>(size) / 2.0;
}

// Border padding. The derivative is 0 at the borders themselves, not only beyond them: PyTorch's
// convention, adopted by the spec. NaN fails both comparisons and passes through unchanged, so the
// range check drops the point instead of clamping it to pixel 0 (PyTorch CPU does the latter).
template <typename C>
SourceIndex clip_coordinates_set_grad(C coord, int64_t size) {
  const auto high = static_cast<C>(size - 1);
  if (coord <= C(0)) return {0.0, 0.0};
  if (coord >= high) return {static_cast<double>(high), 0.0};
  return {static_cast<double>(coord), 1.0};
}

// Reflects a coordinate until it falls between low and high (inclusive), the bounds given as twice
// their value so that half-integers are integers (PyTorch's reflect_coordinates_set_grad). *grad is
// +1 or -1. The parity of the number of flips is taken in C: PyTorch's int cast of the count is
// undefined for far coordinates.
template <typename C>
C reflect_coordinates_set_grad(C in, int64_t twice_low, int64_t twice_high, double* grad) {
  if (twice_low == twice_high) {
    *grad = 0.0;
    return C(0);
  }
  const C min = static_cast<C>(twice_low) / C(2);
  const C span = static_cast<C>(twice_high - twice_low) / C(2);
  in = in - min;
  double mult = 1.0;
  if (in < C(0)) {
    mult = -1.0;
    in = -in;
  }
  const C extra = std::fmod(in, span);
  const C flips = std::floor(in / span);
  if (std::fmod(flips, C(2)) == C(0)) {
    *grad = mult;
    return extra + min;
  }
  *grad = -mult;
  return span - extra + min;
}

// Reflection folds at the corner pixels' centres (align_corners) or at their outer edges.
template <typename C>
C reflect_set_grad(C coord, int64_t size, bool align_corners, double* grad) {
  if (align_corners) return reflect_coordinates_set_grad(coord, 0, 2 * (size - 1), grad);
  return reflect_coordinates_set_grad(coord, -1, 2 * size - 1, grad);
}

// Padding of an unnormalized coordinate (PyTorch's compute_coordinates), with its derivative.
template <typename C>
SourceIndex pad_set_grad(C coord, int64_t size, const Attrs& attrs) {
  if (attrs.padding == kBorder) {
    const SourceIndex clipped = clip_coordinates_set_grad(coord, size);
    return {clipped.coord, clipped.grad};
  }
  if (attrs.padding == kReflection) {
    double reflect_grad = 0.0;
    const C reflected = reflect_set_grad(coord, size, attrs.align_corners, &reflect_grad);
    const SourceIndex clipped = clip_coordinates_set_grad(reflected, size);
    return {clipped.coord, reflect_grad * clipped.grad};
  }
  return {static_cast<double>(coord), 1.0};
}

// Bicubic pads each of its taps, not the coordinate: its source index is only unnormalized.
template <typename C>
SourceIndex compute_source_index_set_grad(C coord, int64_t size, const Attrs& attrs) {
  const C unnormalized = unnormalize(coord, size, attrs.align_corners);
  const double mult = unnormalize_grad(size, attrs.align_corners);
  if (attrs.interpolation == kBicubic) return {static_cast<double>(unnormalized), mult};
  const SourceIndex padded = pad_set_grad(unnormalized, size, attrs);
  return {padded.coord, mult * padded.grad};
}

SourceIndex source_index(double coord, int64_t size, const Attrs& attrs) {
  if (attrs.float_coordinates) {
    return compute_source_index_set_grad(static_cast<float>(coord), size, attrs);
  }
  return compute_source_index_set_grad(coord, size, attrs);
}

// A bicubic tap's pixel index along one axis: floor - 1 + i, padded in the coordinate type C
// (PyTorch's get_value_bounded); -1 when it falls outside [0, size).
template <typename C>
int64_t padded_tap_index(double floor_coord, int i, int64_t size, const Attrs& attrs) {
  const C tap = static_cast<C>(floor_coord) - C(1) + static_cast<C>(i);
  const double padded = pad_set_grad(tap, size, attrs).coord;
  if (!(padded >= 0.0 && padded < static_cast<double>(size))) return -1;
  return static_cast<int64_t>(padded);
}

int64_t tap_index(double floor_coord, int i, int64_t size, const Attrs& attrs) {
  if (attrs.float_coordinates) return padded_tap_index<float>(floor_coord, i, size, attrs);
  return padded_tap_index<double>(floor_coord, i, size, attrs);
}

// Applied after padding, so +-inf under border padding is a legal (clamped) coordinate, while under
// zeros padding it drops the point. Passing this check also makes the int64 casts below safe.
bool is_usable_coordinate(double coord) {
  return std::isfinite(coord) && std::fabs(coord) <= kMaxSafeCoordinate;
}

bool within_bounds_2d(int64_t y, int64_t x, int64_t height, int64_t width) {
  return y >= 0 && y < height && x >= 0 && x < width;
}

// Row-major offset of element (i0, i1, i2, i3) in a tensor of sizes (*, d1, d2, d3).
std::size_t offset4(int64_t i0, int64_t i1, int64_t i2, int64_t i3, int64_t d1, int64_t d2,
                    int64_t d3) {
  return static_cast<std::size_t>(((i0 * d1 + i1) * d2 + i2) * d3 + i3);
}

std::size_t count4(int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
  return static_cast<std::size_t>(d0 * d1 * d2 * d3);
}

std::size_t input_offset(const Dims& d, int64_t n, int64_t c, int64_t y, int64_t x) {
  return offset4(n, c, y, x, d.c, d.in_h, d.in_w);
}

std::size_t output_offset(const Dims& d, int64_t n, int64_t c, int64_t h, int64_t w) {
  return offset4(n, c, h, w, d.c, d.out_h, d.out_w);
}

std::size_t grid_offset(const Dims& d, int64_t n, int64_t h, int64_t w, int64_t component) {
  return offset4(n, h, w, component, d.out_h, d.out_w, 2);
}

SourcePoint source_point(const Dims& d, const Attrs& attrs, const std::vector<double>& grid,
                         int64_t n, int64_t h, int64_t w) {
  const SourceIndex x = source_index(grid[grid_offset(d, n, h, w, 0)], d.in_w, attrs);
  const SourceIndex y = source_index(grid[grid_offset(d, n, h, w, 1)], d.in_h, attrs);
  if (attrs.interpolation == kBicubic) {
    // Its taps are padded one by one (and a far one under zeros padding is simply outside), so
    // only a non-finite coordinate drops the point.
    return {std::isfinite(x.coord) && std::isfinite(y.coord), x, y};
  }
  return {is_usable_coordinate(x.coord) && is_usable_coordinate(y.coord), x, y};
}

// Keys' cubic convolution kernel with A = -0.75 (PyTorch's get_cubic_upsample_coefficients), at
// distance |x| <= 1 and 1 < |x| < 2, and its derivative.
constexpr double kCubicA = -0.75;
double cubic_near(double x) { return ((kCubicA + 2) * x - (kCubicA + 3)) * x * x + 1; }
double cubic_far(double x) {
  return ((kCubicA * x - 5 * kCubicA) * x + 8 * kCubicA) * x - 4 * kCubicA;
}
double cubic_near_slope(double x) { return (3 * (kCubicA + 2) * x - 2 * (kCubicA + 3)) * x; }
double cubic_far_slope(double x) { return (3 * kCubicA * x - 10 * kCubicA) * x + 8 * kCubicA; }

// Weights of the taps floor-1 .. floor+2 at fraction t, and their derivatives in t (the taps lie
// at distances t+1, t, 1-t, 2-t).
std::array<double, 4> cubic_weights(double t) {
  return {cubic_far(t + 1), cubic_near(t), cubic_near(1 - t), cubic_far(2 - t)};
}
std::array<double, 4> cubic_weight_slopes(double t) {
  return {cubic_far_slope(t + 1), cubic_near_slope(t), -cubic_near_slope(1 - t),
          -cubic_far_slope(2 - t)};
}

// The same polynomials with every monomial by its magnitude: evaluating one in a compute type
// errs by a few units of roundoff of this, not of the weight (near a root, where a weight is
// ~1e-7, a float evaluation is off by ~1e-6). Always >= the polynomial's |value|.
double cubic_near_terms(double x) {
  return (std::fabs(kCubicA + 2) * x + std::fabs(kCubicA + 3)) * x * x + 1;
}
double cubic_far_terms(double x) { return std::fabs(kCubicA) * (((x + 5) * x + 8) * x + 4); }
double cubic_near_slope_terms(double x) {
  return (3 * std::fabs(kCubicA + 2) * x + 2 * std::fabs(kCubicA + 3)) * x;
}
double cubic_far_slope_terms(double x) { return std::fabs(kCubicA) * ((3 * x + 10) * x + 8); }
std::array<double, 4> cubic_weight_terms(double t) {
  return {cubic_far_terms(t + 1), cubic_near_terms(t), cubic_near_terms(1 - t),
          cubic_far_terms(2 - t)};
}
std::array<double, 4> cubic_weight_slope_terms(double t) {
  return {cubic_far_slope_terms(t + 1), cubic_near_slope_terms(t), cubic_near_slope_terms(1 - t),
          cubic_far_slope_terms(2 - t)};
}

// The four corners around (ix, iy): (y0,x0), (y0,x0+1), (y0+1,x0), (y0+1,x0+1) in the spec's order
// V00, V01, V10, V11. Precondition: both coordinates are usable.
std::array<Tap, 4> bilinear_taps(double ix, double iy) {
  const double fx0 = std::floor(ix);
  const double fy0 = std::floor(iy);
  const double tx = ix - fx0;
  const double ty = iy - fy0;
  const auto x0 = static_cast<int64_t>(fx0);
  const auto y0 = static_cast<int64_t>(fy0);
  return {{
      {y0, x0, (1.0 - tx) * (1.0 - ty), -(1.0 - ty), -(1.0 - tx)},
      {y0, x0 + 1, tx * (1.0 - ty), 1.0 - ty, -tx},
      {y0 + 1, x0, (1.0 - tx) * ty, -ty, 1.0 - tx},
      {y0 + 1, x0 + 1, tx * ty, ty, tx},
  }};
}

// Bicubic's t = coord - floor(coord), in the coordinate type as PyTorch computes it: in float, a
// coordinate just below an integer gives t = 1 exactly (so a weight of exactly 0, and 0 * inf is
// NaN), where double would give 1 - 3e-8 (errata GS-BICUBIC-FRACTION).
double fraction(double coord, const Attrs& attrs) {
  if (attrs.float_coordinates) {
    const auto c = static_cast<float>(coord);  // exact: coord was computed in float
    return static_cast<double>(c - std::floor(c));
  }
  return coord - std::floor(coord);
}

// What the reference sums: the terms (the outputs), their magnitudes, or the scales their
// evaluation errs in (each weight a product of two factors, error scale weight_product's).
enum class Sums { kValues, kMagnitudes, kEvaluationScales };

// a b, or for kEvaluationScales the scale its evaluation errs in: each factor is a cubic whose
// computed value is off by a few ulps of its monomials' magnitude (ma, mb), so
// |computed - exact| <~ u (ma |b| + |a| mb).
double weight_product(double a, double ma, double b, double mb, Sums sums) {
  if (sums == Sums::kEvaluationScales) return ma * std::fabs(b) + std::fabs(a) * mb;
  return sums == Sums::kMagnitudes ? std::fabs(a * b) : a * b;
}

// The 16 bicubic taps of a usable point, row by row; a tap outside the input has index -1 (it
// reads 0). Precondition: both coordinates are finite.
Taps bicubic_taps(const SourcePoint& p, const Dims& d, const Attrs& attrs, Sums sums) {
  const double fx = std::floor(p.x.coord), fy = std::floor(p.y.coord);
  const double tx = fraction(p.x.coord, attrs), ty = fraction(p.y.coord, attrs);
  const std::array<double, 4> wx = cubic_weights(tx), wy = cubic_weights(ty);
  const std::array<double, 4> sx = cubic_weight_slopes(tx), sy = cubic_weight_slopes(ty);
  const std::array<double, 4> mwx = cubic_weight_terms(tx), mwy = cubic_weight_terms(ty);
  const std::array<double, 4> msx = cubic_weight_slope_terms(tx),
                              msy = cubic_weight_slope_terms(ty);
  Taps taps;
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      const int64_t y = tap_index(fy, j, d.in_h, attrs), x = tap_index(fx, i, d.in_w, attrs);
      taps.push_back({y < 0 || x < 0 ? -1 : y, y < 0 || x < 0 ? -1 : x,
                      weight_product(wx[i], mwx[i], wy[j], mwy[j], sums),
                      weight_product(sx[i], msx[i], wy[j], mwy[j], sums),
                      weight_product(wx[i], mwx[i], sy[j], msy[j], sums)});
    }
  }
  return taps;
}

// The weighted taps of a usable point, bilinear or bicubic; for the magnitudes and evaluation
// scales every weight and slope is by its magnitude (bilinear's factors are exact but for one
// rounding, so its two are the same).
Taps interpolation_taps(const SourcePoint& p, const Dims& d, const Attrs& attrs,
                        Sums sums = Sums::kValues) {
  if (attrs.interpolation == kBicubic) return bicubic_taps(p, d, attrs, sums);
  std::array<Tap, 4> taps = bilinear_taps(p.x.coord, p.y.coord);
  if (sums != Sums::kValues) {
    for (Tap& t : taps) {
      t.weight = std::fabs(t.weight);
      t.dweight_dx = std::fabs(t.dweight_dx);
      t.dweight_dy = std::fabs(t.dweight_dy);
    }
  }
  Taps list;
  for (const Tap& t : taps) list.push_back(t);
  return list;
}

// Round half to even, as PyTorch (std::nearbyint) and CANN (rint) do; assumes the default
// floating-point rounding mode. Precondition: the coordinate is usable.
int64_t nearest_index(double coord) { return static_cast<int64_t>(std::nearbyint(coord)); }

// Input value at a tap, with zeros outside the image (both padding modes: border padding has
// already moved the coordinate inside, so only its x0+1 / y0+1 neighbours can fall outside).
double input_at(const Dims& d, const std::vector<double>& input, int64_t n, int64_t c, int64_t y,
                int64_t x) {
  if (!within_bounds_2d(y, x, d.in_h, d.in_w)) return 0.0;
  return input[input_offset(d, n, c, y, x)];
}

// The taps a point reads (none for an unusable point or nearest, which reads one pixel).
Taps point_taps(const SourcePoint& p, const Dims& d, const Attrs& attrs, Sums sums) {
  if (!p.usable || attrs.interpolation == kNearest) return Taps{};
  return interpolation_taps(p, d, attrs, sums);
}

double sample(const Dims& d, const Attrs& attrs, const std::vector<double>& input,
              const SourcePoint& p, const Taps& taps, int64_t n, int64_t c) {
  if (!p.usable) return 0.0;
  if (attrs.interpolation == kNearest) {
    return input_at(d, input, n, c, nearest_index(p.y.coord), nearest_index(p.x.coord));
  }
  double value = 0.0;
  for (const Tap& tap : taps) {
    // Skip rather than multiply by a zero value: an out-of-range tap must not turn a zero weight
    // into NaN, while an in-range inf/NaN pixel must still poison the result (as in PyTorch).
    if (within_bounds_2d(tap.y, tap.x, d.in_h, d.in_w)) {
      value += tap.weight * input[input_offset(d, n, c, tap.y, tap.x)];
    }
  }
  return value;
}

std::vector<double> sample_all(const Dims& d, const Attrs& attrs, const std::vector<double>& input,
                               const std::vector<double>& grid, Sums sums) {
  std::vector<double> out(count4(d.n, d.c, d.out_h, d.out_w), 0.0);
  // Each point is located and its taps weighted once, for all its channels.
  for (int64_t n = 0; n < d.n; ++n) {
    for (int64_t h = 0; h < d.out_h; ++h) {
      for (int64_t w = 0; w < d.out_w; ++w) {
        const SourcePoint p = source_point(d, attrs, grid, n, h, w);
        const Taps taps = point_taps(p, d, attrs, sums);
        for (int64_t c = 0; c < d.c; ++c)
          out[output_offset(d, n, c, h, w)] = sample(d, attrs, input, p, taps, n, c);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<double> forward(const Dims& d, const Attrs& attrs, const std::vector<double>& input,
                            const std::vector<double>& grid) {
  return sample_all(d, attrs, input, grid, Sums::kValues);
}

std::vector<double> forward_with_weight_magnitudes(const Dims& d, const Attrs& attrs,
                                                   const std::vector<double>& input,
                                                   const std::vector<double>& grid) {
  return sample_all(d, attrs, input, grid, Sums::kMagnitudes);
}

std::vector<double> forward_evaluation_scales(const Dims& d, const Attrs& attrs,
                                              const std::vector<double>& input,
                                              const std::vector<double>& grid) {
  return sample_all(d, attrs, input, grid, Sums::kEvaluationScales);
}

namespace {

// For the magnitudes and evaluation scales, called with |grad_output| and |input|.
Gradients backward_sums(const Dims& d, const Attrs& attrs, const std::vector<double>& grad_output,
                        const std::vector<double>& input, const std::vector<double>& grid,
                        Sums sums) {
  const auto factor = [sums](double f) { return sums == Sums::kValues ? f : std::fabs(f); };
  Gradients result;
  result.input_grad.assign(count4(d.n, d.c, d.in_h, d.in_w), 0.0);
  result.grid_grad.assign(count4(d.n, d.out_h, d.out_w, 2), 0.0);

  // input_grad is the transpose of the forward in `input`: each output element scatters its
  // gradient back onto the pixels it read, with the same weights. A pixel of channel c gathers
  // from the points in (h, w) order whichever loop runs outermost, so each point is located and
  // its taps weighted once, for all its channels.
  for (int64_t n = 0; n < d.n; ++n) {
    for (int64_t h = 0; h < d.out_h; ++h) {
      for (int64_t w = 0; w < d.out_w; ++w) {
        const SourcePoint p = source_point(d, attrs, grid, n, h, w);
        if (!p.usable) continue;
        const Taps taps = point_taps(p, d, attrs, sums);
        for (int64_t c = 0; c < d.c; ++c) {
          const double g = grad_output[output_offset(d, n, c, h, w)];
          if (attrs.interpolation == kNearest) {
            const int64_t y = nearest_index(p.y.coord);
            const int64_t x = nearest_index(p.x.coord);
            if (within_bounds_2d(y, x, d.in_h, d.in_w)) {
              result.input_grad[input_offset(d, n, c, y, x)] += g;
            }
            continue;
          }
          for (const Tap& tap : taps) {
            if (within_bounds_2d(tap.y, tap.x, d.in_h, d.in_w)) {
              result.input_grad[input_offset(d, n, c, tap.y, tap.x)] += tap.weight * g;
            }
          }
        }
      }
    }
  }

  // Nearest is piecewise constant in the grid, and unusable points have no gradient: both keep
  // the zero fill (explicitly 0, never 0 * something that could be NaN).
  if (attrs.interpolation == kNearest) return result;
  for (int64_t n = 0; n < d.n; ++n) {
    for (int64_t h = 0; h < d.out_h; ++h) {
      for (int64_t w = 0; w < d.out_w; ++w) {
        const SourcePoint p = source_point(d, attrs, grid, n, h, w);
        if (!p.usable) continue;
        const Taps taps = interpolation_taps(p, d, attrs, sums);
        double gx = 0.0;  // d(loss)/d(ix), summed over channels
        double gy = 0.0;  // d(loss)/d(iy)
        for (int64_t c = 0; c < d.c; ++c) {
          const double g = grad_output[output_offset(d, n, c, h, w)];
          double dvalue_dx = 0.0;
          double dvalue_dy = 0.0;
          for (const Tap& tap : taps) {
            const double v = input_at(d, input, n, c, tap.y, tap.x);
            dvalue_dx += v * tap.dweight_dx;
            dvalue_dy += v * tap.dweight_dy;
          }
          gx += g * dvalue_dx;
          gy += g * dvalue_dy;
        }
        // Chain rule through padding and unnormalize; p.x.grad already holds both factors.
        result.grid_grad[grid_offset(d, n, h, w, 0)] = factor(p.x.grad) * gx;
        result.grid_grad[grid_offset(d, n, h, w, 1)] = factor(p.y.grad) * gy;
      }
    }
  }
  return result;
}

}  // namespace

Gradients backward(const Dims& d, const Attrs& attrs, const std::vector<double>& grad_output,
                   const std::vector<double>& input, const std::vector<double>& grid) {
  return backward_sums(d, attrs, grad_output, input, grid, Sums::kValues);
}

namespace {
Gradients backward_over_magnitudes(const Dims& d, const Attrs& attrs,
                                   const std::vector<double>& grad_output,
                                   const std::vector<double>& input,
                                   const std::vector<double>& grid, Sums sums) {
  std::vector<double> abs_grad_output = grad_output, abs_input = input;
  for (double& v : abs_grad_output) v = std::fabs(v);
  for (double& v : abs_input) v = std::fabs(v);
  return backward_sums(d, attrs, abs_grad_output, abs_input, grid, sums);
}
}  // namespace

Gradients backward_term_magnitudes(const Dims& d, const Attrs& attrs,
                                   const std::vector<double>& grad_output,
                                   const std::vector<double>& input,
                                   const std::vector<double>& grid) {
  return backward_over_magnitudes(d, attrs, grad_output, input, grid, Sums::kMagnitudes);
}

Gradients backward_evaluation_scales(const Dims& d, const Attrs& attrs,
                                     const std::vector<double>& grad_output,
                                     const std::vector<double>& input,
                                     const std::vector<double>& grid) {
  return backward_over_magnitudes(d, attrs, grad_output, input, grid, Sums::kEvaluationScales);
}

}  // namespace gradconf::grid_sampler2d::reference
