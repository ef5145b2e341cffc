// Hand-written clause rows: for each clause of an op and each profile it is active in, one call on
// each side of the boundary, written as an edit of a small valid call. The status each row
// expects is read from the seed document (000's 返回值 section: 161001 for a null pointer, 161002
// for every other rejected argument; 001, 003 and 004 refer to the same aclnn convention), and
// typed into the row: nothing here reads the clause table's status, profile tags or limits, so a
// table that flips a status or mis-tags a profile disagrees with these rows. The table is read
// only for its list of ids, to prove the rows cover it.
#ifndef GRADCONF_TESTS_SUPPORT_CLAUSE_ROWS_H_
#define GRADCONF_TESTS_SUPPORT_CLAUSE_ROWS_H_

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/direction.h"
#include "core/profile.h"
#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::testing {

inline constexpr aclnnStatus kNullStatus = 161001;     ///< ACLNN_ERR_PARAM_NULLPTR
inline constexpr aclnnStatus kInvalidStatus = 161002;  ///< ACLNN_ERR_PARAM_INVALID

using CallEdit = std::function<void(props::Call&)>;

struct Edit {
  std::string what;  ///< e.g. "C = 12 (not a multiple of 8)"
  CallEdit apply;
};

enum Entries : unsigned { kForwardEntry = 1, kBackwardEntry = 2, kBothEntries = 3 };

struct ClauseRow {
  std::string clause;                 ///< "MSDA-LIMIT-01"
  std::vector<SpecProfile> profiles;  ///< the profiles the row is written for
  unsigned entries = kBothEntries;
  aclnnStatus status = kInvalidStatus;  ///< typed from the seed document, never from the table
  Edit just_valid;
  Edit just_invalid;
};

/// The call as it is: the just-valid side of a clause whose boundary is "present" or "well-formed".
inline const Edit kAsGiven = {"as given", [](props::Call&) {}};

/// <clause>-NULL-01 rows: `role` (a tensor) passed as nullptr, against the call as it is.
inline ClauseRow null_tensor_row(std::string clause, std::vector<SpecProfile> profiles,
                                 unsigned entries, const std::string& role) {
  return {std::move(clause),
          std::move(profiles),
          entries,
          kNullStatus,
          kAsGiven,
          {role + " = nullptr", [role](props::Call& c) { c.tensor(role).null = true; }}};
}

/// One side of a clause's boundary and the entries it applies to.
struct Side {
  unsigned entries = kBothEntries;
  Edit edit;
};

/// Rows of one clause with several edits per side: every just-invalid edit is paired with a
/// just-valid one (in turn) and every just-valid edit with a just-invalid one. A pair runs on the
/// entries both sides apply to; a just-invalid edit no just-valid one shares an entry with is
/// paired with the call as given.
std::vector<ClauseRow> rows_of(const std::string& clause, const std::vector<SpecProfile>& profiles,
                               aclnnStatus status, const std::vector<Side>& just_valid,
                               const std::vector<Side>& just_invalid);

/// A small valid call of one entry under one profile.
using BaseCall = std::function<props::Call(Direction, SpecProfile)>;

/// Runs every row on the linked backend: the just-valid call must succeed and write its
/// outputs; the just-invalid one must return the row's status with a message that starts with
/// "<clause>: ", and leave every output byte alone.
void expect_rows_hold(const BaseCall& base, std::span<const ClauseRow> rows);

/// Every (clause id, implemented profile) of `table_ids` has a row; `table_ids` lists the table's
/// (id, profile set) pairs. Rows for ids the table lacks fail too.
void expect_rows_cover(std::span<const std::pair<std::string_view, ProfileSet>> table_ids,
                       std::span<const ClauseRow> rows);

/// Rows written over an op's problem descriptor: the base call is make_call(base_problem), and
/// an edit may rebuild the call from an edited problem (every shape relation kept) before it
/// edits the call itself. A just-invalid problem is built with make_invalid_call when given: a
/// call whose inputs need nothing computed from the (invalid) problem, e.g. no reference run.
template <typename Problem>
Problem default_problem(Direction direction, SpecProfile profile) {
  Problem p;
  p.entry = direction;
  p.profile = profile;
  return p;
}

template <typename Problem>
struct ProblemCalls {
  std::function<props::Call(const Problem&)> make_call;
  std::function<props::Call(const Problem&)> make_invalid_call = nullptr;
  /// The base problem: the descriptor's defaults for the entry and profile.
  std::function<Problem(Direction, SpecProfile)> base_problem = default_problem<Problem>;

  BaseCall base() const {
    return [*this](Direction direction, SpecProfile profile) {
      props::Call call = make_call(base_problem(direction, profile));
      call.profile = profile;
      return call;
    };
  }
  /// The call of the problem edited by `problem_edit` (still valid), then edited by `call_edit`.
  CallEdit remade(
      std::function<void(Problem&)> problem_edit, CallEdit call_edit = [](props::Call&) {}) const {
    return rebuilt(std::move(problem_edit), std::move(call_edit), make_call);
  }
  /// The same for a problem the edit makes invalid.
  CallEdit broken(
      std::function<void(Problem&)> problem_edit, CallEdit call_edit = [](props::Call&) {}) const {
    return rebuilt(std::move(problem_edit), std::move(call_edit),
                   make_invalid_call ? make_invalid_call : make_call);
  }

 private:
  CallEdit rebuilt(std::function<void(Problem&)> problem_edit, CallEdit call_edit,
                   std::function<props::Call(const Problem&)> make) const {
    return [*this, problem_edit, call_edit, make](props::Call& call) {
      Problem p = base_problem(call.entry->direction, call.profile);
      problem_edit(p);
      const SpecProfile profile = call.profile;
      call = make(p);
      call.profile = profile;
      call_edit(call);
    };
  }
};

/// The (id, profile set) pairs of a clause table, but those in `elsewhere` (clauses another test
/// pins at their boundary, e.g. workspace limits that need views of 2^55 elements).
template <typename Clauses>
std::vector<std::pair<std::string_view, ProfileSet>> clause_ids(
    const Clauses& table, std::initializer_list<std::string_view> elsewhere = {}) {
  std::vector<std::pair<std::string_view, ProfileSet>> ids;
  for (const auto& clause : table) {
    if (std::find(elsewhere.begin(), elsewhere.end(), clause.id) == elsewhere.end()) {
      ids.emplace_back(clause.id, clause.profiles);
    }
  }
  return ids;
}

/// Resizes dim `dim` of every listed tensor and drops their values (the harness fills zeros).
void resize(props::Call& call, std::initializer_list<std::pair<const char*, size_t>> sites,
            int64_t size);

}  // namespace gradconf::testing

#endif  // GRADCONF_TESTS_SUPPORT_CLAUSE_ROWS_H_
