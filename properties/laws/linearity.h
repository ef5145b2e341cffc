// Law 4: backward is linear in the incoming gradient:
//   backward(a g1 + b g2) == a backward(g1) + b backward(g2)
// with dyadic g1, g2 and a, b such that a g1 + b g2 is exact in every dtype; each element is
// held to linearity_bound (derived in tolerance.h from one rounding of each side) plus the runs'
// cancellation floors (a kernel summing in its compute type errs by those), under the
// output's tolerance row's match fraction, cap and special-value rule (compare_bounded). Every
// output is requested, whatever the problem's output mask.
#ifndef GRADCONF_PROPERTIES_LAWS_LINEARITY_H_
#define GRADCONF_PROPERTIES_LAWS_LINEARITY_H_

#include <cmath>
#include <sstream>

#include "core/random.h"
#include "laws/law.h"

namespace gradconf::props {

template <typename Traits>
LawResult linear_in_incoming_gradient(const typename Traits::Problem& p0, const Backend& backend,
                                      double a, double b) {
  const auto p = Traits::as_backward(Traits::with_all_outputs(p0));
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
    return law_failure(
        "linear_in_incoming_gradient", repro,
        describe_status(r1) + " / " + describe_status(r2) + " / " + describe_status(rm));
  }
  LawResult result;
  result.measured.add_checks(1);  // the three runs succeed
  // A run may also err by its elements' cancellation floors; the mixed run's are at most
  // |a| times g1's plus |b| times g2's (its terms' magnitudes are).
  const std::vector<ExpectedOutput> reference1 = Traits::reference(p, g1);
  const std::vector<ExpectedOutput> reference2 = Traits::reference(p, g2);
  for (int out : Traits::wanted_outputs(p, call)) {
    const auto o = static_cast<size_t>(out);
    const std::string& name = call.tensors[o].name;
    const Tolerance& t = tolerance_for(Traits::op_name(p), name, Traits::dtype(p));
    const size_t count = rm.values[o].size();
    const std::vector<double> floors1 = floors_for(reference1, out, Traits::dtype(p));
    const std::vector<double> floors2 = floors_for(reference2, out, Traits::dtype(p));
    const bool floored = floors1.size() == count && floors2.size() == count;
    std::vector<double> combined(count), bounds(count);
    for (size_t k = 0; k < count; ++k) {
      const double part1 = a * r1.values[o][k], part2 = b * r2.values[o][k];
      combined[k] = part1 + part2;
      bounds[k] = linearity_bound(t, Traits::dtype(p), rm.values[o][k], part1, part2) +
                  (floored ? 2 * (std::fabs(a) * floors1[k] + std::fabs(b) * floors2[k]) : 0.0);
    }
    const Comparison c = compare_bounded(rm.values[o], combined, bounds, call.tensors[o].dims, t);
    result.measured.add(c, /*against_reference=*/false);
    if (c.status == CompareStatus::kFailed) {
      std::ostringstream why;
      why.precision(9);
      why << name << " (a=" << a << ", b=" << b
          << "): backward(a g1 + b g2) vs a backward(g1) + b backward(g2) under linearity_bound: "
          << c.summary();
      LawResult failed = law_failure("linear_in_incoming_gradient", repro, why.str());
      failed.measured = result.measured;
      return failed;
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_LINEARITY_H_
