#include "cli/op_registry.h"

#include <cstring>
#include <variant>

#include "harness/harness.h"
#include "registry/registry.h"

namespace gradconf::cli {

std::vector<const props::EntrySpec*> all_ops() {
  std::vector<const props::EntrySpec*> entries;
  for (const props::OpFamily* family : props::op_families()) {
    entries.insert(entries.end(), family->entries.begin(), family->entries.end());
  }
  return entries;
}

const props::EntrySpec* find_op(std::string_view name) { return props::find_entry(name); }

std::string known_ops() {
  std::string names;
  for (const auto* op : all_ops()) names += (names.empty() ? "" : ", ") + std::string(op->name);
  return names.empty() ? "none" : names;
}

std::string known_families() {
  std::string names;
  for (const props::OpFamily* family : props::op_families())
    names += (names.empty() ? "" : ", ") + std::string(family->family);
  return names.empty() ? "none" : names;
}

caseio::AttrKind case_kind(props::AttrKind kind) {
  switch (kind) {
    case props::AttrKind::kInt:
      return caseio::AttrKind::kInt;
    case props::AttrKind::kDouble:
      return caseio::AttrKind::kFloat;
    case props::AttrKind::kBool:
      return caseio::AttrKind::kBool;
    case props::AttrKind::kString:
      return caseio::AttrKind::kString;
    case props::AttrKind::kIntList:
      return caseio::AttrKind::kIntList;
    case props::AttrKind::kBoolList:
      return caseio::AttrKind::kBoolList;
  }
  return caseio::AttrKind::kInt;
}

props::AttrValue to_call_value(const caseio::AttrValue& value) {
  return std::visit([](const auto& v) -> props::AttrValue { return v; }, value);
}

caseio::AttrValue to_case_value(const props::AttrValue& value) {
  return std::visit([](const auto& v) -> caseio::AttrValue { return v; }, value);
}

props::Call bind_case(const props::EntrySpec& entry, caseio::CaseFile&& case_file,
                      SpecProfile profile, std::string_view where) {
  using caseio::CaseError;
  const std::string at(where);
  for (const auto& [name, input] : case_file.inputs) {
    const props::RoleSpec* role = entry.role(name);
    if (role == nullptr || role->output) {
      throw CaseError(at + ": unknown input '" + name + "' for " + std::string(entry.name));
    }
  }
  for (const auto& item : case_file.attrs.items()) {
    if (entry.attr(item.key()) == nullptr) {
      throw CaseError(at + ": unknown attribute '" + item.key() + "' for " +
                      std::string(entry.name));
    }
  }
  props::Call call = entry.blank_call();
  call.profile = profile;
  for (props::TensorSpec& spec : call.tensors) {
    if (spec.output) continue;
    const props::RoleSpec& role = *entry.role(spec.name);
    const auto it = case_file.inputs.find(spec.name);
    if (it == case_file.inputs.end()) {
      if (!role.optional) throw CaseError(at + ": missing required input '" + spec.name + "'");
      spec.null = true;
      continue;
    }
    caseio::HostTensor& host = it->second.tensor;
    spec.dims = host.shape;
    spec.dtype = host.dtype;
    spec.format = it->second.format;
    std::vector<uint8_t> bytes(host.data.size());
    std::memcpy(bytes.data(), host.data.data(), bytes.size());
    spec.values = props::decode(host.dtype, bytes);
  }
  for (size_t i = 0; i < entry.attrs.size(); ++i) {
    const props::AttrSpec& attr = entry.attrs[i];
    if (!case_file.attrs.contains(std::string(attr.name))) continue;  // the default stays
    const auto& json = case_file.attrs.at(std::string(attr.name));
    if (json.is_null()) {
      if (!attr.nullable) {
        throw CaseError(at + ": attribute '" + std::string(attr.name) + "' may not be null");
      }
      call.attrs[i] = std::monostate{};
      continue;
    }
    call.attrs[i] = to_call_value(caseio::parse_attr(json, case_kind(attr.kind),
                                                     "attribute '" + std::string(attr.name) + "'"));
  }
  entry.shape_outputs(call);
  return call;
}

}  // namespace gradconf::cli
