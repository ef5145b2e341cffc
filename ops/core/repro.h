// The shared grammar of repro lines: "<op> --key=value ... <shape>" (benchdnn style). Each op's
// Problem decides which keys exist; this only tokenizes and reports leftovers.
#ifndef GRADCONF_OPS_CORE_REPRO_H_
#define GRADCONF_OPS_CORE_REPRO_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"

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

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_REPRO_H_
