// Law 1: every wanted output agrees with the double reference under the tolerance table.
#ifndef GRADCONF_PROPERTIES_LAWS_MATCHES_REFERENCE_H_
#define GRADCONF_PROPERTIES_LAWS_MATCHES_REFERENCE_H_

#include <algorithm>

#include "laws/law.h"

namespace gradconf::props {

template <typename Traits>
LawResult matches_reference(const typename Traits::Problem& p, const Backend& backend) {
  const auto call = Traits::make_call(p);
  const Outcome outcome = Traits::run(call, {}, backend);
  const std::string repro = Traits::repro(p);
  if (!outcome.ok() || !outcome.violations.empty()) {
    return law_failure("matches_reference", repro, describe_status(outcome));
  }
  // Outputs the call does not want (outputMask false, null mask early-out) keep their canaries.
  const auto wanted = Traits::wanted_outputs(p, call);
  for (size_t t = 0; t < call.tensors.size(); ++t) {
    const bool is_wanted =
        std::find(wanted.begin(), wanted.end(), static_cast<int>(t)) != wanted.end();
    if (call.tensors[t].output && !call.tensors[t].null && !is_wanted &&
        !outcome.view_untouched[t]) {
      return law_failure("matches_reference", repro,
                         call.tensors[t].name + " is not wanted but was written");
    }
  }
  LawResult result;
  for (const ExpectedOutput& expected : Traits::reference(p, call)) {
    const auto& got = outcome.values[static_cast<size_t>(expected.tensor)];
    const Comparison c =
        compare(got, expected.values, expected.dims,
                tolerance_for(Traits::op_name(p), expected.name, Traits::dtype(p)));
    result.measured.add(c);
    if (c.status == CompareStatus::kFailed) {
      LawResult failed =
          law_failure("matches_reference", repro, expected.name + ": " + c.summary());
      failed.measured = result.measured;
      return failed;
    }
    if (c.status == CompareStatus::kMistrusted) {
      result.mistrusted = true;
      result.mistrust_reason = expected.name + ": " + std::to_string(c.zero_fraction * 100) +
                               "% of the expected values are zero";
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_MATCHES_REFERENCE_H_
