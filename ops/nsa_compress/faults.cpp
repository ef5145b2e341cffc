#include "nsa_compress/faults.h"

namespace gradconf::nc {

std::string_view fault_name(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "none";
    case Fault::kWindowStartOffByOne:
      return "window_start_off_by_one";
    case Fault::kLastWindowDropped:
      return "last_window_dropped";
    case Fault::kWeightTransposed:
      return "weight_transposed";
    case Fault::kLengthsNotPrefix:
      return "lengths_not_prefix";
    case Fault::kLastWriterWins:
      return "last_writer_wins";
    case Fault::kTailUnwritten:
      return "tail_unwritten";
    case Fault::kFormatUnchecked:
      return "format_unchecked";
    case Fault::kAbsOutputGrad:
      return "abs_output_grad";
    case Fault::kIgnoredInputGradStride:
      return "ignored_input_grad_stride";
    case Fault::kPartialsAssumedZero:
      return "partials_assumed_zero";
    case Fault::kCount:
      break;
  }
  return "unknown";
}

}  // namespace gradconf::nc
