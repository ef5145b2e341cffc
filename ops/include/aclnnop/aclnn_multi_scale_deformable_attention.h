/* MultiScaleDeformableAttention forward (CANN: aclnnMultiScaleDeformableAttnFunction). */
#ifndef ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_H_
#define ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(
    const aclTensor* value, const aclTensor* spatialShape, const aclTensor* levelStartIndex,
    const aclTensor* location, const aclTensor* attnWeight, aclTensor* output,
    uint64_t* workspaceSize, aclOpExecutor** executor);

aclnnStatus aclnnMultiScaleDeformableAttnFunction(void* workspace, uint64_t workspaceSize,
                                                  aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_H_ */
