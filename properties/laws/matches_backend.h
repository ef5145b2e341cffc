// Law 12 (differential): the backend judged and the one it is judged against (`gradconf check
// --against`) agree on every case, each output within the sum of both sides' allowances against
// the double reference. A failure also says how far each side is from that reference, so a
// reader sees which implementation is off.
#ifndef GRADCONF_PROPERTIES_LAWS_MATCHES_BACKEND_H_
#define GRADCONF_PROPERTIES_LAWS_MATCHES_BACKEND_H_

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "compare/tolerance.h"
#include "laws/law.h"

namespace gradconf::props {

/// "PASSED, worst error / bound 0.3" of one side against the reference, for failure messages.
inline std::string side_against_reference(const Comparison& c) {
  return fmt::format("{} (worst |error| / bound {:.3g})", status_name(c.status),
                     c.worst_error_over_bound);
}

template <typename Traits>
LawResult matches_backend(const typename Traits::Problem& p, const Backend& backend) {
  const Backend* other = backend.against();
  if (!other) throw std::logic_error("matches_backend runs only with a backend to compare with");
  const Call call = Traits::make_call(p);
  const Outcome judged = Traits::run(call, {}, backend);
  const Outcome against = Traits::run(call, {}, *other);
  const std::string repro = Traits::repro(p);
  LawResult result;
  result.measured.add_checks(1);  // the two statuses
  if (judged.status != against.status) {
    return law_failure(
        "matches_backend", repro,
        "judged: " + describe_status(judged) + "; against: " + describe_status(against));
  }
  if (!judged.ok()) return result;  // refused alike: matches_reference judges whether rightly
  for (const auto& [side, outcome] : {std::pair{"judged", &judged}, {"against", &against}}) {
    if (!outcome->violations.empty()) {
      return law_failure("matches_backend", repro,
                         std::string(side) + " broke the call's contract: " + outcome->violations);
    }
  }
  // Outputs the call does not want keep their canaries on both, or on neither.
  const auto wanted = Traits::wanted_outputs(p, call);
  for (size_t t = 0; t < call.tensors.size(); ++t) {
    const TensorSpec& tensor = call.tensors[t];
    if (!tensor.output || tensor.null ||
        std::find(wanted.begin(), wanted.end(), static_cast<int>(t)) != wanted.end()) {
      continue;
    }
    result.measured.add_checks(1);
    if (judged.view_untouched[t] != against.view_untouched[t]) {
      return law_failure("matches_backend", repro,
                         tensor.name + " is not wanted; written by the " +
                             (judged.view_untouched[t] ? "against" : "judged") + " backend only");
    }
  }
  for (const ExpectedOutput& expected : Traits::reference(p, call)) {
    const auto t = static_cast<size_t>(expected.tensor);
    const Tolerance& row = tolerance_for(Traits::op_name(p), expected.name, Traits::dtype(p));
    const std::vector<double> floors = expected.floors(Traits::dtype(p));
    std::vector<double> bounds(expected.values.size());
    for (size_t i = 0; i < bounds.size(); ++i) {
      bounds[i] =
          backend_difference_bound(row, expected.values[i], floors.empty() ? 0.0 : floors[i]);
    }
    const Comparison between = compare_bounded(judged.values[t], against.values[t], bounds,
                                               expected.dims, between_backends(row));
    result.measured.add(between, /*against_reference=*/false);
    if (between.status != CompareStatus::kFailed) continue;
    const Comparison judged_side = expected.compare_with(judged.values[t], row, Traits::dtype(p));
    const Comparison against_side = expected.compare_with(against.values[t], row, Traits::dtype(p));
    LawResult failed = law_failure(
        "matches_backend", repro,
        fmt::format("{}: the backends differ: {}; against the double reference: judged {}, "
                    "against {}",
                    expected.name, between.summary(), side_against_reference(judged_side),
                    side_against_reference(against_side)));
    failed.measured = result.measured;
    return failed;
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_MATCHES_BACKEND_H_
