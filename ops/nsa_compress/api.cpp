// The extern "C" entry points: pack the arguments (params.h), phase 1 (entry.h), phase 2 (core
// executor).
#include "aclnnop/aclnn_nsa_compress.h"
#include "aclnnop/aclnn_nsa_compress_grad.h"
#include "core/executor.h"
#include "core/planted_fault.h"
#include "nsa_compress/entry.h"
#include "nsa_compress/params.h"

using gradconf::nc::CallArgs;
using gradconf::nc::Fault;
using gradconf::nc::kBackwardParams;
using gradconf::nc::kForwardParams;

namespace {
aclnnStatus dispatch_phase1(const CallArgs& args) {
  return gradconf::with_planted_fault<Fault>(
      "nsa_compress", [&](auto fault) { return gradconf::nc::phase1<fault()>(args); });
}
}  // namespace

extern "C" {

aclnnStatus aclnnNsaCompressGetWorkspaceSize(const aclTensor* input, const aclTensor* weight,
                                             const aclIntArray* actSeqLenOptional,
                                             char* layoutOptional, int64_t compressBlockSize,
                                             int64_t compressStride, int64_t actSeqLenType,
                                             aclTensor* output, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return dispatch_phase1(kForwardParams.pack(input, weight, actSeqLenOptional, layoutOptional,
                                             compressBlockSize, compressStride, actSeqLenType,
                                             output, workspaceSize, executor));
}

GRADCONF_DEFINE_PHASE2(aclnnNsaCompress, kForwardParams)

aclnnStatus aclnnNsaCompressGradGetWorkspaceSize(
    const aclTensor* outputGrad, const aclTensor* input, const aclTensor* weight,
    const aclIntArray* actSeqLenOptionalOptional, int64_t compressBlockSize, int64_t compressStride,
    int64_t actSeqLenType, char* layoutOptionalOptional, const aclTensor* inputGrad,
    const aclTensor* weightGrad, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return dispatch_phase1(kBackwardParams.pack(
      outputGrad, input, weight, actSeqLenOptionalOptional, compressBlockSize, compressStride,
      actSeqLenType, layoutOptionalOptional, inputGrad, weightGrad, workspaceSize, executor));
}

GRADCONF_DEFINE_PHASE2(aclnnNsaCompressGrad, kBackwardParams)

}  // extern "C"
