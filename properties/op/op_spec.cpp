#include "op/op_spec.h"

namespace gradconf::props {

std::string_view attr_kind_name(AttrKind kind) {
  switch (kind) {
    case AttrKind::kInt:
      return "int";
    case AttrKind::kDouble:
      return "double";
    case AttrKind::kBool:
      return "bool";
    case AttrKind::kString:
      return "string";
    case AttrKind::kIntList:
      return "int list";
    case AttrKind::kBoolList:
      return "bool list";
  }
  return "?";
}

const RoleSpec* EntrySpec::role(std::string_view role_name) const {
  for (const RoleSpec& r : roles) {
    if (r.name == role_name) return &r;
  }
  return nullptr;
}

const AttrSpec* EntrySpec::attr(std::string_view attr_name) const {
  for (const AttrSpec& a : attrs) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

Call EntrySpec::blank_call() const {
  Call call;
  call.entry = this;
  call.tensors.reserve(roles.size());
  call.attrs.reserve(attrs.size());
  for (const RoleSpec& r : roles) {
    TensorSpec spec;
    spec.name = std::string(r.name);
    spec.output = r.output;
    call.tensors.push_back(std::move(spec));
  }
  for (const AttrSpec& a : attrs) call.attrs.push_back(a.default_value);
  return call;
}

void EntrySpec::shape_outputs(Call& call) const {
  for (TensorSpec& spec : call.tensors) {
    if (!spec.output || output_shape == nullptr) continue;
    OutputShape shape = output_shape(call, spec.name);
    spec.dims = std::move(shape.dims);
    spec.dtype = shape.dtype;
  }
}

}  // namespace gradconf::props
