#include "families/nsa_selected_attention/traits.h"
#include "families/nsa_selected_attention/gen.h"

#include <algorithm>
#include <cmath>

namespace gradconf::props {

using gradconf::nsa::Role;

namespace {

/// Elements zero by construction (spec nsa_selected_attention.md): a fully masked (query, kv
/// head) row gives attentionOut = 0 and softmaxSum = 0 (Decision); a row whose unmasked slots all
/// name one kv token has P one-hot, so dS = P (dP - Dr) = 0 exactly: its dq is zero and it adds
/// nothing to dk; a kv token that no unmasked slot names gets dk = dv = 0.
struct StructuralZeros {
  int64_t out = 0, sum = 0, dq = 0, dk = 0, dv = 0;
};

StructuralZeros structural_zeros(const gradconf::nsa::Problem& p, const Call& call) {
  const std::vector<double>& topk = call.tensor("topkIndices").values;
  const std::vector<int64_t> seq_q = p.seq_q(), seq_kv = p.seq_kv();
  const int64_t kv_tokens = p.kv_tokens(), group = p.q_heads / p.kv_heads;
  std::vector<uint8_t> dk_reached(static_cast<size_t>(kv_tokens * p.kv_heads), 0);
  std::vector<uint8_t> dv_reached(dk_reached.size(), 0);
  int64_t degenerate_rows = 0, masked_rows = 0;
  std::vector<int64_t> unmasked;
  for (size_t b = 0; b < seq_q.size(); ++b) {
    const int64_t q_begin = b ? seq_q[b - 1] : 0, kv_begin = b ? seq_kv[b - 1] : 0;
    for (int64_t t = q_begin; t < seq_q[b]; ++t) {
      for (int64_t n2 = 0; n2 < p.kv_heads; ++n2) {
        unmasked.clear();
        for (int64_t k = 0; k < p.count; ++k) {
          const auto block =
              static_cast<int64_t>(topk[static_cast<size_t>((t * p.kv_heads + n2) * p.count + k)]);
          for (int64_t r = 0; r < p.block; ++r) {
            const int64_t position = block * p.block + r;
            if (p.sparse_mode == 2 && position > t - q_begin) continue;
            unmasked.push_back(kv_begin + position);
          }
        }
        const bool one_token = std::all_of(unmasked.begin(), unmasked.end(),
                                           [&](int64_t v) { return v == unmasked.front(); });
        if (one_token) ++degenerate_rows;
        if (unmasked.empty()) ++masked_rows;
        for (int64_t token : unmasked) {
          const auto at = static_cast<size_t>(token * p.kv_heads + n2);
          dv_reached[at] = 1;
          if (!one_token) dk_reached[at] = 1;
        }
      }
    }
  }
  const auto unreached = [](const std::vector<uint8_t>& reached) {
    return static_cast<int64_t>(std::count(reached.begin(), reached.end(), 0));
  };
  return {masked_rows * group * p.dim_v, masked_rows * group * 8,
          degenerate_rows * group * p.dim_qk, unreached(dk_reached) * p.dim_qk,
          unreached(dv_reached) * p.dim_v};
}

}  // namespace

std::vector<ExpectedOutput> NsaSelectedAttentionTraits::reference(const Problem& p,
                                                                  const Call& call) {
  std::vector<ExpectedOutput> expected = TraitsDefaults::reference(p, call);
  const StructuralZeros zeros = structural_zeros(p, call);
  for (ExpectedOutput& e : expected) {
    if (e.name == "attentionOut") e.structural_zeros = zeros.out;
    if (e.name == "softmaxSumOut") e.structural_zeros = zeros.sum;
    if (e.name == "dqOut") e.structural_zeros = zeros.dq;
    if (e.name == "dkOut") e.structural_zeros = zeros.dk;
    if (e.name == "dvOut") e.structural_zeros = zeros.dv;
  }
  return expected;
}

std::vector<Differentiable> NsaSelectedAttentionTraits::differentiable(const Problem&) {
  return {{"value", "attentionOut", "attentionOutGrad", "dvOut", true},
          {"query", "attentionOut", "attentionOutGrad", "dqOut", false},
          {"key", "attentionOut", "attentionOutGrad", "dkOut", false}};
}

double NsaSelectedAttentionTraits::adjoint_magnitude(const Problem& p, const Call& forward,
                                                     const Call& backward,
                                                     const Differentiable& d) {
  // Softmax weights are nonnegative: the attention output is linear in |value|.
  return forward_magnitude(p, forward, backward, d, {"value"}, "attentionOut");
}

std::vector<std::string> NsaSelectedAttentionTraits::tags(const Problem& p) {
  return nsa::problem_tags(p);
}

}  // namespace gradconf::props
