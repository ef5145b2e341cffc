#include "common/fuzz_support.h"

namespace gradconf::fuzz {
namespace {
std::map<std::string, int, std::less<>>* g_counts = nullptr;
std::set<std::string, std::less<>> g_seen_in_input;
}  // namespace

void tag(std::string_view name) {
  if (g_counts == nullptr) return;
  if (g_seen_in_input.insert(std::string(name)).second) ++(*g_counts)[std::string(name)];
}

std::map<std::string, int, std::less<>>& enable_tags() {
  static std::map<std::string, int, std::less<>> counts;
  g_counts = &counts;
  return counts;
}

void begin_input() { g_seen_in_input.clear(); }

}  // namespace gradconf::fuzz
