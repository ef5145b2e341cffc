// Bytes -> MultiScaleDeformableAttention problems over the generators' ranges (small problems,
// so the math targets stay fast), plus the specials. Short inputs decode to the simplest problem.
#ifndef GRADCONF_FUZZ_MULTI_SCALE_DEFORMABLE_ATTENTION_DECODE_H_
#define GRADCONF_FUZZ_MULTI_SCALE_DEFORMABLE_ATTENTION_DECODE_H_

#include <fuzzer/FuzzedDataProvider.h>

#include "multi_scale_deformable_attention/problem.h"

namespace gradconf::fuzz::msda {

gradconf::msda::Problem decode_problem(FuzzedDataProvider& fdp, Direction direction);

}  // namespace gradconf::fuzz::msda

#endif  // GRADCONF_FUZZ_MULTI_SCALE_DEFORMABLE_ATTENTION_DECODE_H_
