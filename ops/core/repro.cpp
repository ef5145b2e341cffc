#include "core/repro.h"

#include <utility>

#include "core/dtype.h"

#include <cctype>
#include <charconv>

namespace gradconf {

std::optional<std::string> ReproLine::take(std::string_view key) {
  auto it = options.find(key);
  if (it == options.end()) return std::nullopt;
  std::string value = it->second;
  options.erase(it);
  return value;
}

std::optional<ReproLine> tokenize_repro(std::string_view line) {
  ReproLine repro;
  size_t i = 0;
  bool first = true;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    size_t end = i;
    while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end]))) ++end;
    const std::string_view token = line.substr(i, end - i);
    i = end;
    if (first) {
      if (token.starts_with("-")) return std::nullopt;
      repro.op = std::string(token);
      first = false;
    } else if (token.starts_with("--")) {
      const size_t eq = token.find('=');
      if (eq == std::string_view::npos || eq == 2) return std::nullopt;
      auto [it, inserted] = repro.options.emplace(std::string(token.substr(2, eq - 2)),
                                                  std::string(token.substr(eq + 1)));
      if (!inserted) return std::nullopt;
    } else {
      repro.positional.emplace_back(token);
    }
  }
  if (first) return std::nullopt;
  return repro;
}

std::optional<int64_t> parse_int_in(std::string_view text, int64_t lo, int64_t hi) {
  int64_t value = 0;
  if (text.empty()) return std::nullopt;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < lo || value > hi) return std::nullopt;
  return value;
}

std::optional<std::vector<int64_t>> parse_named_dims(std::string_view text,
                                                     const std::vector<std::string_view>& names,
                                                     int64_t max_value) {
  std::vector<int64_t> values;
  size_t i = 0;
  for (std::string_view name : names) {
    if (i < text.size() && text[i] == '_') ++i;
    if (text.substr(i, name.size()) != name) return std::nullopt;
    i += name.size();
    size_t end = i;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    auto value = parse_int_in(text.substr(i, end - i), 0, max_value);
    if (!value) return std::nullopt;
    values.push_back(*value);
    i = end;
  }
  if (i != text.size()) return std::nullopt;
  return values;
}

namespace {
constexpr std::pair<std::string_view, aclDataType> kDtypeNames[] = {
    {"f32", ACL_FLOAT}, {"f16", ACL_FLOAT16}, {"bf16", ACL_BF16}, {"f64", ACL_DOUBLE}};
}  // namespace

std::string_view dtype_repro_name(aclDataType dtype) {
  for (const auto& [name, value] : kDtypeNames) {
    if (value == dtype) return name;
  }
  return dtype_name(dtype);
}

std::optional<aclDataType> parse_dtype_repro(std::string_view name) {
  for (const auto& [text, value] : kDtypeNames) {
    if (text == name) return value;
  }
  return std::nullopt;
}

std::optional<ReproLine> tokenize_entry_line(std::string_view text, std::string_view forward,
                                             std::string_view backward, Direction& entry) {
  auto line = tokenize_repro(text);
  if (!line || (line->op != forward && line->op != backward)) return std::nullopt;
  entry = line->op == forward ? Direction::kForward : Direction::kBackward;
  return line;
}

std::optional<std::vector<int64_t>> take_shape(ReproLine& line,
                                               const std::vector<std::string_view>& names,
                                               int64_t max_value) {
  if (line.positional.size() != 1) return std::nullopt;
  auto dims = parse_named_dims(line.positional[0], names, max_value);
  line.positional.clear();
  if (!dims || !line.fully_consumed()) return std::nullopt;
  return dims;
}

std::optional<std::array<int64_t, 2>> parse_size_pair(std::string_view text, int64_t lo,
                                                      int64_t hi) {
  const size_t x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  auto a = parse_int_in(text.substr(0, x), lo, hi);
  auto b = parse_int_in(text.substr(x + 1), lo, hi);
  if (!a || !b) return std::nullopt;
  return std::array<int64_t, 2>{*a, *b};
}

std::string format_size_pair(const std::array<int64_t, 2>& pair) {
  return std::to_string(pair[0]) + "x" + std::to_string(pair[1]);
}

}  // namespace gradconf
