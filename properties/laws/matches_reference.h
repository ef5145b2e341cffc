// Law 1: every wanted output agrees with the double reference under the tolerance table.
#ifndef GRADCONF_PROPERTIES_LAWS_MATCHES_REFERENCE_H_
#define GRADCONF_PROPERTIES_LAWS_MATCHES_REFERENCE_H_

#include <fmt/format.h>

#include <algorithm>

#include "laws/law.h"

namespace gradconf::props {

/// Law 1 on a given call of `p` (the law's own call is Traits::make_call(p); pinned cases hand in
/// one whose values they chose).
template <typename Traits>
LawResult matches_reference_on(const typename Traits::Problem& p, const Call& call,
                               const Backend& backend) {
  const Outcome outcome = Traits::run(call, {}, backend);
  const std::string repro = Traits::repro(p);
  if (!outcome.ok() || !outcome.violations.empty()) {
    return law_failure("matches_reference", repro, describe_status(outcome));
  }
  LawResult result;
  result.measured.add_checks(1);  // the status of a valid call
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
    if (call.tensors[t].output && !call.tensors[t].null && !is_wanted) {
      result.measured.add_checks(1);
    }
  }
  std::vector<OutputZeros> evidence;
  std::string zero_outputs;
  for (const ExpectedOutput& expected : Traits::reference(p, call)) {
    const auto& got = outcome.values[static_cast<size_t>(expected.tensor)];
    const Comparison c = expected.compare_with(
        got, tolerance_for(Traits::op_name(p), expected.name, Traits::dtype(p)), Traits::dtype(p));
    result.measured.add(c);
    if (c.status == CompareStatus::kFailed) {
      LawResult failed =
          law_failure("matches_reference", repro, expected.name + ": " + c.summary());
      failed.measured = result.measured;
      return failed;
    }
    const auto output_zeros = std::llround(c.zero_fraction * static_cast<double>(c.count));
    evidence.push_back(
        {.compared = c.count, .zeros = output_zeros, .structural = expected.structural_zeros});
    zero_outputs += fmt::format("{}{} {}/{} ({} by construction)", zero_outputs.empty() ? "" : ", ",
                                expected.name, output_zeros, c.count,
                                std::min<int64_t>(expected.structural_zeros, output_zeros));
  }
  // Elements zero by construction (keys no query reaches, nearest sampling's gridGrad) are still
  // compared element by element but carry no evidence; an output that is zero only for the inputs
  // drawn counts as zeros, and the case's other outputs carry the evidence.
  if (proves_little(evidence)) {
    result.mistrusted = true;
    result.mistrust_reason = fmt::format(
        "no output has more than {:.0f}% of its expected values nonzero (zeros by construction "
        "left out; zero/compared per output: {}): agreement on them proves little, in '{}'",
        (1 - kMistrustZeroFraction) * 100, zero_outputs, repro);
  }
  return result;
}

template <typename Traits>
LawResult matches_reference(const typename Traits::Problem& p, const Backend& backend) {
  return matches_reference_on<Traits>(p, Traits::make_call(p), backend);
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_MATCHES_REFERENCE_H_
