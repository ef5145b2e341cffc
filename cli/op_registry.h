// What the CLI knows about each operator: its parameters as case files name them, how its output
// tensors follow from the inputs, and how to bind a case's arguments to its C API.
//
// NOTE: data flows case file -> CallArgs (checked against the OpDef, defaults filled in) ->
// aclTensors built by the two-phase driver (cli/two_phase.h) -> OpDef::bind -> BoundCall, which
// the driver runs (once, or N times for timing). An op therefore only describes itself and binds
// arguments; allocation, phase 1, workspace, phase 2, synchronisation and copying back are
// written once. A new op family adds one file under cli/ops/ and one line in kOpFamilies.
#ifndef GRADCONF_CLI_OP_REGISTRY_H_
#define GRADCONF_CLI_OP_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "cli/case_file.h"

namespace gradconf::cli {

using caseio::AttrKind;
using caseio::AttrValue;
using caseio::HostTensor;

struct InputDef {
  std::string name;  // the C API parameter name
  bool required = true;
  std::vector<aclDataType> dtypes;  // what the op accepts in some profile (for `list` only)
};

struct AttrDef {
  std::string name;  // the C API parameter name
  AttrKind kind = AttrKind::kInt;
  std::optional<AttrValue> default_value;  // nullopt: the case must give it
};

/// A case's arguments after checking them against an OpDef: every required input is present and
/// every attribute has a value of its kind (defaults filled in).
class CallArgs {
 public:
  std::map<std::string, HostTensor, std::less<>> inputs;  // absent optional inputs are missing
  std::map<std::string, AttrValue, std::less<>> attrs;

  const HostTensor* input(std::string_view name) const;  // nullptr when absent
  /// The dim `index` of an input, or `fallback` when the input is absent or has too few dims:
  /// output shapes must exist even for a case that the op will reject for its ranks.
  int64_t dim_or(std::string_view name, size_t index, int64_t fallback = 1) const;
  /// The input's dtype, or `fallback` when it is absent.
  aclDataType dtype_or(std::string_view name, aclDataType fallback = ACL_FLOAT) const;

  int64_t int_attr(std::string_view name) const;
  bool bool_attr(std::string_view name) const;
  double float_attr(std::string_view name) const;
  const std::vector<int64_t>* int_list_attr(std::string_view name) const;  // nullptr: null
  const std::vector<bool>* bool_list_attr(std::string_view name) const;    // nullptr: null
  const std::string* string_attr(std::string_view name) const;             // nullptr: null
};

struct OutputDef {
  std::string name;        // the C API parameter name; also the output file's stem
  std::string shape_rule;  // e.g. "shape(input)", for `list`
  std::string dtype_rule;  // e.g. "dtype(input)", for `list`
  std::function<std::vector<int64_t>(const CallArgs&)> shape;
  std::function<aclDataType(const CallArgs&)> dtype;
  /// Whether a successful call writes this output (e.g. outputMask); empty: always. An output
  /// the op leaves alone has no defined contents, so replay writes no file for it.
  std::function<bool(const CallArgs&)> written = nullptr;
  std::string written_rule = "";  // e.g. "outputMask[0]", for `list`; empty when always written
};

/// The aclTensors of one call by parameter name (nullptr for an absent optional input).
struct CallTensors {
  std::map<std::string, aclTensor*, std::less<>> inputs;
  std::map<std::string, aclTensor*, std::less<>> outputs;

  aclTensor* input(std::string_view name) const;
  aclTensor* output(std::string_view name) const;
};

using ExecuteFn = aclnnStatus (*)(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                  aclrtStream stream);

/// One call bound to its tensors and attributes. get_workspace_size is phase 1 as a closure that
/// owns whatever it points to (aclIntArray, aclBoolArray, strings), so it can be called again
/// for every timed run; execute is the op's phase 2.
struct BoundCall {
  std::function<aclnnStatus(uint64_t* workspace_size, aclOpExecutor** executor)> get_workspace_size;
  ExecuteFn execute = nullptr;
};

struct OpDef {
  std::string name;  // as in case.json "op"
  std::string api;   // the C API prefix, e.g. "aclnnGridSampler2DBackward"
  std::vector<InputDef> inputs;
  std::vector<AttrDef> attrs;
  std::vector<OutputDef> outputs;
  std::function<BoundCall(const CallArgs&, const CallTensors&)> bind;
};

/// Every op the CLI knows, in a stable order.
const std::vector<OpDef>& all_ops();
const OpDef* find_op(std::string_view name);

/// Checks a case against its op and moves its inputs into CallArgs. Throws caseio::CaseError for
/// a missing required input, an unknown input or attribute name (a typo must not silently fall
/// back to a default) or an attribute of the wrong kind. `where` names case.json in messages.
CallArgs bind_case_args(const OpDef& op, caseio::CaseFile&& case_file, std::string_view where);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_OP_REGISTRY_H_
