// MultiScaleDeformableAttention's traits for the laws (properties/op/registry.h, OpTraits).
#ifndef GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_TRAITS_H_
#define GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_TRAITS_H_

#include <algorithm>
#include <string>
#include <vector>

#include "families/multi_scale_deformable_attention/entries.h"
#include "harness/backend.h"
#include "laws/traits.h"

namespace gradconf::props {

struct MsdaTraits {
  using Problem = gradconf::msda::Problem;
  /// Coverage tags of a problem (the generators' and fuzzers' vocabulary), for reports.
  static std::vector<std::string> tags(const Problem& p);
  using Call = props::Call;

  static const Backend& default_backend() { return Backend::linked(); }
  static std::string repro(const Problem& p) { return p.to_repro(); }
  static Call make_call(const Problem& p) { return msda::make_call(p); }
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
  /// DOUBLE is an `extended` dtype.
  static Problem with_dtype(Problem p, aclDataType dtype) {
    p.dtype = dtype;
    if (dtype == ACL_DOUBLE) p.profile = SpecProfile::kExtended;
    return p;
  }
  /// value and attnWeight (linear: the adjoint identity holds), location (kinks at integer pixel
  /// coordinates and the guard).
  static std::vector<Differentiable> differentiable(const Problem& p);
  /// sum_j |g_j| * forward(|value|, location, |attnWeight|)_j: the sum of |terms| of <forward, g>.
  static double adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                  const Differentiable& d);
  /// Double, extended profile, locations 0.1 pixel away from every kink, no broadcast layouts.
  static Problem smooth_double(Problem p);
  static std::vector<int> incoming_gradients(const Call& backward);
  /// gradValue sums every sample of a (batch, head) slice that reaches a key.
  static int64_t accumulation_length(const Problem& p) {
    return std::max<int64_t>(4, 4 * p.queries * static_cast<int64_t>(p.levels.size()) * p.points);
  }
  static int64_t batch_size(const Problem& p) { return p.batch; }
  /// The level tables are not batched.
  static int batch_dim(const Call& call, int tensor);
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_TRAITS_H_
