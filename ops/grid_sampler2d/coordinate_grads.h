// The backward's gridGrad channel sums (pass 2 of the NOTE in backward_kernel.h): a point's
// taps' rows times the weights' derivatives, times its gradOutput row, summed over channels in the
// compute type in one fixed order.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_COORDINATE_GRADS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_COORDINATE_GRADS_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/dtype.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "grid_sampler2d/channels_last.h"
#include "grid_sampler2d/coords.h"
#include "grid_sampler2d/faults.h"
#include "grid_sampler2d/source_lanes.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// The taps a point's coordinate gradient reads, inside the input only, in tap order: the pixel,
/// and d weight / d ix, d weight / d iy.
struct CoordinateTaps {
  int count = 0;
  int64_t pixel[16];
  double dwx[16], dwy[16];
  GRADCONF_ALWAYS_INLINE void add(int64_t p, double x, double y) { add_if(true, p, x, y); }
  /// add() when `inside`, without a branch (a point's taps fall inside or not at random): the
  /// entry is written either way and counted only then (count < 16 before the last tap).
  GRADCONF_ALWAYS_INLINE void add_if(bool inside, int64_t p, double x, double y) {
    pixel[count] = p;
    dwx[count] = x;
    dwy[count] = y;
    count += inside ? 1 : 0;
  }
};

/// Points whose coordinate gradients are computed together: their channel sums are separate
/// dependency chains, which the core then runs side by side.
inline constexpr int kPointGroup = 4;

/// ((l0 + l1) + (l2 + l3)) + ... over V lanes (combine_lane_vector's tree for 8).
template <typename Acc, int V>
GRADCONF_ALWAYS_INLINE Acc combine_lane_tree(const LaneVector<Acc, V>& v) {
  if constexpr (V == kLanes) {
    return combine_lane_vector<Acc>(v);
  } else {
    static_assert(V == 4);
    return (v[0] + v[1]) + (v[2] + v[3]);
  }
}

/// d loss / d(ix, iy) of kPointGroup points: for each, the sum over channels c of gradOutput(c) *
/// (sum over taps k, in tap order, of input(c, tap k) * dw_k), in the compute type (spec README
/// §6: float for FLOAT and the half types, as PyTorch's CPU kernel sums them). Each of V lanes
/// sums the channels c = lane (mod V) in order, and the lanes are then added in a fixed tree: one
/// order whatever the thread count. `pixels[p]`: point p's batch's channels-last input rows (of
/// `row` values, a whole number of V); `grad[p]`: its channels-last gradOutput row.
template <typename T, Fault kFault, int V, typename Val>
GRADCONF_ALWAYS_INLINE void coordinate_grads(const CoordinateTaps (&taps)[kPointGroup],
                                             const Val* const (&pixels)[kPointGroup],
                                             const Val* const (&grad)[kPointGroup], int64_t row,
                                             double (&gx)[kPointGroup], double (&gy)[kPointGroup]) {
  using Acc = compute_t<T>;
  using Lanes = LaneVector<Acc, V>;
  static_assert(std::is_same_v<Acc, Val>);
  Acc dwx[kPointGroup][16], dwy[kPointGroup][16];
  for (int p = 0; p < kPointGroup; ++p) {
    for (int k = 0; k < taps[p].count; ++k) {
      dwx[p][k] = static_cast<Acc>(taps[p].dwx[k]);
      dwy[p][k] = static_cast<Acc>(taps[p].dwy[k]);
    }
  }
  // kThreadDependentSum only: the channel terms split into per-thread partial sums.
  Acc part_x[kPointGroup][8] = {}, part_y[kPointGroup][8] = {};
  const int parts = planted<kFault>(Fault::kThreadDependentSum) ? std::min(num_threads(), 8) : 1;
  Lanes ax[kPointGroup] = {}, ay[kPointGroup] = {};
  for (int64_t c = 0; c < row; c += V) {
#pragma GCC unroll 4
    for (int p = 0; p < kPointGroup; ++p) {
      Lanes sx = {}, sy = {};
      for (int k = 0; k < taps[p].count; ++k) {
        const Lanes v = load_row<Acc, V>(pixels[p] + taps[p].pixel[k] * row + c);
        sx += v * dwx[p][k];
        sy += v * dwy[p][k];
      }
      Lanes g = load_row<Acc, V>(grad[p] + c);
      if (planted<kFault>(Fault::kAbsIncomingGradient)) g = g < 0 ? -g : g;
      if (planted<kFault>(Fault::kThreadDependentSum)) {
        for (int j = 0; j < V; ++j) {
          const auto part = static_cast<int>((c + j) * parts / row);
          part_x[p][part] += g[j] * sx[j];
          part_y[p][part] += g[j] * sy[j];
        }
      } else {
        ax[p] += g * sx;
        ay[p] += g * sy;
      }
    }
  }
  for (int p = 0; p < kPointGroup; ++p) {
    if (planted<kFault>(Fault::kThreadDependentSum)) {
      Acc sum_x = 0, sum_y = 0;
      for (int k = 0; k < parts; ++k) sum_x += part_x[p][k], sum_y += part_y[p][k];
      gx[p] = sum_x;
      gy[p] = sum_y;
    } else {
      gx[p] = combine_lane_tree<Acc, V>(ax[p]);
      gy[p] = combine_lane_tree<Acc, V>(ay[p]);
    }
  }
}

/// The gradOutput channels of kLanes points as lanes (grad[c] lane j: point j's channel c), from
/// the points' rows of kNarrowLanes values.
GRADCONF_ALWAYS_INLINE void narrow_grad_lanes(const float* const (&rows)[kLanes],
                                              FloatLanes (&grad)[kNarrowLanes]) {
  LaneVector<float, kNarrowLanes> columns[kLanes];
  for (int j = 0; j < kLanes; ++j) columns[j] = load_row<float, kNarrowLanes>(rows[j]);
  transpose_8x4(columns, grad);
}

/// Tap k's values of a block's kLanes points for narrow_coordinate_grads, v[c] lane j: point j's
/// channel c. From the points' channels-last rows of kNarrowLanes (`pixels[j]`: point j's batch's
/// rows; offsets[k]: tap k's rows, lane_point_taps), each row loaded whole and the rows transposed
/// in registers; a tap outside reads its batch's zero row (offset `pixels()`, input_copy_rows).
struct NarrowTapRows {
  const float* const (&pixels)[kLanes];
  const MaskLanes (&offsets)[4];
  GRADCONF_ALWAYS_INLINE void operator()(int k, FloatLanes (&v)[kNarrowLanes]) const {
    LaneVector<float, kNarrowLanes> columns[kLanes];
    for (int j = 0; j < kLanes; ++j)
      columns[j] = load_row<float, kNarrowLanes>(pixels[j] + offsets[k][j] * int64_t{kNarrowLanes});
    transpose_8x4(columns, v);
  }
};

/// NarrowTapRows' values gathered from one batch's contiguous float input planes instead, with
/// AVX2 gathers (so only where kernel_isa() is AVX2 or AVX-512): a tap outside (offset `outside`,
/// past the plane) and the channels past `channels` read +0, as the rows' zero row and padding
/// hold. No copy of the input: where a single batch is split across workers each would otherwise
/// copy the whole input for itself (private_input_copies), which the second thread did not
/// shorten (bench/README session 70).
struct NarrowTapPlanes {
  const float* const (&planes)[kNarrowLanes];
  int channels;
  int32_t outside;
  const MaskLanes (&offsets)[4];
  GRADCONF_ALWAYS_INLINE void operator()(int k, FloatLanes (&v)[kNarrowLanes]) const {
    const MaskLanes inside = offsets[k] < outside;
    // Cleared only where not gathered: cleared first, the four vectors were a string store.
    for (int c = 0; c < kNarrowLanes; ++c) {
      if (c < channels) {
        gathered_lanes_avx2(planes[c], offsets[k], inside, v[c]);
      } else {
        v[c] = FloatLanes{};
      }
    }
  }
};

/// coordinate_grads<T, kFault, 4> of a block's kLanes points at once (C <= 4; bilinear on float
/// coordinates), one lane per point and one vector per channel, the taps' values from
/// `tap_values` (NarrowTapRows or NarrowTapPlanes). Per point the operations and their order are
/// coordinate_grads': the tap derivatives formed in double and rounded (lane_point_taps), each
/// channel summing its taps in tap order from zero, then gx = (c0 + c1) + (c2 + c3); so the same
/// bits. A tap outside reads +0 and adds v * dw = +-0 to its channel's sum, which changes nothing:
/// a sum that starts at +0 is never -0 (where coordinate_grads skips the tap; a select per tap and
/// channel cost 10% of the large spatial backward). The lanes of points that sample nothing (not
/// addressable, every tap outside) hold anything: their gridGrad is written as zero. With so few
/// channels the point-by-point sums left the vector units mostly idle. `grad[c]`: the points'
/// gradOutput channel c in lanes.
template <Fault kFault, typename TapValues>
GRADCONF_ALWAYS_INLINE void narrow_coordinate_grads(const SourceLanes& s,
                                                    const TapValues& tap_values,
                                                    const FloatLanes (&grad)[kNarrowLanes],
                                                    FloatLanes& gx, FloatLanes& gy) {
  static_assert(kNarrowLanes == 4);
  const BilinearWeightLanes w(s);
  const FloatLanes one_minus_ty = BilinearWeightLanes::rounded(w.y[0]);
  const FloatLanes one_minus_tx = BilinearWeightLanes::rounded(w.x[0]);
  const FloatLanes dwx[4] = {-one_minus_ty, one_minus_ty, -s.ty, s.ty};
  const FloatLanes dwy[4] = {-one_minus_tx, -s.tx, one_minus_tx, s.tx};
  FloatLanes sx[4] = {}, sy[4] = {};
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    FloatLanes v[4];
    tap_values(k, v);
    for (int c = 0; c < 4; ++c) {
      sx[c] += v[c] * dwx[k];
      sy[c] += v[c] * dwy[k];
    }
  }
  FloatLanes g[4], ax[4], ay[4];
  for (int c = 0; c < 4; ++c) g[c] = grad[c];
  for (int c = 0; c < 4; ++c) {
    if (planted<kFault>(Fault::kAbsIncomingGradient)) g[c] = g[c] < 0 ? -g[c] : g[c];
    ax[c] = FloatLanes{} + g[c] * sx[c];
    ay[c] = FloatLanes{} + g[c] * sy[c];
  }
  gx = (ax[0] + ax[1]) + (ax[2] + ax[3]);
  gy = (ay[0] + ay[1]) + (ay[2] + ay[3]);
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_COORDINATE_GRADS_H_
