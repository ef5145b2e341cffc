// Planted faults of NsaSelectedAttention (ops/core/planted_fault.h), each an `if constexpr`
// branch of the kernels, memory-safe.
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_FAULTS_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_FAULTS_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace gradconf::nsa {

enum class Fault : uint8_t {
  kNone,
  kCausalOffByOne,    ///< sparseMode 2 masks kv position >= s (the query's own position too)
  kStatsLane1,        ///< the backward reads lane 1 of softmaxMax/softmaxSum instead of lane 0
  kDkScaleMissing,    ///< dk lacks the factor scaleValue
  kGroupModulo,       ///< query head n1 uses kv head n1 % N2 instead of n1 / G
  kDuplicatesMerged,  ///< a block selected twice by one query is attended once
  kDrFromGradGrad,    ///< Dr = dO . dO instead of dO . O
  kCount,
};

inline constexpr std::array kAllFaults = {
    Fault::kCausalOffByOne, Fault::kStatsLane1,       Fault::kDkScaleMissing,
    Fault::kGroupModulo,    Fault::kDuplicatesMerged, Fault::kDrFromGradGrad,
};

std::string_view fault_name(Fault fault);

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_FAULTS_H_
