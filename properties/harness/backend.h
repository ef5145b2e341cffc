// An aclnn implementation under test: the runtime functions the harness needs, the entry points
// of every op (resolved by name), and the optional gradconf extensions. The linked backend is the
// library the suite was built against (ours, or -DGRADCONF_BACKEND=...); load() opens another one
// at run time (the planted-fault backend, or a vendor library), so one binary can test several.
#ifndef GRADCONF_PROPERTIES_HARNESS_BACKEND_H_
#define GRADCONF_PROPERTIES_HARNESS_BACKEND_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "core/profile.h"
#include "gradconf/aclnn_ext.h"

namespace gradconf::props {

/// The ACL runtime and tensor API, as one implementation provides it.
struct AclRuntime {
  decltype(&::aclCreateTensor) create_tensor = nullptr;
  decltype(&::aclDestroyTensor) destroy_tensor = nullptr;
  decltype(&::aclCreateIntArray) create_int_array = nullptr;
  decltype(&::aclDestroyIntArray) destroy_int_array = nullptr;
  decltype(&::aclCreateBoolArray) create_bool_array = nullptr;
  decltype(&::aclDestroyBoolArray) destroy_bool_array = nullptr;
  decltype(&::aclDestroyAclOpExecutor) destroy_executor = nullptr;
  decltype(&::aclGetRecentErrMsg) recent_error = nullptr;
  decltype(&::aclrtMalloc) malloc = nullptr;
  decltype(&::aclrtFree) free = nullptr;
  decltype(&::aclrtMemcpy) memcpy = nullptr;
  decltype(&::aclrtMemset) memset = nullptr;
  decltype(&::aclrtCreateStream) create_stream = nullptr;
  decltype(&::aclrtDestroyStream) destroy_stream = nullptr;
  decltype(&::aclrtSynchronizeStream) synchronize_stream = nullptr;
  // gradconf/aclnn_ext.h: null when the implementation does not offer them.
  decltype(&::gradconfSetNumThreads) set_num_threads = nullptr;
  decltype(&::gradconfGetNumThreads) get_num_threads = nullptr;
  decltype(&::gradconfSetFineSplit) set_fine_split = nullptr;
  decltype(&::gradconfSetSpecProfile) set_spec_profile = nullptr;
  decltype(&::gradconfGetSpecProfile) get_spec_profile = nullptr;
  decltype(&::gradconfSelectPlantedFault) select_planted_fault = nullptr;
  decltype(&::gradconfBackendVersion) version = nullptr;
  decltype(&::gradconfBitwiseInvariant) bitwise_invariant = nullptr;
};

class Backend {
 public:
  /// The implementation linked into this binary.
  static const Backend& linked();
  /// Opens a shared library that implements the C API; nullptr (and `error`) when it cannot be
  /// opened or lacks part of the runtime.
  static std::shared_ptr<const Backend> load(const std::string& path, std::string* error = nullptr);

  const std::string& name() const { return name_; }
  /// The name ("linked" or the library's path) and, when the library says, what it is.
  std::string description() const;
  const AclRuntime& runtime() const { return runtime_; }

  /// The entry point `symbol`: `linked_address` for the linked backend, else looked up by name
  /// (nullptr when the library does not have it).
  template <typename Fn>
  Fn entry(const char* symbol, Fn linked_address) const {
    return handle_ ? reinterpret_cast<Fn>(lookup(symbol)) : linked_address;
  }

  /// The backend promises bitwise the same results for any layout and batch split.
  bool bitwise_invariant() const {
    return bitwise_claim_ && runtime_.bitwise_invariant && runtime_.bitwise_invariant() != 0;
  }
  /// The same backend judged without its bitwise promise (tests of the bounded comparisons).
  std::shared_ptr<const Backend> without_bitwise_claim() const;
  /// The same backend, with `other` as the implementation the differential law (matches_backend)
  /// compares it with on every case (`gradconf check --against`).
  std::shared_ptr<const Backend> judged_against(std::shared_ptr<const Backend> other) const;
  /// The implementation the differential law compares this one with; null when there is none.
  const Backend* against() const { return against_.get(); }
  bool can_set_threads() const { return runtime_.set_num_threads != nullptr; }
  bool can_select_faults() const { return runtime_.select_planted_fault != nullptr; }
  /// Selects a planted fault ("<family>.<fault>", "" for none); false when unsupported.
  bool select_fault(std::string_view fault) const;

 private:
  void* lookup(const char* symbol) const;

  std::string name_;
  std::shared_ptr<void> handle_;  ///< dlopen handle; null for the linked backend
  AclRuntime runtime_;
  bool bitwise_claim_ = true;
  std::shared_ptr<const Backend> against_;
};

/// A shared pointer to `backend` that owns nothing: for backends that outlive every user (the
/// linked one, the tests' planted library), where an API takes shared ownership.
inline std::shared_ptr<const Backend> unowned(const Backend& backend) {
  return std::shared_ptr<const Backend>(std::shared_ptr<void>(), &backend);
}

/// Sets the backend's kernel thread count (when it offers it) for the guard's lifetime, by default
/// with fine splitting: a law that asks for N threads wants them used, on small problems too.
class ScopedBackendThreads {
 public:
  ScopedBackendThreads(const Backend& backend, int threads, bool fine_split = true);
  ~ScopedBackendThreads();
  ScopedBackendThreads(const ScopedBackendThreads&) = delete;
  ScopedBackendThreads& operator=(const ScopedBackendThreads&) = delete;

 private:
  const Backend& backend_;
  int saved_ = 0;
  int saved_fine_split_ = 0;
  bool active_ = false;
};

/// Sets the backend's spec profile (when it offers it) for the guard's lifetime.
class ScopedBackendProfile {
 public:
  ScopedBackendProfile(const Backend& backend, SpecProfile profile);
  ~ScopedBackendProfile();
  ScopedBackendProfile(const ScopedBackendProfile&) = delete;
  ScopedBackendProfile& operator=(const ScopedBackendProfile&) = delete;

 private:
  const Backend& backend_;
  std::string saved_;
  bool active_ = false;
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_HARNESS_BACKEND_H_
