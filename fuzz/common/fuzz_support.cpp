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

bool tags_enabled() { return g_counts != nullptr; }

std::map<std::string, int, std::less<>>& enable_tags() {
  static std::map<std::string, int, std::less<>> counts;
  g_counts = &counts;
  return counts;
}

void begin_input() { g_seen_in_input.clear(); }

LayoutSpec decode_layout(FuzzedDataProvider& fdp, int rank, bool is_input,
                         const props::LayoutLimits& limits,
                         const std::vector<std::vector<int>>& orders) {
  LayoutSpec layout;
  if (fdp.ConsumeBool()) return layout;
  const std::vector<std::vector<int>>& choices =
      orders.empty() ? props::standard_orders(rank) : orders;
  layout.order = choices[fdp.ConsumeIntegralInRange<size_t>(0, choices.size() - 1)];
  bool identity = true;
  for (size_t i = 0; i < layout.order.size(); ++i)
    identity = identity && layout.order[i] == static_cast<int>(i);
  if (identity) layout.order.clear();  // spelled as LayoutSpec::parse returns it
  if (fdp.ConsumeBool()) layout.pad = fdp.ConsumeIntegralInRange<int64_t>(1, limits.max_pad);
  if (fdp.ConsumeBool()) layout.offset = fdp.ConsumeIntegralInRange<int64_t>(1, limits.max_offset);
  if (is_input && rank > 0 && fdp.ConsumeBool()) {
    const uint32_t all_dims = rank >= 32 ? ~0u : (1u << rank) - 1;
    layout.broadcast = fdp.ConsumeIntegralInRange<uint32_t>(1, all_dims);
  }
  return layout;
}

}  // namespace gradconf::fuzz

// ASan's defaults, which ASAN_OPTIONS still overrides:
// - malloc_context_size=0: ASan records a 30-frame stack for every allocation by default, in
//   case a later report needs it: unwinding and storing them cost the args targets a fifth of
//   their speed. Reports keep the access stack; to see where a finding's memory was allocated
//   and freed, replay its input with ASAN_OPTIONS=malloc_context_size=30.
// - quarantine_size_mb=8: freed memory stays poisoned until the next 8 MB are freed, not 256.
//   At 256 MB an API target cycled through half a gigabyte of memory, every block cold or
//   returned to the kernel by the time it came back, and the page faults and cache misses took
//   a quarter or more of its time (8,000 runs of fuzz_nsa_grad_api: 7.5-9.2 s with the default,
//   5.7-7.1 s with 8 MB; fuzz_msda_grad_api 6.8-8.2 -> 3.6-4.3 s). A use after free is still
//   caught while the block is among the last 8 MB freed: about 45 inputs of the heaviest
//   target, which frees 180 KB per input on average (ASan's free hook over 4,000 runs), and a
//   kernel's own buffers live and die within one call.
extern "C" const char* __asan_default_options() {
  return "malloc_context_size=0:quarantine_size_mb=8";
}
