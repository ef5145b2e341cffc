#include "core/profile.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace gradconf {
namespace {
SpecProfile profile_from_environment() {
  const char* value = std::getenv("GRADCONF_SPEC_PROFILE");
  if (value == nullptr || *value == '\0') return SpecProfile::kSeed;
  if (auto parsed = parse_profile(value)) return *parsed;
  // A typo must not silently run the wrong contract.
  std::fprintf(stderr, "gradconf: unknown GRADCONF_SPEC_PROFILE '%s', using 'seed'\n", value);
  return SpecProfile::kSeed;
}

std::atomic<SpecProfile>& active() {
  static std::atomic<SpecProfile> profile{profile_from_environment()};
  return profile;
}
}  // namespace

SpecProfile spec_profile() { return active().load(std::memory_order_relaxed); }
void set_spec_profile(SpecProfile profile) { active().store(profile, std::memory_order_relaxed); }

std::string_view profile_name(SpecProfile profile) {
  switch (profile) {
    case SpecProfile::kSeed:
      return "seed";
    case SpecProfile::kExtended:
      return "extended";
    case SpecProfile::kCannLatest:
      return "cann-latest";
  }
  return "seed";
}

std::optional<SpecProfile> parse_profile(std::string_view name) {
  for (auto p : {SpecProfile::kSeed, SpecProfile::kExtended, SpecProfile::kCannLatest}) {
    if (profile_name(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace gradconf
