// GridSampler2D's side of the op model: its two entry specs (roles, attributes, C bindings, the
// clause-table oracle), and the Problem -> Call step.
#ifndef GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_ENTRIES_H_
#define GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_ENTRIES_H_

#include <optional>
#include <vector>

#include "grid_sampler2d/problem.h"
#include "harness/backend.h"
#include "harness/harness.h"
#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::props::gs {

using grid_sampler2d::Problem;
using grid_sampler2d::Role;

/// The entry specs of GridSampler2D and GridSampler2DBackward.
const EntrySpec& forward_entry();
const EntrySpec& backward_entry();
const EntrySpec& entry_spec(Direction entry);

/// The problem's entry point, from a call.
Direction entry_of(const Call& call);
inline bool is_backward(const Call& call) { return entry_of(call) == Direction::kBackward; }
/// The role of tensor `i` of a call.
Role role_at(const Call& call, size_t i);
/// The call's tensor of `role` (precondition: the entry has it).
inline TensorSpec& tensor(Call& call, Role role) {
  return call.tensor(grid_sampler2d::role_name(role));
}
inline const TensorSpec& tensor(const Call& call, Role role) {
  return call.tensor(grid_sampler2d::role_name(role));
}
inline int index_of(const Call& call, Role role) {
  return call.index_of(grid_sampler2d::role_name(role));
}

/// outputMask as the call passes it (nullopt: a null aclBoolArray*).
std::optional<std::vector<bool>> output_mask(const Call& call);
void set_output_mask(Call& call, std::optional<std::vector<bool>> mask);

/// The call a valid problem describes, with input values from the problem's fill spec.
Call make_call(const Problem& problem);

/// Output values of `role` from an outcome of `call` (empty if the role is not in the call).
const std::vector<double>& output_of(const Call& call, const Outcome& outcome, Role role);

/// The double reference's outputs for the call's input values, by role (out for the forward,
/// inputGrad and gridGrad for the backward, regardless of the mask).
std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& problem,
                                                                    const Call& call);

}  // namespace gradconf::props::gs

#endif  // GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_ENTRIES_H_
