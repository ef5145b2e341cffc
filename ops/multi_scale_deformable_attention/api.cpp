// The extern "C" entry points: pack the arguments (params.h), phase 1 (entry.h), phase 2 (core
// executor).
#include "aclnnop/aclnn_multi_scale_deformable_attention.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "core/executor.h"
#include "core/planted_fault.h"
#include "multi_scale_deformable_attention/entry.h"
#include "multi_scale_deformable_attention/params.h"

using gradconf::msda::CallArgs;
using gradconf::msda::Fault;
using gradconf::msda::kBackwardParams;
using gradconf::msda::kForwardParams;

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
  const CallArgs args = kForwardParams.pack(value, spatialShape, levelStartIndex, location,
                                            attnWeight, output, workspaceSize, executor);
  return dispatch_phase1(args);
}

GRADCONF_DEFINE_PHASE2(aclnnMultiScaleDeformableAttnFunction, kForwardParams)

aclnnStatus aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
    const aclTensor* value, const aclTensor* spatialShape, const aclTensor* levelStartIndex,
    const aclTensor* location, const aclTensor* attnWeight, const aclTensor* gradOutput,
    aclTensor* gradValue, aclTensor* gradLocation, aclTensor* gradAttnWeight,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  const CallArgs args =
      kBackwardParams.pack(value, spatialShape, levelStartIndex, location, attnWeight, gradOutput,
                           gradValue, gradLocation, gradAttnWeight, workspaceSize, executor);
  return dispatch_phase1(args);
}

GRADCONF_DEFINE_PHASE2(aclnnMultiScaleDeformableAttentionGrad, kBackwardParams)

}  // extern "C"
