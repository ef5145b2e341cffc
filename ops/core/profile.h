// Spec profiles (spec README §4): which clauses are active. Set by API, env GRADCONF_SPEC_PROFILE
// or the CLI's --profile; read by every phase 1.
#ifndef GRADCONF_OPS_CORE_PROFILE_H_
#define GRADCONF_OPS_CORE_PROFILE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace gradconf {

enum class SpecProfile : uint8_t { kSeed = 1, kExtended = 2, kCannLatest = 4 };

/// A set of profiles, as a bit mask of SpecProfile values.
using ProfileSet = uint8_t;
inline constexpr ProfileSet kAllProfiles = 1 | 2 | 4;
inline constexpr ProfileSet profiles(SpecProfile p) { return static_cast<ProfileSet>(p); }
inline constexpr bool contains(ProfileSet set, SpecProfile p) {
  return (set & static_cast<ProfileSet>(p)) != 0;
}

/// The active profile: the last set_spec_profile, else GRADCONF_SPEC_PROFILE, else seed.
SpecProfile spec_profile();
void set_spec_profile(SpecProfile profile);
std::string_view profile_name(SpecProfile profile);
/// What the profile implements, in one sentence for reports (spec README §4 and its Changes).
std::string_view profile_description(SpecProfile profile);
/// The profiles the operators implement: seed, extended and cann-latest (spec README §4).
std::span<const SpecProfile> implemented_profiles();
/// An implemented profile by name ("seed", "extended", "cann-latest"); nullopt for anything else.
std::optional<SpecProfile> parse_profile(std::string_view name);

/// Sets a profile for the lifetime of the guard (tests, CLI replay of one case).
class ScopedSpecProfile {
 public:
  explicit ScopedSpecProfile(SpecProfile profile) : saved_(spec_profile()) {
    set_spec_profile(profile);
  }
  ~ScopedSpecProfile() { set_spec_profile(saved_); }
  ScopedSpecProfile(const ScopedSpecProfile&) = delete;
  ScopedSpecProfile& operator=(const ScopedSpecProfile&) = delete;

 private:
  SpecProfile saved_;
};

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_PROFILE_H_
