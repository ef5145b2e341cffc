// The extern "C" entry points: pack the arguments, phase 1 (entry.h), phase 2 (core executor).
#include "aclnnop/aclnn_nsa_selected_attention.h"
#include "aclnnop/aclnn_nsa_selected_attention_grad.h"
#include "core/planted_fault.h"
#include "nsa_selected_attention/entry.h"

using gradconf::Direction;
using gradconf::nsa::CallArgs;
using gradconf::nsa::Fault;

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
  CallArgs args;
  args.direction = Direction::kForward;
  args.query = query;
  args.key = key;
  args.value = value;
  args.topk = topkIndices;
  args.atten_mask = attenMaskOptional;
  args.seq_q = actualSeqQLenOptional;
  args.seq_kv = actualSeqKvLenOptional;
  args.scale = scaleValue;
  args.head_num = headNum;
  args.layout = inputLayout;
  args.sparse_mode = sparseMode;
  args.block_size = selectedBlockSize;
  args.block_count = selectedBlockCount;
  args.softmax_max = softmaxMaxOut;
  args.softmax_sum = softmaxSumOut;
  args.attention_out = attentionOut;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return dispatch_phase1(args);
}

aclnnStatus aclnnNsaSelectedAttention(void* workspace, uint64_t workspaceSize,
                                      aclOpExecutor* executor, aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor, "aclnnNsaSelectedAttention");
}

aclnnStatus aclnnNsaSelectedAttentionGradGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* attentionOut, const aclTensor* attentionOutGrad, const aclTensor* softmaxMax,
    const aclTensor* softmaxSum, const aclTensor* topkIndices,
    const aclIntArray* actualSeqQLenOptional, const aclIntArray* actualSeqKvLenOptional,
    const aclTensor* attenMaskOptional, double scaleValue, int64_t selectedBlockSize,
    int64_t selectedBlockCount, int64_t headNum, char* inputLayout, int64_t sparseMode,
    const aclTensor* dqOut, const aclTensor* dkOut, const aclTensor* dvOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kBackward;
  args.query = query;
  args.key = key;
  args.value = value;
  args.attention_out = attentionOut;
  args.attention_out_grad = attentionOutGrad;
  args.softmax_max = softmaxMax;
  args.softmax_sum = softmaxSum;
  args.topk = topkIndices;
  args.seq_q = actualSeqQLenOptional;
  args.seq_kv = actualSeqKvLenOptional;
  args.atten_mask = attenMaskOptional;
  args.scale = scaleValue;
  args.block_size = selectedBlockSize;
  args.block_count = selectedBlockCount;
  args.head_num = headNum;
  args.layout = inputLayout;
  args.sparse_mode = sparseMode;
  args.dq = dqOut;
  args.dk = dkOut;
  args.dv = dvOut;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return dispatch_phase1(args);
}

aclnnStatus aclnnNsaSelectedAttentionGrad(void* workspace, uint64_t workspaceSize,
                                          aclOpExecutor* executor, aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor,
                                "aclnnNsaSelectedAttentionGrad");
}

}  // extern "C"
