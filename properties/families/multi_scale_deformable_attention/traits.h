// MultiScaleDeformableAttention's traits for the laws (properties/registry/registry.h, OpTraits).
#ifndef GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_TRAITS_H_
#define GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_TRAITS_H_

#include <algorithm>
#include <string>
#include <vector>

#include "families/multi_scale_deformable_attention/entries.h"
#include "harness/backend.h"
#include "laws/law.h"
#include "registry/traits_defaults.h"

namespace gradconf::props {

struct MsdaTraits : TraitsDefaults<MsdaTraits, gradconf::msda::Problem> {
  static constexpr std::string_view kIncomingGradient = "gradOutput";
  /// Coverage tags of a problem (the generators' and fuzzers' vocabulary), for reports.
  static std::vector<std::string> tags(const Problem& p);

  static Call make_call(const Problem& p) { return msda::make_call(p); }
  static auto reference_values(const Problem& p, const Call& call) {
    return msda::reference_outputs(p, call);
  }
  static auto reference_magnitudes(const Problem& p, const Call& call) {
    return msda::reference_term_magnitudes(p, call);
  }
  /// The defaults', with the elements zero by construction counted (ExpectedOutput).
  static std::vector<ExpectedOutput> reference(const Problem& p, const Call& call);
  /// DOUBLE is an `extended` dtype.
  static Problem with_dtype(Problem p, aclDataType dtype) {
    p.dtype = dtype;
    return dtype == ACL_DOUBLE ? as_extended(p) : p;
  }
  /// The same problem under `extended` (same math). cann-latest's 3-D gradOutput and output
  /// become 4-D there (E-MSDA-4), so their layouts, written for rank 3, go contiguous.
  static Problem as_extended(Problem p);
  /// The defaults', with cann-latest's (bs, Q, heads * C) gradOutput or output as the 4-D
  /// (bs, Q, heads, C) extended takes: the same values in the same order.
  static Call in_float64(Call call);
  /// value and attnWeight (linear: the adjoint identity holds), location (kinks at integer pixel
  /// coordinates and the guard).
  static std::vector<Differentiable> differentiable(const Problem& p);
  /// sum_j |g_j| * forward(|value|, location, |attnWeight|)_j: the sum of |terms| of <forward, g>.
  static double adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                  const Differentiable& d);
  /// Double, extended profile, locations 0.1 pixel away from every kink, no broadcast layouts.
  static Problem smooth_double(Problem p);
  /// gradValue sums every sample of a (batch, head) slice that reaches a key; gradAttnWeight and
  /// gradLocation sum a sample's C channels of 4 taps each.
  static int64_t accumulation_length(const Problem& p) {
    return std::max<int64_t>(
        {4, 4 * p.queries * static_cast<int64_t>(p.levels.size()) * p.points, 4 * p.channels});
  }
  static int64_t batch_size(const Problem& p) { return p.batch; }
  /// The level tables are not batched.
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_TRAITS_H_
