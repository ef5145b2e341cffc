// Law 10: a call that breaks exactly one clause at its boundary returns that clause's status with
// a message naming the clause, and writes nothing (canary-filled outputs, inputs and workspace
// out-pointers stay intact); the call on the allowed side of the same boundary succeeds.
#ifndef GRADCONF_PROPERTIES_LAWS_ERROR_CONTRACT_H_
#define GRADCONF_PROPERTIES_LAWS_ERROR_CONTRACT_H_

#include "laws/law.h"

namespace gradconf::props {

/// The expectation attached to a boundary call by the generators (properties/gen).
struct ClauseExpectation {
  std::string clause_id;
  aclnnStatus status = ACLNN_SUCCESS;  ///< the clause's status (just-invalid) or SUCCESS
  bool just_valid = false;
};

template <typename Traits>
LawResult error_contract(const typename Traits::Call& call, const ClauseExpectation& expected,
                         const std::string& repro, const Backend& backend) {
  const Outcome outcome = Traits::run(call, values_unread(), backend);
  const std::string side = expected.just_valid ? "just-valid side of " : "just-invalid side of ";
  auto fail = [&](const std::string& why) {
    return law_failure("error_contract", repro, side + expected.clause_id + ": " + why);
  };
  if (outcome.status != expected.status) {
    return fail("expected status " + std::to_string(expected.status) + ", got " +
                describe_status(outcome));
  }
  if (!outcome.inputs_untouched || !outcome.outside_views_untouched ||
      !outcome.workspace_guard_intact) {
    return fail(outcome.violations);
  }
  LawResult result;
  result.measured.add_checks(2);  // the status, and nothing written outside the views
  if (expected.just_valid) return result;
  if (expected.status != ACLNN_SUCCESS && outcome.message.rfind(expected.clause_id + ":", 0) != 0) {
    return fail("message does not start with the clause id: '" + outcome.message + "'");
  }
  for (size_t t = 0; t < call.tensors.size(); ++t) {
    if (call.tensors[t].output && !call.tensors[t].null && !outcome.view_untouched[t]) {
      return fail("output " + call.tensors[t].name + " was written");
    }
    if (call.tensors[t].output && !call.tensors[t].null) result.measured.add_checks(1);
  }
  result.measured.add_checks(1);  // the message names the clause
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_ERROR_CONTRACT_H_
