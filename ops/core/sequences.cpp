#include "core/sequences.h"

namespace gradconf {

std::optional<std::string> check_prefix_sums(std::span<const int64_t> prefix, int64_t total,
                                             std::string_view name) {
  const std::string what(name);
  if (prefix.empty()) return "expected " + what + " to hold at least one value, but it is empty";
  int64_t previous = 0;
  for (size_t b = 0; b < prefix.size(); ++b) {
    const std::string at = what + "[" + std::to_string(b) + "]";
    if (prefix[b] < 0) return "expected " + at + " >= 0, but got " + std::to_string(prefix[b]);
    if (prefix[b] < previous) {
      return "expected prefix sums (non-decreasing), but got " + at + " = " +
             std::to_string(prefix[b]) + " after " + std::to_string(previous);
    }
    previous = prefix[b];
  }
  if (prefix.back() != total) {
    return "expected the last value of " + what + " == " + std::to_string(total) +
           " (the token count), but got " + std::to_string(prefix.back());
  }
  return std::nullopt;
}

std::vector<SequenceRange> sequence_ranges(std::span<const int64_t> prefix) {
  std::vector<SequenceRange> ranges;
  ranges.reserve(prefix.size());
  int64_t begin = 0;
  for (int64_t end : prefix) {
    ranges.push_back({begin, end});
    begin = end;
  }
  return ranges;
}

}  // namespace gradconf
