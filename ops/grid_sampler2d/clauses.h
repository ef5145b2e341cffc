// The GS-* validation table (spec grid_sampler2d.md "Validation"), shared by phase 1 of the
// forward and the backward, the generators of just-invalid problems and the fuzzers' oracle.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_CLAUSES_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_CLAUSES_H_

#include <span>

#include "core/clause.h"
#include "core/direction.h"
#include "core/tensor.h"

namespace gradconf::grid_sampler2d {

/// The arguments of one phase-1 call, exactly as the caller passed them. Tensors that the
/// direction does not have (gradOutput, outputMask, inputGrad, gridGrad for the forward; out for
/// the backward) are null and ignored.
struct CallArgs {
  Direction direction = Direction::kBackward;
  const aclTensor* grad_output = nullptr;
  const aclTensor* input = nullptr;
  const aclTensor* grid = nullptr;
  int64_t interpolation_mode = 0;
  int64_t padding_mode = 0;
  bool align_corners = false;
  const aclBoolArray* output_mask = nullptr;
  const aclTensor* out = nullptr;
  const aclTensor* input_grad = nullptr;
  const aclTensor* grid_grad = nullptr;
  uint64_t* workspace_size = nullptr;
  aclOpExecutor** executor = nullptr;
};

/// The GS-* clauses in the order phase 1 checks them.
std::span<const Clause<CallArgs>> clause_table();

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_CLAUSES_H_
