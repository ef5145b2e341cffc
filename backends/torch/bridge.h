// What every adapter of the PyTorch backend shares: aclTensor views as ATen tensors (no copy),
// results written back into the caller's output views, and phase 1 as a porting team writes it
// on a vendor runtime: the spec's clause tables validate (gradconf_spec, the same library our
// backend uses), then an executor whose body computes with ATen at phase 2, reading the inputs
// as they are then.
#ifndef GRADCONF_BACKENDS_TORCH_BRIDGE_H_
#define GRADCONF_BACKENDS_TORCH_BRIDGE_H_

#include <ATen/ATen.h>

#include <functional>
#include <span>
#include <vector>

#include "core/clause.h"
#include "core/executor.h"
#include "core/profile.h"
#include "core/status.h"
#include "core/tensor.h"

namespace gradconf::torch_backend {

/// The caller's view as an ATen tensor over the same memory (sizes, strides, offset, dtype).
at::Tensor view_of(const aclTensor& t);

/// `view_of(t)` in the type ATen's CPU kernels compute in: FLOAT for the half types (ATen 1.13
/// has no half grid_sample on CPU; a port computes in float and rounds once on the way out),
/// else the tensor's own type. A copy, so autograd may track it.
at::Tensor computed(const aclTensor& t);

/// `computed(t)` for ATen functions that only read it: the caller's memory itself where its type
/// is already the compute type (the copy cost GridSampler2D's peer about a fifth of its time on
/// N 1, C 4, 256 x 256). Not for autograd leaves.
at::Tensor computed_for_reading(const aclTensor& t);

/// The gradients of <out, incoming> with respect to `inputs` (tensors that require grad), by
/// autograd; zeros for an input `out` does not depend on, and for all when `out` is empty.
std::vector<at::Tensor> gradients(const at::Tensor& out, const std::vector<at::Tensor>& inputs,
                                  const at::Tensor& incoming);

/// Writes `value` into the caller's output view `out`, rounding to its dtype.
void write_into(const aclTensor& out, const at::Tensor& value);

/// Phase 1: the clause table's verdict under the current spec profile; when the call is valid,
/// an executor running the body `plan(args)` returns (std::function<void()>) at phase 2, without
/// workspace. The body captures the tensors' descriptors and reads their data at phase 2. An
/// early-out verdict (a clause that succeeds without computing: GS-MASK-01) gets an executor
/// that does nothing.
template <typename Args, typename Plan>
aclnnStatus phase1(std::span<const Clause<Args>> table, const Args& args, Plan plan) {
  clear_last_error();
  const Verdict verdict = run_clauses(table, args, spec_profile());
  std::function<void()> body = [] {};
  if (verdict.proceed()) {
    body = plan(args);
  } else if (!verdict.early_out()) {
    return fail(verdict.status, verdict.message);
  }
  return make_executor(
      0, [body](std::byte*) { body(); }, args.workspace_size, args.executor);
}

}  // namespace gradconf::torch_backend

#endif  // GRADCONF_BACKENDS_TORCH_BRIDGE_H_
