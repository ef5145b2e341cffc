// The entry point an API target binary fuzzes. Defined by the one-line object its CMake target
// links (fuzzed_entry.cpp, compiled with and without GRADCONF_FUZZ_BACKWARD), so an op's API target
// source (common/api_target.h) is compiled once for its forward (fuzz_<op>_api) and backward
// (fuzz_<op>_grad_api) binaries. A header of its own: the two definitions compile in a moment.
#ifndef GRADCONF_FUZZ_COMMON_FUZZED_ENTRY_H_
#define GRADCONF_FUZZ_COMMON_FUZZED_ENTRY_H_

#include "core/direction.h"

namespace gradconf::fuzz {

extern const Direction kFuzzedEntry;

}  // namespace gradconf::fuzz

#endif  // GRADCONF_FUZZ_COMMON_FUZZED_ENTRY_H_
