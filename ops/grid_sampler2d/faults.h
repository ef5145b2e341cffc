// Planted faults for mutation testing (properties/, tests/, reports/). The kernels are templates
// on a Fault; the shipped entry points instantiate Fault::kNone only, where every fault branch
// compiles away (core/planted_fault.h). Each fault is memory-safe by construction so a law can
// observe it without a sanitizer report.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_FAULTS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_FAULTS_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "core/planted_fault.h"

namespace gradconf::grid_sampler2d {

enum class Fault : uint8_t {
  kNone,
  kWrongBilinearWeight,      ///< the (y1, x1) weight uses tx*tx instead of tx*ty
  kDroppedBorderClamp,       ///< border padding neither clamps nor zeroes the multiplier
  kSwappedGridGradXY,        ///< gridGrad[...,0] and [...,1] exchanged
  kOffByOneTap,              ///< the last column is treated as out of bounds
  kIgnoredGridGradStride,    ///< gridGrad's component stride taken as 1
  kThreadDependentSum,       ///< gridGrad's channel sum split by thread count
  kWorkspaceAssumedZero,     ///< the inputGrad accumulator is not cleared before use
  kMissingClauseShape04,     ///< phase 1 skips GS-SHAPE-04 (grid.dim3 == 2)
  kNearestRoundsHalfUp,      ///< nearest uses round-half-away instead of half-to-even
  kBackwardSwapsTapWeights,  ///< inputGrad scatters the (y0,x1) weight to (y1,x0) and back
  kAbsIncomingGradient,      ///< gridGrad uses |gradOutput| (not linear in the gradient)
  kDoubleComputedInFloat,    ///< float64 problems interpolate in float
  kGridOfFirstBatchOnly,     ///< inputGrad of every batch uses batch 0's grid
  kPhase1WritesOutputs,      ///< phase 1 zero-fills gridGrad
  kIgnoresOutputMask,        ///< gridGrad is computed and written even when outputMask[1] is false
  kGridGradRoundedToFloat,   ///< float64 gridGrad passes through float (~6e-8 relative error)
  kReflectionIgnoresAlignCorners,  ///< reflection folds at pixel centres for alignCorners false too
  kWrongCubicCoefficient,          ///< bicubic uses A = -0.5 instead of PyTorch's -0.75
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(Fault::kCount)> kFaultNames = {
    "none",
    "wrong_bilinear_weight",
    "dropped_border_clamp",
    "swapped_grid_grad_xy",
    "off_by_one_tap",
    "ignored_grid_grad_stride",
    "thread_dependent_sum",
    "workspace_assumed_zero",
    "missing_clause_shape04",
    "nearest_rounds_half_up",
    "backward_swaps_tap_weights",
    "abs_incoming_gradient",
    "double_computed_in_float",
    "grid_of_first_batch_only",
    "phase1_writes_outputs",
    "ignores_output_mask",
    "grid_grad_rounded_to_float",
    "reflection_ignores_align_corners",
    "wrong_cubic_coefficient",
};
static_assert(all_named(kFaultNames));

/// The faults that change a type (the accumulator), so need their own instantiation: every other
/// fault runs in the kAnyFault one (with_planted_fault).
inline constexpr std::array kCompiledFaults = {Fault::kDoubleComputedInFloat};

inline constexpr std::string_view fault_name(Fault fault) {
  return fault_name_in(kFaultNames, fault);
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_FAULTS_H_
