#include "core/executor.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/checked_math.h"
#include "core/fork_safe.h"
#include "core/parallel.h"
#include "core/planted_fault.h"
#include "core/status.h"

namespace gradconf {
namespace {
struct Entry {
  uint64_t workspace_size;
  ExecutorBody body;
};

class Registry {
 public:
  aclOpExecutor* add(Entry entry) {
    std::lock_guard lock(mutex_);
    next_id_ += kHandleStep;
    entries_.emplace(next_id_, std::make_unique<Entry>(std::move(entry)));
    return reinterpret_cast<aclOpExecutor*>(next_id_);
  }
  std::unique_ptr<Entry> take(aclOpExecutor* handle) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(reinterpret_cast<uintptr_t>(handle));
    if (it == entries_.end()) return nullptr;
    auto entry = std::move(it->second);
    entries_.erase(it);
    return entry;
  }
  int64_t size() {
    std::lock_guard lock(mutex_);
    return static_cast<int64_t>(entries_.size());
  }

 private:
  // Handles look like aligned addresses but are ids: they start high and are never reused.
  static constexpr uintptr_t kHandleStep = 64;
  // A fork() while another thread adds or takes an executor must not leave it locked.
  ForkSafeMutex mutex_{CoreFault::kRegistryUnguardedAtFork};
  uintptr_t next_id_ = uintptr_t{1} << 40;
  std::unordered_map<uintptr_t, std::unique_ptr<Entry>> entries_;
};

Registry& registry() {
  static Registry* instance = new Registry;  // never destroyed: executors may outlive statics
  return *instance;
}
[[maybe_unused]] const Registry& registry_at_load = registry();  // fork_safe.h: created at load

std::string null_executor(const std::string& api) {
  return "EXEC-NULL-01: " + api + ": expected executor to be non-null, but got nullptr";
}

std::string unknown_executor(const std::string& api, const aclOpExecutor* executor) {
  return "EXEC-STATE-01: " + api +
         ": expected an executor from phase 1 that was neither run nor destroyed, but got handle " +
         std::to_string(reinterpret_cast<uintptr_t>(executor)) + " (executors are single-use)";
}
}  // namespace

aclnnStatus make_executor(uint64_t scratch_bytes, ExecutorBody body, uint64_t* workspace_size,
                          aclOpExecutor** executor) {
  uint64_t size = 0;
  if (scratch_bytes > 0) {
    auto padded = checked_align_up(scratch_bytes, kWorkspaceAlignment);
    if (!padded || *padded > kMaxWorkspaceBytes) {
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "workspace of " + std::to_string(scratch_bytes) + " bytes is too large");
    }
    // The slack lets phase 2 align any workspace pointer up (run_executor).
    const bool slack = !core_fault_planted(CoreFault::kWorkspaceSlackDropped);
    size = *padded + (slack ? kWorkspaceAlignment : 0);
  }
  *executor = registry().add(Entry{size, std::move(body)});
  *workspace_size = size;
  return ACLNN_SUCCESS;
}

aclnnStatus run_executor(void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                         const char* api_name) {
  clear_last_error();
  const std::string api(api_name);
  if (executor == nullptr) {
    return fail(ACLNN_ERR_PARAM_NULLPTR, null_executor(api));
  }
  std::unique_ptr<Entry> entry = registry().take(executor);
  if (!entry) return fail(ACLNN_ERR_RUNTIME_ERROR, unknown_executor(api, executor));
  if (workspace_size < entry->workspace_size) {
    return fail(ACLNN_ERR_PARAM_INVALID,
                "EXEC-WS-01: " + api +
                    ": expected workspaceSize >= " + std::to_string(entry->workspace_size) +
                    " (what phase 1 returned), but got " + std::to_string(workspace_size));
  }
  if (entry->workspace_size > 0 && workspace == nullptr) {
    return fail(ACLNN_ERR_PARAM_INVALID,
                "EXEC-WS-01: " + api + ": expected a non-null workspace of " +
                    std::to_string(entry->workspace_size) + " bytes, but got nullptr");
  }
  std::byte* aligned = nullptr;
  if (entry->workspace_size > 0) {
    const auto address = reinterpret_cast<uintptr_t>(workspace);
    aligned = reinterpret_cast<std::byte*>((address + kWorkspaceAlignment - 1) &
                                           ~uintptr_t{kWorkspaceAlignment - 1});
  }
  try {
    const ParallelRegion passes;
    entry->body(aligned);
  } catch (const std::exception& e) {
    return fail(ACLNN_ERR_INNER, api + ": internal failure: " + e.what());
  }
  return ACLNN_SUCCESS;
}

int64_t live_executor_count() { return registry().size(); }

}  // namespace gradconf

extern "C" aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  using namespace gradconf;
  clear_last_error();
  const std::string api = "aclDestroyAclOpExecutor";
  if (executor == nullptr) {
    return fail(ACLNN_ERR_PARAM_NULLPTR, null_executor(api));
  }
  if (registry().take(executor)) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_RUNTIME_ERROR, unknown_executor(api, executor));
}
