/* NsaCompress (CANN's forward of seed 004). */
#ifndef ACLNNOP_ACLNN_NSA_COMPRESS_H_
#define ACLNNOP_ACLNN_NSA_COMPRESS_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnNsaCompressGetWorkspaceSize(const aclTensor* input, const aclTensor* weight,
                                             const aclIntArray* actSeqLenOptional,
                                             char* layoutOptional, int64_t compressBlockSize,
                                             int64_t compressStride, int64_t actSeqLenType,
                                             aclTensor* output, uint64_t* workspaceSize,
                                             aclOpExecutor** executor);

aclnnStatus aclnnNsaCompress(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NSA_COMPRESS_H_ */
