// Law 4: backward is linear in the incoming gradient:
//   backward(a g1 + b g2) == a backward(g1) + b backward(g2)
// with dyadic g1, g2 and a, b such that a g1 + b g2 is exact in every dtype; each element is
// held to linearity_bound (derived in tolerance.h from one rounding of each side).
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
    return law_failure(
        "linear_in_incoming_gradient", repro,
        describe_status(r1) + " / " + describe_status(r2) + " / " + describe_status(rm));
  }
  for (int out : Traits::wanted_outputs(p, call)) {
    const auto o = static_cast<size_t>(out);
    const std::string& name = call.tensors[o].name;
    const Tolerance& t = tolerance_for(Traits::op_name(p), name, Traits::dtype(p));
    const size_t count = rm.values[o].size();
    size_t matched = 0, first_mismatch = count;
    double worst_excess = 0;
    for (size_t k = 0; k < count; ++k) {
      const double part1 = a * r1.values[o][k], part2 = b * r2.values[o][k];
      const double mixed = rm.values[o][k];
      const double bound = linearity_bound(t, Traits::dtype(p), mixed, part1, part2);
      const double error = std::fabs(mixed - (part1 + part2));
      if (error <= bound || (std::isnan(mixed) && std::isnan(part1 + part2))) {
        ++matched;
        continue;
      }
      if (first_mismatch == count) first_mismatch = k;
      worst_excess = std::max(worst_excess, std::isnan(error) ? INFINITY : error / bound);
    }
    if (count > 0 &&
        static_cast<double>(matched) < t.min_match_fraction * static_cast<double>(count)) {
      const size_t k = first_mismatch;
      std::ostringstream why;
      why.precision(9);
      why << name << " (a=" << a << ", b=" << b << "): " << matched << "/" << count
          << " elements within linearity_bound; first at flat index " << k
          << ": backward(a g1 + b g2) = " << rm.values[o][k]
          << ", a backward(g1) + b backward(g2) = " << a * r1.values[o][k] + b * r2.values[o][k]
          << " (worst error/bound " << worst_excess << ")";
      return law_failure("linear_in_incoming_gradient", repro, why.str());
    }
  }
  return {};
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_LINEARITY_H_
