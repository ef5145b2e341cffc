// Clause breakers: one per GS-* clause of grid_sampler2d::clause_table(), in table order. A
// breaker edits a valid Call so that exactly its clause fires (just-invalid), or makes the same
// kind of edit on the allowed side of the same boundary (just-valid). Choices come in as a plain
// uint64_t, so RapidCheck generators and libFuzzer byte decoders drive the same code; nothing
// here depends on RapidCheck.
//
// predict() is the oracle that goes with them: the verdict the clause table gives for a Call,
// computed without running the operator.
#ifndef GRADCONF_PROPERTIES_GEN_GRID_SAMPLER2D_BREAKERS_H_
#define GRADCONF_PROPERTIES_GEN_GRID_SAMPLER2D_BREAKERS_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "aclnn/acl_meta.h"
#include "harness/grid_sampler2d_harness.h"
#include "op/predict.h"

namespace gradconf::props::gs {

/// The entry points a breaker applies to. Some clauses never fire for the forward (it has no
/// outputMask and no gradOutput), so they have no forward breaker.
enum class Entries : uint8_t { kForward = 1, kBackward = 2, kBoth = 3 };

/// Edits `call` at one clause's boundary.
///
/// @param call        A call made by make_call() from a valid Problem of an entry the breaker
///                    applies to (other entries: left unchanged); edited in place. A null
///                    outputMask (GS-MASK-01's early-out) is replaced by {true, true} first, so
///                    every later clause is reachable.
/// @param choice      Selects among the ways to break the clause (which tensor, which value,
///                    which dim, +1 or -1, ...). Every value is valid; 0 picks the simplest way.
/// @param just_valid  false: afterwards exactly this clause is the first to fire. true: the same
///                    kind of edit kept on the allowed side of the boundary; the call stays
///                    valid, so phase 1 returns ACLNN_SUCCESS (and computes, except that a
///                    just-valid GS-MASK-01 case is the all-false mask).
using BreakFn = void (*)(Call& call, uint64_t choice, bool just_valid);

struct ClauseBreaker {
  std::string_view clause_id;  ///< e.g. "GS-SHAPE-04"
  Entries entries;             ///< the entry points the clause can fire for
  BreakFn apply;

  /// True when the breaker can be applied to a call of `entry`.
  bool applies_to(Entry entry) const;
};

/// One breaker per clause of grid_sampler2d::clause_table(), in the same order.
std::span<const ClauseBreaker> clause_breakers();

/// The breaker of `clause_id`, or nullptr.
const ClauseBreaker* find_breaker(std::string_view clause_id);

/// The status the clause table gives `clause_id` (ACLNN_ERR_INNER for an unknown id).
aclnnStatus clause_status(std::string_view clause_id);

}  // namespace gradconf::props::gs

#endif  // GRADCONF_PROPERTIES_GEN_GRID_SAMPLER2D_BREAKERS_H_
