// kFuzzedEntry (common/fuzzed_entry.h) of one API target binary: the backward with
// GRADCONF_FUZZ_BACKWARD, else the forward.
#include "common/fuzzed_entry.h"

namespace gradconf::fuzz {

#ifdef GRADCONF_FUZZ_BACKWARD
const Direction kFuzzedEntry = Direction::kBackward;
#else
const Direction kFuzzedEntry = Direction::kForward;
#endif

}  // namespace gradconf::fuzz
