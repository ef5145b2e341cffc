// Phase 1 of both entry points, templated on a planted Fault (api.cpp dispatches through
// with_planted_fault; the shipped library instantiates Fault::kNone only).
#ifndef GRADCONF_OPS_NSA_COMPRESS_ENTRY_H_
#define GRADCONF_OPS_NSA_COMPRESS_ENTRY_H_

#include "core/executor.h"
#include "core/phase1.h"
#include "core/profile.h"
#include "core/status.h"
#include "nsa_compress/backward_kernel.h"
#include "nsa_compress/clauses.h"
#include "nsa_compress/forward_kernel.h"
#include "nsa_compress/kernels.h"

namespace gradconf::nc {

inline Plan make_plan(const CallArgs& args) {
  Plan plan;
  plan.input = *args.input;
  plan.weight = *args.weight;
  if (args.act_seq_len) plan.act_seq_len = args.act_seq_len->values;
  plan.batches = batches_of(args);
  plan.sizes = sizes_of(args);
  if (args.direction == Direction::kForward) {
    plan.output = *args.output;
  } else {
    plan.output_grad = *args.output_grad;
    plan.input_grad = *args.input_grad;
    plan.weight_grad = *args.weight_grad;
  }
  return plan;
}

template <Fault kFault>
aclnnStatus phase1(const CallArgs& args) {
  const std::string_view unchecked = planted<kFault>(Fault::kFormatUnchecked) ? "NC-FORMAT-01" : "";
  if (auto stopped = stopped_by_clauses(clause_table(), args, unchecked)) return *stopped;
  if (planted<kFault>(Fault::kEqualWindowsRefused)) {
    // Mutant: the seed's l > d kept under cann-latest (E-NC-1 missed).
    if (args.block_size == args.stride) {
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "NC-ATTR-02: expected compressBlockSize > compressStride, but got " +
                      std::to_string(args.block_size) + " and " + std::to_string(args.stride));
    }
  }
  const Plan plan = make_plan(args);
  if (args.direction == Direction::kForward) {
    return make_kernel_executor(0, plan.input.dtype, args, [plan](auto tag, std::byte*) {
      forward_kernel<typename decltype(tag)::type, kFault>(plan);
    });
  }
  // NC-LIMIT-02 sized the workspace in double, the widest compute type.
  const uint64_t workspace = dispatch_floating(plan.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return backward_workspace(plan.sizes, sizeof(compute_t<T>),
                              converts_output_grad<T>(plan.output_grad))
        ->total();
  });
  return make_kernel_executor(
      workspace, plan.input.dtype, args, [plan](auto tag, std::byte* scratch) {
        backward_kernel<typename decltype(tag)::type, kFault>(plan, scratch);
      });
}

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_ENTRY_H_
