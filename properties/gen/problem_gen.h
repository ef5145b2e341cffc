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

namespace gradconf::props {

/// `base` with its `layouts` drawn by `gen_layouts(problem, strided)` (the family's: which roles
/// may be strided or broadcast depends on the op).
template <typename Problem, typename GenLayouts>
rc::Gen<Problem> with_layouts(rc::Gen<Problem> base, bool strided, GenLayouts gen_layouts) {
  return rc::gen::mapcat(base, [strided, gen_layouts](Problem p) {
    return rc::gen::map(gen_layouts(p, strided), [p](const auto& layouts) {
      Problem q = p;
      q.layouts = layouts;
      return q;
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
