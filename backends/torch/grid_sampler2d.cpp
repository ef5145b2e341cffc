// GridSampler2D(Backward) on ATen's grid_sampler_2d and grid_sampler_2d_backward (with its output
// mask): the modes' codes are ATen's (0 bilinear / zeros, 1 nearest / border, 2 bicubic /
// reflection).
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "grid_sampler2d/params.h"
#include "torch/bridge.h"

namespace gs = gradconf::grid_sampler2d;
namespace tb = gradconf::torch_backend;

namespace {

// ATen 1.13's CPU kernels index out of bounds for some coordinates the spec defines (its
// backward crashes for NaN under border or reflection and for +-inf under reflection). The spec's
// Decision: a coordinate that is NaN, +-inf or beyond 2^31 - 2 after unnormalize and padding is
// out of bounds: the point samples 0 and gets no gradient. A port masks those points: their grid
// becomes 0 (any finite point would do), their output and incoming gradient 0, their gridGrad 0.
// Border clamps every non-NaN coordinate into the image, and reflection folds every finite one.
struct SafeGrid {
  at::Tensor grid;     ///< masked coordinates replaced
  at::Tensor outside;  ///< (N, Hout, Wout, 1): true for points out of bounds by the Decision
};

SafeGrid safe_grid(const at::Tensor& grid, const aclTensor& input, const gs::CallArgs& a) {
  constexpr double kLargest = 2147483646.0;  // 2^31 - 2
  // Unnormalized as the spec writes it, in the compute type: x with W (input dim 3), y with H.
  const at::Tensor size =
      at::tensor({static_cast<double>(input.view_dims[3]), static_cast<double>(input.view_dims[2])},
                 grid.options());
  const at::Tensor pixel =
      a.align_corners ? (grid + 1) / 2 * (size - 1) : ((grid + 1) * size - 1) / 2;
  at::Tensor outside = pixel.isnan();  // (+-inf) * 0 on a size-1 dim with alignCorners too
  if (a.padding_mode == 0) outside = outside | pixel.isinf() | (pixel.abs() > kLargest);
  // Bicubic pads each tap, not the coordinate: an infinite one is out of bounds whatever the
  // padding.
  if (a.padding_mode == 2 || a.interpolation_mode == 2) outside = outside | pixel.isinf();
  outside = outside.any(-1, /*keepdim=*/true);
  return {grid.masked_fill(outside, 0), outside};
}

// (N, Hout, Wout, 1) as the (N, 1, Hout, Wout) of an NCHW tensor.
at::Tensor per_pixel(const at::Tensor& outside) { return outside.permute({0, 3, 1, 2}); }

std::function<void()> forward_body(const gs::CallArgs& a) {
  return [a, input = *a.input, grid = *a.grid, out = *a.out] {
    const SafeGrid g = safe_grid(tb::computed(grid), input, a);
    const at::Tensor result = at::grid_sampler_2d(tb::computed(input), g.grid, a.interpolation_mode,
                                                  a.padding_mode, a.align_corners);
    tb::write_into(out, result.masked_fill(per_pixel(g.outside), 0));
  };
}

std::function<void()> backward_body(const gs::CallArgs& a) {
  const std::array<bool, 2> mask = {bool(a.output_mask->values[0]), bool(a.output_mask->values[1])};
  return [a, mask, grad_output = *a.grad_output, input = *a.input, grid = *a.grid,
          input_grad = *a.input_grad, grid_grad = *a.grid_grad] {
    const SafeGrid g = safe_grid(tb::computed(grid), input, a);
    const at::Tensor incoming = tb::computed(grad_output).masked_fill(per_pixel(g.outside), 0);
    const auto grads =
        at::grid_sampler_2d_backward(incoming, tb::computed(input), g.grid, a.interpolation_mode,
                                     a.padding_mode, a.align_corners, mask);
    if (mask[0]) tb::write_into(input_grad, std::get<0>(grads));
    if (mask[1]) tb::write_into(grid_grad, std::get<1>(grads).masked_fill(g.outside, 0));
  };
}

}  // namespace

extern "C" {

aclnnStatus aclnnGridSampler2DGetWorkspaceSize(const aclTensor* input, const aclTensor* grid,
                                               int64_t interpolationMode, int64_t paddingMode,
                                               bool alignCorners, aclTensor* out,
                                               uint64_t* workspaceSize, aclOpExecutor** executor) {
  return tb::phase1(gs::clause_table(),
                    gs::kForwardParams.pack(input, grid, interpolationMode, paddingMode,
                                            alignCorners, out, workspaceSize, executor),
                    forward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnGridSampler2D, gs::kForwardParams)

aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(
    const aclTensor* gradOutput, const aclTensor* input, const aclTensor* grid,
    int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
    const aclBoolArray* outputMask, aclTensor* inputGrad, aclTensor* gridGrad,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return tb::phase1(gs::clause_table(),
                    gs::kBackwardParams.pack(gradOutput, input, grid, interpolationMode,
                                             paddingMode, alignCorners, outputMask, inputGrad,
                                             gridGrad, workspaceSize, executor),
                    backward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnGridSampler2DBackward, gs::kBackwardParams)

}  // extern "C"
