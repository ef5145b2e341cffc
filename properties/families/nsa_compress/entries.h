// NsaCompress's side of the op model: its two entry specs (roles, attributes, C bindings, the
// clause-table oracle, output shapes) and the Problem -> Call step.
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_ENTRIES_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_ENTRIES_H_

#include <utility>
#include <vector>

#include "laws/law.h"
#include "nsa_compress/problem.h"
#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::props::nc {

using gradconf::nc::Problem;
using gradconf::nc::Role;

const EntrySpec& forward_entry();
const EntrySpec& backward_entry();
const EntrySpec& entry_spec(Direction direction);

/// The call a valid problem describes, with input values from the problem's fill spec.
Call make_call(const Problem& problem);

/// The same call without tensor values (validation reads none): for fuzzers that never run the
/// math.
Call make_validation_call(const Problem& problem);

/// The double reference's outputs for the call's input values and attributes, by role name.
std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& problem,
                                                                    const Call& call);
/// Per role, each element's sum of |terms| and the number of terms (cancellation_floor).
std::vector<TermMagnitudes<Role>> reference_term_magnitudes(const Problem& problem,
                                                            const Call& call);

/// T_cmp of the call's actSeqLen for windows of `block` tokens every `stride` (0 when they
/// describe no valid windowing).
int64_t compressed_rows(const Call& call, int64_t block, int64_t stride);

/// The windows of each batch as prefix sums (compressed rows), from its tokens' prefix sums (all
/// zero when l or d is not positive).
std::vector<int64_t> window_prefix(const std::vector<int64_t>& token_prefix, int64_t block,
                                   int64_t stride);

/// actSeqLenOptional of a call as prefix sums (null: one batch of all tokens).
std::vector<int64_t> prefix_sums_of(const Call& call);

}  // namespace gradconf::props::nc

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_ENTRIES_H_
