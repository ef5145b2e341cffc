// Runtime choice of the instruction set for hot kernel loops. The build targets baseline x86-64
// (the backend runs in other people's processes on machines we do not know), so a kernel that
// needs wider vectors compiles its loop body three times: once as is, once inside a function with
// GRADCONF_TARGET_AVX2 and once with GRADCONF_TARGET_AVX512, and calls the one kernel_isa() names.
// Only the always-inline body is compiled for the wider ISA; every out-of-line function it calls
// keeps the baseline ISA, so no wide copy of a shared inline function can reach a machine without
// it. The kernels' reduction lanes (core/lanes.h) are 8 wide whatever the path: under AVX-512 a
// vector of 8 doubles is one register instead of two, the same operations in the same order.
// Elementwise row loops may be 16 floats wide on the AVX-512 path (on_widest_isa_rows).
// Results may differ in the last bits between the baseline and the wider paths (the compiler may
// contract on them), never between thread counts.
#ifndef GRADCONF_OPS_CORE_ISA_H_
#define GRADCONF_OPS_CORE_ISA_H_

namespace gradconf {

/// kAvx512 implies kAvx2, and kAvx2 means AVX2, FMA and F16C (x86-64-v3's vector set).
/// on_widest_isa's bodies take the AVX-512 path as they are; core/gemm's products also have tiles
/// of their own for it.
enum class Isa { kBaseline, kAvx2, kAvx512 };

/// The widest path this CPU runs, capped by GRADCONF_ISA ("baseline", "avx2" or "avx512"; read
/// once per process, so tests can pin a path).
Isa kernel_isa();

/// The AVX-512 path may narrow float rows to bfloat16 with AVX512_BF16's vcvtneps2bf16 (with
/// AVX512DQ's vfpclassps to find the lanes it would round differently). Not with GRADCONF_ISA set
/// to "avx512" or lower.
bool kernel_has_bfloat16_conversion();

/// Whether the kernels read a vector of elements at lane offsets with one scalar load per lane
/// instead of AVX2's gather instruction, which AMD's Zen 1 to Zen 4 (families 17h and 19h) run
/// slower than the loads (an 8-lane gather from an L1-resident plane: 0.285 against 0.203 ms per
/// 64 Ki gathers on a Zen 3). GRADCONF_GATHER ("loads" or "instruction") pins the choice, so tests
/// can run both. Both give the same bits.
bool kernel_gathers_by_loads();

}  // namespace gradconf

#if defined(__x86_64__) && defined(__GNUC__)
#define GRADCONF_TARGET_AVX2 __attribute__((target("avx2,fma,f16c")))
#define GRADCONF_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma,f16c")))
#define GRADCONF_TARGET_AVX512_BF16 \
  __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx512bf16,avx2,fma")))
#else
#define GRADCONF_TARGET_AVX2
#define GRADCONF_TARGET_AVX512
#define GRADCONF_TARGET_AVX512_BF16
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

/// Runs the body kernel_isa() names, each a lambda declared GRADCONF_ALWAYS_INLINE_LAMBDA and
/// compiled for its path: `up_to_avx2` on the baseline and AVX2 paths, `avx512` on the AVX-512
/// one (core/gemm.cpp gives that path tiles of its own).
template <typename UpToAvx2, typename Avx512>
void on_isa_path(UpToAvx2& up_to_avx2, Avx512& avx512) {
  switch (kernel_isa()) {
    case Isa::kAvx512:
      run_avx512(avx512);
      break;
    case Isa::kAvx2:
      run_avx2(up_to_avx2);
      break;
    case Isa::kBaseline:
      run_baseline(up_to_avx2);
      break;
  }
}

/// Runs `body`, a lambda declared GRADCONF_ALWAYS_INLINE_LAMBDA, compiled for the path
/// kernel_isa() names: the lambda's body is inlined into one function per path. kEveryPath
/// false compiles the baseline path only: the planted-fault instantiations pass it (every path
/// gives the same bits, so one is enough to plant a fault in).
template <bool kEveryPath = true, typename Body>
void on_widest_isa(Body&& body) {
  if constexpr (kEveryPath) {
    on_isa_path(body, body);
  } else {
    run_baseline(body);
  }
}

}  // namespace gradconf

/// Placed after a lambda's parameter list: on_widest_isa inlines its body into each path.
#define GRADCONF_ALWAYS_INLINE_LAMBDA __attribute__((always_inline))

#endif  // GRADCONF_OPS_CORE_ISA_H_
