// NOTE [GridSampler2D backward kernel]
// Three passes over a workspace laid out as [points | scatter taps | one accumulator plane per
// worker] (workspace.h):
//   1. locate: every grid point (n, h, w) is located once (coords.h, in the coordinate type)
//      into `points`, and, when inputGrad is wanted, its tap offsets and weights (4, or 16 for
//      bicubic) into `scatter taps`;
//   2. gridGrad: one task per point sums its channel terms in channel order (in double for every
//      dtype: C can be long) and writes both components;
//   3. inputGrad: one task per plane (n, c) clears its worker's accumulator, scatters every point
//      of batch n into it in point order (taps outside the input land in a trash slot past the
//      plane, so the loop has no branch), then writes the plane out.
// Each output element has exactly one writer and a fixed summation order, so results are bitwise
// identical for any thread count; no atomics. The scatter goes through a double plane because a
// plane element can gather every point of its batch (half outputs could not even hold the sum).
// Empty problems need no workspace.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_BACKWARD_KERNEL_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_BACKWARD_KERNEL_H_

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/parallel.h"
#include "core/view.h"
#include "grid_sampler2d/coords.h"
#include "grid_sampler2d/forward_kernel.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// The scatter taps of a located point (see ScatterTaps), weights in the accumulator's type.
template <typename PlaneAcc, Fault kFault>
ScatterTaps scatter_taps(const SourcePoint& p, const BackwardLayout& l, bool nearest) {
  const int64_t trash = l.in_h * l.in_w;
  ScatterTaps s{{trash, trash, trash, trash}, {0, 0, 0, 0}};
  if (!p.addressable) return s;
  if (nearest) {
    if (in_bounds(p.y0, p.x0, l.in_h, l.in_w)) {
      s.offset[0] = p.y0 * l.in_w + p.x0;
      s.weight[0] = 1;  // 1 * g == g exactly, NaN and inf included
    }
    return s;
  }
  BilinearTaps<PlaneAcc, kFault> taps(p, l.in_h, l.in_w);
  if constexpr (kFault == Fault::kBackwardSwapsTapWeights)
    std::swap(taps.weight[1], taps.weight[2]);
  taps.plane_offsets(l.in_w, 1, s.offset);
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    if (taps.inside[k]) {
      s.weight[k] = static_cast<double>(taps.weight[k]);
    } else {
      s.offset[k] = trash;
    }
  }
  return s;
}

/// The 16 scatter taps of a located bicubic point, row by row (tap (j, i) at 4 j + i). Taps are
/// padded one by one, so several may land on one pixel (border, reflection).
template <typename T, Fault kFault>
BicubicScatterTaps bicubic_scatter_taps(const SourcePoint& p, const BackwardLayout& l,
                                        const Attributes& a) {
  BicubicScatterTaps s;
  std::fill(std::begin(s.offset), std::end(s.offset), l.in_h * l.in_w);  // the trash slot
  std::fill(std::begin(s.weight), std::end(s.weight), 0.0);
  if (!p.addressable) return s;
  const auto [x, y] = cubic_axes<T, kFault>(p, l.in_h, l.in_w, a);
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      if (!x.inside[i] || !y.inside[j]) continue;
      s.offset[4 * j + i] = y.index[j] * l.in_w + x.index[i];
      s.weight[4 * j + i] = x.weight[i] * y.weight[j];
    }
  }
  return s;
}

/// d loss / d(ix, iy) of one bicubic point, summed over channels in channel order (double).
template <typename T, Fault kFault>
std::pair<double, double> bicubic_coordinate_grad(const SourcePoint& p, const BackwardLayout& l,
                                                  const Attributes& a,
                                                  const StridedView<const T, 4>& input,
                                                  const StridedView<const T, 4>& grad_output,
                                                  int64_t n, int64_t h, int64_t w) {
  const auto [x, y] = cubic_axes<T, kFault>(p, l.in_h, l.in_w, a);
  int64_t offset[16];
  double dwx[16], dwy[16];
  int taps = 0;  // the taps inside, packed
  for (int j = 0; j < 4; ++j) {
    for (int i = 0; i < 4; ++i) {
      if (!x.inside[i] || !y.inside[j]) continue;
      offset[taps] = y.index[j] * input.strides[2] + x.index[i] * input.strides[3];
      dwx[taps] = x.weight_grad[i] * y.weight[j];
      dwy[taps] = x.weight[i] * y.weight_grad[j];
      ++taps;
    }
  }
  double gx = 0, gy = 0;
  const T* in_batch = &input(n, 0, 0, 0);
  const T* go_batch = &grad_output(n, 0, h, w);
  for (int64_t c = 0; c < l.channels; ++c) {
    const T* in_plane = in_batch + c * input.strides[1];
    const double g = static_cast<double>(go_batch[c * grad_output.strides[1]]);
    double sx = 0, sy = 0;
    for (int k = 0; k < taps; ++k) {
      const double v = static_cast<double>(in_plane[offset[k]]);
      sx += v * dwx[k];
      sy += v * dwy[k];
    }
    gx += g * sx;
    gy += g * sy;
  }
  return {gx, gy};
}

/// Scatters gradOutput(n, c, ., .) into the accumulator plane `acc` through each point's taps, in
/// point order (gradOutput walked row by row: no division per point).
template <typename PlaneAcc, typename Taps, typename T>
void scatter_plane(PlaneAcc* acc, const Taps* batch_taps, const T* go_plane, int64_t go_row,
                   int64_t go_col, const BackwardLayout& l, bool nearest) {
  for (int64_t i = 0, h = 0, w = 0; i < l.points(); ++i, w = w + 1 == l.out_w ? (++h, 0) : w + 1) {
    const PlaneAcc g = static_cast<PlaneAcc>(go_plane[h * go_row + w * go_col]);
    const Taps& t = batch_taps[i];
    if (nearest) {
      // One tap (weight 1): the three trash taps would only chain adds on the trash slot.
      acc[t.offset[0]] += g;
      continue;
    }
#pragma GCC unroll 16
    for (int k = 0; k < Taps::kCount; ++k)
      acc[t.offset[k]] += static_cast<PlaneAcc>(t.weight[k]) * g;
  }
}

template <typename T, Fault kFault>
void backward_kernel(const BackwardPlan& plan, std::byte* workspace) {
  using Acc = std::conditional_t<kFault == Fault::kDoubleComputedInFloat, float, compute_t<T>>;
  // inputGrad sums over every grid point of the batch (thousands of terms, cancelling), so its
  // accumulator plane is double for every dtype (spec README §3).
  using PlaneAcc = std::conditional_t<kFault == Fault::kDoubleComputedInFloat, float, double>;
  const BackwardLayout l(plan);
  const auto grad_output = view_of<const T, 4>(plan.grad_output);
  const auto input = view_of<const T, 4>(plan.input);
  const auto grid = view_of<const T, 4>(plan.grid);
  const auto input_grad = view_of<T, 4>(plan.input_grad);
  const auto grid_grad = view_of<T, 4>(plan.grid_grad);
  const Attributes& a = plan.attrs;
  const bool nearest = a.interpolation == Interpolation::kNearest;
  const int64_t points = l.points();

  if (l.empty()) {
    // Empty problems: whatever wanted output still has elements is zero (spec, E-GS-8).
    if (plan.want_grid_grad && l.channels == 0) {
      parallel_for(0, l.n_batch * points, 4096, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          grid_grad(i / points, (i % points) / l.out_w, i % l.out_w, 0) = T(0);
          grid_grad(i / points, (i % points) / l.out_w, i % l.out_w, 1) = T(0);
        }
      });
    }
    if (plan.want_input_grad && points == 0) {
      parallel_for(0, l.n_batch * l.channels, 1, [&](int64_t lo, int64_t hi) {
        for (int64_t nc = lo; nc < hi; ++nc) {
          for (int64_t y = 0; y < l.in_h; ++y) {
            for (int64_t x = 0; x < l.in_w; ++x)
              input_grad(nc / l.channels, nc % l.channels, y, x) = T(0);
          }
        }
      });
    }
    return;
  }

  const bool bicubic = a.interpolation == Interpolation::kBicubic;
  const BackwardWorkspace ws =
      *backward_workspace(l, a.interpolation, plan.want_input_grad, plan.workers);
  auto* located = reinterpret_cast<SourcePoint*>(workspace);
  auto* scatter = reinterpret_cast<ScatterTaps*>(workspace + ws.points_bytes);
  auto* bicubic_scatter = reinterpret_cast<BicubicScatterTaps*>(workspace + ws.points_bytes);
  parallel_for(0, l.n_batch * points, 1024, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t n = i / points, h = (i % points) / l.out_w, w = i % l.out_w;
      located[i] = locate_source<kFault>(static_cast<compute_t<T>>(grid(n, h, w, 0)),
                                         static_cast<compute_t<T>>(grid(n, h, w, 1)), l.in_h,
                                         l.in_w, a.interpolation, a.padding, a.align_corners);
      if (!plan.want_input_grad) continue;
      if (bicubic) {
        bicubic_scatter[i] = bicubic_scatter_taps<T, kFault>(located[i], l, a);
      } else {
        scatter[i] = scatter_taps<PlaneAcc, kFault>(located[i], l, nearest);
      }
    }
  });

  if (plan.want_grid_grad || kFault == Fault::kIgnoresOutputMask) {
    const int64_t grain = std::max<int64_t>(1, 4096 / l.channels);
    parallel_for(0, l.n_batch * points, grain, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t n = i / points, h = (i % points) / l.out_w, w = i % l.out_w;
        const SourcePoint& p = located[i];
        double gx = 0, gy = 0;
        if (p.addressable && bicubic) {
          std::tie(gx, gy) =
              bicubic_coordinate_grad<T, kFault>(p, l, a, input, grad_output, n, h, w);
          gx *= p.mult_x;
          gy *= p.mult_y;
        } else if (p.addressable && !nearest) {
          const BilinearTaps<double, kFault> taps(p, l.in_h, l.in_w);
          // d weight / d ix and d weight / d iy of the taps, in tap order.
          const double dwx[4] = {-(1 - p.ty), 1 - p.ty, -p.ty, p.ty};
          const double dwy[4] = {-(1 - p.tx), -p.tx, 1 - p.tx, p.tx};
          if constexpr (kFault == Fault::kThreadDependentSum) {
            // Mutant: per-thread partial sums in the compute type, combined at the end.
            const int parts = std::min(num_threads(), 8);
            Acc part_x[8] = {}, part_y[8] = {};
            for (int64_t c = 0; c < l.channels; ++c) {
              const int part = static_cast<int>(c * parts / l.channels);
              const Acc g = static_cast<Acc>(grad_output(n, c, h, w));
              for (int k = 0; k < 4; ++k) {
                if (!taps.inside[k]) continue;
                const Acc v = static_cast<Acc>(input(n, c, taps.y[k], taps.x[k]));
                part_x[part] += g * v * static_cast<Acc>(dwx[k]);
                part_y[part] += g * v * static_cast<Acc>(dwy[k]);
              }
            }
            for (int k = 0; k < parts; ++k) gx += part_x[k], gy += part_y[k];
          } else {
            // Taps as offsets inside an input plane, planes walked by the channel stride.
            int64_t tap_offset[4];
            taps.plane_offsets(input.strides[2], input.strides[3], tap_offset);
            // Pointers are formed for real channels only: stepping one channel past the last
            // would leave the storage (a size-1 dim may have any stride).
            const T* in_batch = &input(n, 0, 0, 0);
            const T* go_batch = &grad_output(n, 0, h, w);
            for (int64_t c = 0; c < l.channels; ++c) {
              const T* in_plane = in_batch + c * input.strides[1];
              double g = static_cast<double>(go_batch[c * grad_output.strides[1]]);
              if constexpr (kFault == Fault::kAbsIncomingGradient) g = std::fabs(g);
              // The channel's tap sums first, then one product: a single dependent add per
              // channel instead of four (the chain's latency bounded this pass).
              double sx = 0, sy = 0;
#pragma GCC unroll 4
              for (int k = 0; k < 4; ++k) {
                if (!taps.inside[k]) continue;
                const double v = static_cast<double>(in_plane[tap_offset[k]]);
                sx += v * dwx[k];
                sy += v * dwy[k];
              }
              gx += g * sx;
              gy += g * sy;
            }
          }
          gx *= p.mult_x;
          gy *= p.mult_y;
        }
        if constexpr (kFault == Fault::kSwappedGridGradXY) std::swap(gx, gy);
        if constexpr (kFault == Fault::kGridGradRoundedToFloat) {
          gx = static_cast<float>(gx);
          gy = static_cast<float>(gy);
        }
        grid_grad(n, h, w, 0) = static_cast<T>(gx);
        if constexpr (kFault == Fault::kIgnoredGridGradStride) {
          (&grid_grad(n, h, w, 0))[1] = static_cast<T>(gy);
        } else {
          grid_grad(n, h, w, 1) = static_cast<T>(gy);
        }
      }
    });
  }

  if (plan.want_input_grad) {
    std::byte* planes = workspace + ws.points_bytes + ws.scatter_bytes;
    const int64_t plane_slots = l.in_h * l.in_w + 1;  // the last one is the trash slot
    parallel_for(
        0, l.n_batch * l.channels, 1,
        [&](int64_t lo, int64_t hi) {
          auto* acc = reinterpret_cast<PlaneAcc*>(planes + ws.plane_bytes * worker_index());
          for (int64_t nc = lo; nc < hi; ++nc) {
            const int64_t n = nc / l.channels, c = nc % l.channels;
            if constexpr (kFault != Fault::kWorkspaceAssumedZero)
              std::fill(acc, acc + plane_slots, PlaneAcc(0));
            const int64_t first = kFault == Fault::kGridOfFirstBatchOnly ? 0 : n * points;
            const T* go_plane = &grad_output(n, c, 0, 0);
            const int64_t go_row = grad_output.strides[2], go_col = grad_output.strides[3];
            if (bicubic) {
              scatter_plane(acc, bicubic_scatter + first, go_plane, go_row, go_col, l, false);
            } else {
              scatter_plane(acc, scatter + first, go_plane, go_row, go_col, l, nearest);
            }
            for (int64_t y = 0; y < l.in_h; ++y) {
              for (int64_t x = 0; x < l.in_w; ++x)
                input_grad(n, c, y, x) = static_cast<T>(acc[y * l.in_w + x]);
            }
          }
        },
        plan.workers);
  }
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_BACKWARD_KERNEL_H_
