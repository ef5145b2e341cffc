// Bytes -> NsaSelectedAttention problems over the generators' ranges (small problems, so the math
// targets stay fast). Short inputs decode to the simplest problem.
#ifndef GRADCONF_FUZZ_NSA_SELECTED_ATTENTION_DECODE_H_
#define GRADCONF_FUZZ_NSA_SELECTED_ATTENTION_DECODE_H_

#include <fuzzer/FuzzedDataProvider.h>

#include "nsa_selected_attention/problem.h"

namespace gradconf::fuzz::nsa {

gradconf::nsa::Problem decode_problem(FuzzedDataProvider& fdp, Direction direction);

}  // namespace gradconf::fuzz::nsa

#endif  // GRADCONF_FUZZ_NSA_SELECTED_ATTENTION_DECODE_H_
