// fuzz_msda_grad_args: raw arguments of aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize and
// aclnnMultiScaleDeformableAttentionGrad (fuzz/common/args_target.h says what is decoded and
// checked), starting from a small valid problem whose level tables hold valid values.
#include "common/args_target.h"
#include "families/multi_scale_deformable_attention/entries.h"
#include "multi_scale_deformable_attention/decode.h"

namespace {

namespace msda = gradconf::props::msda;

// Shapes, dtypes and the level tables of a valid problem; float tensors carry no values (they
// are never read by validation, and filling them would cost the target most of its speed).
gradconf::props::Call base_call(FuzzedDataProvider& fdp) {
  auto problem = gradconf::fuzz::msda::decode_problem(fdp, gradconf::Direction::kBackward);
  for (auto& layout : problem.layouts) layout = gradconf::LayoutSpec{};
  gradconf::props::Call call = msda::backward_entry().blank_call();
  const auto roles = problem.roles();
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    call.tensors[i].dims = problem.dims(roles[i]);
    call.tensors[i].dtype = problem.dtype_of(roles[i]);
    if (roles[i] == gradconf::msda::Role::kSpatialShape ||
        roles[i] == gradconf::msda::Role::kLevelStartIndex) {
      call.tensors[i].values = gradconf::msda::make_values(problem, roles[i]);
    }
  }
  call.profile = problem.profile;
  return call;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ArgsTarget target{&msda::backward_entry(), base_call, nullptr};
  return gradconf::fuzz::run_args_target(data, size, target);
}
