#include "families/nsa_selected_attention/entries.h"

#include "aclnnop/aclnn_nsa_selected_attention.h"
#include "aclnnop/aclnn_nsa_selected_attention_grad.h"
#include "core/dtype.h"
#include "harness/backend.h"
#include "nsa_selected_attention/clauses.h"
#include "nsa_selected_attention/params.h"
#include "op/entry_params.h"
#include "op/problem_call.h"
#include "ops/nsa_selected_attention/reference/reference.h"

namespace gradconf::props::nsa {
namespace {
namespace op = gradconf::nsa;

constexpr std::string_view kSeqQ = "actualSeqQLenOptional";
constexpr std::string_view kSeqKv = "actualSeqKvLenOptional";
const std::vector<aclDataType> kFloatDtypes = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE};

RoleSpec role(std::string_view name, DtypeClass dtype_class, Batching batching,
              std::string_view sequence_attr, int rank = 3) {
  RoleSpec r;
  r.name = name;
  r.rank = rank;
  r.dtype_class = dtype_class;
  r.batching = batching;
  r.sequence_attr = sequence_attr;
  switch (dtype_class) {
    case DtypeClass::kIndex:
      r.dtypes = {ACL_INT32};
      break;
    case DtypeClass::kMask:
      r.dtypes = {ACL_BOOL, ACL_UINT8};
      break;
    case DtypeClass::kStatistic:
      r.dtypes = {ACL_FLOAT, ACL_DOUBLE};
      break;
    case DtypeClass::kFloat:
      r.dtypes = kFloatDtypes;
      break;
  }
  return r;
}

RoleSpec q_role(std::string_view name, DtypeClass c = DtypeClass::kFloat) {
  return role(name, c, Batching::kSequence, kSeqQ);
}
RoleSpec kv_role(std::string_view name) {
  return role(name, DtypeClass::kFloat, Batching::kSequence, kSeqKv);
}
RoleSpec mask_role() {
  RoleSpec r = role("attenMaskOptional", DtypeClass::kMask, Batching::kNone, {}, 2);
  r.optional = true;
  return r;
}

RoleSpec as_output(RoleSpec r, std::string_view shape_rule, std::string_view dtype_rule) {
  r.output = true;
  r.dtypes.clear();
  r.shape_rule = shape_rule;
  r.dtype_rule = dtype_rule;
  return r;
}

OutputShape output_shape(const Call& call, std::string_view role) {
  const int i = call.index_of("query");
  const aclDataType dtype = i < 0 ? ACL_FLOAT16 : call.tensors[static_cast<size_t>(i)].dtype;
  if (role == "softmaxMaxOut" || role == "softmaxSumOut") {
    return {{call.dim_or("query", 0), call.dim_or("query", 1), 8},
            dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT};
  }
  if (role == "attentionOut") {
    return {{call.dim_or("query", 0), call.dim_or("query", 1), call.dim_or("value", 2)}, dtype};
  }
  if (role == "dqOut") return {call.dims_of("query"), dtype};
  if (role == "dkOut") return {call.dims_of("key"), dtype};
  return {call.dims_of("value"), dtype};
}

AttrSpec attr(std::string_view name) {
  if (name == kSeqQ || name == kSeqKv) return {.default_value = std::monostate{}};
  if (name == "scaleValue") return {.default_value = 1.0};
  if (name == "inputLayout") return {.default_value = std::string("TND")};
  if (name == "sparseMode") return {.default_value = int64_t{2}};
  if (name == "selectedBlockSize") return {.default_value = int64_t{64}};
  if (name == "selectedBlockCount") return {.default_value = int64_t{16}};
  return {.default_value = int64_t{1}};  // headNum
}

// The role of tensor `name` in an entry of `direction`: query-side or key-side tokens, its dtype
// class, and for outputs their shape and dtype rules.
RoleSpec role_of(std::string_view name, Direction direction) {
  if (name == "attenMaskOptional") return mask_role();
  const bool kv = name == "key" || name == "value" || name == "dkOut" || name == "dvOut";
  const bool statistic = name.starts_with("softmax");
  RoleSpec r = kv ? kv_role(name)
                  : q_role(name, name == "topkIndices" ? DtypeClass::kIndex
                                 : statistic           ? DtypeClass::kStatistic
                                                       : DtypeClass::kFloat);
  if (statistic && name.ends_with("Out")) {
    return as_output(r, "(T1, N1, 8)", "FLOAT (DOUBLE for DOUBLE query)");
  }
  if (name == "attentionOut") {
    if (direction == Direction::kForward) return as_output(r, "(T1, N1, Dv)", "dtype(query)");
    r.optional = true;
  }
  if (name == "dqOut") return as_output(r, "shape(query)", "dtype(query)");
  if (name == "dkOut") return as_output(r, "shape(key)", "dtype(query)");
  if (name == "dvOut") return as_output(r, "shape(value)", "dtype(query)");
  return r;
}

// A tensor's values, read in place (empty for a null tensor): copies of every input cost the
// fuzzers a page fault per fresh page under ASan.
const std::vector<double>& call_values(const Call& call, std::string_view role) {
  static const std::vector<double> kNone;
  const int i = call.index_of(role);
  if (i < 0 || call.tensors[static_cast<size_t>(i)].null) return kNone;
  return call.tensors[static_cast<size_t>(i)].values;
}

gradconf::nsa::reference::Dims reference_dims(const Call& call) {
  gradconf::nsa::reference::Dims d;
  d.q_tokens = call.dim_or("query", 0);
  d.q_heads = call.dim_or("query", 1);
  d.dim_qk = call.dim_or("query", 2);
  d.kv_tokens = call.dim_or("key", 0);
  d.kv_heads = call.dim_or("key", 1);
  d.dim_v = call.dim_or("value", 2);
  d.block = call.attr_int("selectedBlockSize");
  d.count = call.attr_int("selectedBlockCount");
  if (const auto* q = std::get_if<std::vector<int64_t>>(&call.attr(kSeqQ))) d.seq_q = *q;
  if (const auto* kv = std::get_if<std::vector<int64_t>>(&call.attr(kSeqKv))) d.seq_kv = *kv;
  d.scale = call.attr_double("scaleValue");
  d.causal = call.attr_int("sparseMode") == 2;
  return d;
}

}  // namespace

const EntrySpec& forward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kForwardParams, &aclnnNsaSelectedAttentionGetWorkspaceSize,
                        &aclnnNsaSelectedAttention, &op::clause_table>(
          "NsaSelectedAttention", "nsa_selected_attention",
          [](std::string_view name) { return role_of(name, Direction::kForward); }, attr,
          {.output_shape = output_shape});
  return spec;
}

const EntrySpec& backward_entry() {
  static const EntrySpec spec =
      entry_from_params<op::kBackwardParams, &aclnnNsaSelectedAttentionGradGetWorkspaceSize,
                        &aclnnNsaSelectedAttentionGrad, &op::clause_table>(
          "NsaSelectedAttentionGrad", "nsa_selected_attention",
          [](std::string_view name) { return role_of(name, Direction::kBackward); }, attr,
          {.output_shape = output_shape});
  return spec;
}

const EntrySpec& entry_spec(Direction direction) {
  return direction == Direction::kForward ? forward_entry() : backward_entry();
}

Call make_validation_call(const Problem& p) {
  Call call = shaped_call(entry_spec(p.entry), p);
  call.attr(kSeqQ) = p.seq_q();
  call.attr(kSeqKv) = p.seq_kv();
  call.attr("scaleValue") = p.scale_value();
  call.attr("headNum") = p.q_heads;
  call.attr("sparseMode") = p.sparse_mode;
  call.attr("selectedBlockSize") = p.block;
  call.attr("selectedBlockCount") = p.count;
  const std::vector<Role> roles = p.roles();
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    TensorSpec& spec = call.tensors[i];
    if (roles[i] == Role::kAttenMask) spec.null = !p.with_mask;
    if (roles[i] == Role::kAttentionOut && p.entry == Direction::kBackward) {
      spec.null = p.null_attention_out;
    }
    if (roles[i] == Role::kTopk) spec.values = gradconf::nsa::make_values(p, roles[i]);
  }
  return call;
}

Call make_call(const Problem& p) {
  Call call = make_validation_call(p);
  // attentionOut and the softmax statistics are the forward's results, below.
  fill_inputs(call, p, gradconf::nsa::make_values, [](Role r) {
    return r != Role::kAttentionOut && r != Role::kSoftmaxMax && r != Role::kSoftmaxSum;
  });
  if (p.entry == Direction::kBackward) {
    // The forward's results, as the forward (in double) gives them for these inputs.
    const auto f = gradconf::nsa::reference::forward(
        reference_dims(call), call.tensor("query").values, call.tensor("key").values,
        call.tensor("value").values, call.tensor("topkIndices").values);
    TensorSpec& out = call.tensor("attentionOut");
    out.values = f.attention_out;
    for (double& v : out.values) v = round_to_dtype(p.dtype, v);
    for (auto [name, stat] :
         {std::pair{"softmaxMax", &f.softmax_max}, std::pair{"softmaxSum", &f.softmax_sum}}) {
      TensorSpec& t = call.tensor(name);
      t.values = *stat;
      for (size_t i = 0; i < t.values.size(); ++i) {
        const auto lane = static_cast<double>(i % 8);
        t.values[i] = round_to_dtype(t.dtype, t.values[i] + (t.values[i] == 0 ? 0 : lane));
      }
    }
  }
  return call;
}

std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& p,
                                                                    const Call& call) {
  namespace ref = gradconf::nsa::reference;
  const ref::Dims d = reference_dims(call);
  const auto &q = call_values(call, "query"), &k = call_values(call, "key"),
             &v = call_values(call, "value"), &topk = call_values(call, "topkIndices");
  // Moved in one by one: a braced list would copy every vector.
  std::vector<std::pair<Role, std::vector<double>>> outputs;
  if (p.entry == Direction::kForward) {
    auto f = ref::forward(d, q, k, v, topk);
    outputs.emplace_back(Role::kSoftmaxMaxOut, std::move(f.softmax_max));
    outputs.emplace_back(Role::kSoftmaxSumOut, std::move(f.softmax_sum));
    outputs.emplace_back(Role::kAttentionOut, std::move(f.attention_out));
    return outputs;
  }
  auto g = ref::backward(d, q, k, v, call_values(call, "attentionOut"),
                         call_values(call, "attentionOutGrad"), call_values(call, "softmaxMax"),
                         call_values(call, "softmaxSum"), topk);
  outputs.emplace_back(Role::kDq, std::move(g.dq));
  outputs.emplace_back(Role::kDk, std::move(g.dk));
  outputs.emplace_back(Role::kDv, std::move(g.dv));
  return outputs;
}

double useful_flops(const Call& call) {
  const auto d = reference_dims(call);
  const auto pairs = static_cast<double>(
      gradconf::nsa::reference::unmasked_pairs(d, call.tensor("topkIndices").values));
  const auto qk = static_cast<double>(d.dim_qk), v = static_cast<double>(d.dim_v);
  // Forward: scores (q . k) and the weighted sum of values. Backward: scores again, dP = dO . v,
  // dV += P dO, dQ += dS k and dK += dS q.
  const bool forward = call.entry == &forward_entry();
  return pairs * (forward ? 2 * qk + 2 * v : 6 * qk + 4 * v);
}

}  // namespace gradconf::props::nsa
