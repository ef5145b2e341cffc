// NsaSelectedAttention's side of the op model: its two entry specs (roles, attributes, C bindings,
// the clause-table oracle, output shapes) and the Problem -> Call step.
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_ENTRIES_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_ENTRIES_H_

#include <utility>
#include <vector>

#include "nsa_selected_attention/problem.h"
#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::props::nsa {

using gradconf::nsa::Problem;
using gradconf::nsa::Role;

const EntrySpec& forward_entry();
const EntrySpec& backward_entry();
const EntrySpec& entry_spec(Direction direction);
/// Multiply-adds (two flops each) of the selected, unmasked work of one call.
double useful_flops(const Call& call);

/// The call a valid problem describes. The backward's attentionOut and softmax statistics are the
/// double reference forward of the same (rounded) inputs, rounded to their dtypes; statistics
/// lanes 1..7 hold other values (the op reads lane 0 only).
Call make_call(const Problem& problem);

/// The same call with index values only (topkIndices): what validation reads, for fuzzers that
/// check statuses and canaries, not numbers (float tensors are zeros).
Call make_validation_call(const Problem& problem);

/// The double reference's outputs for the call's input values and attributes, by role.
std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& problem,
                                                                    const Call& call);

}  // namespace gradconf::props::nsa

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_ENTRIES_H_
