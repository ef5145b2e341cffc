// The extern "C" entry points: pack the arguments (params.h), phase 1 (entry.h), phase 2 (core
// executor).
#include "aclnnop/aclnn_nsa_selected_attention.h"
#include "aclnnop/aclnn_nsa_selected_attention_grad.h"
#include "core/executor.h"
#include "core/planted_fault.h"
#include "nsa_selected_attention/entry.h"
#include "nsa_selected_attention/params.h"

using gradconf::nsa::CallArgs;
using gradconf::nsa::Fault;
using gradconf::nsa::kBackwardParams;
using gradconf::nsa::kForwardParams;

namespace {
aclnnStatus dispatch_phase1(const CallArgs& args) {
  return gradconf::with_planted_fault<Fault>(
      "nsa_selected_attention", [&](auto fault) { return gradconf::nsa::phase1<fault()>(args); });
}
}  // namespace

extern "C" {

aclnnStatus aclnnNsaSelectedAttentionGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* topkIndices, const aclTensor* attenMaskOptional,
    const aclIntArray* actualSeqQLenOptional, const aclIntArray* actualSeqKvLenOptional,
    double scaleValue, int64_t headNum, char* inputLayout, int64_t sparseMode,
    int64_t selectedBlockSize, int64_t selectedBlockCount, const aclTensor* softmaxMaxOut,
    const aclTensor* softmaxSumOut, const aclTensor* attentionOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return dispatch_phase1(kForwardParams.pack(
      query, key, value, topkIndices, attenMaskOptional, actualSeqQLenOptional,
      actualSeqKvLenOptional, scaleValue, headNum, inputLayout, sparseMode, selectedBlockSize,
      selectedBlockCount, softmaxMaxOut, softmaxSumOut, attentionOut, workspaceSize, executor));
}

GRADCONF_DEFINE_PHASE2(aclnnNsaSelectedAttention, kForwardParams)

aclnnStatus aclnnNsaSelectedAttentionGradGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* attentionOut, const aclTensor* attentionOutGrad, const aclTensor* softmaxMax,
    const aclTensor* softmaxSum, const aclTensor* topkIndices,
    const aclIntArray* actualSeqQLenOptional, const aclIntArray* actualSeqKvLenOptional,
    const aclTensor* attenMaskOptional, double scaleValue, int64_t selectedBlockSize,
    int64_t selectedBlockCount, int64_t headNum, char* inputLayout, int64_t sparseMode,
    const aclTensor* dqOut, const aclTensor* dkOut, const aclTensor* dvOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return dispatch_phase1(kBackwardParams.pack(
      query, key, value, attentionOut, attentionOutGrad, softmaxMax, softmaxSum, topkIndices,
      actualSeqQLenOptional, actualSeqKvLenOptional, attenMaskOptional, scaleValue,
      selectedBlockSize, selectedBlockCount, headNum, inputLayout, sparseMode, dqOut, dkOut, dvOut,
      workspaceSize, executor));
}

GRADCONF_DEFINE_PHASE2(aclnnNsaSelectedAttentionGrad, kBackwardParams)

}  // extern "C"
