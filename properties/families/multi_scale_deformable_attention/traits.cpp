#include "families/multi_scale_deformable_attention/traits.h"
#include "families/multi_scale_deformable_attention/gen.h"

#include <cmath>

#include "ops/multi_scale_deformable_attention/reference/reference.h"

namespace gradconf::props {

using gradconf::msda::Role;

std::vector<Differentiable> MsdaTraits::differentiable(const Problem&) {
  return {{"value", "output", "gradOutput", "gradValue", true},
          {"attnWeight", "output", "gradOutput", "gradAttnWeight", true},
          {"location", "output", "gradOutput", "gradLocation", false}};
}

double MsdaTraits::adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                     const Differentiable& d) {
  Call absolute = forward;
  for (const char* role : {"value", "attnWeight"}) {
    for (double& v : absolute.tensor(role).values) v = std::fabs(v);
  }
  const auto out = msda::reference_outputs(as_forward(p), absolute);
  const auto& g = backward.tensors[role_at(backward, d.incoming)].values;
  double magnitude = 0;
  const auto& f = out.front().second;
  for (size_t j = 0; j < f.size() && j < g.size(); ++j) magnitude += f[j] * std::fabs(g[j]);
  return magnitude;
}

MsdaTraits::Problem MsdaTraits::smooth_double(Problem p) {
  p.dtype = ACL_DOUBLE;
  p.profile = SpecProfile::kExtended;
  p.location_fill = gradconf::msda::LocationFill::kSmooth;
  for (auto& layout : p.layouts) layout.broadcast = 0;
  return p;
}

int MsdaTraits::batch_dim(const Call& call, int tensor) {
  const RoleSpec* role = call.entry->role(call.tensors[static_cast<size_t>(tensor)].name);
  return role && role->batching == Batching::kNone ? -1 : 0;
}

std::vector<std::string> MsdaTraits::tags(const Problem& p) { return msda::problem_tags(p); }

}  // namespace gradconf::props
