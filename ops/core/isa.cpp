#include "core/isa.h"

#include <cstdlib>
#include <string_view>

namespace gradconf {

namespace {

Isa detect() {
#if defined(__x86_64__) && defined(__GNUC__)
  const char* env = std::getenv("GRADCONF_ISA");
  const std::string_view pinned = env ? env : "";
  if (pinned == "baseline") return Isa::kBaseline;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Isa::kBaseline;
  if (pinned == "avx2") return Isa::kAvx2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return Isa::kAvx512;
  return Isa::kAvx2;
#endif
  return Isa::kBaseline;
}

}  // namespace

Isa kernel_isa() {
  static const Isa isa = detect();
  return isa;
}
// Detected while the library loads (core/fork_safe.h: no static is first initialised by a call).
[[maybe_unused]] const Isa isa_at_load = kernel_isa();

}  // namespace gradconf
