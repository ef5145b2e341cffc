// The nearest backward's own passes (the NOTE in backward_kernel.h): nearest reads no tap for
// gridGrad (it is zero) and its scatter records are one offset per point, so its point pass is a
// walk over the grid in lanes that stores the records and the zeros (nearest_point_pass), and
// where one (batch, block of channels) would leave workers idle its scatter goes one plane at a
// time (nearest_plane_scatter).
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_PASSES_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_PASSES_H_

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/scatter_records.h"
#include "grid_sampler2d/source_lanes.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// Whether nearest_point_pass serves a backward call: nearest on float coordinates located in
/// lanes, one record list (ws.record_chunks 0), a packed grid and gridGrad (when wanted). Planted
/// faults take it too: those that reach nearest's records live in the shared locating
/// (locate_lanes), so the laws that catch them catch them here; the gridGrad ones change nothing
/// in nearest's zeros on a packed gridGrad, in either pass.
template <typename T, Fault kFault>
bool lean_nearest_points(const BackwardPlan& plan, const SamplerLayout& l,
                         const BackwardWorkspace& ws) {
  return std::is_same_v<compute_t<T>, float> &&
         plan.attrs.interpolation == Interpolation::kNearest && records_fit_lanes(l) &&
         ws.record_chunks == 0 && packed_row_major(view_of<const T, 4>(plan.grid)) &&
         (!plan.wants.grid_grad || packed_row_major(view_of<T, 4>(plan.grid_grad)));
}

/// Pass 2 (lean_nearest_points): each point's record (its pixel, or a trash slot: the values
/// lane_point_taps gives) stored at its index, and its gridGrad zeroed; `clearing` as the general
/// pass clears it.
template <typename T, Fault kFault>
void nearest_point_pass(const BackwardPlan& plan, const SamplerLayout& l,
                        const BackwardWorkspace& ws, std::byte* workspace, ClearAsYouGo& clearing) {
  const T* grid = &view_of<const T, 4>(plan.grid)(0, 0, 0, 0);
  T* grid_grad = plan.wants.grid_grad ? &view_of<T, 4>(plan.grid_grad)(0, 0, 0, 0) : nullptr;
  auto* records = reinterpret_cast<NearestScatterTaps*>(workspace + ws.scatter);
  const bool stores_records = plan.wants.input_grad;
  const Attributes& a = plan.attrs;
  const auto task = [&](int64_t lo, int64_t hi) {
    ClearAsYouGo::Slice clear = clearing.slice(lo, hi);
    on_widest_isa<kFault == Fault::kNone>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      for (int64_t i0 = lo; i0 < hi; i0 += kLanes) {
        const int count = static_cast<int>(std::min<int64_t>(kLanes, hi - i0));
        clear.step();
        if (grid_grad && count == kLanes) {
          store_lanes<float>(grid_grad + 2 * i0, 1, FloatLanes{});
          store_lanes<float>(grid_grad + 2 * i0 + kLanes, 1, FloatLanes{});
        } else if (grid_grad) {
          for (int j = 0; j < 2 * count; ++j) grid_grad[2 * i0 + j] = T{};
        }
        if (!stores_records) continue;
        FloatLanes x, y;
        packed_points(grid, i0, count, x, y);
        const SourceLanes s =
            locate_lanes<kFault>(x, y, l.in_h, l.in_w, a.interpolation, a.padding, a.align_corners);
        const BilinearTapLanes<kFault> t(s, l.in_h, l.in_w, Interpolation::kNearest,
                                         static_cast<int32_t>(l.in_w), 1);
        typedef int64_t Longs __attribute__((vector_size(kLanes * sizeof(int64_t))));
        const Longs slots = __builtin_convertvector(
            offsets_or_trash(t, 0, NearestScatterTaps::kCount, l.pixels()), Longs);
        // A fixed size for whole blocks: a variable one was compiled to a string move, 80% of
        // the pass.
        if (count == kLanes) {
          std::memcpy(records + i0, &slots, sizeof slots);
        } else {
          for (int j = 0; j < count; ++j) records[i0 + j].offset[0] = slots[j];
        }
      }
    });
    clear.finish();
  };
  parallel_for(0, l.n_batch * l.points(), point_grain(l), task);
  clearing.done = clearing.at != nullptr;
}

/// Whether nearest_plane_scatter serves a backward call's inputGrad: nearest with records in
/// point order, gradOutput readable in place, points split across workers (`shared`) and fewer
/// (batch, block) tasks than the workers have, which the batch's planes outnumber. No planted
/// fault (the faults live in input_grad_pass).
template <typename T, Fault kFault>
bool scatters_nearest_planes(const BackwardPlan& plan, const SamplerLayout& l,
                             const BackwardWorkspace& ws, bool shared) {
  return kFault == Fault::kNone && std::is_same_v<compute_t<T>, float> && plan.wants.input_grad &&
         plan.attrs.interpolation == Interpolation::kNearest && ws.record_chunks == 0 &&
         plan.wants.grad_output_in_place && shared &&
         l.n_batch * l.channel_blocks() < plan.workers && l.channels > l.channel_blocks();
}

/// inputGrad one plane at a time: a task per (batch n, channel c) adds every point's gradOutput
/// value, in point order, at its record's slot of a plane of doubles (the worker's accumulator,
/// a pixel per double, then the trash slots), then writes the plane out, clearing it. The sums
/// are input_grad_pass's (double, point order, cast to T at the end), so the same bits; the
/// split is by plane instead of by block of channels, so one batch of a few channels keeps every
/// worker busy (N 1, C 4, 256 x 256 at 2 threads: 0.22 -> 0.15 ms; one task scattered the block
/// of 4 while the other core waited).
template <typename T>
void nearest_plane_scatter(const BackwardPlan& plan, const SamplerLayout& l, std::byte* workspace,
                           const BackwardWorkspace& ws) {
  const auto* records = reinterpret_cast<const NearestScatterTaps*>(workspace + ws.scatter);
  const auto grad_output = view_of<const T, 4>(plan.grad_output);
  const auto input_grad = view_of<T, 4>(plan.input_grad);
  const int64_t points = l.points(), pixels = l.pixels(), step = grad_output.strides[3];
  const bool packed_planes = planes_packed(input_grad);
  parallel_for(
      0, l.n_batch * l.channels, 1,
      [&](int64_t lo, int64_t hi) {
        auto* acc = reinterpret_cast<double*>(workspace + ws.accumulators +
                                              ws.accumulator_bytes * worker_index());
        // Trash slots too: whatever the workspace held (subnormals) would slow every add.
        std::fill_n(acc, pixels + kTrashSlots, 0.0);
        on_widest_isa<true>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
          for (int64_t task = lo; task < hi; ++task) {
            const int64_t n = task / l.channels, c = task % l.channels;
            const NearestScatterTaps* batch = records + n * points;
            // gradOutput in place: a plane's points are one stride apart (grad_output_in_place).
            const T* grad = &grad_output(n, c, 0, 0);
            for (int64_t i = 0; i < points; ++i)
              acc[batch[i].offset[0]] += static_cast<double>(static_cast<float>(grad[i * step]));
            // Written and cleared in one pass, in lanes where the plane is packed.
            if (packed_planes) {
              T* plane = &input_grad(n, c, 0, 0);
              int64_t q = 0;
              // Through float, as write_block rounds half types (Eigen's cast from double does).
              for (; q + kLanes <= pixels; q += kLanes) {
                store_lanes<float>(plane + q, 1,
                                   float_lanes<double>(load_lanes<double>(acc + q, 1)));
                store_lanes<double>(acc + q, 1, LaneVector<double>{});
              }
              for (; q < pixels; ++q) {
                plane[q] = static_cast<T>(acc[q]);
                acc[q] = 0;
              }
              continue;
            }
            for (int64_t y = 0; y < l.in_h; ++y) {
              for (int64_t x = 0; x < l.in_w; ++x) {
                input_grad(n, c, y, x) = static_cast<T>(acc[y * l.in_w + x]);
                acc[y * l.in_w + x] = 0;
              }
            }
          }
        });
      },
      plan.workers);
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_PASSES_H_
