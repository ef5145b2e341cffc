// The one spelling of an entry point's direction, shared by the backend, the op model and reports.
#ifndef GRADCONF_OPS_CORE_DIRECTION_H_
#define GRADCONF_OPS_CORE_DIRECTION_H_

#include <cstdint>
#include <string_view>

namespace gradconf {

enum class Direction : uint8_t { kForward, kBackward };

inline std::string_view direction_name(Direction direction) {
  return direction == Direction::kForward ? "forward" : "backward";
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_DIRECTION_H_
