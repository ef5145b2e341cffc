// GridSampler2D's registry entry: its two entry specs, clause table, planted faults and every law
// instantiated over GridSampler2DTraits (checked against the OpTraits concept).
#include <sstream>

#include "families/grid_sampler2d/gen.h"
#include "families/grid_sampler2d/traits.h"
#include "grid_sampler2d/clauses.h"
#include "grid_sampler2d/faults.h"
#include "registry/bindings.h"
#include "registry/registry.h"

namespace gradconf::props {
namespace {

using Traits = GridSampler2DTraits;
static_assert(OpTraits<Traits>);
using Problem = Traits::Problem;

rc::Gen<Problem> problems(Direction entry, bool allow_null_mask = false) {
  gs::GenOptions options;
  options.entry = entry;
  options.allow_null_mask = allow_null_mask;
  return gs::gen_problem(options);
}

std::vector<LawBinding> laws() {
  const LawBinder<Traits> binder{[](Direction d) { return problems(d); }, gs::entry_spec};
  std::vector<LawBinding> all = binder.problem_laws();
  // Null outputMask (GS-MASK-01 early-out) and empty tensors belong to the valid space too.
  all.push_back(binder.bind("matches_reference", Direction::kBackward, matches_reference<Traits>,
                            "null_masks", [] { return problems(Direction::kBackward, true); }));
  all.push_back(binder.error_contract_law("GridSampler2D+Backward.error_contract",
                                          [] { return gs::gen_boundary_case(); }));
  all.push_back(binder.repro_law("GridSampler2D+Backward.repro_round_trip", [] {
    gs::GenOptions options;
    options.allow_null_mask = true;
    return gs::gen_problem(options);
  }));
  return all;
}

// The law x fault table: the law each planted fault is meant to be seen by (a law may see more).
std::vector<FaultRow> fault_rows() {
  std::vector<FaultRow> rows = {
      {"wrong_bilinear_weight", "GridSampler2D.matches_reference", 50},
      {"wrong_bilinear_weight", "GridSampler2DBackward.finite_differences", 50},
      {"dropped_border_clamp", "GridSampler2D.matches_reference", 100},
      {"swapped_grid_grad_xy", "GridSampler2DBackward.matches_reference", 50},
      {"swapped_grid_grad_xy", "GridSampler2DBackward.finite_differences", 50},
      {"off_by_one_tap", "GridSampler2D.matches_reference", 50},
      {"nearest_rounds_half_up", "GridSampler2D.matches_reference", 200},
      {"backward_swaps_tap_weights", "GridSampler2DBackward.matches_reference", 50},
      {"backward_swaps_tap_weights", "GridSampler2DBackward.adjoint_identity", 100},
      {"grid_of_first_batch_only", "GridSampler2DBackward.matches_reference", 100},
      {"grid_of_first_batch_only", "GridSampler2DBackward.batch_split", 200},
      {"double_computed_in_float", "GridSampler2D.matches_reference", 200},
      {"double_computed_in_float", "GridSampler2D.dtype_agreement", 100},
      {"ignores_output_mask", "GridSampler2DBackward.matches_reference", 200},
      {"abs_incoming_gradient", "GridSampler2DBackward.finite_differences", 50},
      {"abs_incoming_gradient", "GridSampler2DBackward.linear_in_incoming_gradient", 100},
      {"ignored_grid_grad_stride", "GridSampler2DBackward.stride_invariance", 300},
      {"thread_dependent_sum", "GridSampler2DBackward.determinism", 300},
      {"workspace_assumed_zero", "GridSampler2DBackward.workspace_contract", 100},
      {"phase1_writes_outputs", "GridSampler2DBackward.workspace_contract", 100},
      {"missing_clause_shape04", "GridSampler2D+Backward.error_contract", 2000},
      // A relative error of ~6e-8 in double: below the old finite-difference bound (1e-6 of
      // the magnitude), far above the derived one.
      {"grid_grad_rounded_to_float", "GridSampler2DBackward.finite_differences", 100},
      // cann-latest's modes (E-GS-5): about one case in seven is bicubic, one in fifteen reflection
      // without alignCorners.
      {"reflection_ignores_align_corners", "GridSampler2D.matches_reference", 200},
      {"wrong_cubic_coefficient", "GridSampler2D.matches_reference", 200},
      {"wrong_cubic_coefficient", "GridSampler2DBackward.matches_reference", 200},
  };
  for (const FaultRow& row : core_fault_rows("GridSampler2DBackward")) rows.push_back(row);
  return rows;
}

}  // namespace

const OpFamily& grid_sampler2d_family() {
  static const OpFamily family{
      .family = "grid_sampler2d",
      .entries = {&gs::forward_entry(), &gs::backward_entry()},
      .clauses = clause_infos(grid_sampler2d::clause_table()),
      .faults = planted_fault_names<gradconf::grid_sampler2d::Fault>(),
      .laws = laws(),
      .fault_rows = fault_rows(),
      .check_repro = check_repro_line<Problem>,
      .validation_tested = {"GS-LIMIT-01", "GS-LIMIT-02"},
      // The shapes of bench/README (base, large C, large spatial) in both interpolations, border
      // padding, bf16, the forward, and cann-latest's modes (E-GS-5) on the base case.
      .bench_cases = {
          {"base", "grid_sampler2d_backward n4c32_ih64iw64_oh64ow64"},
          {"base_nearest", "grid_sampler2d_backward --interp=nearest n4c32_ih64iw64_oh64ow64"},
          {"base_border", "grid_sampler2d_backward --pad=border n4c32_ih64iw64_oh64ow64"},
          {"base_nearest_border",
           "grid_sampler2d_backward --interp=nearest --pad=border n4c32_ih64iw64_oh64ow64"},
          {"base_bf16", "grid_sampler2d_backward --dt=bf16 n4c32_ih64iw64_oh64ow64"},
          {"large_c", "grid_sampler2d_backward n1c256_ih64iw64_oh64ow64"},
          {"large_c_nearest", "grid_sampler2d_backward --interp=nearest n1c256_ih64iw64_oh64ow64"},
          {"large_spatial", "grid_sampler2d_backward n1c4_ih256iw256_oh256ow256"},
          {"large_spatial_nearest",
           "grid_sampler2d_backward --interp=nearest n1c4_ih256iw256_oh256ow256"},
          {"base_forward", "grid_sampler2d n4c32_ih64iw64_oh64ow64"},
          {"base_forward_nearest", "grid_sampler2d --interp=nearest n4c32_ih64iw64_oh64ow64"},
          {"large_c_forward", "grid_sampler2d n1c256_ih64iw64_oh64ow64"},
          {"large_spatial_forward", "grid_sampler2d n1c4_ih256iw256_oh256ow256"},
          {"reflection",
           "grid_sampler2d_backward --pad=reflection --profile=cann-latest "
           "n4c32_ih64iw64_oh64ow64"},
          {"bicubic",
           "grid_sampler2d_backward --interp=bicubic --profile=cann-latest "
           "n4c32_ih64iw64_oh64ow64"},
          {"bicubic_forward",
           "grid_sampler2d --interp=bicubic --profile=cann-latest n4c32_ih64iw64_oh64ow64"}}};
  return family;
}

}  // namespace gradconf::props
