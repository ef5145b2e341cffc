#include "grid_sampler2d/mutants.h"

#include "grid_sampler2d/entry.h"

namespace gradconf::grid_sampler2d {
namespace {

template <Fault kFault>
aclnnStatus forward_phase1_c(const aclTensor* input, const aclTensor* grid, int64_t interpolation,
                             int64_t padding, bool align_corners, aclTensor* out,
                             uint64_t* workspace_size, aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kForward;
  args.input = input;
  args.grid = grid;
  args.interpolation_mode = interpolation;
  args.padding_mode = padding;
  args.align_corners = align_corners;
  args.out = out;
  args.workspace_size = workspace_size;
  args.executor = executor;
  return forward_phase1<kFault>(args);
}

template <Fault kFault>
aclnnStatus backward_phase1_c(const aclTensor* grad_output, const aclTensor* input,
                              const aclTensor* grid, int64_t interpolation, int64_t padding,
                              bool align_corners, const aclBoolArray* output_mask,
                              aclTensor* input_grad, aclTensor* grid_grad,
                              uint64_t* workspace_size, aclOpExecutor** executor) {
  CallArgs args;
  args.direction = Direction::kBackward;
  args.grad_output = grad_output;
  args.input = input;
  args.grid = grid;
  args.interpolation_mode = interpolation;
  args.padding_mode = padding;
  args.align_corners = align_corners;
  args.output_mask = output_mask;
  args.input_grad = input_grad;
  args.grid_grad = grid_grad;
  args.workspace_size = workspace_size;
  args.executor = executor;
  return backward_phase1<kFault>(args);
}

template <Fault kFault>
Backend make_backend() {
  return Backend{forward_phase1_c<kFault>, aclnnGridSampler2D, backward_phase1_c<kFault>,
                 aclnnGridSampler2DBackward};
}
}  // namespace

Backend mutant_backend(Fault fault) {
  switch (fault) {
    case Fault::kNone: return make_backend<Fault::kNone>();
    case Fault::kWrongBilinearWeight: return make_backend<Fault::kWrongBilinearWeight>();
    case Fault::kDroppedBorderClamp: return make_backend<Fault::kDroppedBorderClamp>();
    case Fault::kSwappedGridGradXY: return make_backend<Fault::kSwappedGridGradXY>();
    case Fault::kOffByOneTap: return make_backend<Fault::kOffByOneTap>();
    case Fault::kIgnoredGridGradStride: return make_backend<Fault::kIgnoredGridGradStride>();
    case Fault::kThreadDependentSum: return make_backend<Fault::kThreadDependentSum>();
    case Fault::kWorkspaceAssumedZero: return make_backend<Fault::kWorkspaceAssumedZero>();
    case Fault::kMissingClauseShape04: return make_backend<Fault::kMissingClauseShape04>();
    case Fault::kNearestRoundsHalfUp: return make_backend<Fault::kNearestRoundsHalfUp>();
    case Fault::kBackwardSwapsTapWeights: return make_backend<Fault::kBackwardSwapsTapWeights>();
    case Fault::kAbsIncomingGradient: return make_backend<Fault::kAbsIncomingGradient>();
    case Fault::kDoubleComputedInFloat: return make_backend<Fault::kDoubleComputedInFloat>();
    case Fault::kGridOfFirstBatchOnly: return make_backend<Fault::kGridOfFirstBatchOnly>();
    case Fault::kPhase1WritesOutputs: return make_backend<Fault::kPhase1WritesOutputs>();
    case Fault::kIgnoresOutputMask: return make_backend<Fault::kIgnoresOutputMask>();
  }
  return default_backend();
}

}  // namespace gradconf::grid_sampler2d
