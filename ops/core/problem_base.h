// What every op's problem descriptor holds besides its sizes and fills: the entry point, the
// element dtype, one memory layout per tensor role, the RNG seed its values are drawn from and
// the spec profile it is judged under. An op's Problem derives from ProblemBase and adds the rest.
#ifndef GRADCONF_OPS_CORE_PROBLEM_BASE_H_
#define GRADCONF_OPS_CORE_PROBLEM_BASE_H_

#include <array>
#include <cstdint>

#include "aclnn/acl_meta.h"
#include "core/direction.h"
#include "core/layout.h"
#include "core/profile.h"

namespace gradconf {

template <typename Role, int kRoleCount, aclDataType kDefaultDtype>
struct ProblemBase {
  Direction entry = Direction::kBackward;
  aclDataType dtype = kDefaultDtype;
  std::array<LayoutSpec, kRoleCount> layouts{};
  uint64_t seed = 1;  ///< of the values (core/random.h), not the spec profile
  SpecProfile profile = SpecProfile::kSeed;

  bool operator==(const ProblemBase&) const = default;

  const LayoutSpec& layout(Role role) const { return layouts[static_cast<int>(role)]; }
  LayoutSpec& layout(Role role) { return layouts[static_cast<int>(role)]; }
};

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_PROBLEM_BASE_H_
