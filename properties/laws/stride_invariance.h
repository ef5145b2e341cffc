// Law 5: the problem's layouts (permuted, padded with NaN gaps, offset, zero-stride inputs, on
// inputs and outputs) give the same results as the all-contiguous run (the same bits on a backend
// that promises them, laws/rerun.h), and nothing outside the
// output views is written. A problem drawn all contiguous would compare a call with itself: its
// tensors are then laid out padded and offset (reversed too, for odd seeds), so every case
// compares two different memory layouts.
#ifndef GRADCONF_PROPERTIES_LAWS_STRIDE_INVARIANCE_H_
#define GRADCONF_PROPERTIES_LAWS_STRIDE_INVARIANCE_H_

#include "laws/law.h"
#include "laws/rerun.h"

namespace gradconf::props {

/// A non-contiguous layout for `tensor`: 1-3 elements of padding after each level, a 1-4 element
/// leading offset, and for odd seeds the dims in reversed memory order.
inline LayoutSpec strided_layout(const TensorSpec& tensor, uint64_t seed) {
  LayoutSpec layout;
  layout.pad = 1 + static_cast<int64_t>(seed % 3);
  layout.offset = 1 + static_cast<int64_t>((seed / 3) % 4);
  if (seed % 2 == 1 && tensor.dims.size() > 1) {
    for (int d = static_cast<int>(tensor.dims.size()) - 1; d >= 0; --d) layout.order.push_back(d);
  }
  return layout;
}

template <typename Traits>
LawResult stride_invariance(const typename Traits::Problem& p, const Backend& backend) {
  auto strided_call = Traits::make_call(p);
  const bool all_contiguous =
      std::all_of(strided_call.tensors.begin(), strided_call.tensors.end(),
                  [](const TensorSpec& t) { return t.null || t.layout.contiguous(); });
  if (all_contiguous) {
    for (auto& tensor : strided_call.tensors) tensor.layout = strided_layout(tensor, p.seed);
  }
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
  LawResult result;
  result.measured.add_checks(1);  // nothing written outside the views
  // Compared to a bound only without the bitwise promise: then each run's floors count.
  const std::vector<ExpectedOutput> reference = backend.bitwise_invariant()
                                                    ? std::vector<ExpectedOutput>{}
                                                    : Traits::reference(p, strided_call);
  for (int out : Traits::wanted_outputs(p, strided_call)) {
    const auto o = static_cast<size_t>(out);
    const std::string& name = strided_call.tensors[o].name;
    const auto why = rerun_difference(
        backend, tolerance_for(Traits::op_name(p), name, Traits::dtype(p)), Traits::dtype(p),
        strided.values[o], dense.values[o], strided_call.tensors[o].dims, result.measured,
        floors_for(reference, out, Traits::dtype(p)));
    if (why) {
      LawResult failed = law_failure("stride_invariance", repro,
                                     name + " differs from the contiguous run " + *why);
      failed.measured = result.measured;
      return failed;
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_STRIDE_INVARIANCE_H_
