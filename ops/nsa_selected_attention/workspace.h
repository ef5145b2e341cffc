// The workspace plans. Both entry points: key and value converted once into the compute type when
// the kernels cannot read them in place (every selected block is read by many queries, so one
// conversion per row beats one per read). The backward also: query and attentionOutGrad
// converted likewise (the dk/dv pass reads a query row once per slot that selected a block), Dr
// per (query token, query head) from the dq pass, and the inverted index (per batch and kv
// head: block offsets, then the selecting queries).
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_WORKSPACE_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_WORKSPACE_H_

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/checked_math.h"
#include "core/executor.h"
#include "nsa_selected_attention/clauses.h"

namespace gradconf::nsa {

/// Queries stacked into one product by the dk/dv pass (fixed: the summation order of a block's
/// gradient does not depend on the thread count).
inline constexpr int64_t kEntriesPerChunk = 16;

/// The dq pass keeps P and dS of every slot for the dk/dv pass when they take at most this many
/// bytes (env GRADCONF_NSA_CACHE_BYTES, read by phase 1, overrides; 0 recomputes them, as larger
/// problems do). The choice depends on the problem only, never on the thread count.
inline constexpr uint64_t kDefaultCacheBytes = uint64_t{1} << 30;
inline uint64_t cache_budget() {
  const char* env = std::getenv("GRADCONF_NSA_CACHE_BYTES");
  return env ? std::strtoull(env, nullptr, 10) : kDefaultCacheBytes;
}

/// Sizes here stay below 2^56 bytes (plan_workspace): rounding them up cannot overflow.
inline uint64_t workspace_aligned(uint64_t bytes) {
  return *checked_align_up(bytes, kWorkspaceAlignment);
}

/// Two tensors of `rows` rows (tokens x heads) converted into the compute type: D_a values per row
/// then D_b, contiguous, from `begin`.
struct PairCopyPlan {
  bool copied = false;
  uint64_t first_offset = 0, second_offset = 0, end = 0;
};

inline PairCopyPlan plan_pair_copy(int64_t rows, int64_t dim_a, int64_t dim_b,
                                   int64_t compute_bytes, bool copied, uint64_t begin) {
  PairCopyPlan c;
  c.first_offset = c.second_offset = c.end = begin;
  if (!copied) return c;
  const auto row_bytes = static_cast<uint64_t>(rows * compute_bytes);
  c.copied = true;
  c.second_offset = begin + workspace_aligned(row_bytes * static_cast<uint64_t>(dim_a));
  c.end = c.second_offset + workspace_aligned(row_bytes * static_cast<uint64_t>(dim_b));
  return c;
}

/// Key and value, (T2, N2, Dqk) and (T2, N2, Dv), from offset 0.
inline PairCopyPlan plan_kv_copy(const Sizes& s, int64_t compute_bytes, bool copied) {
  return plan_pair_copy(s.kv_tokens * s.kv_heads, s.dim_qk, s.dim_v, compute_bytes, copied, 0);
}

struct WorkspacePlan {
  PairCopyPlan kv;
  PairCopyPlan query_rows;  ///< query and attentionOutGrad, (T1, N1, Dqk) and (T1, N1, Dv)
  uint64_t dr_offset = 0, offsets_offset = 0, entries_offset = 0, total = 0;
  bool cached = false;  ///< P and dS kept: (T1, N2, K, G, B) each, from cache_offset
  uint64_t cache_offset = 0, cache_elements = 0;
  /// Per (batch, kv head): the first offset and the first entry (in int64 elements).
  std::vector<int64_t> pair_offsets, pair_entries;
};

/// Where slot k's row of query head g of (query t, kv head n2) starts in the P or dS cache. The G
/// rows of a slot are adjacent: the dk/dv pass reads a block's slots G rows at a time, and rows K*B
/// apart (a (T1, N2, G, K*B) layout) fall into the same few L1 sets.
inline int64_t cached_row(const Sizes& s, int64_t t, int64_t n2, int64_t k, int64_t g) {
  return (((t * s.kv_heads + n2) * s.count + k) * s.group + g) * s.block;
}

/// Sizes are bounded by the clauses (T1, T2 <= 2^21, N <= 128, K <= T2, D <= 512): no overflow,
/// and the total stays below 2^56 bytes.
inline WorkspacePlan plan_workspace(const Sizes& s, const std::vector<Batch>& batches,
                                    int64_t compute_bytes, uint64_t cache_bytes_allowed,
                                    bool kv_copied, bool query_rows_copied) {
  WorkspacePlan w;
  w.kv = plan_kv_copy(s, compute_bytes, kv_copied);
  w.query_rows = plan_pair_copy(s.q_tokens * s.q_heads, s.dim_qk, s.dim_v, compute_bytes,
                                query_rows_copied, w.kv.end);
  int64_t offsets = 0, entries = 0;
  for (const Batch& b : batches) {
    for (int64_t n2 = 0; n2 < s.kv_heads; ++n2) {
      w.pair_offsets.push_back(offsets);
      w.pair_entries.push_back(entries);
      offsets += b.kv.length() / s.block + 1;
      entries += b.q.length() * s.count;
    }
  }
  const auto aligned = workspace_aligned;
  w.dr_offset = w.query_rows.end;
  w.offsets_offset =
      w.dr_offset + aligned(static_cast<uint64_t>(s.q_tokens * s.q_heads * compute_bytes));
  w.entries_offset = w.offsets_offset + aligned(static_cast<uint64_t>(offsets) * 8);
  w.total = w.entries_offset + aligned(static_cast<uint64_t>(entries) * 8);
  w.cache_elements = static_cast<uint64_t>(s.q_tokens * s.q_heads * s.count * s.block);
  const uint64_t cache_bytes = aligned(w.cache_elements * static_cast<uint64_t>(compute_bytes));
  if (2 * cache_bytes <= cache_bytes_allowed) {
    w.cached = true;
    w.cache_offset = w.total;
    w.total += 2 * cache_bytes;
  }
  return w;
}

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_WORKSPACE_H_
