// The backward's workspace plan, apart from the kernel so that the GS-LIMIT-01 clause can size a
// call before phase 1 builds an executor for it.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/checked_math.h"
#include "core/executor.h"
#include "core/tensor.h"
#include "grid_sampler2d/coords.h"

namespace gradconf::grid_sampler2d {

struct BackwardLayout {
  int64_t n_batch, channels, in_h, in_w, out_h, out_w;
  BackwardLayout(const aclTensor& input, const aclTensor& grid)
      : n_batch(input.view_dims[0]),
        channels(input.view_dims[1]),
        in_h(input.view_dims[2]),
        in_w(input.view_dims[3]),
        out_h(grid.view_dims[1]),
        out_w(grid.view_dims[2]) {}
  template <typename Plan>
  explicit BackwardLayout(const Plan& plan) : BackwardLayout(plan.input, plan.grid) {}
  int64_t points() const { return out_h * out_w; }
  bool empty() const { return n_batch == 0 || channels == 0 || points() == 0; }
};

/// Where a located point sends its gradOutput in the inputGrad scatter: accumulator-plane
/// offsets with their weights, fixed tap order (4 bilinear and nearest, 16 bicubic). Taps that
/// fall outside the input (and all taps of nearest beyond the first) point at the plane's trash
/// slot, so the scatter needs no branch.
template <int kTaps>
struct ScatterTapsOf {
  static constexpr int kCount = kTaps;
  int64_t offset[kTaps];
  double weight[kTaps];
};
using ScatterTaps = ScatterTapsOf<4>;
using BicubicScatterTaps = ScatterTapsOf<16>;

/// Bytes per grid point: its located record, and (inputGrad wanted) its scatter taps.
inline constexpr int64_t kPointBytes = sizeof(SourcePoint);
inline constexpr int64_t scatter_bytes_per_point(Interpolation interpolation) {
  return interpolation == Interpolation::kBicubic ? sizeof(BicubicScatterTaps)
                                                  : sizeof(ScatterTaps);
}

/// Byte sizes of the workspace regions, in order:
/// [located points | scatter taps (inputGrad) | one accumulator plane per worker (inputGrad)].
struct BackwardWorkspace {
  uint64_t points_bytes = 0;
  uint64_t scatter_bytes = 0;
  uint64_t plane_bytes = 0;  ///< one worker's double accumulator plane, plus its trash slot
  uint64_t total = 0;
};

/// Accumulator planes the inputGrad pass can use: one per worker, and no more workers than there
/// are (n, c) planes to compute, whatever the thread count.
inline int accumulator_workers(const BackwardLayout& l, int threads) {
  const int64_t planes = l.empty() ? 1 : checked_mul(l.n_batch, l.channels).value_or(INT64_MAX);
  return static_cast<int>(std::clamp<int64_t>(planes, 1, std::max(threads, 1)));
}

/// nullopt when the total exceeds kMaxWorkspaceBytes (clause GS-LIMIT-01). Without inputGrad no
/// accumulator plane is sized at all (its size may not even be representable).
inline std::optional<BackwardWorkspace> backward_workspace(const BackwardLayout& l,
                                                           Interpolation interpolation,
                                                           bool want_input_grad, int workers) {
  BackwardWorkspace ws;
  if (l.empty()) return ws;
  auto points = checked_mul(l.n_batch, l.points());
  auto points_bytes = points ? checked_mul(*points, kPointBytes) : std::nullopt;
  auto scatter_bytes = points && want_input_grad
                           ? checked_mul(*points, scatter_bytes_per_point(interpolation))
                           : std::optional<int64_t>(0);
  std::optional<int64_t> plane_bytes = 0;
  if (want_input_grad) {
    auto plane = checked_mul(l.in_h, l.in_w);
    auto plane_slots = plane ? checked_add(*plane, 1) : std::nullopt;  // + the trash slot
    plane_bytes = plane_slots ? checked_mul(*plane_slots, int64_t{sizeof(double)}) : std::nullopt;
  }
  if (!points_bytes || !scatter_bytes || !plane_bytes) return std::nullopt;
  auto aligned = [](int64_t bytes) -> std::optional<int64_t> {
    auto up = checked_align_up(static_cast<uint64_t>(bytes), kWorkspaceAlignment);
    if (!up || *up > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(*up);
  };
  auto points_aligned = aligned(*points_bytes);
  auto scatter_aligned = aligned(*scatter_bytes);
  auto plane_aligned = aligned(*plane_bytes);
  if (!points_aligned || !scatter_aligned || !plane_aligned) return std::nullopt;
  auto planes =
      want_input_grad ? checked_mul(*plane_aligned, int64_t{workers}) : std::optional<int64_t>(0);
  auto head = checked_add(*points_aligned, *scatter_aligned);
  auto total = planes && head ? checked_add(*head, *planes) : std::nullopt;
  if (!total || static_cast<uint64_t>(*total) > kMaxWorkspaceBytes) return std::nullopt;
  ws.scatter_bytes = static_cast<uint64_t>(*scatter_aligned);
  ws.points_bytes = static_cast<uint64_t>(*points_aligned);
  ws.plane_bytes = static_cast<uint64_t>(*plane_aligned);
  ws.total = static_cast<uint64_t>(*total);
  return ws;
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_
