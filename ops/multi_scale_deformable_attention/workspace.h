// The backward's workspace plan (per worker, a block with the value rows and double gradValue
// accumulator rows of one (batch, head) slice), apart from the kernel so
// that clause MSDA-LIMIT-05 can size a call before phase 1 builds an executor for it.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_WORKSPACE_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_WORKSPACE_H_

#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/checked_math.h"
#include "core/executor.h"
#include "core/lanes.h"
#include "multi_scale_deformable_attention/clauses.h"

namespace gradconf::msda {

/// Slice blocks the backward can use: one per worker, no more than (batch, head) slices.
inline int scatter_workers(const Sizes& s, int threads) {
  const int64_t slices = checked_mul(s.batch, s.heads).value_or(INT64_MAX);
  return static_cast<int>(std::clamp<int64_t>(slices, 1, std::max(threads, 1)));
}

/// Bytes of one key's row in a worker's slice block: the key's value row in the compute type
/// (`compute_bytes` per element), then its double gradValue accumulator row, both lane_padded
/// with zeros (core/lanes.h), so the backward's channel sums run in whole lane vectors for any C
/// (extended accepts C % 8 != 0).
/// Without overflow: C <= 256 (MSDA-LIMIT-01) is checked before this clause.
inline int64_t slice_row_bytes(const Sizes& s, int64_t compute_bytes) {
  return lane_padded(s.channels) * (compute_bytes + int64_t{sizeof(double)});
}

/// Bytes of one worker's slice block (every key's row), or nullopt when not representable.
inline std::optional<uint64_t> slice_block_bytes(const Sizes& s, int64_t compute_bytes) {
  const auto bytes = checked_mul(s.keys, slice_row_bytes(s, compute_bytes));
  if (!bytes) return std::nullopt;
  return checked_align_up(static_cast<uint64_t>(*bytes), kWorkspaceAlignment);
}

/// True when no query samples anything (Q, L or P is 0): gradValue is all zeros and the backward
/// needs no slice block (empty inputs have workspace 0, spec multi_scale_deformable_attention.md).
inline bool samples_nothing(const Sizes& s) {
  return s.queries == 0 || s.levels == 0 || s.points == 0;
}

/// The backward's workspace, or nullopt beyond kMaxWorkspaceBytes (clause MSDA-LIMIT-05).
inline std::optional<uint64_t> backward_workspace(const Sizes& s, int workers,
                                                  int64_t compute_bytes) {
  if (s.batch == 0 || s.heads == 0 || s.keys == 0 || s.channels == 0 || samples_nothing(s)) {
    return uint64_t{0};
  }
  const auto block = slice_block_bytes(s, compute_bytes);
  if (!block || *block > kMaxWorkspaceBytes / static_cast<uint64_t>(workers)) return std::nullopt;
  return *block * static_cast<uint64_t>(workers);
}

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_WORKSPACE_H_
