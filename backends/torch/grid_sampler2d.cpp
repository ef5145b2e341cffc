// GridSampler2D(Backward) on ATen's grid_sampler_2d and grid_sampler_2d_backward (with its output
// mask): the modes' codes are ATen's (0 bilinear / zeros, 1 nearest / border, 2 bicubic /
// reflection).
#include <cmath>

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
// Where no point is out of bounds (the usual case) nothing is masked: the masks' expressions and
// copies of the grid, gradOutput and gridGrad made this peer far slower than ATen alone (N 1, C 4,
// 256 x 256 backward at 1 thread, same inputs: bilinear 5.6-6.2 ms, now 2.4-2.6, ATen alone
// 2.5-2.6; nearest 3.75-3.96 ms, now 0.51-0.53, ATen alone 0.37-0.44).
struct SafeGrid {
  at::Tensor grid;     ///< masked coordinates replaced
  at::Tensor outside;  ///< (N, Hout, Wout, 1): true for points out of bounds by the Decision;
                       ///< undefined when there is none
};

constexpr double kLargest = 2147483646.0;  // 2^31 - 2

// Whether every unnormalized coordinate is finite and well inside kLargest (half of it: rounding
// cannot matter), in one pass over the grid: then no point is out of bounds in any mode, and the
// tensor expressions of safe_grid (about ten passes, each with its temporary) are skipped.
template <typename Scalar>
bool coordinates_tame(const at::Tensor& grid, const aclTensor& input, bool align_corners) {
  const at::Tensor dense = grid.contiguous();
  const Scalar* values = dense.data_ptr<Scalar>();
  const auto width = static_cast<Scalar>(input.view_dims[3]);
  const auto height = static_cast<Scalar>(input.view_dims[2]);
  const auto limit = static_cast<Scalar>(kLargest / 2);
  const auto pixel = [&](Scalar g, Scalar size) {
    return align_corners ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
  };
  bool tame = true;
  for (int64_t i = 0; i + 1 < dense.numel(); i += 2) {  // false for NaN and +-inf
    tame &= (std::abs(pixel(values[i], width)) <= limit) &
            (std::abs(pixel(values[i + 1], height)) <= limit);
  }
  return tame;
}

SafeGrid safe_grid(const at::Tensor& grid, const aclTensor& input, const gs::CallArgs& a) {
  const bool tame = grid.scalar_type() == at::kDouble
                        ? coordinates_tame<double>(grid, input, a.align_corners)
                        : coordinates_tame<float>(grid, input, a.align_corners);
  if (tame) return {grid, at::Tensor()};
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
  if (!outside.any().item<bool>()) return {grid, at::Tensor()};
  return {grid.masked_fill(outside, 0), outside};
}

// `t` with the out-of-bounds points' values zeroed (`outside` shaped as t needs it).
at::Tensor zero_outside(const at::Tensor& t, const at::Tensor& outside) {
  return outside.defined() ? t.masked_fill(outside, 0) : t;
}

// (N, Hout, Wout, 1) as the (N, 1, Hout, Wout) of an NCHW tensor.
at::Tensor per_pixel(const at::Tensor& outside) {
  return outside.defined() ? outside.permute({0, 3, 1, 2}) : outside;
}

std::function<void()> forward_body(const gs::CallArgs& a) {
  return [a, input = *a.input, grid = *a.grid, out = *a.out] {
    const SafeGrid g = safe_grid(tb::computed_for_reading(grid), input, a);
    const at::Tensor result =
        at::grid_sampler_2d(tb::computed_for_reading(input), g.grid, a.interpolation_mode,
                            a.padding_mode, a.align_corners);
    tb::write_into(out, zero_outside(result, per_pixel(g.outside)));
  };
}

std::function<void()> backward_body(const gs::CallArgs& a) {
  const std::array<bool, 2> mask = {bool(a.output_mask->values[0]), bool(a.output_mask->values[1])};
  return [a, mask, grad_output = *a.grad_output, input = *a.input, grid = *a.grid,
          input_grad = *a.input_grad, grid_grad = *a.grid_grad] {
    const SafeGrid g = safe_grid(tb::computed_for_reading(grid), input, a);
    const at::Tensor incoming =
        zero_outside(tb::computed_for_reading(grad_output), per_pixel(g.outside));
    const auto grads =
        at::grid_sampler_2d_backward(incoming, tb::computed_for_reading(input), g.grid,
                                     a.interpolation_mode, a.padding_mode, a.align_corners, mask);
    if (mask[0]) tb::write_into(input_grad, std::get<0>(grads));
    if (mask[1]) tb::write_into(grid_grad, zero_outside(std::get<1>(grads), g.outside));
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
