// aclnnGridSampler2D: see ../shared/spec/grid_sampler2d.md.
#ifndef GRADCONF_ACLNNOP_ACLNN_GRID_SAMPLER2D_H_
#define GRADCONF_ACLNNOP_ACLNN_GRID_SAMPLER2D_H_

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Phase 1: validates (clauses GS-*), returns the workspace size and a single-use executor.
/// @param interpolationMode 0 bilinear, 1 nearest.  @param paddingMode 0 zeros, 1 border.
aclnnStatus aclnnGridSampler2DGetWorkspaceSize(const aclTensor* input, const aclTensor* grid,
                                               int64_t interpolationMode, int64_t paddingMode,
                                               bool alignCorners, aclTensor* out,
                                               uint64_t* workspaceSize, aclOpExecutor** executor);
/// Phase 2: runs the executor synchronously on the host and releases it.
aclnnStatus aclnnGridSampler2D(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif  // GRADCONF_ACLNNOP_ACLNN_GRID_SAMPLER2D_H_
