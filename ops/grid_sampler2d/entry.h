// Phase 1 of both entry points, templated on a planted Fault so the planted-fault library
// (gradconf_aclnn_planted, built from the same sources) can run faulty variants of the whole call
// path. The shipped library has Fault::kNone only (kernels.h names the planted library's set).
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_ENTRY_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_ENTRY_H_

#include "core/executor.h"
#include "core/phase1.h"
#include "core/status.h"
#include "core/view.h"
#include "grid_sampler2d/clauses.h"
#include "grid_sampler2d/kernels.h"
#include "grid_sampler2d/plan.h"
#include "grid_sampler2d/workspace.h"

namespace gradconf::grid_sampler2d {

/// The clause phase 1 leaves out: none, or under the planted fault GS-SHAPE-04 for grids with
/// more than two components (never fewer: that would read past the grid).
template <Fault kFault>
std::string_view unchecked_clause(const CallArgs& args) {
  const bool wide_grid = args.grid && rank(*args.grid) == 4 && args.grid->view_dims[3] > 2;
  return planted<kFault>(Fault::kMissingClauseShape04) && wide_grid ? "GS-SHAPE-04" : "";
}

inline Attributes attributes_of(const CallArgs& args) {
  return Attributes{static_cast<Interpolation>(args.interpolation_mode),
                    static_cast<Padding>(args.padding_mode), args.align_corners};
}

template <Fault kFault>
aclnnStatus forward_phase1(const CallArgs& args) {
  if (auto stopped = stopped_by_clauses(clause_table(), args, unchecked_clause<kFault>(args))) {
    return *stopped;
  }
  const uint64_t workspace = forward_workspace(args);
  ForwardPlan plan{*args.input, *args.grid, *args.out, attributes_of(args), workspace > 0};
  return make_kernel_executor(workspace, plan.input.dtype, args,
                              [plan](auto tag, std::byte* scratch) {
                                using T = typename decltype(tag)::type;
                                forward_kernel<T, kernel_fault<T, kFault>>(plan, scratch);
                              });
}

template <Fault kFault>
aclnnStatus backward_phase1(const CallArgs& args) {
  if (auto stopped = stopped_by_clauses(clause_table(), args, unchecked_clause<kFault>(args))) {
    return *stopped;
  }
  BackwardPlan plan{*args.grad_output,
                    *args.input,
                    *args.grid,
                    *args.input_grad,
                    *args.grid_grad,
                    attributes_of(args),
                    wants_of(args),
                    accumulator_workers(SamplerLayout(*args.input, *args.grid), num_threads())};
  const SamplerLayout layout(plan);
  plan.point_workers = point_workers(layout, num_threads());
  plan.batch_major = allows_batch_major<kFault>();
  if (planted<kFault>(Fault::kIgnoresOutputMask)) {
    // Mutant: computes gridGrad whatever the mask says (where its workspace fits).
    BackwardWants all = plan.wants;
    all.grid_grad = true;
    if (backward_workspace(layout, all, plan.workers, plan.point_workers, plan.batch_major))
      plan.wants = all;
  }
  if (planted<kFault>(Fault::kPhase1WritesOutputs)) {
    // Mutant: "helpfully" clears gridGrad while planning.
    dispatch_floating(plan.grid_grad.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const auto grid_grad = view_of<T, 4>(plan.grid_grad);
      for (int64_t n = 0; n < grid_grad.dims[0]; ++n)
        for (int64_t h = 0; h < grid_grad.dims[1]; ++h)
          for (int64_t w = 0; w < grid_grad.dims[2]; ++w)
            for (int64_t k = 0; k < grid_grad.dims[3]; ++k) grid_grad(n, h, w, k) = T(0);
    });
  }
  plan.wants = with_grad_rows_by_points(layout, plan.wants, plan.workers, plan.point_workers,
                                        plan.batch_major);
  // GS-LIMIT-01 sized this call with the same thread count, so the plan fits.
  const auto workspace =
      backward_workspace(layout, plan.wants, plan.workers, plan.point_workers, plan.batch_major);
  return make_kernel_executor(workspace->total, plan.input.dtype, args,
                              [plan](auto tag, std::byte* scratch) {
                                using T = typename decltype(tag)::type;
                                backward_kernel<T, kernel_fault<T, kFault>>(plan, scratch);
                              });
}

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_ENTRY_H_
