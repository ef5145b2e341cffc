// MultiScaleDeformableAttention's registry entry: its two entry specs, clause table, planted
// faults and every law instantiated over MsdaTraits (checked against the OpTraits concept).
#include <sstream>

#include "families/multi_scale_deformable_attention/gen.h"
#include "families/multi_scale_deformable_attention/traits.h"
#include "multi_scale_deformable_attention/clauses.h"
#include "multi_scale_deformable_attention/faults.h"
#include "registry/bindings.h"
#include "registry/registry.h"

namespace gradconf::props {
namespace {

using Traits = MsdaTraits;
static_assert(OpTraits<Traits>);
using Problem = Traits::Problem;
using ProblemLaw = LawResult (*)(const Problem&, const Backend&);

rc::Gen<Problem> problems(Direction direction) { return msda::gen_problem({.entry = direction}); }

std::vector<LawBinding> laws() {
  const LawBinder<Traits> binder{problems, msda::entry_spec};
  std::vector<LawBinding> all = binder.problem_laws();
  all.push_back(binder.error_contract_law("MultiScaleDeformableAttention+Grad.error_contract", [] {
    std::function<rc::Gen<Problem>(Direction)> base = [](Direction d) {
      return msda::gen_problem({.entry = d, .strided = false, .allow_empty = false});
    };
    return gen_boundary_case<Problem>(msda::clause_breakers(),
                                      clause_infos(gradconf::msda::clause_table()), base,
                                      msda::make_call);
  }));
  all.push_back(binder.repro_law("MultiScaleDeformableAttention+Grad.repro_round_trip",
                                 [] { return msda::gen_problem(); }));
  return all;
}

std::vector<FaultRow> fault_rows() {
  std::vector<FaultRow> rows = {
      {"swapped_xy", "MultiScaleDeformableAttention.matches_reference", 100},
      {"missing_width_factor", "MultiScaleDeformableAttentionGrad.finite_differences", 100},
      {"guard_inclusive", "MultiScaleDeformableAttentionGrad.matches_reference", 400},
      {"level_start_ignored", "MultiScaleDeformableAttention.matches_reference", 200},
      {"swapped_tap_weights", "MultiScaleDeformableAttention.matches_reference", 100},
      {"dropped_channel_block", "MultiScaleDeformableAttentionGrad.adjoint_identity", 100},
      {"thread_dependent_scatter", "MultiScaleDeformableAttentionGrad.determinism", 300},
      {"empty_keeps_workspace", "MultiScaleDeformableAttentionGrad.empty_problem", 100},
      {"format_unchecked", "MultiScaleDeformableAttention+Grad.error_contract", 2000},
      {"abs_grad_output", "MultiScaleDeformableAttentionGrad.linear_in_incoming_gradient", 100},
      // dtype_agreement holds every dtype to the reference: a wrong sampling shows in each.
      {"swapped_xy", "MultiScaleDeformableAttention.dtype_agreement", 100},
      {"dropped_channel_block", "MultiScaleDeformableAttentionGrad.dtype_agreement", 100},
      // Layout, workspace and batch faults, each caught by the law made for it.
      {"ignored_grad_value_stride", "MultiScaleDeformableAttentionGrad.stride_invariance", 300},
      {"workspace_assumed_zero", "MultiScaleDeformableAttentionGrad.workspace_contract", 100},
      {"value_of_first_batch", "MultiScaleDeformableAttentionGrad.batch_split", 200},
      // cann-latest's 3-D gradOutput/output with heads > 1 (about one case in eight), and
      // extended's C % 8 != 0 on the backward (about one case in ten; seen when the workspace
      // arrives as garbage).
      {"flat_head_stride", "MultiScaleDeformableAttention.matches_reference", 300},
      {"flat_head_stride", "MultiScaleDeformableAttentionGrad.matches_reference", 300},
      {"lane_padding_uncleared", "MultiScaleDeformableAttentionGrad.workspace_contract", 300},
  };
  for (const FaultRow& row : core_fault_rows("MultiScaleDeformableAttentionGrad"))
    rows.push_back(row);
  return rows;
}

}  // namespace

const OpFamily& multi_scale_deformable_attention_family() {
  static const OpFamily family{
      .family = "multi_scale_deformable_attention",
      .entries = {&msda::forward_entry(), &msda::backward_entry()},
      .clauses = clause_infos(gradconf::msda::clause_table()),
      .faults = planted_fault_names<gradconf::msda::Fault>(),
      .laws = laws(),
      .fault_rows = fault_rows(),
      .check_repro = check_repro_line<Problem>,
      .validation_tested = {"MSDA-LIMIT-02", "MSDA-LIMIT-05"},
      .bench_cases = {
          {"encoder", "msda_grad --levels=64x64.32x32.16x16.8x8 b2m8c32q5440p4"},
          {"encoder_bf16", "msda_grad --dt=bf16 --levels=64x64.32x32.16x16.8x8 b2m8c32q5440p4"},
          {"decoder", "msda_grad --levels=64x64.32x32.16x16.8x8 b2m8c32q300p4"},
          // Deformable-DETR's locations (reference point + offsets): what a trained model samples.
          {"encoder_detr", "msda_grad --levels=64x64.32x32.16x16.8x8 --loc=detr b2m8c32q5440p4"},
          {"encoder_detr_bf16",
           "msda_grad --dt=bf16 --levels=64x64.32x32.16x16.8x8 --loc=detr b2m8c32q5440p4"},
          {"decoder_detr", "msda_grad --levels=64x64.32x32.16x16.8x8 --loc=detr b2m8c32q300p4"},
          {"encoder_forward", "msda --levels=64x64.32x32.16x16.8x8 b2m8c32q5440p4"},
          // extended's any C: 30 channels pad to 32 lanes (compare with encoder).
          {"encoder_c30",
           "msda_grad --levels=64x64.32x32.16x16.8x8 --profile=extended b2m8c30q5440p4"},
          // cann-latest's (bs, Q, heads * C) gradOutput is the same memory.
          {"encoder_cann_latest",
           "msda_grad --levels=64x64.32x32.16x16.8x8 --profile=cann-latest b2m8c32q5440p4"}}};
  return family;
}

}  // namespace gradconf::props
