/* NsaSelectedAttentionGrad (seed 003; CANN's prototype). */
#ifndef ACLNNOP_ACLNN_NSA_SELECTED_ATTENTION_GRAD_H_
#define ACLNNOP_ACLNN_NSA_SELECTED_ATTENTION_GRAD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnNsaSelectedAttentionGradGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* attentionOut, const aclTensor* attentionOutGrad, const aclTensor* softmaxMax,
    const aclTensor* softmaxSum, const aclTensor* topkIndices,
    const aclIntArray* actualSeqQLenOptional, const aclIntArray* actualSeqKvLenOptional,
    const aclTensor* attenMaskOptional, double scaleValue, int64_t selectedBlockSize,
    int64_t selectedBlockCount, int64_t headNum, char* inputLayout, int64_t sparseMode,
    const aclTensor* dqOut, const aclTensor* dkOut, const aclTensor* dvOut, uint64_t* workspaceSize,
    aclOpExecutor** executor);

aclnnStatus aclnnNsaSelectedAttentionGrad(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NSA_SELECTED_ATTENTION_GRAD_H_ */
