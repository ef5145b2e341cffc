// The extern "C" entry points: pack the arguments (params.h), phase 1 (entry.h), phase 2 (core
// executor).
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "core/executor.h"
#include "core/planted_fault.h"
#include "grid_sampler2d/entry.h"
#include "grid_sampler2d/params.h"

using gradconf::grid_sampler2d::CallArgs;
using gradconf::grid_sampler2d::Fault;
using gradconf::grid_sampler2d::kBackwardParams;
using gradconf::grid_sampler2d::kForwardParams;

extern "C" {

aclnnStatus aclnnGridSampler2DGetWorkspaceSize(const aclTensor* input, const aclTensor* grid,
                                               int64_t interpolationMode, int64_t paddingMode,
                                               bool alignCorners, aclTensor* out,
                                               uint64_t* workspaceSize, aclOpExecutor** executor) {
  const CallArgs args = kForwardParams.pack(input, grid, interpolationMode, paddingMode,
                                            alignCorners, out, workspaceSize, executor);
  return gradconf::with_planted_fault<Fault, gradconf::grid_sampler2d::kCompiledFaults>(
      "grid_sampler2d",
      [&](auto fault) { return gradconf::grid_sampler2d::forward_phase1<fault()>(args); });
}

GRADCONF_DEFINE_PHASE2(aclnnGridSampler2D, kForwardParams)

aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* input, const aclTensor* grid,
    int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
    const aclBoolArray* outputMask, aclTensor* inputGrad, aclTensor* gridGrad,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const CallArgs args =
      kBackwardParams.pack(gradOutput, input, grid, interpolationMode, paddingMode, alignCorners,
                           outputMask, inputGrad, gridGrad, workspaceSize, executor);
  return gradconf::with_planted_fault<Fault, gradconf::grid_sampler2d::kCompiledFaults>(
      "grid_sampler2d",
      [&](auto fault) { return gradconf::grid_sampler2d::backward_phase1<fault()>(args); });
}

GRADCONF_DEFINE_PHASE2(aclnnGridSampler2DBackward, kBackwardParams)

}  // extern "C"
