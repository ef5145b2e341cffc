// Law 6: the same problem in every floating dtype agrees with the double reference under that
// dtype's precision standard, and, where the op's semantics depend on the dtype only through
// rounding, each low-precision run agrees with the backend's own float64 run on the same (rounded)
// inputs: one dispatch per dtype, one semantics.
#ifndef GRADCONF_PROPERTIES_LAWS_DTYPE_AGREEMENT_H_
#define GRADCONF_PROPERTIES_LAWS_DTYPE_AGREEMENT_H_

#include <array>

#include "core/dtype.h"
#include "core/profile.h"
#include "core/repro.h"
#include "laws/law.h"
#include "laws/matches_reference.h"
#include "op/op_spec.h"

namespace gradconf::props {

template <typename Traits>
LawResult dtype_agreement(const typename Traits::Problem& p, const Backend& backend) {
  LawResult result;
  for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE}) {
    const auto typed = Traits::with_dtype(p, dtype);
    LawResult vs_reference = matches_reference<Traits>(typed, backend);
    if (!vs_reference.holds) {
      vs_reference.detail = "dtype_agreement: " + vs_reference.detail;
      return vs_reference;
    }
    // The problem's own dtype gives the cell its errors; the others their margins and counts.
    if (dtype == Traits::dtype(p)) {
      result.measured.merge(vs_reference.measured);
    } else {
      result.measured.merge_margin(vs_reference.measured);
    }
    if (vs_reference.mistrusted && !result.mistrusted) {
      result.mistrusted = true;
      result.mistrust_reason = std::string(dtype_repro_name(dtype)) +
                               " vs the reference: " + vs_reference.mistrust_reason;
    }
    if (dtype == ACL_DOUBLE || !Traits::same_semantics_in_float64(typed)) continue;
    // The same rounded inputs in float64: only the kernel's precision differs.
    const auto call = Traits::make_call(typed);
    const auto wide = Traits::in_float64(call);
    const Outcome narrow_run = Traits::run(call, {}, backend);
    const Outcome wide_run = Traits::run(wide, {}, backend);
    if (!narrow_run.ok() || !wide_run.ok()) {
      return law_failure("dtype_agreement", Traits::repro(typed),
                         describe_status(narrow_run) + " / float64 " + describe_status(wide_run));
    }
    // The float64 run stands in for the exact value: the narrow run may cancel as the
    // reference's term magnitudes allow.
    const std::vector<ExpectedOutput> reference = Traits::reference(typed, call);
    for (int out : Traits::wanted_outputs(typed, call)) {
      const auto o = static_cast<size_t>(out);
      const Comparison c =
          compare(narrow_run.values[o], wide_run.values[o], call.tensors[o].dims,
                  tolerance_for(Traits::op_name(typed), call.tensors[o].name, dtype),
                  floors_for(reference, out, dtype));
      LawMeasurements vs_float64;
      vs_float64.add(c, /*against_reference=*/false);
      result.measured.merge_margin(vs_float64);
      if (c.status == CompareStatus::kFailed) {
        return law_failure("dtype_agreement", Traits::repro(typed),
                           call.tensors[o].name + " vs the float64 run: " + c.summary());
      }
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_DTYPE_AGREEMENT_H_
