// Phase 1 of both entry points, templated on a planted Fault (api.cpp dispatches through
// with_planted_fault; the shipped library instantiates Fault::kNone only).
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_ENTRY_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_ENTRY_H_

#include "core/checked_math.h"
#include "core/executor.h"
#include "core/phase1.h"
#include "core/profile.h"
#include "core/status.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "multi_scale_deformable_attention/kernels.h"

namespace gradconf::msda {

/// cann-latest's (bs, Q, heads * C) gradOutput or output (errata E-MSDA-4) as the kernels' 4-D
/// (bs, Q, heads, C) view of the same elements; a 4-D tensor as it is.
inline aclTensor heads_by_channels(const aclTensor& t, const Sizes& s) {
  if (rank(t) == 4) return t;
  aclTensor split = t;
  const int64_t channel_stride = t.strides[2];
  split.view_dims = {t.view_dims[0], t.view_dims[1], s.heads, s.channels};
  // An empty view may have any strides (it addresses nothing): its head stride is then 0.
  const int64_t head_stride = checked_mul(s.channels, channel_stride).value_or(0);
  split.strides = {t.strides[0], t.strides[1], head_stride, channel_stride};
  return split;
}

inline Plan make_plan(const CallArgs& args) {
  Plan plan{*args.value,
            *args.location,
            *args.attn_weight,
            std::nullopt,
            aclTensor{},
            std::nullopt,
            std::nullopt,
            std::nullopt,
            read_levels(args),
            sizes_of(args),
            1};
  if (args.direction == Direction::kForward) {
    plan.output = heads_by_channels(*args.output, plan.sizes);
  } else {
    plan.grad_output = heads_by_channels(*args.grad_output, plan.sizes);
    plan.grad_value = *args.grad_value;
    plan.grad_location = *args.grad_location;
    plan.grad_attn_weight = *args.grad_attn_weight;
    plan.workers = scatter_workers(plan.sizes, num_threads());
  }
  return plan;
}

template <Fault kFault>
aclnnStatus phase1(const CallArgs& args) {
  const std::string_view unchecked =
      planted<kFault>(Fault::kFormatUnchecked) ? "MSDA-FORMAT-01" : "";
  if (auto stopped = stopped_by_clauses(clause_table(), args, unchecked)) return *stopped;
  Plan plan = make_plan(args);
  if (planted<kFault>(Fault::kFlatHeadStride)) {
    // Mutant: the 3-D view's heads step by one channel instead of C channels.
    aclTensor& flat = args.direction == Direction::kForward ? plan.output : *plan.grad_output;
    const aclTensor& given =
        args.direction == Direction::kForward ? *args.output : *args.grad_output;
    if (rank(given) == 3) flat.strides[2] = flat.strides[3];
  }
  if (args.direction == Direction::kForward) {
    return make_kernel_executor(0, plan.value.dtype, args, [plan](auto tag, std::byte*) {
      forward_kernel<typename decltype(tag)::type, kFault>(plan);
    });
  }
  // MSDA-LIMIT-05 sized this call with the same thread count and the widest compute type, so
  // the plan fits.
  Sizes sized = plan.sizes;
  if (planted<kFault>(Fault::kEmptyKeepsWorkspace))
    sized.queries = std::max<int64_t>(1, sized.queries);
  const uint64_t workspace = dispatch_floating(plan.value.dtype, [&](auto tag) {
    using Acc = compute_t<typename decltype(tag)::type>;
    return *backward_workspace(sized, plan.workers, sizeof(Acc));
  });
  return make_kernel_executor(
      workspace, plan.value.dtype, args, [plan](auto tag, std::byte* scratch) {
        backward_kernel<typename decltype(tag)::type, kFault>(plan, scratch);
      });
}

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_ENTRY_H_
