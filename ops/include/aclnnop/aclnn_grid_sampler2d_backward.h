// aclnnGridSampler2DBackward: see ../shared/spec/grid_sampler2d.md.
#ifndef GRADCONF_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H_
#define GRADCONF_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Phase 1: validates (clauses GS-*), returns the workspace size and a single-use executor.
/// @param outputMask {inputGrad wanted, gridGrad wanted}; null means nothing is computed.
aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* input, const aclTensor* grid,
    int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
    const aclBoolArray* outputMask, aclTensor* inputGrad, aclTensor* gridGrad,
    uint64_t* workspaceSize, aclOpExecutor** executor);
/// Phase 2: runs the executor synchronously on the host and releases it.
aclnnStatus aclnnGridSampler2DBackward(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // GRADCONF_ACLNNOP_ACLNN_GRID_SAMPLER2D_BACKWARD_H_
