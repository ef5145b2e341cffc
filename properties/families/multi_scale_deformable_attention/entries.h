// MultiScaleDeformableAttention's side of the op model: its two entry specs (roles, C bindings,
// the clause-table oracle, output shapes) and the Problem -> Call step.
#ifndef GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_ENTRIES_H_
#define GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_ENTRIES_H_

#include <utility>
#include <vector>

#include "laws/law.h"
#include "multi_scale_deformable_attention/problem.h"
#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::props::msda {

using gradconf::msda::Problem;
using gradconf::msda::Role;

/// Where the batch size bs and the query count Q live (breakers resize them; both may be 0).
const SizeSites& batch_sites();
const SizeSites& query_sites();

const EntrySpec& forward_entry();
const EntrySpec& backward_entry();
const EntrySpec& entry_spec(Direction direction);

/// The call a valid problem describes, with input values from the problem's fill spec.
Call make_call(const Problem& problem);

/// The double reference's outputs for the call's input values, by role.
std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& problem,
                                                                    const Call& call);
/// Per role, each element's sum of |terms| and the number of terms (cancellation_floor).
std::vector<TermMagnitudes<Role>> reference_term_magnitudes(const Problem& problem,
                                                            const Call& call);

}  // namespace gradconf::props::msda

#endif  // GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_ENTRIES_H_
