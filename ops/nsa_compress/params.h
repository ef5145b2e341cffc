// The C parameter lists of NsaCompress and NsaCompressGrad (ops/core/params.h): the one
// description the extern "C" bodies, the public headers' check and the suite's bindings derive
// from.
#ifndef GRADCONF_OPS_NSA_COMPRESS_PARAMS_H_
#define GRADCONF_OPS_NSA_COMPRESS_PARAMS_H_

#include "core/params.h"
#include "nsa_compress/clauses.h"

namespace gradconf::nc {

inline constexpr auto kForwardParams = entry_params(
    Direction::kForward, "aclnnNsaCompressGetWorkspaceSize", "aclnnNsaCompress",
    input("input", &CallArgs::input), input("weight", &CallArgs::weight),
    int_list("actSeqLenOptional", &CallArgs::act_seq_len),
    string_attr("layoutOptional", &CallArgs::layout),
    int_attr("compressBlockSize", &CallArgs::block_size),
    int_attr("compressStride", &CallArgs::stride),
    int_attr("actSeqLenType", &CallArgs::act_seq_len_type), output("output", &CallArgs::output));

inline constexpr auto kBackwardParams = entry_params(
    Direction::kBackward, "aclnnNsaCompressGradGetWorkspaceSize", "aclnnNsaCompressGrad",
    input("outputGrad", &CallArgs::output_grad), input("input", &CallArgs::input),
    input("weight", &CallArgs::weight), int_list("actSeqLenOptional", &CallArgs::act_seq_len),
    int_attr("compressBlockSize", &CallArgs::block_size),
    int_attr("compressStride", &CallArgs::stride),
    int_attr("actSeqLenType", &CallArgs::act_seq_len_type),
    string_attr("layoutOptional", &CallArgs::layout),
    output<const aclTensor*>("inputGrad", &CallArgs::input_grad),
    output<const aclTensor*>("weightGrad", &CallArgs::weight_grad));

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_PARAMS_H_
