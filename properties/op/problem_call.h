// The Problem -> Call step every family shares: the entry's blank call, shaped, typed and laid
// out per role as the problem describes, then its inputs filled from the problem's fill spec.
// A Problem has `profile`, `roles()` (the entry's tensors in prototype order), `dims(role)`,
// `layout(role)`, and `dtype_of(role)` or one `dtype`.
#ifndef GRADCONF_PROPERTIES_OP_PROBLEM_CALL_H_
#define GRADCONF_PROPERTIES_OP_PROBLEM_CALL_H_

#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::props {

/// The call without tensor values (validation reads none).
template <typename Problem>
Call shaped_call(const EntrySpec& spec, const Problem& p) {
  Call call = spec.blank_call();
  call.profile = p.profile;
  const auto roles = p.roles();
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    TensorSpec& t = call.tensors[i];
    const auto dims = p.dims(roles[i]);
    t.dims.assign(dims.begin(), dims.end());
    if constexpr (requires { p.dtype_of(roles[i]); }) {
      t.dtype = p.dtype_of(roles[i]);
    } else {
      t.dtype = p.dtype;
    }
    t.layout = p.layout(roles[i]);
  }
  return call;
}

/// Gives every input tensor whose role `wanted` accepts the values `make_values(p, role)`, the
/// same in every element a broadcast layout aliases.
template <typename Problem, typename MakeValues, typename Wanted>
void fill_inputs(Call& call, const Problem& p, MakeValues make_values, Wanted wanted) {
  const auto roles = p.roles();
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    TensorSpec& t = call.tensors[i];
    if (t.output || !wanted(roles[i])) continue;
    t.values = make_values(p, roles[i]);
    make_broadcast_consistent(t);
  }
}

template <typename Problem, typename MakeValues>
void fill_inputs(Call& call, const Problem& p, MakeValues make_values) {
  fill_inputs(call, p, make_values, [](auto) { return true; });
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_OP_PROBLEM_CALL_H_
