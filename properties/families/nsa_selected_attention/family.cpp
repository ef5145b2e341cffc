// NsaSelectedAttention's registry entry: its two entry specs, clause table, planted faults and
// every law instantiated over NsaSelectedAttentionTraits (checked against the OpTraits concept).
#include "families/nsa_selected_attention/gen.h"
#include "families/nsa_selected_attention/traits.h"
#include "nsa_selected_attention/clauses.h"
#include "nsa_selected_attention/faults.h"
#include "registry/bindings.h"
#include "registry/registry.h"

namespace gradconf::props {
namespace {

using Traits = NsaSelectedAttentionTraits;
static_assert(OpTraits<Traits>);
using Problem = Traits::Problem;

rc::Gen<Problem> problems(Direction direction) { return nsa::gen_problem({.entry = direction}); }

std::vector<LawBinding> laws() {
  const LawBinder<Traits> binder{problems, nsa::entry_spec};
  std::vector<LawBinding> all = binder.problem_laws();
  all.push_back(binder.error_contract_law("NsaSelectedAttention+Grad.error_contract", [] {
    std::function<rc::Gen<Problem>(Direction)> base = [](Direction d) {
      return nsa::gen_problem({.entry = d, .strided = false, .seed_only = true});
    };
    return gen_boundary_case<Problem>(
        nsa::clause_breakers(), clause_infos(gradconf::nsa::clause_table()), base, nsa::make_call);
  }));
  all.push_back(binder.repro_law("NsaSelectedAttention+Grad.repro_round_trip",
                                 [] { return nsa::gen_problem(); }));
  return all;
}

std::vector<FaultRow> fault_rows() {
  std::vector<FaultRow> rows = {
      {"causal_off_by_one", "NsaSelectedAttention.matches_reference", 100},
      {"stats_lane_1", "NsaSelectedAttentionGrad.matches_reference", 100},
      {"dk_scale_missing", "NsaSelectedAttentionGrad.finite_differences", 100},
      {"group_modulo", "NsaSelectedAttention.matches_reference", 300},
      {"duplicates_merged", "NsaSelectedAttention.matches_reference", 300},
      {"dr_from_grad_grad", "NsaSelectedAttentionGrad.matches_reference", 100},
      {"topk_read_at_run", "NsaSelectedAttentionGrad.between_phases", 100},
      {"format_unchecked", "NsaSelectedAttention+Grad.error_contract", 2000},
      {"abs_grad_output", "NsaSelectedAttentionGrad.linear_in_incoming_gradient", 100},
      // dtype_agreement holds every dtype to the reference.
      {"causal_off_by_one", "NsaSelectedAttention.dtype_agreement", 100},
      {"dr_from_grad_grad", "NsaSelectedAttentionGrad.dtype_agreement", 100},
      // Layout, workspace and batch faults, each caught by the law made for it.
      {"ignored_dv_stride", "NsaSelectedAttentionGrad.stride_invariance", 300},
      {"cache_assumed_zero", "NsaSelectedAttentionGrad.workspace_contract", 100},
      {"kv_of_first_batch", "NsaSelectedAttention.batch_split", 200},
      {"kv_of_first_batch", "NsaSelectedAttentionGrad.batch_split", 200},
      // The products' stop at the last unmasked row (live_rows), one row early.
      {"live_rows_short", "NsaSelectedAttention.matches_reference", 100},
      {"live_rows_short", "NsaSelectedAttentionGrad.matches_reference", 100},
  };
  for (const FaultRow& row : core_fault_rows("NsaSelectedAttentionGrad")) rows.push_back(row);
  return rows;
}

// fp32 gradients: the common atol 2^-16 assumes an output's error is relative to the output. Here
// it is relative to the terms: (1) a score S = scale <q, k> (Dqk <= 192 unit-scale products, |S|
// up to ~16) is computed to ~2^-24 * 16 * sqrt(192) ~ 2^-16 absolute, and exp() makes that the
// relative error of P; (2) dS = P (dP - Dr) cancels (exactly 0 where one row is unmasked) with
// dP, Dr Dv-term dot products carrying ~2^-24 * Dv absolute error. dq, dk and dv sum up to
// G * queries * K * B (~2^10 to 2^14 in the generators) such terms of unit size with random
// signs: sqrt(2^10..2^14) * 2^-16 = 2^-11..2^-9. An element that cancels to ~0 can therefore be
// off by ~2^-11 while every term is right; fp16/bf16 atol (2^-9, 2^-6) already covers it and
// DOUBLE is exact enough. rtol, the cap and the 100% match rule stay as in the common row.
std::vector<ToleranceRow> tolerance_rows() {
  const Tolerance t{.rtol = 1.0 / 1024,
                    .atol = 1.0 / 2048,
                    .max_abs_cap = 1e-2,
                    .cap_ulps = 32,
                    .epsilon = 1.0 / (1 << 23),
                    .min_match_fraction = 1.0,
                    .mere_threshold = 1.0 / 8192,
                    .reason =
                        "fp32: errors relative to the terms (scores through exp, dS = P (dP - "
                        "Dr) cancelling), summed over ~2^10..2^14 slots: atol 2^-11 "
                        "(families/nsa_selected_attention/family.cpp)"};
  return {{"NsaSelectedAttentionGrad", "dqOut", ACL_FLOAT, t},
          {"NsaSelectedAttentionGrad", "dkOut", ACL_FLOAT, t},
          {"NsaSelectedAttentionGrad", "dvOut", ACL_FLOAT, t}};
}

}  // namespace

const OpFamily& nsa_selected_attention_family() {
  static const OpFamily family{
      .family = "nsa_selected_attention",
      .entries = {&nsa::forward_entry(), &nsa::backward_entry()},
      .clauses = clause_infos(gradconf::nsa::clause_table()),
      .faults = planted_fault_names<gradconf::nsa::Fault>(),
      .laws = laws(),
      .fault_rows = fault_rows(),
      .tolerances = tolerance_rows(),
      .check_repro = check_repro_line<Problem>,
      .validation_tested = {"NSA-SEQ-03"},
      .bench_cases =
          {{"small_bf16", "nsa_grad --dt=bf16 --seqs=1024x1024.1024x1024 n16m1dq192dv128b64k8"},
           {"small_f32",
            "nsa_grad --dt=f32 --seqs=1024x1024.1024x1024 --profile=extended n16m1dq192dv128b64k8"},
           {"small_forward_bf16", "nsa --dt=bf16 --seqs=1024x1024.1024x1024 n16m1dq192dv128b64k8"},
           {"small_forward_f32",
            "nsa --dt=f32 --seqs=1024x1024.1024x1024 --profile=extended n16m1dq192dv128b64k8"}},
      .bench_flops = nsa::useful_flops};
  return family;
}

}  // namespace gradconf::props
