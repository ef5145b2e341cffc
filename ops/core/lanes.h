// Fixed-order reductions that vectorise: kLanes interleaved partial sums (element k in lane
// k % kLanes) combined in one fixed tree. The order depends only on the length, never on threads
// or on whether the compiler vectorised, so results are bitwise reproducible.
#ifndef GRADCONF_OPS_CORE_LANES_H_
#define GRADCONF_OPS_CORE_LANES_H_

#include <cstdint>

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

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_LANES_H_
