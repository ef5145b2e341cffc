// Fixed-order reductions that vectorise: kLanes interleaved partial sums (element k in lane
// k % kLanes) combined in one fixed tree. The order depends only on the length, never on threads
// or on whether the compiler vectorised, so results are bitwise reproducible.
#ifndef GRADCONF_OPS_CORE_LANES_H_
#define GRADCONF_OPS_CORE_LANES_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/dtype.h"

namespace gradconf {

inline constexpr int kLanes = 8;

/// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)).
template <typename Acc>
Acc combine_lanes(const Acc (&lanes)[kLanes]) {
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) +
         ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

/// sum_k a[k] * b[k] over contiguous buffers, in lanes.
template <typename Acc>
Acc dot_lanes(const Acc* a, const Acc* b, int64_t n) {
  Acc lanes[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) lanes[j] += a[k + j] * b[k + j];
  }
  for (int j = 0; k < n; ++k, ++j) lanes[j] += a[k] * b[k];
  return combine_lanes(lanes);
}

/// kLanes consecutive channels held in registers (GCC/Clang vector extension: 8 floats are one
/// AVX2 register or two SSE registers, the compiler lowers to what the function targets). A loop
/// over a plain array of accumulators would keep them in memory and chain every add through a
/// store and a load.
template <typename Acc>
struct LaneVectorOf;
template <>
struct LaneVectorOf<float> {
  typedef float type __attribute__((vector_size(kLanes * sizeof(float))));
};
template <>
struct LaneVectorOf<double> {
  typedef double type __attribute__((vector_size(kLanes * sizeof(double))));
};
template <typename Acc>
using LaneVector = typename LaneVectorOf<Acc>::type;

// Lane vectors are passed by value only between always-inline functions, so the ABI note GCC
// gives for vector arguments on baseline x86-64 does not concern any real call.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

/// Loads kLanes elements p[0], p[stride], ... converted to Acc.
template <typename Acc, typename T>
inline __attribute__((always_inline)) LaneVector<Acc> load_lanes(const T* p, int64_t stride) {
  LaneVector<Acc> v;
  if constexpr (std::is_same_v<T, Acc>) {
    if (stride == 1) {
      std::memcpy(&v, p, sizeof v);
      return v;
    }
  } else if constexpr (std::is_same_v<T, bfloat16> && std::is_same_v<Acc, float>) {
    if (stride == 1) {
      // bfloat16 is the top half of a float: widen all lanes at once. Element by element, the
      // conversions went through the stack into the vector (a store-forwarding stall per load).
      typedef uint16_t Raw __attribute__((vector_size(kLanes * sizeof(uint16_t))));
      typedef uint32_t Wide __attribute__((vector_size(kLanes * sizeof(uint32_t))));
      Raw raw;
      std::memcpy(&raw, p, sizeof raw);
      const Wide bits = __builtin_convertvector(raw, Wide) << 16;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    }
  }
  for (int j = 0; j < kLanes; ++j) v[j] = static_cast<Acc>(p[j * stride]);
  return v;
}

/// combine_lanes' tree, ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)), in registers: each
/// step adds the vector to its own shuffle (a + b == b + a exactly).
template <typename Acc>
inline __attribute__((always_inline)) Acc combine_lane_vector(const LaneVector<Acc>& v) {
  const LaneVector<Acc> pairs = v + __builtin_shufflevector(v, v, 1, 0, 3, 2, 5, 4, 7, 6);
  const LaneVector<Acc> quads =
      pairs + __builtin_shufflevector(pairs, pairs, 2, 3, 0, 1, 6, 7, 4, 5);
  return quads[0] + quads[4];
}

/// Stores kLanes values to p[0], p[stride], ... converted to T.
template <typename Acc, typename T>
inline __attribute__((always_inline)) void store_lanes(T* p, int64_t stride,
                                                       const LaneVector<Acc>& v) {
  if constexpr (std::is_same_v<T, Acc>) {
    if (stride == 1) {
      std::memcpy(p, &v, sizeof v);
      return;
    }
  }
  for (int j = 0; j < kLanes; ++j) p[j * stride] = static_cast<T>(v[j]);
}

#pragma GCC diagnostic pop

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_LANES_H_
