// One implementation of the GridSampler2D C API as a table of function pointers with the C
// prototypes. The harness runs laws against a Backend, so the same laws run against our kernels,
// another linked aclnn library, or a test-only mutant (mutants.h).
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_BACKEND_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_BACKEND_H_

#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

namespace gradconf::grid_sampler2d {

struct Backend {
  decltype(&aclnnGridSampler2DGetWorkspaceSize) forward_get_workspace_size;
  decltype(&aclnnGridSampler2D) forward;
  decltype(&aclnnGridSampler2DBackwardGetWorkspaceSize) backward_get_workspace_size;
  decltype(&aclnnGridSampler2DBackward) backward;
};

/// The linked aclnn symbols (our kernels unless another library provides them).
Backend default_backend();

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_BACKEND_H_
