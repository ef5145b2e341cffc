// `gradconf list [--json]`: the ops replay knows, with the parameter names a case file uses.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/op_registry.h"
#include "core/dtype.h"

namespace gradconf::cli {
namespace {

using nlohmann::ordered_json;

std::string dtypes_text(const std::vector<aclDataType>& dtypes) {
  std::string text;
  for (aclDataType dtype : dtypes)
    text += (text.empty() ? "" : "|") + std::string(dtype_name(dtype));
  return text;
}

std::string op_line(const OpDef& op) {
  std::string line = op.name + ": inputs";
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const InputDef& input = op.inputs[i];
    line += (i ? ", " : " ") + input.name + (input.required ? "" : "?") + ":" +
            dtypes_text(input.dtypes);
  }
  line += "; attrs";
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    const AttrDef& attr = op.attrs[i];
    line += (i ? ", " : " ") + attr.name + ":" + std::string(caseio::attr_kind_name(attr.kind));
    line +=
        attr.default_value ? "=" + caseio::attr_to_json(*attr.default_value).dump() : " (required)";
  }
  line += "; outputs";
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const OutputDef& output = op.outputs[i];
    line += (i ? ", " : " ") + output.name + ":" + output.shape_rule + ":" + output.dtype_rule;
    if (!output.written_rule.empty()) line += " if " + output.written_rule;
  }
  return line;
}

ordered_json op_json(const OpDef& op) {
  ordered_json inputs = ordered_json::array();
  for (const auto& input : op.inputs) {
    ordered_json dtypes = ordered_json::array();
    for (aclDataType dtype : input.dtypes) dtypes.push_back(dtype_name(dtype));
    inputs.push_back({{"name", input.name}, {"required", input.required}, {"dtypes", dtypes}});
  }
  ordered_json attrs = ordered_json::array();
  for (const auto& attr : op.attrs) {
    ordered_json entry = {{"name", attr.name},
                          {"kind", caseio::attr_kind_name(attr.kind)},
                          {"required", !attr.default_value.has_value()}};
    if (attr.default_value) entry["default"] = caseio::attr_to_json(*attr.default_value);
    attrs.push_back(std::move(entry));
  }
  ordered_json outputs = ordered_json::array();
  for (const auto& output : op.outputs) {
    ordered_json entry = {
        {"name", output.name}, {"shape", output.shape_rule}, {"dtype", output.dtype_rule}};
    // null: always written by a successful call.
    entry["written_if"] =
        output.written_rule.empty() ? ordered_json(nullptr) : ordered_json(output.written_rule);
    outputs.push_back(std::move(entry));
  }
  return {{"name", op.name},
          {"api", op.api},
          {"inputs", inputs},
          {"attrs", attrs},
          {"outputs", outputs}};
}

}  // namespace

int run_list(const ListOptions& options) {
  if (options.json) {
    ordered_json ops = ordered_json::array();
    for (const auto& op : all_ops()) ops.push_back(op_json(op));
    std::cout << ops.dump(2) << "\n";
  } else {
    for (const auto& op : all_ops()) std::cout << op_line(op) << "\n";
  }
  return std::cout.flush() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace gradconf::cli
