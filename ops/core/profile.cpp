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
               "gradconf: GRADCONF_SPEC_PROFILE '%s' is not a profile (seed, extended, "
               "cann-latest), using 'seed'\n",
               value);
  return SpecProfile::kSeed;
}

std::atomic<SpecProfile>& active() {
  static std::atomic<SpecProfile> profile{profile_from_environment()};
  return profile;
}
// Read while the library loads: a first read racing another thread's fork() would leave the
// child this static's initialisation in progress forever (core/fork_safe.h).
[[maybe_unused]] const std::atomic<SpecProfile>& profile_at_load = active();
}  // namespace

std::span<const SpecProfile> implemented_profiles() {
  static constexpr SpecProfile kImplemented[] = {SpecProfile::kSeed, SpecProfile::kExtended,
                                                 SpecProfile::kCannLatest};
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

std::string_view profile_description(SpecProfile profile) {
  switch (profile) {
    case SpecProfile::kSeed:
      return "the seed documents as written, with the spec's decisions (where the two MSDA "
             "documents disagree, a call must satisfy both)";
    case SpecProfile::kExtended:
      return "seed plus DOUBLE for every float tensor and the device-tiling limits relaxed "
             "(MSDA any C <= 256, NsaCompress any l and d, ...): the same kernels on small "
             "shapes in double";
    case SpecProfile::kCannLatest:
      return "current CANN code where it moved past the seed documents: E-GS-5 (GridSampler2D "
             "reflection padding and bicubic interpolation, PyTorch's formulas), E-MSDA-3 (seed "
             "000's limits only), E-MSDA-4 (gradOutput and output (bs, Q, heads * C)), E-NC-1 "
             "(compressBlockSize >= compressStride)";
  }
  return "";
}

std::optional<SpecProfile> parse_profile(std::string_view name) {
  for (auto p : implemented_profiles()) {
    if (profile_name(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace gradconf
