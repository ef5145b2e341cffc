/* NsaCompressGrad (seed 004). The seed's parameter names actSeqLenOptionalOptional and
 * layoutOptionalOptional are a generated-header artefact (errata E-NC-4) and are kept. */
#ifndef ACLNNOP_ACLNN_NSA_COMPRESS_GRAD_H_
#define ACLNNOP_ACLNN_NSA_COMPRESS_GRAD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnNsaCompressGradGetWorkspaceSize(
    const aclTensor* outputGrad, const aclTensor* input, const aclTensor* weight,
    const aclIntArray* actSeqLenOptionalOptional, int64_t compressBlockSize, int64_t compressStride,
    int64_t actSeqLenType, char* layoutOptionalOptional, const aclTensor* inputGrad,
    const aclTensor* weightGrad, uint64_t* workspaceSize, aclOpExecutor** executor);

aclnnStatus aclnnNsaCompressGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NSA_COMPRESS_GRAD_H_ */
