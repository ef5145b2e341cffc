// Bytes -> NsaCompress problems over the generators' ranges (small problems, so the math targets
// stay fast). Short inputs decode to the simplest problem.
#ifndef GRADCONF_FUZZ_NSA_COMPRESS_DECODE_H_
#define GRADCONF_FUZZ_NSA_COMPRESS_DECODE_H_

#include <fuzzer/FuzzedDataProvider.h>

#include "nsa_compress/problem.h"

namespace gradconf::fuzz::nc {

gradconf::nc::Problem decode_problem(FuzzedDataProvider& fdp, Direction direction);

}  // namespace gradconf::fuzz::nc

#endif  // GRADCONF_FUZZ_NSA_COMPRESS_DECODE_H_
