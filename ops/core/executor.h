// Executors (spec README §1): phase 1 packs a validated call into a single-use executor; phase 2
// checks the workspace, runs it synchronously and releases it. Handles are registry ids, never
// reused and never dereferenced, so a stale, double-run or forged handle is detected (361001)
// instead of being a use-after-free.
#ifndef GRADCONF_OPS_CORE_EXECUTOR_H_
#define GRADCONF_OPS_CORE_EXECUTOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>

#include "aclnn/acl_meta.h"
#include "core/dtype.h"

namespace gradconf {

/// Alignment of the workspace pointer a body receives; phase 1 reserves this much slack so any
/// caller pointer can be aligned up inside the caller's buffer.
inline constexpr uint64_t kWorkspaceAlignment = 64;
/// Largest workspace phase 1 hands out; ops name the clause that enforces it (GS-LIMIT-01).
inline constexpr uint64_t kMaxWorkspaceBytes = uint64_t{1} << 62;

/// Runs the computation. `workspace` is kWorkspaceAlignment-aligned, holds at least the bytes
/// requested from make_executor, and may contain garbage.
using ExecutorBody = std::function<void(std::byte* workspace)>;

/// Registers an executor that needs `scratch_bytes` of workspace and writes the handle and the
/// workspace size the caller must provide (0 when scratch_bytes is 0). Returns
/// ACLNN_ERR_PARAM_INVALID (with a message) if the size overflows.
aclnnStatus make_executor(uint64_t scratch_bytes, ExecutorBody body, uint64_t* workspace_size,
                          aclOpExecutor** executor);

/// make_executor for a kernel templated on the dtype: the body calls kernel(tag, workspace) with
/// the dispatch_floating tag of `dtype`. `kernel` holds its plan by value (it runs in phase 2).
template <typename CallArgs, typename Kernel>
aclnnStatus make_kernel_executor(uint64_t scratch_bytes, aclDataType dtype, const CallArgs& args,
                                 Kernel kernel) {
  return make_executor(
      scratch_bytes,
      [dtype, kernel](std::byte* workspace) {
        dispatch_floating(dtype, [&](auto tag) { kernel(tag, workspace); });
      },
      args.workspace_size, args.executor);
}

/// Phase 2 of every op: null executor 161001; unknown or already-run executor 361001; workspace
/// too small, or null with size > 0, 161002; else runs it. The executor is released either way.
aclnnStatus run_executor(void* workspace, uint64_t workspace_size, aclOpExecutor* executor,
                         const char* api_name);

/// Defines the extern "C" phase 2 of an entry point: it is run_executor under the entry's name,
/// which must be its parameter table's phase-2 symbol (checked at compile time).
#define GRADCONF_DEFINE_PHASE2(name, params)                                               \
  aclnnStatus name(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,       \
                   aclrtStream) {                                                          \
    static_assert((params).phase2_symbol == #name, "phase-2 name differs from the table"); \
    return gradconf::run_executor(workspace, workspaceSize, executor, #name);              \
  }

/// Number of executors created and not yet run or destroyed (leak checks in tests).
int64_t live_executor_count();

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_EXECUTOR_H_
