// Law 4: backward is linear in the incoming gradient:
//   backward(a g1 + b g2) == a backward(g1) + b backward(g2)
// with a, b powers of two and dyadic g1, g2 so that a g1 + b g2 is exact in every dtype; the
// comparison uses linearity_tolerance (twice the precision standard, derived in tolerance.h).
#ifndef GRADCONF_PROPERTIES_LAWS_LINEARITY_H_
#define GRADCONF_PROPERTIES_LAWS_LINEARITY_H_

#include "core/random.h"
#include "laws/law.h"

namespace gradconf::props {

template <typename Traits>
LawResult linear_in_incoming_gradient(const typename Traits::Problem& p0,
                                      const typename Traits::Backend& backend, double a, double b) {
  const auto p = Traits::as_backward(p0);
  const auto call = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  const auto incoming = Traits::incoming_gradients(call);
  auto g1 = call, g2 = call, mixed = call;
  for (int index : incoming) {
    const auto i = static_cast<size_t>(index);
    SplitMix64 rng(0x11ea5, i);
    for (size_t k = 0; k < call.tensors[i].values.size(); ++k) {
      // Dyadic k/4 values of magnitude <= 4: a g1 + b g2 is exact even in bfloat16.
      const double v1 = (static_cast<double>(rng.below(17)) - 8) / 4;
      const double v2 = (static_cast<double>(rng.below(17)) - 8) / 4;
      g1.tensors[i].values[k] = v1;
      g2.tensors[i].values[k] = v2;
      mixed.tensors[i].values[k] = a * v1 + b * v2;
    }
  }
  const Outcome r1 = Traits::run(g1, {}, backend);
  const Outcome r2 = Traits::run(g2, {}, backend);
  const Outcome rm = Traits::run(mixed, {}, backend);
  if (!r1.ok() || !r2.ok() || !rm.ok()) {
    return law_failure("linear_in_incoming_gradient", repro,
                       describe_status(r1) + " / " + describe_status(r2) + " / " + describe_status(rm));
  }
  LawResult result;
  for (int out : Traits::wanted_outputs(p, call)) {
    const auto o = static_cast<size_t>(out);
    std::vector<double> combined(r1.values[o].size());
    for (size_t k = 0; k < combined.size(); ++k) combined[k] = a * r1.values[o][k] + b * r2.values[o][k];
    const Comparison c = compare(rm.values[o], combined, call.tensors[o].dims,
                                 linearity_tolerance(Traits::op_name(p), call.tensors[o].name, Traits::dtype(p)));
    if (c.status == CompareStatus::kFailed) {
      return law_failure("linear_in_incoming_gradient", repro,
                         call.tensors[o].name + " (a=" + std::to_string(a) + ", b=" + std::to_string(b) + "): " + c.summary());
    }
    result.mistrusted = result.mistrusted || c.status == CompareStatus::kMistrusted;
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_LINEARITY_H_
