// What the CLI knows about each operator comes from the op registry
// (properties/registry/registry.h): a case file names an entry point and its C parameters; this
// file checks a case against the entry's roles and attributes and turns it into a role-keyed Call,
// which the one two-phase runner (properties/harness) executes for `replay`, exactly as the laws
// and fuzzers do.
#ifndef GRADCONF_CLI_OP_REGISTRY_H_
#define GRADCONF_CLI_OP_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "cli/case_file.h"
#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::cli {

/// Every entry point of every registered family, in registry order.
std::vector<const props::EntrySpec*> all_ops();
const props::EntrySpec* find_op(std::string_view name);
/// "GridSampler2D, GridSampler2DBackward, ..."
std::string known_ops();
/// The op families' names, what `--op` takes: "grid_sampler2d, multi_scale_deformable_attention,
/// ..."
std::string known_families();

/// The case-file kind of an attribute kind, and back.
caseio::AttrKind case_kind(props::AttrKind kind);
props::AttrValue to_call_value(const caseio::AttrValue& value);
caseio::AttrValue to_case_value(const props::AttrValue& value);

/// Checks a case against its entry and builds the call: inputs with the case's values
/// (contiguous), attributes (defaults filled in), outputs shaped by the entry's rules. Throws
/// caseio::CaseError for a missing required input, an unknown input or attribute name (a typo must
/// not silently fall back to a default) or an attribute of the wrong kind. `where` names case.json
/// in messages.
props::Call bind_case(const props::EntrySpec& entry, caseio::CaseFile&& case_file,
                      SpecProfile profile, std::string_view where);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_OP_REGISTRY_H_
