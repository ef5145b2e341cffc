#include "cli/op_registry.h"

#include <algorithm>
#include <stdexcept>
#include <variant>

#include "cli/ops/op_families.h"

namespace gradconf::cli {
namespace {

// One line per operator family; each family lives in cli/ops/<family>.cpp.
constexpr std::vector<OpDef> (*kOpFamilies[])() = {
    &grid_sampler2d_ops,
};

template <typename T>
const T& attr_as(const std::map<std::string, AttrValue, std::less<>>& attrs, std::string_view name,
                 std::string_view kind) {
  const auto it = attrs.find(name);
  // Reaching here means an op's bind asked for an attribute its own OpDef does not declare
  // with that kind: a programming error, not a bad case.
  if (it == attrs.end() || !std::holds_alternative<T>(it->second)) {
    throw std::logic_error("op asked for undeclared " + std::string(kind) + " attribute '" +
                           std::string(name) + "'");
  }
  return std::get<T>(it->second);
}

template <typename T>
const T* nullable_attr_as(const std::map<std::string, AttrValue, std::less<>>& attrs,
                          std::string_view name, std::string_view kind) {
  const auto it = attrs.find(name);
  if (it != attrs.end() && std::holds_alternative<std::monostate>(it->second)) return nullptr;
  return &attr_as<T>(attrs, name, kind);
}

std::string known_names(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "none" : text;
}

}  // namespace

const HostTensor* CallArgs::input(std::string_view name) const {
  const auto it = inputs.find(name);
  return it == inputs.end() ? nullptr : &it->second;
}

int64_t CallArgs::dim_or(std::string_view name, size_t index, int64_t fallback) const {
  const HostTensor* tensor = input(name);
  return tensor && index < tensor->shape.size() ? tensor->shape[index] : fallback;
}

aclDataType CallArgs::dtype_or(std::string_view name, aclDataType fallback) const {
  const HostTensor* tensor = input(name);
  return tensor ? tensor->dtype : fallback;
}

int64_t CallArgs::int_attr(std::string_view name) const {
  return attr_as<int64_t>(attrs, name, "int");
}
bool CallArgs::bool_attr(std::string_view name) const { return attr_as<bool>(attrs, name, "bool"); }
double CallArgs::float_attr(std::string_view name) const {
  return attr_as<double>(attrs, name, "float");
}
const std::vector<int64_t>* CallArgs::int_list_attr(std::string_view name) const {
  return nullable_attr_as<std::vector<int64_t>>(attrs, name, "intlist");
}
const std::vector<bool>* CallArgs::bool_list_attr(std::string_view name) const {
  return nullable_attr_as<std::vector<bool>>(attrs, name, "boollist");
}
const std::string* CallArgs::string_attr(std::string_view name) const {
  return nullable_attr_as<std::string>(attrs, name, "string");
}

aclTensor* CallTensors::input(std::string_view name) const {
  const auto it = inputs.find(name);
  return it == inputs.end() ? nullptr : it->second;
}

aclTensor* CallTensors::output(std::string_view name) const {
  const auto it = outputs.find(name);
  if (it == outputs.end()) {
    throw std::logic_error("op asked for undeclared output '" + std::string(name) + "'");
  }
  return it->second;
}

const std::vector<OpDef>& all_ops() {
  static const std::vector<OpDef> ops = [] {
    std::vector<OpDef> all;
    for (auto family : kOpFamilies) {
      for (auto& op : family()) all.push_back(std::move(op));
    }
    return all;
  }();
  return ops;
}

const OpDef* find_op(std::string_view name) {
  for (const auto& op : all_ops()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

CallArgs bind_case_args(const OpDef& op, caseio::CaseFile&& case_file, std::string_view where) {
  auto fail = [&](const std::string& problem) {
    throw caseio::CaseError(std::string(where) + ": " + problem);
  };
  CallArgs args;

  std::vector<std::string> input_names;
  for (const auto& input : op.inputs) input_names.push_back(input.name);
  for (auto& [name, input] : case_file.inputs) {
    const bool known = std::find(input_names.begin(), input_names.end(), name) != input_names.end();
    if (!known) {
      fail("unknown input '" + name + "' for " + op.name + " (inputs: " + known_names(input_names) +
           ")");
    }
    args.inputs.emplace(name, std::move(input.tensor));
  }
  for (const auto& input : op.inputs) {
    if (input.required && !args.input(input.name)) {
      fail("missing required input '" + input.name + "' for " + op.name);
    }
  }

  std::vector<std::string> attr_names;
  for (const auto& attr : op.attrs) attr_names.push_back(attr.name);
  for (const auto& [name, unused] : case_file.attrs.items()) {
    if (std::find(attr_names.begin(), attr_names.end(), name) == attr_names.end()) {
      fail("unknown attribute '" + name + "' for " + op.name +
           " (attributes: " + known_names(attr_names) + ")");
    }
  }
  for (const auto& attr : op.attrs) {
    const auto value = case_file.attrs.find(attr.name);
    if (value != case_file.attrs.end()) {
      args.attrs.emplace(
          attr.name,
          caseio::parse_attr(*value, attr.kind, std::string(where) + ": attrs." + attr.name));
    } else if (attr.default_value) {
      args.attrs.emplace(attr.name, *attr.default_value);
    } else {
      fail("missing required attribute '" + attr.name + "' for " + op.name);
    }
  }
  return args;
}

}  // namespace gradconf::cli
