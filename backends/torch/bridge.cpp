#include "torch/bridge.h"

#include <torch/csrc/autograd/autograd.h>
#include <torch/version.h>

#include <stdexcept>
#include <vector>

namespace gradconf::torch_backend {
namespace {

at::ScalarType scalar_type_of(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT:
      return at::kFloat;
    case ACL_FLOAT16:
      return at::kHalf;
    case ACL_BF16:
      return at::kBFloat16;
    case ACL_DOUBLE:
      return at::kDouble;
    case ACL_INT32:
      return at::kInt;
    case ACL_INT64:
      return at::kLong;
    case ACL_BOOL:
      return at::kBool;
    case ACL_UINT8:
      return at::kByte;
    default:
      throw std::invalid_argument("torch backend: no ATen type for aclDataType " +
                                  std::to_string(static_cast<int>(dtype)));
  }
}

std::vector<int64_t> to_vector(const DimVector& dims) { return {dims.begin(), dims.end()}; }

// The half types, which the adapters compute in float (bridge.h, computed).
bool computes_in_float(const aclTensor& t) { return t.dtype == ACL_FLOAT16 || t.dtype == ACL_BF16; }

}  // namespace

at::Tensor view_of(const aclTensor& t) {
  const auto options = at::TensorOptions().dtype(scalar_type_of(t.dtype));
  if (numel(t) == 0) return at::empty(to_vector(t.view_dims), options);
  auto* first = static_cast<std::byte*>(t.data) +
                t.offset * static_cast<int64_t>(at::elementSize(options.dtype().toScalarType()));
  return at::from_blob(first, to_vector(t.view_dims), to_vector(t.strides), options);
}

at::Tensor computed(const aclTensor& t) {
  const at::Tensor v = view_of(t);
  return v.to(computes_in_float(t) ? at::kFloat : v.scalar_type(), /*non_blocking=*/false,
              /*copy=*/true);
}

at::Tensor computed_for_reading(const aclTensor& t) {
  return computes_in_float(t) ? computed(t) : view_of(t);
}

std::vector<at::Tensor> gradients(const at::Tensor& out, const std::vector<at::Tensor>& inputs,
                                  const at::Tensor& incoming) {
  std::vector<at::Tensor> grads;
  for (const at::Tensor& input : inputs) grads.push_back(at::zeros_like(input));
  if (out.numel() == 0) return grads;
  const auto computed = torch::autograd::grad({out}, inputs, {incoming.reshape(out.sizes())},
                                              /*retain_graph=*/false, /*create_graph=*/false,
                                              /*allow_unused=*/true);
  for (size_t i = 0; i < grads.size(); ++i) {
    if (computed[i].defined()) grads[i] = computed[i];
  }
  return grads;
}

void write_into(const aclTensor& out, const at::Tensor& value) {
  if (numel(out) == 0) return;
  view_of(out).copy_(value.reshape(to_vector(out.view_dims)));
}

}  // namespace gradconf::torch_backend

extern "C" const char* gradconfBackendVersion(void) {
  return "PyTorch " TORCH_VERSION " (ATen CPU and autograd, backends/torch)";
}

// ATen's reductions group differently by shape and layout: results agree to rounding, not bits.
extern "C" int gradconfBitwiseInvariant(void) { return 0; }
