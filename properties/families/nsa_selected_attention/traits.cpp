#include "families/nsa_selected_attention/traits.h"
#include "families/nsa_selected_attention/gen.h"

#include <cmath>

namespace gradconf::props {

using gradconf::nsa::Role;

std::vector<ExpectedOutput> NsaSelectedAttentionTraits::reference(const Problem& p,
                                                                  const Call& call) {
  std::vector<ExpectedOutput> expected;
  for (auto& [role, values] : nsa::reference_outputs(p, call)) {
    const std::string name(gradconf::nsa::role_name(role));
    const int index = call.index_of(name);
    expected.push_back(
        {index, name, call.tensors[static_cast<size_t>(index)].dims, std::move(values)});
  }
  return expected;
}

std::vector<int> NsaSelectedAttentionTraits::wanted_outputs(const Problem&, const Call& call) {
  std::vector<int> indices;
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    if (call.tensors[i].output) indices.push_back(static_cast<int>(i));
  }
  return indices;
}

std::vector<Differentiable> NsaSelectedAttentionTraits::differentiable(const Problem&) {
  // Forward call: query 0, key 1, value 2, topk 3, mask 4, softmaxMaxOut 5, softmaxSumOut 6,
  // attentionOut 7. Backward: query 0, key 1, value 2, attentionOut 3, attentionOutGrad 4, ...,
  // dqOut 9, dkOut 10, dvOut 11.
  return {Differentiable{2, 7, 4, 11, true}, Differentiable{0, 7, 4, 9, false},
          Differentiable{1, 7, 4, 10, false}};
}

double NsaSelectedAttentionTraits::adjoint_magnitude(const Problem& p, const Call& forward,
                                                     const Call& backward,
                                                     const Differentiable& d) {
  Call absolute = forward;
  for (double& v : absolute.tensor("value").values) v = std::fabs(v);
  const auto out = nsa::reference_outputs(as_forward(p), absolute);
  const auto& g = backward.tensors[static_cast<size_t>(d.backward_incoming)].values;
  double magnitude = 0;
  const auto& f = out.back().second;  // attentionOut
  for (size_t j = 0; j < f.size() && j < g.size(); ++j) magnitude += f[j] * std::fabs(g[j]);
  return magnitude;
}

NsaSelectedAttentionTraits::Problem NsaSelectedAttentionTraits::smooth_double(Problem p) {
  p.dtype = ACL_DOUBLE;
  p.profile = SpecProfile::kExtended;
  for (auto& layout : p.layouts) layout.broadcast = 0;
  return p;
}

std::vector<int> NsaSelectedAttentionTraits::incoming_gradients(const Call& backward) {
  const int index = backward.index_of("attentionOutGrad");
  return index < 0 ? std::vector<int>{} : std::vector<int>{index};
}

int NsaSelectedAttentionTraits::batch_dim(const Call& call, int tensor) {
  const RoleSpec* role = call.entry->role(call.tensors[static_cast<size_t>(tensor)].name);
  return role && role->batching == Batching::kNone ? -1 : 0;
}

std::vector<std::string> NsaSelectedAttentionTraits::tags(const Problem& p) {
  return nsa::problem_tags(p);
}

}  // namespace gradconf::props
