// Law 3: in double, away from kinks, every gradient the backward returns agrees with central
// differences of L(x) = <forward(x), g> along a random direction d, Richardson-extrapolated:
//   D(s) = (L(x + s d) - L(x - s d)) / 2s,   R(s) = (4 D(s/2) - D(s)) / 3,
//   R(h/2) == <dL/dx, d> within |R(h) - R(h/2)| (its own error estimate) + rounding,
//   h = 2^-10 max(1, max|x|).
// The extrapolation cancels the h^2 term: a plain D(h) is off by h^2 L''' / 6, which softmax
// scores of slope scale * sqrt(D) ~ 3-8 per unit step (NsaSelectedAttention) push to ~2e-6 of
// the magnitude, past the bound. Both steps stay within h of x, the margin the smooth generators
// keep from kinks.
// Both sides use the backend under test, so a backward that is not the derivative of its own
// forward fails even when both look plausible.
#ifndef GRADCONF_PROPERTIES_LAWS_FINITE_DIFFERENCES_H_
#define GRADCONF_PROPERTIES_LAWS_FINITE_DIFFERENCES_H_

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/random.h"
#include "laws/law.h"

namespace gradconf::props {

template <typename Traits>
LawResult finite_differences(const typename Traits::Problem& p0, const Backend& backend,
                             uint64_t direction_seed) {
  const auto p = Traits::as_backward(Traits::smooth_double(p0));
  const auto backward = Traits::make_call(p);
  const std::string repro = Traits::repro(p);
  const Outcome b = Traits::run(backward, {}, backend);
  if (!b.ok()) return law_failure("finite_differences", repro, "backward " + describe_status(b));
  const auto forward = Traits::make_call(Traits::as_forward(p));
  LawResult result;
  for (const Differentiable& d : Traits::differentiable(p)) {
    const size_t x_at = role_at(forward, d.input), y_at = role_at(forward, d.output);
    const auto& x = forward.tensors[x_at].values;
    const auto& g = backward.tensors[role_at(backward, d.incoming)].values;
    const auto& gradient = b.values[role_at(backward, d.gradient)];
    SplitMix64 rng(direction_seed, static_cast<uint64_t>(x_at));
    std::vector<double> direction(x.size());
    for (double& v : direction) v = rng.uniform(-1, 1);
    double scale = 1;
    for (double v : x) scale = std::max(scale, std::fabs(v));
    const double h = kFiniteDifferenceStep * scale;
    double loss_terms = 0;  // max over the shifted runs of sum_k |f_k g_k|: the rounding scale
    auto loss_at = [&](double step, double* out) {
      auto shifted = forward;
      auto& values = shifted.tensors[x_at].values;
      for (size_t i = 0; i < values.size(); ++i) values[i] += step * direction[i];
      const Outcome f = Traits::run(shifted, {}, backend);
      if (!f.ok()) return f;
      const auto& outputs = f.values[y_at];
      *out = dot(outputs, g);
      loss_terms = std::max(loss_terms, abs_dot(outputs, g));
      return f;
    };
    double central[3] = {0, 0, 0};  // D(h), D(h/2), D(h/4)
    for (int halvings = 0; halvings < 3; ++halvings) {
      const double step = std::ldexp(h, -halvings);
      double plus = 0, minus = 0;
      for (const double signed_step : {step, -step}) {
        const Outcome f = loss_at(signed_step, signed_step > 0 ? &plus : &minus);
        if (!f.ok())
          return law_failure("finite_differences", repro, "forward " + describe_status(f));
      }
      central[halvings] = (plus - minus) / (2 * step);
    }
    const double coarse = (4 * central[1] - central[0]) / 3;
    const double numeric = (4 * central[2] - central[1]) / 3;
    const double analytic = dot(gradient, direction);
    const double magnitude = abs_dot(gradient, direction);
    const double bound =
        finite_difference_bound(magnitude, loss_terms, h, std::fabs(coarse - numeric));
    result.measured.add_bound(std::fabs(numeric - analytic), bound, magnitude);
    if (!(std::fabs(numeric - analytic) <= bound)) {
      std::ostringstream why;
      why.precision(17);
      why << d.gradient << ": extrapolated central difference " << numeric << " vs <gradient, d> "
          << analytic << ", |diff| " << std::fabs(numeric - analytic) << " > bound " << bound
          << " (h " << h << ", direction seed " << direction_seed << ")";
      LawResult failed = law_failure("finite_differences", repro, why.str());
      failed.measured = result.measured;
      return failed;
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_FINITE_DIFFERENCES_H_
