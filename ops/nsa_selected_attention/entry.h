// Phase 1 of both entry points, templated on a planted Fault (api.cpp dispatches through
// with_planted_fault; the shipped library instantiates Fault::kNone only).
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_ENTRY_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_ENTRY_H_

#include "core/executor.h"
#include "core/phase1.h"
#include "core/profile.h"
#include "core/status.h"
#include "nsa_selected_attention/clauses.h"
#include "nsa_selected_attention/kernels.h"

namespace gradconf::nsa {

inline Plan make_plan(const CallArgs& args) {
  Plan plan;
  plan.query = *args.query;
  plan.key = *args.key;
  plan.value = *args.value;
  plan.topk = *args.topk;
  if (args.attention_out) plan.attention_out = *args.attention_out;
  plan.softmax_max = *args.softmax_max;
  plan.softmax_sum = *args.softmax_sum;
  if (args.direction == Direction::kBackward) {
    plan.attention_out_grad = *args.attention_out_grad;
    plan.dq = *args.dq;
    plan.dk = *args.dk;
    plan.dv = *args.dv;
  }
  plan.batches = batches_of(args);
  plan.sizes = sizes_of(args);
  plan.scale = args.scale;
  plan.causal = args.sparse_mode == 2;
  plan.cache_budget = cache_budget();
  return plan;
}

/// Phase 2 indexes key and value rows with topkIndices, which NSA-DATA-01 validated in phase 1;
/// the caller may change them before phase 2 (on a device phase 1 cannot even see them). So
/// phase 2 reads the copy phase 1 validated, contiguous, never the caller's tensor.
inline void snapshot_topk(Plan& plan) {
  const Sizes& s = plan.sizes;
  auto copy = std::make_shared<std::vector<int32_t>>();
  copy->reserve(static_cast<size_t>(s.q_tokens * s.kv_heads * s.count));
  for (int64_t t = 0; t < s.q_tokens; ++t) {
    for (int64_t h = 0; h < s.kv_heads; ++h) {
      for (int64_t k = 0; k < s.count; ++k) copy->push_back(topk_at(plan.topk, t, h, k));
    }
  }
  plan.topk.strides = DimVector{s.kv_heads * s.count, s.count, 1};
  plan.topk.offset = 0;
  plan.topk.storage_dims = DimVector{static_cast<int64_t>(copy->size())};
  plan.topk.data = copy->data();
  plan.topk_copy = std::move(copy);
}

template <Fault kFault>
aclnnStatus phase1(const CallArgs& args) {
  const std::string_view unchecked =
      planted<kFault>(Fault::kFormatUnchecked) ? "NSA-FORMAT-01" : "";
  if (auto stopped = stopped_by_clauses(clause_table(), args, unchecked)) return *stopped;
  Plan plan = make_plan(args);
  if (!planted<kFault>(Fault::kTopkReadAtRun)) snapshot_topk(plan);
  const bool forward = args.direction == Direction::kForward;
  const uint64_t workspace = dispatch_floating(plan.query.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t compute_bytes = sizeof(compute_t<T>);
    if (forward) return plan_kv_copy(plan.sizes, compute_bytes, kv_copied<T>(plan)).end;
    return plan_workspace(plan.sizes, plan.batches, compute_bytes, plan.cache_budget,
                          kv_copied<T>(plan), query_rows_copied<T>(plan))
        .total;
  });
  if (forward) {
    return make_kernel_executor(
        workspace, plan.query.dtype, args, [plan](auto tag, std::byte* scratch) {
          forward_kernel<typename decltype(tag)::type, kFault>(plan, scratch);
        });
  }
  return make_kernel_executor(
      workspace, plan.query.dtype, args, [plan](auto tag, std::byte* scratch) {
        backward_kernel<typename decltype(tag)::type, kFault>(plan, scratch);
      });
}

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_ENTRY_H_
