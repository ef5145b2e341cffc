// The backward's workspace plan, apart from the kernel so that the GS-LIMIT-01 clause can size a
// call before phase 1 builds an executor for it.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_

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

/// Byte offsets of the workspace regions: [located points | one accumulator plane per worker].
struct BackwardWorkspace {
  uint64_t points_bytes = 0;
  uint64_t plane_bytes = 0;  ///< one worker's double accumulator plane
  uint64_t total = 0;
};

/// nullopt when the total exceeds kMaxWorkspaceBytes (clause GS-LIMIT-01).
inline std::optional<BackwardWorkspace> backward_workspace(const BackwardLayout& l,
                                                           bool want_input_grad, int workers) {
  BackwardWorkspace ws;
  if (l.empty()) return ws;
  auto points = checked_mul(l.n_batch, l.points());
  auto points_bytes = points ? checked_mul(*points, int64_t{sizeof(SourcePoint)}) : std::nullopt;
  auto plane = checked_mul(l.in_h, l.in_w);
  auto plane_bytes = plane ? checked_mul(*plane, int64_t{sizeof(double)}) : std::nullopt;
  if (!points_bytes || !plane_bytes) return std::nullopt;
  auto aligned = [](int64_t bytes) -> std::optional<int64_t> {
    auto up = checked_align_up(static_cast<uint64_t>(bytes), kWorkspaceAlignment);
    if (!up || *up > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(*up);
  };
  auto points_aligned = aligned(*points_bytes);
  auto plane_aligned = aligned(*plane_bytes);
  if (!points_aligned || !plane_aligned) return std::nullopt;
  auto planes = want_input_grad ? checked_mul(*plane_aligned, int64_t{workers})
                                : std::optional<int64_t>(0);
  auto total = planes ? checked_add(*points_aligned, *planes) : std::nullopt;
  if (!total || static_cast<uint64_t>(*total) > kMaxWorkspaceBytes) return std::nullopt;
  ws.points_bytes = static_cast<uint64_t>(*points_aligned);
  ws.plane_bytes = static_cast<uint64_t>(*plane_aligned);
  ws.total = static_cast<uint64_t>(*total);
  return ws;
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_WORKSPACE_H_
