// Planted faults of MultiScaleDeformableAttention (ops/core/planted_fault.h), each a
// `planted<kFault>` branch of the kernels or phase 1, memory-safe.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_FAULTS_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_FAULTS_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "core/planted_fault.h"

namespace gradconf::msda {

enum class Fault : uint8_t {
  kNone,
  kSwappedXY,               ///< location[..., 0] read as y and [..., 1] as x
  kMissingWidthFactor,      ///< gradLocation[..., 0] lacks the factor W
  kGuardInclusive,          ///< the sample guard accepts x == W and y == H (<= instead of <)
  kLevelStartIgnored,       ///< level starts recomputed as cumulative H*W, levelStartIndex unread
  kSwappedTapWeights,       ///< the (y0,x1) and (y1,x0) weights exchanged
  kDroppedChannelBlock,     ///< gradAttnWeight skips channels [0, 8)
  kThreadDependentScatter,  ///< gradValue summed in float partials split by thread count
  kEmptyKeepsWorkspace,     ///< the backward of a problem without queries still asks for slice
                            ///< blocks (the probe's defect: workspace 640 for Q = 0)
  kFormatUnchecked,         ///< phase 1 skips MSDA-FORMAT-01 (any aclFormat accepted)
  kAbsGradOutput,           ///< the backward reads |gradOutput| (not linear in the gradient)
  kIgnoredGradValueStride,  ///< gradValue written as if its channel stride were 1
  kWorkspaceAssumedZero,    ///< the slice block's sums are cleared after use, not before: the
                            ///< workspace is assumed to arrive zeroed
  kValueOfFirstBatch,       ///< the backward samples batch 0's value for every batch
  kFlatHeadStride,          ///< cann-latest's (bs, Q, heads * C) gradOutput/output split with the
                            ///< channel stride as the head stride (heads overlap)
  kLanePaddingUncleared,    ///< the backward's value rows are not zero-padded past C (C % 8 != 0)
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(Fault::kCount)> kFaultNames = {
    "none",
    "swapped_xy",
    "missing_width_factor",
    "guard_inclusive",
    "level_start_ignored",
    "swapped_tap_weights",
    "dropped_channel_block",
    "thread_dependent_scatter",
    "empty_keeps_workspace",
    "format_unchecked",
    "abs_grad_output",
    "ignored_grad_value_stride",
    "workspace_assumed_zero",
    "value_of_first_batch",
    "flat_head_stride",
    "lane_padding_uncleared",
};
static_assert(all_named(kFaultNames));

inline constexpr std::string_view fault_name(Fault fault) {
  return fault_name_in(kFaultNames, fault);
}

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_FAULTS_H_
