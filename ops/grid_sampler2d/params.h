// The C parameter lists of GridSampler2D and GridSampler2DBackward (ops/core/params.h): the one
// description the extern "C" bodies, the public headers' check and the suite's bindings derive
// from.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_PARAMS_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_PARAMS_H_

#include "core/params.h"
#include "grid_sampler2d/clauses.h"

namespace gradconf::grid_sampler2d {

inline constexpr auto kForwardParams = entry_params(
    Direction::kForward, "aclnnGridSampler2DGetWorkspaceSize", "aclnnGridSampler2D",
    input("input", &CallArgs::input), input("grid", &CallArgs::grid),
    int_attr("interpolationMode", &CallArgs::interpolation_mode),
    int_attr("paddingMode", &CallArgs::padding_mode),
    bool_attr("alignCorners", &CallArgs::align_corners), output("out", &CallArgs::out));

inline constexpr auto kBackwardParams = entry_params(
    Direction::kBackward, "aclnnGridSampler2DBackwardGetWorkspaceSize",
    "aclnnGridSampler2DBackward", input("gradOutput", &CallArgs::grad_output),
    input("input", &CallArgs::input), input("grid", &CallArgs::grid),
    int_attr("interpolationMode", &CallArgs::interpolation_mode),
    int_attr("paddingMode", &CallArgs::padding_mode),
    bool_attr("alignCorners", &CallArgs::align_corners),
    bool_list("outputMask", &CallArgs::output_mask), output("inputGrad", &CallArgs::input_grad),
    output("gridGrad", &CallArgs::grid_grad));

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_PARAMS_H_
