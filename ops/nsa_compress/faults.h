// Planted faults of NsaCompress (ops/core/planted_fault.h), each a `planted<kFault>` branch of the
// kernels or of the plan, memory-safe.
#ifndef GRADCONF_OPS_NSA_COMPRESS_FAULTS_H_
#define GRADCONF_OPS_NSA_COMPRESS_FAULTS_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "core/planted_fault.h"

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
  kEqualWindowsRefused,     ///< cann-latest still refuses compressBlockSize == compressStride
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(Fault::kCount)> kFaultNames = {
    "none",
    "window_start_off_by_one",
    "last_window_dropped",
    "weight_transposed",
    "lengths_not_prefix",
    "last_writer_wins",
    "tail_unwritten",
    "format_unchecked",
    "abs_output_grad",
    "ignored_input_grad_stride",
    "partials_assumed_zero",
    "equal_windows_refused",
};
static_assert(all_named(kFaultNames));

inline constexpr std::string_view fault_name(Fault fault) {
  return fault_name_in(kFaultNames, fault);
}

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_FAULTS_H_
