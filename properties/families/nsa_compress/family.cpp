// NsaCompress's registry entry: its two entry specs, clause table, planted faults and every law
// instantiated over NsaCompressTraits (checked against the OpTraits concept).
#include "families/nsa_compress/gen.h"
#include "families/nsa_compress/traits.h"
#include "nsa_compress/clauses.h"
#include "nsa_compress/faults.h"
#include "registry/bindings.h"
#include "registry/registry.h"

namespace gradconf::props {
namespace {

using Traits = NsaCompressTraits;
static_assert(OpTraits<Traits>);
using Problem = Traits::Problem;

rc::Gen<Problem> problems(Direction direction) { return nc::gen_problem({.entry = direction}); }

std::vector<LawBinding> laws() {
  const LawBinder<Traits> binder{problems, nc::entry_spec};
  std::vector<LawBinding> all = binder.problem_laws();
  all.push_back(binder.error_contract_law("NsaCompress+Grad.error_contract", [] {
    std::function<rc::Gen<Problem>(Direction)> base = [](Direction d) {
      return nc::gen_problem({.entry = d, .strided = false, .seed_only = true});
    };
    return gen_boundary_case<Problem>(
        nc::clause_breakers(), clause_infos(gradconf::nc::clause_table()), base, nc::make_call);
  }));
  all.push_back(
      binder.repro_law("NsaCompress+Grad.repro_round_trip", [] { return nc::gen_problem(); }));
  return all;
}

std::vector<FaultRow> fault_rows() {
  std::vector<FaultRow> rows = {
      {"window_start_off_by_one", "NsaCompress.matches_reference", 100},
      {"last_window_dropped", "NsaCompressGrad.matches_reference", 100},
      {"weight_transposed", "NsaCompress.matches_reference", 100},
      {"lengths_not_prefix", "NsaCompressGrad.matches_reference", 200},
      {"last_writer_wins", "NsaCompressGrad.adjoint_identity", 100},
      {"tail_unwritten", "NsaCompressGrad.matches_reference", 200},
      {"format_unchecked", "NsaCompress+Grad.error_contract", 2000},
      // dtype_agreement holds every dtype to the reference; batch_split sees batches read from
      // the wrong tokens.
      {"weight_transposed", "NsaCompress.dtype_agreement", 100},
      {"last_window_dropped", "NsaCompressGrad.dtype_agreement", 100},
      {"lengths_not_prefix", "NsaCompressGrad.batch_split", 200},
      {"lengths_not_prefix", "NsaCompress.batch_split", 200},
      // Layout, workspace and linearity faults, each caught by the law made for it.
      {"abs_output_grad", "NsaCompressGrad.linear_in_incoming_gradient", 100},
      {"ignored_input_grad_stride", "NsaCompressGrad.stride_invariance", 300},
      {"partials_assumed_zero", "NsaCompressGrad.workspace_contract", 100},
      // cann-latest draws l == d in about half of its windowings (a tenth of all cases).
      {"equal_windows_refused", "NsaCompress.matches_reference", 300},
  };
  for (const FaultRow& row : core_fault_rows("NsaCompressGrad")) rows.push_back(row);
  return rows;
}

}  // namespace

const OpFamily& nsa_compress_family() {
  static const OpFamily family{
      .family = "nsa_compress",
      .entries = {&nc::forward_entry(), &nc::backward_entry()},
      .clauses = clause_infos(gradconf::nc::clause_table()),
      .faults = planted_fault_names<gradconf::nc::Fault>(),
      .laws = laws(),
      .fault_rows = fault_rows(),
      .check_repro = check_repro_line<Problem>,
      .validation_tested = {"NC-LIMIT-02"},
      // fp32 is extended's; the seed profile has fp16 and bf16.
      .bench_cases = {
          {"l32d16", "nc_grad --dt=f32 --profile=extended --seqs=8192.8192.8192.8192 n4d128l32s16"},
          {"l64d32", "nc_grad --dt=f32 --profile=extended --seqs=8192.8192.8192.8192 n4d128l64s32"},
          {"l32d16_bf16", "nc_grad --dt=bf16 --seqs=8192.8192.8192.8192 n4d128l32s16"},
          {"l32d16_f16", "nc_grad --seqs=8192.8192.8192.8192 n4d128l32s16"},
          {"l32d16_forward",
           "nc --dt=f32 --profile=extended --seqs=8192.8192.8192.8192 n4d128l32s16"},
          {"l32d16_forward_bf16", "nc --dt=bf16 --seqs=8192.8192.8192.8192 n4d128l32s16"}}};
  return family;
}

}  // namespace gradconf::props
