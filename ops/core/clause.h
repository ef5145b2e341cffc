// Validation clauses are data (spec README §5): the same table drives phase-1 validation, the
// generators of just-invalid problems, the validation fuzzers' oracle and the report's
// traceability matrix. Validating a call = running its table in order; the first violated clause
// of the active profile decides the status.
#ifndef GRADCONF_OPS_CORE_CLAUSE_H_
#define GRADCONF_OPS_CORE_CLAUSE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "aclnn/acl_meta.h"
#include "core/profile.h"

namespace gradconf {

/// One rule. `check` returns nullopt when the call satisfies the rule, otherwise the
/// "expected ..., but got ..." text. A clause whose status is ACLNN_SUCCESS is an early-out: when
/// it fires, phase 1 succeeds with workspace 0 and an executor that computes nothing.
template <typename Args>
struct Clause {
  std::string_view id;
  ProfileSet profiles;
  aclnnStatus status;
  std::string_view source;     ///< seed file and section, or "Decision"
  std::string_view condition;  ///< what triggers the clause, as the spec table words it
  std::optional<std::string> (*check)(const Args&);
};

/// What phase 1 learns from the table.
struct Verdict {
  aclnnStatus status = ACLNN_SUCCESS;
  std::string_view clause_id;  ///< the clause that fired; empty when none did
  std::string message;         ///< "<id>: <expected ..., but got ...>"
  bool early_out() const { return status == ACLNN_SUCCESS && !clause_id.empty(); }
  bool proceed() const { return status == ACLNN_SUCCESS && clause_id.empty(); }
};

template <typename Args>
Verdict run_clauses(std::span<const Clause<Args>> table, const Args& args, SpecProfile profile) {
  for (const auto& clause : table) {
    if (!contains(clause.profiles, profile)) continue;
    if (auto violation = clause.check(args)) {
      return Verdict{clause.status, clause.id, std::string(clause.id) + ": " + *violation};
    }
  }
  return Verdict{};
}

/// The table's verdict with clause `skipped` left out (validation resumes after it when it
/// fires): how planted faults drop one clause. An empty `skipped` leaves nothing out.
template <typename Args>
Verdict run_clauses_without(std::span<const Clause<Args>> table, const Args& args,
                            SpecProfile profile, std::string_view skipped) {
  Verdict verdict = run_clauses(table, args, profile);
  if (skipped.empty() || verdict.clause_id != skipped) return verdict;
  size_t next = 0;
  while (table[next].id != skipped) ++next;
  return run_clauses(table.subspan(next + 1), args, profile);
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_CLAUSE_H_
