/* MultiScaleDeformableAttentionGrad (seeds 000 and 001). */
#ifndef ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_GRAD_H_
#define ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_GRAD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
    const aclTensor* value, const aclTensor* spatialShape, const aclTensor* levelStartIndex,
    const aclTensor* location, const aclTensor* attnWeight, const aclTensor* gradOutput,
    aclTensor* gradValue, aclTensor* gradLocation, aclTensor* gradAttnWeight,
    uint64_t* workspaceSize, aclOpExecutor** executor);

aclnnStatus aclnnMultiScaleDeformableAttentionGrad(void* workspace, uint64_t workspaceSize,
                                                   aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MULTI_SCALE_DEFORMABLE_ATTENTION_GRAD_H_ */
