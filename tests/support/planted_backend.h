// The planted-fault backend (libgradconf_aclnn_planted.so: our sources with every op's planted
// faults compiled in) loaded next to the linked backend, so one test binary can compare both.
#ifndef GRADCONF_TESTS_SUPPORT_PLANTED_BACKEND_H_
#define GRADCONF_TESTS_SUPPORT_PLANTED_BACKEND_H_

#include <string_view>

#include "harness/backend.h"

namespace gradconf::testing {

/// The loaded planted-fault library (a test fails loudly when it cannot be loaded).
const props::Backend& planted_backend();

/// The planted library with "<family>.<fault>" (or a full "core.<name>") selected for the calls
/// that follow.
const props::Backend& planted_backend(std::string_view family, std::string_view fault);

}  // namespace gradconf::testing

#endif  // GRADCONF_TESTS_SUPPORT_PLANTED_BACKEND_H_
