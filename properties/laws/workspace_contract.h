// Law 9: the two-phase contract (spec README §1). Phase 1 is pure (writes no input or output
// byte) and idempotent (same size twice); a garbage-filled, misaligned workspace gives the same
// bits as a zeroed, aligned one and nothing is written past workspaceSize; a workspace one byte
// short, or null, is rejected with 161002 (EXEC-WS-01) before any output byte is written; an
// executor runs once (361001, EXEC-STATE-01, after); a null executor is 161001 (EXEC-NULL-01).
// Every phase-2 message names its clause. Four runs: the clean one (phase 1 twice, checked pure
// before phase 2), the perturbed one, the two refusals; a difference in bits costs one more run,
// which tells prior content from alignment. Every run asks for kThreads threads with every call
// split (where the backend offers it): a backend that gives each worker its own workspace slice
// has them all filled with garbage and guarded, however small the problem.
#ifndef GRADCONF_PROPERTIES_LAWS_WORKSPACE_CONTRACT_H_
#define GRADCONF_PROPERTIES_LAWS_WORKSPACE_CONTRACT_H_

#include "laws/law.h"

namespace gradconf::props {

namespace workspace_contract_detail {

inline constexpr int kThreads = 2;

/// Phase 1, queried twice: the same size, and no byte of any tensor written ("" if so).
inline std::string phase1_pure_and_idempotent(const Outcome& clean) {
  if (clean.failed_phase == 1) return "phase 1 " + describe_status(clean);
  if (!clean.workspace_sizes_agree) return "phase 1 returned different workspace sizes";
  if (!clean.phase1_writes.empty()) return "phase 1 wrote into " + clean.phase1_writes;
  return "";
}

/// An executor that ran is refused (361001, EXEC-STATE-01); a null one too (161001,
/// EXEC-NULL-01) whatever the entry.
inline std::string executor_refusals(const Call& call, const Outcome& ran_twice,
                                     const Backend& backend) {
  if (ran_twice.second_run_status != ACLNN_ERR_RUNTIME_ERROR ||
      clause_of_message(ran_twice.second_run_message) != "EXEC-STATE-01") {
    return "running an executor twice returned " + std::to_string(ran_twice.second_run_status) +
           " '" + ran_twice.second_run_message + "', expected 361001 naming EXEC-STATE-01";
  }
  const Phase2 phase2 = call.entry->phase2(backend);
  const aclnnStatus null_status = phase2(nullptr, 0, nullptr, nullptr);
  const char* null_message = backend.runtime().recent_error();
  const std::string null_text = null_message ? null_message : "";
  if (null_status != ACLNN_ERR_PARAM_NULLPTR || clause_of_message(null_text) != "EXEC-NULL-01") {
    return "phase 2 with a null executor returned " + std::to_string(null_status) + " '" +
           null_text + "', expected 161001 naming EXEC-NULL-01";
  }
  return "";
}

/// The wanted outputs of a garbage-filled, misaligned workspace, bit for bit those of a zeroed,
/// aligned one. A difference is told apart by one more run, garbage-filled and aligned.
template <typename Traits>
std::string same_bits(const Call& call, const std::vector<int>& wanted, const Outcome& clean,
                      const Outcome& perturbed, const Backend& backend, LawMeasurements& measured) {
  for (int out : wanted) {
    const auto o = static_cast<size_t>(out);
    measured.add_exact(static_cast<int64_t>(clean.values[o].size()));
    const int64_t at = first_bit_difference(clean.values[o], perturbed.values[o]);
    if (at < 0) continue;
    RunOptions garbage;
    garbage.workspace_fill = WorkspaceFill::kGarbage;
    garbage.threads = kThreads;
    const Outcome dirty = Traits::run(call, garbage, backend);
    const int64_t dirty_at =
        dirty.ok() ? first_bit_difference(clean.values[o], dirty.values[o]) : at;
    return call.tensors[o].name +
           (dirty_at >= 0 ? " depends on the workspace's prior content (flat index " +
                                std::to_string(dirty_at) + ")"
                          : " depends on the workspace pointer's alignment (flat index " +
                                std::to_string(at) + ")");
  }
  return "";
}

/// A workspace one byte short, or null, is refused with 161002 naming EXEC-WS-01 before any
/// output byte is written.
template <typename Traits>
std::string workspace_refusals(const Call& call, const Backend& backend,
                               LawMeasurements& measured) {
  RunOptions short_by_one = values_unread(), null_workspace = values_unread();
  short_by_one.workspace_shortfall = 1;
  null_workspace.null_workspace = true;
  const Outcome rejected = Traits::run(call, short_by_one, backend);
  const Outcome nulled = Traits::run(call, null_workspace, backend);
  for (const auto& [what, refused] : {std::pair{"a workspace one byte short", &rejected},
                                      std::pair{"a null workspace of the planned size", &nulled}}) {
    if (refused->status != ACLNN_ERR_PARAM_INVALID || refused->failed_phase != 2 ||
        clause_of_message(refused->message) != "EXEC-WS-01") {
      return std::string(what) + " gave " + describe_status(*refused) +
             ", expected 161002 naming EXEC-WS-01";
    }
    measured.add_checks(1);
    for (size_t t = 0; t < call.tensors.size(); ++t) {
      if (call.tensors[t].output && !refused->view_untouched[t]) {
        return std::string("a rejected phase 2 (") + what + ") wrote into " + call.tensors[t].name;
      }
    }
  }
  return "";
}

}  // namespace workspace_contract_detail

template <typename Traits>
LawResult workspace_contract(const typename Traits::Problem& p, const Backend& backend) {
  namespace steps = workspace_contract_detail;
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  auto fail = [&](const std::string& why) { return law_failure("workspace_contract", repro, why); };

  RunOptions zeroed, perturbed_options;
  zeroed.query_twice = true;
  zeroed.check_phase1_purity = true;
  perturbed_options.workspace_fill = WorkspaceFill::kGarbage;
  perturbed_options.misaligned_workspace = true;
  perturbed_options.run_phase2_twice = true;
  zeroed.threads = perturbed_options.threads = steps::kThreads;
  const Outcome clean = Traits::run(call, zeroed, backend);
  if (auto why = steps::phase1_pure_and_idempotent(clean); !why.empty()) return fail(why);
  const Outcome perturbed = Traits::run(call, perturbed_options, backend);
  if (!clean.ok() || !perturbed.ok())
    return fail(describe_status(clean) + " / " + describe_status(perturbed));
  for (const Outcome* run : {&clean, &perturbed}) {
    if (!run->workspace_guard_intact || !run->violations.empty()) return fail(run->violations);
  }
  if (auto why = steps::executor_refusals(call, perturbed, backend); !why.empty()) return fail(why);
  LawResult result;
  // Phase 1 pure and idempotent, the guard and the views intact on both runs, the second run and
  // the null executor refused.
  result.measured.add_checks(6);
  const auto wanted = Traits::wanted_outputs(p, call);
  if (auto why = steps::same_bits<Traits>(call, wanted, clean, perturbed, backend, result.measured);
      !why.empty()) {
    return fail(why);
  }
  if (clean.workspace_size > 0) {
    if (auto why = steps::workspace_refusals<Traits>(call, backend, result.measured);
        !why.empty()) {
      return fail(why);
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_WORKSPACE_CONTRACT_H_
