// The raw-arguments fuzz target of any entry point: bytes -> the C arguments exactly as a careless
// or hostile caller could pass them. Null pointers in every position, ranks 0..9, negative, huge
// and overflowing dims, strides and offsets (views that fit their storage and views that do not),
// wrong dtypes and formats, attributes out of range or of the wrong length, null where not
// allowed, workspaces too small or null, executors reused or null.
// Oracles: no crash and no sanitizer report; phase 1's status is the clause table's prediction
// for the same arguments and its message names the clause. That prediction reads the same clause
// tables our backend compiles in, so against our own backend it checks that validation is total
// and consistent (every argument reaches a clause, the right one fires first), not that a
// clause's status or profile tag is right: the hand-written rows in tests/<op>/ (statuses typed
// from the seed documents) check those. Against a foreign backend it is a full oracle. Failing
// phases leave every output byte as it was; phase 2's status follows spec
// README §1; inputs are never written.
#ifndef GRADCONF_FUZZ_COMMON_ARGS_TARGET_H_
#define GRADCONF_FUZZ_COMMON_ARGS_TARGET_H_

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>

#include "op/call.h"
#include "op/op_spec.h"

namespace gradconf::fuzz {

struct ArgsTarget {
  const props::EntrySpec* entry = nullptr;
  /// A valid call of the entry (dims, dtypes, index values, attributes), decoded from the input:
  /// the coherent starting point that the raw decoding then breaks here and there.
  props::Call (*base_call)(FuzzedDataProvider& fdp) = nullptr;
  /// Op-specific wild attribute values (e.g. enum values the op defines); called before the
  /// generic wild values by attribute kind. May be null.
  void (*wild_attrs)(FuzzedDataProvider& fdp, props::Call& call) = nullptr;
};

/// One input of the target (call from LLVMFuzzerTestOneInput).
int run_args_target(const uint8_t* data, size_t size, const ArgsTarget& target);

}  // namespace gradconf::fuzz

#endif  // GRADCONF_FUZZ_COMMON_ARGS_TARGET_H_
