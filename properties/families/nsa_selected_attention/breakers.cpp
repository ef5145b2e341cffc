// One breaker per NSA-* clause a small problem can reach, in table order. Each edits a call made
// from a valid `seed` problem so that its clause is the first to fire (just-invalid), or makes the
// same kind of edit on the allowed side (just-valid). A size changed everywhere it appears keeps
// every other relation; values of resized tensors are dropped (the harness then fills zeros),
// except topkIndices, which NSA-DATA-01 reads.
#include <array>
#include <string>
#include <vector>

#include "families/nsa_selected_attention/gen.h"

namespace gradconf::props::nsa {
namespace {

constexpr std::string_view kSeqQ = "actualSeqQLenOptional";
constexpr std::string_view kSeqKv = "actualSeqKvLenOptional";
constexpr std::array<const char*, 7> kFloats = {"query", "key",   "value", "attentionOutGrad",
                                                "dqOut", "dkOut", "dvOut"};
// Tensors with N1 at dim 1, and tensors with T2 at dim 0.
constexpr std::array<const char*, 8> kQueryHeaded = {
    "query",      "attentionOut",  "attentionOutGrad", "softmaxMax",
    "softmaxSum", "softmaxMaxOut", "softmaxSumOut",    "dqOut"};
constexpr std::array<const char*, 4> kKvTokens = {"key", "value", "dkOut", "dvOut"};

std::vector<int64_t>& seq(Call& call, std::string_view name) {
  return std::get<std::vector<int64_t>>(call.attr(name));
}

bool forward(const Call& call) { return call.entry->direction == Direction::kForward; }

// NSA-NULL-01. Just-valid: attenMask null, or (backward) attentionOut null.
void break_null(Call& call, uint64_t choice, bool just_valid) {
  if (just_valid) {
    if (choice % 2 == 0 || forward(call)) {
      call.tensor("attenMaskOptional").null = true;
    } else {
      call.tensor("attentionOut").null = true;
    }
    return;
  }
  // The sequence lists are required too (TND needs them): one in four breaks one of them.
  if (choice % 4 == 3) {
    call.attr((choice / 4) % 2 == 0 ? kSeqQ : kSeqKv) = std::monostate{};
    return;
  }
  null_required_argument(call, choice / 4);
}

// NSA-DTYPE-01: a float tensor FLOAT or INT32, statistics FLOAT16, topk INT64, attenMask FLOAT.
// Just-valid: every float tensor in the other half type, or attenMask UINT8.
void break_dtype(Call& call, uint64_t choice, bool just_valid) {
  const aclDataType other = call.tensor("query").dtype == ACL_FLOAT16 ? ACL_BF16 : ACL_FLOAT16;
  TensorSpec& mask = call.tensor("attenMaskOptional");
  if (just_valid) {
    if (choice % 2 == 0) {
      for (TensorSpec* t : present_tensors(call, kFloats)) t->dtype = other;
      if (!call.tensor("attentionOut").null || forward(call))
        call.tensor("attentionOut").dtype = other;
    } else {
      mask.null = false;
      mask.dtype = ACL_UINT8;
    }
    return;
  }
  switch (choice % 5) {
    case 0:
      pick_tensor(call, kFloats, choice / 5).dtype = ACL_FLOAT;
      break;
    case 1:
      pick_tensor(call, kFloats, choice / 5).dtype = other;
      break;
    case 2:
      pick_tensor(call, std::array{"softmaxMax", "softmaxSum", "softmaxMaxOut", "softmaxSumOut"},
                  choice / 5)
          .dtype = ACL_FLOAT16;
      break;
    case 3:
      call.tensor("topkIndices").dtype = ACL_INT64;
      break;
    default:
      mask.null = false;
      mask.dtype = ACL_FLOAT;
      break;
  }
}

// NSA-LAYOUT-01: inputLayout other than "TND" or null. Just-valid: "TND".
const AttrChoices kLayouts = {"inputLayout",
                              {std::monostate{}, std::string("BSND"), std::string(""),
                               std::string("tnd"), std::string(200, 'T')},
                              {std::string("TND")}};

// NSA-RANK-01: a TND tensor with an extra unit dim, statistics' last dim 16, topk's last dim
// K + 1, attenMask 3-D. Just-valid: the call as it is.
void break_rank(Call& call, uint64_t choice, bool just_valid) {
  if (just_valid) return;
  switch (choice % 4) {
    case 0: {
      add_unit_dim(pick_tensor(call, kFloats, choice / 4));
      break;
    }
    case 1:
      resize_dim(pick_tensor(
                     call, std::array{"softmaxMax", "softmaxSum", "softmaxMaxOut", "softmaxSumOut"},
                     choice / 4),
                 2, 16);
      break;
    case 2:
      resize_dim(call.tensor("topkIndices"), 2, call.attr_int("selectedBlockCount") + 1);
      break;
    default: {
      TensorSpec& mask = call.tensor("attenMaskOptional");
      mask.null = false;
      mask.dims = {1, 1, 1};
      mask.layout = LayoutSpec{};
      mask.values.clear();
      break;
    }
  }
}

// NSA-SHAPE-01: one of value's T2, attentionOutGrad's Dv, dk's Dqk off by one. Just-valid: Dv
// switched between 128 and 192 everywhere.
void break_shape(Call& call, uint64_t choice, bool just_valid) {
  const int64_t dv = call.tensor("value").dims[2];
  if (just_valid) {
    resize_dims(call, std::array{"value", "attentionOut", "attentionOutGrad", "dvOut"}, 2,
                dv == 128 ? 192 : 128);
    return;
  }
  switch (choice % 3) {
    case 0:
      resize_dim(call.tensor("value"), 0, call.tensor("value").dims[0] + 1);
      break;
    case 1:
      resize_dim(pick_tensor(call, std::array{"attentionOutGrad", "attentionOut"}, choice / 3), 2,
                 dv + 1);
      break;
    default:
      resize_dim(
          pick_tensor(call, std::array{"dkOut", "dqOut", "dvOut", "attentionOut"}, choice / 3), 1,
          99);
      break;
  }
}

// NSA-HEAD-01: headNum != N1, or G = 33. Just-valid: G = 32.
void break_heads(Call& call, uint64_t choice, bool just_valid) {
  const int64_t n2 = call.tensor("key").dims[1];
  if (just_valid || choice % 2 == 0) {
    const int64_t n1 = (just_valid ? 32 : 33) * n2;
    resize_dims(call, kQueryHeaded, 1, n1);
    call.attr("headNum") = n1;
    return;
  }
  call.attr("headNum") = call.attr_int("headNum") + (choice % 4 == 1 ? 1 : -1);
}

// NSA-DIM-01: Dqk 64 or 129 everywhere. Just-valid: Dqk switched between 128 and 192.
void break_head_dims(Call& call, uint64_t choice, bool just_valid) {
  const int64_t dqk = call.tensor("query").dims[2];
  const int64_t to = just_valid ? (dqk == 128 ? 192 : 128) : (choice % 2 ? 64 : 129);
  resize_dims(call, std::array{"query", "key", "dqOut", "dkOut"}, 2, to);
}

// NSA-BLOCK-01: B 17, 8 or 144; K 0 or 33 (topk resized along). Just-valid: K = 1 (topk keeps
// its first index).
void break_blocks(Call& call, uint64_t choice, bool just_valid) {
  TensorSpec& topk = call.tensor("topkIndices");
  auto set_count = [&](int64_t k) {
    const int64_t old = topk.dims[2];
    std::vector<double> kept;
    if (k <= old) {
      for (size_t i = 0; i < topk.values.size(); ++i) {
        if (static_cast<int64_t>(i % static_cast<size_t>(old)) < k) kept.push_back(topk.values[i]);
      }
    }
    topk.dims[2] = k;
    topk.layout = LayoutSpec{};
    topk.values = kept;
    call.attr("selectedBlockCount") = k;
  };
  if (just_valid) {
    set_count(1);
    return;
  }
  switch (choice % 5) {
    case 0:
      call.attr("selectedBlockSize") = int64_t{17};
      break;
    case 1:
      call.attr("selectedBlockSize") = int64_t{8};
      break;
    case 2:
      call.attr("selectedBlockSize") = int64_t{144};
      break;
    case 3:
      set_count(0);
      break;
    default:
      set_count(33);
      break;
  }
}

// NSA-SEQ-01: actualSeqQLen empty, negative, decreasing, last != T1, a batch without queries,
// or the two arrays of different lengths. Just-valid: all batches merged into one.
void break_sequences(Call& call, uint64_t choice, bool just_valid) {
  auto& q = seq(call, kSeqQ);
  auto& kv = seq(call, kSeqKv);
  if (just_valid) {
    q = {q.back()};
    kv = {kv.back()};
    return;
  }
  switch (choice % 6) {
    case 0:
      q.clear();
      break;
    case 1:
      q.front() = -1;
      break;
    case 2:
      q.insert(q.end() - 1, q.back() + 1);
      kv.insert(kv.end() - 1, kv.back());
      break;
    case 3:
      q.back() += 1;
      break;
    case 4:  // a batch with no queries (its kv is a whole batch's worth)
      q.insert(q.begin(), 0);
      kv.insert(kv.begin(), 0);
      break;
    default:
      kv.push_back(kv.back());
      break;
  }
}

// NSA-SEQ-02: a batch's kv length one token short of a block multiple, or below B*K. Just-valid:
// the last batch one block longer.
void break_kv_lengths(Call& call, uint64_t choice, bool just_valid) {
  auto& kv = seq(call, kSeqKv);
  const int64_t block = call.attr_int("selectedBlockSize");
  const int64_t count = call.attr_int("selectedBlockCount");
  const int64_t last_begin = kv.size() > 1 ? kv[kv.size() - 2] : 0;
  int64_t last = kv.back();
  if (just_valid) {
    last += block;
  } else if (choice % 2 == 0 || count == 1) {
    last -= 1;
  } else {
    last = last_begin + block * (count - 1);
  }
  kv.back() = last;
  resize_dims(call, kKvTokens, 0, last);
}

// NSA-SPARSE-01: sparseMode 1, 3 or -1. Just-valid: the other of 0 and 2.
void break_sparse(Call& call, uint64_t choice, bool just_valid) {
  static constexpr std::array<int64_t, 3> kWrong = {1, 3, -1};
  call.attr("sparseMode") =
      just_valid ? int64_t{call.attr_int("sparseMode") == 2 ? 0 : 2} : kWrong[choice % 3];
}

// NSA-DATA-01: one topk index -1 or equal to its batch's block count. Just-valid: the block count
// minus one.
void break_topk(Call& call, uint64_t choice, bool just_valid) {
  TensorSpec& topk = call.tensor("topkIndices");
  if (topk.values.empty()) return;
  const auto& q = seq(call, kSeqQ);
  const auto& kv = seq(call, kSeqKv);
  const size_t at = choice % topk.values.size();
  const int64_t per_token = topk.dims[1] * topk.dims[2];
  const int64_t t = static_cast<int64_t>(at) / per_token;
  size_t b = 0;
  while (t >= q[b]) ++b;
  const int64_t blocks = (kv[b] - (b == 0 ? 0 : kv[b - 1])) / call.attr_int("selectedBlockSize");
  topk.values[at] = static_cast<double>(just_valid ? blocks - 1 : (choice / 7) % 2 ? -1 : blocks);
}

const std::array<ClauseBreaker, 14> kBreakers = {{
    {"NSA-NULL-01", Directions::kBoth, break_null},
    {"NSA-DTYPE-01", Directions::kBoth, break_dtype},
    {"NSA-FORMAT-01", Directions::kBoth, break_format_nd},
    {"NSA-LAYOUT-01", Directions::kBoth, break_attr_value<kLayouts>},
    {"NSA-RANK-01", Directions::kBoth, break_rank},
    {"NSA-SHAPE-01", Directions::kBoth, break_shape},
    {"NSA-HEAD-01", Directions::kBoth, break_heads},
    {"NSA-DIM-01", Directions::kBoth, break_head_dims},
    {"NSA-BLOCK-01", Directions::kBoth, break_blocks},
    {"NSA-SEQ-01", Directions::kBoth, break_sequences},
    {"NSA-SEQ-02", Directions::kBoth, break_kv_lengths},
    {"NSA-SPARSE-01", Directions::kBoth, break_sparse},
    {"NSA-DATA-01", Directions::kBoth, break_topk},
    {"NSA-OUT-01", Directions::kBoth, break_outputs_overlap},
}};

}  // namespace

std::span<const ClauseBreaker> clause_breakers() { return kBreakers; }

}  // namespace gradconf::props::nsa
