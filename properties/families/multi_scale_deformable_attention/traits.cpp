#include "families/multi_scale_deformable_attention/traits.h"
#include "families/multi_scale_deformable_attention/gen.h"

#include <cmath>

#include "ops/multi_scale_deformable_attention/reference/reference.h"

namespace gradconf::props {

using gradconf::msda::Role;

/// Zero by construction, whatever the inputs hold: value rows before the first level (extra keys)
/// that no level addresses; all of gradValue when there is no sample (Q or points 0); all of
/// gradLocation and gradAttnWeight when there is no channel to sum over.
std::vector<ExpectedOutput> MsdaTraits::reference(const Problem& p, const Call& call) {
  std::vector<ExpectedOutput> expected = TraitsDefaults::reference(p, call);
  for (ExpectedOutput& e : expected) {
    const auto count = static_cast<int64_t>(e.values.size());
    if (e.name == "gradValue") {
      e.structural_zeros =
          p.queries * p.points == 0 ? count : p.batch * p.extra_keys * p.heads * p.channels;
    } else if (e.name == "gradLocation" || e.name == "gradAttnWeight") {
      e.structural_zeros = p.channels == 0 ? count : 0;
    }
  }
  return expected;
}

std::vector<Differentiable> MsdaTraits::differentiable(const Problem&) {
  return {{"value", "output", "gradOutput", "gradValue", true},
          {"attnWeight", "output", "gradOutput", "gradAttnWeight", true},
          {"location", "output", "gradOutput", "gradLocation", false}};
}

double MsdaTraits::adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                     const Differentiable& d) {
  return forward_magnitude(p, forward, backward, d, {"value", "attnWeight"}, "output");
}

MsdaTraits::Problem MsdaTraits::as_extended(Problem p) {
  if (p.profile == SpecProfile::kCannLatest) {
    p.layout(gradconf::msda::Role::kGradOutput) = LayoutSpec{};
    p.layout(gradconf::msda::Role::kOutput) = LayoutSpec{};
  }
  p.profile = SpecProfile::kExtended;
  return p;
}

Call MsdaTraits::in_float64(Call call) {
  const auto& value = call.tensor("value").dims;
  const std::vector<int64_t> heads_by_channels = {value[2], value[3]};
  for (auto& tensor : call.tensors) {
    if ((tensor.name == "gradOutput" || tensor.name == "output") && tensor.dims.size() == 3) {
      tensor.dims = {tensor.dims[0], tensor.dims[1], heads_by_channels[0], heads_by_channels[1]};
      tensor.layout = LayoutSpec{};
    }
  }
  return TraitsDefaults::in_float64(std::move(call));
}

MsdaTraits::Problem MsdaTraits::smooth_double(Problem p) {
  p.dtype = ACL_DOUBLE;
  p = as_extended(p);
  p.location_fill = gradconf::msda::LocationFill::kSmooth;
  for (auto& layout : p.layouts) layout.broadcast = 0;
  return p;
}

std::vector<std::string> MsdaTraits::tags(const Problem& p) { return msda::problem_tags(p); }

}  // namespace gradconf::props
