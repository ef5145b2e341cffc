// The shared grammar of repro lines: "<op> --key=value ... <shape>" (benchdnn style). Each op's
// Problem decides its own keys; the keys every op has (dt, layout-<role>, seed, profile) are
// printed and parsed here, once.
#ifndef GRADCONF_OPS_CORE_REPRO_H_
#define GRADCONF_OPS_CORE_REPRO_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/direction.h"
#include "core/layout.h"
#include "core/profile.h"

namespace gradconf {

struct ReproLine {
  std::string op;
  std::map<std::string, std::string, std::less<>> options;  ///< --key=value
  std::vector<std::string> positional;

  /// Removes and returns an option; nullopt when absent.
  std::optional<std::string> take(std::string_view key);
  /// True when every option and positional was consumed.
  bool fully_consumed() const { return options.empty() && positional.empty(); }
};

/// nullopt on a malformed line (empty, duplicate key, "--key" without "=").
std::optional<ReproLine> tokenize_repro(std::string_view line);

/// A line of one op's two entry points (repro names `forward` and `backward`): its tokens, with
/// `entry` set from the op name; nullopt for a malformed line or another op.
std::optional<ReproLine> tokenize_entry_line(std::string_view text, std::string_view forward,
                                             std::string_view backward, Direction& entry);

/// The float dtypes' names in repro lines ("f32", "f16", "bf16", "f64"); other dtypes print their
/// aclDataType name and do not parse.
std::string_view dtype_repro_name(aclDataType dtype);
std::optional<aclDataType> parse_dtype_repro(std::string_view name);

/// Strict decimal integer in [lo, hi].
std::optional<int64_t> parse_int_in(std::string_view text, int64_t lo, int64_t hi);

/// Parses "n2c3_ih5iw8_oh3ow7"-style dims: each letter group followed by its number, in the
/// given order of names, e.g. {"n","c","ih","iw","oh","ow"}. Names must appear in order; the
/// underscores are optional separators.
std::optional<std::vector<int64_t>> parse_named_dims(std::string_view text,
                                                     const std::vector<std::string_view>& names,
                                                     int64_t max_value);

/// The line's shape, its one positional: the named dims (parse_named_dims), taken last, after
/// which nothing may be left on the line; nullopt otherwise.
std::optional<std::vector<int64_t>> take_shape(ReproLine& line,
                                               const std::vector<std::string_view>& names,
                                               int64_t max_value);

/// " --dt=<name>" when the problem's dtype is not the default's, else "".
template <typename Problem>
std::string repro_dtype_key(const Problem& p) {
  if (p.dtype == Problem{}.dtype) return "";
  return " --dt=" + std::string(dtype_repro_name(p.dtype));
}

/// The keys after the op's own: " --layout-<role>=..." per role whose layout is not the default,
/// then " --seed=" and " --profile=" where they differ from the defaults. Problem provides
/// roles(), layout(role), seed and profile; role_name(role) is found in the role's namespace.
template <typename Problem>
std::string repro_common_keys(const Problem& p) {
  const Problem defaults;
  std::string keys;
  for (auto role : p.roles()) {
    const std::string text = p.layout(role).to_string();
    if (!text.empty()) keys += " --layout-" + std::string(role_name(role)) + "=" + text;
  }
  if (p.seed != defaults.seed) keys += " --seed=" + std::to_string(p.seed);
  if (p.profile != defaults.profile) keys += " --profile=" + std::string(profile_name(p.profile));
  return keys;
}

/// Takes dt, layout-<role> (for the roles of the problem as parsed so far), seed and profile from
/// `line` into `p`. False on a malformed value or one equal to the default (defaults are omitted,
/// so every problem has one line).
template <typename Problem>
bool take_common_keys(ReproLine& line, Problem& p) {
  const Problem defaults;
  if (auto v = line.take("dt")) {
    auto dt = parse_dtype_repro(*v);
    if (!dt || *dt == defaults.dtype) return false;
    p.dtype = *dt;
  }
  // Before the layouts: a role's rank may depend on the profile (MSDA's gradOutput, E-MSDA-4).
  if (auto v = line.take("profile")) {
    auto profile = parse_profile(*v);
    if (!profile || *profile == defaults.profile) return false;
    p.profile = *profile;
  }
  for (auto role : p.roles()) {
    if (auto v = line.take("layout-" + std::string(role_name(role)))) {
      auto layout = LayoutSpec::parse(*v, p.dims(role).size());
      if (!layout || layout->to_string() != *v || layout->to_string().empty()) return false;
      p.layout(role) = *layout;
    }
  }
  if (auto v = line.take("seed")) {
    auto seed = parse_int_in(*v, 2, std::numeric_limits<int64_t>::max());
    if (!seed) return false;
    p.seed = static_cast<uint64_t>(*seed);
  }
  return true;
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_REPRO_H_
