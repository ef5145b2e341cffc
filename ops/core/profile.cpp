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
  std::fprintf(stderr,
               "gradconf: GRADCONF_SPEC_PROFILE '%s' is not an implemented profile (seed, "
               "extended), using 'seed'\n",
               value);
  return SpecProfile::kSeed;
}

std::atomic<SpecProfile>& active() {
  static std::atomic<SpecProfile> profile{profile_from_environment()};
  return profile;
}
}  // namespace

std::span<const SpecProfile> implemented_profiles() {
  static constexpr SpecProfile kImplemented[] = {SpecProfile::kSeed, SpecProfile::kExtended};
  return kImplemented;
}

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
  // cann-latest is named in the spec but not implemented yet: accepting it would silently run
  // the seed contract under another name.
  for (auto p : implemented_profiles()) {
    if (profile_name(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace gradconf
