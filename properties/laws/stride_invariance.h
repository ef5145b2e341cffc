// Law 5: the problem's layouts (permuted, padded with NaN gaps, offset, zero-stride inputs, on
// inputs and outputs) give the same bits as the all-contiguous run, and nothing outside the
// output views is written.
#ifndef GRADCONF_PROPERTIES_LAWS_STRIDE_INVARIANCE_H_
#define GRADCONF_PROPERTIES_LAWS_STRIDE_INVARIANCE_H_

#include "laws/law.h"

namespace gradconf::props {

template <typename Traits>
LawResult stride_invariance(const typename Traits::Problem& p, const Backend& backend) {
  const auto strided_call = Traits::make_call(p);
  // Same logical values, every tensor contiguous: built from the call, not the problem, because a
  // broadcast layout also makes its values constant along the broadcast dims.
  auto dense_call = strided_call;
  for (auto& tensor : dense_call.tensors) tensor.layout = LayoutSpec{};
  const std::string repro = Traits::repro(p);
  const Outcome strided = Traits::run(strided_call, {}, backend);
  const Outcome dense = Traits::run(dense_call, {}, backend);
  if (!strided.ok() || !dense.ok() || !strided.violations.empty()) {
    return law_failure(
        "stride_invariance", repro,
        "strided " + describe_status(strided) + ", contiguous " + describe_status(dense));
  }
  for (int out : Traits::wanted_outputs(p, strided_call)) {
    const auto o = static_cast<size_t>(out);
    const int64_t at = first_bit_difference(strided.values[o], dense.values[o]);
    if (at >= 0) {
      return law_failure("stride_invariance", repro,
                         strided_call.tensors[o].name +
                             " differs from the contiguous run at flat index " +
                             std::to_string(at) + ": " +
                             std::to_string(strided.values[o][static_cast<size_t>(at)]) + " vs " +
                             std::to_string(dense.values[o][static_cast<size_t>(at)]));
    }
  }
  return {};
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_STRIDE_INVARIANCE_H_
