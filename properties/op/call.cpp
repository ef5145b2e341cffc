#include "op/call.h"

#include <algorithm>
#include <memory>

#include "core/dtype.h"
#include "core/layout.h"
#include "core/status.h"
#include "core/tensor.h"
#include "harness/backend.h"
#include "op/op_spec.h"

namespace gradconf::props {

int Call::index_of(std::string_view name) const {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (tensors[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int64_t> Call::dims_of(std::string_view role) const {
  const int i = index_of(role);
  return i < 0 ? std::vector<int64_t>{} : tensors[static_cast<size_t>(i)].dims;
}

int64_t Call::dim_or(std::string_view role, size_t d, int64_t fallback) const {
  const int i = index_of(role);
  if (i < 0) return fallback;
  const auto& dims = tensors[static_cast<size_t>(i)].dims;
  return d < dims.size() ? dims[d] : fallback;
}

TensorSpec& Call::tensor(std::string_view name) {
  return tensors.at(static_cast<size_t>(index_of(name)));
}
const TensorSpec& Call::tensor(std::string_view name) const {
  return tensors.at(static_cast<size_t>(index_of(name)));
}

int Call::attr_index(std::string_view name) const {
  if (entry == nullptr) return -1;
  for (size_t i = 0; i < entry->attrs.size() && i < attrs.size(); ++i) {
    if (entry->attrs[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

AttrValue& Call::attr(std::string_view name) {
  return attrs.at(static_cast<size_t>(attr_index(name)));
}
const AttrValue& Call::attr(std::string_view name) const {
  return attrs.at(static_cast<size_t>(attr_index(name)));
}

int64_t Call::attr_int(std::string_view name, int64_t fallback) const {
  const int i = attr_index(name);
  const auto* v = i < 0 ? nullptr : std::get_if<int64_t>(&attrs[static_cast<size_t>(i)]);
  return v ? *v : fallback;
}

double Call::attr_double(std::string_view name, double fallback) const {
  const int i = attr_index(name);
  const auto* v = i < 0 ? nullptr : std::get_if<double>(&attrs[static_cast<size_t>(i)]);
  return v ? *v : fallback;
}

bool Call::attr_bool(std::string_view name, bool fallback) const {
  const int i = attr_index(name);
  const auto* v = i < 0 ? nullptr : std::get_if<bool>(&attrs[static_cast<size_t>(i)]);
  return v ? *v : fallback;
}

std::string_view Call::entry_name() const { return entry ? entry->name : "?"; }

std::string_view format_name(aclFormat format) {
  switch (format) {
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_NC1HWC0:
      return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z:
      return "FRACTAL_Z";
    case ACL_FORMAT_UNDEFINED:
      return "UNDEFINED";
  }
  return "?";
}

void make_broadcast_consistent(TensorSpec& t) {
  if (t.layout.broadcast == 0 || t.values.empty()) return;
  std::vector<int64_t> index(t.dims.size(), 0);
  for (size_t i = 0; i < t.values.size(); ++i) {
    size_t source = 0;
    for (size_t d = 0; d < t.dims.size(); ++d) {
      const int64_t coordinate = (t.layout.broadcast >> d) & 1u ? 0 : index[d];
      source = source * static_cast<size_t>(t.dims[d]) + static_cast<size_t>(coordinate);
    }
    t.values[i] = t.values[source];  // source <= i: already final
    for (size_t d = t.dims.size(); d-- > 0;) {
      if (++index[d] < t.dims[d]) break;
      index[d] = 0;
    }
  }
}

std::string format_attr(const AttrValue& value) {
  struct Printer {
    std::string operator()(std::monostate) const { return "null"; }
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", v);
      return text;
    }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return '"' + v + '"'; }
    std::string operator()(const std::vector<int64_t>& v) const {
      return format_dims(v.data(), v.size());
    }
    std::string operator()(const std::vector<bool>& v) const {
      std::string text = "[";
      for (size_t i = 0; i < v.size(); ++i) text += std::string(i ? ", " : "") + (v[i] ? "1" : "0");
      return text + "]";
    }
  };
  return std::visit(Printer{}, value);
}

aclTensor* BoundArgs::tensor(std::string_view role) const {
  const int i = call_.index_of(role);
  return i < 0 || static_cast<size_t>(i) >= tensors_.size() ? nullptr
                                                            : tensors_[static_cast<size_t>(i)];
}

void* BoundArgs::handle(std::string_view name) const {
  const int i = call_.attr_index(name);
  return i < 0 || static_cast<size_t>(i) >= attr_handles_.size()
             ? nullptr
             : attr_handles_[static_cast<size_t>(i)];
}

const aclIntArray* BoundArgs::int_array(std::string_view name) const {
  return static_cast<const aclIntArray*>(handle(name));
}
const aclBoolArray* BoundArgs::bool_array(std::string_view name) const {
  return static_cast<const aclBoolArray*>(handle(name));
}
const char* BoundArgs::string_attr(std::string_view name) const {
  return static_cast<const char*>(handle(name));
}

AttrArguments::AttrArguments(const Call& call, const AclRuntime* rt)
    : rt_(rt), handles_(call.attrs.size(), nullptr), kinds_(call.attrs.size(), Kind::kNone) {
  strings_.resize(call.attrs.size());
  for (size_t i = 0; i < call.attrs.size(); ++i) {
    const AttrValue& value = call.attrs[i];
    if (const auto* ints = std::get_if<std::vector<int64_t>>(&value)) {
      const int64_t none = 0;
      handles_[i] = rt ? static_cast<void*>(rt->create_int_array(
                             ints->empty() ? &none : ints->data(), ints->size()))
                       : new aclIntArray{*ints};
      kinds_[i] = Kind::kInts;
    } else if (const auto* bools = std::get_if<std::vector<bool>>(&value)) {
      auto plain = std::make_unique<bool[]>(std::max<size_t>(bools->size(), 1));
      std::copy(bools->begin(), bools->end(), plain.get());
      handles_[i] = rt ? static_cast<void*>(rt->create_bool_array(plain.get(), bools->size()))
                       : new aclBoolArray{*bools};
      kinds_[i] = Kind::kBools;
    } else if (const auto* text = std::get_if<std::string>(&value)) {
      strings_[i] = *text;
      handles_[i] = strings_[i].data();
      kinds_[i] = Kind::kString;
    }
  }
}

AttrArguments::~AttrArguments() {
  for (size_t i = 0; i < handles_.size(); ++i) {
    if (handles_[i] == nullptr) continue;
    if (kinds_[i] == Kind::kInts) {
      if (rt_) {
        rt_->destroy_int_array(static_cast<aclIntArray*>(handles_[i]));
      } else {
        delete static_cast<aclIntArray*>(handles_[i]);
      }
    }
    if (kinds_[i] == Kind::kBools) {
      if (rt_) {
        rt_->destroy_bool_array(static_cast<aclBoolArray*>(handles_[i]));
      } else {
        delete static_cast<aclBoolArray*>(handles_[i]);
      }
    }
  }
}

Outcome run(const Call& call, const RunOptions& options, const Backend& backend) {
  ScopedBackendProfile profile(backend, call.profile);
  AttrArguments attrs(call, &backend.runtime());
  Phase1 phase1 = [&](std::span<aclTensor* const> tensors, uint64_t* size,
                      aclOpExecutor** executor) {
    return call.entry->phase1(backend, BoundArgs(call, tensors, attrs.handles(), size, executor));
  };
  return run_call(call.tensors, phase1, call.entry->phase2(backend), options, backend);
}

const std::vector<double>& output_of(const Call& call, const Outcome& outcome,
                                     std::string_view role) {
  static const std::vector<double> kEmpty;
  const int i = call.index_of(role);
  return i < 0 ? kEmpty : outcome.values[static_cast<size_t>(i)];
}

std::string summarize(const Call& call) {
  std::string line(call.entry_name());
  if (call.entry) {
    for (size_t i = 0; i < call.entry->attrs.size() && i < call.attrs.size(); ++i) {
      line += " " + std::string(call.entry->attrs[i].name) + "=" + format_attr(call.attrs[i]);
    }
  }
  if (call.null_workspace_size) line += " workspaceSize=null";
  if (call.null_executor) line += " executor=null";
  line += " profile=" + std::string(profile_name(call.profile));
  for (const TensorSpec& spec : call.tensors) {
    line += " | " + spec.name;
    if (spec.null) {
      line += " null";
      continue;
    }
    line += ' ' + format_dims(spec.dims.data(), spec.dims.size()) + ' ';
    line += is_floating(spec.dtype) || spec.dtype == ACL_INT32 || spec.dtype == ACL_INT64
                ? std::string(dtype_name(spec.dtype))
                : "dtype#" + std::to_string(static_cast<int>(spec.dtype));
    if (spec.format != ACL_FORMAT_ND) line += ' ' + std::string(format_name(spec.format));
    const std::string layout = spec.layout.to_string();
    if (!layout.empty()) line += " layout=" + layout;
  }
  return line;
}

}  // namespace gradconf::props
