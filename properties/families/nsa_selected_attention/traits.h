// NsaSelectedAttention's traits for the laws (properties/registry/registry.h, OpTraits).
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_TRAITS_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_TRAITS_H_

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "families/nsa_selected_attention/entries.h"
#include "harness/backend.h"
#include "laws/batch_split.h"
#include "laws/law.h"
#include "registry/traits_defaults.h"

namespace gradconf::props {

struct NsaSelectedAttentionTraits
    : TraitsDefaults<NsaSelectedAttentionTraits, gradconf::nsa::Problem> {
  static constexpr std::string_view kIncomingGradient = "attentionOutGrad";
  /// Coverage tags of a problem (the generators' and fuzzers' vocabulary), for reports.
  static std::vector<std::string> tags(const Problem& p);

  static Call make_call(const Problem& p) { return nsa::make_call(p); }
  static auto reference_values(const Problem& p, const Call& call) {
    return nsa::reference_outputs(p, call);
  }
  /// The defaults' reference, with the elements zero by construction counted per output.
  static std::vector<ExpectedOutput> reference(const Problem& p, const Call& call);
  /// FLOAT and DOUBLE are `extended` dtypes (head dims outside {128, 192} are kept as drawn).
  static constexpr std::array kExtendedOnlyDtypes = {ACL_FLOAT, ACL_DOUBLE};
  /// value (linear: the adjoint identity holds), query and key (smooth: softmax).
  static std::vector<Differentiable> differentiable(const Problem& p);
  /// sum_j |g_j| * (P |value|)_j: the sum of |terms| of <forward, g>.
  static double adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                  const Differentiable& d);
  /// Double, extended profile, no broadcast layouts (softmax is smooth; the backward's statistics
  /// dk/dv sum over every query row, head of the group and slot that selected a block.
  static int64_t accumulation_length(const Problem& p) {
    return std::max<int64_t>(
        {4, p.q_tokens() * (p.q_heads / std::max<int64_t>(p.kv_heads, 1)) * p.count,
         p.count * p.block, p.dim_qk, p.dim_v});
  }
  static int64_t batch_size(const Problem& p) { return static_cast<int64_t>(p.seqs.size()); }
  /// Batches of actualSeqQLen / actualSeqKvLen: their query and kv tokens, rebased prefix sums.
  static Call slice_batch(const Call& call, int64_t begin, int64_t end) {
    return slice_sequences(call, begin, end);
  }
  static bool summed_over_batch(const Call&, int) { return false; }
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_TRAITS_H_
