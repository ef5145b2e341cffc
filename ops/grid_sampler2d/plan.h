// A validated call, as phase 1 hands it to phase 2: copies of the views (so the caller's
// aclTensor objects may be destroyed between the phases) and the decoded attributes.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_PLAN_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_PLAN_H_

#include <cstddef>
#include <cstdint>

#include "core/tensor.h"
#include "grid_sampler2d/coords.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

struct Attributes {
  Interpolation interpolation = Interpolation::kBilinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
};

struct ForwardPlan {
  aclTensor input, grid, out;
  Attributes attrs;
  bool channels_last = false;  ///< the workspace holds the input channels-last (forward_workspace)
};

struct BackwardPlan {
  aclTensor grad_output, input, grid, input_grad, grid_grad;
  Attributes attrs;
  BackwardWants wants;      ///< the outputs phase 2 computes, as the workspace was sized for them
  int workers = 1;          ///< workspace slices planned in phase 1; phase 2 uses at most this many
  int point_workers = 1;    ///< the point pass's split in phase 1 (workspace.h, point_workers)
  bool batch_major = true;  ///< a batch-major plan may be taken (workspace.h, batch_major_workers)
};

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_PLAN_H_
