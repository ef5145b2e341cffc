// Each check returns nullopt when its clause holds, else "expected ..., but got ...". Checks may
// assume that every earlier clause held.
#include "nsa_selected_attention/clauses.h"

#include <array>
#include <string>

#include "core/checked_math.h"
#include "core/clause_checks.h"
#include "core/status.h"
#include "nsa_selected_attention/params.h"

namespace gradconf::nsa {
namespace {
using Check = std::optional<std::string>;

bool backward(const CallArgs& a) { return a.direction == Direction::kBackward; }

std::vector<NamedTensor> required(const CallArgs& a) {
  if (backward(a)) {
    return {{"query", a.query},
            {"key", a.key},
            {"value", a.value},
            {"attentionOutGrad", a.attention_out_grad},
            {"softmaxMax", a.softmax_max},
            {"softmaxSum", a.softmax_sum},
            {"topkIndices", a.topk},
            {"dqOut", a.dq},
            {"dkOut", a.dk},
            {"dvOut", a.dv}};
  }
  return {{"query", a.query},
          {"key", a.key},
          {"value", a.value},
          {"topkIndices", a.topk},
          {"softmaxMaxOut", a.softmax_max},
          {"softmaxSumOut", a.softmax_sum},
          {"attentionOut", a.attention_out}};
}

// The tensors of the float dtype (attentionOut only when given).
std::vector<NamedTensor> float_tensors(const CallArgs& a) {
  std::vector<NamedTensor> t = {{"query", a.query}, {"key", a.key}, {"value", a.value}};
  if (a.attention_out) t.push_back({"attentionOut", a.attention_out});
  if (backward(a)) {
    t.push_back({"attentionOutGrad", a.attention_out_grad});
    t.push_back({"dqOut", a.dq});
    t.push_back({"dkOut", a.dk});
    t.push_back({"dvOut", a.dv});
  }
  return t;
}

std::vector<NamedTensor> stats(const CallArgs& a) {
  if (backward(a)) return {{"softmaxMax", a.softmax_max}, {"softmaxSum", a.softmax_sum}};
  return {{"softmaxMaxOut", a.softmax_max}, {"softmaxSumOut", a.softmax_sum}};
}

std::vector<NamedTensor> outputs(const CallArgs& a) {
  return named_tensors(kForwardParams, kBackwardParams, a, TensorParams::kOutputs);
}

std::span<const int64_t> values_of(const aclIntArray* array) {
  return array ? std::span<const int64_t>(array->values) : std::span<const int64_t>();
}

Check null_arguments(const CallArgs& a) {
  for (const auto& [name, t] : required(a)) {
    if (t == nullptr) return std::string("expected ") + name + " to be non-null, but got nullptr";
  }
  if (a.seq_q == nullptr)
    return "expected actualSeqQLen to be non-null (layout TND), but got nullptr";
  if (a.seq_kv == nullptr)
    return "expected actualSeqKvLen to be non-null (layout TND), but got nullptr";
  return check_non_null({}, a.workspace_size, a.executor);
}

template <bool kExtended>
Check dtypes(const CallArgs& a) {
  const auto floats = float_tensors(a);
  const Check supported =
      kExtended ? check_dtype_in(floats, {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE})
                : check_dtype_in(floats, {ACL_FLOAT16, ACL_BF16});
  if (supported) return supported;
  if (auto c = check_same_dtype(floats)) return c;
  // `extended` allows DOUBLE statistics (README §4), so double problems are exact end to end.
  if (auto c = kExtended ? check_dtype_in(stats(a), {ACL_FLOAT, ACL_DOUBLE})
                         : check_dtype_in(stats(a), {ACL_FLOAT})) {
    return c;
  }
  if (auto c = check_dtype_in(std::array{NamedTensor{"topkIndices", a.topk}}, {ACL_INT32}))
    return c;
  if (a.atten_mask) {
    return check_dtype_in(std::array{NamedTensor{"attenMask", a.atten_mask}},
                          {ACL_BOOL, ACL_UINT8});
  }
  return std::nullopt;
}

Check formats(const CallArgs& a) {
  std::vector<NamedTensor> all = required(a);
  if (a.attention_out && backward(a)) all.push_back({"attentionOut", a.attention_out});
  if (a.atten_mask) all.push_back({"attenMaskOptional", a.atten_mask});
  return check_format_nd(all);
}

Check layout(const CallArgs& a) { return check_string_attr("inputLayout", a.layout, "TND", false); }

Check ranks(const CallArgs& a) {
  std::vector<NamedTensor> tnd = float_tensors(a);
  if (auto c = check_rank(tnd, 3)) return c;
  const std::array<int64_t, 3> stat_dims = {a.query->view_dims[0], a.query->view_dims[1], 8};
  for (const NamedTensor& s : stats(a)) {
    if (auto c = check_dims(s, stat_dims)) return c;
  }
  const std::array<int64_t, 3> topk_dims = {a.query->view_dims[0], a.key->view_dims[1],
                                            a.block_count};
  if (auto c = check_dims({"topkIndices", a.topk}, topk_dims)) return c;
  if (a.atten_mask) return check_rank(std::array{NamedTensor{"attenMask", a.atten_mask}}, 2);
  return std::nullopt;
}

Check shapes(const CallArgs& a) {
  const auto& q = a.query->view_dims;
  const auto& k = a.key->view_dims;
  const std::array<int64_t, 3> value = {k[0], k[1], a.value->view_dims[2]};
  if (k[2] != q[2]) {
    return "expected key.dim(2) == query.dim(2) (Dqk), but got " + std::to_string(k[2]) + " and " +
           std::to_string(q[2]);
  }
  if (auto c = check_dims({"value", a.value}, value)) return c;
  const std::array<int64_t, 3> out = {q[0], q[1], value[2]};
  if (a.attention_out) {
    if (auto c = check_dims({"attentionOut", a.attention_out}, out)) return c;
  }
  if (!backward(a)) return std::nullopt;
  if (auto c = check_dims({"attentionOutGrad", a.attention_out_grad}, out)) return c;
  if (auto c = check_dims({"dqOut", a.dq}, q)) return c;
  if (auto c = check_dims({"dkOut", a.dk}, k)) return c;
  return check_dims({"dvOut", a.dv}, a.value->view_dims);
}

Check heads(const CallArgs& a) {
  const int64_t n1 = a.query->view_dims[1], n2 = a.key->view_dims[1];
  if (a.head_num != n1) {
    return "expected headNum == N1 (query.dim(1)) " + std::to_string(n1) + ", but got " +
           std::to_string(a.head_num);
  }
  if (n1 < 1 || n1 > 128 || n2 < 1 || n2 > 128) {
    return "expected N1 and N2 in 1..128, but got " + std::to_string(n1) + " and " +
           std::to_string(n2);
  }
  if (n1 % n2 != 0 || n1 / n2 > 32) {
    return "expected N1 a multiple of N2 with G = N1 / N2 <= 32, but got N1 " + std::to_string(n1) +
           ", N2 " + std::to_string(n2);
  }
  return std::nullopt;
}

template <bool kExtended>
Check head_dims(const CallArgs& a) {
  const int64_t dqk = a.query->view_dims[2], dv = a.value->view_dims[2];
  auto ok = [](int64_t d) { return kExtended ? d >= 1 && d <= 512 : d == 128 || d == 192; };
  if (ok(dqk) && ok(dv)) return std::nullopt;
  return std::string("expected Dqk and Dv ") + (kExtended ? "in 1..512" : "in {128, 192}") +
         ", but got " + std::to_string(dqk) + " and " + std::to_string(dv);
}

template <bool kExtended>
Check blocks(const CallArgs& a) {
  const int64_t b = a.block_size, k = a.block_count;
  const bool size_ok = kExtended ? b >= 1 : b >= 16 && b <= 128 && b % 16 == 0;
  const bool count_ok = kExtended ? k >= 1 : k >= 1 && k <= 32;
  if (size_ok && count_ok) return std::nullopt;
  return std::string("expected selectedBlockSize ") +
         (kExtended ? ">= 1" : "a multiple of 16 in 16..128") + " and selectedBlockCount " +
         (kExtended ? ">= 1" : "in 1..32") + ", but got " + std::to_string(b) + " and " +
         std::to_string(k);
}

Check sequences(const CallArgs& a) {
  const auto q = values_of(a.seq_q), kv = values_of(a.seq_kv);
  const int64_t t1 = a.query->view_dims[0], t2 = a.key->view_dims[0];
  if (t1 < 1 || t1 > kMaxTokens || t2 < 1 || t2 > kMaxTokens) {
    return "expected T1 and T2 in 1..2M (2^21), but got " + std::to_string(t1) + " and " +
           std::to_string(t2);
  }
  if (auto c = check_prefix_sums(q, t1, "actualSeqQLen")) return c;
  if (auto c = check_prefix_sums(kv, t2, "actualSeqKvLen")) return c;
  if (q.size() != kv.size()) {
    return "expected actualSeqQLen and actualSeqKvLen of one length (the batch count), but got " +
           std::to_string(q.size()) + " and " + std::to_string(kv.size());
  }
  if (static_cast<int64_t>(q.size()) > kMaxTokens) {
    return "expected at most 2M (2^21) batches, but got " + std::to_string(q.size());
  }
  for (size_t b = 0; b < q.size(); ++b) {
    if (q[b] == (b == 0 ? 0 : q[b - 1])) {
      return "expected every batch to hold a query, but batch " + std::to_string(b) + " has none";
    }
  }
  return std::nullopt;
}

Check kv_lengths(const CallArgs& a) {
  // `extended` bounds B and K only from below: B * K may overflow, and then no batch reaches it.
  const std::optional<int64_t> need = checked_mul(a.block_size, a.block_count);
  for (const Batch& b : batches_of(a)) {
    const int64_t len = b.kv.length();
    if (!need || len < *need || len % a.block_size != 0) {
      return "expected every batch's kv length >= selectedBlockSize * selectedBlockCount " +
             (need ? std::to_string(*need) : std::string("(beyond int64)")) +
             " and a multiple of selectedBlockSize, but got " + std::to_string(len);
    }
  }
  return std::nullopt;
}

Check batch_lengths(const CallArgs& a) {
  const std::vector<Batch> batches = batches_of(a);
  for (size_t b = 0; b < batches.size(); ++b) {
    for (const auto& [name, range] :
         {std::pair{"query", batches[b].q}, std::pair{"kv", batches[b].kv}}) {
      if (range.length() > kMaxBatchTokens) {
        return std::string("expected every batch's ") + name + " length S <= 128K (" +
               std::to_string(kMaxBatchTokens) + "), but batch " + std::to_string(b) + " has " +
               std::to_string(range.length());
      }
    }
  }
  return std::nullopt;
}

Check sparse_mode(const CallArgs& a) {
  if (a.sparse_mode == 0 || a.sparse_mode == 2) return std::nullopt;
  return "expected sparseMode 0 or 2, but got " + std::to_string(a.sparse_mode);
}

Check topk_in_range(const CallArgs& a) {
  const int64_t n2 = a.key->view_dims[1];
  for (const Batch& b : batches_of(a)) {
    const int64_t blocks = b.kv.length() / a.block_size;
    for (int64_t t = b.q.begin; t < b.q.end; ++t) {
      for (int64_t h = 0; h < n2; ++h) {
        for (int64_t k = 0; k < a.block_count; ++k) {
          const int32_t index = topk_at(*a.topk, t, h, k);
          if (index < 0 || index >= blocks) {
            return "expected topkIndices in [0, " + std::to_string(blocks) + ") (the batch's kv " +
                   "blocks), but got " + std::to_string(index) + " at [" + std::to_string(t) +
                   ", " + std::to_string(h) + ", " + std::to_string(k) + "]";
          }
        }
      }
    }
  }
  return std::nullopt;
}

Check outputs_disjoint(const CallArgs& a) { return check_disjoint(outputs(a)); }

constexpr const char* kGrad = "003 约束说明";
constexpr const char* kProto = "CANN aclnnNsaSelectedAttention(Grad) prototypes";
constexpr ProfileSet kEvery = kAllProfiles;
constexpr ProfileSet kSeedProfiles =
    profiles(SpecProfile::kSeed) | profiles(SpecProfile::kCannLatest);
constexpr ProfileSet kExtendedProfile = profiles(SpecProfile::kExtended);

const std::array<Clause<CallArgs>, 18> kClauses = {{
    {"NSA-NULL-01", kEvery, ACLNN_ERR_PARAM_NULLPTR, kProto,
     "a required tensor, actualSeqQLen/KvLen, workspaceSize or executor is null", null_arguments},
    {"NSA-DTYPE-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, "003 参数说明",
     "float tensors not FLOAT16/BFLOAT16 or not all equal; softmax stats not FLOAT; topk not "
     "INT32; attenMask not BOOL/UINT8",
     dtypes<false>},
    {"NSA-DTYPE-01", kExtendedProfile, ACLNN_ERR_PARAM_INVALID, "spec README §4 (extended)",
     "float tensors not FLOAT16/BFLOAT16/FLOAT/DOUBLE or not all equal; softmax stats not "
     "FLOAT/DOUBLE; topk not INT32; attenMask not BOOL/UINT8",
     dtypes<true>},
    {"NSA-FORMAT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3 (Decision)",
     "a tensor's format is not ND (NCHW/NHWC accepted as aliases on 4-D tensors)", formats},
    {"NSA-LAYOUT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "errata E-NSA-7",
     "inputLayout null or not \"TND\"", layout},
    {"NSA-RANK-01", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad,
     "a TND tensor not 3-D; softmaxMax/Sum not (T1, N1, 8); topk not (T1, N2, K); attenMask not "
     "2-D",
     ranks},
    {"NSA-SHAPE-01", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad,
     "T, N, D disagree between tensors; dq/dk/dv shapes differ from q/k/v", shapes},
    {"NSA-HEAD-01", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad,
     "headNum != N1; N1 or N2 outside 1..128; N1 % N2 != 0; G > 32", heads},
    {"NSA-DIM-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, "003 约束说明 and errata E-NSA-5",
     "Dqk or Dv not in {128, 192}", head_dims<false>},
    {"NSA-DIM-01", kExtendedProfile, ACLNN_ERR_PARAM_INVALID, "spec (extended)",
     "Dqk or Dv outside 1..512", head_dims<true>},
    {"NSA-BLOCK-01", kSeedProfiles, ACLNN_ERR_PARAM_INVALID, "CANN aclnnNsaSelectedAttention doc",
     "selectedBlockSize not a multiple of 16 in 16..128, selectedBlockCount outside 1..32",
     blocks<false>},
    {"NSA-BLOCK-01", kExtendedProfile, ACLNN_ERR_PARAM_INVALID, "spec (extended)",
     "selectedBlockSize < 1 or selectedBlockCount < 1", blocks<true>},
    {"NSA-SEQ-01", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad,
     "actualSeq* empty, of different lengths, negative, decreasing, last != T1 / T2; a batch with "
     "0 queries; T1, T2, batch count > 2M",
     sequences},
    {"NSA-SEQ-02", kEvery, ACLNN_ERR_PARAM_INVALID, kGrad,
     "a batch's kv length < B*K or not a multiple of B", kv_lengths},
    {"NSA-SEQ-03", kEvery, ACLNN_ERR_PARAM_INVALID, "003 约束说明 (S：取值范围为1~128K)",
     "a batch's query or kv length > 128K (131072 tokens)", batch_lengths},
    {"NSA-SPARSE-01", kEvery, ACLNN_ERR_PARAM_INVALID, "CANN aclnnNsaSelectedAttention doc",
     "sparseMode not in {0, 2}", sparse_mode},
    {"NSA-DATA-01", kEvery, ACLNN_ERR_PARAM_INVALID, "Decision E-NSA-6 (memory safety)",
     "a topk index < 0 or >= that batch's kv length / B", topk_in_range},
    {"NSA-OUT-01", kEvery, ACLNN_ERR_PARAM_INVALID, "spec README §3",
     "an output view has overlapping elements", outputs_disjoint},
}};
}  // namespace

Sizes sizes_of(const CallArgs& a) {
  Sizes s;
  s.q_tokens = a.query->view_dims[0];
  s.q_heads = a.query->view_dims[1];
  s.dim_qk = a.query->view_dims[2];
  s.kv_tokens = a.key->view_dims[0];
  s.kv_heads = a.key->view_dims[1];
  s.dim_v = a.value->view_dims[2];
  s.group = s.kv_heads > 0 ? s.q_heads / s.kv_heads : 1;
  s.block = a.block_size;
  s.count = a.block_count;
  s.batches = a.seq_q ? static_cast<int64_t>(a.seq_q->values.size()) : 0;
  return s;
}

std::vector<Batch> batches_of(const CallArgs& a) {
  const auto q = sequence_ranges(values_of(a.seq_q));
  const auto kv = sequence_ranges(values_of(a.seq_kv));
  std::vector<Batch> batches;
  for (size_t b = 0; b < q.size() && b < kv.size(); ++b) batches.push_back({q[b], kv[b]});
  return batches;
}

int32_t topk_at(const aclTensor& topk, int64_t t, int64_t n2, int64_t k) {
  return static_cast<const int32_t*>(
      topk.data)[topk.offset + t * topk.strides[0] + n2 * topk.strides[1] + k * topk.strides[2]];
}

std::span<const Clause<CallArgs>> clause_table() { return kClauses; }

}  // namespace gradconf::nsa
