#include "core/isa.h"

#include <cstdlib>
#include <string_view>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

namespace gradconf {

namespace {

/// GRADCONF_ISA, or "" when unset.
[[maybe_unused]] std::string_view pinned_isa() {
  const char* env = std::getenv("GRADCONF_ISA");
  return env ? env : "";
}

Isa detect() {
#if defined(__x86_64__) && defined(__GNUC__)
  const std::string_view pinned = pinned_isa();
  if (pinned == "baseline") return Isa::kBaseline;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return Isa::kBaseline;
  // The AVX2 path is x86-64-v3's, F16C included (every CPU with AVX2 has it): GCC and clang
  // name no F16C feature for __builtin_cpu_supports alike, so CPUID leaf 1 tells.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || (ecx >> 29 & 1) == 0) return Isa::kBaseline;
  if (pinned == "avx2") return Isa::kAvx2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")) return Isa::kAvx512;
  return Isa::kAvx2;
#endif
  return Isa::kBaseline;
}

bool detect_bfloat16_conversion() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (pinned_isa() == "avx512" || kernel_isa() != Isa::kAvx512) return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool dq_bw = (ebx >> 17 & 1) && (ebx >> 30 & 1);  // AVX512DQ, AVX512BW
  if (eax < 1 || !dq_bw || !__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
  return (eax >> 5 & 1) != 0;  // AVX512_BF16
#endif
  return false;
}

bool detect_gathers_by_loads() {
  const char* pinned = std::getenv("GRADCONF_GATHER");
  if (pinned && std::string_view(pinned) == "loads") return true;
  if (pinned && std::string_view(pinned) == "instruction") return false;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_is("amdfam17h") || __builtin_cpu_is("amdfam19h");
#endif
  return false;
}

}  // namespace

Isa kernel_isa() {
  static const Isa isa = detect();
  return isa;
}

bool kernel_has_bfloat16_conversion() {
  static const bool has = detect_bfloat16_conversion();
  return has;
}
bool kernel_gathers_by_loads() {
  static const bool by_loads = detect_gathers_by_loads();
  return by_loads;
}
// Detected while the library loads (core/fork_safe.h: no static is first initialised by a call).
[[maybe_unused]] const Isa isa_at_load = kernel_isa();
[[maybe_unused]] const bool bfloat16_conversion_at_load = kernel_has_bfloat16_conversion();
[[maybe_unused]] const bool gathers_by_loads_at_load = kernel_gathers_by_loads();

}  // namespace gradconf
