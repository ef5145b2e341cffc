// The extern "C" entry points: pack the arguments, phase 1 (entry.h), phase 2 (core executor).
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "core/planted_fault.h"
#include "grid_sampler2d/entry.h"

using gradconf::Direction;
using gradconf::grid_sampler2d::CallArgs;
using gradconf::grid_sampler2d::Fault;

extern "C" {

aclnnStatus aclnnGridSampler2DGetWorkspaceSize(const aclTensor* input, const aclTensor* grid,
                                               int64_t interpolationMode, int64_t paddingMode,
                                               bool alignCorners, aclTensor* out,
                                               uint64_t* workspaceSize, aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kForward;
  args.input = input;
  args.grid = grid;
  args.interpolation_mode = interpolationMode;
  args.padding_mode = paddingMode;
  args.align_corners = alignCorners;
  args.out = out;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return gradconf::with_planted_fault<Fault>("grid_sampler2d", [&](auto fault) {
    return gradconf::grid_sampler2d::forward_phase1<fault()>(args);
  });
}

aclnnStatus aclnnGridSampler2D(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor, "aclnnGridSampler2D");
}

aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* input, const aclTensor* grid,
    int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
    const aclBoolArray* outputMask, aclTensor* inputGrad, aclTensor* gridGrad,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kBackward;
  args.grad_output = gradOutput;
  args.input = input;
  args.grid = grid;
  args.interpolation_mode = interpolationMode;
  args.padding_mode = paddingMode;
  args.align_corners = alignCorners;
  args.output_mask = outputMask;
  args.input_grad = inputGrad;
  args.grid_grad = gridGrad;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return gradconf::with_planted_fault<Fault>("grid_sampler2d", [&](auto fault) {
    return gradconf::grid_sampler2d::backward_phase1<fault()>(args);
  });
}

aclnnStatus aclnnGridSampler2DBackward(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor, "aclnnGridSampler2DBackward");
}

}  // extern "C"
