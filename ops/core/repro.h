// The shared grammar of repro lines: "<op> --key=value ... <shape>" (benchdnn style). Each op's
// Problem decides its own keys; the keys every op has (dt, layout-<role>, seed, profile) are
// printed and parsed here, once.
#ifndef GRADCONF_OPS_CORE_REPRO_H_
#define GRADCONF_OPS_CORE_REPRO_H_

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <span>
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

/// "a.b.c": items parsed by `parse_item` (std::optional<Item> from one item's text); nullopt on
/// a bad item or more than `max_items`.
template <typename Item, typename ParseItem>
std::optional<std::vector<Item>> parse_dotted(std::string_view text, size_t max_items,
                                              ParseItem parse_item) {
  std::vector<Item> items;
  while (true) {
    const size_t dot = text.find('.');
    const std::optional<Item> item = parse_item(text.substr(0, dot));
    if (!item || items.size() >= max_items) return std::nullopt;
    items.push_back(*item);
    if (dot == std::string_view::npos) return items;
    text = text.substr(dot + 1);
  }
}

template <typename Item, typename FormatItem>
std::string format_dotted(const std::vector<Item>& items, FormatItem format_item) {
  std::string text;
  for (const Item& item : items) text += (text.empty() ? "" : ".") + format_item(item);
  return text;
}

/// "AxB" with both in [lo, hi] (a level's H x W, a batch's query x kv length).
std::optional<std::array<int64_t, 2>> parse_size_pair(std::string_view text, int64_t lo,
                                                      int64_t hi);
std::string format_size_pair(const std::array<int64_t, 2>& pair);

/// One size of the line's shape: "l32" is {"l", &Problem::block}. A name may start with '_', a
/// separator printed before it (GS's "n2c3_ih5iw8_oh3ow7").
template <typename Problem>
struct ShapeField {
  std::string_view name;
  int64_t Problem::*member;
  int64_t min = 0;
};

/// A "--key=1" option for a bool that is false by default.
template <typename Problem>
struct FlagKey {
  std::string_view key;
  bool Problem::*member;
};

/// What one op's repro lines share with every other's: the two entry names, the flags, the
/// shape. The op's own keys are written and read by callbacks around this frame.
template <typename Problem>
struct ReproGrammar {
  std::string_view forward, backward;
  std::span<const FlagKey<Problem>> flags;
  std::span<const ShapeField<Problem>> shape;
  int64_t max_size;
};

/// "<entry>[ --dt=..] <own keys> <flags> <common keys> <shape>". `write_own(option)` calls
/// option(key, value) for each of the op's keys that differs from the default.
template <typename Problem, typename WriteOwn>
std::string write_repro(const Problem& p, const ReproGrammar<Problem>& grammar,
                        WriteOwn write_own) {
  std::string line(p.entry == Direction::kForward ? grammar.forward : grammar.backward);
  line += repro_dtype_key(p);
  auto option = [&](std::string_view key, const std::string& value) {
    line += " --" + std::string(key) + "=" + value;
  };
  write_own(option);
  for (const FlagKey<Problem>& flag : grammar.flags) {
    if (p.*(flag.member)) option(flag.key, "1");
  }
  line += repro_common_keys(p) + " ";
  for (const ShapeField<Problem>& field : grammar.shape) {
    line += std::string(field.name) + std::to_string(p.*(field.member));
  }
  return line;
}

/// The inverse of write_repro: `take_own(line, p)` takes the op's keys (false: malformed). Then
/// the flags, the common keys and the shape; nothing may be left over.
template <typename Problem, typename TakeOwn>
std::optional<Problem> read_repro(std::string_view text, const ReproGrammar<Problem>& grammar,
                                  TakeOwn take_own) {
  Problem p;
  auto line = tokenize_entry_line(text, grammar.forward, grammar.backward, p.entry);
  if (!line || !take_own(*line, p)) return std::nullopt;
  for (const FlagKey<Problem>& flag : grammar.flags) {
    if (auto v = line->take(flag.key)) {
      if (*v != "1") return std::nullopt;
      p.*(flag.member) = true;
    }
  }
  if (!take_common_keys(*line, p)) return std::nullopt;
  std::vector<std::string_view> names;
  for (const ShapeField<Problem>& field : grammar.shape) {
    names.push_back(field.name.starts_with('_') ? field.name.substr(1) : field.name);
  }
  auto sizes = take_shape(*line, names, grammar.max_size);
  if (!sizes) return std::nullopt;
  for (size_t i = 0; i < grammar.shape.size(); ++i) {
    if ((*sizes)[i] < grammar.shape[i].min) return std::nullopt;
    p.*(grammar.shape[i].member) = (*sizes)[i];
  }
  return p;
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_REPRO_H_
