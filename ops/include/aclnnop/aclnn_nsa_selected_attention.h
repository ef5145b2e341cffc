/* NsaSelectedAttention (CANN's forward of seed 003). */
#ifndef ACLNNOP_ACLNN_NSA_SELECTED_ATTENTION_H_
#define ACLNNOP_ACLNN_NSA_SELECTED_ATTENTION_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnNsaSelectedAttentionGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* topkIndices, const aclTensor* attenMaskOptional,
    const aclIntArray* actualSeqQLenOptional, const aclIntArray* actualSeqKvLenOptional,
    double scaleValue, int64_t headNum, char* inputLayout, int64_t sparseMode,
    int64_t selectedBlockSize, int64_t selectedBlockCount, const aclTensor* softmaxMaxOut,
    const aclTensor* softmaxSumOut, const aclTensor* attentionOut, uint64_t* workspaceSize,
    aclOpExecutor** executor);

aclnnStatus aclnnNsaSelectedAttention(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NSA_SELECTED_ATTENTION_H_ */
