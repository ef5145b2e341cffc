// The op model's currency at the C boundary: one call of one entry point, role-keyed. Tensors and
// attributes are named by their C parameter names, in C-prototype order, so generic code (the
// harness, breakers, fuzzers, the CLI) can edit any argument of any op, and one binding per entry
// turns the call into the C function call.
#ifndef GRADCONF_PROPERTIES_OP_CALL_H_
#define GRADCONF_PROPERTIES_OP_CALL_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/profile.h"
#include "harness/harness.h"

namespace gradconf::props {

struct EntrySpec;

/// An attribute's value; std::monostate is a null pointer (nullable aclIntArray*, char*, ...).
using AttrValue = std::variant<std::monostate, int64_t, double, bool, std::string,
                               std::vector<int64_t>, std::vector<bool>>;

struct Call {
  const EntrySpec* entry = nullptr;
  std::vector<TensorSpec> tensors;  ///< the entry's tensor roles, C-prototype order
  std::vector<AttrValue> attrs;     ///< the entry's attributes, C-prototype order
  bool null_workspace_size = false;
  bool null_executor = false;
  SpecProfile profile = SpecProfile::kSeed;

  /// Index of the tensor role `name`, or -1.
  int index_of(std::string_view name) const;
  TensorSpec& tensor(std::string_view name);
  const TensorSpec& tensor(std::string_view name) const;
  /// The dims of tensor `role` (empty when the call has no such role).
  std::vector<int64_t> dims_of(std::string_view role) const;
  /// Dim `d` of tensor `role`; `fallback` when the call has no such role or dim.
  int64_t dim_or(std::string_view role, size_t d, int64_t fallback = 1) const;
  /// Index of the attribute `name`, or -1.
  int attr_index(std::string_view name) const;
  AttrValue& attr(std::string_view name);
  const AttrValue& attr(std::string_view name) const;
  /// Typed reads; a null or differently typed value reads as the fallback.
  int64_t attr_int(std::string_view name, int64_t fallback = 0) const;
  double attr_double(std::string_view name, double fallback = 0) const;
  bool attr_bool(std::string_view name, bool fallback = false) const;
  /// The entry's name ("GridSampler2DBackward").
  std::string_view entry_name() const;
};

/// "ND", "NCHW", ... or "format#<n>".
std::string_view format_name(aclFormat format);

/// Makes an input's logical values constant along its layout's broadcast (zero-stride) dims, as
/// the storage the harness builds can only hold them: each takes the value at coordinate 0.
void make_broadcast_consistent(TensorSpec& tensor);

/// "[1, 0]", "null", "7", "1.5", "\"TND\"": how summaries and repro text print an attribute.
std::string format_attr(const AttrValue& value);

/// What the C arguments of a call are once created: tensors (nullptr where null), arrays and
/// strings made from the attributes, and the out-pointers. A binding reads them by name.
class BoundArgs {
 public:
  BoundArgs(const Call& call, std::span<aclTensor* const> tensors,
            std::span<void* const> attr_handles, uint64_t* workspace_size, aclOpExecutor** executor)
      : call_(call),
        tensors_(tensors),
        attr_handles_(attr_handles),
        workspace_size_(workspace_size),
        executor_(executor) {}

  aclTensor* tensor(std::string_view role) const;
  int64_t int_attr(std::string_view name) const { return call_.attr_int(name); }
  double double_attr(std::string_view name) const { return call_.attr_double(name); }
  bool bool_attr(std::string_view name) const { return call_.attr_bool(name); }
  const aclIntArray* int_array(std::string_view name) const;
  const aclBoolArray* bool_array(std::string_view name) const;
  /// A char* attribute (nullptr when null).
  const char* string_attr(std::string_view name) const;
  uint64_t* workspace_size() const { return call_.null_workspace_size ? nullptr : workspace_size_; }
  aclOpExecutor** executor() const { return call_.null_executor ? nullptr : executor_; }
  const Call& call() const { return call_; }

 private:
  void* handle(std::string_view name) const;

  const Call& call_;
  std::span<aclTensor* const> tensors_;
  std::span<void* const> attr_handles_;
  uint64_t* workspace_size_;
  aclOpExecutor** executor_;
};

class Backend;
struct AclRuntime;

/// The array and string arguments of a call's attributes (aclIntArray*, aclBoolArray*, char*),
/// created with a backend's runtime, or, with no runtime, as our own model objects (what the
/// clause-table oracle reads). Released with the same runtime.
class AttrArguments {
 public:
  AttrArguments(const Call& call, const AclRuntime* rt);
  ~AttrArguments();
  AttrArguments(const AttrArguments&) = delete;
  AttrArguments& operator=(const AttrArguments&) = delete;
  std::span<void* const> handles() const { return handles_; }

 private:
  enum class Kind { kNone, kInts, kBools, kString };
  const AclRuntime* rt_;
  std::vector<void*> handles_;
  std::vector<Kind> kinds_;
  std::vector<std::string> strings_;
};

/// Runs the call's two phases on `backend` through the harness (canaries, guards, read-back),
/// under the call's spec profile.
Outcome run(const Call& call, const RunOptions& options, const Backend& backend);

/// Output values of `role` from an outcome of `call` (empty if the role is not in the call).
const std::vector<double>& output_of(const Call& call, const Outcome& outcome,
                                     std::string_view role);

/// One line describing the raw arguments (entry, attrs, and per tensor: dims, dtype, format,
/// layout, null), for counterexamples and fuzz reports.
std::string summarize(const Call& call);

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_OP_CALL_H_
