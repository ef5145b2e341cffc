// fuzz_grid_sampler2d_backward_args: raw arguments of aclnnGridSampler2DBackwardGetWorkspaceSize
// and aclnnGridSampler2DBackward (fuzz/common/args_target.h says what is decoded and checked),
// starting from a small valid problem, with the GS enum values that are out of range.
#include "common/args_target.h"
#include "common/fuzz_support.h"
#include "families/grid_sampler2d/entries.h"
#include "families/grid_sampler2d/ranges.h"
#include "grid_sampler2d/decode.h"

namespace {

namespace gs = gradconf::props::gs;

// Shapes, dtype and attributes of a valid problem; no values (GridSampler has no index tensor,
// and filling values would cost the target most of its speed).
gradconf::props::Call base_call(FuzzedDataProvider& fdp) {
  auto problem = gradconf::fuzz::gs::decode_problem(fdp, gradconf::Direction::kBackward);
  problem.output_mask = std::array<bool, 2>{fdp.ConsumeBool(), fdp.ConsumeBool()};
  gradconf::props::Call call = gs::backward_entry().blank_call();
  for (size_t i = 0; i < call.tensors.size(); ++i) {
    call.tensors[i].dims = problem.dims(gs::role_at(call, i));
    call.tensors[i].dtype = problem.dtype;
  }
  call.attr("interpolationMode") = static_cast<int64_t>(problem.interpolation);
  call.attr("paddingMode") = static_cast<int64_t>(problem.padding);
  call.attr("alignCorners") = problem.align_corners;
  gs::set_output_mask(call,
                      std::vector<bool>{(*problem.output_mask)[0], (*problem.output_mask)[1]});
  return call;
}

void wild_modes(FuzzedDataProvider& fdp, gradconf::props::Call& call) {
  for (const char* mode : {"interpolationMode", "paddingMode"}) {
    if (fdp.ConsumeBool())
      call.attr(mode) = gradconf::fuzz::pick(fdp, gradconf::props::gs_ranges::kInvalidModes);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ArgsTarget target{&gs::backward_entry(), base_call, wild_modes};
  return gradconf::fuzz::run_args_target(data, size, target);
}
