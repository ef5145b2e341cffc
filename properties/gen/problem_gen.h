// What every family's problem generator does the same way: draw the layouts of a drawn problem,
// and tag it with its entry, dtype and profile.
#ifndef GRADCONF_PROPERTIES_GEN_PROBLEM_GEN_H_
#define GRADCONF_PROPERTIES_GEN_PROBLEM_GEN_H_

#include <rapidcheck.h>

#include <string>
#include <vector>

#include "core/direction.h"
#include "core/profile.h"
#include "core/repro.h"
#include "gen/layout_gen.h"

namespace gradconf::props {

/// `base` with a layout drawn for each role of the entry by `rule_of(problem, role)` (a
/// LayoutRule); contiguous layouts when not `strided`.
template <typename Problem, typename RuleOf>
rc::Gen<Problem> with_layouts(rc::Gen<Problem> base, bool strided, RuleOf rule_of) {
  if (!strided) return base;
  return rc::gen::mapcat(base, [rule_of](const Problem& drawn) {
    return rc::gen::exec([drawn, rule_of] {
      Problem p = drawn;
      for (auto role : p.roles()) {
        const LayoutRule rule = rule_of(p, role);
        const int rank = static_cast<int>(p.dims(role).size());
        p.layout(role) = *gen_layout(rank, rule.broadcastable, rule.limits, rule.orders);
      }
      return p;
    });
  });
}

/// The coverage tags every problem has: "entry=...", "dtype=...", "profile=...".
template <typename Problem>
std::vector<std::string> common_tags(const Problem& p) {
  return {p.entry == Direction::kForward ? "entry=forward" : "entry=backward",
          "dtype=" + std::string(dtype_repro_name(p.dtype)),
          "profile=" + std::string(profile_name(p.profile))};
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_GEN_PROBLEM_GEN_H_
