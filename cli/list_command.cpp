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

using props::EntrySpec;

std::string default_text(const props::AttrSpec& attr) {
  return caseio::attr_to_json(to_case_value(attr.default_value)).dump();
}

std::string op_line(const EntrySpec& op) {
  std::string line = std::string(op.name) + ": inputs";
  bool first = true;
  for (const auto& role : op.roles) {
    if (role.output) continue;
    line += std::string(first ? " " : ", ") + std::string(role.name) + (role.optional ? "?" : "") +
            ":" + dtypes_text(role.dtypes);
    first = false;
  }
  line += "; attrs";
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    const auto& attr = op.attrs[i];
    line += (i ? ", " : " ") + std::string(attr.name) + ":" +
            std::string(caseio::attr_kind_name(case_kind(attr.kind))) + "=" + default_text(attr);
  }
  line += "; outputs";
  first = true;
  for (const auto& role : op.roles) {
    if (!role.output) continue;
    line += std::string(first ? " " : ", ") + std::string(role.name) + ":" +
            std::string(role.shape_rule) + ":" + std::string(role.dtype_rule);
    if (!role.written_rule.empty()) line += " if " + std::string(role.written_rule);
    first = false;
  }
  return line;
}

ordered_json op_json(const EntrySpec& op) {
  ordered_json inputs = ordered_json::array();
  ordered_json outputs = ordered_json::array();
  for (const auto& role : op.roles) {
    if (role.output) {
      ordered_json entry = {
          {"name", role.name}, {"shape", role.shape_rule}, {"dtype", role.dtype_rule}};
      // null: always written by a successful call.
      entry["written_if"] =
          role.written_rule.empty() ? ordered_json(nullptr) : ordered_json(role.written_rule);
      outputs.push_back(std::move(entry));
      continue;
    }
    ordered_json dtypes = ordered_json::array();
    for (aclDataType dtype : role.dtypes) dtypes.push_back(dtype_name(dtype));
    inputs.push_back({{"name", role.name}, {"required", !role.optional}, {"dtypes", dtypes}});
  }
  ordered_json attrs = ordered_json::array();
  for (const auto& attr : op.attrs) {
    attrs.push_back({{"name", attr.name},
                     {"kind", caseio::attr_kind_name(case_kind(attr.kind))},
                     {"required", false},
                     {"nullable", attr.nullable},
                     {"default", caseio::attr_to_json(to_case_value(attr.default_value))}});
  }
  return {{"name", op.name},     {"api", "aclnn" + std::string(op.name)},
          {"family", op.family}, {"direction", direction_name(op.direction)},
          {"inputs", inputs},    {"attrs", attrs},
          {"outputs", outputs}};
}

}  // namespace

int run_list(const ListOptions& options) {
  if (options.json) {
    ordered_json ops = ordered_json::array();
    for (const auto* op : all_ops()) ops.push_back(op_json(*op));
    std::cout << ops.dump(2) << "\n";
  } else {
    for (const auto* op : all_ops()) std::cout << op_line(*op) << "\n";
  }
  return std::cout.flush() ? kExitOk : kExitRuntimeFailure;
}

}  // namespace gradconf::cli
