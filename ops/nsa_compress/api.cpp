// The extern "C" entry points: pack the arguments, phase 1 (entry.h), phase 2 (core executor).
#include "aclnnop/aclnn_nsa_compress.h"
#include "aclnnop/aclnn_nsa_compress_grad.h"
#include "core/planted_fault.h"
#include "nsa_compress/entry.h"

using gradconf::Direction;
using gradconf::nc::CallArgs;
using gradconf::nc::Fault;

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
  CallArgs args;
  args.direction = Direction::kForward;
  args.input = input;
  args.weight = weight;
  args.act_seq_len = actSeqLenOptional;
  args.layout = layoutOptional;
  args.block_size = compressBlockSize;
  args.stride = compressStride;
  args.act_seq_len_type = actSeqLenType;
  args.output = output;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return dispatch_phase1(args);
}

aclnnStatus aclnnNsaCompress(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor, "aclnnNsaCompress");
}

aclnnStatus aclnnNsaCompressGradGetWorkspaceSize(
    const aclTensor* outputGrad, const aclTensor* input, const aclTensor* weight,
    const aclIntArray* actSeqLenOptionalOptional, int64_t compressBlockSize, int64_t compressStride,
    int64_t actSeqLenType, char* layoutOptionalOptional, const aclTensor* inputGrad,
    const aclTensor* weightGrad, uint64_t* workspaceSize, aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kBackward;
  args.output_grad = outputGrad;
  args.input = input;
  args.weight = weight;
  args.act_seq_len = actSeqLenOptionalOptional;
  args.block_size = compressBlockSize;
  args.stride = compressStride;
  args.act_seq_len_type = actSeqLenType;
  args.layout = layoutOptionalOptional;
  args.input_grad = inputGrad;
  args.weight_grad = weightGrad;
  args.workspace_size = workspaceSize;
  args.executor = executor;
  return dispatch_phase1(args);
}

aclnnStatus aclnnNsaCompressGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream) {
  return gradconf::run_executor(workspace, workspaceSize, executor, "aclnnNsaCompressGrad");
}

}  // extern "C"
