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

enum class Isa { kBaseline, kAvx2 };

/// The widest path this CPU runs, capped by GRADCONF_ISA ("baseline" or "avx2"; read once per
/// process, so tests can pin a path).
Isa kernel_isa();

}  // namespace gradconf

#if defined(__x86_64__) && defined(__GNUC__)
#define GRADCONF_TARGET_AVX2 __attribute__((target("avx2,fma")))
#else
#define GRADCONF_TARGET_AVX2
#endif
#define GRADCONF_ALWAYS_INLINE inline __attribute__((always_inline))

#endif  // GRADCONF_OPS_CORE_ISA_H_
