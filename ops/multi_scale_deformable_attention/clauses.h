// The MSDA-* validation table (spec multi_scale_deformable_attention.md "Validation"), shared by
// phase 1 of both entry points, the generators of just-invalid calls, the fuzzers' oracle and the
// traceability report. Each row cites its document: seed 000 and seed 001 disagree on limits and
// the seed profile enforces both (E-MSDA-3).
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_CLAUSES_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_CLAUSES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/clause.h"
#include "core/direction.h"
#include "core/tensor.h"

namespace gradconf::msda {

/// The raw arguments of one phase-1 call. Forward: gradOutput and the three gradients are null
/// and ignored; backward: output is.
struct CallArgs {
  Direction direction = Direction::kBackward;
  const aclTensor* value = nullptr;
  const aclTensor* spatial_shape = nullptr;
  const aclTensor* level_start_index = nullptr;
  const aclTensor* location = nullptr;
  const aclTensor* attn_weight = nullptr;
  const aclTensor* grad_output = nullptr;
  const aclTensor* output = nullptr;
  const aclTensor* grad_value = nullptr;
  const aclTensor* grad_location = nullptr;
  const aclTensor* grad_attn_weight = nullptr;
  uint64_t* workspace_size = nullptr;
  aclOpExecutor** executor = nullptr;
};

/// One level of the value tensor: H_l x W_l keys starting at key `start`.
struct Level {
  int64_t height = 0, width = 0, start = 0;
};

/// The sizes every shape relation is written in.
struct Sizes {
  int64_t batch = 0, keys = 0, heads = 0, channels = 0, queries = 0, levels = 0, points = 0;
};

/// Sizes of a call whose ranks MSDA-RANK-01 accepted.
Sizes sizes_of(const CallArgs& args);

/// spatialShape and levelStartIndex as read from their views (INT32 or INT64, any strides).
/// Precondition: MSDA-DTYPE-01 and MSDA-RANK-01 hold.
std::vector<Level> read_levels(const CallArgs& args);

/// The MSDA-* clauses in the order phase 1 checks them.
std::span<const Clause<CallArgs>> clause_table();

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_CLAUSES_H_
