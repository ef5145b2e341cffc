// Pass 2 of the nearest backward (the NOTE in backward_kernel.h) when every point's record goes
// to one list in point order: nearest reads no tap for gridGrad (it is zero) and stores one
// offset per point, so the pass is a walk over the grid in lanes with nothing per point but the
// record and the zeros.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_POINT_PASS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_POINT_PASS_H_

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
/// lanes, one record list (ws.record_chunks 0), a packed grid and gridGrad (when wanted), no
/// planted fault (the faults live in the general pass: point_pass).
template <typename T, Fault kFault>
bool lean_nearest_points(const BackwardPlan& plan, const SamplerLayout& l,
                         const BackwardWorkspace& ws) {
  return kFault == Fault::kNone && std::is_same_v<compute_t<T>, float> &&
         plan.attrs.interpolation == Interpolation::kNearest && records_fit_lanes(l) &&
         ws.record_chunks == 0 && packed_row_major(view_of<const T, 4>(plan.grid)) &&
         (!plan.wants.grid_grad || packed_row_major(view_of<T, 4>(plan.grid_grad)));
}

/// Pass 2 (lean_nearest_points): each point's record (its pixel, or a trash slot: the values
/// lane_point_taps gives) stored at its index, and its gridGrad zeroed; `clearing` as the general
/// pass clears it.
template <typename T>
void nearest_point_pass(const BackwardPlan& plan, const SamplerLayout& l,
                        const BackwardWorkspace& ws, std::byte* workspace, ClearAsYouGo& clearing) {
  const T* grid = &view_of<const T, 4>(plan.grid)(0, 0, 0, 0);
  T* grid_grad = plan.wants.grid_grad ? &view_of<T, 4>(plan.grid_grad)(0, 0, 0, 0) : nullptr;
  auto* records = reinterpret_cast<NearestScatterTaps*>(workspace + ws.scatter);
  const bool stores_records = plan.wants.input_grad;
  const Attributes& a = plan.attrs;
  const int64_t pixels = l.pixels();
  MaskLanes trash;
  for (int j = 0; j < kLanes; ++j) trash[j] = static_cast<int32_t>(trash_slot(pixels, 0, j, 1));
  const auto task = [&](int64_t lo, int64_t hi) {
    ClearAsYouGo::Slice clear = clearing.slice(lo, hi);
    on_widest_isa<true>([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
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
        const SourceLanes s = locate_lanes<Fault::kNone>(x, y, l.in_h, l.in_w, a.interpolation,
                                                         a.padding, a.align_corners);
        const BilinearTapLanes<Fault::kNone> t(s, l.in_h, l.in_w, Interpolation::kNearest,
                                               static_cast<int32_t>(l.in_w), 1);
        typedef int64_t Longs __attribute__((vector_size(kLanes * sizeof(int64_t))));
        const Longs slots = __builtin_convertvector(t.inside[0] ? t.offset[0] : trash, Longs);
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

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_NEAREST_POINT_PASS_H_
