// NsaSelectedAttention's traits for the laws (properties/op/registry.h, OpTraits).
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_TRAITS_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_TRAITS_H_

#include <algorithm>
#include <string>
#include <vector>

#include "families/nsa_selected_attention/entries.h"
#include "harness/backend.h"
#include "laws/batch_split.h"
#include "laws/traits.h"

namespace gradconf::props {

struct NsaSelectedAttentionTraits {
  using Problem = gradconf::nsa::Problem;
  /// Coverage tags of a problem (the generators' and fuzzers' vocabulary), for reports.
  static std::vector<std::string> tags(const Problem& p);
  using Call = props::Call;

  static const Backend& default_backend() { return Backend::linked(); }
  static std::string repro(const Problem& p) { return p.to_repro(); }
  static Call make_call(const Problem& p) { return nsa::make_call(p); }
  static Problem as_forward(Problem p) {
    p.entry = Direction::kForward;
    return p;
  }
  static Problem as_backward(Problem p) {
    p.entry = Direction::kBackward;
    return p;
  }
  static Problem with_all_outputs(Problem p) { return p; }
  static Outcome run(const Call& call, const RunOptions& options, const Backend& backend) {
    return props::run(call, options, backend);
  }
  static std::vector<ExpectedOutput> reference(const Problem& p, const Call& call);
  static std::vector<int> wanted_outputs(const Problem& p, const Call& call);
  static aclDataType dtype(const Problem& p) { return p.dtype; }
  static std::string_view op_name(const Problem& p) { return p.op_name(); }
  /// FLOAT and DOUBLE are `extended` dtypes; so are head dims outside {128, 192}, kept as drawn.
  static Problem with_dtype(Problem p, aclDataType dtype) {
    p.dtype = dtype;
    if (dtype == ACL_FLOAT || dtype == ACL_DOUBLE) p.profile = SpecProfile::kExtended;
    return p;
  }
  /// value (linear: the adjoint identity holds), query and key (smooth: softmax).
  static std::vector<Differentiable> differentiable(const Problem& p);
  /// sum_j |g_j| * (P |value|)_j: the sum of |terms| of <forward, g>.
  static double adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                  const Differentiable& d);
  /// Double, extended profile, no broadcast layouts (softmax is smooth; the backward's statistics
  /// are the reference forward's, so central differences of the forward see the same function).
  static Problem smooth_double(Problem p);
  static std::vector<int> incoming_gradients(const Call& backward);
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
  static int batch_dim(const Call& call, int tensor);
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_TRAITS_H_
