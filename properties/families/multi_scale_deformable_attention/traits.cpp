#include "families/multi_scale_deformable_attention/traits.h"
#include "families/multi_scale_deformable_attention/gen.h"

#include <cmath>

#include "ops/multi_scale_deformable_attention/reference/reference.h"

namespace gradconf::props {

using gradconf::msda::Role;

std::vector<ExpectedOutput> MsdaTraits::reference(const Problem& p, const Call& call) {
  std::vector<ExpectedOutput> expected;
  for (auto& [role, values] : msda::reference_outputs(p, call)) {
    const std::string name(gradconf::msda::role_name(role));
    expected.push_back({call.index_of(name), name, p.dims(role), std::move(values)});
  }
  return expected;
}

std::vector<int> MsdaTraits::wanted_outputs(const Problem&, const Call& call) {
  std::vector<int> indices;
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    if (call.tensors[i].output) indices.push_back(static_cast<int>(i));
  }
  return indices;
}

std::vector<Differentiable> MsdaTraits::differentiable(const Problem&) {
  // Forward call: value 0, spatialShape 1, levelStartIndex 2, location 3, attnWeight 4, output 5.
  // Backward: ... gradOutput 5, gradValue 6, gradLocation 7, gradAttnWeight 8.
  return {Differentiable{0, 5, 5, 6, true}, Differentiable{4, 5, 5, 8, true},
          Differentiable{3, 5, 5, 7, false}};
}

double MsdaTraits::adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                     const Differentiable& d) {
  Call absolute = forward;
  for (const char* role : {"value", "attnWeight"}) {
    for (double& v : absolute.tensor(role).values) v = std::fabs(v);
  }
  const auto out = msda::reference_outputs(as_forward(p), absolute);
  const auto& g = backward.tensors[static_cast<size_t>(d.backward_incoming)].values;
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

std::vector<int> MsdaTraits::incoming_gradients(const Call& backward) {
  const int index = backward.index_of("gradOutput");
  return index < 0 ? std::vector<int>{} : std::vector<int>{index};
}

int MsdaTraits::batch_dim(const Call& call, int tensor) {
  const RoleSpec* role = call.entry->role(call.tensors[static_cast<size_t>(tensor)].name);
  return role && role->batching == Batching::kNone ? -1 : 0;
}

std::vector<std::string> MsdaTraits::tags(const Problem& p) { return msda::problem_tags(p); }

}  // namespace gradconf::props
