// Planted faults of NsaCompress (ops/core/planted_fault.h), each an `if constexpr` branch of the
// kernels or of the plan, memory-safe.
#ifndef GRADCONF_OPS_NSA_COMPRESS_FAULTS_H_
#define GRADCONF_OPS_NSA_COMPRESS_FAULTS_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace gradconf::nc {

enum class Fault : uint8_t {
  kNone,
  kWindowStartOffByOne,  ///< window i starts at i*d + 1 (where the window still fits its batch)
  kLastWindowDropped,    ///< the last window of each batch is neither computed nor propagated
  kWeightTransposed,     ///< weight read as the (N, l) matrix: weight[n, j]
  kLengthsNotPrefix,     ///< actSeqLen read as per-batch lengths instead of prefix sums
  kLastWriterWins,       ///< inputGrad keeps only the last overlapping window's contribution
  kTailUnwritten,        ///< inputGrad of tokens after a batch's last window left unwritten
  kFormatUnchecked,  ///< phase 1 skips NC-FORMAT-01 (any aclFormat accepted, the probe's defect)
  kAbsOutputGrad,    ///< the backward reads |outputGrad| (not linear in the incoming gradient)
  kIgnoredInputGradStride,  ///< inputGrad rows written as if their last stride were 1
  kPartialsAssumedZero,     ///< weightGrad's chunk partials are not cleared (workspace trusted)
  kCount,
};

inline constexpr std::array kAllFaults = {
    Fault::kWindowStartOffByOne, Fault::kLastWindowDropped, Fault::kWeightTransposed,
    Fault::kLengthsNotPrefix,    Fault::kLastWriterWins,    Fault::kTailUnwritten,
    Fault::kFormatUnchecked,     Fault::kAbsOutputGrad,     Fault::kIgnoredInputGradStride,
    Fault::kPartialsAssumedZero,
};

std::string_view fault_name(Fault fault);

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_FAULTS_H_
