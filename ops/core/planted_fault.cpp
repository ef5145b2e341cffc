#include "core/planted_fault.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "core/fork_safe.h"

namespace gradconf {
namespace {
constexpr std::string_view kCorePrefix = "core.";

// The core fault a full name selects (kNone for an op's fault or none).
CoreFault core_fault_of(std::string_view name) {
  if (!name.starts_with(kCorePrefix)) return CoreFault::kNone;
  name.remove_prefix(kCorePrefix.size());
  for (int i = 1; i < static_cast<int>(CoreFault::kCount); ++i) {
    if (core_fault_name(static_cast<CoreFault>(i)) == name) return static_cast<CoreFault>(i);
  }
  return CoreFault::kNone;
}

struct Selection {
  ForkSafeMutex mutex;
  std::string name;
  std::atomic<CoreFault> core{CoreFault::kNone};
  Selection() {
    if (const char* env = std::getenv("GRADCONF_PLANTED_FAULT")) name = env;
    core = core_fault_of(name);
  }
};
// Never destroyed: a call from a static destructor still finds it.
Selection& selection() {
  static auto* instance = new Selection();
  return *instance;
}
[[maybe_unused]] const Selection& selection_at_load = selection();  // fork_safe.h: created at load
}  // namespace

std::string_view core_fault_name(CoreFault fault) {
  switch (fault) {
    case CoreFault::kMessageInThreadLocalString:
      return "message_in_thread_local_string";
    case CoreFault::kRegistryUnguardedAtFork:
      return "registry_unguarded_at_fork";
    case CoreFault::kMessageSharedAcrossThreads:
      return "message_shared_across_threads";
    case CoreFault::kWorkspaceSlackDropped:
      return "workspace_slack_dropped";
    default:
      return "none";
  }
}

#if GRADCONF_PLANTED_FAULTS
bool core_fault_planted(CoreFault fault) {
  return selection().core.load(std::memory_order_relaxed) == fault;
}
#endif

std::string selected_planted_fault() {
  std::lock_guard lock(selection().mutex);
  return selection().name;
}

void select_planted_fault(std::string_view name) {
  std::lock_guard lock(selection().mutex);
  selection().name = std::string(name);
  selection().core = core_fault_of(name);
}

}  // namespace gradconf
