// Law 2: for every input the forward is linear in, backward is its exact adjoint:
// <forward(u), g> == <u, backward(g)> up to a rounding bound derived from the sum of |terms|.
#ifndef GRADCONF_PROPERTIES_LAWS_ADJOINT_H_
#define GRADCONF_PROPERTIES_LAWS_ADJOINT_H_

#include <cmath>
#include <sstream>

#include "laws/law.h"

namespace gradconf::props {

template <typename Traits>
LawResult adjoint_identity(const typename Traits::Problem& p0, const Backend& backend) {
  const auto forward_problem = Traits::as_forward(p0);
  const auto backward_problem = Traits::as_backward(Traits::with_all_outputs(p0));
  const auto forward = Traits::make_call(forward_problem);
  const auto backward = Traits::make_call(backward_problem);
  const std::string repro = Traits::repro(backward_problem);
  const Outcome f = Traits::run(forward, {}, backend);
  const Outcome b = Traits::run(backward, {}, backend);
  if (!f.ok() || !b.ok()) {
    return law_failure("adjoint_identity", repro,
                       "forward " + describe_status(f) + ", backward " + describe_status(b));
  }
  LawResult result;
  for (const Differentiable& d : Traits::differentiable(backward_problem)) {
    if (!d.linear) continue;
    const auto& u = forward.tensors[role_at(forward, d.input)].values;
    const auto& g = backward.tensors[role_at(backward, d.incoming)].values;
    const double lhs = dot(f.values[role_at(forward, d.output)], g);
    const double rhs = dot(u, b.values[role_at(backward, d.gradient)]);
    const double magnitude = Traits::adjoint_magnitude(backward_problem, forward, backward, d);
    double output_weights = 0;
    for (const double x : g) output_weights += std::fabs(x);
    for (const double x : u) output_weights += std::fabs(x);
    const double bound =
        adjoint_bound(Traits::dtype(backward_problem),
                      Traits::accumulation_length(backward_problem), magnitude, output_weights);
    result.measured.add_bound(std::fabs(lhs - rhs), bound, magnitude);
    if (!(std::fabs(lhs - rhs) <= bound)) {
      std::ostringstream why;
      why.precision(17);
      why << "<forward(u), g> = " << lhs << " but <u, " << d.gradient << "(g)> = " << rhs
          << ", |diff| " << std::fabs(lhs - rhs) << " > bound " << bound << " (sum of |terms| "
          << magnitude << ")";
      LawResult failed = law_failure("adjoint_identity", repro, why.str());
      failed.measured = result.measured;
      return failed;
    }
  }
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_ADJOINT_H_
