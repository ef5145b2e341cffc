#include "grid_sampler2d/faults.h"

namespace gradconf::grid_sampler2d {

std::string_view fault_name(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "none";
    case Fault::kWrongBilinearWeight:
      return "wrong_bilinear_weight";
    case Fault::kDroppedBorderClamp:
      return "dropped_border_clamp";
    case Fault::kSwappedGridGradXY:
      return "swapped_grid_grad_xy";
    case Fault::kOffByOneTap:
      return "off_by_one_tap";
    case Fault::kIgnoredGridGradStride:
      return "ignored_grid_grad_stride";
    case Fault::kThreadDependentSum:
      return "thread_dependent_sum";
    case Fault::kWorkspaceAssumedZero:
      return "workspace_assumed_zero";
    case Fault::kMissingClauseShape04:
      return "missing_clause_shape04";
    case Fault::kNearestRoundsHalfUp:
      return "nearest_rounds_half_up";
    case Fault::kBackwardSwapsTapWeights:
      return "backward_swaps_tap_weights";
    case Fault::kAbsIncomingGradient:
      return "abs_incoming_gradient";
    case Fault::kDoubleComputedInFloat:
      return "double_computed_in_float";
    case Fault::kGridOfFirstBatchOnly:
      return "grid_of_first_batch_only";
    case Fault::kPhase1WritesOutputs:
      return "phase1_writes_outputs";
    case Fault::kIgnoresOutputMask:
      return "ignores_output_mask";
    case Fault::kGridGradRoundedToFloat:
      return "grid_grad_rounded_to_float";
    case Fault::kCount:
      break;
  }
  return "unknown";
}

}  // namespace gradconf::grid_sampler2d
