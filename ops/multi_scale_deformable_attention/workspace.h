// The backward's workspace plan (double accumulator planes for gradValue), apart from the kernel so
// that clause MSDA-LIMIT-05 can size a call before phase 1 builds an executor for it.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_WORKSPACE_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_WORKSPACE_H_

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/checked_math.h"
#include "core/executor.h"
#include "multi_scale_deformable_attention/clauses.h"

namespace gradconf::msda {

/// Accumulator planes the gradValue pass can use: one per worker, no more than (batch, head)
/// slices.
inline int scatter_workers(const Sizes& s, int threads) {
  const int64_t slices = checked_mul(s.batch, s.heads).value_or(INT64_MAX);
  return static_cast<int>(std::clamp<int64_t>(slices, 1, std::max(threads, 1)));
}

/// Bytes of one double accumulator plane (keys x C), or nullopt when not representable.
inline std::optional<uint64_t> plane_bytes(const Sizes& s) {
  const auto elements = checked_mul(s.keys, s.channels);
  const auto bytes = elements ? checked_mul(*elements, int64_t{sizeof(double)}) : std::nullopt;
  if (!bytes) return std::nullopt;
  return checked_align_up(static_cast<uint64_t>(*bytes), kWorkspaceAlignment);
}

/// The backward's workspace, or nullopt beyond kMaxWorkspaceBytes (clause MSDA-LIMIT-05).
inline std::optional<uint64_t> backward_workspace(const Sizes& s, int workers) {
  if (s.batch == 0 || s.heads == 0 || s.keys == 0 || s.channels == 0) return uint64_t{0};
  const auto plane = plane_bytes(s);
  if (!plane || *plane > kMaxWorkspaceBytes / static_cast<uint64_t>(workers)) return std::nullopt;
  return *plane * static_cast<uint64_t>(workers);
}

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_WORKSPACE_H_
