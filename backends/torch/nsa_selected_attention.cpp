// NsaSelectedAttention(Grad) in PyTorch's own terms: gather each query token's selected kv blocks
// (topk block indices local to its batch), masked softmax of the scaled scores (sparseMode 2: a
// key past the query's own position is masked), weighted sum of the values; the softmax
// statistics as the spec defines them (max and sum of the unmasked exponentials, replicated over
// 8 lanes; a fully masked row: -FLT_MAX and 0, output 0). The backward is autograd's on the
// same forward: it recomputes, and does not read attentionOut or the statistics passed in.
#include <c10/core/GradMode.h>

#include <cfloat>

#include "aclnnop/aclnn_nsa_selected_attention.h"
#include "aclnnop/aclnn_nsa_selected_attention_grad.h"
#include "nsa_selected_attention/params.h"
#include "torch/bridge.h"

namespace nsa = gradconf::nsa;
namespace tb = gradconf::torch_backend;

namespace {

struct Selection {
  std::vector<int64_t> seq_q, seq_kv;  ///< prefix sums (one batch of every token when null)
  int64_t block = 0, count = 0;
  double scale = 1;
  bool causal = false;
  /// topkIndices as phase 1 validated it (NSA-DATA-01): phase 2 must not read the caller's
  /// tensor, which may have changed since (the spec's robustness rule).
  at::Tensor topk;
};

Selection selection_of(const nsa::CallArgs& a) {
  Selection s;
  s.seq_q = a.seq_q ? a.seq_q->values : std::vector<int64_t>{a.query->view_dims[0]};
  s.seq_kv = a.seq_kv ? a.seq_kv->values : std::vector<int64_t>{a.key->view_dims[0]};
  s.block = a.block_size;
  s.count = a.block_count;
  s.scale = a.scale;
  s.causal = a.sparse_mode == 2;
  s.topk = tb::view_of(*a.topk).to(at::kLong, false, /*copy=*/true);
  return s;
}

struct Attention {
  at::Tensor out, max, sum;  ///< (T1, N1, Dv), (T1, N1, 8) twice
};

Attention attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                 const Selection& s) {
  const int64_t t1 = q.size(0), n1 = q.size(1), n2 = k.size(1), group = n1 / n2;
  // Each query token's batch: its query position and the first kv token of its batch.
  std::vector<int64_t> position(static_cast<size_t>(t1)), kv_start(static_cast<size_t>(t1));
  size_t b = 0;
  for (int64_t t = 0; t < t1; ++t) {
    while (t >= s.seq_q[b]) ++b;
    position[static_cast<size_t>(t)] = t - (b == 0 ? 0 : s.seq_q[b - 1]);
    kv_start[static_cast<size_t>(t)] = b == 0 ? 0 : s.seq_kv[b - 1];
  }
  const auto as_column = [t1](const std::vector<int64_t>& values) {
    return at::tensor(values, at::kLong).view({t1, 1, 1});
  };
  // (T1, N2, K * B): the selected keys' positions in their batch, then their kv tokens.
  const at::Tensor rows =
      (s.topk.unsqueeze(-1) * s.block + at::arange(s.block, at::kLong)).flatten(-2);
  const at::Tensor tokens = rows + as_column(kv_start);
  const at::Tensor heads = at::arange(n2, at::kLong).view({1, n2, 1});
  const at::Tensor keys = k.index({tokens, heads});    // (T1, N2, KB, D1)
  const at::Tensor values = v.index({tokens, heads});  // (T1, N2, KB, Dv)
  at::Tensor scores =
      at::einsum("tngd,tnjd->tngj", {q.view({t1, n2, group, q.size(2)}), keys}) * s.scale;
  if (s.causal) {
    const at::Tensor masked = (rows > as_column(position)).unsqueeze(2);
    scores = scores.masked_fill(masked, -INFINITY);
  }
  const at::Tensor max = std::get<0>(scores.max(-1, /*keepdim=*/true)).detach();
  const at::Tensor shift = at::where(at::isinf(max), at::zeros_like(max), max);
  const at::Tensor e = (scores - shift).exp();
  const at::Tensor sum = e.sum(-1, /*keepdim=*/true);
  const at::Tensor p = e / at::where(sum > 0, sum, at::ones_like(sum));
  Attention a;
  a.out = at::einsum("tngj,tnjd->tngd", {p, values}).reshape({t1, n1, v.size(2)});
  const at::Tensor row_max = at::where(sum > 0, max, at::full_like(max, -FLT_MAX));
  a.max = row_max.reshape({t1, n1, 1}).expand({t1, n1, 8});
  a.sum = sum.reshape({t1, n1, 1}).expand({t1, n1, 8});
  return a;
}

std::function<void()> forward_body(const nsa::CallArgs& a) {
  return [s = selection_of(a), query = *a.query, key = *a.key, value = *a.value,
          out = *a.attention_out, max = *a.softmax_max, sum = *a.softmax_sum] {
    const Attention r = attend(tb::computed(query), tb::computed(key), tb::computed(value), s);
    tb::write_into(out, r.out);
    tb::write_into(max, r.max);
    tb::write_into(sum, r.sum);
  };
}

std::function<void()> backward_body(const nsa::CallArgs& a) {
  return [s = selection_of(a), query = *a.query, key = *a.key, value = *a.value,
          out_grad = *a.attention_out_grad, dq = *a.dq, dk = *a.dk, dv = *a.dv] {
    c10::AutoGradMode grad_mode(true);
    const at::Tensor q = tb::computed(query).requires_grad_(true);
    const at::Tensor k = tb::computed(key).requires_grad_(true);
    const at::Tensor v = tb::computed(value).requires_grad_(true);
    const auto grads = tb::gradients(attend(q, k, v, s).out, {q, k, v}, tb::computed(out_grad));
    tb::write_into(dq, grads[0]);
    tb::write_into(dk, grads[1]);
    tb::write_into(dv, grads[2]);
  };
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
  return tb::phase1(
      nsa::clause_table(),
      nsa::kForwardParams.pack(query, key, value, topkIndices, attenMaskOptional,
                               actualSeqQLenOptional, actualSeqKvLenOptional, scaleValue, headNum,
                               inputLayout, sparseMode, selectedBlockSize, selectedBlockCount,
                               softmaxMaxOut, softmaxSumOut, attentionOut, workspaceSize, executor),
      forward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnNsaSelectedAttention, nsa::kForwardParams)

aclnnStatus aclnnNsaSelectedAttentionGradGetWorkspaceSize(
    const aclTensor* query, const aclTensor* key, const aclTensor* value,
    const aclTensor* attentionOut, const aclTensor* attentionOutGrad, const aclTensor* softmaxMax,
    const aclTensor* softmaxSum, const aclTensor* topkIndices,
    const aclIntArray* actualSeqQLenOptional, const aclIntArray* actualSeqKvLenOptional,
    const aclTensor* attenMaskOptional, double scaleValue, int64_t selectedBlockSize,
    int64_t selectedBlockCount, int64_t headNum, char* inputLayout, int64_t sparseMode,
    const aclTensor* dqOut, const aclTensor* dkOut, const aclTensor* dvOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return tb::phase1(
      nsa::clause_table(),
      nsa::kBackwardParams.pack(query, key, value, attentionOut, attentionOutGrad, softmaxMax,
                                softmaxSum, topkIndices, actualSeqQLenOptional,
                                actualSeqKvLenOptional, attenMaskOptional, scaleValue,
                                selectedBlockSize, selectedBlockCount, headNum, inputLayout,
                                sparseMode, dqOut, dkOut, dvOut, workspaceSize, executor),
      backward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnNsaSelectedAttentionGrad, nsa::kBackwardParams)

}  // extern "C"
