// The API fuzz target of any op: bytes -> Problem -> the one harness -> the laws' oracles. The
// first byte picks what is checked:
//   reference  the outputs match the double reference under the tolerance table, unwanted
//              outputs and everything outside the views keep their canaries;
//   boundary   one clause broken at its boundary (or the edit kept valid): the status is the one
//              the clause table predicts, the message names the clause, outputs are untouched;
//   workspace  phase 1 is pure, phase 2 works on a garbage or misaligned workspace, a short one
//              is refused, an executor runs once.
// Any violation prints the law's detail (with the repro line) and traps. An op provides a byte
// decoder of valid problems, its coverage tags and its clause breakers.
#ifndef GRADCONF_FUZZ_COMMON_API_TARGET_H_
#define GRADCONF_FUZZ_COMMON_API_TARGET_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "common/fuzz_support.h"
#include "common/fuzzed_entry.h"
#include "gen/boundary.h"
#include "harness/harness.h"
#include "laws/laws.h"
#include "op/predict.h"
#include "registry/registry.h"

namespace gradconf::fuzz {

template <typename Traits>
struct ApiTarget {
  using Problem = typename Traits::Problem;
  Direction direction = Direction::kBackward;
  /// A valid problem of the direction (empty tensors and other edge cases included).
  Problem (*decode_problem)(FuzzedDataProvider& fdp, Direction direction) = nullptr;
  /// The base a breaker starts from: non-empty (an edit of an empty dim can fire an earlier
  /// clause than its own), everything the breakers need requested.
  Problem (*boundary_base)(Problem problem) = nullptr;
  std::vector<std::string> (*tags)(const Problem& problem) = nullptr;
  std::span<const props::ClauseBreaker> (*breakers)() = nullptr;
  /// The call a breaker edits; null: Traits::make_call. An op whose full call is costly (values,
  /// a reference forward for the backward's inputs) can give one with shapes, attributes and
  /// index values only: an error contract reads statuses, messages and canaries, not numbers.
  props::Call (*boundary_call)(const Problem& problem) = nullptr;
};

/// One clause broken at its boundary (or the same edit kept valid), as gen_boundary_case does.
struct BoundaryEdit {
  const props::ClauseBreaker* breaker = nullptr;
  uint64_t choice = 0;
  bool just_valid = false;
};

/// A breaker that applies to `direction`, a side and a choice.
BoundaryEdit decode_boundary_edit(FuzzedDataProvider& fdp,
                                  std::span<const props::ClauseBreaker> breakers,
                                  Direction direction);

template <typename Traits>
void check_boundary(const ApiTarget<Traits>& target, const typename Traits::Problem& p,
                    const BoundaryEdit& edit, const props::Backend& backend) {
  props::Call call = target.boundary_call ? target.boundary_call(p) : Traits::make_call(p);
  // A clause without a row in the problem's profile has no boundary there (cann-latest has no
  // MSDA-LIMIT-04): the breaker's edit would be a valid call, not a just-invalid one.
  const props::OpFamily* family = props::find_family(call.entry->family);
  if (family &&
      !contains(props::clause_profiles(family->clauses, edit.breaker->clause_id), call.profile)) {
    if (tags_enabled()) tag("boundary=clause-outside-profile");
    return;
  }
  edit.breaker->apply(call, edit.choice, edit.just_valid);
  const props::ExpectedVerdict verdict = props::predict(call);
  std::ostringstream repro;
  repro << Traits::repro(p) << " --break=" << edit.breaker->clause_id
        << " --side=" << (edit.just_valid ? "just-valid" : "just-invalid")
        << " --choice=" << edit.choice << "\n  call: " << props::summarize(call);
  // The harness cannot hand the operator a view aclCreateTensor refused: only a just-invalid edit
  // may make one (a just-valid call is valid, views included).
  if (!verdict.views_created) {
    if (edit.just_valid) {
      finding("the just-valid side of " + std::string(edit.breaker->clause_id) +
              " made a view aclCreateTensor refuses: " + repro.str());
    }
    if (tags_enabled()) tag("views=refused");
    return;
  }
  if (!edit.just_valid && verdict.clause_id != edit.breaker->clause_id) {
    finding("breaker " + std::string(edit.breaker->clause_id) +
            " made a call whose first violated clause is '" + verdict.clause_id +
            "': " + repro.str());
  }
  if (tags_enabled()) {
    tag("clause=" + std::string(edit.breaker->clause_id) +
        (edit.just_valid ? " just-valid" : " just-invalid"));
  }
  const props::ClauseExpectation expected{verdict.clause_id, verdict.status, verdict.proceeds()};
  require(props::error_contract<Traits>(call, expected, repro.str(), backend));
}

template <typename Traits>
int run_api_target(const uint8_t* data, size_t size, const ApiTarget<Traits>& target) {
  const props::Backend& backend = Traits::default_backend();
  FuzzedDataProvider fdp(data, size);
  const int check = fdp.ConsumeIntegralInRange<int>(0, 2);
  const typename Traits::Problem p = target.decode_problem(fdp, target.direction);
  static constexpr const char* kCheckNames[] = {"check=reference", "check=boundary",
                                                "check=workspace"};
  if (tags_enabled()) {
    tag(kCheckNames[check]);
    for (const std::string& t : target.tags(p)) tag(t);
  }
  switch (check) {
    case 0:
      require(props::matches_reference<Traits>(p, backend));
      break;
    case 1:
      check_boundary<Traits>(target, target.boundary_base(p),
                             decode_boundary_edit(fdp, target.breakers(), target.direction),
                             backend);
      break;
    default:
      require(props::workspace_contract<Traits>(p, backend));
      break;
  }
  props::release_thread_caches();
  return 0;
}

}  // namespace gradconf::fuzz

#endif  // GRADCONF_FUZZ_COMMON_API_TARGET_H_
