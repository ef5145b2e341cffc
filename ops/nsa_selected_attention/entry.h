// Phase 1 of both entry points, templated on a planted Fault (api.cpp dispatches through
// with_planted_fault; the shipped library instantiates Fault::kNone only).
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_ENTRY_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_ENTRY_H_

#include "core/executor.h"
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

template <Fault kFault>
aclnnStatus phase1(const CallArgs& args) {
  clear_last_error();
  const Verdict verdict = run_clauses(clause_table(), args, spec_profile());
  if (!verdict.proceed()) return fail(verdict.status, verdict.message);
  const Plan plan = make_plan(args);
  if (args.direction == Direction::kForward) {
    return make_executor(
        0,
        [plan](std::byte*) {
          dispatch_floating(plan.query.dtype, [&](auto tag) {
            forward_kernel<typename decltype(tag)::type, kFault>(plan);
          });
        },
        args.workspace_size, args.executor);
  }
  const uint64_t workspace = dispatch_floating(plan.query.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return plan_workspace(plan.sizes, plan.batches, sizeof(compute_t<T>), plan.cache_budget).total;
  });
  return make_executor(
      workspace,
      [plan](std::byte* scratch) {
        dispatch_floating(plan.query.dtype, [&](auto tag) {
          backward_kernel<typename decltype(tag)::type, kFault>(plan, scratch);
        });
      },
      args.workspace_size, args.executor);
}

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_ENTRY_H_
