// NOTE: work is per (query token, kv head): the G query heads of a group share one selection, so
// their scores are one [G x K*B] product (core/gemm.h), as are the outputs. The forward and dq have
// one writer per row. dk and dv are scatters over every query that selected a block: the backward
// gathers instead, per (batch, kv head, kv block): an inverted index (built in query order) lists
// the queries that selected the block, and the block's owner recomputes their scores against it,
// in fixed chunks of queries. Each slot's dS depends only on its own score, the saved statistics
// and Dr (computed once per row by the dq pass), so no row-wide state is needed. Every element
// has one writer computing in a fixed order: bitwise identical results for any thread count.
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_KERNELS_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_KERNELS_H_

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/gemm.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "nsa_selected_attention/clauses.h"
#include "nsa_selected_attention/faults.h"
#include "nsa_selected_attention/softmax.h"
#include "nsa_selected_attention/workspace.h"

namespace gradconf::nsa {

/// A validated call as phase 1 hands it to phase 2.
struct Plan {
  aclTensor query, key, value, topk;
  /// What topk views once phase 1 copied the indices it validated (snapshot_topk).
  std::shared_ptr<const std::vector<int32_t>> topk_copy;
  std::optional<aclTensor> attention_out;  ///< forward: output; backward: optional input
  aclTensor attention_out_grad, softmax_max, softmax_sum;  ///< forward: stats are outputs
  aclTensor dq, dk, dv;
  std::vector<Batch> batches;
  Sizes sizes;
  double scale = 1;
  bool causal = false;        ///< sparseMode 2
  uint64_t cache_budget = 0;  ///< read once by phase 1 (workspace.h)
};

/// Query head g of kv head n2's group (the mutant maps n1 -> n1 % N2 instead of n1 / G).
template <Fault kFault>
int64_t query_head(const Sizes& s, int64_t n2, int64_t g) {
  if (planted<kFault>(Fault::kGroupModulo)) return g * s.kv_heads + n2;
  return n2 * s.group + g;
}

/// Whether kv position `pos` is masked for query position `s` (sparseMode 2: causal).
template <Fault kFault>
bool masked(bool causal, int64_t pos, int64_t s) {
  if (planted<kFault>(Fault::kCausalOffByOne)) return causal && pos >= s;
  return causal && pos > s;
}

/// Rows [0, live) of the kv block whose first row is at batch position `first`: the rows up to the
/// last one query position `position` sees. Causal masking hides a suffix of a block, and masked
/// rows have P = dS = 0, so the products stop at `live`: skipping a zero term leaves every sum's
/// bits as they were (a sum that starts at +0 never becomes -0, so adding +-0 changes nothing).
template <Fault kFault>
int64_t live_rows(bool causal, int64_t first, int64_t block, int64_t position) {
  int64_t live = block;
  while (live > 0 && masked<kFault>(causal, first + live - 1, position)) --live;
  if (planted<kFault>(Fault::kLiveRowsShort)) return std::max<int64_t>(0, live - 1);
  return live;
}

/// The lane of softmaxMax/softmaxSum the backward reads.
template <Fault kFault>
constexpr int64_t stat_lane() {
  return planted<kFault>(Fault::kStatsLane1) ? 1 : 0;
}

/// softmaxMax/softmaxSum element (t, n1, lane): FLOAT, or DOUBLE under `extended`.
/// Multiply-adds of one selected slot for the G query rows of a kv head: scores and weighted sum.
inline double slot_work(const Sizes& s) {
  return static_cast<double>(s.group) * static_cast<double>(s.block) *
         static_cast<double>(s.dim_qk + s.dim_v);
}
/// ... and of one (query token, kv head) row: its K slots.
inline double row_work(const Sizes& s) { return static_cast<double>(s.count) * slot_work(s); }

inline double stat_at(const aclTensor& stats, int64_t t, int64_t n1, int64_t lane) {
  const int64_t at =
      stats.offset + t * stats.strides[0] + n1 * stats.strides[1] + lane * stats.strides[2];
  if (stats.dtype == ACL_DOUBLE) return static_cast<const double*>(stats.data)[at];
  return static_cast<const float*>(stats.data)[at];
}

inline void set_stat(const aclTensor& stats, int64_t t, int64_t n1, int64_t lane, double v) {
  const int64_t at =
      stats.offset + t * stats.strides[0] + n1 * stats.strides[1] + lane * stats.strides[2];
  if (stats.dtype == ACL_DOUBLE) {
    static_cast<double*>(stats.data)[at] = v;
  } else {
    static_cast<float*>(stats.data)[at] = static_cast<float>(v);
  }
}

/// Batch of every query token.
inline std::vector<int32_t> batch_of_tokens(const Plan& plan) {
  std::vector<int32_t> batch(static_cast<size_t>(plan.sizes.q_tokens));
  for (size_t b = 0; b < plan.batches.size(); ++b) {
    for (int64_t t = plan.batches[b].q.begin; t < plan.batches[b].q.end; ++t) {
      batch[static_cast<size_t>(t)] = static_cast<int32_t>(b);
    }
  }
  return batch;
}

/// The slots of (t, n2) attended: every k, or (mutant) the first of each duplicated index.
template <Fault kFault>
void selected_slots(const aclTensor& topk, const Sizes& s, int64_t t, int64_t n2,
                    std::vector<int32_t>& blocks) {
  blocks.clear();
  for (int64_t k = 0; k < s.count; ++k) {
    const int32_t index = topk_at(topk, t, n2, k);
    if (planted<kFault>(Fault::kDuplicatesMerged)) {
      if (std::find(blocks.begin(), blocks.end(), index) != blocks.end()) continue;
    }
    blocks.push_back(index);
  }
}

// Rows are converted on the widest ISA path (on_widest_isa_rows): the kernels' own bodies are
// compiled for baseline x86-64, where a bfloat16 row took about 1 ns a value to store.

/// Rows [first, first + count) of head n of a (T, N, D) view into `out` (count x D).
template <typename T, typename Acc>
void gather_rows(const StridedView<const T, 3>& v, int64_t first, int64_t count, int64_t n,
                 Matrix<Acc>& out, int64_t out_row) {
  on_widest_isa_rows([&](auto width) GRADCONF_ALWAYS_INLINE_LAMBDA {
    for (int64_t r = 0; r < count; ++r) {
      load_row_lanes<width()>(&v(first + r, n, 0), v.strides[2], v.dims[2],
                              out.row(out_row + r).data());
    }
  });
}

/// unit_stride: a planted fault that ignores the view's last stride (it stays inside the view's
/// span: d < D).
template <typename T, typename Acc>
void scatter_row(const StridedView<T, 3>& v, int64_t token, int64_t n, const Acc* values,
                 bool unit_stride = false) {
  on_widest_isa_rows([&](auto width) GRADCONF_ALWAYS_INLINE_LAMBDA {
    store_row_lanes<width()>(&v(token, n, 0), unit_stride ? 1 : v.strides[2], v.dims[2], values,
                             false);
  });
}

/// Whether two tensors are read in the compute type as they are (else converted once into the
/// workspace, plan_pair_copy).
template <typename T>
bool copied(const aclTensor& a, const aclTensor& b) {
  return !std::is_same_v<T, compute_t<T>> || a.strides[2] != 1 || b.strides[2] != 1;
}
template <typename T>
bool kv_copied(const Plan& plan) {
  return copied<T>(plan.key, plan.value);
}
template <typename T>
bool query_rows_copied(const Plan& plan) {
  return copied<T>(plan.query, plan.attention_out_grad);
}

template <typename Acc>
using RowsView = StridedView<const Acc, 3>;

/// Rows of `tensor` converted into `copy`, contiguous (T, N, D).
template <typename T, typename Acc>
RowsView<Acc> converted(const aclTensor& tensor, Acc* copy) {
  const auto from = view_of<const T, 3>(tensor);
  const int64_t heads = from.dims[1], dim = from.dims[2];
  parallel_for(0, from.dims[0] * heads, grain_for_work(static_cast<double>(dim)),
               [&](int64_t lo, int64_t hi) {
                 on_widest_isa_rows([&](auto width) GRADCONF_ALWAYS_INLINE_LAMBDA {
                   for (int64_t row = lo; row < hi; ++row) {
                     load_row_lanes<width()>(&from(row / heads, row % heads, 0), from.strides[2],
                                             dim, copy + row * dim);
                   }
                 });
               });
  return {copy, from.dims, {heads * dim, dim, 1}};
}

/// Two tensors as the products read them: in the compute type with unit stride along D, in place
/// or converted into the workspace as `copy` plans.
template <typename T>
std::pair<RowsView<compute_t<T>>, RowsView<compute_t<T>>> compute_views(const aclTensor& first,
                                                                        const aclTensor& second,
                                                                        const PairCopyPlan& copy,
                                                                        std::byte* workspace) {
  using Acc = compute_t<T>;
  if (!copy.copied) {
    if constexpr (std::is_same_v<T, Acc>)
      return {view_of<const Acc, 3>(first), view_of<const Acc, 3>(second)};
  }
  return {converted<T>(first, reinterpret_cast<Acc*>(workspace + copy.first_offset)),
          converted<T>(second, reinterpret_cast<Acc*>(workspace + copy.second_offset))};
}

/// Score-shaped values (scores, P, dP, dS) of the G query heads of a kv head against its selected
/// slots: slot k's B columns of head g start at data + k * slot_stride + g * ld. Row-major
/// (G x K*B: ld K*B, slot_stride B), or slot-major ((K, G, B): ld B, slot_stride G*B), the
/// layout of the dk/dv pass's cache, so that the dq pass computes P and dS where that pass reads
/// them.
template <typename Acc>
struct ScoreRows {
  Acc* data;
  int64_t ld, slot_stride;

  GRADCONF_ALWAYS_INLINE Acc* at(int64_t g, int64_t k) const {
    return data + k * slot_stride + g * ld;
  }
  static ScoreRows row_major(Matrix<Acc>& m, int64_t block) { return {m.data(), m.cols(), block}; }
  static ScoreRows slot_major(Acc* data, int64_t group, int64_t block) {
    return {data, block, group * block};
  }
};

/// The first `count` values of a contiguous span as an Eigen array.
template <typename Acc>
Eigen::Map<Eigen::Array<Acc, Eigen::Dynamic, 1>> span_of(Acc* data, int64_t count) {
  return {data, count};
}

/// The selected key and value blocks of (t, n2), slot by slot, read in place, and whether each
/// row is masked.
template <typename Acc, Fault kFault>
struct Selection {
  std::vector<const Acc*> key_blocks, value_blocks;
  int64_t key_stride = 0, value_stride = 0, block = 0, dim_qk = 0, dim_v = 0;
  std::vector<uint8_t> is_masked;
  std::vector<int32_t> blocks;
  std::vector<int64_t> live;  ///< per slot: live_rows of its block

  int64_t slots() const { return static_cast<int64_t>(blocks.size()); }
  const Acc* rows_of(int64_t k, bool of_keys) const {
    return (of_keys ? key_blocks : value_blocks)[static_cast<size_t>(k)];
  }

  void gather(const Plan& plan, const RowsView<Acc>& key, const RowsView<Acc>& value,
              const Batch& batch, int64_t t, int64_t n2) {
    const Sizes& s = plan.sizes;
    selected_slots<kFault>(plan.topk, s, t, n2, blocks);
    block = s.block;
    dim_qk = s.dim_qk;
    dim_v = s.dim_v;
    is_masked.assign(static_cast<size_t>(slots() * s.block), 0);
    key_blocks.resize(blocks.size());
    value_blocks.resize(blocks.size());
    live.resize(blocks.size());
    key_stride = key.strides[0];
    value_stride = value.strides[0];
    const int64_t position = t - batch.q.begin;
    // (The mutant kKvOfFirstBatch stays inside the keys: batch 0 starts at token 0.)
    const int64_t kv_begin = planted<kFault>(Fault::kKvOfFirstBatch) ? 0 : batch.kv.begin;
    for (size_t k = 0; k < blocks.size(); ++k) {
      const int64_t first = static_cast<int64_t>(blocks[k]) * s.block;
      const auto row = static_cast<int64_t>(k) * s.block;
      key_blocks[k] = &key(kv_begin + first, n2, 0);
      value_blocks[k] = &value(kv_begin + first, n2, 0);
      for (int64_t r = 0; r < s.block; ++r) {
        is_masked[static_cast<size_t>(row + r)] = masked<kFault>(plan.causal, first + r, position);
      }
      live[k] = live_rows<kFault>(plan.causal, first, s.block, position);
    }
  }

  /// out (G x slots*B) = a rows^T over every selected row (keys or values), block by block: the
  /// same products whether the blocks are the tensors' or their converted copies, so the same
  /// bits for any layout (stride invariance).
  /// Columns past a slot's live rows (rounded up to whole lane tiles) are 0: masked either way.
  void products(const Matrix<Acc>& a, bool of_keys, ScoreRows<Acc> out) const {
    for (int64_t k = 0; k < slots(); ++k) {
      const int64_t columns = std::min(block, lane_padded(live[static_cast<size_t>(k)]));
      gemm_abt<Acc>(a.rows(), columns, a.cols(), a.data(), a.cols(), rows_of(k, of_keys),
                    of_keys ? key_stride : value_stride, out.at(0, k), out.ld, false);
      for (int64_t g = 0; g < a.rows(); ++g)
        std::fill(out.at(g, k) + columns, out.at(g, k) + block, Acc(0));
    }
  }
  void products(const Matrix<Acc>& a, bool of_keys, Matrix<Acc>& out) const {
    out.resize(a.rows(), slots() * block);
    products(a, of_keys, ScoreRows<Acc>::row_major(out, block));
  }
  /// out (G x D) = p rows over every selected live row (keys or values), in slot order.
  void weighted_sum(ScoreRows<Acc> p, int64_t rows, bool of_keys, Matrix<Acc>& out) const {
    out.setZero(rows, of_keys ? dim_qk : dim_v);
    for (int64_t k = 0; k < slots(); ++k) {
      gemm_ab<Acc>(rows, out.cols(), live[static_cast<size_t>(k)], p.at(0, k), p.ld,
                   rows_of(k, of_keys), of_keys ? key_stride : value_stride, out.data(), out.cols(),
                   true);
    }
  }
  void weighted_sum(Matrix<Acc>& p, bool of_keys, Matrix<Acc>& out) const {
    weighted_sum(ScoreRows<Acc>::row_major(p, block), p.rows(), of_keys, out);
  }
};

template <typename T, Fault kFault>
void forward_kernel(const Plan& plan, std::byte* workspace) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const auto query = view_of<const T, 3>(plan.query);
  // (Not a structured binding: clang 14, the fuzz build's compiler, cannot capture one.)
  const auto kv = compute_views<T>(plan.key, plan.value,
                                   plan_kv_copy(s, sizeof(Acc), kv_copied<T>(plan)), workspace);
  const RowsView<Acc>& key = kv.first;
  const RowsView<Acc>& value = kv.second;
  const auto out = view_of<T, 3>(*plan.attention_out);
  const std::vector<int32_t> batch_of = batch_of_tokens(plan);
  parallel_for(
      0, s.q_tokens * s.kv_heads, grain_for_work(row_work(s)), [&](int64_t lo, int64_t hi) {
        Selection<Acc, kFault> sel;
        Matrix<Acc> q(s.group, s.dim_qk), scores, o;
        std::vector<Acc> m(static_cast<size_t>(s.group)), l(static_cast<size_t>(s.group));
        for (int64_t row = lo; row < hi; ++row) {
          const int64_t t = row / s.kv_heads, n2 = row % s.kv_heads;
          sel.gather(plan, key, value, plan.batches[static_cast<size_t>(batch_of[t])], t, n2);
          for (int64_t g = 0; g < s.group; ++g)
            gather_rows(query, t, 1, query_head<kFault>(s, n2, g), q, g);
          sel.products(q, true, scores);
          scores *= static_cast<Acc>(plan.scale);
          softmax_rows(scores, sel.is_masked, m.data(), l.data());
          sel.weighted_sum(scores, false, o);
          for (int64_t g = 0; g < s.group; ++g) {
            const int64_t n1 = query_head<kFault>(s, n2, g);
            scatter_row(out, t, n1, o.row(g).data());
            for (int64_t lane = 0; lane < 8; ++lane) {
              set_stat(plan.softmax_max, t, n1, lane, m[static_cast<size_t>(g)]);
              set_stat(plan.softmax_sum, t, n1, lane, l[static_cast<size_t>(g)]);
            }
          }
        }
      });
}

template <typename T, Fault kFault>
void backward_kernel(const Plan& plan, std::byte* workspace) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const WorkspacePlan ws = plan_workspace(s, plan.batches, sizeof(Acc), plan.cache_budget,
                                          kv_copied<T>(plan), query_rows_copied<T>(plan));
  const auto kv = compute_views<T>(plan.key, plan.value, ws.kv, workspace);
  const RowsView<Acc>& key = kv.first;
  const RowsView<Acc>& value = kv.second;
  const auto query_rows =
      compute_views<T>(plan.query, plan.attention_out_grad, ws.query_rows, workspace);
  const RowsView<Acc>& query = query_rows.first;
  const RowsView<Acc>& grad_out = query_rows.second;
  const auto dq = view_of<T, 3>(plan.dq);
  const auto dk = view_of<T, 3>(plan.dk);
  const auto dv = view_of<T, 3>(plan.dv);
  const std::vector<int32_t> batch_of = batch_of_tokens(plan);
  auto* dr = reinterpret_cast<Acc*>(workspace + ws.dr_offset);  // (T1, N1)
  auto* offsets = reinterpret_cast<int64_t*>(workspace + ws.offsets_offset);
  auto* entries = reinterpret_cast<int64_t*>(workspace + ws.entries_offset);
  const Acc scale = static_cast<Acc>(plan.scale);
  const int64_t lane = stat_lane<kFault>();
  // P and dS of every slot, (T1, N2, K, G, B) (cached_row), when the plan keeps them.
  auto* p_cache = reinterpret_cast<Acc*>(workspace + ws.cache_offset);
  Acc* ds_cache = p_cache + ws.cache_elements;

  // Pass 1, per (t, n2): Dr, P from the statistics, dS, dq.
  parallel_for(
      0, s.q_tokens * s.kv_heads, grain_for_work(2 * row_work(s)), [&](int64_t lo, int64_t hi) {
        Selection<Acc, kFault> sel;
        Matrix<Acc> q(s.group, s.dim_qk), go(s.group, s.dim_v), o(s.group, s.dim_v), dq_rows;
        // P and dS, slot-major: in the cache where the plan keeps one (the planted fault that
        // adds into the cache computes them here first), else here.
        std::vector<Acc> p_here, ds_here;
        std::vector<Acc> m(static_cast<size_t>(s.group)), l(static_cast<size_t>(s.group));
        for (int64_t row = lo; row < hi; ++row) {
          const int64_t t = row / s.kv_heads, n2 = row % s.kv_heads;
          sel.gather(plan, key, value, plan.batches[static_cast<size_t>(batch_of[t])], t, n2);
          for (int64_t g = 0; g < s.group; ++g) {
            const int64_t n1 = query_head<kFault>(s, n2, g);
            gather_rows(query, t, 1, n1, q, g);
            gather_rows(grad_out, t, 1, n1, go, g);
            if (planted<kFault>(Fault::kAbsGradOutput)) go.row(g) = go.row(g).cwiseAbs();
            m[static_cast<size_t>(g)] = static_cast<Acc>(stat_at(plan.softmax_max, t, n1, lane));
            l[static_cast<size_t>(g)] = static_cast<Acc>(stat_at(plan.softmax_sum, t, n1, lane));
          }
          const int64_t span = s.group * sel.slots() * s.block;
          const bool in_cache = ws.cached && !planted<kFault>(Fault::kCacheAssumedZero);
          const int64_t cached = cached_row(s, t, n2, 0, 0);
          if (!in_cache) {
            p_here.resize(static_cast<size_t>(span));
            ds_here.resize(static_cast<size_t>(span));
          }
          const auto p = ScoreRows<Acc>::slot_major(in_cache ? p_cache + cached : p_here.data(),
                                                    s.group, s.block);
          const auto ds = ScoreRows<Acc>::slot_major(in_cache ? ds_cache + cached : ds_here.data(),
                                                     s.group, s.block);
          sel.products(q, true, p);
          span_of(p.data, span) *= scale;
          if (plan.attention_out) {
            const auto saved = view_of<const T, 3>(*plan.attention_out);
            for (int64_t g = 0; g < s.group; ++g)
              gather_rows(saved, t, 1, query_head<kFault>(s, n2, g), o, g);
          } else {  // recomputed with the forward's own softmax (spec Decision, E-NSA-2)
            Matrix<Acc> fresh(s.group, sel.slots() * s.block);
            for (int64_t g = 0; g < s.group; ++g) {
              for (int64_t k = 0; k < sel.slots(); ++k)
                std::copy_n(p.at(g, k), s.block, fresh.row(g).data() + k * s.block);
            }
            std::vector<Acc> fm(m.size()), fl(l.size());
            softmax_rows(fresh, sel.is_masked, fm.data(), fl.data());
            sel.weighted_sum(fresh, false, o);
          }
          for (int64_t g = 0; g < s.group; ++g) {
            for (int64_t k = 0; k < sel.slots(); ++k) {
              probabilities_from_stats(p.at(g, k), s.block, sel.is_masked.data() + k * s.block,
                                       m[static_cast<size_t>(g)], l[static_cast<size_t>(g)]);
            }
          }
          sel.products(go, false, ds);  // dP = dO values^T
          for (int64_t g = 0; g < s.group; ++g) {
            const Acc* other =
                planted<kFault>(Fault::kDrFromGradGrad) ? go.row(g).data() : o.row(g).data();
            const Acc d = dot_lanes(go.row(g).data(), other, s.dim_v);
            dr[t * s.q_heads + query_head<kFault>(s, n2, g)] = d;
            for (int64_t k = 0; k < sel.slots(); ++k) span_of(ds.at(g, k), s.block) -= d;
          }
          span_of(ds.data, span) *= span_of(p.data, span);  // dS = P (dP - Dr)
          if (ws.cached && !in_cache) {  // the planted fault: P added to what the cache held
            span_of(p_cache + cached, span) += span_of(p.data, span);
            std::copy_n(ds.data, span, ds_cache + cached);
          }
          sel.weighted_sum(ds, s.group, true, dq_rows);
          dq_rows *= scale;
          for (int64_t g = 0; g < s.group; ++g) {
            scatter_row(dq, t, query_head<kFault>(s, n2, g), dq_rows.row(g).data());
          }
        }
      });

  // The inverted index, per (batch, kv head): the (query, slot) pairs, t * K + k, in query
  // order, that selected each kv block.
  const auto pairs = static_cast<int64_t>(plan.batches.size()) * s.kv_heads;
  const double slots_per_pair = static_cast<double>(s.q_tokens) * static_cast<double>(s.count) /
                                static_cast<double>(std::max<size_t>(1, plan.batches.size()));
  parallel_for(0, pairs, grain_for_work(2 * slots_per_pair), [&](int64_t lo, int64_t hi) {
    std::vector<int32_t> blocks;
    for (int64_t pair = lo; pair < hi; ++pair) {
      const auto b = static_cast<size_t>(pair / s.kv_heads);
      const int64_t n2 = pair % s.kv_heads;
      const Batch& batch = plan.batches[b];
      const int64_t n_blocks = batch.kv.length() / s.block;
      int64_t* off = offsets + ws.pair_offsets[static_cast<size_t>(pair)];
      int64_t* ent = entries + ws.pair_entries[static_cast<size_t>(pair)];
      std::fill(off, off + n_blocks + 1, 0);
      for (int64_t t = batch.q.begin; t < batch.q.end; ++t) {
        selected_slots<kFault>(plan.topk, s, t, n2, blocks);
        for (int32_t block : blocks) ++off[block + 1];
      }
      for (int64_t k = 0; k < n_blocks; ++k) off[k + 1] += off[k];
      std::vector<int64_t> fill(off, off + n_blocks);
      for (int64_t t = batch.q.begin; t < batch.q.end; ++t) {
        selected_slots<kFault>(plan.topk, s, t, n2, blocks);
        for (size_t k = 0; k < blocks.size(); ++k) {
          ent[fill[static_cast<size_t>(blocks[k])]++] = t * s.count + static_cast<int64_t>(k);
        }
      }
    }
  });

  // Pass 2, per (batch, kv head, kv block): dk and dv of the block's B rows.
  std::vector<int64_t> task_start = {0};
  for (int64_t pair = 0; pair < pairs; ++pair) {
    const Batch& batch = plan.batches[static_cast<size_t>(pair / s.kv_heads)];
    task_start.push_back(task_start.back() + batch.kv.length() / s.block);
  }
  // A block is selected by T1 * K / blocks (query, slot) pairs on average, each recomputing its
  // scores and adding into dk and dv.
  const double selections_per_block = static_cast<double>(s.q_tokens) *
                                      static_cast<double>(s.count) /
                                      static_cast<double>(std::max<int64_t>(1, task_start.back()));
  parallel_for(
      0, task_start.back(), grain_for_work(2 * selections_per_block * slot_work(s)),
      [&](int64_t lo, int64_t hi) {
        Matrix<Acc> dkb(s.block, s.dim_qk), dvb(s.block, s.dim_v), sc, dp;
        // The chunk's rows of q, dO, P and dS where they are (tensors or their converted copies,
        // cache or the buffers above): the products read them in place.
        std::vector<const Acc*> q_rows, go_rows, p_rows, ds_rows;
        std::vector<uint8_t> mask;
        std::vector<Acc> m, l, d;
        for (int64_t task = lo; task < hi; ++task) {
          const auto pair =
              static_cast<int64_t>(std::upper_bound(task_start.begin(), task_start.end(), task) -
                                   task_start.begin() - 1);
          const int64_t block = task - task_start[static_cast<size_t>(pair)];
          const Batch& batch = plan.batches[static_cast<size_t>(pair / s.kv_heads)];
          const int64_t n2 = pair % s.kv_heads, first = batch.kv.begin + block * s.block;
          const Acc* key_rows = &key(first, n2, 0);
          const Acc* value_rows = &value(first, n2, 0);
          dkb.setZero();
          dvb.setZero();
          const int64_t* off = offsets + ws.pair_offsets[static_cast<size_t>(pair)];
          const int64_t* ent = entries + ws.pair_entries[static_cast<size_t>(pair)];
          for (int64_t e0 = off[block]; e0 < off[block + 1]; e0 += kEntriesPerChunk) {
            const int64_t count = std::min(kEntriesPerChunk, off[block + 1] - e0);
            const int64_t rows = count * s.group;
            for (auto* list : {&q_rows, &go_rows, &p_rows, &ds_rows})
              list->resize(static_cast<size_t>(rows));
            if (!ws.cached) {
              sc.resize(rows, s.block);
              dp.resize(rows, s.block);
              mask.assign(static_cast<size_t>(rows * s.block), 0);
              m.resize(static_cast<size_t>(rows));
              l.resize(static_cast<size_t>(rows));
              d.resize(static_cast<size_t>(rows));
            }
            int64_t live = 0;  // rows of the block any of the chunk's queries sees
            for (int64_t e = 0; e < count; ++e) {
              const int64_t t = ent[e0 + e] / s.count, slot = ent[e0 + e] % s.count;
              const int64_t position = t - batch.q.begin;
              live = std::max(live,
                              live_rows<kFault>(plan.causal, block * s.block, s.block, position));
              for (int64_t g = 0; g < s.group; ++g) {
                const int64_t n1 = query_head<kFault>(s, n2, g), r = e * s.group + g;
                const auto at = static_cast<size_t>(r);
                q_rows[at] = &query(t, n1, 0);
                go_rows[at] = &grad_out(t, n1, 0);
                if (ws.cached) {
                  const int64_t cached = cached_row(s, t, n2, slot, g);
                  p_rows[at] = p_cache + cached;
                  ds_rows[at] = ds_cache + cached;
                  continue;
                }
                p_rows[at] = sc.row(r).data();
                ds_rows[at] = dp.row(r).data();
                m[at] = static_cast<Acc>(stat_at(plan.softmax_max, t, n1, lane));
                l[at] = static_cast<Acc>(stat_at(plan.softmax_sum, t, n1, lane));
                d[at] = dr[t * s.q_heads + n1];
                for (int64_t j = 0; j < s.block; ++j) {
                  mask[static_cast<size_t>(r * s.block + j)] =
                      masked<kFault>(plan.causal, block * s.block + j, position);
                }
              }
            }
            if (live == 0) continue;
            if (!ws.cached) {  // recompute P and dS of these slots against the live rows
              const int64_t columns = std::min(s.block, lane_padded(live));
              gemm_abt_rows<Acc>(rows, columns, s.dim_qk, q_rows.data(), key_rows, key.strides[0],
                                 sc.data(), s.block, false);
              sc.leftCols(columns) *= scale;
              for (int64_t r = 0; r < rows; ++r) {
                probabilities_from_stats(sc.row(r).data(), columns, mask.data() + r * s.block,
                                         m[static_cast<size_t>(r)], l[static_cast<size_t>(r)]);
              }
              gemm_abt_rows<Acc>(rows, columns, s.dim_v, go_rows.data(), value_rows,
                                 value.strides[0], dp.data(), s.block, false);
              for (int64_t r = 0; r < rows; ++r)
                dp.row(r).head(columns).array() -= d[static_cast<size_t>(r)];
              dp.leftCols(columns).array() *= sc.leftCols(columns).array();  // dS
            }
            gemm_atb_rows<Acc>(live, s.dim_qk, rows, ds_rows.data(), q_rows.data(), dkb.data(),
                               s.dim_qk, true);
            gemm_atb_rows<Acc>(live, s.dim_v, rows, p_rows.data(), go_rows.data(), dvb.data(),
                               s.dim_v, true);
          }
          if (!planted<kFault>(Fault::kDkScaleMissing)) dkb *= scale;
          for (int64_t r = 0; r < s.block; ++r) {
            scatter_row(dk, first + r, n2, dkb.row(r).data());
            scatter_row(dv, first + r, n2, dvb.row(r).data(),
                        planted<kFault>(Fault::kIgnoredDvStride));
          }
        }
      });
}

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_KERNELS_H_
