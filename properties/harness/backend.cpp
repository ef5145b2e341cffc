#include "harness/backend.h"

#include <dlfcn.h>

// The extensions are optional in the linked library too (CANN has none): weak references
// resolve to null when it lacks them.
extern "C" {
#pragma weak gradconfSetNumThreads
#pragma weak gradconfGetNumThreads
#pragma weak gradconfSetSpecProfile
#pragma weak gradconfGetSpecProfile
#pragma weak gradconfSelectPlantedFault
#pragma weak gradconfBackendVersion
#pragma weak gradconfBitwiseInvariant
}

namespace gradconf::props {

const Backend& Backend::linked() {
  // Never destroyed: laws may run from static destructors of the caller.
  static const Backend* backend = [] {
    auto* b = new Backend();
    b->name_ = "linked";
    AclRuntime& rt = b->runtime_;
    rt.create_tensor = &aclCreateTensor;
    rt.destroy_tensor = &aclDestroyTensor;
    rt.create_int_array = &aclCreateIntArray;
    rt.destroy_int_array = &aclDestroyIntArray;
    rt.create_bool_array = &aclCreateBoolArray;
    rt.destroy_bool_array = &aclDestroyBoolArray;
    rt.destroy_executor = &aclDestroyAclOpExecutor;
    rt.recent_error = &aclGetRecentErrMsg;
    rt.malloc = &aclrtMalloc;
    rt.free = &aclrtFree;
    rt.memcpy = &aclrtMemcpy;
    rt.memset = &aclrtMemset;
    rt.create_stream = &aclrtCreateStream;
    rt.destroy_stream = &aclrtDestroyStream;
    rt.synchronize_stream = &aclrtSynchronizeStream;
    rt.set_num_threads = &gradconfSetNumThreads;
    rt.get_num_threads = &gradconfGetNumThreads;
    rt.set_fine_split = &gradconfSetFineSplit;
    rt.set_spec_profile = &gradconfSetSpecProfile;
    rt.get_spec_profile = &gradconfGetSpecProfile;
    rt.select_planted_fault = &gradconfSelectPlantedFault;
    rt.version = &gradconfBackendVersion;
    rt.bitwise_invariant = &gradconfBitwiseInvariant;
    return b;
  }();
  return *backend;
}

void* Backend::lookup(const char* symbol) const { return dlsym(handle_.get(), symbol); }

std::shared_ptr<const Backend> Backend::load(const std::string& path, std::string* error) {
  // RTLD_LOCAL|RTLD_DEEPBIND: the library's own runtime, not the linked one, serves its calls.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) {
    if (error) *error = dlerror();
    return nullptr;
  }
  auto backend = std::shared_ptr<Backend>(new Backend());
  backend->name_ = path;
  // Never dlclose: executors or threads of the library may outlive the last Backend copy.
  backend->handle_ = std::shared_ptr<void>(handle, [](void*) {});
  AclRuntime& rt = backend->runtime_;
  bool complete = true;
  auto bind = [&](auto& slot, const char* symbol, bool required) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(handle, symbol));
    if (required && slot == nullptr) {
      complete = false;
      if (error) *error += std::string(error->empty() ? "" : ", ") + "missing " + symbol;
    }
  };
  if (error) error->clear();
  bind(rt.create_tensor, "aclCreateTensor", true);
  bind(rt.destroy_tensor, "aclDestroyTensor", true);
  bind(rt.create_int_array, "aclCreateIntArray", true);
  bind(rt.destroy_int_array, "aclDestroyIntArray", true);
  bind(rt.create_bool_array, "aclCreateBoolArray", true);
  bind(rt.destroy_bool_array, "aclDestroyBoolArray", true);
  bind(rt.destroy_executor, "aclDestroyAclOpExecutor", true);
  bind(rt.recent_error, "aclGetRecentErrMsg", true);
  bind(rt.malloc, "aclrtMalloc", true);
  bind(rt.free, "aclrtFree", true);
  bind(rt.memcpy, "aclrtMemcpy", true);
  bind(rt.memset, "aclrtMemset", true);
  bind(rt.create_stream, "aclrtCreateStream", true);
  bind(rt.destroy_stream, "aclrtDestroyStream", true);
  bind(rt.synchronize_stream, "aclrtSynchronizeStream", true);
  bind(rt.set_num_threads, "gradconfSetNumThreads", false);
  bind(rt.get_num_threads, "gradconfGetNumThreads", false);
  bind(rt.set_fine_split, "gradconfSetFineSplit", false);
  bind(rt.set_spec_profile, "gradconfSetSpecProfile", false);
  bind(rt.get_spec_profile, "gradconfGetSpecProfile", false);
  bind(rt.select_planted_fault, "gradconfSelectPlantedFault", false);
  bind(rt.version, "gradconfBackendVersion", false);
  bind(rt.bitwise_invariant, "gradconfBitwiseInvariant", false);
  if (!complete) return nullptr;
  return backend;
}

std::shared_ptr<const Backend> Backend::without_bitwise_claim() const {
  auto copy = std::make_shared<Backend>(*this);
  copy->bitwise_claim_ = false;
  return copy;
}

std::shared_ptr<const Backend> Backend::judged_against(std::shared_ptr<const Backend> other) const {
  auto copy = std::make_shared<Backend>(*this);
  copy->against_ = std::move(other);
  return copy;
}

std::string Backend::description() const {
  if (!runtime_.version) return name_;
  return name_ + " (" + runtime_.version() + ")";
}

bool Backend::select_fault(std::string_view fault) const {
  if (!runtime_.select_planted_fault) return fault.empty();
  return runtime_.select_planted_fault(std::string(fault).c_str()) == ACLNN_SUCCESS;
}

ScopedBackendThreads::ScopedBackendThreads(const Backend& backend, int threads, bool fine_split)
    : backend_(backend) {
  if (threads > 0 && backend.runtime().set_num_threads) {
    saved_ = backend.runtime().set_num_threads(threads);
    if (backend.runtime().set_fine_split)
      saved_fine_split_ = backend.runtime().set_fine_split(fine_split ? 1 : 0);
    active_ = true;
  }
}

ScopedBackendThreads::~ScopedBackendThreads() {
  if (!active_) return;
  backend_.runtime().set_num_threads(saved_);
  if (backend_.runtime().set_fine_split) backend_.runtime().set_fine_split(saved_fine_split_);
}

ScopedBackendProfile::ScopedBackendProfile(const Backend& backend, SpecProfile profile)
    : backend_(backend) {
  const AclRuntime& rt = backend.runtime();
  if (rt.set_spec_profile && rt.get_spec_profile) {
    saved_ = rt.get_spec_profile();
    active_ = rt.set_spec_profile(std::string(profile_name(profile)).c_str()) == ACLNN_SUCCESS;
  }
}

ScopedBackendProfile::~ScopedBackendProfile() {
  if (active_) backend_.runtime().set_spec_profile(saved_.c_str());
}

}  // namespace gradconf::props
