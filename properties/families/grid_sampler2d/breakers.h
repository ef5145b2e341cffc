// Clause breakers: one per GS-* clause of grid_sampler2d::clause_table(), in table order. A
// breaker edits a valid Call so that exactly its clause fires (just-invalid), or makes the same
// kind of edit on the allowed side of the same boundary (just-valid). Choices come in as a plain
// uint64_t, so RapidCheck generators and libFuzzer byte decoders drive the same code; nothing
// here depends on RapidCheck.
//
// predict() is the oracle that goes with them: the verdict the clause table gives for a Call,
// computed without running the operator.
#ifndef GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_BREAKERS_H_
#define GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_BREAKERS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "aclnn/acl_meta.h"
#include "families/grid_sampler2d/entries.h"
#include "gen/boundary.h"
#include "op/predict.h"

namespace gradconf::props::gs {

using Entries = Directions;

/// One breaker per clause of grid_sampler2d::clause_table(), in the same order. Each edits a call
/// made by make_call() from a valid Problem; a null outputMask (GS-MASK-01's early-out) is
/// replaced by {true, true} first, so every later clause is reachable. A just-valid GS-MASK-01
/// case is the all-false mask {0, 0} (validation proceeds, nothing requested).
std::span<const ClauseBreaker> clause_breakers();

}  // namespace gradconf::props::gs

#endif  // GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_BREAKERS_H_
