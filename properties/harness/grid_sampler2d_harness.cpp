#include "harness/grid_sampler2d_harness.h"

#include <memory>

#include "core/profile.h"
#include "ops/grid_sampler2d/reference/reference.h"

namespace gradconf::props::gs {

int Call::index_of(Role role) const {
  for (size_t i = 0; i < roles.size(); ++i) {
    if (roles[i] == role) return static_cast<int>(i);
  }
  return -1;
}

Call make_call(const Problem& p) {
  Call call;
  call.entry = p.entry;
  call.interpolation_mode = static_cast<int64_t>(p.interpolation);
  call.padding_mode = static_cast<int64_t>(p.padding);
  call.align_corners = p.align_corners;
  if (p.output_mask) call.output_mask = std::vector<bool>{(*p.output_mask)[0], (*p.output_mask)[1]};
  call.profile = p.profile;
  auto add = [&](Role role, bool output) {
    TensorSpec spec;
    spec.name = std::string(grid_sampler2d::role_name(role));
    spec.dims = p.dims(role);
    spec.dtype = p.dtype;
    spec.layout = p.layout(role);
    spec.output = output;
    if (!output) spec.values = grid_sampler2d::make_values(p, role);
    call.roles.push_back(role);
    call.tensors.push_back(std::move(spec));
  };
  for (Role role : p.inputs()) add(role, false);
  for (Role role : p.outputs()) add(role, true);
  return call;
}

Outcome run(const Call& call, const RunOptions& options, const Backend& backend) {
  ScopedSpecProfile profile(call.profile);
  std::unique_ptr<aclBoolArray, decltype(&aclDestroyBoolArray)> mask(nullptr, aclDestroyBoolArray);
  if (call.output_mask) {
    bool values[16] = {};
    const size_t size = std::min<size_t>(call.output_mask->size(), 16);
    for (size_t i = 0; i < size; ++i) values[i] = (*call.output_mask)[i];
    mask.reset(aclCreateBoolArray(values, size));
  }
  auto tensor = [&](std::span<aclTensor* const> t, Role role) -> aclTensor* {
    const int i = call.index_of(role);
    return i < 0 ? nullptr : t[static_cast<size_t>(i)];
  };
  Phase1 phase1 = [&](std::span<aclTensor* const> t, uint64_t* size, aclOpExecutor** executor) {
    uint64_t* size_arg = call.null_workspace_size ? nullptr : size;
    aclOpExecutor** executor_arg = call.null_executor ? nullptr : executor;
    if (call.entry == Entry::kForward) {
      return backend.forward_get_workspace_size(
          tensor(t, Role::kInput), tensor(t, Role::kGrid), call.interpolation_mode,
          call.padding_mode, call.align_corners, tensor(t, Role::kOut), size_arg, executor_arg);
    }
    return backend.backward_get_workspace_size(
        tensor(t, Role::kGradOutput), tensor(t, Role::kInput), tensor(t, Role::kGrid),
        call.interpolation_mode, call.padding_mode, call.align_corners, mask.get(),
        tensor(t, Role::kInputGrad), tensor(t, Role::kGridGrad), size_arg, executor_arg);
  };
  return run_call(call.tensors, phase1,
                  call.entry == Entry::kForward ? backend.forward : backend.backward, options);
}

const std::vector<double>& output_of(const Call& call, const Outcome& outcome, Role role) {
  static const std::vector<double> kEmpty;
  const int i = call.index_of(role);
  return i < 0 ? kEmpty : outcome.values[static_cast<size_t>(i)];
}

std::vector<std::pair<Role, std::vector<double>>> reference_outputs(const Problem& p,
                                                                     const Call& call) {
  namespace ref = grid_sampler2d::reference;
  const ref::Dims dims{p.n, p.c, p.in_h, p.in_w, p.out_h, p.out_w};
  const ref::Attrs attrs{static_cast<int64_t>(p.interpolation), static_cast<int64_t>(p.padding),
                         p.align_corners};
  const auto& input = call.tensor(Role::kInput).values;
  const auto& grid = call.tensor(Role::kGrid).values;
  if (p.entry == Entry::kForward) return {{Role::kOut, ref::forward(dims, attrs, input, grid)}};
  auto grads = ref::backward(dims, attrs, call.tensor(Role::kGradOutput).values, input, grid);
  return {{Role::kInputGrad, std::move(grads.input_grad)},
          {Role::kGridGrad, std::move(grads.grid_grad)}};
}

}  // namespace gradconf::props::gs
