// The C parameter lists of NsaSelectedAttention and NsaSelectedAttentionGrad (ops/core/params.h):
// the one description the extern "C" bodies, the public headers' check and the suite's bindings
// derive from.
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_PARAMS_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_PARAMS_H_

#include "core/params.h"
#include "nsa_selected_attention/clauses.h"

namespace gradconf::nsa {

inline constexpr auto kForwardParams = entry_params(
    Direction::kForward, "aclnnNsaSelectedAttentionGetWorkspaceSize", "aclnnNsaSelectedAttention",
    input("query", &CallArgs::query), input("key", &CallArgs::key),
    input("value", &CallArgs::value), input("topkIndices", &CallArgs::topk),
    input("attenMaskOptional", &CallArgs::atten_mask),
    int_list("actualSeqQLenOptional", &CallArgs::seq_q),
    int_list("actualSeqKvLenOptional", &CallArgs::seq_kv),
    double_attr("scaleValue", &CallArgs::scale), int_attr("headNum", &CallArgs::head_num),
    string_attr("inputLayout", &CallArgs::layout), int_attr("sparseMode", &CallArgs::sparse_mode),
    int_attr("selectedBlockSize", &CallArgs::block_size),
    int_attr("selectedBlockCount", &CallArgs::block_count),
    output<const aclTensor*>("softmaxMaxOut", &CallArgs::softmax_max),
    output<const aclTensor*>("softmaxSumOut", &CallArgs::softmax_sum),
    output<const aclTensor*>("attentionOut", &CallArgs::attention_out));

inline constexpr auto kBackwardParams = entry_params(
    Direction::kBackward, "aclnnNsaSelectedAttentionGradGetWorkspaceSize",
    "aclnnNsaSelectedAttentionGrad", input("query", &CallArgs::query), input("key", &CallArgs::key),
    input("value", &CallArgs::value), input("attentionOut", &CallArgs::attention_out),
    input("attentionOutGrad", &CallArgs::attention_out_grad),
    input("softmaxMax", &CallArgs::softmax_max), input("softmaxSum", &CallArgs::softmax_sum),
    input("topkIndices", &CallArgs::topk), int_list("actualSeqQLenOptional", &CallArgs::seq_q),
    int_list("actualSeqKvLenOptional", &CallArgs::seq_kv),
    input("attenMaskOptional", &CallArgs::atten_mask), double_attr("scaleValue", &CallArgs::scale),
    int_attr("selectedBlockSize", &CallArgs::block_size),
    int_attr("selectedBlockCount", &CallArgs::block_count),
    int_attr("headNum", &CallArgs::head_num), string_attr("inputLayout", &CallArgs::layout),
    int_attr("sparseMode", &CallArgs::sparse_mode),
    output<const aclTensor*>("dqOut", &CallArgs::dq),
    output<const aclTensor*>("dkOut", &CallArgs::dk),
    output<const aclTensor*>("dvOut", &CallArgs::dv));

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_PARAMS_H_
