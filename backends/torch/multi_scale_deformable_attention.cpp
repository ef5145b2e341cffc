// MultiScaleDeformableAttention(Grad) in its pure-PyTorch form (mmcv's
// multi_scale_deformable_attn_pytorch): per level, grid_sample of that level's keys at the
// locations (bilinear, zero padding, align_corners false: pixel = location * size - 0.5), then
// the weighted sum over levels and points; the backward is autograd's. Unlike mmcv's form, each
// level's keys are taken from levelStartIndex (the spec allows gaps and extra keys), not from a
// split of value by the level sizes.
#include <c10/core/GradMode.h>

#include "aclnnop/aclnn_multi_scale_deformable_attention.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "multi_scale_deformable_attention/params.h"
#include "torch/bridge.h"

namespace msda = gradconf::msda;
namespace tb = gradconf::torch_backend;

namespace {

// The level table is copied in phase 1, which validated it (MSDA-DATA-01): phase 2 must not
// read the caller's index tensors, which may have changed since (the spec's robustness rule).
struct Inputs {
  aclTensor value, location, attn_weight;
  at::Tensor shapes, starts;  ///< (L, 2) and (L), int64
};

Inputs inputs_of(const msda::CallArgs& a) {
  return {*a.value, *a.location, *a.attn_weight,
          tb::view_of(*a.spatial_shape).to(at::kLong, false, /*copy=*/true),
          tb::view_of(*a.level_start_index).to(at::kLong, false, /*copy=*/true)};
}

// (bs, Q, heads, C) from value (bs, keys, heads, C), location (bs, Q, heads, L, P, 2) and
// attnWeight (bs, Q, heads, L, P).
at::Tensor attend(const at::Tensor& value, const at::Tensor& location, const at::Tensor& weight,
                  const Inputs& in) {
  const int64_t bs = value.size(0), heads = value.size(2), channels = value.size(3);
  const int64_t queries = location.size(1), points = location.size(4);
  std::vector<at::Tensor> sampled;
  for (int64_t l = 0; l < in.shapes.size(0); ++l) {
    const int64_t h = in.shapes[l][0].item<int64_t>(), w = in.shapes[l][1].item<int64_t>();
    const int64_t start = in.starts[l].item<int64_t>();
    // (bs, HW, heads, C) -> (bs * heads, C, H, W)
    const at::Tensor level = value.slice(1, start, start + h * w)
                                 .permute({0, 2, 3, 1})
                                 .reshape({bs * heads, channels, h, w});
    // The spec takes a sample only where -1 < x < W and -1 < y < H, both finite (x = loc W -
    // 0.5); grid_sample would turn NaN into NaN. Samples not taken move far outside, where
    // grid_sample reads nothing and gives no gradient.
    const at::Tensor loc = location.select(3, l);  // (bs, Q, heads, P, 2)
    const at::Tensor x = loc.select(-1, 0) * w - 0.5, y = loc.select(-1, 1) * h - 0.5;
    const at::Tensor taken = x.isfinite() & y.isfinite() & (x > -1) & (x < w) & (y > -1) & (y < h);
    const at::Tensor safe = at::where(taken.unsqueeze(-1), loc, at::full_like(loc, -10));
    // (bs, Q, heads, P, 2) -> (bs * heads, Q, P, 2), in grid_sample's [-1, 1]
    const at::Tensor grid =
        (safe * 2 - 1).transpose(1, 2).reshape({bs * heads, queries, points, 2});
    sampled.push_back(at::grid_sampler_2d(level, grid, 0, 0, false));  // (bs*heads, C, Q, P)
  }
  const int64_t levels = static_cast<int64_t>(sampled.size());
  // (bs, Q, heads, L, P) -> (bs * heads, 1, Q, L * P)
  const at::Tensor weights =
      weight.transpose(1, 2).reshape({bs * heads, 1, queries, levels * points});
  const at::Tensor out = (at::stack(sampled, -2).flatten(-2) * weights).sum(-1);
  return out.view({bs, heads, channels, queries}).permute({0, 3, 1, 2});
}

std::function<void()> forward_body(const msda::CallArgs& a) {
  return [in = inputs_of(a), output = *a.output] {
    tb::write_into(output, attend(tb::computed(in.value), tb::computed(in.location),
                                  tb::computed(in.attn_weight), in));
  };
}

std::function<void()> backward_body(const msda::CallArgs& a) {
  return [in = inputs_of(a), grad_output = *a.grad_output, grad_value = *a.grad_value,
          grad_location = *a.grad_location, grad_weight = *a.grad_attn_weight] {
    c10::AutoGradMode grad_mode(true);
    const at::Tensor value = tb::computed(in.value).requires_grad_(true);
    const at::Tensor location = tb::computed(in.location).requires_grad_(true);
    const at::Tensor weight = tb::computed(in.attn_weight).requires_grad_(true);
    const at::Tensor out = attend(value, location, weight, in);
    // gradOutput is (bs, Q, heads, C), or (bs, Q, heads * C) under cann-latest (E-MSDA-4):
    // gradients() reshapes it to the output's shape.
    const auto grads = tb::gradients(attend(value, location, weight, in), {value, location, weight},
                                     tb::computed(grad_output));
    tb::write_into(grad_value, grads[0]);
    tb::write_into(grad_location, grads[1]);
    tb::write_into(grad_weight, grads[2]);
  };
}

}  // namespace

extern "C" {

aclnnStatus aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(
    const aclTensor* value, const aclTensor* spatialShape, const aclTensor* levelStartIndex,
    const aclTensor* location, const aclTensor* attnWeight, aclTensor* output,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return tb::phase1(msda::clause_table(),
                    msda::kForwardParams.pack(value, spatialShape, levelStartIndex, location,
                                              attnWeight, output, workspaceSize, executor),
                    forward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnMultiScaleDeformableAttnFunction, msda::kForwardParams)

aclnnStatus aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
    const aclTensor* value, const aclTensor* spatialShape, const aclTensor* levelStartIndex,
    const aclTensor* location, const aclTensor* attnWeight, const aclTensor* gradOutput,
    aclTensor* gradValue, aclTensor* gradLocation, aclTensor* gradAttnWeight,
    uint64_t* workspaceSize, aclOpExecutor** executor) {
  return tb::phase1(msda::clause_table(),
                    msda::kBackwardParams.pack(value, spatialShape, levelStartIndex, location,
                                               attnWeight, gradOutput, gradValue, gradLocation,
                                               gradAttnWeight, workspaceSize, executor),
                    backward_body);
}

GRADCONF_DEFINE_PHASE2(aclnnMultiScaleDeformableAttentionGrad, msda::kBackwardParams)

}  // extern "C"
