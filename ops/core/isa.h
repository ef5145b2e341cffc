// Runtime choice of the instruction set for hot kernel loops. The build targets baseline x86-64
// (the backend runs in other people's processes on machines we do not know), so a kernel that
// needs wider vectors compiles its loop body twice: once as is, once inside a function with
// GRADCONF_TARGET_AVX2, and calls the one kernel_isa() names. Only the always-inline body is
// compiled for AVX2; every out-of-line function it calls keeps the baseline ISA, so no AVX2 copy
// of a shared inline function can reach a machine without AVX2. Results may differ in the last
// bits between the two paths (vector widths change nothing in our fixed orders, but the compiler
// may contract), never between thread counts.
#ifndef GRADCONF_OPS_CORE_ISA_H_
#define GRADCONF_OPS_CORE_ISA_H_

namespace gradconf {

/// kAvx512 implies kAvx2: every AVX2 path runs on it; only core/gemm's products have a 512-bit
/// path.
enum class Isa { kBaseline, kAvx2, kAvx512 };

/// The widest path this CPU runs, capped by GRADCONF_ISA ("baseline", "avx2" or "avx512"; read
/// once per process, so tests can pin a path).
Isa kernel_isa();

}  // namespace gradconf

#if defined(__x86_64__) && defined(__GNUC__)
#define GRADCONF_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define GRADCONF_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))
#else
#define GRADCONF_TARGET_AVX2
#define GRADCONF_TARGET_AVX512
#endif
#define GRADCONF_ALWAYS_INLINE inline __attribute__((always_inline))

namespace gradconf {

template <typename Body>
GRADCONF_TARGET_AVX2 void run_avx2(Body& body) {
  body();
}

template <typename Body>
GRADCONF_TARGET_AVX512 void run_avx512(Body& body) {
  body();
}

template <typename Body>
void run_baseline(Body& body) {
  body();
}

/// Runs `body`, a lambda declared GRADCONF_ALWAYS_INLINE_LAMBDA, compiled for the path
/// kernel_isa() names: the lambda's body is inlined into one function per path. kBothPaths
/// false compiles the baseline path only: the planted-fault instantiations pass it (both paths give
/// the same bits, so one is enough to plant a fault in).
template <bool kBothPaths = true, typename Body>
void on_widest_isa(Body&& body) {
  if constexpr (!kBothPaths) {
    run_baseline(body);
    return;
  }
  if (kernel_isa() != Isa::kBaseline) {
    run_avx2(body);
  } else {
    run_baseline(body);
  }
}

}  // namespace gradconf

/// Placed after a lambda's parameter list: on_widest_isa inlines its body into each path.
#define GRADCONF_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))

#endif  // GRADCONF_OPS_CORE_ISA_H_
