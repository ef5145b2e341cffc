// The C parameter lists of MultiScaleDeformableAttnFunction and MultiScaleDeformableAttentionGrad
// (ops/core/params.h): the one description the extern "C" bodies, the public headers' check and
// the suite's bindings derive from.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_PARAMS_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_PARAMS_H_

#include "core/params.h"
#include "multi_scale_deformable_attention/clauses.h"

namespace gradconf::msda {

inline constexpr auto kForwardParams = entry_params(
    Direction::kForward, "aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize",
    "aclnnMultiScaleDeformableAttnFunction", input("value", &CallArgs::value),
    input("spatialShape", &CallArgs::spatial_shape),
    input("levelStartIndex", &CallArgs::level_start_index), input("location", &CallArgs::location),
    input("attnWeight", &CallArgs::attn_weight), output("output", &CallArgs::output));

inline constexpr auto kBackwardParams = entry_params(
    Direction::kBackward, "aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize",
    "aclnnMultiScaleDeformableAttentionGrad", input("value", &CallArgs::value),
    input("spatialShape", &CallArgs::spatial_shape),
    input("levelStartIndex", &CallArgs::level_start_index), input("location", &CallArgs::location),
    input("attnWeight", &CallArgs::attn_weight), input("gradOutput", &CallArgs::grad_output),
    output("gradValue", &CallArgs::grad_value), output("gradLocation", &CallArgs::grad_location),
    output("gradAttnWeight", &CallArgs::grad_attn_weight));

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_PARAMS_H_
