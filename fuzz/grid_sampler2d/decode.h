// Bytes -> GridSampler2D problems and boundary edits, over the same ranges and enums as the
// RapidCheck generators (properties/families/grid_sampler2d/ranges.h), plus the specials. Short or
// exhausted inputs decode to the simplest valid problem, so libFuzzer starts from the middle of
// the space and grows outward.
#ifndef GRADCONF_FUZZ_GRID_SAMPLER2D_DECODE_H_
#define GRADCONF_FUZZ_GRID_SAMPLER2D_DECODE_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <optional>

#include "families/grid_sampler2d/breakers.h"
#include "grid_sampler2d/problem.h"

namespace gradconf::fuzz::gs {

using grid_sampler2d::Problem;

/// A valid problem of `entry` within gs_ranges limits (empty tensors and null masks included).
Problem decode_problem(FuzzedDataProvider& fdp, Direction entry);

}  // namespace gradconf::fuzz::gs

#endif  // GRADCONF_FUZZ_GRID_SAMPLER2D_DECODE_H_
