// The extern "C" entry points: pack the arguments, phase 1 (entry.h), phase 2 (core executor).
#include "aclnnop/aclnn_multi_scale_deformable_attention.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "core/planted_fault.h"
#include "multi_scale_deformable_attention/entry.h"

using gradconf::Direction;
using gradconf::msda::CallArgs;
using gradconf::msda::Fault;

namespace {
aclnnStatus dispatch_phase1(const CallArgs& args) {
  return gradconf::with_planted_fault<Fault>("multi_scale_deformable_attention", [&](auto fault) {
    return gradconf::msda::phase1<fault()>(args);
  });
}
}  // namespace

extern "C" {

aclnnStatus aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(
    const aclTensor* value, const aclTensor* spatialShape, const aclTensor* levelStartIndex,
    const aclTensor* location, const aclTensor* attnWeight, aclTensor* output,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kForward;
  args.value = value;
  args.spatial_shape = spatialShape;
  args.level_start_index = levelStartIndex;
  args.location = location;
  args.attn_weight = attnWeight;
  args.output = output;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return dispatch_phase1(args);
}

aclnnStatus aclnnMultiScaleDeformableAttnFunction(void* workspace, uint64_t workspaceSize,
                                                  aclOpExecutor* executor, aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor,
                                "aclnnMultiScaleDeformableAttnFunction");
}

aclnnStatus aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
    const aclTensor* value, const aclTensor* spatialShape, const aclTensor* levelStartIndex,
    const aclTensor* location, const aclTensor* attnWeight, const aclTensor* gradOutput,
    aclTensor* gradValue, aclTensor* gradLocation, aclTensor* gradAttnWeight,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kBackward;
  args.value = value;
  args.spatial_shape = spatialShape;
  args.level_start_index = levelStartIndex;
  args.location = location;
  args.attn_weight = attnWeight;
  args.grad_output = gradOutput;
  args.grad_value = gradValue;
  args.grad_location = gradLocation;
  args.grad_attn_weight = gradAttnWeight;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return dispatch_phase1(args);
}

aclnnStatus aclnnMultiScaleDeformableAttentionGrad(void* workspace, uint64_t workspaceSize,
                                                   aclOpExecutor* executor, aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor,
                                "aclnnMultiScaleDeformableAttentionGrad");
}

}  // extern "C"
