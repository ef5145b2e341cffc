// The first step of every entry point's phase 1, before any planning: validation by the op's
// clause table (core/clause.h) under the active spec profile.
#ifndef GRADCONF_OPS_CORE_PHASE1_H_
#define GRADCONF_OPS_CORE_PHASE1_H_

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "core/clause.h"
#include "core/executor.h"
#include "core/profile.h"
#include "core/status.h"

namespace gradconf {

/// Clears the thread's last error and runs `table` (less clause `skipped`: how a planted fault
/// drops one). Returns what phase 1 returns when the table stops the call: the violated clause's
/// status with its message recorded, or, for an early-out clause, success with an executor that
/// computes nothing. nullopt: the call is valid and phase 1 goes on to plan it.
template <typename Args>
std::optional<aclnnStatus> stopped_by_clauses(std::span<const Clause<Args>> table, const Args& args,
                                              std::string_view skipped = {}) {
  clear_last_error();
  const Verdict verdict = run_clauses_without(table, args, spec_profile(), skipped);
  if (verdict.proceed()) return std::nullopt;
  if (verdict.early_out()) {
    return make_executor(
        0, [](std::byte*) {}, args.workspace_size, args.executor);
  }
  return fail(verdict.status, verdict.message);
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_PHASE1_H_
